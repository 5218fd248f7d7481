"""Text made safe for a terminal, with nothing but the standard library's str (a fast start).

Player text (notes, reasons, file names) reaches the referee's terminal; an escape sequence in it
could rewrite the screen or hide what follows, so `printable` spells out every control and
bidi-override character. It lives apart from `referee.protocol.display` (which re-exports it)
so that `referee status` and `referee run` print through it without that module's imports and
patterns: a translation table is built in microseconds, a pattern compiled in a millisecond.
"""

from __future__ import annotations

# C0 controls but tab and line feed, DEL, C1 controls, the bidi marks, embeddings, overrides and
# isolates, and the line and paragraph separators: each can make a terminal show other text.
_RANGES = [(0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x9F), (0x61C, 0x61C), (0x200E, 0x200F), (0x2028, 0x202E)]
_RANGES += [(0x2066, 0x2069)]
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _spelled(code: int) -> str:
    char = chr(code)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_UNSAFE = {code: _spelled(code) for low, high in _RANGES for code in range(low, high + 1)}
_UNSAFE_ON_ONE_LINE = {**_UNSAFE, 0x09: "\\t", 0x0A: "\\n"}


def printable(text: str, one_line: bool = True) -> str:
    """Return `text` with control and bidi characters spelled out (`\\x1b`, `\\r`, `\\u202e`).

    With `one_line`, line feeds and tabs are spelled out too; otherwise they are kept.
    """
    return text.translate(_UNSAFE_ON_ONE_LINE if one_line else _UNSAFE)
