"""Guard commitment (12.3.4): who may commit and by how much, the shifted combat table, and what
the Guard Commitment Table's roll leaves of the committed guard."""

from __future__ import annotations

import re
from collections.abc import Mapping

from games.empires_in_arms.chapter import CONSTANTS

RULE = CONSTANTS["guard_commitment"]
_TABLE = re.compile(r"(\d+)-(\d+)\Z")


def guard_by_nation(contingents: Mapping[str, Mapping[str, int]]) -> dict[str, int]:
    """Return a side's guard factors by nationality."""
    return {nation: factors.get("guard", 0) for nation, factors in contingents.items() if factors.get("guard", 0) > 0}


def has_guard(contingents: Mapping[str, Mapping[str, int]]) -> bool:
    """Return whether a side has guard factors of any nationality (12.3.4: guard or grenadier corps)."""
    return bool(guard_by_nation(contingents))


def shifts_allowed(nation: str, guard_factors: int) -> tuple[int, ...]:
    """Return the shifts a nationality's guard may be committed for (12.3.4): +2 with two or more
    French or Russian guard factors, +1 with one or more Austrian, French, Prussian or Russian;
    never British or Spanish."""
    if nation in RULE["never"]:
        return ()
    allowed = []
    for shift, key in ((1, "shift_1"), (2, "shift_2")):
        if nation in RULE[key]["nations"] and guard_factors >= RULE[key]["least_factors"]:
            allowed.append(shift)
    return tuple(allowed)


def commitment_problem(contingents: Mapping[str, Mapping[str, int]], nation: str, shift: int) -> str | None:
    """Return why a side may not commit `nation`'s guard for `shift`, or None when it may."""
    factors = guard_by_nation(contingents).get(nation, 0)
    if factors <= 0:
        return f"the side has no {nation} guard factors"
    allowed = shifts_allowed(nation, factors)
    if not allowed:
        return (
            f"{nation} guard may not be committed (12.3.4)"
            if nation in RULE["never"]
            else (f"{nation} guard cannot be committed with {factors} factor(s)")
        )
    if shift not in allowed:
        return f"{nation} guard with {factors} factor(s) may shift by {' or '.join(f'+{s}' for s in allowed)} only"
    return None


def shifted_table(table: str, shift: int) -> str:
    """Return the combat table after the guard's shift of the morale level (12.3.4): "3-2" becomes
    "3-3" at +1 and "3-4" at +2."""
    match = _TABLE.match(table)
    if match is None:
        raise ValueError(f"combat table {table!r} is not of the form N-M")
    return f"{match.group(1)}-{int(match.group(2)) + shift}"


def guard_outcome(committed: int, lost: int) -> tuple[int, str]:
    """Return (guard factors left, what happens) after the Guard Commitment Table's result: "breaks"
    when none is left (the side breaks without fighting this round), else "fights" at the shifted
    table, and must break the other side this round or break itself."""
    left = max(0, committed - lost)
    return left, "breaks" if left == 0 else "fights"


def breaks_after_commitment(fought: bool, other_broken: bool) -> bool:
    """Return whether a side that committed its guard and fought breaks at the round's end (12.3.4)."""
    return fought and not other_broken
