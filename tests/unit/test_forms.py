"""Order forms with a comment on each field (referee.letters.forms): they read back as exactly
the data they show, whatever the text in them, and say what each field takes."""

from __future__ import annotations

from typing import Any

import pytest

from referee.game.announce import player_schema
from referee.kit import Example
from referee.letters.forms import WIDTH, order_form
from referee.protocol.yamlsafe import load_strict

HEADER = {"game": "g", "turn": 1, "phase": "round", "player": "alice", "seq": 1}
SCHEMA: dict[str, Any] = {
    "type": "map",
    "fields": {
        "bid": {"type": "int", "min": 1, "max": 9, "description": "your sealed bid"},
        "side": {"type": "str", "enum": ["left", "right"]},
        "moves": {
            "type": "list",
            "description": "your moves, in order",
            "items": {
                "type": "map",
                "fields": {
                    "unit": {"type": "str", "description": "one of your units"},
                    "to": {"type": "map", "fields": {"x": {"type": "int"}, "y": {"type": "int"}}},
                    "note": {"type": "str", "description": "a long description " * 8},
                },
            },
        },
        "text": {"type": "any"},
    },
}


@pytest.mark.parametrize(
    "orders",
    [
        {},
        {"bid": 3},
        {"text": "a # not a comment: here", "side": "left"},
        {"text": ["1", 2, True, None, "yes", "", "ünïcode — “quotes”", "'", '"', "- dash", "[x]", "{y}"]},
        {"moves": [{"unit": "A", "to": {"x": 1, "y": 2}, "note": "x " * 60}, {"unit": "B"}, {}]},
        {"moves": [], "text": {"nested": [[1, 2], [3, ["deep"]]], "empty": {}, "list": []}},
        {"text": "line one\nline two"},
    ],
)
def test_a_form_reads_back_as_the_data_it_shows(orders: dict[str, Any]) -> None:
    notes = {"orders.bid": "1 to 9: your TP", "orders.moves[0].unit": "yours: A, B"}
    form = order_form(HEADER, orders, SCHEMA, notes)
    assert load_strict(form) == {**HEADER, "orders": orders}


def test_each_field_says_what_it_takes_and_the_comments_fit_the_page() -> None:
    orders = {
        "bid": 3,
        "side": "left",
        "moves": [{"unit": "A", "to": {"x": 1, "y": 2}}, {"unit": "B", "to": {"x": 3, "y": 4}, "note": "n " * 40}],
    }
    form = order_form(HEADER, orders, SCHEMA, {"orders.bid": "1 to 9: your TP", "orders.moves[0].unit": "yours: A, B"})
    assert "bid: 3  # 1 to 9: your TP" in form  # the game's note beats the schema's words
    assert "side: left  # one of: left, right" in form  # the schema's choices
    assert "unit: A  # yours: A, B" in form
    assert form.count("# one of your units") == 1  # a field repeated in every item is described once
    assert "long description" in form
    assert "# also possible here (see the reference below): text" in form
    assert all(len(line) <= WIDTH for line in form.splitlines() if line.lstrip().startswith("#"))


def test_a_note_of_several_lines_starts_each_on_a_comment_line_of_its_own() -> None:
    notes = {"orders.bid": "your units:\n- A at (1, 2)\n- B at (3, 4)" + ", x" * 30, "orders.side": "left\nor right"}
    form = order_form(HEADER, {"bid": 3, "side": "left"}, SCHEMA, notes)
    assert "  # your units:\n  # - A at (1, 2)\n  # - B at (3, 4), x, x," in form
    assert "\n  #   x, x" in form and ", x\n  bid: 3\n" in form  # an item's lines hang under its text
    assert "  # left\n  # or right\n  side: left\n" in form  # short, yet never on the field's line
    assert load_strict(form) == {**HEADER, "orders": {"bid": 3, "side": "left"}}


def test_an_empty_form_names_the_orders_one_may_give() -> None:
    form = order_form(HEADER, {}, SCHEMA)
    assert "orders: {}" in form
    assert "orders you may give, in place of {}" in form


def test_plain_values_are_written_as_pyyaml_writes_them() -> None:
    """`_scalar` remembers plain values and joins lists of them itself: the same text as PyYAML's."""
    import random
    import string

    from referee.letters import forms

    values: list[object] = [None, True, False, 0, 1, -5, 10**20, 1.5, float("inf"), "", " ", "yes", "no", "on"]
    values += ["null", "~", "1", "1.0", "0x1f", "a, b", "[x]", "{y}", "a: b", "#c", "- d", "'q'", '"dq"', "é ü"]
    values += ["line\nbreak", "tab\there", "trailing ", "x" * 300, "2026-11-25", "12:30", "@at", "`bt", "a #b"]
    rnd = random.Random(1)
    alphabet = string.printable + "éü\x85\u2028\u2029\x00\ufeff"
    values += ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12))) for _ in range(2000)]
    for value in values:
        assert forms._scalar(value) == forms._dumped(value)
        assert forms._scalar([value, 1, value]) == forms._dumped([value, 1, value])


def test_a_players_schema_is_narrowed_to_the_fields_their_example_names() -> None:
    schema = {"type": "map", "fields": {"play": {"type": "bool"}, "reactions": {"type": "bool"}}}
    assert player_schema(schema, Example({})) is schema
    assert player_schema(schema, Example({}, fields=("reactions",))) == {
        "type": "map",
        "fields": {"reactions": {"type": "bool"}},
    }
