"""Order files (protocol section 2): parse the envelope of a signed YAML order file.

This module knows the file's shape only. Whether the file fits the game (its turn, phase,
player and the phase's own schema) is the engine's business.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

from referee.protocol.canonical import sha256_hex
from referee.protocol.display import shown
from referee.protocol.errors import OrderRefusedError
from referee.protocol.problems import Problem
from referee.protocol.yamlbounds import Limits
from referee.protocol.yamlsafe import StrictYAMLError, YAMLLimitError, load_strict

MAX_ORDER_BYTES = 256 * 1024
# The largest real order files (tests/golden, the games' samples) are about 1.2 KB, 6 levels and
# 120 values deep: these limits leave a wide margin and keep any parser's work small.
ORDER_LIMITS = Limits(chars=MAX_ORDER_BYTES, depth=64, values=10_000)
REQUIRED_FIELDS = ("game", "turn", "phase", "player", "orders")
OPTIONAL_FIELDS = ("seq", "entropy")
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}\Z")  # \Z: `$` would let a final line break through
ENTROPY_PATTERN = re.compile(r"^[0-9a-fA-F]{32,256}\Z")
MAX_NUMBER = 10**9  # turn and seq: far beyond any game, well inside the journal's 64-bit integers
ENTROPY_HEX_DIGITS = 64


@dataclass(frozen=True)
class OrderFile:
    """An order file whose envelope is well formed; `raw` is exactly what was signed."""

    game: str
    turn: int
    phase: str
    player: str
    seq: int
    entropy: str | None
    orders: Any
    raw: bytes

    @property
    def sha256(self) -> str:
        """The hex SHA-256 of the signed bytes: what the transcript and acknowledgement carry."""
        return sha256_hex(self.raw)


def canonical_text(text: str) -> str:
    """Return the canonical form of orders pasted inline in a mail body (protocol section 2).

    CRLF and CR become LF, trailing spaces and tabs go from every line, and the text ends
    with exactly one LF: mail clients change all three, so only this form is signed.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip(" \t") for line in lines).rstrip("\n") + "\n"


def parse_order_file(raw: bytes) -> OrderFile:
    """Return the parsed order file, or raise OrderRefusedError listing every problem found."""
    order, problems = read_order_file(raw)
    if order is None:
        raise OrderRefusedError("the order file is malformed", problems)
    return order


def order_file_problems(raw: bytes) -> list[Problem]:
    """Return every problem with the file's bytes, YAML and header fields (empty: well formed)."""
    return read_order_file(raw)[1]


def read_order_file(raw: bytes) -> tuple[OrderFile | None, list[Problem]]:
    """Return the order file parsed (None when it is malformed) and every problem with its
    bytes, YAML and header fields: the YAML is read once for both."""
    problems, data = _read(raw)
    if problems:
        return None, problems
    order = OrderFile(
        game=data["game"],
        turn=data["turn"],
        phase=data["phase"],
        player=data["player"],
        seq=data.get("seq", 1),
        entropy=data.get("entropy"),
        orders=data["orders"] if data["orders"] is not None else {},
        raw=raw,
    )
    return order, []


def _decode(raw: bytes) -> str:
    text = raw.decode("utf-8")
    return text[1:] if text.startswith("\ufeff") else text


def _read(raw: bytes) -> tuple[list[Problem], Any]:
    if len(raw) > MAX_ORDER_BYTES:
        return [
            Problem(
                "invalid.size",
                "file",
                f"the file is {len(raw):,} bytes; order files may be at most {MAX_ORDER_BYTES:,} bytes (256 KiB)",
            )
        ], None
    try:
        text = _decode(raw)
    except UnicodeDecodeError as exc:
        return [
            Problem(
                "invalid.encoding",
                "file",
                f"the file is not UTF-8 text (byte {exc.start} is not valid UTF-8); save it as UTF-8",
            )
        ], None
    try:
        data = load_strict(text, ORDER_LIMITS)
    except YAMLLimitError as exc:
        if exc.excess.kind in ("depth", "values"):
            return [
                Problem(
                    f"invalid.{'too-deep' if exc.excess.kind == 'depth' else 'too-many-values'}",
                    "file",
                    exc.excess.describe("your order file")
                    + ": write the orders as the order form in your notice shows",
                )
            ], None
        return [Problem("invalid.yaml", "file", f"the file is not acceptable YAML: {exc}")], None
    except StrictYAMLError as exc:
        return [Problem("invalid.yaml", "file", f"the file is not acceptable YAML: {exc}")], None
    if not isinstance(data, dict):
        found = "empty" if data is None else "a single value or list"
        return [
            Problem(
                "invalid.not-mapping",
                "file",
                f"the file must be a YAML mapping of header fields (game:, turn:, ...), but it is {found}",
            )
        ], None
    return header_problems(data), data


def header_problems(data: dict) -> list[Problem]:
    """Return the problems with the header fields of an order file's mapping."""
    problems = [
        Problem(
            "invalid.unknown-field",
            key,
            f"unknown header field {_field_name(key)}; "
            f"the header has only {', '.join(REQUIRED_FIELDS + OPTIONAL_FIELDS)}"
            " (put the game's orders under 'orders:')",
        )
        for key in data
        if key not in REQUIRED_FIELDS + OPTIONAL_FIELDS
    ]
    problems += [
        Problem("invalid.missing", key, f"the header field '{key}' is missing")
        for key in REQUIRED_FIELDS
        if key not in data
    ]
    for key in ("game", "phase", "player"):
        if key in data and not (isinstance(data[key], str) and NAME_PATTERN.match(data[key])):
            problems.append(
                Problem(
                    "invalid.type",
                    key,
                    f"'{key}' must be a name of lower-case letters, digits, '-', '_' or '.', got {shown(data[key])}",
                )
            )
    for key, least in (("turn", 0), ("seq", 1)):
        value = data.get(key, least)
        if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= MAX_NUMBER:
            problems.append(
                Problem(
                    "invalid.type",
                    key,
                    f"'{key}' must be a whole number from {least} to {MAX_NUMBER:,}, got {shown(value)}",
                )
            )
    entropy = data.get("entropy")
    if entropy is not None and not (isinstance(entropy, str) and ENTROPY_PATTERN.match(entropy)):
        problems.append(
            Problem(
                "invalid.type", "entropy", "'entropy' must be 32 to 256 hex digits (`referee sign` fills it in for you)"
            )
        )
    return problems


def _field_name(key: Any) -> str:
    """A header field's name as the refusal quotes it: 'colour', or the YAML of an odd one."""
    if isinstance(key, str) and NAME_PATTERN.match(key):
        return f"'{key}'"
    return shown(key)


def with_entropy(raw: bytes) -> bytes:
    """Return the order file with an `entropy:` line of fresh random hex added, when it has none.

    The line goes just before the top-level `orders:` line so the rest of the file is
    untouched; files with no such line get it appended. A file where a line cannot go (one
    written in flow style, such as JSON) is returned unchanged: entropy is optional.
    """
    data = load_strict(_decode(raw), ORDER_LIMITS)
    if isinstance(data, dict) and data.get("entropy"):
        return raw
    entropy = secrets.token_hex(ENTROPY_HEX_DIGITS // 2)
    line = f"entropy: {entropy}\n".encode()
    empty = re.search(rb"^entropy\s*:[^\n]*\n?", raw, flags=re.MULTILINE)
    match = re.search(rb"^orders\s*:", raw, flags=re.MULTILINE)
    if empty:
        filled = raw[: empty.start()] + line + raw[empty.end() :]
    elif match:
        filled = raw[: match.start()] + line + raw[match.start() :]
    else:
        filled = raw + (b"" if raw.endswith(b"\n") or not raw else b"\n") + line
    try:
        fits = isinstance(data, dict) and load_strict(_decode(filled), ORDER_LIMITS) == {**data, "entropy": entropy}
    except StrictYAMLError:  # the added line broke the file
        fits = False
    return filled if fits else raw
