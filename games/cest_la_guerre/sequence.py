"""The sequence of play (L160-L176): Rounds of two bounds, the High scorer first. Each bound is a
movement phase (the phasing player alone) and, when anything could shoot or is in contact, a
combat step (gap G-04: in both bounds by default): a phase for the players with a choice to make
in it, or fought at once when nobody has one (see pace.py).
"""

from __future__ import annotations

from typing import Any

from games.cest_la_guerre.battle import run_combat
from games.cest_la_guerre.events import public
from games.cest_la_guerre.pace import combat_possible, deciders
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
        if deciders(state):
            state["stage"] = "combat"
            return
        events.append(
            public("combat.unasked", "Nobody has a choice to make in this combat step: it is fought at once.")
        )
        fought = run_combat(state, {}, dice)
        state.clear()
        state.update(fought.state)
        events.extend(fought.events)
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
