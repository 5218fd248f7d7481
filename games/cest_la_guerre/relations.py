"""How cards on the table touch: contacts, overlaps and rear support, derived from their poses.

Players declare a contact ("my B3 charges the front of R5"); the referee places the card lined
up (geometry.contact_pose), and from then on every relation is read off the poses, never typed
in (L325-L327, L384), at any facing, within TOUCH_MM and FACING_TOLERANCE. Combat Engineers have
no front: every edge of theirs counts as rear (L291).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.cest_la_guerre.geometry import (
    CARD_DEPTH,
    CARD_WIDTH,
    TOUCH_MM,
    along,
    left_of,
    near,
    offset,
    opposite,
    pose_of,
    right_of,
    same_facing,
)
from games.cest_la_guerre.units import placed

Unit = dict[str, Any]
# How far a flank attacker's centre may lie from the flank's middle, along it, by option
# flank_contact (S-12): "whole", its front edge covers the whole flank (front corners level at
# most); "half", it covers at least half of it, as when one card's front meets the flanks of two
# cards one behind the other (L325).
FLANK_REACH = {"whole": CARD_WIDTH / 2 - CARD_DEPTH / 2, "half": CARD_WIDTH / 2}


REACH = CARD_WIDTH + CARD_DEPTH  # no two cards whose centres are farther apart on either axis can touch


def close(a: Mapping[str, Any], b: Mapping[str, Any], reach: int) -> bool:
    """Return whether two cards' centres are within `reach` mm on both axes (a quick first test)."""
    return abs(a["x"] - b["x"]) <= reach and abs(a["y"] - b["y"]) <= reach


def flank_cover(options: Mapping[str, Any]) -> str:
    """Return how much of a flank a flank contact covers (option flank_contact; absent in games begun earlier)."""
    return str(options.get("flank_contact", "whole"))


def _edge_against(
    attacker: Mapping[str, Any], target: Mapping[str, Any], facing: Any, cover: str = "half"
) -> str | None:
    """Return which edge of a card facing `facing` (at target's place) the attacker's front edge is against."""
    a, t = pose_of(attacker), (target["x"], target["y"], facing)
    rel = offset(t, a)
    ahead, left = along(rel, facing), along(rel, left_of(facing))
    if same_facing(a[2], opposite(facing)) and near(ahead, CARD_DEPTH) and near(left, 0):
        return "front"
    if same_facing(a[2], facing) and near(ahead, -CARD_DEPTH) and near(left, 0):
        return "rear"
    reach = CARD_WIDTH / 2 + CARD_DEPTH / 2
    slide = FLANK_REACH[cover] + TOUCH_MM
    if same_facing(a[2], right_of(facing)) and near(left, reach) and abs(ahead) <= slide:
        return "left"
    if same_facing(a[2], left_of(facing)) and near(left, -reach) and abs(ahead) <= slide:
        return "right"
    return None


def contact_edge(attacker: Mapping[str, Any], target: Mapping[str, Any], cover: str = "half") -> str | None:
    """Return the edge of `target` that `attacker`'s front edge is lined up against, or None
    (`cover`: how much of a flank a flank contact covers, see flank_cover).

    Every contact on Combat Engineers is a rear contact.
    """
    if attacker["owner"] == target["owner"] or not close(attacker, target, REACH):
        return None
    if target["type"] == "engineers":
        return "rear" if _edge_against(attacker, target, target["facing"], cover) else None
    return _edge_against(attacker, target, target["facing"], cover)


def contacts_on(state: Mapping[str, Any], target: Mapping[str, Any]) -> list[tuple[Unit, str]]:
    """Return the enemy cards whose front edge touches `target`, with the edge each is against."""
    found = []
    cover = flank_cover(state["options"])
    for unit in placed(state):
        edge = contact_edge(unit, target, cover) if unit["owner"] != target["owner"] else None
        if edge:
            found.append((unit, edge))
    return found


def front_enemy(state: Mapping[str, Any], unit: Mapping[str, Any]) -> Unit | None:
    """Return the enemy in frontal contact with `unit` (front edge to front edge), or None."""
    return next((e for e, edge in contacts_on(state, unit) if edge == "front"), None)


def flank_rear_enemies(state: Mapping[str, Any], unit: Mapping[str, Any]) -> list[Unit]:
    """Return the enemies in contact with `unit`'s flanks or rear."""
    return [e for e, edge in contacts_on(state, unit) if edge != "front"]


def in_melee(state: Mapping[str, Any], unit: Mapping[str, Any]) -> bool:
    """Return whether a card touches an enemy, or an enemy touches it, in any contact."""
    if contacts_on(state, unit):
        return True
    cover = flank_cover(state["options"])
    return any(contact_edge(unit, other, cover) for other in placed(state) if other["owner"] != unit["owner"])


def overlaps_on(state: Mapping[str, Any], target: Mapping[str, Any]) -> list[tuple[Unit, str]]:
    """Return the enemies overlapping `target`'s flanks (front corners touching or sides alongside)."""
    found = []
    facing = target["facing"]
    contacted = {edge for _, edge in contacts_on(state, target)}
    for unit in placed(state):
        if (
            unit["owner"] == target["owner"]
            or not same_facing(unit["facing"], opposite(facing))
            or not close(unit, target, CARD_WIDTH + TOUCH_MM)
        ):
            continue
        rel = offset(pose_of(target), pose_of(unit))
        ahead, left = along(rel, facing), along(rel, left_of(facing))
        if not -TOUCH_MM <= ahead <= CARD_DEPTH + TOUCH_MM:
            continue
        for side, wanted in (("left", CARD_WIDTH), ("right", -CARD_WIDTH)):
            if near(left, wanted) and side not in contacted:
                found.append((unit, side))
    return found


def directly_behind(state: Mapping[str, Any], front: Mapping[str, Any]) -> Unit | None:
    """Return the friend lined up directly behind `front`, facing the same way and touching, or None."""
    for unit in placed(state):
        if (
            unit is front
            or unit["owner"] != front["owner"]
            or not same_facing(unit["facing"], front["facing"])
            or not close(unit, front, CARD_DEPTH + TOUCH_MM)
        ):
            continue
        rel = offset(pose_of(front), pose_of(unit))
        if near(along(rel, front["facing"]), -CARD_DEPTH) and near(along(rel, left_of(front["facing"])), 0):
            return unit
    return None


def rear_supporters(state: Mapping[str, Any], attacker: Mapping[str, Any], depth: int) -> list[Unit]:
    """Return up to `depth` Regular Infantry lined up behind a Regular Infantry attacker (L384, L879)."""
    found: list[Unit] = []
    if attacker["type"] != "reg_inf" or attacker.get("disordered"):
        return found
    current: Mapping[str, Any] = attacker
    while len(found) < depth:
        behind = directly_behind(state, current)
        if behind is None or behind["type"] != "reg_inf":
            break
        found.append(behind)
        current = behind
    return found


def side_by_side(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Return whether b stands beside a, same facing, front corners touching."""
    if not same_facing(a["facing"], b["facing"]):
        return False
    rel = offset(pose_of(a), pose_of(b))
    return near(along(rel, a["facing"]), 0) and near(abs(along(rel, left_of(a["facing"]))), CARD_WIDTH)
