"""Verifiable dice (protocol sections 3 and 4): commitments, phase keys, labelled streams.

Every draw comes from a stream named by a label. A stream is HMAC-SHA256 blocks keyed by
the phase key, read as 8-byte big-endian integers; `uniform(n)` rejects the biased top of
the range. Anyone holding the revealed seed and the accepted orders' hashes can re-derive
every value here with a few lines of code.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TypeVar

TRANSCRIPT_HEADER = "pbem-referee-rolls/1"
MAX_LABEL_BYTES = 200
MAX_DICE = 100
MAX_SIDES = 1_000_000
_TWO_64 = 1 << 64
_UNPACK_BLOCK = struct.Struct(">4Q").unpack
_FIRST_U64 = struct.Struct(">Q").unpack_from

T = TypeVar("T")


class DiceError(ValueError):
    """A dice spec or label is malformed, or a label was used twice in one phase."""


def commitment(server_seed: bytes) -> str:
    """Return the public commitment to a server seed: hex SHA-256 of its bytes."""
    return hashlib.sha256(server_seed).hexdigest()


def transcript(
    game: str,
    turn: int,
    phase: str,
    commit: str,
    orders: Mapping[str, str],
    beacon: str | None = None,
) -> bytes:
    """Return the rolls transcript of protocol section 3 (`orders` maps player to sha256 hex)."""
    for name, value in (("game", game), ("phase", phase), ("commit", commit)):
        check_token(name, value)
    lines = [TRANSCRIPT_HEADER, f"game {game}", f"turn {int(turn)}", f"phase {phase}", f"commit {commit}"]
    for player in sorted(orders):
        check_token("player", player)
        check_token("order hash", orders[player])
        lines.append(f"order {player} {orders[player]}")
    if beacon is not None:
        check_token("beacon", beacon)
        lines.append(f"beacon {beacon}")
    return "".join(line + "\n" for line in lines).encode("utf-8")


def check_token(what: str, value: str) -> None:
    """Refuse a transcript field that is empty or holds whitespace: it would make the
    transcript ambiguous (two different inputs, one text)."""
    if not value or any(ch.isspace() for ch in value):
        raise DiceError(f"{what} {value!r} must be non-empty and hold no spaces or line breaks")


def phase_key(server_seed: bytes, transcript_bytes: bytes) -> bytes:
    """Return the phase key: HMAC-SHA256 keyed by the server seed over the transcript."""
    return hmac.digest(server_seed, transcript_bytes, "sha256")


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def check_label(label: str) -> bytes:
    """Return the label's UTF-8 bytes, refusing empty, over-long or control-character labels."""
    if type(label) is str and label.isascii() and label.isprintable() and 0 < len(label) <= MAX_LABEL_BYTES:
        return label.encode("ascii")  # the common label, checked without the regex (printable ASCII: no controls)
    if not isinstance(label, str) or not label:
        raise DiceError("a dice label must be a non-empty text")
    if _CONTROL.search(label):
        raise DiceError(f"dice label {label!r} holds a control character")
    try:
        encoded = label.encode("utf-8")
    except UnicodeEncodeError:
        raise DiceError(f"dice label {label!r} is not valid Unicode text") from None
    if len(encoded) > MAX_LABEL_BYTES:
        raise DiceError(f"dice label {label[:40]!r}... is longer than {MAX_LABEL_BYTES} bytes")
    return encoded


_SHA256_BLOCK = 64
_INNER_PAD = bytes(byte ^ 0x36 for byte in range(256))
_OUTER_PAD = bytes(byte ^ 0x5C for byte in range(256))


class Keyed:
    """HMAC-SHA256 (RFC 2104) under one key, keyed once: the inner and outer hashes that have
    absorbed the padded key, copied for each message. A stream's block then costs two hash
    copies instead of a whole HMAC set-up: 2.5x the rate of `hmac.new(key, msg, sha256)`, with
    the same bytes (tests/unit/test_dice.py compares them with the standard library's)."""

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes) -> None:
        if len(key) > _SHA256_BLOCK:
            key = hashlib.sha256(key).digest()
        padded = bytes(key).ljust(_SHA256_BLOCK, b"\x00")
        self._inner = hashlib.sha256(padded.translate(_INNER_PAD))
        self._outer = hashlib.sha256(padded.translate(_OUTER_PAD))

    def digest(self, message: bytes) -> bytes:
        """Return HMAC-SHA256(key, message)."""
        inner = self._inner.copy()
        inner.update(message)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()


_FIRST_SUFFIX = b"\x00" + (0).to_bytes(8, "big")  # what follows a label in its stream's first block


class Stream:
    """The labelled stream of protocol section 4: 64-bit integers from HMAC blocks."""

    __slots__ = ("_key", "_keyed", "_prefix", "_block", "_buffer", "_pos")

    def __init__(self, key: bytes | Keyed, label: str) -> None:
        # A key shared by many streams comes keyed (Keyed). A bare key goes to hmac.digest, cheaper
        # for the block or two most streams read; a long stream (a shuffle, many dice) keys it
        # once, at its third block.
        self._key: bytes = b"" if isinstance(key, Keyed) else key
        self._keyed: Keyed | None = key if isinstance(key, Keyed) else None
        self._prefix = check_label(label) + b"\x00"
        self._block = 0
        self._buffer: tuple[int, ...] = ()
        self._pos = 4

    def _refill(self) -> None:
        message = self._prefix + self._block.to_bytes(8, "big")
        if self._keyed is None and self._block < 2:
            digest = hmac.digest(self._key, message, "sha256")
        else:
            if self._keyed is None:
                self._keyed = Keyed(self._key)
            digest = self._keyed.digest(message)
        self._buffer = _UNPACK_BLOCK(digest)
        self._block += 1
        self._pos = 0

    def next_u64(self) -> int:
        """Return the stream's next 64-bit unsigned integer."""
        if self._pos == 4:
            self._refill()
        value = self._buffer[self._pos]
        self._pos += 1
        return value

    def uniform(self, n: int) -> int:
        """Return an unbiased integer in 0..n-1 by rejection sampling."""
        limit = uniform_limit(n)
        while True:
            if self._pos == 4:  # next_u64, inlined: this loop is every die's cost
                self._refill()
            u = self._buffer[self._pos]
            self._pos += 1
            if u < limit:
                return u % n

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """Return a Fisher-Yates shuffle of `items` (section 4's exact order of swaps)."""
        result = list(items)
        for i in range(len(result) - 1, 0, -1):
            j = self.uniform(i + 1)
            result[i], result[j] = result[j], result[i]
        return result


def first_uniform(keyed: Keyed, label: str, n: int) -> int:
    """Return the first `uniform(n)` of the stream `label`, as `Stream(key, label).uniform(n)` does,
    without making the stream unless its first value is rejected (a chance below n / 2^64)."""
    value = _FIRST_U64(keyed.digest(check_label(label) + _FIRST_SUFFIX))[0]
    if value < uniform_limit(n):
        return value % n
    return Stream(keyed, label).uniform(n)


def first_uniforms(keyed: Keyed, label: str, n: int, count: int, offset: int = 0) -> list[int]:
    """Return the first `count` (1 to 4) values `uniform(n)` of the stream `label`, as a `Stream`
    gives them, read from its first block without making the stream unless a value is rejected;
    `offset` is added to each (1 for dice read from 1)."""
    limit = uniform_limit(n)
    block = _UNPACK_BLOCK(keyed.digest(check_label(label) + _FIRST_SUFFIX))[:count]
    if max(block) < limit:
        return [value % n + offset for value in block]
    stream = Stream(keyed, label)
    return [stream.uniform(n) + offset for _ in range(count)]


@lru_cache(maxsize=256)
def uniform_limit(n: int) -> int:
    """Return the rejection limit of uniform(n): the largest multiple of n not above 2^64."""
    if n < 1 or n > _TWO_64:
        raise DiceError(f"uniform({n}) needs 1 <= n <= 2^64")
    return _TWO_64 - (_TWO_64 % n)


_SPEC = re.compile(r"^(?P<count>[1-9][0-9]*)?d(?P<sides>[1-9][0-9]*)(?P<zero>z)?$")
_RECORD_SPEC = re.compile(
    r"^(?:(?P<count>[1-9][0-9]*)d(?P<sides>[1-9][0-9]*)|uniform\((?P<n>[1-9][0-9]*)\)|shuffle\((?P<size>[0-9]+)\))$"
)


@dataclass(frozen=True)
class DiceSpec:
    """A parsed dice spec: `count` dice of `sides` faces, read from 1 (or from 0 when zero_based)."""

    count: int
    sides: int
    zero_based: bool = False

    @cached_property
    def text(self) -> str:
        """The spec as players write it: `2d6`, `1d10z` for a d10 read 0-9."""
        return f"{self.count}d{self.sides}{'z' if self.zero_based else ''}"

    @cached_property
    def record_spec(self) -> str:
        """The spec as the public record writes it (`2d6`, or `uniform(10)` for 0-based dice)."""
        return f"uniform({self.sides})" if self.zero_based else f"{self.count}d{self.sides}"

    @property
    def lowest(self) -> int:
        return self.count * (0 if self.zero_based else 1)

    @property
    def highest(self) -> int:
        return self.count * (self.sides - 1 if self.zero_based else self.sides)


def parse_spec(spec: str) -> DiceSpec:
    """Parse `kdN` (k dice of N faces, 1..N) or `kdNz` (0..N-1, e.g. `1d10z` for a d10 read 0-9)."""
    if not isinstance(spec, str):
        raise DiceError(f"dice spec {spec!r} is not a text such as 2d6")
    return _parse_spec(spec)


@lru_cache(maxsize=256)
def _parse_spec(spec: str) -> DiceSpec:
    match = _SPEC.match(spec.strip().lower())
    if not match:
        raise DiceError(f"dice spec {spec!r} is not of the form 2d6, 1d10 or 1d10z (a d10 read 0-9)")
    count = int(match["count"] or 1)
    sides = int(match["sides"])
    if count > MAX_DICE:
        raise DiceError(f"dice spec {spec!r} rolls more than {MAX_DICE} dice")
    if sides < 2 or sides > MAX_SIDES:
        raise DiceError(f"dice spec {spec!r} needs between 2 and {MAX_SIDES} faces")
    return DiceSpec(count, sides, bool(match["zero"]))


def derive(key: bytes | Keyed, label: str, record_spec: str, count: int = 1) -> list[int]:
    """Re-derive a public record's values from the phase key, as a verifier does.

    `count` is how many values a `uniform(N)` entry holds; other specs carry their own count.
    A verifier of many rolls passes the key keyed once (`Keyed`): up to four values are then
    read from the stream's first block without making a stream, unless one is rejected.
    """
    kind, number, base = _record_spec(record_spec)
    if kind == "shuffle":
        return Stream(key, label).shuffle(range(number))
    offset = 0 if kind == "uniform" else 1
    wanted = count if kind == "uniform" else number
    if isinstance(key, Keyed) and 0 < wanted <= 4:
        return first_uniforms(key, label, base, wanted, offset)
    stream = Stream(key, label)
    if kind == "uniform":
        return [stream.uniform(base) for _ in range(count)]
    return [stream.uniform(base) + 1 for _ in range(number)]


@lru_cache(maxsize=256)
def _record_spec(record_spec: str) -> tuple[str, int, int]:
    """Return a record spec as (kind, number, base): ("dice", count, sides), ("uniform", 0, n),
    or ("shuffle", size, 0)."""
    match = _RECORD_SPEC.match(record_spec)
    if not match:
        raise DiceError(f"record spec {record_spec!r} is not kdN, uniform(N) or shuffle(N)")
    if match["size"] is not None:
        return "shuffle", int(match["size"]), 0
    if match["n"] is not None:
        return "uniform", 0, int(match["n"])
    return "dice", int(match["count"]), int(match["sides"])
