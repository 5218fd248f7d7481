"""Step 3 of a bound: moving one card, with every rule a move must keep (L208-L271).

A move names where the card ends: a pose (`to`), a lined-up contact with an enemy card
(`contact`), an overlap of an enemy's flank (`overlap`), the place directly behind a friend
(`behind`), or a wheel about a front corner (`wheel`); all but a wheel may go by way of
waypoints (`via`). The referee works out the route, the area the card sweeps along it and the
farthest any part of the card travels (L208), then checks the allowance, the going on the whole
swept area (G-41), rivers, friends passed through (L271), zones of control (L212), the contact
bans and the table; after each move the reveal test runs (gap G-16).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from shapely.geometry.base import BaseGeometry

from games.cest_la_guerre.bound import Bound
from games.cest_la_guerre.data import ROAD_ALLOWANCE, TABLES
from games.cest_la_guerre.events import public
from games.cest_la_guerre.geometry import (
    CARD_WIDTH,
    COMPASS,
    Pose,
    Vector,
    along,
    behind_pose,
    card_rect,
    contact_pose,
    contains_point,
    corners,
    describe_facing,
    facing_of,
    is_facing,
    kept,
    lane_rect,
    left_of,
    leg_travel,
    near,
    offset,
    overlap_pose,
    overlaps,
    pose_of,
    pose_state,
    quantized,
    rect_of,
    same_facing,
    swept,
    turned,
    wheel_pose,
    wheel_sweep,
)
from games.cest_la_guerre.hidden import public_name, reveal_check
from games.cest_la_guerre.relations import contact_edge, flank_cover, flank_rear_enemies, front_enemy
from games.cest_la_guerre.terrain import GOING_ORDER, LIVE_RIVER, rect, rivers_crossed
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
DESTINATIONS = ("to", "contact", "overlap", "behind", "wheel")
MAX_WAYPOINTS = 10


class Route(NamedTuple):
    """Where a move ends, the waypoints of the card's centre on the way, or the wheel it makes."""

    end: Pose
    via: tuple[Vector, ...] = ()
    wheel: tuple[str, float, Vector | None] | None = None


class Sweep(NamedTuple):
    """What a route covers: the area swept, the farthest any part of the card travels, its centre's path."""

    area: BaseGeometry
    length: float
    path: tuple[Vector, ...]


def sweep(start: Pose, route: Route) -> Sweep:
    """Return the area a card sweeps on its route and how far its farthest-moving part goes.

    Through waypoints the card keeps its facing, sliding from one to the next, and takes its final
    facing on the last leg, turning evenly as it goes; each corner's path is measured, turns
    included, the legs add up, and the corner that goes farthest counts. A wheel is measured along
    the arc of the corner farthest from the pivot (L208).
    """
    if route.wheel is not None:
        area, length = wheel_sweep(start, *route.wheel)
        return Sweep(area, length, (start[:2], route.end[:2]))
    poses = [start, *((x, y, start[2]) for x, y in route.via), route.end]
    legs = list(zip(poses, poses[1:], strict=False))
    area = swept(*legs[0])
    for leg in legs[1:]:
        area = area.union(swept(*leg))
    return Sweep(area, sum(leg_travel(a, b) for a, b in legs), tuple(p[:2] for p in poses))


def destination(b: Bound, unit: Mapping[str, Any], spec: Mapping[str, Any], path: str) -> Route | None:
    """Return the route a move order names, or None (refused) when it names none that exists."""
    given = [key for key in DESTINATIONS if key in spec]
    if len(given) != 1:
        b.refuse("illegal.move.destination", path, "give exactly one of to, contact, overlap, behind or wheel")
        return None
    key = given[0]
    via = _waypoints(b, spec.get("via"), f"{path}.via")
    if via is None:
        return None
    if key == "wheel":
        if via:
            b.refuse("illegal.move.via", f"{path}.via", "a wheel has no waypoints: wheel, then move in another action")
            return None
        wheel = spec["wheel"]
        degrees = wheel.get("degrees")
        if wheel.get("pivot") not in ("left", "right") or not _number(degrees) or not -360 < degrees < 360:
            b.refuse(
                "illegal.move.wheel",
                f"{path}.wheel",
                "a wheel names its pivot (left or right: the front corner that stays) and its degrees "
                "(clockwise positive, e.g. {pivot: right, degrees: 45})",
            )
            return None
        about = _line_pivot(b, wheel, f"{path}.wheel.about")
        if about is False:
            return None
        centre = about if isinstance(about, tuple) else None
        end = wheel_pose(pose_of(unit), wheel["pivot"], degrees, centre)
        return Route(kept(end), (), (wheel["pivot"], float(degrees), centre))
    if key == "to":
        to = spec["to"]
        facing = to.get("facing", unit["facing"])
        if not is_facing(facing):
            b.refuse(
                "illegal.move.facing",
                f"{path}.to.facing",
                f"facing is a bearing in degrees (0 north, 90 east) or one of {', '.join(COMPASS)}",
            )
            return None
        return Route(kept((to["x"], to["y"], facing_of(facing))), via)
    if key == "behind":
        friend = find(b.state, b.role, spec["behind"])
        if friend is None or friend["status"] != "table" or friend is unit:
            b.refuse(
                "illegal.move.behind", f"{path}.behind", f"no other card of yours {spec['behind']!r} is on the table"
            )
            return None
        return Route(kept(behind_pose(pose_of(friend))), via)
    target = by_marker(b.state, spec[key]["target"])
    if target is None or target["owner"] == b.role or target["status"] != "table":
        b.refuse(
            "illegal.move.target",
            f"{path}.{key}.target",
            f"there is no enemy card {spec[key]['target']!r} on the table (name enemy cards by their markers)",
        )
        return None
    if key == "contact":
        return Route(kept(contact_pose(pose_of(target), spec["contact"]["edge"])), via)
    return Route(kept(overlap_pose(pose_of(target), spec["overlap"]["side"])), via)


def _line_pivot(b: Bound, wheel: Mapping[str, Any], path: str) -> tuple[float, float] | bool | None:
    """Return the corner a card wheels about when it wheels with a Line (`about`: the Line's end card,
    whose front corner on the pivot side stays put), None for its own corner, or False (refused)."""
    if "about" not in wheel:
        return None
    end = find(b.start or b.state, b.role, wheel["about"])
    if end is None or end["status"] != "table":
        b.refuse("illegal.move.wheel", path, f"{wheel['about']!r} is not a card of yours on the table")
        return False
    corner = "front-left" if wheel["pivot"] == "left" else "front-right"
    return corners(*pose_of(end))[corner]


def line_wheel_about_its_end(cards: Sequence[Mapping[str, Any]], items: Sequence[Any]) -> list[Any]:
    """Return a Line's moves with every wheel made about the Line's end card on the pivot side (L206:
    the Line wheels as one, through the same angle), unless the orders name the card themselves."""
    wheels = [item.get("wheel") if isinstance(item, Mapping) else None for item in items]
    if not cards or not all(isinstance(w, Mapping) and w.get("pivot") in ("left", "right") for w in wheels):
        return list(items)
    pivot = wheels[0]["pivot"]  # type: ignore[index]
    first = pose_of(cards[0])
    side = left_of(first[2]) if pivot == "left" else turned(first[2], 90)
    end = max(cards, key=lambda c: along((float(c["x"]), float(c["y"])), side))
    return [
        item if "about" in item["wheel"] else {**item, "wheel": {**item["wheel"], "about": end["id"]}} for item in items
    ]


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _waypoints(b: Bound, given: Any, path: str) -> tuple[Vector, ...] | None:
    """Return the waypoints of a move's `via`, or None (refused) when they are not [[x, y], ...]."""
    if given is None:
        return ()
    if (
        not isinstance(given, list)
        or len(given) > MAX_WAYPOINTS
        or not all(isinstance(p, list) and len(p) == 2 and all(_number(v) for v in p) for p in given)
    ):
        b.refuse(
            "illegal.move.via",
            path,
            f"via is a list of up to {MAX_WAYPOINTS} points [x, y] the card's centre passes on its way, "
            "e.g. [[400, 200], [450, 260]]",
        )
        return None
    return tuple((float(x), float(y)) for x, y in given)


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
        and (
            options["infantry_contact_mounted"] == "never" or contact_edge(unit, enemy, flank_cover(options)) == "front"
        )
    ):
        return f"infantry may not move into contact with mounted troops such as {public_name(enemy)} (L214, G-45)"
    return None


ZOC_DEPTH = 50  # the zone of control reaches 5 cm straight ahead of an enemy card (L212)


def zone_of_control(
    state: Mapping[str, Any], enemy: Mapping[str, Any], mover: Mapping[str, Any]
) -> BaseGeometry | None:
    """Return the area 5 cm straight ahead of an enemy card, or None when a third card stands in it
    (the rulebook's "unless another unit lies between")."""
    zone = lane_rect(enemy["x"], enemy["y"], enemy["facing"], CARD_WIDTH, ZOC_DEPTH)
    if enemy["type"] == "engineers" and enemy["face_up"]:
        return None  # Engineers have no front; a face-down card is treated alike, whatever it is
    if any(other is not enemy and other is not mover and overlaps(zone, rect_of(other)) for other in placed(state)):
        return None
    return zone


def same_pose(a: Pose, b: Pose) -> bool:
    """Return whether two poses are the same within the touching tolerances."""
    return near(a[0], b[0]) and near(a[1], b[1]) and same_facing(a[2], b[2])


def zone_of_control_problem(
    state: Mapping[str, Any], unit: Mapping[str, Any], start: Pose, route: Route, area: BaseGeometry
) -> str | None:
    """Return why a move breaks an enemy's zone of control, or None (L212).

    A move may not pass through the zone except to end lined up on that enemy's front; a card
    that starts in it may only do that or go straight back without turning or deviating.
    """
    end = route.end
    shift = offset(start, end)
    straight_back = (
        route.wheel is None
        and not route.via
        and same_facing(start[2], end[2])
        and along(shift, start[2]) <= 0
        and near(along(shift, left_of(start[2])), 0)
    )
    for enemy in placed(state):
        if enemy["owner"] == unit["owner"]:
            continue
        zone = zone_of_control(state, enemy, unit)
        if zone is None:
            continue
        started_in = overlaps(card_rect(*start), zone)
        if not started_in and not overlaps(area, zone):
            continue
        if same_pose(end, contact_pose(pose_of(enemy), "front")) or (started_in and straight_back):
            continue
        if not started_in and overlaps(card_rect(*end), zone) and not _leaves_and_reenters(route, zone):
            continue
        return f"the move crosses the zone of control in front of {enemy['marker']} (L212)"
    return None


def _leaves_and_reenters(route: Route, zone: BaseGeometry) -> bool:
    """Return whether a route through waypoints passes a zone on an earlier leg than the one it ends in."""
    return any(overlaps(card_rect(x, y, route.end[2]), zone) for x, y in route.via)


def passable(unit: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    """Return whether `unit` may move through the card `other` (L271; gap G-33 for falling back)."""
    if other["owner"] != unit["owner"]:
        return False
    return other["type"] == "engineers" or (is_mounted(unit) and other["type"] in ("general", "sub_command"))


def _touching(state: Mapping[str, Any], unit: Mapping[str, Any]) -> list[Unit]:
    cover = flank_cover(state["options"])
    return [
        other
        for other in placed(state)
        if other["owner"] != unit["owner"] and (contact_edge(unit, other, cover) or contact_edge(other, unit, cover))
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


def swept_going(state: Mapping[str, Any], area: BaseGeometry) -> str:
    """Return the worst going any feature under the swept area has (G-41: the most restrictive applies)."""
    worst = "good"
    for feature in state["terrain"]:
        if GOING_ORDER[feature["going"]] > GOING_ORDER[worst] and overlaps(area, rect(feature)):
            worst = feature["going"]
    return worst


def rivers_on(state: Mapping[str, Any], centre_path: Sequence[Vector]) -> list[dict[str, Any]]:
    """Return the rivers the card's centre crosses on its path, each once, in the order met."""
    found: list[dict[str, Any]] = []
    for a, b in zip(centre_path, centre_path[1:], strict=False):
        for river in rivers_crossed(state, a, b):
            if all(river is not seen for seen in found):
                found.append(river)
    return found


def _on_one_road(state: Mapping[str, Any], centre_path: Sequence[Vector]) -> bool:
    """Return whether one road holds the whole path (gap G-42: only then the road rate)."""
    return any(f["kind"] == "road" and all(contains_point(rect(f), p) for p in centre_path) for f in state["terrain"])


def move_allowance(
    b: Bound, unit: Mapping[str, Any], route: Route, charge: bool, covered: Sweep | None = None
) -> tuple[int, str]:
    """Return the allowance in mm for this route and why, or (-1, reason) when the path is barred."""
    covered = covered or sweep(pose_of(unit), route)
    going = swept_going(b.state, covered.area)
    if going == "impassable":
        return -1, "the path crosses impassable terrain"
    road = _on_one_road(b.state, covered.path)
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
    rivers = [r for r in rivers_on(b.state, covered.path) if r.get("condition") in LIVE_RIVER]
    if rivers:
        if is_artillery(unit) and b.options["artillery_crosses_rivers"] == "at_crossings":
            return -1, "artillery crosses a river only at a ford, bridge or road"
        base, why = min(base, b.options["river_crossing_allowance_mm"]), why + ", crossing a river"
    return base, why


def move_card(
    b: Bound, unit: Unit, route: Route | Pose, path: str, charge: bool = False, declared: str | None = None
) -> bool:
    """Move one card along `route` if every rule allows; return whether it was carried out (or tried)."""
    state, options = b.state, b.options
    if not isinstance(route, Route):
        route = Route(kept(route))
    pose = route.end
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
    start = pose_of(unit)
    rect = card_rect(*pose)
    if not on_table(state, rect):
        b.refuse(
            "illegal.move.table",
            path,
            f"({quantized(pose[0])}, {quantized(pose[1])}) would put {unit['id']} partly off the table",
        )
        return False
    for other in placed(state):
        if other is not unit and overlaps(rect, rect_of(other)):
            b.refuse("illegal.move.overlap", path, f"{unit['id']} would overlap {other['marker']}")
            return False
    covered = sweep(start, route)
    for other in placed(state):
        if other is not unit and not passable(unit, other) and overlaps(covered.area, rect_of(other)):
            b.refuse(
                "illegal.move.through",
                path,
                f"{unit['id']} would pass through {other['marker']} on its way (L271: only Mounted through "
                "Command Units, and anyone through Combat Engineers, of their own side)",
            )
            return False
    zoc = zone_of_control_problem(state, unit, start, route, covered.area)
    if zoc:
        b.refuse("illegal.move.zoc", path, zoc)
        return False
    unknown = [r for r in rivers_on(state, covered.path) if r.get("condition") == "unknown"]
    for river in unknown:
        river_condition(b, river, unit)
    surprised = not b.dry and any(r["condition"] in LIVE_RIVER for r in unknown)
    limit, why = move_allowance(b, unit, route, charge, covered)
    length = covered.length
    too_far = length > limit + TRAVEL_SLACK
    if surprised and (limit < 0 or too_far):
        # The river turned out to be there only now: the card stops on the near bank (G-15).
        b.events.append(public("move.stopped", f"{public_name(unit)} stops at the river bank: {why}."))
        unit["moved_bound"] = True
        return True
    if limit < 0:
        b.refuse("illegal.move.terrain", path, why)
        return False
    if too_far:
        b.refuse(
            "illegal.move.too-far",
            path,
            f"{unit['id']} may move {limit} mm here ({why}) but its farthest-moving part would travel about "
            f"{math.ceil(length - TRAVEL_SLACK)} mm",
        )
        return False
    ghost = {**unit, **pose_state(*pose)}
    for enemy in _touching(state, ghost):
        ban = _contact_ban(ghost, enemy, options)
        if ban:
            b.refuse("illegal.move.contact", path, ban)
            return False
    if not _crossed(b, unit, covered.path):
        unit["moved_bound"] = True
        return True
    unit.update(pose_state(*pose), moved_bound=True, charged=charge or unit["charged"])
    if not (near(start[0], pose[0]) and near(start[1], pose[1])) or route.wheel is not None or route.via:
        unit["moved_round"] = True
    verb = "charges" if charge else "moves"
    b.events.append(
        public(
            "move",
            f"{public_name(unit)} {verb} {_how(route)}to ({unit['x']}, {unit['y']}) facing "
            f"{describe_facing(unit['facing'])}.",
            marker=unit["marker"],
            x=unit["x"],
            y=unit["y"],
            facing=unit["facing"],
            path=drawn_path(start, route),  # for the picture's arrow
        )
    )
    reveal_check(state, b.events)
    if unit["status"] == "table":
        _undo_banned_contact(b, unit, start)
    return True


TRAVEL_SLACK = 0.5  # mm a measured length may exceed the allowance by: the kept precision of poses


ARC_STEP = 10.0  # degrees between the points of a wheel's arrow in the picture


def drawn_path(start: Pose, route: Route) -> list[list[int | float]]:
    """Return the points a card's centre passes on its route, for the picture's arrow: the start,
    each waypoint and the end, or points along a wheel's arc (every ARC_STEP degrees)."""
    if route.wheel is not None:
        pivot, degrees, about = route.wheel
        count = max(1, math.ceil(abs(degrees) / ARC_STEP))
        points = [wheel_pose(start, pivot, degrees * i / count, about)[:2] for i in range(count)]
        points.append(route.end[:2])
    else:
        points = [start[:2], *route.via, route.end[:2]]
    return [[quantized(x), quantized(y)] for x, y in points]


def _how(route: Route) -> str:
    if route.wheel is not None:
        pivot, degrees, about = route.wheel
        where = f"the {pivot} end of its Line" if about is not None else f"its front-{pivot} corner"
        sense = "clockwise" if degrees > 0 else "anticlockwise"
        return f"wheeling {quantized(abs(degrees))} degrees {sense} about {where} "
    if route.via:
        return "by way of " + ", ".join(f"({quantized(x)}, {quantized(y)})" for x, y in route.via) + " "
    return ""


def _crossed(b: Bound, unit: Mapping[str, Any], centre_path: Sequence[Vector]) -> bool:
    """Roll a 6 for each Difficult river crossed (L260); return whether the card gets across."""
    for river in rivers_on(b.state, centre_path):
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
            unit.update(pose_state(*start))
            b.events.append(
                public(
                    "move.undone",
                    f"{public_name(unit)} goes back to ({unit['x']}, {unit['y']}): {ban}.",
                )
            )
            return
