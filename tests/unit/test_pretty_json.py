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
