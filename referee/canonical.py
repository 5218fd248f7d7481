"""Canonical JSON and hashing: one byte string per value, so states hash and chain."""

from __future__ import annotations

import hashlib
import json
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
