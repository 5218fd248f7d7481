"""Risk to generals: the 2D6 roll when a general's base fights or is fired upon, the hit table,
capture when his base is contacted, and the successor who takes over after one or two turns.

Timeline of a loss in turn t: a severe wound stops his orders in t+1 and his successor takes
over in t+2; death or capture stop orders in t+1 and t+2, the successor takes over in t+3.
The successor's grade is rolled on the officer-grade table, which the referee supplies.
"""

from __future__ import annotations

from typing import Any

from games.polemos_obb.options import require_table
from games.polemos_obb.resolution import Resolution
from games.polemos_obb.table import on_table, ride_to_friends

GRADE_MODIFIERS = ("lethargic", "vigorous")  # an active general's roll is not modified
NO_MOVE = ("horse-killed", "bruised", "slight-wound")
LOST = {
    "severe-wound": ("severely-wounded", 1, 2),
    "killed": ("killed", 2, 3),
}  # status, turns without orders, successor after
CAPTURED = ("captured", 2, 3)
EFFECTS = {
    "aide-killed": "an aide beside him falls; he is unharmed",
    "horse-killed": "his horse is killed: no movement next turn",
    "bruised": "a spent ball bruises him: no movement next turn",
    "slight-wound": "a slight wound: no movement next turn",
    "severe-wound": "a severe wound: no movement or orders next turn, then a successor",
    "killed": "killed: no orders for two turns until his successor takes over",
}


def risk_to_general(
    r: Resolution, general_id: str, base: str, base_breaks: bool, key: str, why: str, announce: bool = True
) -> dict[str, Any]:
    """Roll the risk to a general whose base fought or was fired upon; apply any hit; return the record.

    With `announce` false the caller reports the record itself (a combat shows it with the fight).
    """
    general = r.state["generals"][general_id]
    modifiers = [general["grade"]] if general["grade"] in GRADE_MODIFIERS else []
    if base_breaks:
        modifiers.append("base-breaks")
    risk = r.read(
        "risk-to-generals",
        label=f"general/{general_id}/risk/{key}",
        purpose=f"risk to {general['name']} ({why})",
        modifiers=modifiers,
    )
    record: dict[str, Any] = {
        "general": general_id,
        "name": general["name"],
        "grade": general["grade"],
        "base": base,
        "why": why,
        "roll": risk.natural,
        "modifiers": [{"name": n, "value": v} for n, v in risk.modifiers],
        "total": risk.modified,
        "result": risk.result,
        "hit": None,
        "effect": None,
    }
    if risk.result == "possibly-hit":
        hit = r.read("general-hit", label=f"general/{general_id}/hit/{key}", purpose=f"{general['name']} may be hit")
        record.update(hit=hit.natural, effect=hit.result, effect_text=EFFECTS[hit.result])
        apply_hit(r.state, general_id, hit.result)
    text = f"Risk to {general['name']} ({why}): 2D6 {risk.natural}"
    text += "".join(f" {n} {v:+d}" for n, v in risk.modifiers)
    text += f" = {risk.modified}, {'may be hit' if risk.result == 'possibly-hit' else 'safe'}"
    text += f"; hit table {record['hit']}: {EFFECTS[record['effect']]}." if record["hit"] else "."
    record["text"] = text
    if announce:
        r.say("general.risk", text, record)
    return record


def apply_hit(state: dict[str, Any], general_id: str, effect: str) -> None:
    """Apply a result of the hit table to a general."""
    general = state["generals"][general_id]
    turn = state["turn"]
    if effect in NO_MOVE:
        general["no_move_turn"] = turn + 1
    elif effect in LOST:
        status, silent, after = LOST[effect]
        _lose(general, status, turn, silent, after)
        general["counts_for_tp"] = False  # the C-in-C never again gets a TP for this command


def capture_roll(r: Resolution, general_id: str, key: str, why: str, announce: bool = True) -> dict[str, Any]:
    """Roll for a general whose base the enemy contacts; return the record (its "captured" says the outcome)."""
    general = r.state["generals"][general_id]
    grade = general["grade"]
    lookup = r.read(
        "capture",
        label=f"general/{general_id}/capture/{key}",
        purpose=f"capture of {general['name']} ({why})",
        column=grade,
    )
    captured = lookup.result == "captured"
    base = general["with_base"]
    general["with_base"] = None
    text = f"{general['name']} ({grade}) is contacted by the enemy ({why}): rolls {lookup.natural}, "
    if captured:
        status, silent, after = CAPTURED
        _lose(general, status, r.state["turn"], silent, after)
        text += "captured."
    else:
        text += "escapes and rides at once to the nearest friendly troops."
    ride = None if captured or not on_table(r.state) else ride_to_friends(r.state, general_id)
    if ride is not None:
        text = text[:-1] + f", behind {ride['to']}."
    record = {"general": general_id, "name": general["name"], "grade": grade, "base": base,
              "roll": lookup.natural, "captured": captured, "why": why, "text": text,
              **({"ride": ride} if ride else {})}  # fmt: skip
    if announce:
        r.say("general.capture", text, record)
    return record


def _lose(general: dict[str, Any], status: str, turn: int, silent: int, after: int) -> None:
    general.update(
        status=status,
        with_base=None,
        no_move_turn=turn + 1,
        no_orders_until=turn + silent,
        successor_due=turn + after,
    )


def appoint_successors(r: Resolution, turn: int) -> None:
    """Appoint a successor, with a grade rolled on the officer-grade table, for each general due in `turn`."""
    for general_id in sorted(r.state["generals"]):
        general = r.state["generals"][general_id]
        if general["status"] == "active" or general["successor_due"] != turn:
            continue
        require_table(r.state, "officer-grade")
        grade = r.read(
            "officer-grade",
            label=f"general/{general_id}/successor",
            purpose=f"grade of the successor to {general['name']}",
        ).result
        predecessor = general["name"]
        general.update(
            name=f"the successor to {predecessor}",
            grade=grade,
            status="active",
            successor_due=None,
            successors=general["successors"] + 1,
        )
        r.say(
            "general.successor",
            f"{predecessor}'s successor takes over from turn {turn}: a {grade} general.",
            {"general": general_id, "predecessor": predecessor, "grade": grade, "turn": turn},
        )
