"""Tests for referee.protocol.dice: the protocol vectors (one test per file), the recording Dice,
spec parsing, transcript refusals, and the hand-check script printed in docs/protocol.md."""

from __future__ import annotations

import hmac
import itertools
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.protocol import dice, draws
from referee.protocol.canonical import pretty_json, sha256_hex

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors" / "protocol"
PROTOCOL_DOC = ROOT / "docs" / "protocol.md"
SEED = bytes(range(32))
ORDERS = {"tallard": "a" * 64, "eugene": "b" * 64}


# --- the vector files ---------------------------------------------------------------------


def read_vector(path: Path) -> tuple[list[tuple[str, str]], str]:
    """Return a vector file's header as (key, value) pairs, in order, and its body."""
    text = path.read_text(encoding="utf-8")
    head, sep, body = text.partition("\n\n")
    assert sep, f"{path.name}: no blank line after the header"
    headers = []
    for line in head.split("\n"):
        key, colon, value = line.partition(": ")
        assert colon, f"{path.name}: header line {line!r} is not 'key: value'"
        headers.append((key, value))
    assert headers[0][0] == "expect", f"{path.name}: the first header line must be expect:"
    return headers, body


def _one(headers: list[tuple[str, str]], key: str) -> str:
    values = [v for k, v in headers if k == key]
    assert len(values) == 1, f"header {key!r} appears {len(values)} times"
    return values[0]


def _has(headers: list[tuple[str, str]], key: str) -> bool:
    return any(k == key for k, _ in headers)


def _transcript_of(headers: list[tuple[str, str]]) -> bytes:
    orders = dict(v.split(" ", 1) for k, v in headers if k == "order")
    seed = bytes.fromhex(_one(headers, "server_seed"))
    return dice.transcript(
        _one(headers, "game"),
        int(_one(headers, "turn")),
        _one(headers, "phase"),
        dice.commitment(seed),
        orders,
        _one(headers, "beacon") if _has(headers, "beacon") else None,
    )


def _label_of(headers: list[tuple[str, str]]) -> str:
    if _has(headers, "label_hex"):
        return bytes.fromhex(_one(headers, "label_hex")).decode("utf-8")
    return _one(headers, "label")


def _check_transcript_vector(expect: str, headers: list[tuple[str, str]], body: str) -> None:
    if expect == "bad transcript":
        with pytest.raises(dice.DiceError):
            _transcript_of(headers)
        return
    seed = bytes.fromhex(_one(headers, "server_seed"))
    assert dice.commitment(seed) == _one(headers, "commit")
    text = _transcript_of(headers)
    assert text == body.encode("utf-8")
    assert dice.phase_key(seed, text).hex() == _one(headers, "phase_key")


def _check_draw_vector(expect: str, headers: list[tuple[str, str]], body: str) -> None:
    key = bytes.fromhex(_one(headers, "phase_key"))
    label, spec = _label_of(headers), _one(headers, "spec")
    count = int(_one(headers, "count")) if _has(headers, "count") else 1
    if expect == "success":
        values = [int(line) for line in body.splitlines()]
        assert dice.derive(key, label, spec, count) == values
        return
    # Each failure class must fail for its own reason, with the other input valid.
    with pytest.raises(dice.DiceError):
        dice.derive(key, label, spec, count)
    if expect == "bad label":
        with pytest.raises(dice.DiceError):
            dice.check_label(label)
        dice.parse_spec(spec)
    elif expect == "bad spec":
        dice.check_label(label)
        with pytest.raises(dice.DiceError):
            dice.parse_spec(spec)
        with pytest.raises(dice.DiceError):
            draws.Dice(key).roll(spec, label=label)
    else:
        pytest.fail(f"unknown expect class {expect!r}: teach test_dice.py about it")


@pytest.mark.parametrize("path", sorted(VECTORS.glob("*.txt")), ids=lambda p: p.stem)
def test_protocol_vector(path: Path) -> None:
    headers, body = read_vector(path)
    expect = headers[0][1]
    if _has(headers, "server_seed"):
        _check_transcript_vector(expect, headers, body)
    else:
        _check_draw_vector(expect, headers, body)


def test_the_vector_directory_holds_every_class() -> None:
    expects = {read_vector(p)[0][0][1] for p in VECTORS.glob("*.txt")}
    assert {"success", "bad label", "bad spec"} <= expects
    for path in VECTORS.glob("*.txt"):
        assert re.fullmatch(r"[0-9]{2}-[a-z0-9-]+\.txt", path.name), path.name


def test_the_committed_vectors_are_what_the_generator_writes() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_vectors.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr


# --- the recording Dice ---------------------------------------------------------------------


def _key() -> bytes:
    orders = ORDERS
    text = dice.transcript("blenheim-1704", 3, "tempo-bid", dice.commitment(SEED), orders)
    return dice.phase_key(SEED, text)


def test_a_label_cannot_be_used_twice_in_one_phase() -> None:
    rolls = draws.Dice(_key())
    rolls.roll("1d6", label="tempo/eugene")
    with pytest.raises(dice.DiceError, match="already used"):
        rolls.uniform(6, label="tempo/eugene")
    with pytest.raises(dice.DiceError, match="already used"):
        rolls.shuffle([1, 2], label="tempo/eugene")
    assert len(rolls.rolls) == 1


def test_dice_read_from_zero_are_recorded_as_uniform() -> None:
    rolls = draws.Dice(_key())
    assert rolls.roll("1d10z", label="events/one") == dice.derive(_key(), "events/one", "uniform(10)")
    three = rolls.roll("3d10z", label="events/random")
    assert three == [3, 8, 8]  # protocol section 7's "uniform(10), three times"
    assert rolls.rolls[1] == {
        "label": "events/random",
        "spec": "uniform(10)",
        "values": [3, 8, 8],
    }
    assert rolls.rolls[0]["spec"] == "uniform(10)" and len(rolls.rolls[0]["values"]) == 1


def test_dice_read_from_one_and_from_zero_share_the_stream() -> None:
    one = draws.Dice(_key()).roll("5d10", label="demo/d10")
    zero = draws.Dice(_key()).roll("5d10z", label="demo/d10")
    assert [v - 1 for v in one] == zero


def test_a_roll_is_recorded_with_its_spec_and_values() -> None:
    rolls = draws.Dice(_key())
    values = rolls.roll("2d6", label="combat/X-vs-M/attacker")
    assert values == [6, 2]
    assert rolls.uniform(10, label="misc/u") in range(10)
    assert rolls.rolls[0] == {
        "label": "combat/X-vs-M/attacker",
        "spec": "2d6",
        "values": [6, 2],
    }
    assert rolls.rolls[1]["spec"] == "uniform(10)"


def test_a_shuffle_records_the_permutation_of_indices() -> None:
    rolls = draws.Dice(_key())
    items = [f"card-{i}" for i in range(10)]
    shuffled = rolls.shuffle(items, label="deck/shuffle")
    permutation = [8, 1, 7, 9, 3, 6, 0, 4, 2, 5]
    assert rolls.rolls == [{"label": "deck/shuffle", "spec": "shuffle(10)", "values": permutation}]
    assert shuffled == [items[i] for i in permutation]
    assert items == [f"card-{i}" for i in range(10)]  # the input is not touched


# --- spec parsing -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "count", "sides", "zero", "record_spec"),
    [
        ("2d6", 2, 6, False, "2d6"),
        ("d6", 1, 6, False, "1d6"),
        ("1d10z", 1, 10, True, "uniform(10)"),
        ("3d10z", 3, 10, True, "uniform(10)"),
        (" 2D6 ", 2, 6, False, "2d6"),
        ("100d1000000", 100, 1_000_000, False, "100d1000000"),
        ("d2", 1, 2, False, "1d2"),
    ],
)
def test_parse_spec_forms(text: str, count: int, sides: int, zero: bool, record_spec: str) -> None:
    spec = dice.parse_spec(text)
    assert (spec.count, spec.sides, spec.zero_based) == (count, sides, zero)
    assert spec.record_spec == record_spec
    assert dice.parse_spec(spec.text) == spec
    # text and record_spec are kept on the spec (frozen: its fields never change), as a new one says
    assert (spec.text, spec.record_spec) == (f"{count}d{sides}{'z' if zero else ''}", record_spec)
    assert (spec.text, spec.record_spec) == (
        dice.DiceSpec(count, sides, zero).text,
        dice.DiceSpec(count, sides, zero).record_spec,
    )


def test_spec_bounds() -> None:
    assert (dice.parse_spec("2d6").lowest, dice.parse_spec("2d6").highest) == (2, 12)
    assert (dice.parse_spec("2d10z").lowest, dice.parse_spec("2d10z").highest) == (
        0,
        18,
    )


@pytest.mark.parametrize(
    "text",
    [
        "0d6",
        "d1",
        "1d1",
        "d0",
        "2d",
        "d",
        "",
        "2x6",
        "-1d6",
        "1d06",
        "01d6",
        "1d6z5",
        "1.5d6",
        "d6+1",
        "101d6",
        "1d1000001",
        "uniform(10)",
        "shuffle(3)",
    ],
)
def test_parse_spec_refuses(text: str) -> None:
    with pytest.raises(dice.DiceError):
        dice.parse_spec(text)


@pytest.mark.parametrize("value", [None, 6, b"2d6"])
def test_parse_spec_refuses_what_is_not_text(value: Any) -> None:
    with pytest.raises(dice.DiceError):
        dice.parse_spec(value)


@pytest.mark.parametrize("spec", ["0d6", "d6", "uniform(0)", "shuffle(-1)", "2d6z", f"uniform({2**64 + 1})"])
def test_derive_refuses_what_a_record_cannot_hold(spec: str) -> None:
    with pytest.raises(dice.DiceError):
        dice.derive(_key(), "x", spec)


# --- transcripts and labels ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("game", "blenheim 1704"),
        ("game", ""),
        ("game", "blenheim\n1704"),
        ("phase", "tempo bid"),
        ("phase", "tempo-bid\n"),
        ("phase", "tempo\tbid"),
        ("player", "eu gene"),
        ("player", ""),
        ("hash", "bb bb"),
        ("hash", ""),
        ("beacon", "ab cd"),
        ("commit", "63 0d"),
    ],
)
def test_transcript_refuses_whitespace_or_empty_fields(field: str, value: str) -> None:
    args: dict[str, Any] = {
        "game": "blenheim-1704",
        "turn": 3,
        "phase": "tempo-bid",
        "commit": dice.commitment(SEED),
        "orders": dict(ORDERS),
        "beacon": None,
    }
    if field == "player":
        args["orders"][value] = "c" * 64
    elif field == "hash":
        args["orders"]["tallard"] = value
    else:
        args[field] = value
    with pytest.raises(dice.DiceError):
        dice.transcript(**args)


def test_the_whitespace_rule_prevents_two_inputs_giving_one_transcript() -> None:
    # Without the rule, game "a\nturn 9" would forge a line; both attempts are refused.
    with pytest.raises(dice.DiceError):
        dice.transcript("a\nturn 9", 3, "p", "c", {})
    with pytest.raises(dice.DiceError):
        dice.transcript("g", 3, "p", "c", {"eugene bbbb": "cc"})


def test_a_beacon_adds_its_line() -> None:
    text = dice.transcript("g", 1, "p", "c", {}, beacon="abcd")
    assert text.endswith(b"commit c\nbeacon abcd\n")


@pytest.mark.parametrize("label", ["", "a\x00b", "a\nb", "tab\there", "del\x7f", "x" * 201, "é" * 101])
def test_check_label_refuses(label: str) -> None:
    with pytest.raises(dice.DiceError):
        dice.check_label(label)


def test_check_label_accepts_the_longest_label() -> None:
    assert dice.check_label("x" * 200) == b"x" * 200
    assert dice.check_label("é" * 100) == "é".encode() * 100


# --- properties -------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=2**64),
    key=st.binary(min_size=32, max_size=32),
    label=st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=50),
)
def test_uniform_stays_in_range(n: int, key: bytes, label: str) -> None:
    stream = dice.Stream(key, label)
    for _ in range(3):
        assert 0 <= stream.uniform(n) < n


@settings(max_examples=50, deadline=None)
@given(size=st.integers(min_value=0, max_value=60), key=st.binary(min_size=32, max_size=32))
def test_shuffle_is_a_permutation(size: int, key: bytes) -> None:
    assert sorted(dice.derive(key, "deck", f"shuffle({size})")) == list(range(size))


@settings(max_examples=200, deadline=None)
@given(key=st.binary(min_size=0, max_size=200), message=st.binary(max_size=300))
def test_the_keyed_hmac_gives_the_standard_librarys_bytes(key: bytes, message: bytes) -> None:
    """The streams' HMAC, keyed once (dice.Keyed), is HMAC-SHA256 to the byte, for any key length
    (a key longer than SHA-256's block is hashed first, as RFC 2104 says)."""
    assert dice.Keyed(key).digest(message) == hmac.digest(key, message, "sha256")


def _stream_by_the_standard_library(key: bytes, label: str) -> Iterator[int]:
    """Section 4's stream, written with hmac.digest alone: what the fast paths must match."""
    for block in itertools.count():
        digest = hmac.digest(key, label.encode() + b"\x00" + block.to_bytes(8, "big"), "sha256")
        yield from (int.from_bytes(digest[i : i + 8], "big") for i in range(0, 32, 8))


def _uniform_by_the_standard_library(values: Iterator[int], n: int) -> int:
    limit = 2**64 - 2**64 % n
    return next(value % n for value in values if value < limit)


@pytest.mark.parametrize("n", [6, 10, 2**63 + 1, 2**64 - 1])  # the two large ones reject often
def test_one_die_rolls_match_the_stream_written_with_the_standard_library(n: int) -> None:
    key = bytes(range(32))
    for index in range(200):
        label = f"roll/{index}"
        expected = _uniform_by_the_standard_library(_stream_by_the_standard_library(key, label), n)
        assert dice.first_uniform(dice.Keyed(key), label, n) == expected
        assert draws.Dice(key).uniform(n, label=label) == expected
        assert dice.Stream(key, label).uniform(n) == expected
        if n == 6:
            assert draws.Dice(key).roll("1d6", label=label) == [expected + 1]


def test_many_dice_and_shuffles_match_the_stream_written_with_the_standard_library() -> None:
    key = b"k" * 32
    for count in (2, 3, 4, 5, 9):  # up to 4 from the first block, without a stream
        for index in range(50):
            values = _stream_by_the_standard_library(key, f"volley/{index}")
            expected = [_uniform_by_the_standard_library(values, 6) + 1 for _ in range(count)]
            assert draws.Dice(key).roll(f"{count}d6", label=f"volley/{index}") == expected
            assert draws.Dice(key).roll(f"{count}d6z", label=f"volley/{index}") == [v - 1 for v in expected]
    for index in range(50):  # a die of 2^63 + 1 faces rejects about half its values
        values = _stream_by_the_standard_library(key, f"big/{index}")
        expected = [_uniform_by_the_standard_library(values, 2**63 + 1) for _ in range(3)]
        assert dice.first_uniforms(dice.Keyed(key), f"big/{index}", 2**63 + 1, 3) == expected
        assert dice.first_uniforms(dice.Keyed(key), f"big/{index}", 2**63 + 1, 3, 1) == [v + 1 for v in expected]


@pytest.mark.parametrize(
    "spec, count",
    [("1d6", 1), ("2d6", 2), ("4d10", 4), ("5d6", 5), ("uniform(10)", 3), ("uniform(9223372036854775809)", 4)],
)  # the last rejects about half its values: the first block often falls back to the stream
def test_derive_with_a_keyed_key_matches_the_stream_written_with_the_standard_library(spec: str, count: int) -> None:
    key = bytes(range(32))
    n = int(spec[8:-1]) if spec.startswith("uniform") else int(spec.partition("d")[2])
    offset = 0 if spec.startswith("uniform") else 1
    for index in range(100):
        label = f"roll/{index}"
        values = _stream_by_the_standard_library(key, label)
        expected = [_uniform_by_the_standard_library(values, n) + offset for _ in range(count)]
        assert dice.derive(dice.Keyed(key), label, spec, count) == expected
        assert dice.derive(key, label, spec, count) == expected


# --- the hand-check script of docs/protocol.md -----------------------------------------------


def _doc_script() -> str:
    """Return the python block under the "Checking a record by hand" heading of docs/protocol.md."""
    text = PROTOCOL_DOC.read_text(encoding="utf-8")
    section = text[text.index("Checking a record by hand") :]
    match = re.search(r"^```python\n(.*?)^```", section, flags=re.MULTILINE | re.DOTALL)
    assert match, "no ```python block under 'Checking a record by hand'"
    return match.group(1)


def _section7_record() -> dict[str, Any]:
    key = _key()
    rolls = draws.Dice(key)
    rolls.roll("1d6", label="tempo/eugene")
    rolls.roll("2d6", label="combat/X-vs-M/attacker")
    rolls.roll("3d10z", label="events/random")
    rolls.shuffle(list(range(10)), label="deck/shuffle")
    for i in range(2):
        rolls.uniform(2**63 + 1, label=f"bias/check/{i}")
    return {
        "protocol": "pbem-referee/1",
        "game": "blenheim-1704",
        "turn": 3,
        "phase": "tempo-bid",
        "commit": dice.commitment(SEED),
        "server_seed": SEED.hex(),
        "beacon": None,
        "orders": [{"player": p, "sha256": ORDERS[p]} for p in sorted(ORDERS)],
        "rolls": rolls.rolls,
        "state_before": sha256_hex(b"{}"),
        "state_after": sha256_hex(b"{}"),
        "next_commit": None,
    }


def _run_doc_script(tmp_path: Path, record: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "check_record.py"
    script.write_text(_doc_script(), encoding="utf-8")
    path = tmp_path / "0001-t3-tempo-bid.json"
    path.write_bytes(pretty_json(record))
    return subprocess.run(
        [sys.executable, str(script), str(path)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_doc_script_uses_only_the_standard_library_and_stays_short() -> None:
    script = _doc_script()
    imports = re.findall(r"^\s*(?:import|from)\s+(.+)$", script, flags=re.MULTILINE)
    assert imports == ["hashlib, hmac, json, sys"]
    assert len(script.splitlines()) <= 45


def test_the_doc_script_passes_a_good_record(tmp_path: Path) -> None:
    result = _run_doc_script(tmp_path, _section7_record())
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("OK")


def test_the_doc_script_reports_a_tampered_roll(tmp_path: Path) -> None:
    record = _section7_record()
    record["rolls"][1]["values"] = [6, 6]
    result = _run_doc_script(tmp_path, record)
    assert result.returncode == 1
    assert result.stdout.strip() == "roll 'combat/X-vs-M/attacker' (2d6): record says [6, 6], the seed gives [6, 2]"


def test_the_doc_script_reports_a_changed_order_hash_and_seed(tmp_path: Path) -> None:
    record = _section7_record()
    record["orders"][0]["sha256"] = "c" * 64
    result = _run_doc_script(tmp_path, record)
    assert result.returncode == 1
    assert len(result.stdout.strip().splitlines()) >= 4  # the phase key moved, so nearly every roll differs
    record = _section7_record()
    record["server_seed"] = "00" * 32
    result = _run_doc_script(tmp_path, record)
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == "server_seed does not hash to commit"


def test_the_doc_script_agrees_with_the_library(tmp_path: Path) -> None:
    record = _section7_record()
    assert json.loads(pretty_json(record))["rolls"][2] == {
        "label": "events/random",
        "spec": "uniform(10)",
        "values": [3, 8, 8],
    }
    assert _run_doc_script(tmp_path, record).returncode == 0
