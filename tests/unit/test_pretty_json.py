"""pretty_json writes records: its bytes must be json.dumps(indent=2)'s, byte for byte, since
signed records already hold them; it only writes them without json's pure-Python encoder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.protocol import canonical
from referee.protocol.canonical import pretty_json

TESTS = Path(__file__).resolve().parent.parent


def reference(value: Any) -> bytes:
    """What pretty_json wrote before it laid out the JSON itself."""
    return (json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


ODD_VALUES: list[Any] = [
    {},
    [],
    [[]],
    {"a": [{}], "b": {"c": []}},
    "x",
    "",
    0,
    -7,
    10**40,
    1.0,
    -0.0,
    1e300,
    2.5e-320,
    0.1,
    True,
    False,
    None,
    (1, (2, 3)),
    {"z": 1, "a": 2, "M": 3, "é": 4, "": 5},
    {"text": 'quote " backslash \\ tab \t newline \n nul \x00 del \x7f line-sep \u2028 é 漢 😀'},
    {"nested": [{"deep": [[{"x": [1, 2.5, None, True, "s"]}]]}]},
]


@pytest.mark.parametrize("value", ODD_VALUES, ids=range(len(ODD_VALUES)))
def test_same_bytes_as_json_with_indent(value: Any) -> None:
    assert pretty_json(value) == reference(value)


def test_same_bytes_for_a_record_of_many_rolls() -> None:
    record = {
        "protocol": "pbem-referee/4",
        "rolls": [
            {"label": f"roll/p{i % 8}/r{i}", "spec": "2d6", "values": [i % 6 + 1, (i * 7) % 6 + 1]} for i in range(500)
        ],
        "events": [
            {"kind": "roll", "text": f"p{i} rolls «{i}»", "data": {"total": i, "odd": bool(i % 2)}} for i in range(50)
        ],
    }
    assert pretty_json(record) == reference(record)


def test_same_bytes_for_every_json_file_in_the_tests() -> None:
    files = sorted(TESTS.rglob("*.json"))
    assert files
    for path in files:
        value = json.loads(path.read_text(encoding="utf-8"))
        assert pretty_json(value) == reference(value), path


def test_subclasses_and_non_text_keys_come_out_as_json_writes_them() -> None:
    class Text(str):
        pass

    class Number(int):
        pass

    value = {Text("k"): [Text("v"), Number(3)], "n": {2: "two", 10: "ten"}}
    assert pretty_json(value) == reference(value)


@pytest.mark.parametrize("value", [float("nan"), {"a": float("inf")}, [float("-inf")]])
def test_numbers_json_refuses_are_refused_alike(value: Any) -> None:
    with pytest.raises(ValueError, match="Out of range float values"):
        pretty_json(value)


def test_types_json_cannot_write_are_refused_alike() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        pretty_json({"a": {1, 2}})


def test_json_encoder_is_not_run_for_plain_records(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []

    def counting_dumps(*args: Any, **kwargs: Any) -> str:
        calls.append(args)
        return ""

    monkeypatch.setattr(canonical.json, "dumps", counting_dumps)
    pretty_json({"rolls": [{"label": "r1", "values": [1, 2]}], "beacon": None})
    assert calls == []


# -- orjson's way, for a big phase's long lists (referee.protocol.canonical._orjson_exact) ------

import math  # noqa: E402
import random  # noqa: E402
import struct  # noqa: E402
from types import MappingProxyType  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from referee.protocol.canonical import (  # noqa: E402
    canonical_json,
    load_canonical_json,
    load_json,
    load_pretty_json,
    stored_json,
)

LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([1e-5, 1.5e-7, 0.0001, 1e16, 1e-300, -0.0, 2.5e-320])
    | st.text()
    | st.sampled_from(["one-off", "re-roll", "2e-3", "0.00001", "null", "x\u2028y\x7f\x00"])
)
JSON_VALUES = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(JSON_VALUES, min_size=32, max_size=40))
def test_a_long_list_has_json_s_bytes_whichever_way_it_is_written(items: list[Any]) -> None:
    record = {"rolls": items, "beacon": None}
    assert pretty_json(record) == reference(record)
    assert canonical_json(record) == json.dumps(
        record, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")


def test_orjson_and_json_write_floats_alike_but_where_the_checks_refuse() -> None:
    # The claim _orjson_exact rests on: orjson and json write every finite float alike, except
    # floats below 1e-4, whose orjson bytes hold "0.0000" or "e-" between digits.
    orjson = pytest.importorskip("orjson")
    rng = random.Random(23)
    for i in range(60_000):
        if i % 2:
            x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        else:
            x = rng.uniform(-1, 1) * 10.0 ** rng.randint(-12, 25)
        if not math.isfinite(x):
            continue
        written = orjson.dumps(x)
        if written != json.dumps(x).encode():
            assert canonical._small_exponent(written) or b"0.0000" in written, (x, written)


@pytest.mark.parametrize(
    "value",
    [[float("nan")] * 40, [1e-05] * 40, [{"a": {1, 2}}] + [0] * 40, list(range(2**64 - 1, 2**64 + 40))],
    ids=["nan", "small float", "a set", "past 64 bits"],
)
def test_what_orjson_would_write_otherwise_takes_json_s_way(value: list[Any]) -> None:
    try:
        expected: Any = reference(value)
    except (ValueError, TypeError) as error:
        expected = type(error)
    try:
        written: Any = pretty_json(value)
    except (ValueError, TypeError) as error:
        written = type(error)
    assert written == expected


def test_without_orjson_the_bytes_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    record = {"rolls": [{"label": f"r{i}", "values": [i % 6 + 1]} for i in range(100)], "beacon": None}
    fast = pretty_json(record), canonical_json(record), load_pretty_json(pretty_json(record))
    monkeypatch.setattr(canonical, "_orjson", lambda: None)
    assert (pretty_json(record), canonical_json(record), load_pretty_json(pretty_json(record))) == fast


READ_CASES: list[bytes] = [
    pretty_json({"rolls": [{"label": f"r{i}", "values": [1, 2]} for i in range(40)], "beacon": None}),
    canonical_json({"state": list(range(50)), "previous": None}),
    b'{"a":1,"a":2}',  # a key twice
    b'{\n  "a": 1,\n  "a": 1\n}\n',
    b'{"a":NaN}',
    b'{"a":1e400}',
    b'{"a":1e-05}',
    b'{"a":0.00001}',
    b'{"a":"\\ud800"}',  # a lone surrogate
    b'{"b":1,"a":2}',  # keys out of order: JSON, not canonical
    b'{"a": 1}',
    b"[" + b",".join([b"18446744073709551616"] * 3) + b"]",
    '{"a":"\u00e9"}'.encode(),
    b'\xef\xbb\xbf{"a":1}',
    b'{"a":1} x',
    b"\xff",
]


def _answer(read: Any, data: bytes) -> Any:
    try:
        return ("value", read(data))
    except (ValueError, UnicodeDecodeError) as error:
        return ("refused", type(error) if not isinstance(error, ValueError) else ValueError)


@pytest.mark.parametrize("data", READ_CASES, ids=range(len(READ_CASES)))
def test_the_fast_readers_answer_as_load_json_does(data: bytes) -> None:
    assert _answer(load_pretty_json, data) == _answer(load_json, data)

    def load_then_write(data: bytes) -> tuple[Any, bool]:  # what verify did before, as one step
        value = load_json(data)
        return value, canonical_json(value) == data

    assert _answer(load_canonical_json, data) == _answer(load_then_write, data)


def test_the_journal_s_json_writes_read_only_mappings_and_events() -> None:
    from referee.kit.contract import Event

    event = Event("roll", "p1 rolled 4", MappingProxyType({"values": (4,)}), ("p1",))
    assert json.loads(stored_json({"events": [event], "n": 2**70})) == {
        "events": [{"kind": "roll", "text": "p1 rolled 4", "data": {"values": [4]}, "visible_to": ["p1"]}],
        "n": 2**70,
    }
    assert json.loads(stored_json({"events": [event]}))["events"][0] == event.as_dict() | {"data": {"values": [4]}}


def _compact_reference(value: Any) -> Any:
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()
    except (ValueError, TypeError) as error:
        return type(error)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=4), JSON_VALUES | st.just(float("nan")), max_size=6) | st.lists(JSON_VALUES))
def test_canonical_json_taken_apart_item_by_item_has_json_s_bytes(value: Any) -> None:
    # Splitting every value (not only those over 16 KiB) walks every way _compact has.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(canonical, "_WORTH_SPLITTING", 0)
        try:
            written: Any = canonical_json(value)
        except (ValueError, TypeError) as error:
            written = type(error)
    assert written == _compact_reference(value)
