"""Refusals show values as the player wrote them (YAML, not Python reprs), cut to a sensible
length, and safe for a terminal: the order envelope, the order schemas and game.yaml (issue 14)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.errors import RefereeError
from referee.game.config import parse_config
from referee.kit.schema import check
from referee.protocol.display import printable, shown
from referee.protocol.orders import order_file_problems
from referee.protocol.problems import MAX_MESSAGE, MAX_PATH

# Python's reprs: True/False/None, and a dict or list of quoted texts ({'a': 1}, ['x']).
PYTHON_REPR = re.compile(r"\b(True|False|None)\b|[{\[]'")
QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
SCHEMA: dict[str, Any] = {
    "type": "map",
    "fields": {
        "move": {"type": "list", "max": 3, "items": {"type": "map", "fields": {"to": {"type": "str", "max": 20}}}},
        "stance": {"type": "str", "enum": ["attack", "defend"]},
        "count": {"type": "int", "min": 1, "max": 9},
        "secret": {"type": "bool"},
        "notes": {"type": "any"},
    },
    "required": ["stance"],
}

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
    st.text(alphabet="a\x1b\r\n\u202e[", max_size=30),
    st.just("x" * 5000),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.one_of(st.text(max_size=10), st.booleans(), st.integers()), inner, max_size=5),
    ),
    max_leaves=20,
)


def assert_readable(text: str, limit: int) -> None:
    assert len(text) <= limit, text
    assert not CONTROL.search(text), text
    assert not PYTHON_REPR.search(QUOTED.sub('""', text)), text


def test_shown_writes_yaml_flow_style() -> None:
    assert shown(True) == "true"
    assert shown(None) == "null"
    assert shown({"a": 1, "b": [False, "x"]}) == '{a: 1, b: [false, "x"]}'
    assert shown("x" * 240_000) == '"' + "x" * 76 + "..."
    assert shown(list(range(100_000))).endswith("...")
    assert shown("\x1b[2J") == '"\\u001b[2J"'


def test_printable_spells_out_escapes_and_bidi_overrides() -> None:
    assert printable("a\x1b[31mb\rc\u202ed\x9be") == "a\\x1b[31mb\\rc\\u202ed\\x9be"
    assert printable("two\nlines", one_line=False) == "two\nlines"
    assert printable("two\nlines") == "two\\nlines"


def test_printable_spells_out_every_character_a_terminal_acts_on_and_no_other() -> None:
    acted_on = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
    for code in range(0x3000):
        char = chr(code)
        spelled = printable(char)
        assert (spelled != char) == bool(acted_on.match(char)), (hex(code), unicodedata.name(char, ""))
        assert printable(char, one_line=False) == (char if char in "\t\n" else spelled)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["game", "turn", "phase", "player", "seq", "entropy", "extra"]), values)
def test_envelope_refusals_are_yaml_and_bounded(field: str, value: Any) -> None:
    header: dict[Any, Any] = {"game": "g1", "turn": 1, "phase": "round", "player": "alice", "orders": {}}
    header[field] = value
    raw = yaml.safe_dump(header, allow_unicode=True).encode()
    for problem in order_file_problems(raw):
        assert_readable(problem.message, MAX_MESSAGE)
        assert_readable(problem.path, MAX_PATH)


@settings(max_examples=300, deadline=None)
@given(values)
def test_schema_refusals_are_yaml_and_bounded(value: Any) -> None:
    for orders in (value, {"stance": value}, {"stance": "attack", "move": value}, {"stance": "defend", "count": value}):
        for problem in check(orders, SCHEMA):
            assert_readable(problem.message, MAX_MESSAGE)
            assert_readable(problem.path, MAX_PATH)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["game", "module", "options", "referee", "scenario", "title", "players"]), values)
def test_config_refusals_are_yaml_and_bounded(field: str, value: Any) -> None:
    data: dict[str, Any] = {
        "game": "g1",
        "module": "moderator",
        "players": [{"name": "alice", "email": "alice@example.org", "key": "ssh-ed25519 AAAA"}],
    }
    data[field] = value
    try:
        parse_config(data, Path("."), "game.yaml")
    except RefereeError as error:
        assert_readable(error.message, 600)
