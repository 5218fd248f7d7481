"""Step 3 of a bound: moving one card, with every rule a move must keep (L208-L271).

A move names where the card ends: a pose (`to`), a lined-up contact with an enemy card
(`contact`), an overlap of an enemy's flank (`overlap`), or the place directly behind a friend
(`behind`). The referee works out the pose, then checks the allowance (the farthest any corner
travels), the going on the way, rivers, the contact bans and the table; after each move the
reveal test runs (gap G-16).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from games.cest_la_guerre.bound import Bound
from games.cest_la_guerre.data import ROAD_ALLOWANCE, TABLES
from games.cest_la_guerre.events import public
from games.cest_la_guerre.geometry import (
    CARD_WIDTH,
    FACINGS,
    Rect,
    along,
    behind_pose,
    card_rect,
    contact_pose,
    lane_rect,
    left_of,
    offset,
    overlap_pose,
    overlaps,
    pose_of,
    rect_of,
    sweep_hits,
    travel_squared,
)
from games.cest_la_guerre.hidden import public_name, reveal_check
from games.cest_la_guerre.relations import contact_edge, flank_rear_enemies, front_enemy
from games.cest_la_guerre.terrain import (
    LIVE_RIVER,
    path_going,
    rivers_crossed,
    whole_path_on_road,
)
from games.cest_la_guerre.units import (
    allowance,
    by_marker,
    find,
    is_artillery,
    is_mounted,
    placed,
    troop,
    unit_class,
)
from games.cest_la_guerre.zones import on_table

Unit = dict[str, Any]
Pose = tuple[int, int, str]
DESTINATIONS = ("to", "contact", "overlap", "behind")


def destination(b: Bound, unit: Mapping[str, Any], spec: Mapping[str, Any], path: str) -> Pose | None:
    """Return the pose a move order names, or None (refused) when it names none that exists."""
    given = [key for key in DESTINATIONS if key in spec]
    if len(given) != 1:
        b.refuse("illegal.move.destination", path, "give exactly one of to, contact, overlap or behind")
        return None
    key = given[0]
    if key == "to":
        to = spec["to"]
        return to["x"], to["y"], to.get("facing", unit["facing"])
    if key == "behind":
        friend = find(b.state, b.role, spec["behind"])
        if friend is None or friend["status"] != "table" or friend is unit:
            b.refuse(
                "illegal.move.behind", f"{path}.behind", f"no other card of yours {spec['behind']!r} is on the table"
            )
            return None
        return behind_pose(pose_of(friend))
    target = by_marker(b.state, spec[key]["target"])
    if target is None or target["owner"] == b.role or target["status"] != "table":
        b.refuse(
            "illegal.move.target",
            f"{path}.{key}.target",
            f"there is no enemy card {spec[key]['target']!r} on the table (name enemy cards by their markers)",
        )
        return None
    if key == "contact":
        return contact_pose(pose_of(target), spec["contact"]["edge"])
    return overlap_pose(pose_of(target), spec["overlap"]["side"])


def _contact_ban(unit: Mapping[str, Any], enemy: Mapping[str, Any], options: Mapping[str, Any]) -> str | None:
    """Return why `unit` may not move into contact with `enemy` (as far as its owner can know), or None."""
    if is_artillery(unit):
        return "artillery may never move into contact with an enemy (L213)"
    if unit["type"] == "engineers":
        return "Combat Engineers may not move into contact with an enemy (L215)"
    if (
        unit_class(unit) == "infantry"
        and enemy["face_up"]
        and is_mounted(enemy)
        and (options["infantry_contact_mounted"] == "never" or contact_edge(unit, enemy) == "front")
    ):
        return f"infantry may not move into contact with mounted troops such as {public_name(enemy)} (L214, G-45)"
    return None


ZOC_DEPTH = 50  # the zone of control reaches 5 cm straight ahead of an enemy card (L212)


def zone_of_control(state: Mapping[str, Any], enemy: Mapping[str, Any], mover: Mapping[str, Any]) -> Rect | None:
    """Return the inside of the area 5 cm straight ahead of an enemy card, or None when a third card
    stands in it (the rulebook's "unless another unit lies between")."""
    x1, y1, x2, y2 = lane_rect(enemy["x"], enemy["y"], enemy["facing"], CARD_WIDTH, ZOC_DEPTH)
    inner = (x1 + 1, y1 + 1, x2 - 1, y2 - 1)
    if enemy["type"] == "engineers" and enemy["face_up"]:
        return None  # Engineers have no front; a face-down card is treated alike, whatever it is
    if any(other is not enemy and other is not mover and overlaps(inner, rect_of(other)) for other in placed(state)):
        return None
    return inner


def zone_of_control_problem(state: Mapping[str, Any], unit: Mapping[str, Any], start: Pose, end: Pose) -> str | None:
    """Return why a move breaks an enemy's zone of control, or None (L212).

    A move may not pass through the zone except to end lined up on that enemy's front; a card
    that starts in it may only do that or go straight back without turning.
    """
    shift = offset(start, end)
    straight_back = start[2] == end[2] and along(shift, start[2]) <= 0 and along(shift, left_of(start[2])) == 0
    for enemy in placed(state):
        if enemy["owner"] == unit["owner"]:
            continue
        zone = zone_of_control(state, enemy, unit)
        if zone is None:
            continue
        started_in = overlaps(card_rect(*start), zone)
        if not started_in and not sweep_hits(start, end, zone):
            continue
        if end == contact_pose(pose_of(enemy), "front") or (started_in and straight_back):
            continue
        if not started_in and overlaps(card_rect(*end), zone):
            continue
        return f"the move crosses the zone of control in front of {enemy['marker']} (L212)"
    return None


def passable(unit: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    """Return whether `unit` may move through the card `other` (L271; gap G-33 for falling back)."""
    if other["owner"] != unit["owner"]:
        return False
    return other["type"] == "engineers" or (is_mounted(unit) and other["type"] in ("general", "sub_command"))


def _touching(state: Mapping[str, Any], unit: Mapping[str, Any]) -> list[Unit]:
    return [
        other
        for other in placed(state)
        if other["owner"] != unit["owner"] and (contact_edge(unit, other) or contact_edge(other, unit))
    ]


def river_condition(b: Bound, river: dict[str, Any], unit: Mapping[str, Any]) -> None:
    """Roll a river's condition at the first attempt to cross it (L257); the dry run assumes none."""
    if river.get("condition") != "unknown" or b.dice is None:
        return
    label = b.label("river", river["id"])
    values = b.dice.roll("1d6", label=label)
    lookup = TABLES.lookup("river", values).as_dict()
    rivers = [river]
    if b.options["river_roll_scope"] == "per_game":
        rivers = [f for f in b.state["terrain"] if f["kind"] == "river" and f.get("condition") == "unknown"]
    for item in rivers:
        item["condition"] = lookup["result"]
    b.events.append(
        public(
            "river.condition",
            f"{public_name(unit)} is the first to try to cross river {river['id']}: rolled {values[0]}, "
            f"the river is {'not there (no river)' if lookup['result'] == 'none' else lookup['result']}.",
            label=label,
            purpose=f"condition of river {river['id']}",
            lookup=lookup,
            river=river["id"],
            condition=lookup["result"],
        )
    )


def move_allowance(b: Bound, unit: Mapping[str, Any], start: Pose, end: Pose, charge: bool) -> tuple[int, str]:
    """Return the allowance in mm for this path and why, or (-1, reason) when the path is barred."""
    going = path_going(b.state, start[:2], end[:2])
    if going == "impassable":
        return -1, "the path crosses impassable terrain"
    road = whole_path_on_road(b.state, start[:2], end[:2])
    if is_artillery(unit) and going == "bad" and not road:
        return -1, "artillery cannot enter bad going except by road (L232)"
    base = allowance(unit, "good" if road else going)
    why = f"{going} going"
    if road and base:
        base, why = max(base, ROAD_ALLOWANCE), "by road"
    if charge:
        base = base if troop(unit).get("charge") == "full" else base // 2
        why += ", charge"
    if not unit["face_up"]:
        base, why = min(base, b.options["face_down_allowance_mm"]), why + ", face down"
    rivers = [r for r in rivers_crossed(b.state, start[:2], end[:2]) if r.get("condition") in LIVE_RIVER]
    if rivers:
        if is_artillery(unit) and b.options["artillery_crosses_rivers"] == "at_crossings":
            return -1, "artillery crosses a river only at a ford, bridge or road"
        base, why = min(base, b.options["river_crossing_allowance_mm"]), why + ", crossing a river"
    return base, why


def move_card(b: Bound, unit: Unit, pose: Pose, path: str, charge: bool = False, declared: str | None = None) -> bool:
    """Move one card to `pose` if every rule allows; return whether it was carried out (or tried)."""
    state, options = b.state, b.options
    if unit["status"] != "table":
        b.refuse("illegal.move.absent", path, f"{unit['id']} is not on the table")
        return False
    if charge:
        if not unit["moved_bound"] or unit["charged"]:
            b.refuse("illegal.move.charge", path, "a charge is a second move: the card must have moved this bound")
            return False
        if unit["type"] not in options["charge_types"]:
            b.refuse(
                "illegal.move.charge", path, f"{unit['id']} may not charge (only {', '.join(options['charge_types'])})"
            )
            return False
        if declared != "contact":
            b.refuse("illegal.move.charge", path, "a charge must end in contact with the enemy (L237): use contact")
            return False
    elif unit["moved_bound"]:
        b.refuse("illegal.move.again", path, f"{unit['id']} has already moved this bound (one move each, G-19)")
        return False
    if unit.get("disordered"):
        b.refuse("illegal.move.disordered", path, f"{unit['id']} is in disorder: it may only reorder (1 IP)")
        return False
    if unit.get("in_square"):
        b.refuse("illegal.move.square", path, f"{unit['id']} is in a Square: leave the Square first")
        return False
    if front_enemy(state, unit) is not None and flank_rear_enemies(state, unit):
        b.refuse(
            "illegal.move.pinned",
            path,
            f"{unit['id']} is fought in front and on a flank or rear: it cannot move (L208)",
        )
        return False
    if pose[2] not in FACINGS:
        b.refuse("illegal.move.facing", path, "facing is north, east, south or west")
        return False
    start = pose_of(unit)
    rect = card_rect(*pose)
    if not on_table(state, rect):
        b.refuse("illegal.move.table", path, f"({pose[0]}, {pose[1]}) would put {unit['id']} partly off the table")
        return False
    for other in placed(state):
        if other is not unit and overlaps(rect, rect_of(other)):
            b.refuse("illegal.move.overlap", path, f"{unit['id']} would overlap {other['marker']}")
            return False
    for other in placed(state):
        if other is not unit and not passable(unit, other) and sweep_hits(start, pose, rect_of(other)):
            b.refuse(
                "illegal.move.through",
                path,
                f"{unit['id']} would pass through {other['marker']} (L271: only Mounted through Command Units, "
                "and anyone through Combat Engineers, of their own side)",
            )
            return False
    zoc = zone_of_control_problem(state, unit, start, pose)
    if zoc:
        b.refuse("illegal.move.zoc", path, zoc)
        return False
    unknown = [r for r in rivers_crossed(state, start[:2], pose[:2]) if r.get("condition") == "unknown"]
    for river in unknown:
        river_condition(b, river, unit)
    surprised = not b.dry and any(r["condition"] in LIVE_RIVER for r in unknown)
    limit, why = move_allowance(b, unit, start, pose, charge)
    travel = travel_squared(start, pose)
    if surprised and (limit < 0 or travel > limit * limit):
        # The river turned out to be there only now: the card stops on the near bank (G-15).
        b.events.append(public("move.stopped", f"{public_name(unit)} stops at the river bank: {why}."))
        unit["moved_bound"] = True
        return True
    if limit < 0:
        b.refuse("illegal.move.terrain", path, why)
        return False
    if travel > limit * limit:
        b.refuse(
            "illegal.move.too-far",
            path,
            f"{unit['id']} may move {limit} mm here ({why}) but its farthest corner would travel about "
            f"{_root(travel)} mm",
        )
        return False
    ghost = {**unit, "x": pose[0], "y": pose[1], "facing": pose[2]}
    for enemy in _touching(state, ghost):
        ban = _contact_ban(ghost, enemy, options)
        if ban:
            b.refuse("illegal.move.contact", path, ban)
            return False
    if not _crossed(b, unit, start, pose):
        unit["moved_bound"] = True
        return True
    unit.update(x=pose[0], y=pose[1], facing=pose[2], moved_bound=True, charged=charge or unit["charged"])
    if start[:2] != pose[:2]:
        unit["moved_round"] = True
    verb = "charges" if charge else "moves"
    b.events.append(
        public(
            "move",
            f"{public_name(unit)} {verb} to ({pose[0]}, {pose[1]}) facing {pose[2]}.",
            marker=unit["marker"],
            x=pose[0],
            y=pose[1],
            facing=pose[2],
            path=[[start[0], start[1]], [pose[0], pose[1]]],  # for the picture's arrow
        )
    )
    reveal_check(state, b.events)
    if unit["status"] == "table":
        _undo_banned_contact(b, unit, start)
    return True


def _crossed(b: Bound, unit: Mapping[str, Any], start: Pose, end: Pose) -> bool:
    """Roll a 6 for each Difficult river crossed (L260); return whether the card gets across."""
    for river in rivers_crossed(b.state, start[:2], end[:2]):
        if river.get("condition") != "difficult" or b.dice is None:
            continue
        label = b.label("cross", river["id"], unit["marker"])
        values = b.dice.roll("1d6", label=label)
        lookup = TABLES.lookup("difficult-crossing", values).as_dict()
        if lookup["result"] != "crosses":
            b.events.append(
                public(
                    "river.failed",
                    f"{public_name(unit)} fails to cross the Difficult river {river['id']} (rolled {values[0]}, "
                    "needs 6): it stays on the near bank and its move is over.",
                    label=label,
                    purpose=f"{unit['marker']} crossing river {river['id']}",
                    lookup=lookup,
                )
            )
            return False
        b.events.append(
            public(
                "river.crossed",
                f"{public_name(unit)} gets across the Difficult river {river['id']} (rolled 6).",
                label=label,
                purpose=f"{unit['marker']} crossing river {river['id']}",
                lookup=lookup,
            )
        )
    return True


def _undo_banned_contact(b: Bound, unit: Unit, start: Pose) -> None:
    """Send a card back where it started if a card it touched turned up as one it may not contact."""
    for enemy in _touching(b.state, unit):
        ban = _contact_ban(unit, enemy, b.options)
        if ban:
            unit.update(x=start[0], y=start[1], facing=start[2])
            b.events.append(public("move.undone", f"{public_name(unit)} goes back to ({start[0]}, {start[1]}): {ban}."))
            return


def _root(square: int) -> int:
    return math.isqrt(square - 1) + 1 if square else 0
