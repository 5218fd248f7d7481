"""Leaders under chapter 12.0: corps leaders and further tactical reductions (12.3.7), Napoleon's
ratings by date (12.3.7), and leader casualties after a combat (12.7)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.empires_in_arms.chapter import CONSTANTS
from referee.kit import Dice, Event

NAPOLEON = CONSTANTS["napoleon_ratings"]


def corps_leader(best_strategic: int, best_tactical: int) -> dict[str, int]:
    """Return the leader a multi-corps force without a leader fights under (12.3.7, corps
    leaders): the best corps ratings, with a tactical maximum of 1."""
    return {"strategic": best_strategic, "tactical": best_tactical, "tactical_max": 1}


def tactical_reduction(corps: int, tactical_max: int) -> int:
    """Return how much a commander's tactical rating falls for commanding more corps than their
    tactical maximum, as far as this option extends it (12.3.7): -3 at three times the maximum,
    -4 at four times, and so on; 0 below three times (the core rules' own reductions apply there)."""
    if tactical_max <= 0:
        return 0
    multiple = corps // tactical_max
    return multiple if multiple >= 3 else 0


def reduced_tactical(tactical: int, corps: int, tactical_max: int) -> int:
    """Return the tactical rating after 12.3.7's further reduction, never below 0."""
    return max(CONSTANTS["tactical_reductions"]["least_rating"], tactical - tactical_reduction(corps, tactical_max))


def napoleon_ratings(strategic: int, tactical: int, date: str, in_french_home_nation: bool) -> tuple[int, int]:
    """Return Napoleon's (strategic, tactical) ratings on `date` (YYYY-MM, 12.3.7): tactical 4 from
    January 1809, strategic 4 from January 1812, unless the combat is inside the original French
    home nation."""
    if in_french_home_nation:
        return strategic, tactical
    if date >= NAPOLEON["tactical"]["from"]:
        tactical = min(tactical, NAPOLEON["tactical"]["rating"])
    if date >= NAPOLEON["strategic"]["from"]:
        strategic = min(strategic, NAPOLEON["strategic"]["rating"])
    return strategic, tactical


def casualty(check: Sequence[int], severity: int | None) -> str:
    """Return what a side's leader casualty check means (12.7): "none" unless the two dice make 12;
    then "killed" on a 6, else "wounded-N" (off the map N complete months)."""
    rule = CONSTANTS["leader_casualties"]
    if sum(check) != rule["casualty_on"] or severity is None:
        return "none"
    return "killed" if severity == rule["killed_on"] else f"wounded-{severity}"


def leader_casualties(
    combat_id: str, leaders_by_side: dict[str, list[str]], dice: Dice
) -> tuple[dict[str, dict[str, Any]], list[Event]]:
    """Check each side with leaders present after a combat, in the same adjudication (12.7): 2d6;
    on 12 a leader drawn at random among those present, then 1d6: 6 killed, else wounded that many
    complete months. Return {leader: {"fate", "months"}} and the events."""
    rule = CONSTANTS["leader_casualties"]
    fates: dict[str, dict[str, Any]] = {}
    events = []
    for side, present in sorted(leaders_by_side.items()):
        if not present:
            continue
        base = f"combat/{combat_id}/leader-casualty/{side}"
        check = dice.roll(rule["check"], label=f"{base}/check")
        if sum(check) != rule["casualty_on"]:
            events.append(
                Event(
                    "leaders.unhurt",
                    f"{side}'s leaders ({', '.join(present)}) come through (rolled {sum(check)}, 12.7)",
                    {"combat": combat_id, "side": side, "check": check},
                )
            )
            continue
        pick = 0 if len(present) == 1 else dice.uniform(len(present), label=f"{base}/which")
        leader = sorted(present)[pick]
        severity = dice.roll(rule["severity"], label=f"{base}/severity")[0]
        fate = casualty(check, severity)
        months = 0 if fate == "killed" else severity
        fates[leader] = {"fate": "killed" if fate == "killed" else "wounded", "months": months}
        text = "killed" if fate == "killed" else f"wounded, off the map {months} complete month(s)"
        events.append(
            Event(
                "leaders.casualty",
                f"{leader} ({side}) is a casualty: {text} (12.7)",
                {
                    "combat": combat_id,
                    "side": side,
                    "leader": leader,
                    "check": check,
                    "severity": severity,
                    **fates[leader],
                },
            )
        )
    return fates, events
