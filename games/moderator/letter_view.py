"""The view a moderator letter attaches: the view, with the last round's rolls bounded.

A round may roll thousands of dice. Every letter attaching every roll made each player's view
as large as the round, and the letters of a round as large as rolls times players. Beyond
`ROLLS_LISTED` rolls, a letter's view lists none and counts them by player: the report lists
the reader's own rolls in full, and the phase's record holds every roll, with its proof, for
anyone to check. The view stays as large as the game, whatever a round rolls.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from games.moderator.rules import view

ROLLS_LISTED = 100  # a round with at most this many rolls shows them all in every view


def letter_view(state: Mapping[str, Any], player: str | None) -> dict[str, Any]:
    """Return `view(state, player)` with `last_rolls` bounded as the module docstring says."""
    rolls = state["last_rolls"]
    if len(rolls) <= ROLLS_LISTED:
        return view(state, player)
    # Viewed without the rolls: each player's letter would copy all of them only to drop them.
    seen = view({**state, "last_rolls": ()}, player)
    return {**seen, "last_rolls": [], "last_rolls_not_listed": _counted(rolls)}


_last: list[Any] = [None, None]  # the rolls last counted, and their count by player


def _counted(rolls: Any) -> dict[str, int]:
    """Return how many rolls each player made; every player's letter asks of the same rolls,
    which are counted once (a pure function of `rolls`, kept while they are the same object)."""
    if _last[0] is not rolls:
        counted = Counter(_roller(roll["label"]) for roll in rolls)
        _last[:] = [rolls, dict(sorted(counted.items()))]
    return dict(_last[1])


def _roller(label: str) -> str:
    """Return who made a roll, from its label ("roll/PLAYER/..."): "game" for the game's own."""
    kind, _, rest = label.partition("/")
    player, slash, _ = rest.partition("/")
    return player if kind == "roll" and slash else "game"
