"""Fog of war: face-down cards, dummies and markers (L144, L162; gaps G-16, G-17).

The opponent knows a face-down card only by its marker and pose. A marker (B1, R7...) is given
when a card is placed, numbered in order of position on the table, so it says nothing of what
the card is. A card turns face up when an enemy unit comes within the reveal distance (25 cm),
when its owner turns it, or when it fights; a dummy that would turn up is removed instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.cest_la_guerre.events import public
from games.cest_la_guerre.geometry import rect_of, within
from games.cest_la_guerre.units import describe, is_dummy, placed

Unit = dict[str, Any]


def public_name(unit: Mapping[str, Any]) -> str:
    """Return how anyone may name a placed card: its marker, and what it is once face up."""
    if unit.get("face_up") and not is_dummy(unit):
        return f"{unit['marker']} ({describe(unit)})"
    return f"{unit['marker']} (face-down card)"


def assign_markers(state: dict[str, Any], cards: Sequence[Unit]) -> None:
    """Give newly placed cards their markers, numbered by position (west to east, then south to north)."""
    side = state["sides"][cards[0]["owner"]] if cards else None
    if side is None:
        return
    prefix = state["marker_prefix"][cards[0]["owner"]]
    for card in sorted(cards, key=lambda c: (c["x"], c["y"])):
        side["markers"] += 1
        card["marker"] = f"{prefix}{side['markers']}"


def reveal(state: dict[str, Any], unit: Unit, reason: str, events: list[dict[str, Any]]) -> bool:
    """Turn a face-down card up (a dummy is removed); return whether the card is still on the table."""
    if unit["face_up"]:
        return True
    if is_dummy(unit):
        unit["status"] = "removed"
        events.append(
            public(
                "dummy.removed",
                f"{unit['marker']} was a dummy ({reason}): it is removed from the table.",
                marker=unit["marker"],
                owner=unit["owner"],
            )
        )
        return False
    unit["face_up"] = True
    events.append(
        public(
            "card.revealed",
            f"{unit['marker']} turns face up ({reason}): {describe(unit)}.",
            marker=unit["marker"],
            owner=unit["owner"],
            type=unit["type"],
            grade=unit["grade"],
        )
    )
    return True


def spots(observer: Mapping[str, Any], state: Mapping[str, Any]) -> bool:
    """Return whether a card can make enemy cards turn up: any unit, and a dummy only by option."""
    return not is_dummy(observer) or bool(state["options"]["dummies_reveal_enemies"])


def reveal_check(state: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """Turn up every face-down card within the reveal distance of an enemy unit (both ways, no LOS)."""
    distance = state["options"]["reveal_distance_mm"]
    changed = True
    while changed:
        changed = False
        on_table = list(placed(state))
        for card in on_table:
            if card["face_up"] or card["status"] != "table":
                continue
            spotter = next(
                (
                    enemy
                    for enemy in on_table
                    if enemy["owner"] != card["owner"]
                    and enemy["status"] == "table"
                    and spots(enemy, state)
                    and within(rect_of(card), rect_of(enemy), distance)
                ),
                None,
            )
            if spotter is not None:
                # A spotter still face down is not named: that it can spot would say it is no dummy.
                who = spotter["marker"] if spotter["face_up"] else "an enemy card"
                reveal(state, card, f"within {distance // 10} cm of {who}", events)
                changed = True
