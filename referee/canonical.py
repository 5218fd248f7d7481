"""Canonical JSON and hashing: one byte string per value, so states hash and chain."""

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
