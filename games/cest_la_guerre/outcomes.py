"""After a combat: casualty rolls, falling back, fleeing, destruction and rear panic (L446-L456).

Fall back: 3 cm straight back without turning; friends facing the same way are passed through
where the movement rules let them be (Mounted through Command Units) or pushed back, Combat
Engineers always passed; otherwise, or on meeting an enemy, the unit is destroyed. Flee: fall
back, turn about, then a full good-going move, swerving by the least angle round what blocks it
(retreat.py has the paths); blocked within a quarter turn either way, it is destroyed. Leaving
the table counts as lost, and a river in the way is crossed (a Difficult one needs a 6, or it is
the end).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.cest_la_guerre.bound import Bound
from games.cest_la_guerre.data import TABLES
from games.cest_la_guerre.events import public
from games.cest_la_guerre.geometry import describe_facing, opposite, overlaps, pose_state, quantized, rect_of
from games.cest_la_guerre.hidden import public_name, reveal, reveal_check
from games.cest_la_guerre.movement import river_condition
from games.cest_la_guerre.relations import flank_rear_enemies, front_enemy
from games.cest_la_guerre.retreat import (
    FALL_BACK,
    back_pose,
    clear_distance,
    fall_back_meets,
    flight,
    may_pass_falling_back,
    may_push,
    panic_strip,
    push_blocked,
    shove_needed,
)
from games.cest_la_guerre.terrain import rivers_crossed
from games.cest_la_guerre.units import allowance, is_artillery, placed
from games.cest_la_guerre.zones import on_table

Unit = dict[str, Any]


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
    strip = panic_strip(dead, b.options["rear_panic_depth_mm"])
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


def fall_back(b: Bound, unit: Unit, why: str) -> bool:
    """Move a unit 3 cm straight back; return whether it is still on the table (L452)."""
    if unit["status"] != "table":
        return False
    if front_enemy(b.state, unit) is not None and flank_rear_enemies(b.state, unit):
        destroy(b, unit, "it must fall back while fought in front and on a flank or rear")
        return False
    distance: float = FALL_BACK
    for _ in range(len(b.state["units"]) + 1):
        if not on_table(b.state, rect_of(dict(unit, **_xy(back_pose(unit, distance))))):
            _leave_table(b, unit, "falls back")
            return False
        reason, other = fall_back_meets(b.state, unit, distance)
        if not reason:
            break
        if other is None:
            destroy(b, unit, f"its fall back is blocked by {reason}")
            return False
        if reason == "enemy":
            destroy(b, unit, f"it falls back onto the enemy {other['marker']}")
            return False
        if may_pass_falling_back(unit, other):
            distance = clear_distance(unit, other)
            continue
        if may_push(unit, other, is_artillery(other)) and _push(b, other, unit, distance):
            break
        facing = "" if may_push(unit, other, False) else " (facing another way)"
        destroy(b, unit, f"its fall back is blocked by {other['marker']}{facing}")
        return False
    start = [unit["x"], unit["y"]]
    unit.update(pose_state(*back_pose(unit, distance)))
    text = f"{public_name(unit)} falls back to ({unit['x']}, {unit['y']}) ({why})."
    b.events.append(public("fall-back", text, marker=unit["marker"], path=[start, [unit["x"], unit["y"]]]))
    reveal_check(b.state, b.events)
    return unit["status"] == "table"


def _xy(pose: tuple[float, float, float]) -> dict[str, float]:
    return {"x": pose[0], "y": pose[1]}


def _push(b: Bound, friend: Unit, pusher: Mapping[str, Any], distance: float) -> bool:
    """Push a friend facing the same way back far enough to make room; return whether it could be."""
    shove = shove_needed(pusher, distance, friend)
    if shove <= 0:
        return True
    if push_blocked(b.state, friend, pusher, shove):
        return False
    start = [friend["x"], friend["y"]]
    friend.update(pose_state(*back_pose(friend, shove)))
    text = f"{public_name(friend)} is pushed back to ({friend['x']}, {friend['y']})."
    b.events.append(public("pushed", text, marker=friend["marker"], path=[start, [friend["x"], friend["y"]]]))
    return True


def flee(b: Bound, unit: Unit, why: str) -> None:
    """Fall back, turn about and make a full move away, swerving round what blocks it; end in disorder (L454)."""
    if unit["status"] != "table":
        return
    if is_artillery(unit) and b.options["artillery_must_flee"] == "destroyed":
        destroy(b, unit, "artillery that must flee is lost (G-37)")
        return
    if not fall_back(b, unit, why):
        return
    unit["facing"] = pose_state(unit["x"], unit["y"], opposite(unit["facing"]))["facing"]
    full = allowance({**unit, "disordered": False}, "good")
    if not unit["face_up"]:
        full = min(full, b.options["face_down_allowance_mm"])
    path = flight(b.state, unit, full)
    if path.end is None:
        destroy(b, unit, f"its flight is blocked by {path.blocker} within a quarter turn either way")
        return
    if path.leaves_table:
        _leave_table(b, unit, "flees")
        return
    for river in rivers_crossed(b.state, (unit["x"], unit["y"]), path.end[:2]):
        if not _flee_across(b, unit, river):
            return
    start = [unit["x"], unit["y"]]
    unit.update(pose_state(*path.end))
    unit["disordered"] = True
    swerve = f", swerving {quantized(abs(path.swerve))} degrees" if path.swerve else ""
    b.events.append(
        public(
            "flee",
            f"{public_name(unit)} flees {full} mm to ({unit['x']}, {unit['y']}){swerve}, now facing "
            f"{describe_facing(unit['facing'])}, in disorder.",
            marker=unit["marker"],
            path=[start, [unit["x"], unit["y"]]],  # for the picture's arrow
        )
    )
    reveal_check(b.state, b.events)


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
