"""The army board as a table and as a picture (option army_board: brigades, new games; issue 17).

Drawn from a player's view alone, never from the state: every army's Tempo points and critical
morale factor on top, then one row a brigade (its division, its bases, how many are fresh,
shaken and lost, the division's general) as a `Fact` table, which a text letter aligns and an
HTML letter draws as a <table>; and the same board as a picture (`referee.kit.boards`): an army a
section, a division a row, a box a base coloured by its state.

Games begun before (army_board: divisions) keep the board of `board.py`, one text row a division.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.polemos_obb.board import moment, spent_note
from referee.kit import Fact, boards

HEADINGS = ("division", "brigade", "fresh", "shaken", "lost", "general", "notes")
LOST = ("broken", "removed")
# The picture's states, in the legend's order: a base on the field is fresh or shaken; a broken
# base leaves at the end of the turn (removed).
STATES = {
    "fresh": ("fresh", "#4f8f3a"),
    "shaken": ("shaken", "#e0a526"),
    "broken": ("broken", "#c0392b"),
    "removed": ("removed from the field", "#9a9a9a"),
}


def has_table_board(seen: Mapping[str, Any]) -> bool:
    """Return whether this game's letters show the army board as a table and a picture."""
    settings = seen["settings"]
    return settings.get("letters") == "army-board" and settings.get("army_board") == "brigades"


def board_table(seen: Mapping[str, Any]) -> list[Fact]:
    """Return the army board as facts, one an army: its TP and morale, then its brigades' table."""
    generals = {g["id"]: g for g in seen["generals"]}
    moved = set(seen["moved_this_turn"])
    facts = []
    for army in seen["armies"]:
        rows: list[tuple[str, ...]] = []
        for division in (d for d in seen["divisions"] if d["army"] == army["id"]):
            rows += _brigade_rows(division, generals[division["commander"]], moved)
        table = (HEADINGS, *rows) if rows else ()
        facts.append(Fact(f"Army board: {army['title']} ({army['id']})", _army_line(army, generals), table=table))
    return facts


def _army_line(army: Mapping[str, Any], generals: Mapping[str, Any]) -> str:
    c_in_c = generals[army["c_in_c"]]
    cmf = "not yet supplied" if army["cmf"] is None else army["cmf"]
    morale = f"CMF {cmf} (lost {army['cmf_lost']})" + (", exhausted" if army["exhausted"] else "")
    return f"{army['tp']} TP, {morale}; C-in-C {c_in_c['name']} ({_general_state(c_in_c)})"


def _brigade_rows(division: Mapping[str, Any], general: Mapping[str, Any], moved: set[str]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    if not division["brigades"]:  # a division an army generator has yet to roll (muster)
        return [(division["id"], "-", "0", "0", "0", _general_state(general), "not rolled")]
    for index, brigade in enumerate(division["brigades"]):
        bases = brigade["bases"]
        ids = [b["id"] for b in bases]
        name = brigade["id"] if ids == [brigade["id"]] else f"{brigade['id']} ({' '.join(ids)})"
        with_general = f"at {general['with_base']}" if general["with_base"] in ids else ""
        notes = []
        if index == 0 and division["spent"]:
            notes.append(spent_note(division))
        if brigade["id"] in moved:
            notes.append("moved")
        if any(b.get("dismounted") for b in bases):
            notes.append("dismounted")
        rows.append(
            (
                division["id"] if index == 0 else "",
                name,
                str(sum(1 for b in bases if b["state"] == "fresh")),
                str(sum(1 for b in bases if b["state"] == "shaken")),
                str(sum(1 for b in bases if b["state"] in LOST)),
                " ".join(filter(None, (_general_state(general) if index == 0 else "", with_general))),
                ", ".join(notes),
            )
        )
    return rows


def _general_state(general: Mapping[str, Any]) -> str:
    return str(general["grade"] if general["status"] == "active" else general["status"])


def board_picture(seen: Mapping[str, Any], player: str | None) -> dict[str, Any] | None:
    """Return the army board as a picture for `player`'s letters (None: this game draws none):
    an army a section (yours first), a division a row, a box a base coloured by its state."""
    if player is None or not has_table_board(seen):
        return None
    generals = {g["id"]: g for g in seen["generals"]}
    moved = set(seen["moved_this_turn"])
    mine = seen["your_army"]
    armies = sorted(seen["armies"], key=lambda a: a["id"] != mine)
    sections = []
    for army in armies:
        title = f"{army['title']}{' (you)' if army['id'] == mine else ''}: {_army_line(army, generals)}"
        rows = [_division_row(d, generals[d["commander"]], moved) for d in seen["divisions"] if d["army"] == army["id"]]
        sections.append(boards.board_section(title[:80], rows))
    title = f"{moment(seen)}: the army boards as {player} sees them"
    return boards.board_scene(title[:80], STATES, sections)


def _division_row(division: Mapping[str, Any], general: Mapping[str, Any], moved: set[str]) -> dict[str, Any]:
    boxes = [
        boards.board_box(_short(base["id"], division["id"]), base["state"] if base["state"] in STATES else "broken")
        for brigade in division["brigades"]
        for base in brigade["bases"]
    ]
    went = [_short(b["id"], division["id"]) for b in division["brigades"] if b["id"] in moved]
    notes = [_general_state(general)]
    if division["spent"]:
        notes.append(spent_note(division))
    if went:
        notes.append("moved " + " ".join(went))
    dismounted = [
        _short(b["id"], division["id"]) for br in division["brigades"] for b in br["bases"] if b.get("dismounted")
    ]
    if dismounted:
        notes.append("dismounted " + " ".join(dismounted))
    return boards.board_row(division["id"], boxes, "; ".join(notes)[:80])


def _short(base: str, division: str) -> str:
    """Return a base's label in its box: its id, less its division's name for a generated base
    (imperial-horse-6 in imperial-horse: 6)."""
    return base[len(division) + 1 :] if base.startswith(division + "-") else base
