"""The morale phase: two-base brigades whose partner broke, division morale, army morale, end of turn.

Checks run in turn order (the Tempo side's armies first, as the book's example reports them),
each division after the other in order of battle. A division that had a base break this turn
adds 2 points per base lost and 1 per base shaken, adjusts them by a die, and is spent when the
total exceeds the bases it began the battle with. A spent division leaves the battle, and its
army's critical morale factor (supplied by the referee: the book's page is missing) falls by 1D6.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.polemos_obb.combat import apply_result, end_engagements_of
from games.polemos_obb.generals import appoint_successors
from games.polemos_obb.model import army_order, division_bases, is_in_play, is_standing, other_side
from games.polemos_obb.options import setting, supply_hint
from games.polemos_obb.resolution import Resolution
from games.polemos_obb.tempo import roll_income
from referee.kit import NotSupplied


def resolve_morale(r: Resolution) -> None:
    """Run the morale phase of the turn, then close the turn and prepare the next."""
    state = r.state
    divisions = _turn_order(state)
    for division in divisions:
        for brigade in state["divisions"][division]["brigades"]:
            _partner_check(r, brigade)
    checked = 0
    for division in divisions:
        broke = [b for b in division_bases(state, division) if b in state["broken_this_turn"]]
        if broke and not state["divisions"][division]["spent"] and not state["over"]:
            _division_check(r, division)
            checked += 1
    if not checked:
        r.say("morale.none", "Morale phase: no base broke this turn, so no division tests its morale.")
    end_turn(r)


def _turn_order(state: dict[str, Any]) -> list[str]:
    tempo = state["tempo"]["side"]
    sides = [tempo, other_side(state, tempo)] if tempo else [s["id"] for s in state["sides"]]
    armies = [a for side in sides for a in army_order(state) if state["armies"][a]["side"] == side]
    return [d for a in armies for d in state["armies"][a]["divisions"]]


def _partner_check(r: Resolution, brigade: str) -> None:
    """If one base of a two-base brigade broke this turn, test the other."""
    state = r.state
    bases = state["brigades"][brigade]["bases"]
    if len(bases) != 2 or not any(b in state["broken_this_turn"] for b in bases):
        return
    for base in [b for b in bases if is_standing(state, b)]:
        grade = state["bases"][base]["class"]
        lookup = r.read(
            "brigade-partner",
            label=f"morale/partner/{base}",
            purpose=f"{base}: its brigade partner broke",
            column=grade,
        )
        if lookup.result == "breaks":
            apply_result(state, base, "broken")
        r.say(
            "morale.partner",
            f"Brigade {brigade}: its other base broke; {base} ({grade}) rolls {lookup.natural} and {lookup.result}.",
            {"brigade": brigade, "base": base, "class": grade, "roll": lookup.natural, "result": lookup.result},
        )


def _division_check(r: Resolution, division: str) -> None:
    state = r.state
    record = state["divisions"][division]
    bases = division_bases(state, division)
    if state["config"]["morale_losses"] == "turn":
        lost = [b for b in bases if b in state["broken_this_turn"]]
    else:
        lost = [b for b in bases if state["bases"][b]["state"] in ("broken", "removed")]
    shaken = [b for b in bases if is_standing(state, b) and state["bases"][b]["state"] == "shaken"]
    points = 2 * len(lost) + len(shaken)
    lookup = r.read("division-morale", label=f"morale/{division}", purpose=f"{record['title']}: morale")
    final = points + int(lookup.result)
    spent = final > record["bases_at_start"]
    verdict = "spent: it returns to its base line and takes no further part" if spent else "it fights on"
    r.say(
        "morale.division",
        f"{record['title']} tests morale: {len(lost)} lost x2 + {len(shaken)} shaken = {points}, "
        f"die {lookup.natural} ({int(lookup.result):+d}) = {final} "
        f"against {record['bases_at_start']} bases: {verdict}.",
        {
            "division": division,
            "title": record["title"],
            "lost": lost,
            "shaken": shaken,
            "points": points,
            "roll": lookup.natural,
            "adjustment": lookup.result,
            "final": final,
            "bases_at_start": record["bases_at_start"],
            "spent": spent,
        },
    )
    if spent:
        record["spent"] = True
        end_engagements_of(state, division)
        _army_morale(r, record["army"], division)


def _army_morale(r: Resolution, army: str, division: str) -> None:
    """A division is spent: its army's critical morale factor falls by 1D6."""
    state = r.state
    record = state["armies"][army]
    # The factor lives in the army's record; the overlay only keeps what the referee gave. A
    # state edited by hand may hold one without the other, so neither is assumed.
    if not isinstance(record.get("cmf"), int) or isinstance(record.get("cmf"), bool):
        raise NotSupplied(
            "army_morale",
            f"{state['divisions'][division]['title']} is spent, so the {record['title']}'s critical morale factor "
            "falls by 1D6; but the army morale rules (p. 30) are not in the rulebook file and this game's referee "
            f"has not supplied army {army}'s starting critical morale factor (army_morale, cmf.{army})",
            hints=(supply_hint("army_morale"),),
        )
    roll = r.d6(label=f"morale/army/{division}", purpose=f"{record['title']}: critical morale factor falls")
    before = record["cmf"]
    record["cmf"] = before - roll
    record["cmf_lost"] = record.get("cmf_lost", 0) + roll
    exhausted = record["cmf"] <= 0
    effect = state["overlays"].get("army_morale", {}).get("when_exhausted", "game-ends")
    text = f"{record['title']}'s critical morale factor falls by {roll}: {before} -> {record['cmf']}."
    if exhausted:
        record["exhausted"] = True
        # The losses as the battle left them: the army's other divisions leave with it below
        # (marked spent to take them out of play), but they did not fail a morale test, and the
        # letters of new games say so (left_with_army) where they would say SPENT.
        lost = losses(state)
        for other in record["divisions"]:
            if not state["divisions"][other]["spent"]:
                state["divisions"][other]["spent"] = True
                if setting(state, "letters") == "army-board":
                    state["divisions"][other]["left_with_army"] = True
                end_engagements_of(state, other)
        text += f" The {record['title']} is exhausted and leaves the battle."
        if effect == "game-ends":
            state["over"] = True
            state["result"] = f"{record['title']}'s critical morale factor is exhausted (turn {state['turn']})."
            if setting(state, "letters") == "army-board":
                state["result"] = (
                    f"the {record['title']} breaks: its critical morale factor is exhausted (turn {state['turn']}). "
                    + lost
                )
            text += " The battle ends."
    r.say(
        "morale.army",
        text,
        {
            "army": army,
            "division": division,
            "roll": roll,
            "before": before,
            "after": record["cmf"],
            "exhausted": exhausted,
            "effect": effect if exhausted else None,
        },  # fmt: skip
    )


def losses(state: Mapping[str, Any]) -> str:
    """Return each side's losses in words: bases lost (broken or removed), bases shaken, divisions spent."""
    parts = []
    for side in state["sides"]:
        divisions = [d for a in side["armies"] for d in state["armies"][a]["divisions"]]
        bases = [b for d in divisions for b in division_bases(state, d)]
        lost = sum(1 for b in bases if state["bases"][b]["state"] in ("broken", "removed"))
        shaken = sum(1 for b in bases if state["bases"][b]["state"] == "shaken")
        spent = sum(1 for d in divisions if state["divisions"][d]["spent"])
        parts.append(
            f"{side['title']} lost {lost} of {len(bases)} bases ({shaken} shaken) and {spent} of "
            f"{len(divisions)} divisions spent"
        )
    return "Losses: " + "; ".join(parts) + "."


def end_turn(r: Resolution) -> None:
    """Close the turn: remove broken bases, settle Tempo points, appoint successors, roll next turn's income."""
    state = r.state
    removed = sorted(b for b, rec in state["bases"].items() if rec["state"] == "broken")
    for base in removed:
        state["bases"][base]["state"] = "removed"
    for army in army_order(state):
        record = state["armies"][army]
        unspent = sum(
            tp - state["tp_spent"].get(general, 0) for general, tp in state["allocations"].get(army, {}).items()
        )
        record["tp"] = record["tp"] + unspent if state["config"]["carry_over_tp"] else 0
    state.update(broken_this_turn=[], moved=[], allocations={}, tp_spent={})
    turn = state["turn"]
    sides_left = {state["armies"][a]["side"] for a in army_order(state) if is_in_play(state, a)}
    told = setting(state, "letters") == "army-board"
    if state["config"]["rounds"] is not None and turn >= state["config"]["rounds"]:
        said = f"the scenario ends after its {turn} turns, no army broken. {losses(state)}" if told else None
        state.update(over=True, result=state.get("result") or said or f"the battle's {turn} turns are played.")
    elif len(sides_left) < 2:
        said = f"one side has no division left on the field. {losses(state)}" if told else None
        state.update(over=True, result=state.get("result") or said or "one side has no division left on the field.")
    text = f"End of turn {turn}." + (f" Broken bases leave the field: {', '.join(removed)}." if removed else "")
    text += f" The battle is over: {state['result']}" if state["over"] else ""
    r.say("turn.end", text, {"turn": turn, "removed": removed, "over": state["over"], "result": state["result"]})
    if state["over"]:
        return
    appoint_successors(r, turn + 1)
    state.update(turn=turn + 1, step="bid")
    roll_income(r, turn + 1)
