"""Canonical JSON and hashing: one byte string per value, so states hash and chain; and strict
JSON reading, so a signed text means one thing to every reader."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any


def canonical_json(value: Any) -> bytes:
    """Return the canonical UTF-8 JSON of `value`: sorted keys, no spaces, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    """Return the lower-case hex SHA-256 of `data`."""
    return hashlib.sha256(data).hexdigest()


def pretty_json(value: Any) -> bytes:
    """Return human-readable JSON (sorted keys, two-space indent, final newline).

    The bytes are exactly `json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False,
    allow_nan=False)`'s, which signed records already hold; but json with an indent runs its
    pure-Python encoder, a third of a 10,000-roll phase's adjudication. So the layout is written
    here and only texts go through json's C escaping; anything unusual goes to json itself.
    """
    try:
        parts: list[str] = []
        _pretty(value, "\n", parts)
        text = "".join(parts)
    except (_Unusual, RecursionError):  # a non-text key, a NaN, a cycle, an unknown type: json says
        text = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


_quoted = getattr(json.encoder, "c_encode_basestring", None) or json.encoder.py_encode_basestring
_INFINITY = float("inf")


class _Unusual(Exception):
    """A value whose JSON `pretty_json` leaves to json.dumps (its errors are json's own)."""


def _finite(value: float) -> str:
    if value != value or value in (_INFINITY, -_INFINITY):
        raise _Unusual
    return float.__repr__(value)


# The JSON of a leaf, by its exact type (a subclass takes the long way, through _pretty).
_LEAVES: dict[type, Any] = {
    str: _quoted,
    int: int.__repr__,
    bool: lambda value: "true" if value else "false",
    type(None): lambda value: "null",
    float: _finite,
}


def _pretty(value: Any, newline: str, parts: list[str]) -> None:
    # `newline` is the line break and indent of the enclosing level; items go one level deeper.
    leaf = _LEAVES.get(type(value))
    if leaf is not None:
        parts.append(leaf(value))
    elif isinstance(value, dict):
        if not value:
            parts.append("{}")
            return
        inner = newline + "  "
        opening = "{" + inner
        for key in value:
            if type(key) is not str:
                raise _Unusual
        for key, item in sorted(value.items()):
            leaf = _LEAVES.get(type(item))
            if leaf is not None:
                parts.append(opening + _quoted(key) + ": " + leaf(item))
            else:
                parts.append(opening + _quoted(key) + ": ")
                _pretty(item, inner, parts)
            opening = "," + inner
        parts.append(newline + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            parts.append("[]")
            return
        inner = newline + "  "
        opening = "[" + inner
        for item in value:
            leaf = _LEAVES.get(type(item))
            if leaf is not None:
                parts.append(opening + leaf(item))
            else:
                parts.append(opening)
                _pretty(item, inner, parts)
            opening = "," + inner
        parts.append(newline + "]")
    elif isinstance(value, str):
        parts.append(_quoted(value))
    elif isinstance(value, bool):  # never: bool cannot be subclassed; here for the order json checks
        parts.append("true" if value else "false")
    elif isinstance(value, int):
        parts.append(int.__repr__(value))
    elif isinstance(value, float):
        parts.append(_finite(value))
    else:
        raise _Unusual


def thaw(value: Any) -> Any:
    """Return a deep, writable copy of plain data: mappings become dicts, sequences lists (the core
    may hand a game a read-only state of mapping proxies and tuples)."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(item) for item in value]
    return value


class _DuplicateKeyError(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # A signed text with a key twice means whatever the reader's JSON library picks.
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKeyError(f"key {key!r} appears twice")
            seen.add(key)
    return result


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def load_json(data: bytes) -> Any:
    """Return the parsed JSON value of `data`; raises ValueError on anything but strict JSON."""
    return json.loads(
        data.decode("utf-8"),
        object_pairs_hook=_no_duplicates,
        parse_constant=_refuse_constant,
    )
