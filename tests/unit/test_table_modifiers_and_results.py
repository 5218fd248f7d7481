"""Tests for the table engine's numeric modifiers and structured results (issue 19, items 1-2),
with Cockpit of Europe's printed d10 checks (../shared/rules/cockpit-of-europe.md, section 2b)
as the realistic case."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import GameDataError
from referee.kit.tables import Tables, parse_tables

# Cockpit of Europe's d10 is read 0-9 (1d10z). R2 (1.253): the flood ends on <= 3, "-1 for each
# roll after the first"; R16 (5.55): the Dutch artillery arrives on <= 1, -3 if the Allies have a
# plan other than Defend; R24 (7.02): a sick leader recovers on 0-2, dies on 8-9; R5 (3.132): Le
# Roi killed: dead on 8-9 (Peace Index +4 in the campaign).
COCKPIT = """\
schema_version: 1
tables:
  flood-ends:
    title: Flood ends (1.253)
    dice: 1d10z
    modifiers:
      later-rolls: {min: -20, max: 0}
    rows:
      - {range: "3-", result: {text: the flood ends, effects: [flood-ends]}}
      - {range: "4+", result: the flood goes on}
  dutch-artillery:
    title: Dutch Artillery Reserves (5.55)
    dice: 1d10z
    modifiers: {not-defend: -3}
    rows:
      - {range: "1-", result: the artillery arrives}
      - {range: "2+", result: no artillery}
  pox-recovery:
    title: The Pox, recovery (7.02)
    dice: 1d10z
    effects: [leader-recovers, leader-dies]
    rows:
      - {range: "0-2", result: {text: recovers, effects: [leader-recovers]}}
      - {range: "3-7", result: no effect}
      - {range: "8-9", result: {text: dies, effects: [leader-dies]}}
  le-roi-killed:
    title: Le Roi killed (3.132)
    dice: 1d10z
    rows:
      - {range: "0-7", result: wounded}
      - {range: "8-9", result: {text: dead, track: {peace-index: 4}}}
  random-event:
    title: Random event (a referee's own table)
    dice: 1d10z
    modifiers:
      rating-difference: {min: -9, max: 9}
      elite: 1
      veteran: 1
    clamp: [0, 9]
    rows:
      - {range: "0-7", result: no event}
      - {range: "8", result: {text: The Pox, pick: {from: leaders}, roll: pox-recovery}}
      - {range: "9", result: {text: The Duellists, pick: {from: leaders, count: 2}}}
"""


@pytest.fixture
def cockpit() -> Tables:
    return Tables(parse_tables(yaml.safe_load(COCKPIT), "cockpit.yaml", effects=("flood-ends",)))


def tables_of(text: str, effects: tuple[str, ...] = ()) -> Tables:
    return Tables(parse_tables(yaml.safe_load(text), "t.yaml", effects))


def error_for(table: dict[str, Any], effects: tuple[str, ...] = ()) -> str:
    with pytest.raises(GameDataError) as caught:
        parse_tables({"schema_version": 1, "tables": {"t": table}}, "t.yaml", effects)
    return str(caught.value) + " | " + " ".join(caught.value.hints)


def test_each_later_roll_takes_one_off_the_flood_check(cockpit: Tables) -> None:
    """The third roll of 1.253 takes 2 off: a natural 5 reads 3, and the flood ends."""
    lookup = cockpit.lookup("flood-ends", [5], [{"later-rolls": -2}])
    assert (lookup.natural, lookup.modified, lookup.row) == (5, 3, "3-")
    assert lookup.modifiers == (("later-rolls", -2),)
    assert lookup.text == "the flood ends"
    assert lookup.as_dict()["modifiers"] == [{"name": "later-rolls", "value": -2}]
    # The first roll: no modifier, and a natural 5 lets the flood go on.
    assert cockpit.lookup("flood-ends", [5]).result == "the flood goes on"


def test_the_printed_thresholds_are_read_exactly(cockpit: Tables) -> None:
    """Every face of each Cockpit check against the rulebook's thresholds."""
    for face in range(10):
        artillery = cockpit.lookup("dutch-artillery", [face]).result
        assert (artillery == "the artillery arrives") == (face <= 1)
        with_plan = cockpit.lookup("dutch-artillery", [face], ["not-defend"]).result
        assert (with_plan == "the artillery arrives") == (face - 3 <= 1)
        pox = cockpit.lookup("pox-recovery", [face])
        assert pox.text == ("recovers" if face <= 2 else "dies" if face >= 8 else "no effect")
        roi = cockpit.lookup("le-roi-killed", [face])
        assert roi.text == ("dead" if face >= 8 else "wounded")


def test_two_bonuses_of_the_same_size_both_apply(cockpit: Tables) -> None:
    lookup = cockpit.lookup("random-event", [5], ["elite", "veteran", {"rating-difference": 1}])
    assert lookup.modifiers == (("elite", 1), ("veteran", 1), ("rating-difference", 1))
    assert lookup.modified == 8
    assert lookup.text == "The Pox"


def test_a_numeric_modifier_is_refused_outside_its_range_without_a_value_or_twice(cockpit: Tables) -> None:
    with pytest.raises(GameDataError, match="rating-difference is 10, outside its range -9 to 9"):
        cockpit.lookup("random-event", [5], [{"rating-difference": 10}])
    with pytest.raises(GameDataError, match="rating-difference needs a value from -9 to 9") as caught:
        cockpit.lookup("random-event", [5], ["rating-difference"])
    assert "{rating-difference: N}" in caught.value.hints[0]
    with pytest.raises(GameDataError, match="named twice") as caught:
        cockpit.lookup("random-event", [5], [{"rating-difference": 1}, {"rating-difference": 2}])
    assert "sum" in caught.value.hints[0]
    with pytest.raises(GameDataError, match="elite is fixed at \\+1, not \\+2"):
        cockpit.lookup("random-event", [5], [{"elite": 2}])
    assert cockpit.lookup("random-event", [5], [{"elite": 1}]).modified == 6
    with pytest.raises(GameDataError, match="must be given a whole number"):
        cockpit.lookup("random-event", [5], [{"rating-difference": "2"}])
    for strange in (["elite"], 3, None, ("elite",)):
        with pytest.raises(GameDataError, match="has no modifier"):
            cockpit.lookup("random-event", [5], [strange])
    with pytest.raises(GameDataError, match="must be a list of names"):
        cockpit.lookup("random-event", [5], {"elite": 1})  # type: ignore[arg-type]
    with pytest.raises(GameDataError, match="one \\{name: value\\} item"):
        cockpit.lookup("random-event", [5], [{"rating-difference": 1, "elite": 1}])


def test_a_numeric_modifiers_range_counts_in_the_coverage_check() -> None:
    table = {"title": "T", "dice": "1d6", "modifiers": {"drm": {"min": -2, "max": 3}}}
    message = error_for({**table, "rows": [{"range": "1-6", "result": "x"}]})
    assert "no row for total(s) -1-0, 7-9; 1d6 with its modifiers can make any total from -1 to 9" in message
    tables = tables_of(
        "schema_version: 1\ntables:\n  t: {title: T, dice: 1d6, modifiers: {drm: {min: -2, max: 3}}, "
        'rows: [{range: "1-", result: low}, {range: "2+", result: high}]}\n'
    )
    assert tables.get("t").reachable == (-1, 9)
    assert tables.get("t").describe_modifier("drm") == "drm -2 to +3"


@pytest.mark.parametrize(
    ("modifiers", "words"),
    [
        ({"drm": {"min": 2, "max": -2}}, ["modifiers.drm", "min 2 is above max -2"]),
        ({"drm": {"min": -2}}, ["modifiers.drm", "needs whole numbers min and max"]),
        ({"drm": {"min": -2, "max": 2, "step": 1}}, ["modifiers.drm", "unknown key(s) 'step'"]),
        ({"drm": "big"}, ["modifiers.drm", "or a range {min: -6, max: 6}"]),
    ],
)
def test_bad_numeric_modifiers_are_named(modifiers: dict[str, Any], words: list[str]) -> None:
    message = error_for({"title": "T", "dice": "1d6", "modifiers": modifiers, "rows": [{"range": "1-", "result": "x"}]})
    for word in words:
        assert word in message


def test_a_lookup_without_the_new_forms_gives_the_same_dict_as_before(cockpit: Tables) -> None:
    """Old tables and records: the dict has exactly the keys it always had."""
    data = cockpit.lookup("dutch-artillery", [0], ["not-defend"]).as_dict()
    assert data == {
        "table": "dutch-artillery",
        "title": "Dutch Artillery Reserves (5.55)",
        "dice": "1d10z",
        "values": [0],
        "natural": 0,
        "modifiers": [{"name": "not-defend", "value": -3}],
        "modified": -3,
        "clamped": -3,
        "row": "1-",
        "column": None,
        "result": "the artillery arrives",
    }


def test_a_structured_result_is_plain_data_with_its_text(cockpit: Tables) -> None:
    lookup = cockpit.lookup("random-event", [8])
    assert lookup.structured
    data = lookup.as_dict()
    assert data["result"] == {"text": "The Pox", "pick": {"from": "leaders", "count": 1}, "roll": "pox-recovery"}
    assert data["result_text"] == "The Pox"
    assert cockpit.lookup("le-roi-killed", [9]).as_dict()["result"]["track"] == {"peace-index": 4}
    assert cockpit.get("random-event").follow_up_tables() == ("pox-recovery",)


def test_the_module_may_declare_effects_for_every_table(cockpit: Tables) -> None:
    """`flood-ends` is no table's own word: the module allowed it (parse_tables(effects=...))."""
    assert cockpit.lookup("flood-ends", [0]).as_dict()["result"]["effects"] == ["flood-ends"]
    assert cockpit.get("flood-ends").effects == ()
    with pytest.raises(GameDataError, match="'flood-ends' is not a declared effect"):
        parse_tables(yaml.safe_load(COCKPIT), "cockpit.yaml")


def rows_with(result: Any) -> dict[str, Any]:
    return {"title": "T", "dice": "1d6", "effects": ["worn"], "rows": [{"range": "1+", "result": result}]}


@pytest.mark.parametrize(
    ("result", "words"),
    [
        ({"effects": ["worn"]}, ["rows[0].result.text", "must be a non-empty text"]),
        ({"text": "x", "effects": ["wron"]}, ["rows[0].result.effects[0]", "'wron' is not a declared effect", "worn?"]),
        ({"text": "x", "effects": "worn"}, ["rows[0].result.effects", "must be a list"]),
        ({"text": "x", "track": {"peace": "up"}}, ["rows[0].result.track.peace", "whole number"]),
        ({"text": "x", "track": []}, ["rows[0].result.track", "must map each track"]),
        ({"text": "x", "roll": "Not An Id"}, ["rows[0].result.roll", "id of a table"]),
        ({"text": "x", "pick": {"from": "leaders", "count": 0}}, ["rows[0].result.pick.count", "from 1 to 50"]),
        ({"text": "x", "pick": {"form": "leaders"}}, ["rows[0].result.pick", "did you mean from?"]),
        ({"text": "x", "pick": "leaders"}, ["rows[0].result.pick", "{from: LIST, count: N}"]),
        ({"text": "x", "efects": ["worn"]}, ["rows[0].result", "did you mean effects?"]),
    ],
)
def test_structured_result_problems_are_named_with_their_path(result: Any, words: list[str]) -> None:
    message = error_for(rows_with(result))
    for word in words:
        assert word in message, message


def test_structured_results_in_columns() -> None:
    table = {
        "title": "Fire",
        "dice": "1d6",
        "columns": ["line", "column"],
        "effects": ["worn"],
        "rows": [
            {"range": "1-3", "result": {"line": "miss", "column": {"text": "1 hit", "effects": ["worn"]}}},
            {"range": "4+", "result": {"line": "hit", "column": {"text": "2 hits", "roll": "morale"}}},
        ],
    }
    tables = Tables(parse_tables({"schema_version": 1, "tables": {"fire": table}}, "t.yaml"))
    assert tables.lookup("fire", [2], column="column").as_dict()["result_text"] == "1 hit"
    assert "result_text" not in tables.lookup("fire", [2], column="line").as_dict()
    assert tables.get("fire").follow_up_tables() == ("morale",)
    bad = {**table, "rows": [{"range": "1+", "result": {"line": "x", "column": {"text": "y", "effects": ["z"]}}}]}
    assert "rows[0].result.column.effects[0]" in error_for(bad)


def test_bad_effect_vocabularies_are_refused() -> None:
    assert "effects: must be a non-empty list of words" in error_for({**rows_with("x"), "effects": []})
    assert "names worn more than once" in error_for({**rows_with("x"), "effects": ["worn", "worn"]})
    assert "'Worn Out' is not a valid effect word" in error_for({**rows_with("x"), "effects": ["Worn Out"]})


_KEYS = ("text", "effects", "track", "roll", "pick", "from", "count", "min", "max", "worn", "x")
plain = st.recursive(
    st.none() | st.booleans() | st.integers(-30, 30) | st.sampled_from(["", "x", "worn", "t", "leaders", "Bad"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(list(_KEYS)), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(result=plain, modifiers=plain, effects=plain)
def test_structured_results_and_numeric_modifiers_raise_only_game_data_errors(
    result: Any, modifiers: Any, effects: Any
) -> None:
    data = {"title": "T", "dice": "1d6", "modifiers": modifiers, "effects": effects}
    data["rows"] = [{"range": "1-", "result": result}, {"range": "2+", "result": "x"}]
    try:
        tables = Tables(parse_tables({"schema_version": 1, "tables": {"t": data}}, "fuzz"))
    except GameDataError as err:
        assert err.message.startswith("fuzz: ")
        return
    try:
        tables.lookup("t", [1], modifiers if isinstance(modifiers, list) else [])
    except GameDataError:
        pass


@settings(max_examples=200, deadline=None)
@given(asked=plain)
def test_any_modifiers_asked_for_raise_only_game_data_errors(asked: Any) -> None:
    tables = Tables(parse_tables(yaml.safe_load(COCKPIT), "cockpit.yaml", effects=("flood-ends",)))
    try:
        tables.lookup("random-event", [3], asked)
    except GameDataError:
        pass
