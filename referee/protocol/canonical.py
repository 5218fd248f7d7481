"""Canonical JSON and hashing: one byte string per value, so states hash and chain; and strict
JSON reading, so a signed text means one thing to every reader.

The bytes are Python's json module's, which the protocol names (docs/protocol.md). A big phase's
lists (10,000 rolls) go through orjson instead, ten times faster, wherever its bytes are known to
be json's: `_orjson_exact` says when (see there); anything else takes json's way.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any


def canonical_json(value: Any) -> bytes:
    """Return the canonical UTF-8 JSON of `value`: sorted keys, no spaces, no NaN."""
    if type(value) in (dict, list) and _orjson() is not None:
        parts: list[str] = []
        _compact(value, parts)
        return "".join(parts).encode("utf-8")
    return _json_compact(value).encode("utf-8")


def _json_compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


# A value whose JSON is shorter than this is written by json whole when orjson's bytes may differ;
# longer, its items are taken one by one, so that its long lists still go through orjson.
_WORTH_SPLITTING = 16_384


def _compact(value: Any, parts: list[str]) -> None:
    # `value` is a dict or a list.
    written, exact = _orjson_written(value, indent=False)
    if written is not None and exact:
        parts.append(written.decode("utf-8"))
        return
    if written is None or len(written) < _WORTH_SPLITTING:
        parts.append(_json_compact(value))  # json's bytes, or json's error
        return
    if type(value) is dict:
        items = sorted(value.items())  # orjson wrote it: its keys are texts
        openings = ["{" + _quoted(items[0][0]) + ":"] + ["," + _quoted(key) + ":" for key, _ in items[1:]]
        closing = "}"
    else:
        items = list(enumerate(value))
        openings = ["["] + [","] * (len(items) - 1)
        closing = "]"
    for opening, (_, item) in zip(openings, items):
        parts.append(opening)
        if type(item) in (dict, list):
            _compact(item, parts)
        else:
            parts.append(_json_compact(item))
    parts.append(closing)


def sha256_hex(data: bytes) -> str:
    """Return the lower-case hex SHA-256 of `data`."""
    return hashlib.sha256(data).hexdigest()


def stored_json(value: Any) -> str:
    """Return `value` as JSON for the referee's own storage (the journal's log), not for hashing:
    orjson's, or json's where orjson cannot write it (a non-text key, a number past 64 bits).
    Read-only mappings are written as objects, dataclasses (a game's events) by their fields."""
    orjson = _orjson()
    if orjson is not None:
        try:
            return orjson.dumps(value, default=_stored_default, option=orjson.OPT_SORT_KEYS).decode("utf-8")  # type: ignore[no-any-return]
        except orjson.JSONEncodeError:
            pass
    return json.dumps(value, sort_keys=True, default=_stored_default)


def _stored_default(value: Any) -> Any:
    import dataclasses  # deferred with orjson, which loads it anyway

    if isinstance(value, Mapping):
        return dict(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def pretty_json(value: Any) -> bytes:
    """Return human-readable JSON (sorted keys, two-space indent, final newline).

    The bytes are exactly `json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False,
    allow_nan=False)`'s, which signed records already hold; but json with an indent runs its
    pure-Python encoder, a third of a 10,000-roll phase's adjudication. So the layout is written
    here, texts go through json's C escaping, a long list or mapping through orjson where its
    bytes are json's (`_orjson_exact`); anything unusual goes to json itself.
    """
    try:
        parts: list[str] = []
        _pretty(value, "\n", parts)
        text = "".join(parts)
    except (_Unusual, RecursionError):  # a non-text key, a NaN, a cycle, an unknown type: json says
        text = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


def load_pretty_json(data: bytes) -> Any:
    """Return the value of `data` as `load_json` does; faster when `data` is exactly `pretty_json`
    of its value, as every record the referee writes is."""
    value = _load_exact(data, indent=True)
    return load_json(data) if value is _NOT_EXACT else value


def load_canonical_json(data: bytes) -> tuple[Any, bool]:
    """Return the value of `data` as `load_json` does, and whether `data` is its canonical JSON;
    faster when it is."""
    value = _load_exact(data, indent=False)
    if value is not _NOT_EXACT:
        return value, True
    value = load_json(data)
    return value, canonical_json(value) == data


_NOT_EXACT = object()


def _load_exact(data: bytes, indent: bool) -> Any:
    """Return the value of `data` if `data` is byte for byte what json writes for it (with sorted
    keys: compact, or indented by two and a final line break), else _NOT_EXACT.

    orjson reads it, and writes the value back: the same bytes mean the text has no key twice (the
    value would hold it once), no constant json refuses (orjson refuses them all) and is laid out
    as json lays it out, once `_orjson_exact` agrees that json writes these bytes too."""
    orjson = _orjson()
    if orjson is None:
        return _NOT_EXACT
    body = data[:-1] if indent and data.endswith(b"\n") else data
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return _NOT_EXACT
    if (indent and body is data) or _orjson_exact(value, indent, allow_null=True) != body:
        return _NOT_EXACT
    return value


# A list or mapping at least this long is written by orjson in one call; below it the call and its
# checks cost more than they save.
_BIG = 32


def _orjson() -> Any:
    """Return the orjson module, or None where it is not installed (the protocol's checks then run
    on the standard library alone, only slower)."""
    try:
        # Deferred: orjson loads dataclasses, uuid and datetime (13 ms), which `status` and an idle pass never need.
        import orjson
    except ImportError:
        return None
    return orjson


def _orjson_exact(value: Any, indent: bool, allow_null: bool = False) -> bytes | None:
    """Return orjson's JSON of `value` (sorted keys; indented by two if `indent`) when it is byte for
    byte json's, else None (see `_orjson_written`)."""
    written, exact = _orjson_written(value, indent, allow_null)
    return written if exact else None


def _orjson_written(value: Any, indent: bool, allow_null: bool = False) -> tuple[bytes | None, bool]:
    """Return orjson's JSON of `value` (None where orjson refuses it) and whether it is byte for
    byte json's.

    They differ only in floats: orjson writes NaN and the infinities as null, where json refuses
    them, and a float below 1e-4 as 1e-5 or 0.00001, where json writes 1e-05
    (tests/unit/test_pretty_json.py compares them over millions of floats). So bytes holding
    "0.0000", an exponent's "e-" between digits, or null (unless `allow_null`: a value just read
    holds no NaN) are refused; a text holding them only costs the slower way. Types json cannot
    write, or writes otherwise (subclasses, dates, dataclasses), orjson is told to refuse."""
    orjson = _orjson()
    if orjson is None:
        return None, False
    options = (
        orjson.OPT_SORT_KEYS
        | orjson.OPT_PASSTHROUGH_SUBCLASS
        | orjson.OPT_PASSTHROUGH_DATETIME
        | orjson.OPT_PASSTHROUGH_DATACLASS
        | (orjson.OPT_INDENT_2 if indent else 0)
    )
    try:
        data: bytes = orjson.dumps(value, option=options)
    except orjson.JSONEncodeError:
        return None, False
    return data, not ((not allow_null and b"null" in data) or b"0.0000" in data or _small_exponent(data))


def _small_exponent(data: bytes) -> bool:
    """Return whether `data` holds "e-" between two digits: a float's exponent, or a text's."""
    at = data.find(b"e-")
    while at != -1:
        if data[at - 1 : at].isdigit() and data[at + 2 : at + 3].isdigit():
            return True
        at = data.find(b"e-", at + 2)
    return False


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
    elif type(value) in (list, dict) and len(value) >= _BIG:
        written = _orjson_exact(value, indent=True)
        if written is None:
            _pretty_items(value, newline, parts)
        else:
            parts.append(written.decode("utf-8").replace("\n", newline))
    else:
        _pretty_items(value, newline, parts)


def _pretty_items(value: Any, newline: str, parts: list[str]) -> None:
    if isinstance(value, dict):
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
