"""Bombardment (turn sequence steps 3 and 7), read on the referee's bombardment table.

The rulebook file lacks the bombardment rules (p. 17). Until the referee supplies the table,
a fire order is refused with a message naming it. Once supplied, each artillery base fires
once at an enemy base; the table's result (no-effect, recoil, recoil-shaken or broken) applies
to the target as a combat result does, and a general with the target base is at risk.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.polemos_obb.combat import apply_result
from games.polemos_obb.generals import capture_roll, risk_to_general
from games.polemos_obb.model import arm_of, army_of_base, is_standing, side_of, side_of_base, standing_bases
from games.polemos_obb.options import (
    COMBAT,
    REFEREE_CAN_SUPPLY,
    game_tables,
    missing_table_message,
    require_table,
    setting,
)
from games.polemos_obb.resolution import Resolution
from games.polemos_obb.table import TOUCH_MM, bd, bw, enemies_of, go_back, in_bw, on_table, range_to
from referee.kit import Problem


def gun_range(state: Mapping[str, Any]) -> float | None:
    """Return a gun's range in mm (option bombardment_range, on the referee's table), or None: no range known."""
    reach = setting(state, "bombardment_range")
    return reach * bw(state) if reach is not None and on_table(state) else None


def targets_in_range(state: Mapping[str, Any], battery: str) -> list[tuple[str, float]]:
    """Return the enemy bases before `battery`'s front within its range, nearest first, with their distances (mm)."""
    reach = gun_range(state)
    if reach is None or "pose" not in state["bases"][battery]:
        return []
    found = [(enemy, range_to(state, battery, enemy)) for enemy in enemies_of(state, battery)]
    return sorted(((e, d) for e, d in found if d is not None and d <= reach + TOUCH_MM), key=lambda t: (t[1], t[0]))


def guns_of(state: Mapping[str, Any], army: str) -> list[str]:
    """Return the army's artillery bases on the field."""
    return [
        b
        for d in state["armies"][army]["divisions"]
        for b in standing_bases(state, d)
        if arm_of(state, b) == "artillery"
    ]


def can_fire(state: Mapping[str, Any], army: str) -> bool:
    """Return whether one of the army's guns may fire: with a range known, at a target within it."""
    guns = guns_of(state, army)
    if gun_range(state) is None:
        return bool(guns)
    return any(targets_in_range(state, gun) for gun in guns)


def fire_problems(state: Mapping[str, Any], army: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return what is wrong with an army's bombardment orders."""
    fire = orders.get("fire", [])
    if not fire:
        return []
    tables = game_tables(state)
    if "bombardment" not in tables:
        return [
            Problem(
                "illegal.table-missing.bombardment",
                "orders.fire",
                missing_table_message("bombardment") + "; " + REFEREE_CAN_SUPPLY,
            )
        ]
    table = tables.get("bombardment")
    problems = []
    fired: set[str] = set()
    for index, entry in enumerate(fire):
        path = f"orders.fire[{index}]"
        battery, target = entry["battery"], entry["target"]
        if (
            battery not in state["bases"]
            or army_of_base(state, battery) != army
            or arm_of(state, battery) != "artillery"
            or not is_standing(state, battery)
        ):
            problems.append(
                Problem("illegal.fire.battery", f"{path}.battery", f"{battery!r} is not one of your guns on the field")
            )
        elif battery in fired:
            problems.append(Problem("illegal.fire.twice", f"{path}.battery", f"{battery} fires once a bombardment"))
        fired.add(battery)
        if (
            target not in state["bases"]
            or side_of_base(state, target) == side_of(state, army)
            or not is_standing(state, target)
        ):
            problems.append(
                Problem("illegal.fire.target", f"{path}.target", f"{target!r} is not an enemy base on the field")
            )
        elif problem := _range_problem(state, army, battery, target, f"{path}.target"):
            problems.append(problem)
        strays = [m for m in entry.get("modifiers", []) if m not in table.modifiers]
        if strays:
            known = ", ".join(table.modifiers) or "none"
            problems.append(
                Problem(
                    "illegal.fire.modifier",
                    f"{path}.modifiers",
                    f"unknown modifier(s) {strays}; the table has: {known}",
                )
            )
    return problems


def _range_problem(state: Mapping[str, Any], army: str, battery: str, target: str, path: str) -> Problem | None:
    """Return why a gun cannot reach its target (option bombardment_range), or None."""
    reach = gun_range(state)
    if reach is None or battery not in guns_of(state, army) or target in dict(targets_in_range(state, battery)):
        return None
    distance = range_to(state, battery, target)
    where = "behind its front" if distance is None else f"{in_bw(state, distance)} away"
    in_reach = ", ".join(e for e, _ in targets_in_range(state, battery)) or "none"
    return Problem(
        "illegal.fire.out-of-range",
        path,
        f"{target} is {where}: {battery} reaches {in_bw(state, reach)} before its front "
        f"(option bombardment_range); its targets in range: {in_reach}",
    )


def resolve_fire(r: Resolution, army: str, orders: Mapping[str, Any]) -> None:
    """Fire an army's guns, in the order given."""
    state = r.state
    for entry in orders.get("fire", []):
        table = require_table(state, "bombardment")
        battery, target = entry["battery"], entry["target"]
        if not is_standing(state, target):
            r.say(
                "bombardment.fire",
                f"{battery} has no target: {target} is no longer on the field.",
                {"battery": battery, "target": target},
            )
            continue
        column = state["bases"][battery]["type"] if table.columns else None
        lookup = r.read(
            "bombardment",
            label=f"bombardment/{battery}",
            purpose=f"{battery} fires at {target}",
            modifiers=entry.get("modifiers", []),
            column=column,
        )
        outcome = None if lookup.result == "no-effect" else apply_result(state, target, str(lookup.result))
        moved = {}
        if outcome and on_table(state):  # the combat chart's distances (L403, L506): the file lacks p. 17's
            distance = COMBAT["broken_back_bw"] * bw(state) if outcome == "broken" else COMBAT["recoil_bd"] * bd(state)
            moved = {"move": go_back(state, target, distance)}
        r.say(
            "bombardment.fire",
            f"{battery} fires at {target}: {lookup.natural}"
            + "".join(f" {n} {v:+d}" for n, v in lookup.modifiers)
            + f" = {lookup.modified}: {lookup.result}"
            + (f"; {target} is now {state['bases'][target]['state']}." if outcome else "."),
            {
                "battery": battery,
                "target": target,
                "lookup": lookup.as_dict(),
                "outcome": outcome,
                "state_after": state["bases"][target]["state"],
                **moved,
            },  # fmt: skip
        )
        for general_id in sorted(
            g for g, rec in state["generals"].items() if rec["with_base"] == target and rec["status"] == "active"
        ):
            breaks = outcome == "broken"
            risk_to_general(r, general_id, target, breaks, f"bombardment/{battery}", f"{target} was fired upon")
            if breaks and state["generals"][general_id]["status"] == "active":
                capture_roll(r, general_id, f"bombardment/{battery}", f"{target} broke")
