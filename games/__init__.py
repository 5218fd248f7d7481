"""The installed games, listed explicitly (the core finds a game by id here).

Each game's package is imported when first asked for: `GAMES` imports them all, `PACKAGES` names
each one's by id, so that a command on one game loads that game alone (some read their data files
at import: cest-la-guerre's take 70 ms, which `referee status` of a moderator game need not pay).
"""

from __future__ import annotations

import importlib
from typing import Any

# Game id -> its package, in the order GAMES lists them.
PACKAGES = {
    "moderator": "games.moderator",
    "polemos-obb": "games.polemos_obb",
    "cest-la-guerre": "games.cest_la_guerre",
    "empires-in-arms": "games.empires_in_arms",
    "cockpit-of-europe": "games.cockpit_of_europe",
    "clash-of-sovereigns": "games.clash_of_sovereigns",
}


def __getattr__(name: str) -> Any:
    """Make `GAMES` (every installed game module, in PACKAGES' order) on first use."""
    if name == "GAMES":
        found = tuple(importlib.import_module(package).GAME for package in PACKAGES.values())
        globals()["GAMES"] = found
        return found
    raise AttributeError(f"module 'games' has no attribute {name!r}")
