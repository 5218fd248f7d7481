"""The economy under chapter 12.0: militia conversion (12.1.1), ship building ports (12.1.2),
economic manipulation (12.5) and the American trade roll (12.9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.empires_in_arms.chapter import CONSTANTS

MILITIA = CONSTANTS["militia_conversion"]


def add_months(date: str, months: int) -> str:
    """Return YYYY-MM `months` after `date`."""
    year, month = (int(part) for part in date.split("-"))
    year, index = divmod(year * 12 + month - 1 + months, 12)
    return f"{year:04d}-{index + 1:02d}"


def conversion_problem(
    at_war_with_majors: Sequence[str], in_controlled_home: bool, factors: int, money: int
) -> str | None:
    """Return why militia may not be converted (12.1.1), or None: only at war with no other major
    power, only militia in controlled home nation territory, three money points a factor."""
    if at_war_with_majors:
        return f"at war with {', '.join(at_war_with_majors)}: militia converts only at war with no major power"
    if not in_controlled_home:
        return "only militia in controlled home nation territory converts"
    if factors < 1:
        return "convert at least one militia factor"
    cost = conversion_cost(factors)
    if cost > money:
        return f"converting {factors} militia factor(s) costs {cost} money points; the power has {money}"
    return None


def conversion_cost(factors: int) -> int:
    """Return the money points militia conversion costs (12.1.1: three a factor)."""
    return MILITIA["money_per_factor"] * factors


def converted_arrive(date: str) -> str:
    """Return when converted militia returns as regular infantry reinforcements: three months later."""
    return add_months(date, MILITIA["months_to_arrive"])


def ships_destroyed(major_power_ships: bool, port_occupied_by_enemy: bool) -> bool:
    """Return whether ships building or unassigned in an occupied port are destroyed (12.1.2): a
    major power's are; a minor free state's are not necessarily (the occupier decides)."""
    return major_power_ships and port_occupied_by_enemy


def manipulation_result(
    display: Mapping[str, Mapping[str, int]], square: str, money: int, manpower: int, political: int
) -> dict[str, Any]:
    """Return the power's money, manpower and political points after recording its economic
    manipulation (12.5.1): the square's PSA to political points, its money and manpower added."""
    effect = display[square]
    return {
        "money": money + effect.get("money", 0),
        "manpower": manpower + effect.get("manpower", 0),
        "political": political + effect.get("psa", 0),
    }


def must_roll_american_trade(denied_by_britain: Sequence[str], denied_by_b6: Sequence[str]) -> bool:
    """Return whether Britain must make the American trade roll this Collection Step (12.9): when
    any major power is denied American trade by Britain or by peace condition B.6."""
    return bool(denied_by_britain) or bool(denied_by_b6)
