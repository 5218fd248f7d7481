"""Every dice label the game draws under (house rule 4: each names its purpose, once a phase)."""

from __future__ import annotations


def reactions(seat: str) -> str:
    """The seal of a seat's standing reactions this power turn."""
    return f"reactions/{seat}"


def raid(space: str, n: int) -> str:
    """A C/H raid roll (12.4)."""
    return f"raid/{_slug(space)}/{n}"


def siege(space: str, n: int) -> str:
    """A siege roll (15.4)."""
    return f"siege/{_slug(space)}/{n}"


def interception(seat: str, n: int) -> str:
    """A sealed interception's roll (9.2)."""
    return f"interception/{seat}/{n}"


def withdrawal(seat: str, n: int) -> str:
    """A sealed withdrawal's roll (10.2)."""
    return f"withdrawal/{seat}/{n}"


def naval(seat: str, n: int) -> str:
    """A naval interception's roll (16.3)."""
    return f"naval-interception/{seat}/{n}"


def colonial(area: str, n: int) -> str:
    """A Colonial Influence marker's roll (22.3.2)."""
    return f"colonial/{area}/{n}"


def bombardment(space: str) -> str:
    """A Fleet Bombardment's dice, one a section (22.7)."""
    return f"bombardment/{_slug(space)}"


def battle(side: str) -> str:
    """A side's battle die on the CRT (13.2 step 9)."""
    return f"battle/{side}"


def leader_casualty(side: str) -> str:
    """A side's leader casualty roll (13.6.2)."""
    return f"leader-casualty/{side}"


def day_of_battle(n: int) -> str:
    """The `n`th Day of Battle card drawn this phase (22.1: before each intercept and battle)."""
    return f"day-of-battle/{n}"


def mulligan(label: str) -> str:
    """A roll made again with a side's Mulligan (22.10)."""
    return f"{label}/mulligan"


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-") or "space"
