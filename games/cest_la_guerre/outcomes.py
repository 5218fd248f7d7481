"""After a combat: casualty rolls, falling back, fleeing, destruction and rear panic (L446-L456).

Fall back: 3 cm straight back without turning; friends behind are passed through where the
movement rules let them be (Mounted through Command Units, anyone through Combat Engineers)
or pushed back; otherwise the unit is destroyed. Flee: fall back, turn about, then a full
good-going move straight on. Until table geometry traces swerves, the flight runs straight and
stops short of the first card or bad ground in its way (README: "geometry"); leaving the table
counts as lost, and a river in the way is crossed (a Difficult one needs a 6, or it is the end).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.cest_la_guerre.bound import Bound
from games.cest_la_guerre.data import TABLES
from games.cest_la_guerre.events import public
from games.cest_la_guerre.geometry import (
    CARD_DEPTH,
    along,
    card_rect,
    left_of,
    opposite,
    overlaps,
    rect_of,
    step,
    union,
)
from games.cest_la_guerre.hidden import public_name, reveal, reveal_check
from games.cest_la_guerre.movement import passable, river_condition
from games.cest_la_guerre.relations import flank_rear_enemies, front_enemy
from games.cest_la_guerre.terrain import path_going, rect, rivers_crossed
from games.cest_la_guerre.units import allowance, is_artillery, placed
from games.cest_la_guerre.zones import on_table

Unit = dict[str, Any]
FALL_BACK = CARD_DEPTH


def roll_casualties(b: Bound, unit: Unit, times: int, why: str) -> None:
    """Roll the casualty die `times` times: 1-3 adds a casualty (L446-L448)."""
    if unit["status"] != "table":
        return
    for _ in range(times):
        label = b.label("casualty", str(b.next_number()), unit["marker"])
        assert b.dice is not None
        values = b.dice.roll("1d6", label=label)
        lookup = TABLES.lookup("casualty", values).as_dict()
        hit = lookup["result"] == "casualty"
        unit["casualties"] += 1 if hit else 0
        b.events.append(
            public(
                "casualty",
                f"{public_name(unit)} rolls for casualties ({why}): {values[0]}, "
                + (f"one casualty ({unit['casualties']} now)." if hit else "no casualty."),
                label=label,
                purpose=f"casualty roll for {unit['marker']}",
                lookup=lookup,
                marker=unit["marker"],
            )
        )


def destroy(b: Bound, unit: Unit, why: str, in_combat: bool = True) -> None:
    """Remove a destroyed unit; the friends close behind it flee in panic (L456).

    A face-down card turns up first: its loss counts in the public points lost anyway.
    """
    if unit["status"] != "table" or not reveal(b.state, unit, "it is lost", b.events):
        return
    unit["status"] = "destroyed"
    b.events.append(public("destroyed", f"{public_name(unit)} is destroyed ({why}).", marker=unit["marker"]))
    if in_combat:
        rear_panic(b, unit)


def rear_panic(b: Bound, dead: Mapping[str, Any]) -> None:
    """Every unit within 5 cm behind a unit destroyed in combat flees in disorder and rolls for casualties."""
    depth = b.options["rear_panic_depth_mm"]
    back = opposite(dead["facing"])
    rear_mid = step((dead["x"], dead["y"]), back, CARD_DEPTH // 2)
    far_mid = step(rear_mid, back, depth)
    side = left_of(dead["facing"])
    a, c = step(rear_mid, side, 25), step(far_mid, side, -25)
    strip = (min(a[0], c[0]), min(a[1], c[1]), max(a[0], c[0]), max(a[1], c[1]))
    for unit in list(placed(b.state)):
        if b.options["rear_panic_friends_only"] and unit["owner"] != dead["owner"]:
            continue
        if unit["status"] == "table" and overlaps(strip, rect_of(unit)):
            b.events.append(public("panic", f"{public_name(unit)} panics behind the destroyed {dead['marker']}."))
            flee(b, unit, "rear panic")
            roll_casualties(b, unit, 1, "rear panic")


def _leave_table(b: Bound, unit: Unit, how: str) -> None:
    if not reveal(b.state, unit, "it is lost", b.events):
        return
    unit["status"] = "off_table"
    b.events.append(
        public("off-table", f"{public_name(unit)} {how} off the table: it counts as lost.", marker=unit["marker"])
    )


def _blocked_back(b: Bound, unit: Unit, distance: int) -> tuple[str, Unit | None]:
    """Return what stops a straight move back of `distance`: ("", None) if nothing, else why and by whom."""
    back = opposite(unit["facing"])
    end = step((unit["x"], unit["y"]), back, distance)
    swept = union(rect_of(unit), card_rect(end[0], end[1], unit["facing"]))
    if path_going(b.state, (unit["x"], unit["y"]), end) == "impassable":
        return "impassable terrain behind it", None
    for other in placed(b.state):
        if other is not unit and overlaps(swept, rect_of(other)):
            return ("enemy", other) if other["owner"] != unit["owner"] else ("friend", other)
    return "", None


def fall_back(b: Bound, unit: Unit, why: str) -> bool:
    """Move a unit 3 cm straight back; return whether it is still on the table."""
    if unit["status"] != "table":
        return False
    if front_enemy(b.state, unit) is not None and flank_rear_enemies(b.state, unit):
        destroy(b, unit, "it must fall back while fought in front and on a flank or rear")
        return False
    back = opposite(unit["facing"])
    distance = FALL_BACK
    for _ in range(len(b.state["units"]) + 1):
        end = step((unit["x"], unit["y"]), back, distance)
        if not on_table(b.state, card_rect(end[0], end[1], unit["facing"])):
            _leave_table(b, unit, "falls back")
            return False
        reason, other = _blocked_back(b, unit, distance)
        if not reason:
            break
        if other is None or reason == "enemy":
            destroy(b, unit, f"its fall back is blocked by {other['marker'] if other else reason}")
            return False
        if passable(unit, other):
            distance = _clear_distance(unit, other, back)
            continue
        if other["facing"] == unit["facing"] and not is_artillery(other) and _push(b, other, unit, distance):
            break
        destroy(b, unit, f"its fall back is blocked by {other['marker']}")
        return False
    start = [unit["x"], unit["y"]]
    unit["x"], unit["y"] = step((unit["x"], unit["y"]), back, distance)
    text = f"{public_name(unit)} falls back to ({unit['x']}, {unit['y']}) ({why})."
    b.events.append(public("fall-back", text, marker=unit["marker"], path=[start, [unit["x"], unit["y"]]]))
    reveal_check(b.state, b.events)
    return unit["status"] == "table"


def _clear_distance(unit: Mapping[str, Any], friend: Mapping[str, Any], back: str) -> int:
    """Return how far back `unit` must go to end clear beyond `friend`."""
    return max(FALL_BACK, max_along(rect_of(friend), back) - min_along(rect_of(unit), back))


def _push(b: Bound, friend: Unit, pusher: Mapping[str, Any], distance: int) -> bool:
    """Push a friend facing the same way back far enough to make room; return whether it could be."""
    back = opposite(pusher["facing"])
    pusher_end = card_rect(*step((pusher["x"], pusher["y"]), back, distance), pusher["facing"])
    friend_rect = rect_of(friend)
    shove = max_along(pusher_end, back) - min_along(friend_rect, back)
    if shove <= 0:
        return True
    end = step((friend["x"], friend["y"]), back, shove)
    new_rect = card_rect(end[0], end[1], friend["facing"])
    if not on_table(b.state, new_rect) or path_going(b.state, (friend["x"], friend["y"]), end) == "impassable":
        return False
    swept = union(friend_rect, new_rect)
    if any(o is not friend and o is not pusher and overlaps(swept, rect_of(o)) for o in placed(b.state)):
        return False
    start = [friend["x"], friend["y"]]
    friend["x"], friend["y"] = end
    text = f"{public_name(friend)} is pushed back to ({end[0]}, {end[1]})."
    b.events.append(public("pushed", text, marker=friend["marker"], path=[start, [end[0], end[1]]]))
    return True


def min_along(area: tuple[int, int, int, int], facing: str) -> int:
    """Return the nearest extent of a rectangle in the direction `facing`."""
    return min(along((area[0], area[1]), facing), along((area[2], area[3]), facing))


def max_along(area: tuple[int, int, int, int], facing: str) -> int:
    """Return the farthest extent of a rectangle in the direction `facing`."""
    return max(along((area[0], area[1]), facing), along((area[2], area[3]), facing))


def flee(b: Bound, unit: Unit, why: str) -> None:
    """Fall back, turn about and make a full move away; end in disorder (L454)."""
    if unit["status"] != "table":
        return
    if is_artillery(unit) and b.options["artillery_must_flee"] == "destroyed":
        destroy(b, unit, "artillery that must flee is lost (G-37)")
        return
    if not fall_back(b, unit, why):
        return
    unit["facing"] = opposite(unit["facing"])
    full = allowance({**unit, "disordered": False}, "good")
    if not unit["face_up"]:
        full = min(full, b.options["face_down_allowance_mm"])
    distance, reason = _flight_room(b, unit, full)
    end = step((unit["x"], unit["y"]), unit["facing"], distance)
    if reason == "table edge":
        _leave_table(b, unit, "flees")
        return
    for river in rivers_crossed(b.state, (unit["x"], unit["y"]), end):
        if not _flee_across(b, unit, river):
            return
    start = [unit["x"], unit["y"]]
    unit["x"], unit["y"] = end
    unit["disordered"] = True
    stop = f", stopping short of {reason}" if reason else ""
    b.events.append(
        public(
            "flee",
            f"{public_name(unit)} flees {distance} mm to ({end[0]}, {end[1]}){stop}, now facing {unit['facing']}, "
            "in disorder.",
            marker=unit["marker"],
            path=[start, [end[0], end[1]]],  # for the picture's arrow
        )
    )
    reveal_check(b.state, b.events)


def _flight_room(b: Bound, unit: Mapping[str, Any], full: int) -> tuple[int, str]:
    """Return how far a fleeing unit gets straight ahead, and what stopped it ("" if nothing)."""
    facing = unit["facing"]
    own = rect_of(unit)
    front = max_along(own, facing)
    side = left_of(facing)
    low = min(along((own[0], own[1]), side), along((own[2], own[3]), side))
    high = max(along((own[0], own[1]), side), along((own[2], own[3]), side))
    room, reason = full, ""
    obstacles = [(rect_of(o), o["marker"]) for o in placed(b.state) if o is not unit]
    start = (unit["x"], unit["y"])
    obstacles += [
        (rect(f), f"{f['kind']} {f['id']}")
        for f in b.state["terrain"]
        if f["going"] != "good" and not overlaps(own, rect(f))
    ]
    for area, name in obstacles:
        a_low = min(along((area[0], area[1]), side), along((area[2], area[3]), side))
        a_high = max(along((area[0], area[1]), side), along((area[2], area[3]), side))
        near_edge = min(along((area[0], area[1]), facing), along((area[2], area[3]), facing))
        if a_high <= low or a_low >= high or near_edge < front:
            continue
        if near_edge - front < room:
            room, reason = near_edge - front, name
    end = step(start, facing, room)
    if not on_table(b.state, card_rect(end[0], end[1], facing)):
        return room, "table edge"
    return room, reason


def _flee_across(b: Bound, unit: Unit, river: dict[str, Any]) -> bool:
    """A fleeing unit does not swerve for a river; a Difficult one needs a 6 or it is destroyed (L454)."""
    river_condition(b, river, unit)
    if river["condition"] != "difficult":
        return True
    label = b.label("flee-cross", str(b.next_number()), unit["marker"])
    assert b.dice is not None
    values = b.dice.roll("1d6", label=label)
    lookup = TABLES.lookup("difficult-crossing", values).as_dict()
    if lookup["result"] == "crosses":
        return True
    b.events.append(
        public(
            "river.failed",
            f"{public_name(unit)} flees into the Difficult river {river['id']} and fails to cross ({values[0]}).",
            label=label,
            purpose=f"{unit['marker']} fleeing across river {river['id']}",
            lookup=lookup,
        )
    )
    destroy(b, unit, "lost in the river")
    return False


def apply_results(b: Bound, unit: Unit, results: list[str], why: str) -> None:
    """Carry out the Combat Outcome Chart's results on a unit, moves first, then casualty rolls."""
    if "destroyed" in results:
        destroy(b, unit, why)
        return
    if "flee" in results:
        flee(b, unit, why)
    elif "fall_back" in results:
        fall_back(b, unit, why)
    roll_casualties(b, unit, results.count("casualty"), why)
