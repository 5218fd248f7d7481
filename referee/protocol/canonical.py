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
    """Return human-readable JSON (sorted keys, two-space indent, final newline)."""
    text = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


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
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKeyError(f"key {key!r} appears twice")
        result[key] = value
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
