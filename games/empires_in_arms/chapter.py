"""Chapter 12.0's options and the numbers it fixes, read once from data/chapter12.yaml."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.kit import GameDataError, load_data

PACKAGE = "games.empires_in_arms"
_DATA = load_data(PACKAGE, "chapter12.yaml")
RULES: dict[str, dict[str, str]] = _DATA["options"]  # option key -> {rule, title}
CONSTANTS: dict[str, Any] = _DATA["constants"]


def rule_of(option: str) -> str:
    """Return the chapter's rule number of an option key ("12.3.4" for guard_commitment)."""
    return RULES[option]["rule"]


def parse_rules(options: Mapping[str, Any]) -> dict[str, bool]:
    """Return every chapter 12.0 option as on or off (off unless the game's options switch it on:
    the book's options are off by default); raise GameDataError for a value that is not true/false."""
    found = {}
    for key in RULES:
        value = options.get(key, False)
        if not isinstance(value, bool):
            raise GameDataError(
                f"option {key!r} (rule {rule_of(key)}) must be true or false, got {value!r}",
                hints=(f"write {key}: true to play with rule {rule_of(key)}",),
            )
        found[key] = value
    return found
