"""Checking the scenes a game hands its letters to draw (a table's picture, a board): the first
fault is raised as a GameDataError naming its path, with the format's documentation as the hint.

Apart from `tabletop.picture` so that checking a board does not load shapely.
"""

from __future__ import annotations

import re
from typing import Any

from referee.errors import GameDataError

COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
MAX_TEXT = 80


class SceneCheck:
    """The checks of one scene format, each raising with that format's hint."""

    def __init__(self, hint: str) -> None:
        self.hint = hint

    def require(self, ok: Any, at: str, fault: str) -> None:
        if not ok:
            raise GameDataError(f"{at} {fault}", hints=(self.hint,))

    def text(self, value: Any, at: str, empty: bool = False) -> None:
        self.require(isinstance(value, str) and (empty or value), at, "is not a text")
        self.require(len(value) <= MAX_TEXT, at, f"is longer than {MAX_TEXT} characters")

    def named_colours(self, entries: dict[str, Any], at: str) -> None:
        """Check each entry of a mapping is a name and a colour (a scene's sides, a board's states)."""
        for key, entry in entries.items():
            where = f"{at}.{key}"
            self.require(isinstance(entry, dict), where, "is not a mapping of name and colour")
            self.text(entry.get("name"), f"{where}.name")
            colour = entry.get("colour")
            self.require(isinstance(colour, str) and COLOUR.fullmatch(colour), f"{where}.colour", "is not #rrggbb")
