"""Peace under chapter 12.0: limited access after a peace (12.4), who may be granted voluntary
access (12.8) and when a minor country may be ceded (12.3.9)."""

from __future__ import annotations

from games.empires_in_arms.chapter import CONSTANTS

ACCESS = CONSTANTS["peace_limited_access"]


def must_be_out(land_phases_since_peace: int, garrison: bool, victor_c5: bool, in_capital: bool) -> bool:
    """Return whether a force must be out of the former enemy's territory by now (12.4.1, 12.4.2):
    garrisons after three Land Phases (with a C.5 victor, only from capitals), corps, fleets and
    depots after six (never for a C.5 victor). Land Phases are counted from the first one after
    the peace (the book leaves open whether the phase of the peace counts: the option
    `peace_phase_counts` says)."""
    if garrison:
        if victor_c5 and not in_capital:
            return False
        return land_phases_since_peace >= ACCESS["garrison_land_phases"]
    if victor_c5:
        return False
    return land_phases_since_peace >= ACCESS["other_land_phases"]


def fate_of_stayers(must_leave: bool, granted_access: bool) -> str:
    """Return what happens to a force still in place (12.4.3): demobilised or scuttled in the next
    Reinforcement Phase unless the territory's controller grants voluntary access."""
    if not must_leave or granted_access:
        return "stays"
    return "demobilise-or-scuttle"


def access_problem(grantor: str, grantee: str, allies_of_grantor: list[str], allied_access: bool) -> str | None:
    """Return why `grantor` may not grant `grantee` voluntary access, or None (12.8: allies only)."""
    if allied_access and grantee not in allies_of_grantor:
        return f"{grantor} may grant voluntary access only to an ally (12.8); {grantee} is not one"
    return None


def ceding_problem(as_peace_term: bool, no_ceding: bool) -> str | None:
    """Return why a minor country may not be ceded now, or None (12.3.9: only as a peace term)."""
    if no_ceding and not as_peace_term:
        return "a minor country may be ceded only as a peace term (12.3.9)"
    return None
