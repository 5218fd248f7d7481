"""Showing what someone else wrote: values as YAML a player would write them, and text made
safe for a terminal.

A refusal quotes the value it refuses; Python's reprs (`True`, `{'a': 1}`) are not what the
player wrote, and a value of thousands of characters drowns the message, so `shown` writes a
value in YAML flow style and cuts it. Player text (notes, reasons, file names) reaches the
referee's terminal; an escape sequence in it could rewrite the screen or hide what follows,
so `printable` (`referee.protocol.terminal`, re-exported here) spells out every control and
bidi-override character.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping

from referee.protocol.terminal import printable as printable  # re-exported: callers import it from here

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a fast start)
if TYPE_CHECKING:
    from typing import Any

SHOWN_LIMIT = 80
ELLIPSIS = "..."
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


def shown(value: Any, limit: int = SHOWN_LIMIT) -> str:
    """Return `value` as a player writes it in YAML flow style (`true`, `{a: 1}`, `"text"`), at
    most `limit` characters (cut with an ellipsis), safe for a terminal."""
    pieces: list[str] = []
    budget = [limit + 1]  # one over the limit tells a cut value from one that just fits
    _flow(value, pieces, budget)
    text = "".join(pieces)
    if len(text) > limit:
        text = text[: max(limit - len(ELLIPSIS), 0)] + ELLIPSIS
    return text


def _flow(value: Any, out: list[str], budget: list[int]) -> None:
    """Append the flow-style pieces of `value` to `out` until the budget is spent (bounded work
    however large the value is)."""
    if budget[0] <= 0:
        return
    if isinstance(value, Mapping):
        _put("{", out, budget)
        for index, (key, item) in enumerate(value.items()):
            if budget[0] <= 0:
                return
            if index:
                _put(", ", out, budget)
            _put(_key(key), out, budget)
            _put(": ", out, budget)
            _flow(item, out, budget)
        _put("}", out, budget)
    elif isinstance(value, (list, tuple)):
        _put("[", out, budget)
        for index, item in enumerate(value):
            if budget[0] <= 0:
                return
            if index:
                _put(", ", out, budget)
            _flow(item, out, budget)
        _put("]", out, budget)
    else:
        _put(_scalar(value, budget[0]), out, budget)


def _put(piece: str, out: list[str], budget: list[int]) -> None:
    piece = piece[: budget[0]]
    out.append(piece)
    budget[0] -= len(piece)


def _key(key: Any) -> str:
    if isinstance(key, str) and _PLAIN_KEY.fullmatch(key) and key not in _YAML_WORDS:
        return key
    return _scalar(key, SHOWN_LIMIT)


_YAML_WORDS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "True", "False", "Null", "NULL", "~"})


def _scalar(value: Any, room: int) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if value.bit_length() > 64:  # str() of a huge int is slow, and nobody reads its digits
            return "a whole number with more than 19 digits"
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(value)
    if isinstance(value, str):
        cut = value[: room + 1]
        return printable(json.dumps(cut, ensure_ascii=False))
    return "(a value that is not plain data)"
