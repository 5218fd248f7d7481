"""The arithmetic the rulebook fixes, as pure functions over numbers (rule numbers in each docstring).

Everything here is legible in the book (its worked examples and the optional rules 22.x); what
the book leaves out (the CRT, the siege table, who rates what) comes from the referee's
supplies and is passed in. Rounding differs by rule, so each function says which it uses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

ADMIN_MARCH_CP = 1  # 8.8: a leaderless force marches for 1 CP
ADMIN_MARCH_AP = 6  # 8.8.1: with a fixed 6 AP
ADMIN_MARCH_MAX_SP = 15  # 8.8.1, 22.6: up to 15 SP
CH_PLACEMENT_CP = 1  # 8.1's example: placing a C/H costs 1 CP
SIEGE_ROLL_AP = 2  # 15.4: 2 AP a siege roll (Maillebois: 4 AP, 2 rolls)
ENTER_AP = 1  # 8.3: 1 AP a space entered
SURCHARGE_AP = 1  # 8.3: +1 AP into a space where a Major Battle may start, or by enemy C/H (12.3)
OVERRUN_AP = 0  # 8.3, 8.9: an overrun costs nothing
WORN_MAX = 3  # 13.9: Worn -1 to -3
SS_MAX = 3  # 11.x: Short Supply SS-1 to SS-3
LARGE_BATTLE_SP = 90  # 22.1: Large Battles are 90 SP or more, both sides together
CAVALRY_MAJOR_FORCE_SP = 10  # 22.2: both sides 10 SP or more
CAVALRY_MARGIN = 4  # 22.2: 4 more cavalry SP
CI_SUCCESS = {"france": 3, "britain": 5}  # 22.3.2: French 1-3, British 1-5
TERRAIN_DRM = {"clear": (0, 0), "mountain": (-2, 2), "alpine": (-3, 3)}  # 13.4: (attacker, defender)


def round_half_up(value: Fraction) -> int:
    """Return `value` rounded to a whole number, halves up (13.6: 70 SP at 5% lose 4 SP)."""
    return math.floor(value + Fraction(1, 2))


def round_six_tenths_up(value: Fraction) -> int:
    """Return `value` rounded with .6 and more up, .5 and less down (5.1: 2.3 -> 2, 2.7 -> 3)."""
    whole = math.floor(value)
    return whole + 1 if value - whole >= Fraction(6, 10) else whole


def attrition_loss(sp: int, percent: int, demoralized: bool = False, short_supply: int = 0) -> int:
    """Return the SP a force loses to attrition (5.1, 17.3): `percent` (10 or 20, by its region)
    of its SP, rounded .6 up, plus 1 if Demoralized and N for an SS-N marker."""
    if percent not in (10, 20):
        raise ValueError(f"attrition is 10% or 20% of a force's SP (5.1), not {percent}%")
    if not 0 <= short_supply <= SS_MAX:
        raise ValueError(f"a Short Supply marker is SS-1 to SS-{SS_MAX}, not SS-{short_supply}")
    return round_six_tenths_up(Fraction(sp * percent, 100)) + (1 if demoralized else 0) + short_supply


def ap_allowance(ap_rating: int, sp: int) -> int:
    """Return an activated Command's AP (8.4): its commander's AP rating, -1 with 35-50 SP,
    -2 with 51 SP or more (De Saxe, AP 8, with 70 SP: 6 AP)."""
    if sp >= 51:
        return ap_rating - 2
    if sp >= 35:
        return ap_rating - 1
    return ap_rating


def move_cost(enemy_command: bool = False, ch: bool = False, overrun: bool = False) -> int:
    """Return the AP a space entered costs (8.3): 1, +1 where a Major Battle may start, +1 in or
    next to enemy C/H (12.3: 2 AP into a Successful Raid space); an overrun adds nothing (8.9)."""
    return ENTER_AP + (SURCHARGE_AP if enemy_command else 0) + (SURCHARGE_AP if ch else 0) + OVERRUN_AP * overrun


def activation_ap_spent(moves: Sequence[Mapping[str, bool]], siege_rolls: int = 0) -> int:
    """Return the AP an activation spends: its spaces entered (`move_cost` each) and its siege
    rolls (2 AP each, 15.4)."""
    spent = sum(move_cost(m.get("enemy_command", False), m.get("ch", False), m.get("overrun", False)) for m in moves)
    return spent + SIEGE_ROLL_AP * siege_rolls


def mixed_army_rating(ratings: Sequence[int]) -> int:
    """Return the Army Rating of a force of several nationalities (13.3): the plain average of
    their ratings, rounded up (British 5, Dutch 2, Austrian 4: 11/3 -> 4)."""
    if not ratings:
        raise ValueError("a force needs at least one nationality to have an Army Rating")
    return math.ceil(Fraction(sum(ratings), len(ratings)))


def army_battle_rating(army_rating: int, commander: int, others: Sequence[int] = ()) -> int:
    """Return a side's ABR (13.3): its Army Rating, its commander's rating and the other leaders'
    ratings that count (Army 4 + Charles 1 + Batthyani 1 = 6)."""
    return army_rating + commander + sum(others)


def abr_drms(first: int, second: int) -> tuple[int, int]:
    """Return each side's ABR DRM (13.3.3): the higher ABR takes the difference on its own roll,
    the other nothing (Prussia 8, Austria 6: +2 and 0)."""
    return max(first - second, 0), max(second - first, 0)


def cavalry_superiority(sp: tuple[int, int], cavalry: tuple[int, int]) -> tuple[int, int]:
    """Return each side's DRM from Cavalry Superiority (22.2): with 10 SP or more on both sides,
    a side with at least 4 more cavalry SP gives the other -1."""
    if min(sp) < CAVALRY_MAJOR_FORCE_SP:
        return 0, 0
    if cavalry[0] - cavalry[1] >= CAVALRY_MARGIN:
        return 0, -1
    if cavalry[1] - cavalry[0] >= CAVALRY_MARGIN:
        return -1, 0
    return 0, 0


def terrain_drms(terrain: str) -> tuple[int, int]:
    """Return (attacker, defender) DRMs for the battle space's terrain (13.4)."""
    if terrain not in TERRAIN_DRM:
        raise ValueError(f"terrain is one of {', '.join(TERRAIN_DRM)}, not {terrain!r}")
    return TERRAIN_DRM[terrain]


def battle_drm(abr_drm: int, card_drms: Sequence[int] = (), worn: int = 0, other: Sequence[int] = ()) -> int:
    """Return a side's net battle DRM (13.5): its ABR DRM, every card DRM aimed at it (its own
    cards' bonuses, the enemy's maluses), its Worn marker (-1 to -3) and any other DRMs."""
    if not 0 <= worn <= WORN_MAX:
        raise ValueError(f"a Worn marker is -1 to -{WORN_MAX}")
    return abr_drm + sum(card_drms) - worn + sum(other)


def losses_inflicted(own_sp: int, percent: int | Fraction) -> int:
    """Return the SP a side's fire takes from the enemy (13.6): its own SP times the CRT's
    percentage, halves rounded up (20 SP at 25%: 5; 70 SP at 5%: 4)."""
    return round_half_up(Fraction(own_sp) * Fraction(percent) / 100)


def halve_round_up(losses: int) -> int:
    """Return losses halved, rounding up (22.1's sample Large Battles card: 7 -> 4, 5 -> 3)."""
    return math.ceil(Fraction(losses, 2))


def is_large_battle(sp_first: int, sp_second: int) -> bool:
    """Return whether a Major Battle uses a DB card's Large Battles part (22.1: 90 SP together)."""
    return sp_first + sp_second >= LARGE_BATTLE_SP


def battle_winner(inflicted: tuple[int, int], abr: tuple[int, int]) -> int | None:
    """Return the winning side's index (13.7): the side that inflicted more SP losses, on a tie
    the higher ABR; None when both tie too (the book's next tie-break is illegible)."""
    if inflicted[0] != inflicted[1]:
        return 0 if inflicted[0] > inflicted[1] else 1
    if abr[0] != abr[1]:
        return 0 if abr[0] > abr[1] else 1
    return None


def raid_succeeds(roll: int, enemy_sp: int) -> bool:
    """Return whether a C/H raid succeeds (12.4): the d6 beats the enemy SP in the space."""
    return roll > enemy_sp


def siege_rolls_for(ap: int) -> int:
    """Return the siege rolls `ap` buys (15.4: 2 AP each)."""
    return ap // SIEGE_ROLL_AP


def colonial_influence_succeeds(power: str, roll: int) -> bool:
    """Return whether a Colonial Influence marker succeeds (22.3.2): French on 1-3, British on 1-5."""
    if power not in CI_SUCCESS:
        raise ValueError("only the British and French place Colonial Influence markers (22.3)")
    return roll <= CI_SUCCESS[power]


def bombardment(rolls: Sequence[int], depots: int, sp: int) -> tuple[int, int]:
    """Return (depots, SP) a Fleet Bombardment eliminates (22.7): each 6 takes one, every Depot
    before any SP."""
    sixes = sum(1 for roll in rolls if roll == 6)
    gone_depots = min(sixes, depots)
    return gone_depots, min(sixes - gone_depots, sp)


def may_trace_supply(nation: str, source: str, sp: int) -> bool:
    """Return whether SP of `nation` may trace supply to a `source` power's source under 22.8:
    French to French or Spanish (5 SP or less to Prussian), Prussian to Prussian (5 SP or less
    to French); other nations are not limited by this rule."""
    if nation == "france":
        return source in ("france", "spain") or (source == "prussia" and sp <= 5)
    if nation == "prussia":
        return source == "prussia" or (source == "france" and sp <= 5)
    return True
