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
from games.polemos_obb.model import arm_of, army_of_base, is_standing, side_of, side_of_base
from games.polemos_obb.options import COMBAT, REFEREE_CAN_SUPPLY, game_tables, missing_table_message, require_table
from games.polemos_obb.resolution import Resolution
from games.polemos_obb.table import bd, bw, go_back, on_table
from referee.kit import Problem


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
