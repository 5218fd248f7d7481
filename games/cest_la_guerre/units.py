"""What a card is and can do: its class, weapon range, movement allowance, and how it is found.

A card in the state is a plain mapping (see armies.py for the fields set at army choice).
Placed cards also carry a public `marker` (B1, R7...), a pose, and their combat state.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from games.cest_la_guerre.armies import describe_entry
from games.cest_la_guerre.data import TROOPS, WEAPONS

Unit = dict[str, Any]
ON_TABLE = "table"
GONE = ("destroyed", "off_table", "removed")


def troop(unit: Mapping[str, Any]) -> Mapping[str, Any]:
    """Return the troop-type data of a card."""
    return TROOPS[unit["type"]]


def unit_class(unit: Mapping[str, Any]) -> str:
    """Return "infantry" or "mounted" (artillery counts as infantry, command units as mounted)."""
    return str(troop(unit)["class"])


def is_mounted(unit: Mapping[str, Any]) -> bool:
    """Return whether the card is Mounted (cavalry of every kind and command units)."""
    return unit_class(unit) == "mounted"


def is_artillery(unit: Mapping[str, Any]) -> bool:
    """Return whether the card is artillery of any kind."""
    return bool(troop(unit).get("artillery"))


def is_commander(unit: Mapping[str, Any]) -> bool:
    """Return whether the card is a General or a Sub-Command."""
    return unit["type"] in ("general", "sub_command")


def is_dummy(unit: Mapping[str, Any]) -> bool:
    """Return whether the card is a dummy."""
    return unit["type"] == "dummy"


def is_on_table(unit: Mapping[str, Any]) -> bool:
    """Return whether the card is on the table."""
    return unit["status"] == ON_TABLE


def can_shoot(unit: Mapping[str, Any], options: Mapping[str, Any], returning: bool = False) -> bool:
    """Return whether the card may shoot (`returning`: shoot back at a shooter)."""
    shoots = troop(unit)["shoots"]
    if shoots == "if_allowed":
        return bool(options["coi_may_shoot"])
    if shoots == "return_only":
        return returning
    if shoots == "never":
        return unit.get("weapon") == "pistol" and not is_dummy(unit)
    return True


def weapon_range(unit: Mapping[str, Any], options: Mapping[str, Any]) -> int:
    """Return the card's weapon range in mm (0 for a card that never shoots)."""
    weapon = unit.get("weapon")
    if weapon is None:
        return 0
    if weapon == "horse_artillery":
        return int(options["horse_artillery_range_mm"])
    if weapon == "pistol":
        return int(options["pistol_range_mm"])
    return WEAPONS[weapon]


def allowance(unit: Mapping[str, Any], going: str) -> int:
    """Return the card's own allowance in mm in this going ("good" or "bad"), before any cap."""
    if unit.get("disordered"):
        return 0
    return int(troop(unit)["move"][going])


def describe(unit: Mapping[str, Any]) -> str:
    """Return the card's identity in words (for its owner, or once it is face up)."""
    return describe_entry(unit)


def units_of(state: Mapping[str, Any], owner: str) -> Iterator[Unit]:
    """Yield a side's cards."""
    return (unit for unit in state["units"] if unit["owner"] == owner)


def marker_order(unit: Mapping[str, Any]) -> tuple[str, int]:
    """Return a sort key by marker (B2 before B10): the order anyone may see, unlike the army's own."""
    marker = unit.get("marker") or "?0"
    return marker[0], int(marker[1:])


def placed(state: Mapping[str, Any]) -> Iterator[Unit]:
    """Yield every card on the table, in marker order (never in army order, which would tell
    the opponent which face-down card came first in the list)."""
    return iter(sorted((unit for unit in state["units"] if unit["status"] == ON_TABLE), key=marker_order))


def find(state: Mapping[str, Any], owner: str, ref: str) -> Unit | None:
    """Return the owner's card named by its id or its marker, or None."""
    for unit in state["units"]:
        if unit["owner"] == owner and (unit["id"] == ref or unit.get("marker") == ref):
            return unit
    return None


def by_marker(state: Mapping[str, Any], marker: str) -> Unit | None:
    """Return the placed or once-placed card with this public marker, or None."""
    for unit in state["units"]:
        if unit.get("marker") == marker:
            return unit
    return None
