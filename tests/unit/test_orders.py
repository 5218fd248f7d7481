"""Tests for referee.protocol.orders: the order file's envelope, canonical text, entropy, and a bounded fuzz."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import OrderRefusedError
from referee.protocol.orders import (
    MAX_ORDER_BYTES,
    canonical_text,
    order_file_problems,
    parse_order_file,
    with_entropy,
)
from referee.protocol.problems import Problem

GOOD = b"game: g1\nturn: 1\nphase: round\nplayer: alice\norders:\n  note: hi\n"


def codes(raw: bytes) -> list[tuple[str, str]]:
    """Return (code, path) of every problem with `raw`, checking each has a message."""
    problems = order_file_problems(raw)
    assert all(isinstance(p, Problem) and p.message for p in problems)
    return [(p.code, p.path) for p in problems]


def only(raw: bytes) -> Problem:
    problems = order_file_problems(raw)
    assert len(problems) == 1, problems
    return problems[0]


# --- a well-formed file ------------------------------------------------------------------------


def test_good_file_parses_with_defaults() -> None:
    order = parse_order_file(GOOD)
    assert (order.game, order.turn, order.phase, order.player, order.seq, order.entropy) == (
        "g1",
        1,
        "round",
        "alice",
        1,
        None,
    )
    assert order.orders == {"note": "hi"}
    assert order.raw == GOOD
    assert re.fullmatch(r"[0-9a-f]{64}", order.sha256)


def test_empty_orders_become_an_empty_mapping() -> None:
    assert parse_order_file(b"game: g1\nturn: 1\nphase: round\nplayer: alice\norders:\n").orders == {}


def test_a_byte_order_mark_is_allowed() -> None:
    assert parse_order_file(b"\xef\xbb\xbf" + GOOD).player == "alice"


def test_dates_stay_text() -> None:
    order = parse_order_file(GOOD.replace(b"note: hi", b"note: 2024-05-01\n  declaration: {at: 2024-05-01 10:00:00}"))
    assert order.orders["note"] == "2024-05-01"
    assert order.orders["declaration"] == {"at": "2024-05-01 10:00:00"}
    assert parse_order_file(GOOD.replace(b"game: g1", b"game: 2024-05-01")).game == "2024-05-01"


# --- every refusal has its own code and names the field ------------------------------------------


def test_oversize() -> None:
    problem = only(GOOD + b"#" * MAX_ORDER_BYTES)
    assert problem.code == "invalid.size" and problem.path == "file"
    assert "256 KiB" in problem.message


def test_exactly_the_limit_is_not_oversize() -> None:
    raw = GOOD + b"#" * (MAX_ORDER_BYTES - len(GOOD))
    assert len(raw) == MAX_ORDER_BYTES
    assert order_file_problems(raw) == []


def test_not_utf8() -> None:
    problem = only(GOOD.replace(b"hi", b"caf\xe9"))
    assert problem.code == "invalid.encoding" and "UTF-8" in problem.message


@pytest.mark.parametrize(
    "raw, found",
    [
        (b"- game: g1\n- turn: 1\n", "list"),
        (b"just a line\n", "single value"),
        (b"42\n", "single value"),
        (b"", "empty"),
        (b"# only a comment\n", "empty"),
    ],
)
def test_not_a_mapping(raw: bytes, found: str) -> None:
    problem = only(raw)
    assert problem.code == "invalid.not-mapping" and found in problem.message


def test_anchors_and_aliases() -> None:
    raw = GOOD.replace(b"  note: hi\n", b"  rolls: &r [1]\n  declaration: *r\n")
    problem = only(raw)
    assert problem.code == "invalid.yaml" and "anchors and aliases" in problem.message


def test_duplicate_keys() -> None:
    problem = only(GOOD + b"turn: 2\n")
    assert problem.code == "invalid.yaml" and "'turn' appears twice" in problem.message


def test_duplicate_keys_inside_orders() -> None:
    problem = only(GOOD + b"  note: again\n")
    assert problem.code == "invalid.yaml" and "'note' appears twice" in problem.message


def test_unknown_top_level_key() -> None:
    assert codes(GOOD + b"colour: blue\n") == [("invalid.unknown-field", "colour")]
    assert "colour" in only(GOOD + b"colour: blue\n").message


@pytest.mark.parametrize("field", ["game", "turn", "phase", "player", "orders"])
def test_missing_field(field: str) -> None:
    raw = b"".join(line + b"\n" for line in GOOD.split(b"\n") if line and not line.startswith(field.encode()))
    if field == "orders":
        raw = raw.replace(b"  note: hi\n", b"")
    problem = only(raw)
    assert (problem.code, problem.path) == ("invalid.missing", field)
    assert f"'{field}'" in problem.message


@pytest.mark.parametrize(
    "line, field",
    [
        (b"turn: '1'", "turn"),  # a number as text
        (b"turn: one", "turn"),
        (b"turn: true", "turn"),  # a yes/no value is not a turn
        (b"turn: -1", "turn"),
        (b"turn: 1.0", "turn"),
        (b"seq: 0", "seq"),
        (b"seq: no", "seq"),
        (b"entropy: xyz", "entropy"),
        (b"entropy: abcd", "entropy"),  # fewer than 32 hex digits
        (b"entropy: 12345678901234567890123456789012", "entropy"),  # read as a number
        (b"player: Alice", "player"),
        (b"player: ''", "player"),
        (b"player: [alice]", "player"),
        (b"game: 1", "game"),
        (b"phase: null", "phase"),
    ],
)
def test_wrong_types(line: bytes, field: str) -> None:
    key = line.split(b":")[0]
    lines = [kept for kept in GOOD.split(b"\n") if kept and not kept.startswith(key + b":")]
    raw = b"\n".join([line, *lines]) + b"\n"
    problem = only(raw)
    assert (problem.code, problem.path) == ("invalid.type", field)
    assert f"'{field}'" in problem.message


def test_names_may_not_end_in_a_line_break() -> None:
    raw = GOOD.replace(b"player: alice", b'player: "alice\\n"')
    assert codes(raw) == [("invalid.type", "player")]


def test_huge_turn_and_seq_are_refused() -> None:
    """Numbers the journal cannot store (SQLite's 64-bit integers) are refused in the envelope."""
    assert codes(GOOD.replace(b"turn: 1", b"turn: 99999999999999999999999")) == [("invalid.type", "turn")]
    assert codes(GOOD + b"seq: 99999999999999999999999\n") == [("invalid.type", "seq")]


def test_every_problem_is_listed() -> None:
    raw = b"turn: x\nseq: 0\nextra: 1\nphase: round\n"
    assert sorted(codes(raw)) == sorted(
        [
            ("invalid.unknown-field", "extra"),
            ("invalid.missing", "game"),
            ("invalid.missing", "player"),
            ("invalid.missing", "orders"),
            ("invalid.type", "turn"),
            ("invalid.type", "seq"),
        ]
    )


def test_parse_raises_with_every_problem() -> None:
    with pytest.raises(OrderRefusedError) as caught:
        parse_order_file(b"turn: x\n")
    assert {p.path for p in caught.value.problems} == {"game", "phase", "player", "orders", "turn"}


# --- canonical text ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a: 1\r\nb: 2\r\n", "a: 1\nb: 2\n"),
        ("a: 1\rb: 2\r", "a: 1\nb: 2\n"),
        ("a: 1  \nb: 2\t \n", "a: 1\nb: 2\n"),
        ("a: 1\n\n\n\n", "a: 1\n"),
        ("a: 1", "a: 1\n"),
        ("a: 1 \r\n  \r\n\r\n", "a: 1\n"),
        ("  a: 1\n\nb: 2\n", "  a: 1\n\nb: 2\n"),  # leading spaces and inner blank lines stay
    ],
)
def test_canonical_text(text: str, expected: str) -> None:
    assert canonical_text(text) == expected
    assert canonical_text(expected) == expected


# --- with_entropy ------------------------------------------------------------------------------


def entropy_of(raw: bytes) -> str:
    order = parse_order_file(raw)
    assert order.entropy is not None and re.fullmatch(r"[0-9a-f]{64}", order.entropy)
    return order.entropy


def test_with_entropy_inserts_before_orders() -> None:
    filled = with_entropy(GOOD)
    head, _, tail = GOOD.partition(b"orders:")
    assert filled.startswith(head + b"entropy: ") and filled.endswith(b"orders:" + tail)
    entropy_of(filled)
    assert with_entropy(GOOD) != filled  # fresh randomness each time


@pytest.mark.parametrize("line", [b"entropy:\n", b"entropy: \n", b"entropy: ''\n", b"entropy:   # fill me\n"])
def test_with_entropy_replaces_an_empty_line(line: bytes) -> None:
    raw = GOOD.replace(b"orders:", line + b"orders:")
    filled = with_entropy(raw)
    assert filled.count(b"entropy:") == 1
    assert filled.replace(re.search(rb"entropy: [0-9a-f]+\n", filled)[0], b"") == GOOD  # type: ignore[index]
    entropy_of(filled)


def test_with_entropy_leaves_a_file_with_entropy_alone() -> None:
    raw = GOOD.replace(b"orders:", b"entropy: " + b"ab" * 16 + b"\norders:")
    assert with_entropy(raw) is raw or with_entropy(raw) == raw


def test_with_entropy_crlf_file() -> None:
    raw = GOOD.replace(b"\n", b"\r\n")
    entropy_of(with_entropy(raw))


@pytest.mark.parametrize(
    "raw",
    [
        b'{"game": "g1", "turn": 1, "phase": "round", "player": "alice", "orders": {"note": "hi"}}',
        b"{game: g1, turn: 1, phase: round, player: alice,\n orders: {}}\n",
        b'---\ngame: g1\nturn: 1\nphase: round\nplayer: alice\n"orders": {}\n...\n',
    ],
)
def test_with_entropy_never_breaks_a_file(raw: bytes) -> None:
    """A file where no line can be added (JSON, flow style, an end marker) is left as it is."""
    assert order_file_problems(raw) == []
    filled = with_entropy(raw)
    assert order_file_problems(filled) == []
    assert filled == raw or parse_order_file(filled).entropy is not None


# --- fuzz --------------------------------------------------------------------------------------


KEYS = st.sampled_from(["game", "turn", "phase", "player", "seq", "entropy", "orders", "extra", "Game", "", "1"])
SCALARS = st.one_of(
    st.sampled_from(
        [
            "g1",
            "round",
            "alice",
            "1",
            "0",
            "-1",
            "true",
            "null",
            "~",
            "'x'",
            '"a\\n"',
            "[]",
            "{}",
            "&a 1",
            "*a",
            "!!binary aGk=",
            "!!python/object:os.system x",
            "2024-01-01",
            ".nan",
            "1e999",
            "9" * 30,
            "9" * 4400,
            "0x1F",
            "1:20",
            "|",
            ">",
            "? x",
            "- 1",
            "{a: [1, {b: 2}]}",
            "'",
            "\t",
        ]
    ),
    st.integers().map(str),
    st.text(max_size=12),
)


@st.composite
def yamlish(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        indent = draw(st.sampled_from(["", "", "  ", "    ", "- "]))
        lines.append(f"{indent}{draw(KEYS)}: {draw(SCALARS)}")
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n"]))


def _check_never_raises(raw: bytes) -> None:
    problems = order_file_problems(raw)
    assert isinstance(problems, list)
    for problem in problems:
        assert isinstance(problem, Problem) and problem.code and problem.path and problem.message
    try:
        order = parse_order_file(raw)
    except OrderRefusedError as exc:
        assert problems and exc.problems == problems
    else:
        assert problems == [] and order.raw == raw
        filled = with_entropy(raw)  # what `referee sign` does: it must never break a good file
        assert order_file_problems(filled) == []
        assert filled == raw or parse_order_file(filled).entropy is not None


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=2000))
def test_fuzz_bytes(raw: bytes) -> None:
    _check_never_raises(raw)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=500))
def test_fuzz_text(text: str) -> None:
    _check_never_raises(text.encode("utf-8", "surrogatepass"))


@settings(max_examples=500, deadline=None)
@given(yamlish())
def test_fuzz_yamlish(text: str) -> None:
    _check_never_raises(text.encode("utf-8", "surrogatepass"))
    _check_never_raises((GOOD.decode() + text).encode("utf-8", "surrogatepass"))


def test_a_number_of_thousands_of_digits_is_refused_not_raised() -> None:
    """int() refuses over 4300 digits with ValueError, which the YAML loader does not turn into an error."""
    problem = only(GOOD.replace(b"turn: 1", b"turn: " + b"9" * 5000))
    assert problem.code == "invalid.yaml" and "thousands of digits" in problem.message
    with pytest.raises(OrderRefusedError):
        parse_order_file(GOOD.replace(b"note: hi", b"note: " + b"1" * 5000))
