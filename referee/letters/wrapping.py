"""A plain-text letter's lines: a paragraph broken under 78 columns, as textwrap breaks it."""

from __future__ import annotations

import textwrap
from functools import lru_cache

TEXT_WIDTH = 78  # a plain-text letter's lines, where what they carry can be broken


def wrap(text: str, indent: int = 0, hang: int = 2, width: int = TEXT_WIDTH) -> str:
    """Return `text` (one paragraph) broken into lines of at most `width` columns: the first
    indented by `indent` spaces, the next by `indent + hang`; a word longer than a line (a hash, a
    file name) stays whole on a line of its own. A text with control characters (a player's, in
    an event) is left whole: the letter shows it as it came."""
    if not text.isprintable():  # also every character textwrap turns into a space (\t, \n...)
        return " " * indent + text
    if indent + len(text) <= width and text and text[0] != " " and text[-1] != " ":
        return " " * indent + text  # what textwrap gives a line that fits, without its cost per roll
    return _filled(text, indent, hang, width)


@lru_cache(maxsize=1024)
def _filled(text: str, indent: int, hang: int, width: int) -> str:
    """textwrap's paragraph, remembered: every player's notice wraps the same sentences."""
    return textwrap.fill(
        text,
        width=width,
        initial_indent=" " * indent,
        subsequent_indent=" " * (indent + hang),
        break_long_words=False,
        break_on_hyphens=False,
    )
