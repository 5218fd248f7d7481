"""Copying states: the core may hand `resolve` a read-only state (mapping proxies, tuples)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def thaw(value: Any) -> Any:
    """Return a deep, writable copy of plain data: mappings become dicts, sequences lists."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(item) for item in value]
    return value
