"""Tests for referee.kit.schema: every problem code, paths, describe(), check_schema(), and fuzzing."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import GameDataError
from referee.kit.schema import MAX_PROBLEMS, check, check_schema, describe
from referee.protocol.problems import Problem

ROLLS: dict[str, Any] = {
    "type": "map",
    "description": "dice to roll this phase",
    "fields": {
        "rolls": {
            "type": "list",
            "max": 3,
            "items": {
                "type": "map",
                "fields": {
                    "dice": {"type": "str", "max": 10, "pattern": r"[0-9]*d[0-9]+", "example": "2d6"},
                    "label": {"type": "str", "pattern": r"[a-z0-9/-]+"},
                    "times": {"type": "int", "min": 1, "max": 9},
                },
                "required": ["dice"],
            },
        },
        "stance": {"type": "str", "enum": ["attack", "defend", "withdraw"]},
        "secret": {"type": "bool"},
        "notes": {"type": "any"},
        "units": {"type": "list", "min": 1, "items": {"type": "str"}},
    },
    "required": ["stance"],
}
# Python words a player should never read in a message.
PYTHON_WORDS = re.compile(r"\b(dict|list\[|str|int|float|bool|NoneType|None|tuple)\b")
QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')


def speaks_python(message: str) -> bool:
    """Whether a message uses Python's words, outside the player's own quoted text."""
    return bool(PYTHON_WORDS.search(QUOTED.sub("", message)))


def codes(problems: list[Problem]) -> list[tuple[str, str]]:
    return [(p.code, p.path) for p in problems]


def test_the_sample_schema_is_sound() -> None:
    check_schema(ROLLS)


def test_conforming_orders_have_no_problems() -> None:
    orders = {
        "stance": "attack",
        "rolls": [{"dice": "2d6", "label": "combat/0808", "times": 2}, {"dice": "d10"}],
        "secret": False,
        "notes": {"any": ["plain", 1, 2.5, None, True]},
        "units": ["a"],
    }
    assert check(orders, ROLLS) == []


@pytest.mark.parametrize(
    ("orders", "code", "path", "words"),
    [
        ([], "invalid.type", "orders", "must be a mapping (key: value lines), got a list"),
        ({"stance": 3}, "invalid.type", "orders.stance", "must be a text, got the whole number 3; put it in quotes"),
        (
            {"stance": "attack", "secret": "yes"},
            "invalid.type",
            "orders.secret",
            'must be true or false, got the text "yes"',
        ),
        (
            {"stance": "attack", "rolls": [{"dice": "2d6", "times": "3"}]},
            "invalid.type",
            "orders.rolls[0].times",
            'must be a whole number, got the text "3"; write it without quotes',
        ),
        (
            {"stance": "attack", "rolls": [{"dice": "2d6", "times": True}]},
            "invalid.type",
            "orders.rolls[0].times",
            "must be a whole number, got true (a yes/no value)",
        ),
        (
            {"stance": "attack", "rolls": [{"dice": None}]},
            "invalid.type",
            "orders.rolls[0].dice",
            "must be a text, got nothing (an empty value)",
        ),
        ({}, "invalid.missing", "orders.stance", "is missing: give one of: attack, defend, withdraw"),
        ({"stance": "attack", "rols": []}, "invalid.unknown-field", "orders.rols", "did you mean rolls?"),
        (
            {"stance": "attack", "rolls": [{"dice": "2d6" * 5}]},
            "invalid.too-long",
            "orders.rolls[0].dice",
            "is 15 characters long; at most 10 are allowed",
        ),
        (
            {"stance": "attack", "rolls": [{"dice": "2d6"}] * 4},
            "invalid.too-many",
            "orders.rolls",
            "has 4 entries; at most 3 are allowed",
        ),
        ({"stance": "attack", "units": []}, "invalid.too-few", "orders.units", "has 0 entries; at least 1 are needed"),
        (
            {"stance": "attack", "rolls": [{"dice": "2x6"}]},
            "invalid.pattern",
            "orders.rolls[0].dice",
            'is the text "2x6", which is not in the expected form (e.g. 2d6)',
        ),
        (
            {"stance": "attack", "rolls": [{"dice": "2d6", "label": "A B"}]},
            "invalid.pattern",
            "orders.rolls[0].label",
            "matching the pattern [a-z0-9/-]+",
        ),
        (
            {"stance": "atack"},
            "invalid.enum",
            "orders.stance",
            "must be one of: attack, defend, withdraw; did you mean attack?",
        ),
        (
            {"stance": "attack", "rolls": [{"dice": "2d6", "times": 0}]},
            "invalid.range",
            "orders.rolls[0].times",
            "is 0; it must be a whole number from 1 to 9",
        ),
        (
            {"stance": "attack", "notes": {"a": [1, float("nan")]}},
            "invalid.type",
            "orders.notes.a[1]",
            "must be plain data, got a number that is not finite",
        ),
        (
            {"stance": "attack", "notes": {1: "x"}},
            "invalid.type",
            "orders.notes",
            "has a field named the whole number 1",
        ),
        ({"stance": "attack", "notes": [{1, 2}]}, "invalid.type", "orders.notes[0]", "must be plain data"),
        ({"stance": "attack", 5: "x"}, "invalid.type", "orders", "field names must be text"),
    ],
)
def test_each_problem_code(orders: Any, code: str, path: str, words: str) -> None:
    problems = check(orders, ROLLS)
    assert [(p.code, p.path) for p in problems] == [(code, path)]
    assert words in problems[0].message
    assert not speaks_python(problems[0].message), problems[0].message


def test_every_problem_is_reported_in_document_order() -> None:
    orders = {
        "rolls": [{"dice": 6, "extra": 1}, {"times": 10}],
        "stance": "charge",
        "secret": 1,
    }
    assert codes(check(orders, ROLLS)) == [
        ("invalid.type", "orders.rolls[0].dice"),
        ("invalid.unknown-field", "orders.rolls[0].extra"),
        ("invalid.range", "orders.rolls[1].times"),
        ("invalid.missing", "orders.rolls[1].dice"),
        ("invalid.enum", "orders.stance"),
        ("invalid.type", "orders.secret"),
    ]


def test_problems_are_capped() -> None:
    schema = {"type": "list", "max": 500, "items": {"type": "int"}}
    problems = check(["x"] * 200, schema)
    assert len(problems) == MAX_PROBLEMS
    assert problems[-1].path == f"orders[{MAX_PROBLEMS - 1}]"


def test_entries_past_the_limit_are_not_checked() -> None:
    problems = check([{"dice": 1}] * 10, ROLLS["fields"]["rolls"])
    assert codes(problems)[0] == ("invalid.too-many", "orders")
    assert len(problems) == 1 + 3


def test_odd_field_names_are_quoted_in_paths() -> None:
    schema = {"type": "map", "fields": {"my unit": {"type": "int"}, "0808": {"type": "int"}}}
    assert codes(check({"my unit": "x", "0808": "y"}, schema)) == [
        ("invalid.type", 'orders["my unit"]'),
        ("invalid.type", 'orders["0808"]'),
    ]


def test_a_custom_root_path() -> None:
    assert codes(check(3, {"type": "str"}, path="orders.moves[2]")) == [("invalid.type", "orders.moves[2]")]


def test_text_and_list_defaults() -> None:
    assert check("x" * 2000, {"type": "str"}) == []
    assert codes(check("x" * 2001, {"type": "str"})) == [("invalid.too-long", "orders")]
    assert check([1] * 100, {"type": "list", "items": {"type": "int"}}) == []
    assert codes(check([1] * 101, {"type": "list", "items": {"type": "int"}})) == [("invalid.too-many", "orders")]


def test_tuples_count_as_lists() -> None:
    assert check((1, 2), {"type": "list", "items": {"type": "int"}}) == []


def test_deep_any_does_not_recurse() -> None:
    deep: Any = "leaf"
    for _ in range(5000):
        deep = [deep]
    assert check(deep, {"type": "any"}) == []


def test_problem_as_text_and_data() -> None:
    problem = Problem("invalid.type", "orders.x", "must be a text, got a list")
    assert str(problem) == "orders.x: must be a text, got a list"
    assert problem.as_dict() == {"code": "invalid.type", "path": "orders.x", "message": "must be a text, got a list"}


def test_describe() -> None:
    assert describe(ROLLS) == [
        "orders: mapping (key: value lines) - dice to roll this phase",
        "orders.rolls: list of up to 3 (optional)",
        "orders.rolls[]: mapping (key: value lines)",
        "orders.rolls[].dice: text of up to 10 characters, e.g. 2d6 (required)",
        "orders.rolls[].label: text matching [a-z0-9/-]+ (optional)",
        "orders.rolls[].times: whole number from 1 to 9 (optional)",
        "orders.stance: one of: attack, defend, withdraw (required)",
        "orders.secret: true or false (optional)",
        "orders.notes: any value (optional)",
        "orders.units: list of 1 to 100 (optional)",
        "orders.units[]: text",
    ]
    assert describe({"type": "int", "min": 0}, path="n") == ["n: whole number of at least 0"]
    assert (
        describe({"type": "list", "min": 2, "max": 2, "items": {"type": "int", "max": 5}})[0]
        == "orders: list of exactly 2"
    )


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        ([], "schema: must be a mapping"),
        ({"type": "string"}, "type must be one of map, list, str, int, bool, any"),
        ({"type": ["str"]}, "type must be one of"),
        ({"type": "str", "maxlen": 3}, "unknown key(s) maxlen; a str node allows"),
        ({"type": "map"}, "schema.fields: must be a mapping"),
        ({"type": "map", "fields": {"": {"type": "int"}}}, "schema.fields: must be a mapping of non-empty field names"),
        ({"type": "map", "fields": {"a": {"type": "int"}}, "required": ["b"]}, "names b, which are not in fields"),
        ({"type": "map", "fields": {"a": {"type": "int"}}, "required": ["a", "a"]}, "each named once"),
        ({"type": "map", "fields": {"a": {"type": "list"}}}, "schema.fields.a.items: must be a mapping"),
        ({"type": "list", "items": {"type": "int"}, "max": -1}, "schema.max: must be a whole number of at least 0"),
        ({"type": "list", "items": {"type": "int"}, "min": 3, "max": 2}, "min 3 is above max 2"),
        ({"type": "int", "min": True}, "schema.min: must be a whole number"),
        ({"type": "str", "max": 0}, "schema.max: must be a whole number of at least 1"),
        ({"type": "str", "pattern": "("}, "schema.pattern: is not a regular expression"),
        ({"type": "str", "enum": []}, "schema.enum: must be a non-empty list of texts"),
        ({"type": "str", "enum": ["a", "a"]}, "names a value twice"),
        ({"type": "str", "enum": ["ok", "BAD"], "pattern": "[a-z]+"}, 'value "BAD" does not fit'),
        ({"type": "int", "max": 5, "example": 7}, "schema.example: does not fit its own node: orders: is 7"),
        ({"type": "int", "description": 5}, "schema.description: must be a text"),
    ],
)
def test_check_schema_refuses_malformed_schemas(schema: Any, words: str) -> None:
    with pytest.raises(GameDataError) as info:
        check_schema(schema)
    assert words in info.value.message
    assert info.value.message.startswith("order schema: ")
    assert info.value.hints


def test_check_schema_refuses_cycles() -> None:
    node: dict[str, Any] = {"type": "list"}
    node["items"] = node
    with pytest.raises(GameDataError, match="contains itself"):
        check_schema(node)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=30,
)
# Values shaped roughly like the sample orders, so the fuzzing reaches nested nodes.
shaped = st.fixed_dictionaries(
    {},
    optional={
        "stance": json_values | st.sampled_from(["attack", "atack"]),
        "rolls": st.lists(st.dictionaries(st.sampled_from(["dice", "label", "times", "x"]), json_values), max_size=5)
        | json_values,
        "notes": json_values,
        "secret": json_values,
        "units": json_values,
        "bogus": json_values,
    },
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(json_values, shaped))
def test_check_never_raises(value: Any) -> None:
    problems = check(value, ROLLS)
    assert len(problems) <= MAX_PROBLEMS
    for problem in problems:
        assert problem.code.startswith("invalid.")
        assert problem.path.startswith("orders")
        assert not speaks_python(problem.message), problem.message
