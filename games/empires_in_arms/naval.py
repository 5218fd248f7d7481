"""Fleets under chapter 12.0: the movement allowance of large or transporting stacks (12.2.3),
the reduced transport capacity (12.2.4), naval raiding of British colonial trade (12.2.2) and the
Danish/Swedish sea crossing arrows a fleet cannot block (12.2.1)."""

from __future__ import annotations

from collections.abc import Iterable

from games.empires_in_arms.chapter import CONSTANTS

LARGE = CONSTANTS["large_fleets"]


def fleet_movement_allowance(base: int, fleets: int, transporting: bool, retreat_or_pursuit: bool = False) -> int:
    """Return a stack's movement allowance for normal naval movement (12.2.3): -1 when any fleet
    of the stack transports corps or an invasion depot, -1 for each fleet beyond the first,
    together never more than -3 nor below 4; naval retreat and pursuit keep `base`."""
    if retreat_or_pursuit or fleets < 1:
        return base
    reduction = (LARGE["transporting_penalty"] if transporting else 0) + LARGE["per_extra_fleet_penalty"] * (fleets - 1)
    reduced = base - min(reduction, LARGE["max_reduction"])
    return max(reduced, min(base, LARGE["least_allowance"]))


def transport_capacity(fleets: int) -> int:
    """Return the army factors `fleets` fleets may carry under 12.2.4 (10 each)."""
    return fleets * CONSTANTS["reduced_transport"]["army_factors_per_fleet"]


def transport_losses(carried: int, fleets_left: int) -> int:
    """Return the army factors lost with eliminated transporting fleets (12.2.4): all the factors
    beyond what the fleets left can carry."""
    return max(0, carried - transport_capacity(fleets_left))


def colonial_trade_after_raiding(trade: int, raided_sea_areas: int) -> int:
    """Return British colonial trade after naval raiding (12.2.2): 5 money points less for each
    sea area next to Great Britain holding an enemy fleet, never below 0."""
    return max(0, trade - CONSTANTS["naval_raiding"]["loss_per_sea_area"] * raided_sea_areas)


def can_fleet_block(arrow_is_danish: bool, enemy_in_both_areas: bool, danish_arrows: bool) -> bool:
    """Return whether a fleet in the sea area may block a sea crossing arrow: under 12.2.1 not a
    Danish one (nor Copenhagen-Malmo) when enemy corps or garrisons hold both land areas it joins."""
    return not (danish_arrows and arrow_is_danish and enemy_in_both_areas)


def raided_areas(fleets_at: Iterable[tuple[str, str]], enemies_of_britain: set[str], next_to_britain: set[str]) -> int:
    """Return how many sea areas next to Great Britain hold a fleet of an enemy of Britain, from
    (power, sea area) pairs (12.2.2, determined in the Economic Phase)."""
    return len({area for power, area in fleets_at if power in enemies_of_britain and area in next_to_britain})
