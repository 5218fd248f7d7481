"""The sequence of play (L160-L176): Rounds of two bounds, the High scorer first. Each bound is a
movement phase (the phasing player alone) and, when anything could shoot or is in contact, a
combat phase in which both players name their shots (gap G-04: in both bounds by default).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.cest_la_guerre.data import WEAPONS
from games.cest_la_guerre.events import public
from games.cest_la_guerre.geometry import (
    CARD_DEPTH,
    along,
    distance_ahead,
    extent,
    lateral_overlap,
    pose_of,
    rect_of,
    step,
)
from games.cest_la_guerre.relations import contacts_on
from games.cest_la_guerre.units import can_shoot, is_artillery, placed, weapon_range
from games.cest_la_guerre.victory import victory_check
from referee.kit import Dice

BOUND_FLAGS = {"moved_bound": False, "charged": False, "rallied": False, "shots": 0}


def start_bound(state: dict[str, Any], role: str, dice: Dice, events: list[dict[str, Any]]) -> None:
    """Open a player's bound: clear the bound's marks and roll Initiative Points (L168; gap G-01)."""
    state["phasing"] = role
    state["stage"] = "move"
    for unit in state["units"]:
        unit.update(BOUND_FLAGS)
    side = state["sides"][role]
    saved = side["ip"] - side["ip_spent"] if state["options"]["ip_carry_over"] and state["round"] > 1 else 0
    label = f"r{state['round']}/{role}/ip"
    rolled = sum(dice.roll(state["options"]["ip_dice"], label=label))
    side.update(ip=rolled + max(0, saved), ip_spent=0)
    kept = f" (+{saved} kept)" if saved > 0 else ""
    events.append(
        public(
            "initiative",
            f"Round {state['round']}, {role}'s bound: {role} rolls {rolled} Initiative "
            f"Point{'' if rolled == 1 else 's'}{kept}.",
            label=label,
            purpose=f"Initiative Points of {role}, Round {state['round']}",
            role=role,
            ip=side["ip"],
        )
    )


def start_round(state: dict[str, Any], dice: Dice, events: list[dict[str, Any]]) -> None:
    """Begin the next Round with the High scorer's bound."""
    state["round"] += 1
    for unit in state["units"]:
        unit["moved_round"] = False
    start_bound(state, state["high"], dice, events)


def after_movement(state: dict[str, Any], dice: Dice, events: list[dict[str, Any]]) -> None:
    """Go on to the combat phase if any combat may happen, else end the bound."""
    combat_step = state["phasing"] == state["high"] or state["options"]["combat_in_both_bounds"]
    if combat_step and combat_possible(state):
        state["stage"] = "combat"
        return
    if combat_step:
        events.append(public("combat.none", "No card is in contact or could shoot at an enemy: no combat this bound."))
    end_bound(state, dice, events)


def end_bound(state: dict[str, Any], dice: Dice, events: list[dict[str, Any]]) -> None:
    """Close the bound: the other player's bound, or the end of the Round and its victory check."""
    options = state["options"]
    last = state["phasing"] == state["low"]
    if (options["victory_check"] == "bound_end" or last) and victory_check(
        state, events, f"end of Round {state['round']}" if last else f"end of {state['phasing']}'s bound"
    ):
        return
    if not last:
        start_bound(state, state["low"], dice, events)
        return
    if options["rounds"] is not None and state["round"] >= options["rounds"]:
        state["stage"] = "over"
        state["result"] = {"winner": None, "loser": None, "draw": True}
        events.append(public("draw", f"Round {state['round']} was the last the game allows: the battle is a draw."))
        return
    start_round(state, dice, events)


def possible_reach(state: Mapping[str, Any]) -> int:
    """Return the longest range any card might have: what a face-down card is assumed to reach."""
    options = state["options"]
    return max([*WEAPONS.values(), options["horse_artillery_range_mm"], options["pistol_range_mm"]])


def combat_possible(state: Mapping[str, Any]) -> bool:
    """Return whether any combat may happen, judged only from what both players can see.

    A face-down card is assumed to be able to shoot as far as any card can, so skipping a
    combat phase never tells anyone what a face-down card is not.
    """
    cards = list(placed(state))
    if any(contacts_on(state, card) for card in cards):
        return True
    reach = possible_reach(state)
    lane = state["options"]["shooting_lane_width_mm"]
    for shooter in cards:
        if shooter["face_up"]:
            if not can_shoot(shooter, state["options"], returning=False) or (
                is_artillery(shooter) and shooter["moved_round"]
            ):
                continue
            limit = weapon_range(shooter, state["options"])
        else:
            limit = reach
        facing = shooter["facing"]
        front = along(step((shooter["x"], shooter["y"]), facing, CARD_DEPTH // 2), facing)
        for target in cards:
            if target["owner"] == shooter["owner"]:
                continue
            area = rect_of(target)
            farthest = extent(area, facing)[1]
            if (
                farthest > front
                and lateral_overlap(pose_of(shooter), lane, area) > 0
                and distance_ahead(pose_of(shooter), area) <= limit
            ):
                return True
    return False
