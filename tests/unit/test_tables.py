"""Tests for referee.kit.tables: parsing, load-time checks, lookups, and fuzzing of the parser."""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import GameDataError
from referee.kit import tables as tables_module
from referee.kit.tables import (
    Lookup,
    MissingTableError,
    Row,
    Table,
    Tables,
    load_tables_file,
    parse_table,
    parse_tables,
    require,
)

MORALE_YAML = """\
schema_version: 1
tables:
  morale:
    title: Morale check
    dice: 2d6
    modifiers:
      shaken: -1
      elite: 2
    clamp: [2, 12]
    rows:
      - {range: [2, 6], result: rout}
      - {range: 7-9, result: fall back}
      - {range: 10+, result: steady}
  crt:
    title: Combat results
    dice: 1d6
    columns: ["1:2", "1:1", "2:1"]
    rows:
      - {range: 1-2, result: {"1:2": AE, "1:1": AR, "2:1": EX}}
      - {range: 3-4, result: {"1:2": AR, "1:1": EX, "2:1": DR}}
      - {range: 5+, result: {"1:2": EX, "1:1": DR, "2:1": DE}}
"""


def table(rows: list[Any], **extra: Any) -> dict[str, Any]:
    """A table mapping on 2d6 with the given rows and extra keys."""
    return {"title": "Test", "dice": "2d6", "rows": rows, **extra}


def rows_for(*ranges: Any) -> list[dict[str, Any]]:
    return [{"range": r, "result": f"r{i}"} for i, r in enumerate(ranges)]


def error_for(data: dict[str, Any], table_id: str = "test") -> GameDataError:
    with pytest.raises(GameDataError) as info:
        parse_table(table_id, data, "tables.yaml")
    return info.value


@pytest.fixture
def tables(tmp_path: Path) -> Tables:
    path = tmp_path / "tables.yaml"
    path.write_text(MORALE_YAML, encoding="utf-8")
    return Tables(load_tables_file(path))


# Parsing ranges and rows


@pytest.mark.parametrize(
    ("spec", "low", "high", "label"),
    [
        ([2, 6], 2, 6, "2-6"),
        (7, 7, 7, "7"),
        ("7-9", 7, 9, "7-9"),
        ("7 - 9", 7, 9, "7-9"),
        ("7\u20139", 7, 9, "7-9"),  # an en dash, as pasted from a rulebook
        ("12+", 12, None, "12+"),
        ("2-", None, 2, "2-"),
        ("5", 5, 5, "5"),
        ("-3--1", -3, -1, "-3--1"),
        ([None, 4], None, 4, "4-"),
        ([10, None], 10, None, "10+"),
    ],
)
def test_every_form_of_range(spec: Any, low: int | None, high: int | None, label: str) -> None:
    parsed = parse_table("t", {"title": "T", "dice": "1d6", "rows": _cover_around(spec, low, high)}, "f")
    row = next(r for r in parsed.rows if r.result == "x")
    assert (row.low, row.high, row.label) == (low, high, label)


def _cover_around(spec: Any, low: int | None, high: int | None) -> list[dict[str, Any]]:
    """Rows covering everything, with the tested range in the middle."""
    rows: list[dict[str, Any]] = []
    if low is not None:
        rows.append({"range": f"{low - 1}-", "result": "below"})
    rows.append({"range": spec, "result": "x"})
    if high is not None:
        rows.append({"range": f"{high + 1}+", "result": "above"})
    return rows


@pytest.mark.parametrize(
    "spec", ["x", "7-9-11", [9, 7], "9-7", [1, 2, 3], [], [None, None], True, 1.5, None, {"a": 1}, "1" * 40, "7--"]
)
def test_bad_ranges_are_refused_with_the_key_named(spec: Any) -> None:
    err = error_for(table(rows_for("6-", spec, "13+")))
    assert err.message.startswith("tables.yaml: table test, rows[1].range: ")
    assert any("[low, high]" in hint or "lower total first" in hint for hint in err.hints)


def test_row_label() -> None:
    assert Row(2, 6, "x").label == "2-6"
    assert Row(7, 7, "x").label == "7"
    assert Row(10, None, "x").label == "10+"
    assert Row(None, 2, "x").label == "2-"


# Load-time checks


def test_gap_names_the_uncovered_totals() -> None:
    err = error_for(table(rows_for([2, 5], [7, 8], [11, 11])))
    assert "no row for total(s) 6, 9-10, 12" in err.message
    assert "from 2 to 12" in err.message


def test_gap_below_and_above_the_rows() -> None:
    err = error_for(table(rows_for([4, 10])))
    assert "2-3, 11-12" in err.message


def test_overlap_is_named() -> None:
    err = error_for(table(rows_for([2, 7], "6-9", "10+")))
    assert "rows 2-7 and 6-9 overlap (totals 6-7)" in err.message


def test_overlap_of_open_rows() -> None:
    err = error_for(table(rows_for("8-", "6+")))
    assert "rows 8- and 6+ overlap (totals 6-8)" in err.message


def test_rows_out_of_order() -> None:
    err = error_for(table(rows_for("10+", "9-")))
    assert "row 9- comes after row 10+" in err.message
    assert "increasing order" in err.hints[0]


def test_modifiers_widen_the_range_to_cover() -> None:
    rows = rows_for([2, 6], [7, 12])
    err = error_for(table(rows, modifiers={"shaken": -1, "tired": -1, "elite": 2}))
    assert "0-1, 13-14" in err.message
    assert "from 0 to 14" in err.message
    assert any("clamp" in hint for hint in err.hints)


def test_clamp_narrows_the_range_to_cover() -> None:
    parsed = parse_table("t", table(rows_for([2, 6], [7, 12]), modifiers={"bad": -3, "good": 3}, clamp=[2, 12]), "f")
    assert parsed.reachable == (2, 12)


def test_rows_may_reach_beyond_what_the_dice_make() -> None:
    parsed = parse_table("t", table(rows_for("1-", [2, 6], [7, 12], [13, 20])), "f")
    assert len(parsed.rows) == 4


def test_zero_based_dice() -> None:
    parsed = parse_table("t", {"title": "T", "dice": "1d10z", "rows": rows_for([0, 4], [5, 9])}, "f")
    assert parsed.reachable == (0, 9)
    err = error_for({"title": "T", "dice": "1d10z", "rows": rows_for([1, 10])})
    assert "no row for total(s) 0" in err.message


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (table(rows_for("2+"), titel="x"), ["unknown key(s) 'titel'", "did you mean title?"]),
        (table([{"range": "2+", "result": "x", "note": "y"}]), ["rows[0]", "unknown key(s) 'note'"]),
        (table(rows_for("2+"), dice="2d"), ["table test, dice", "2d6"]),
        ({"title": "T", "rows": rows_for("2+")}, ["dice: is missing"]),
        (table(rows_for("2+"), title=""), ["title: must be a non-empty text"]),
        (table([]), ["rows: must be a non-empty list"]),
        (table([{"range": "2+"}]), ["rows[0]: lacks result"]),
        (table([{"range": "2+", "result": True}]), ["rows[0].result", "true"]),
        (table([{"range": "2+", "result": None}]), ["rows[0].result", "nothing"]),
        (table([{"range": "2+", "result": ""}]), ["rows[0].result"]),
        (table(rows_for("2+"), modifiers={"Shaken": -1}), ["'Shaken' is not a valid modifier name"]),
        (table(rows_for("2+"), modifiers={"shaken": "-1"}), ["modifiers.shaken", "whole number"]),
        (table(rows_for("2+"), modifiers={"shaken": True}), ["modifiers.shaken"]),
        (table(rows_for("2+"), clamp=[12, 2]), ["clamp", "runs backwards"]),
        (table(rows_for("2+"), clamp=[2]), ["clamp", "[low, high]"]),
        (table(rows_for("2+"), columns=[61, "2:1"]), ["columns", "61"]),
        (table(rows_for("2+"), columns=["a", "a"]), ["columns", "more than once"]),
    ],
)
def test_malformed_tables_are_refused(data: dict[str, Any], words: list[str]) -> None:
    err = error_for(data)
    assert err.message.startswith("tables.yaml: table test")
    for word in words:
        assert word in err.message + " ".join(err.hints)


def test_bad_table_id() -> None:
    err = error_for(table(rows_for("2+")), table_id="Morale Check")
    assert "not a valid table id" in err.message
    assert "lower-case" in err.hints[0]


def test_file_level_checks() -> None:
    good = {"test": table(rows_for("2+"))}
    assert set(parse_tables({"schema_version": 1, "tables": good}, "f")) == {"test"}
    for data, words in [
        ({"tables": good}, "schema_version: must be 1, got nothing"),
        ({"schema_version": 2, "tables": good}, "must be 1, got 2"),
        ({"schema_version": True, "tables": good}, "must be 1, got true"),
        ({"schema_version": 1}, "tables: must be a mapping"),
        ({"schema_version": 1, "tables": good, "extra": 1}, "unknown key(s) 'extra'"),
        ([1, 2], "the file: must be a mapping"),
    ]:
        with pytest.raises(GameDataError, match="^f: ") as info:
            parse_tables(data, "f")
        assert words in info.value.message


def test_columns_must_match_exactly() -> None:
    columns = ["1:1", "2:1"]
    err = error_for(table([{"range": "2+", "result": {"1:1": "AR", "3:1": "DE"}}], columns=columns))
    assert "lacks column(s) 2:1" in err.message
    assert "undeclared column(s) '3:1'" in err.message
    err = error_for(table([{"range": "2+", "result": "AR"}], columns=columns))
    assert "must map each of 1:1, 2:1" in err.message
    err = error_for(table([{"range": "2+", "result": {"1:1": "AR", "2:1": False}}], columns=columns))
    assert "rows[0].result.2:1" in err.message


# Files


def test_load_file_names_the_source(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "schema_version: 1\ntables:\n  morale:\n    title: M\n    dice: 2d6\n    rows: [{range: 3+, result: x}]\n"
    )
    with pytest.raises(GameDataError) as info:
        load_tables_file(path)
    assert info.value.message.startswith(f"{path}: table morale, rows: no row for total(s) 2")


def test_load_file_refuses_duplicate_keys(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    text = MORALE_YAML + "  morale:\n    title: Again\n    dice: 1d6\n    rows: [{range: 1+, result: x}]\n"
    path.write_text(text)
    with pytest.raises(GameDataError, match="appears twice"):
        load_tables_file(path)


def test_load_file_missing_or_not_yaml(tmp_path: Path) -> None:
    with pytest.raises(GameDataError, match="cannot read tables file"):
        load_tables_file(tmp_path / "absent.yaml")
    path = tmp_path / "broken.yaml"
    path.write_text("tables: [unclosed\n")
    with pytest.raises(GameDataError, match="not valid YAML"):
        load_tables_file(path)


# Lookups


def test_lookup_reports_everything(tables: Tables) -> None:
    result = tables.lookup("morale", [3, 4], ["elite"])
    assert result == Lookup("morale", "Morale check", "2d6", (3, 4), 7, (("elite", 2),), 9, 9, "7-9", None, "fall back")
    data = result.as_dict()
    assert data["modifiers"] == [{"name": "elite", "value": 2}]
    assert data["values"] == [3, 4]
    assert json.loads(json.dumps(data)) == data
    assert list(data) == [f.name for f in dataclasses.fields(Lookup)]  # every field, in the dataclass's order


def test_lookup_clamps(tables: Tables) -> None:
    high = tables.lookup("morale", [6, 6], ["elite"])
    assert (high.modified, high.clamped, high.row, high.result) == (14, 12, "10+", "steady")
    low = tables.lookup("morale", [1, 1], ["shaken"])
    assert (low.modified, low.clamped, low.row, low.result) == (1, 2, "2-6", "rout")


def test_lookup_with_columns(tables: Tables) -> None:
    result = tables.lookup("crt", [5], column="2:1")
    assert (result.row, result.column, result.result) == ("5+", "2:1", "DE")
    with pytest.raises(GameDataError, match="no column '3:1'; its columns: 1:2, 1:1, 2:1"):
        tables.lookup("crt", [5], column="3:1")
    with pytest.raises(GameDataError, match="no column nothing"):
        tables.lookup("crt", [5])
    with pytest.raises(GameDataError, match="has no columns"):
        tables.lookup("morale", [3, 4], column="open")


def test_lookup_refuses_bad_modifiers(tables: Tables) -> None:
    with pytest.raises(GameDataError, match="no modifier 'veteran'; its modifiers: shaken, elite"):
        tables.lookup("morale", [3, 4], ["veteran"])
    with pytest.raises(GameDataError, match="named twice"):
        tables.lookup("morale", [3, 4], ["elite", "elite"])
    with pytest.raises(GameDataError, match="list of names"):
        tables.lookup("morale", [3, 4], "elite")


@pytest.mark.parametrize("values", [[7], [3], [3, 0], [3, 7], [3, True], "34", [3, 4, 5]])
def test_lookup_refuses_values_the_dice_cannot_make(tables: Tables, values: Any) -> None:
    with pytest.raises(GameDataError, match="rolls 2d6"):
        tables.lookup("morale", values)


def _every_lookup(table: Table) -> list[tuple[list[int], list[Any], str | None]]:
    """Every (values, modifiers, column) a lookup of `table` can be asked for, in both orders of
    two modifiers (the order is the Lookup's), numeric ones given their value."""
    faces = range(0 if table.dice.zero_based else 1, table.dice.sides + (0 if table.dice.zero_based else 1))
    rolled = [list(values) for values in itertools.product(faces, repeat=table.dice.count)]
    names: list[Any] = [*table.modifiers, *({name: high} for name, (_, high) in table.ranges.items())]
    asked = [[], *([name] for name in names), *(list(pair) for pair in itertools.permutations(names, 2))]
    columns = table.columns or (None,)
    return [(values, modifiers, column) for values in rolled for modifiers in asked for column in columns]


def test_a_kept_lookup_is_the_lookup_read_afresh(tables: Tables) -> None:
    """Lookups are kept by (values, modifiers, column): each kept one equals what the table reads
    afresh, and asking again gives the kept object."""
    for table_id in tables.names():
        table = tables.get(table_id)
        asked = _every_lookup(table)
        first = [table.lookup(*ask) for ask in asked]
        assert len(table._lookups) == len(asked)
        for ask, kept in zip(asked, first):
            assert table._read(*ask) == kept
            assert table.lookup(*ask) is kept
            assert tables.lookup(table_id, tuple(ask[0]), tuple(ask[1]), ask[2]) is kept  # tuples: the same key
    morale = tables.get("morale")
    assert morale.lookup([3, 4], ["elite", "shaken"]).modifiers == (("elite", 2), ("shaken", -1))
    assert morale.lookup([3, 4], ["shaken", "elite"]).modifiers == (("shaken", -1), ("elite", 2))


def test_a_kept_lookup_is_not_given_for_values_of_another_type(tables: Tables) -> None:
    """True == 1 and 1.0 == 1 as keys of a dict: a kept lookup must not answer them."""
    morale = tables.get("morale")
    morale.lookup([1, 1])
    morale.lookup([3, 4], ["elite"])
    for values, modifiers in [([True, 1], []), ([1.0, 1], []), ([3, 4], [{"elite": 2.0}]), ([3, 4], [{"elite": True}])]:
        with pytest.raises(GameDataError):
            morale.lookup(values, modifiers)
    assert len(morale._lookups) == 2


def test_a_refused_lookup_is_not_kept(tables: Tables) -> None:
    morale = tables.get("morale")
    for _ in range(2):
        with pytest.raises(GameDataError, match="named twice"):
            morale.lookup([3, 4], ["elite", "elite"])
        with pytest.raises(GameDataError, match="has no columns"):
            morale.lookup([3, 4], column="open")
    assert morale._lookups == {}
    assert morale == parse_tables(yaml.safe_load(MORALE_YAML), "again")["morale"]  # what it keeps is no field


def test_lookups_kept_are_bounded(tables: Tables, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables_module, "LOOKUPS_KEPT", 5)
    morale = tables.get("morale")
    for first, second in itertools.product(range(1, 7), repeat=2):
        assert morale.lookup([first, second]).natural == first + second
        assert len(morale._lookups) <= 5


def test_unknown_table_lists_known_ids(tables: Tables) -> None:
    assert "crt" in tables and "nope" not in tables
    assert tables.names() == ("crt", "morale")
    with pytest.raises(GameDataError, match="no table 'nope'; known tables: crt, morale"):
        tables.get("nope")


def test_tables_refuse_a_misfiled_table(tables: Tables) -> None:
    with pytest.raises(GameDataError, match="filed under"):
        Tables({"other": tables.get("morale")})


def test_require(tables: Tables) -> None:
    assert require(tables, "crt", "unused").id == "crt"
    with pytest.raises(MissingTableError) as info:
        require(tables, "weather", "copy the weather table from your rulebook into tables: in the game configuration")
    assert info.value.message.startswith("table weather is not supplied")
    assert info.value.hints == ("copy the weather table from your rulebook into tables: in the game configuration",)
    assert isinstance(info.value, GameDataError)


# Properties


@st.composite
def valid_tables(draw: st.DrawFn) -> tuple[dict[str, Any], tuple[int, int]]:
    """A random valid table mapping, and the totals its dice, modifiers and clamp can make."""
    count, sides, zero = draw(st.integers(1, 3)), draw(st.integers(2, 10)), draw(st.booleans())
    names = draw(st.lists(st.sampled_from(["a", "b", "c", "d-e", "f_g"]), unique=True, max_size=4))
    modifiers = {name: draw(st.integers(-4, 4)) for name in names}
    low = count * (0 if zero else 1) + sum(v for v in modifiers.values() if v < 0)
    high = count * (sides - 1 if zero else sides) + sum(v for v in modifiers.values() if v > 0)
    data: dict[str, Any] = {"title": "Random", "dice": f"{count}d{sides}{'z' if zero else ''}", "modifiers": modifiers}
    if draw(st.booleans()):
        c_low = draw(st.integers(low - 2, high))
        c_high = draw(st.integers(c_low, high + 2))
        data["clamp"] = [c_low, c_high]
        low, high = max(c_low, min(c_high, low)), max(c_low, min(c_high, high))
    start, end = low - draw(st.integers(0, 2)), high + draw(st.integers(0, 2))
    cuts = sorted(draw(st.sets(st.integers(start + 1, end), max_size=6))) if end > start else []
    bounds = list(zip([start, *cuts], [c - 1 for c in cuts] + [end]))
    rows = []
    for index, (a, b) in enumerate(bounds):
        form = draw(st.sampled_from(["list", "text", "int"]))
        if index == 0 and draw(st.booleans()):
            spec: Any = f"{b}-"
        elif index == len(bounds) - 1 and draw(st.booleans()):
            spec = f"{a}+"
        elif form == "int" and a == b:
            spec = a
        else:
            spec = [a, b] if form == "list" else f"{a}-{b}"
        rows.append({"range": spec, "result": draw(st.one_of(st.text(min_size=1).filter(str.strip), st.integers()))})
    data["rows"] = rows
    return data, (low, high)


@settings(max_examples=300, deadline=None)
@given(valid_tables(), st.data())
def test_every_reachable_total_finds_exactly_one_row(
    made: tuple[dict[str, Any], tuple[int, int]], data: st.DataObject
) -> None:
    raw, (low, high) = made
    parsed: Table = parse_table("random", raw, "hypothesis")
    assert parsed.reachable == (low, high)
    for total in range(low, high + 1):
        assert sum(row.covers(total) for row in parsed.rows) == 1
    first = 0 if parsed.dice.zero_based else 1
    values = data.draw(
        st.lists(
            st.integers(first, first + parsed.dice.sides - 1), min_size=parsed.dice.count, max_size=parsed.dice.count
        )
    )
    chosen = data.draw(
        st.lists(st.sampled_from(sorted(parsed.modifiers)), unique=True) if parsed.modifiers else st.just([])
    )
    result = Tables({"random": parsed}).lookup("random", values, chosen)
    assert low <= result.clamped <= high
    assert result.modified == sum(values) + sum(parsed.modifiers[name] for name in chosen)


json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)
# Mostly well-formed pieces, so that the fuzzing reaches the deep checks as well as the shallow ones.
range_like = (
    st.sampled_from(["2-6", "7+", "3-", "1", "x", "9-7"])
    | st.integers(-3, 15)
    | st.lists(st.integers(0, 14) | st.none(), max_size=3)
)
row_like = st.fixed_dictionaries(
    {"range": range_like | range_like | json_like, "result": st.sampled_from(["rout", 3]) | json_like},
)
SAMPLE_ROWS = [
    [{"range": "6-", "result": "a"}, {"range": "7+", "result": "b"}],
    [{"range": "2-6", "result": "a"}, {"range": [8, None], "result": 2.5}],
    [{"range": [-9, 30], "result": {"1:1": "x", "2:1": 1}}],
]
table_like = st.fixed_dictionaries(
    {
        "title": st.sampled_from(["Title"] * 8 + ["", None]),
        "dice": st.sampled_from(["2d6", "1d6", "1d10z", "d6"] * 3 + ["0d6", "2d1", 6]),
        "rows": st.lists(row_like, max_size=5) | st.sampled_from(SAMPLE_ROWS),
    },
    optional={
        "modifiers": st.dictionaries(st.sampled_from(["a", "b", "b", "C"]), st.integers(-3, 3)) | json_like,
        "clamp": st.lists(st.integers(-2, 14), min_size=2, max_size=2) | json_like,
        "columns": st.lists(st.sampled_from(["1:1", "2:1"]), max_size=2) | json_like,
    },
)
table_ids = st.sampled_from(["t", "crt", "x-1", "Bad id"])
file_like = st.one_of(
    json_like,
    st.fixed_dictionaries(
        {"schema_version": st.just(1), "tables": st.dictionaries(table_ids, table_like, min_size=1, max_size=3)}
    ),
)


@settings(max_examples=300, deadline=None)
@given(file_like)
def test_parse_tables_raises_only_game_data_errors(data: Any) -> None:
    try:
        parse_tables(data, "fuzz")
    except GameDataError as err:
        assert err.message.startswith("fuzz: ")
