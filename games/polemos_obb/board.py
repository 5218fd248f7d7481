"""The army board (option letters: army-board): every army's situation as a short text table, from the
public view, in every notice and report; and the lists a player's order forms name.

Rows are plain text of fixed columns (under 72 characters) so that they line up in a text letter;
the HTML letter shows the same rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.kit import Fact

STANDING = ("fresh", "shaken")


def board(seen: Mapping[str, Any]) -> list[Fact]:
    """Return the army board: for each army its TP and critical morale factor, then a row a division."""
    generals = {g["id"]: g for g in seen["generals"]}
    moved = set(seen["moved_this_turn"])
    facts = []
    for army in seen["armies"]:
        c_in_c = generals[army["c_in_c"]]
        cmf = "not yet supplied" if army["cmf"] is None else army["cmf"]
        morale = f"CMF {cmf} (lost {army['cmf_lost']})" + (", exhausted" if army["exhausted"] else "")
        value = f"{army['tp']} TP, {morale}; C-in-C {c_in_c['name']} ({_general_state(c_in_c)})"
        rows = [f"{'division':<14} {'general':<9} {'fresh':>5}  {'shaken':<10} {'lost':<10} notes"]
        for division in (d for d in seen["divisions"] if d["army"] == army["id"]):
            rows.append(_row(division, generals[division["commander"]], moved))
        facts.append(Fact(f"Army board: {army['title']} ({army['id']})", value, tuple(rows)))
    return facts


def _row(division: Mapping[str, Any], general: Mapping[str, Any], moved: set[str]) -> str:
    bases = [b for brigade in division["brigades"] for b in brigade["bases"]]
    fresh = sum(1 for b in bases if b["state"] == "fresh")
    shaken = [b["id"] for b in bases if b["state"] == "shaken"]
    lost = [b["id"] for b in bases if b["state"] not in STANDING]
    notes = []
    if division["spent"]:
        notes.append(spent_note(division))
    went = [b["id"] for b in division["brigades"] if b["id"] in moved]
    if went:
        notes.append("moved " + " ".join(went))
    if general["with_base"]:
        notes.append(f"general at {general['with_base']}")
    return (
        f"{_cut(division['id'], 14):<14} {_cut(_general_state(general), 9):<9} {fresh:>5}  "
        f"{_cut(' '.join(shaken) or '-', 10):<10} {_cut(' '.join(lost) or '-', 10):<10} {'; '.join(notes)}"
    ).rstrip()


def _general_state(general: Mapping[str, Any]) -> str:
    return str(general["grade"] if general["status"] == "active" else general["status"])


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "+"


def engagement_lines(seen: Mapping[str, Any], divisions: set[str]) -> list[str]:
    """Return the open engagements of these divisions: id, who against whom, the pairs in contact, support."""
    lines = []
    for engagement in seen["engagements"]:
        if not divisions & set(engagement["divisions"]):
            continue
        touching = ", ".join("-".join(p["bases"]) for p in engagement["pairs"] if p["in_contact"]) or "none"
        apart = ", ".join("-".join(p["bases"]) for p in engagement["pairs"] if not p["in_contact"])
        line = f"{engagement['id']}: {' against '.join(engagement['divisions'])}; in contact {touching}"
        lines.append(line + (f"; apart {apart}" if apart else ""))
    return lines


def enemy_bases(seen: Mapping[str, Any], side: str) -> dict[str, list[str]]:
    """Return the enemy's standing bases by division (legal targets), leaving out spent divisions."""
    allies = {a for s in seen["sides"] if s["id"] == side for a in s["armies"]}
    return {
        d["id"]: [b["id"] for brigade in d["brigades"] for b in brigade["bases"] if b["state"] in STANDING]
        for d in seen["divisions"]
        if d["army"] not in allies and not d["spent"]
    }


def moment(seen: Mapping[str, Any]) -> str:
    """Return the moment a picture shows: the turn and the phase now open, or the battle over (its
    state stops at the step it ended in, which no player sees open)."""
    return f"Turn {seen['turn']}, the battle over" if seen["over"] else f"Turn {seen['turn']}, {seen['phase']}"


def spent_note(division: Mapping[str, Any], short: bool = True) -> str:
    """Return how a spent division is noted: SPENT when it failed its morale test, LEFT BATTLE
    (or in full, LEFT THE BATTLE WITH ITS ARMY) when it left with its broken army: the result
    counts only the first as spent."""
    if not division.get("left_with_army"):
        return "SPENT"
    return "LEFT BATTLE" if short else "LEFT THE BATTLE WITH ITS ARMY"
