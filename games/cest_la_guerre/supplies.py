"""What the game's referee may supply from their own copy of the book, mid-game (issue 15).

The extraction's gaps (README, G-01 ... G-47) are options with defaults: the game never waits
on its referee. Where a default stands for something the book prints but the file lost or
never stated (the terrain menu, the melee chart's lost rows, the reserve roll, the IP dice, a
garbled modifier, Horse Artillery's range), the referee may supply the book's value at any
point; it is read from the next phase on, as if given at `referee init`. Options given at
init work exactly as before: a need shows as supplied once its value differs from the default.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from games.cest_la_guerre.options import BY_NAME
from referee.kit import (
    GameDataError,
    Need,
    Problem,
    Supplies,
    Wanted,
    packaged_need,
    placeholders,
    schema,
    thaw,
)

PACKAGE = "games.cest_la_guerre"
_SIX_SIDED = {"type": "str", "max": 8, "pattern": "[1-9]d6", "example": "2d6"}
_FACTORS = {"type": "any", "description": "row: {infantry: N, mounted: N}"}
# need id (the option's name): (title, where the book prints it, what reads it, shape)
GAPS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "terrain_menu": (
        "the terrain menu (kinds of terrain, their going, sight and height)",
        "terrain, L153 (gap G-06: the file names no terrain types)",
        "laying terrain before the battle, and every move, sight line and melee over it",
        {"type": "any", "description": "kind: {going: good|bad|impassable, los_block: true|false, elevation: N}"},
    ),
    "melee_chart_fill": (
        "the melee chart's lost and unclear rows",
        "melee chart, L364-L374 (gap G-09)",
        "every melee involving light cavalry, mounted troops in disorder, artillery or infantry in disorder",
        _FACTORS,
    ),
    "reserve_needs": (
        "the least reserve roll by entry edge",
        "Reserve Forces, L169 (gap G-02)",
        "a reserve force's arrival roll",
        {
            "type": "map",
            "fields": {edge: {"type": "int", "min": 1, "max": 36} for edge in ("own_base", "flank", "enemy_base")},
            "required": ["own_base", "flank", "enemy_base"],
        },
    ),
    "reserve_dice": (
        "the dice of a reserve's arrival roll",
        "Reserve Forces, L169 (gap G-02)",
        "a reserve force's arrival roll",
        _SIX_SIDED,
    ),
    "ip_dice": ("the Initiative Point dice", "Initiative, L168 (gap G-01)", "each bound's Initiative roll", _SIX_SIDED),
    "pikes_in_melee": (
        "the Pikes in melee modifier",
        "combat modifiers, L376-L392 (gap G-10)",
        "every melee of Pikes",
        {"type": "int", "min": -3, "max": 3},
    ),
    "horse_artillery_range_mm": (
        "Horse Artillery's range",
        "artillery, L96-L100 and L305 (gap G-26)",
        "every shot by Horse Artillery",
        {"type": "int", "min": 0, "max": 2000},
    ),
}
NEEDS: tuple[Need, ...] = tuple(
    packaged_need(PACKAGE, name, title, book, needed_by, shape, "option")
    for name, (title, book, needed_by, shape) in GAPS.items()
)


def wanted(state: Mapping[str, Any]) -> list[Wanted]:
    """Return each need as `default` (the extraction's value in use) or `supplied` (the referee's)."""
    found = []
    for name in GAPS:
        if state["options"][name] != BY_NAME[name].default:
            found.append(Wanted(name, "supplied", ""))
        else:
            gap = BY_NAME[name].gap
            found.append(Wanted(name, "default", f"the game uses the extraction's default for {gap} until supplied"))
    return found


def supply(state: Mapping[str, Any], need_id: str, data: Any) -> tuple[Any, list[Problem]]:
    """Return (the state reading the referee's value from the next phase on, []) or (the state, problems)."""
    if need_id not in GAPS:
        known = ", ".join(GAPS)
        return thaw(state), [
            Problem("invalid.supply.need", "supplies", f"cest-la-guerre needs no {need_id!r} ({known})")
        ]
    data = thaw(data)
    problems = schema.check(data, GAPS[need_id][3], "data")
    if not problems:
        problems = placeholders(data)
    if problems:
        return thaw(state), problems
    new = thaw(state)
    value = thaw(data)
    if need_id == "melee_chart_fill":
        value = {**new["options"]["melee_chart_fill"], **value}
    try:
        BY_NAME[need_id].check(need_id, value)
    except GameDataError as error:
        return thaw(state), [Problem("illegal.supply", _path(need_id, data, str(error)), str(error))]
    if need_id == "terrain_menu":
        laid = sorted({feature["kind"] for feature in new["terrain"]} - set(value))
        if laid:
            message = f"leaves out {', '.join(laid)}, already laid on the table: keep every kind laid"
            return thaw(state), [Problem("illegal.supply.terrain", "data", message)]
        for feature in new["terrain"]:
            feature.update(copy.deepcopy(value[feature["kind"]]))
    new["options"][need_id] = value
    return new, []


def _path(need_id: str, data: Any, message: str) -> str:
    """Return the field a check's message names (it quotes the option's path), else the data itself."""
    named = re.match(r"option '([^']+)'", message)
    if named and named.group(1).startswith(f"{need_id}."):
        return "data" + named.group(1).removeprefix(need_id).split(" ")[0]
    if isinstance(data, Mapping):
        return next((f"data.{key}" for key in data if message.endswith(f"got {key!r}")), "data")
    return "data"


SUPPLIES = Supplies(needs=NEEDS, wanted=wanted, supply=supply)
