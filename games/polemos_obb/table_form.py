"""The order form's notes on the referee's table (option battlefield: table), from the player's view:
in the moves phase, each of the player's bases with its position, facing, its division's formation
and how far it may move (the rate the referee checks, manoeuvres.py); in the contact phase, the
enemy bases each of the player's bases touches or reaches as its line conforms (up to 2BW, L382).
Everything on the table is public. The notes go on the form's top fields (`moves`, `attacks`): a
letter prints a note only on a field the form fills in.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from games.polemos_obb.manoeuvres import base_allowance
from games.polemos_obb.model import STANDING
from games.polemos_obb.picture import short_label
from games.polemos_obb.table import CONFORM_BW, TOUCH_MM, conform_pose
from referee.kit import Example
from referee.kit.tabletop import pose_from


def with_table_notes(form: Example, state: Mapping[str, Any], seen: Mapping[str, Any], army: str, kind: str) -> Example:
    """Return the form with the table's notes added, for a game on the referee's table."""
    table = seen.get("table")
    if table is None or kind not in ("moves", "contact"):
        return form
    notes = dict(form.notes)
    # On the form's top field: a letter prints a note only on a field the form fills in, and the
    # form starts from no move and no attack.
    field, note = (
        ("orders.moves", _positions(state, seen, army, table["bw_mm"]))
        if kind == "moves"
        else ("orders.attacks", _in_reach(state, seen, army))
    )
    notes[field] = f"{notes[field]}\n{note}" if field in notes else note
    return Example(form.orders, notes, form.fields)


def _yours(seen: Mapping[str, Any], army: str) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    return [
        (division, base)
        for division in seen["divisions"]
        if division["army"] == army and not division["spent"]
        for brigade in division["brigades"]
        for base in brigade["bases"]
        if base["state"] in STANDING and "pose" in base
    ]


def _positions(state: Mapping[str, Any], seen: Mapping[str, Any], army: str, bw_mm: float) -> str:
    moved = set(seen["moved_this_turn"])
    lines = []
    for division in dict.fromkeys(d["id"] for d, _ in _yours(seen, army)):
        record = next(d for d in seen["divisions"] if d["id"] == division)
        moved_bases = {b for bases in _moved_bases(record, moved) for b in bases}
        by_rate: dict[tuple[float | None, str], list[str]] = {}
        for d, b in _yours(seen, army):
            if d["id"] == division:
                where = f"{b['id']} at ({b['pose']['x']}, {b['pose']['y']}) facing {b['pose']['facing']}"
                by_rate.setdefault(base_allowance(state, b["id"]), []).append(
                    where + (" (moved)" if b["id"] in moved_bases else "")
                )
        groups = [
            ", ".join(bases)
            + (f": {allowance:g} mm a turn" if allowance is not None else ": may not move")
            + f", {rule}"
            for (allowance, rule), bases in by_rate.items()
        ]
        lines.append(f"{division} ({record.get('formation', 'deployed')}): " + "; ".join(groups))
    shortened = [f"{b['id']}: {short_label(b['id'])}" for _, b in _yours(seen, army) if short_label(b["id"]) != b["id"]]
    if shortened:
        lines.append("the picture labels a long id by its initials and number (" + ", ".join(shortened[:1]) + ")")
    return (
        "your bases, positions in mm, and how far each may move on an order of its own:\n"
        + "".join(f"- {line}\n" for line in lines)
        + f"1BW = {bw_mm:g} mm; cavalry launching an attack 1BW more (charge: true); limbered guns moving"
        " with a column (with: DIVISION) at its rate; e.g. steps: [{advance: 30}, {wheel: left, by: 20}]"
    )


def _moved_bases(division: Mapping[str, Any], moved: set[str]) -> list[list[str]]:
    return [[b["id"] for b in brigade["bases"]] for brigade in division["brigades"] if brigade["id"] in moved]


def _in_reach(state: Mapping[str, Any], seen: Mapping[str, Any], army: str) -> str:
    my_side = next(a["side"] for a in seen["armies"] if a["id"] == army)
    enemy_armies = {a["id"] for a in seen["armies"] if a["side"] != my_side}
    enemies = [
        base["id"]
        for division in seen["divisions"]
        if division["army"] in enemy_armies and not division["spent"]
        for brigade in division["brigades"]
        for base in brigade["bases"]
        if base["state"] in STANDING and "pose" in base
    ]
    # Only the pairs an attack may name: neither base fighting already, and (option
    # attack_needs_move) the player's base of a brigade that moved this turn.
    standing = {
        b["id"] for d in seen["divisions"] for br in d["brigades"] for b in br["bases"] if b["state"] in STANDING
    }
    fighting = {b for e in seen["engagements"] for p in e["pairs"] if set(p["bases"]) <= standing for b in p["bases"]}
    moved = set(seen["moved_this_turn"])
    needs_move = state["config"]["attack_needs_move"]
    enemies = [e for e in enemies if e not in fighting]
    reach = CONFORM_BW * seen["table"]["bw_mm"] + TOUCH_MM
    pairs = []
    for _, base in _yours(seen, army):
        if base["id"] in fighting or (needs_move and state["bases"][base["id"]]["brigade"] not in moved):
            continue
        here = pose_from(base["pose"])
        for enemy in enemies:
            end = conform_pose(state, base["id"], enemy)
            distance = math.dist((here.x, here.y), (end.x, end.y))
            if distance <= reach:
                pairs.append(f"[{base['id']}, {enemy}]" + (" touching" if distance < TOUCH_MM else ""))
    return (
        "enemy bases in reach (touching, or reached as your line conforms, up to 2BW): "
        + (", ".join(pairs) or "none")
        + "; an attack needs one base touching the division it attacks; leave out its pairs and the referee "
        "pairs your free bases from the table, the nearest first"
    )
