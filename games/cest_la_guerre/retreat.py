"""The paths of post-combat moves on the table: falling back and fleeing (L452-L456).

Pure geometry over the state; outcomes.py carries the results out (destruction, dice, events).

Fall back: 3 cm straight back without turning. What the card meets on the way is judged on the
area it sweeps: an enemy it was not already touching (ending exactly against an enemy's front
counts: it meets that enemy), ground it cannot cross, or a friend it may neither pass through
nor push back. Friends are passed or pushed only when they face the same way, except Combat
Engineers, whom anyone may pass (L452); which friends may be passed are the movement rules'
(L271: Mounted through Command Units, anyone through Engineers; gap G-33).

Flee: after the fall back and the turn about, a full move straight on, swerving by the least
angle that clears enemies, friends it may not pass through and bad or impassable ground (never a
river); any gap, however small, will do, so touching is not meeting. With nothing clear within a
quarter turn either way the unit is destroyed; it never stops short (L454; gap G-32).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from shapely.geometry.base import BaseGeometry

from games.cest_la_guerre.geometry import (
    CARD_DEPTH,
    CARD_WIDTH,
    TOUCH_MM,
    Pose,
    card_rect,
    extent,
    gap,
    lane_rect,
    opposite,
    overlaps,
    pose_of,
    rect_of,
    same_facing,
    step,
    swept,
    turned,
)
from games.cest_la_guerre.movement import passable
from games.cest_la_guerre.terrain import GOING_ORDER, rect
from games.cest_la_guerre.units import placed
from games.cest_la_guerre.zones import on_table

Unit = dict[str, Any]
FALL_BACK = CARD_DEPTH
MOST_SWERVE = 90  # degrees either side of straight on a fleeing unit may turn to get clear


def back_pose(unit: Mapping[str, Any], distance: float) -> Pose:
    """Return where a card ends going `distance` straight back without turning."""
    x, y, facing = pose_of(unit)
    return (*step((x, y), opposite(facing), distance), facing)


def fall_back_meets(state: Mapping[str, Any], unit: Mapping[str, Any], distance: float) -> tuple[str, Unit | None]:
    """Return what a straight fall back of `distance` meets first: ("", None) for nothing, ("enemy", card),
    ("friend", card), or (why, None) for ground it cannot cross."""
    start = pose_of(unit)
    end = back_pose(unit, distance)
    area = swept(start, end)
    for feature in state["terrain"]:
        if feature["going"] == "impassable" and overlaps(area, rect(feature)):
            return f"impassable {feature['kind']} {feature['id']} behind it", None
    start_shape, end_shape = card_rect(*start), card_rect(*end)
    for other in placed(state):
        if other is unit:
            continue
        shape = rect_of(other)
        if other["owner"] != unit["owner"]:
            already = gap(start_shape, shape) <= TOUCH_MM
            if overlaps(area, shape) or (not already and gap(end_shape, shape) <= TOUCH_MM):
                return "enemy", other
        elif overlaps(area, shape):
            return "friend", other
    return "", None


def may_pass_falling_back(unit: Mapping[str, Any], friend: Mapping[str, Any]) -> bool:
    """Return whether a card falling back may pass through `friend` (L452: Engineers always; others only
    when facing the same way, and only those the movement rules let it pass)."""
    if friend["type"] == "engineers":
        return passable(unit, friend)
    return same_facing(friend["facing"], unit["facing"]) and passable(unit, friend)


def may_push(unit: Mapping[str, Any], friend: Mapping[str, Any], is_artillery: bool) -> bool:
    """Return whether a card falling back may push `friend` back (same facing, not artillery, L452)."""
    return same_facing(friend["facing"], unit["facing"]) and not is_artillery


def clear_distance(unit: Mapping[str, Any], friend: Mapping[str, Any]) -> float:
    """Return how far back `unit` must go to end clear beyond `friend` it passes through."""
    back = opposite(unit["facing"])
    return max(FALL_BACK, extent(rect_of(friend), back)[1] - extent(rect_of(unit), back)[0])


def shove_needed(pusher: Mapping[str, Any], distance: float, friend: Mapping[str, Any]) -> float:
    """Return how far `friend` must be pushed back so that `pusher`, falling back `distance`, ends clear."""
    back = opposite(pusher["facing"])
    pusher_end = card_rect(*back_pose(pusher, distance))
    return extent(pusher_end, back)[1] - extent(rect_of(friend), back)[0]


def push_blocked(state: Mapping[str, Any], friend: Mapping[str, Any], pusher: Mapping[str, Any], shove: float) -> bool:
    """Return whether pushing `friend` back `shove` mm is impossible (off the table, ground, another card)."""
    end = back_pose(friend, shove)
    if not on_table(state, card_rect(*end)):
        return True
    area = swept(pose_of(friend), end)
    if any(f["going"] == "impassable" and overlaps(area, rect(f)) for f in state["terrain"]):
        return True
    return any(o is not friend and o is not pusher and overlaps(area, rect_of(o)) for o in placed(state))


class Flight(NamedTuple):
    """A fleeing unit's path: where it ends, by how much it swerved, and whether it leaves the table.

    `end` is None when every direction within a quarter turn is blocked; `blocker` then names
    what stood straight ahead.
    """

    end: Pose | None
    swerve: float
    leaves_table: bool
    blocker: str
    area: BaseGeometry | None


def flight(state: Mapping[str, Any], unit: Mapping[str, Any], distance: float) -> Flight:
    """Return the path of a unit fleeing `distance` from its pose (already turned about).

    Straight on first, then 1, 2, ... degrees either way, at equal angles first the way the option
    `flee_swerve_first` says (G-32), the card turning in place to its new direction before it runs.
    """
    start = pose_of(unit)
    start_shape = card_rect(*start)
    ground = [
        (rect(f), f"{f['kind']} {f['id']}")
        for f in state["terrain"]
        if GOING_ORDER[f["going"]] > GOING_ORDER["good"] and not overlaps(start_shape, rect(f))
    ]
    cards = [
        (rect_of(o), str(o["marker"]))
        for o in placed(state)
        if o is not unit and (o["owner"] != unit["owner"] or not passable(unit, o))
    ]
    first_blocker = ""
    first = 1 if state["options"].get("flee_swerve_first", "clockwise") == "clockwise" else -1
    for swerve in _swerves(first):
        facing = turned(start[2], swerve)
        turned_pose = (start[0], start[1], facing)
        end = (*step(start[:2], facing, distance), facing)
        area = swept(start, turned_pose).union(swept(turned_pose, end))
        blocker = next((name for shape, name in [*cards, *ground] if overlaps(area, shape)), "")
        if not blocker:
            end_shape = card_rect(*end)
            if not on_table(state, end_shape):
                return Flight(end, swerve, True, "", area)
            if not any(overlaps(end_shape, rect_of(o)) for o in placed(state) if o is not unit):
                return Flight(end, swerve, False, "", area)
            blocker = "a card where it would end"
        first_blocker = first_blocker or blocker
    return Flight(None, 0, False, first_blocker, None)


def _swerves(first: int) -> list[int]:
    order = [0]
    for angle in range(1, MOST_SWERVE + 1):
        order += [first * angle, -first * angle]
    return order


def panic_strip(dead: Mapping[str, Any], depth: float) -> BaseGeometry:
    """Return the strip `depth` mm deep behind a card, as wide as the card (L456)."""
    x, y, facing = pose_of(dead)
    behind = opposite(facing)
    return lane_rect(x, y, behind, CARD_WIDTH, depth)
