"""The order form's notes on the referee's table (option battlefield: table), from the player's view:
in the moves phase, each of the player's bases with its position, facing, its division's formation
and how far it may move; in the contact phase, the enemy bases each of the player's bases touches
or reaches as its line conforms (up to 2BW, L382). Everything on the table is public.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from games.polemos_obb.model import STANDING
from games.polemos_obb.table import CONFORM_BW, TOUCH_MM, conform_pose
from referee.kit import Example
from referee.kit.tabletop import pose_from

MOVE_BW = {"defile": 4, "deployed": 1}  # L249, L251; hussars 2BW (L256), cavalry attacking +1BW (L255)


def with_table_notes(form: Example, state: Mapping[str, Any], seen: Mapping[str, Any], army: str, kind: str) -> Example:
    """Return the form with the table's notes added, for a game on the referee's table."""
    table = seen.get("table")
    if table is None or kind not in ("moves", "contact"):
        return form
    notes = dict(form.notes)
    if kind == "moves":
        notes["orders.moves[].steps"] = _positions(seen, army, table["bw_mm"])
    else:
        notes["orders.attacks[].pairs"] = _in_reach(state, seen, army)
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


def _positions(seen: Mapping[str, Any], army: str, bw_mm: float) -> str:
    moved = set(seen["moved_this_turn"])
    lines = []
    for division in dict.fromkeys(d["id"] for d, _ in _yours(seen, army)):
        record = next(d for d in seen["divisions"] if d["id"] == division)
        formation = record.get("formation", "deployed")
        bases = [
            f"{b['id']} at ({b['pose']['x']}, {b['pose']['y']}) facing {b['pose']['facing']}"
            + (" (moved)" if any(b["id"] in br_bases for br_bases in _moved_bases(record, moved)) else "")
            for d, b in _yours(seen, army)
            if d["id"] == division
        ]
        rate = MOVE_BW[formation] * bw_mm
        lines.append(f"{division} ({formation}, {rate:g} mm a turn): " + ", ".join(bases))
    return (
        "your bases, positions in mm: "
        + "; ".join(lines)
        + f". 1BW = {bw_mm:g} mm; hussars deployed move 2BW, cavalry launching an attack 1BW more (charge: true); "
        "e.g. steps: [{advance: 30}, {wheel: left, by: 20}]"
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
    reach = CONFORM_BW * seen["table"]["bw_mm"] + TOUCH_MM
    pairs = []
    for _, base in _yours(seen, army):
        here = pose_from(base["pose"])
        for enemy in enemies:
            end = conform_pose(state, base["id"], enemy)
            distance = math.dist((here.x, here.y), (end.x, end.y))
            if distance <= reach:
                pairs.append(f"{base['id']}-{enemy}" + (" (touching)" if distance < TOUCH_MM else ""))
    return (
        "enemy bases in reach (touching, or reached as your line conforms, up to 2BW): "
        + (", ".join(pairs) or "none")
        + "; an attack needs one base touching the division it attacks"
    )
