"""Winning and losing (L458-L460): at the end of every Round (gap G-44), a side that has lost at
least 15 points (the agreed level: option loss_threshold) and more than the enemy loses.

Points lost are the cost of cards destroyed or gone off the table; casualties do not count, nor
(by default) dummies or a reserve that never came (gaps G-17, G-18).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.cest_la_guerre.data import show_points
from games.cest_la_guerre.events import public
from games.cest_la_guerre.units import units_of


def lost_statuses(options: Mapping[str, Any]) -> frozenset[str]:
    """Return the statuses of the cards whose points count as lost (and so are public)."""
    counted = {"destroyed", "off_table"}
    if options["dummies_count_as_lost"]:
        counted.add("removed")
    if options["unarrived_reserve_lost"]:
        counted.add("reserve")
    return frozenset(counted)


def points_lost(state: Mapping[str, Any], role: str) -> int:
    """Return a side's losses in half-points."""
    counted = lost_statuses(state["options"])
    return sum(unit["cost"] for unit in units_of(state, role) if unit["status"] in counted)


def victory_check(state: dict[str, Any], events: list[dict[str, Any]], when: str) -> bool:
    """Check for a loser; record the result and return True when the battle is over."""
    threshold = state["options"]["loss_threshold"] * 2
    first, second = state["roles"]
    lost = {role: points_lost(state, role) for role in state["roles"]}
    shown = f"{first} has lost {show_points(lost[first])} points, {second} {show_points(lost[second])}"
    loser = next(
        (r for r, other in ((first, second), (second, first)) if lost[r] >= threshold and lost[r] > lost[other]),
        None,
    )
    if loser is None:
        events.append(
            public(
                "victory.check",
                f"Victory check ({when}): {shown}; the battle goes on (a side loses at "
                f"{state['options']['loss_threshold']} points lost and more than the enemy).",
                lost={r: show_points(v) for r, v in lost.items()},
            )
        )
        return False
    winner = second if loser == first else first
    state["result"] = {"winner": winner, "loser": loser, "lost": {r: show_points(v) for r, v in lost.items()}}
    state["stage"] = "over"
    events.append(
        public(
            "victory",
            f"Victory check ({when}): {shown}. {loser} has lost {show_points(lost[loser])} points, at least "
            f"{state['options']['loss_threshold']} and more than {winner}: {winner} wins the battle.",
            winner=winner,
            loser=loser,
        )
    )
    return True
