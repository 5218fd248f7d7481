"""Initiative Points: what a move costs (L186-L191, L235-L251; gap G-19).

One IP moves a card, a Command Group, a Column or a Line. Each of these adds one: artillery in
the move that is in no Command Group; all of the move in the General's sight but more than
50 cm from him; all of it out of his sight and more than 20 cm away; the General lost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.cest_la_guerre.formations import in_any_group
from games.cest_la_guerre.geometry import gap_squared, rect_of
from games.cest_la_guerre.terrain import centre, los_clear
from games.cest_la_guerre.units import GONE, find, is_artillery, units_of

FAR_IN_SIGHT = 500
FAR_OUT_OF_SIGHT = 200


def general_of(state: Mapping[str, Any], role: str) -> dict[str, Any] | None:
    """Return the side's General card, or None if it has none."""
    return next((u for u in units_of(state, role) if u["type"] == "general"), None)


def move_cost(
    state: Mapping[str, Any], start: Mapping[str, Any], role: str, cards: Sequence[Mapping[str, Any]]
) -> tuple[int, list[str]]:
    """Return the IP cost of moving `cards` as one move, and the reasons for each point.

    Command Group membership is read at the start of movement (`start`); sight and distance
    from the General now.
    """
    reasons = ["1 for the move"]
    extra = []
    if any(is_artillery(c) and not _grouped(start, c) for c in cards):
        extra.append("+1 artillery outside any Command Group")
    general = general_of(state, role)
    if general is None or general["status"] in GONE:
        extra.append("+1 the General is lost")
    elif general["status"] != "table":
        extra.append("+1 out of the General's sight (he is not on the table)")
    else:
        sights = [
            (los_clear(state, centre(general), centre(c)), gap_squared(rect_of(general), rect_of(c))) for c in cards
        ]
        if all(seen and gap > FAR_IN_SIGHT**2 for seen, gap in sights):
            extra.append("+1 all more than 50 cm from the General")
        if all(not seen and gap > FAR_OUT_OF_SIGHT**2 for seen, gap in sights):
            extra.append("+1 all out of the General's sight and more than 20 cm away")
    if not state["options"]["ip_surcharges_stack"]:
        extra = extra[:1]
    return 1 + len(extra), reasons + extra


def _grouped(start: Mapping[str, Any], card: Mapping[str, Any]) -> bool:
    then = find(start, card["owner"], card["id"])
    return then is not None and then["status"] == "table" and in_any_group(start, then)
