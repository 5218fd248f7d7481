"""The sums Cockpit of Europe's exclusive rules fix, as pure functions over numbers: the Dutch
Intimidation marker, the British Home Garrison, the Descent's and the Rising's length and
Prestige, the Milice pool and Field Force allowance, conversions, Carabiniers, combat grades,
sea lines of communication, sea attrition and the Peace Index. Case numbers are the book's.

Where the book says "round down" but its own example truncates toward zero (2.334-2.335), the
example is followed. Where it does not say how to round (5.264), the rounding is a named option.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

INTIMIDATION_START = 5  # 2.333: the marker starts on 5 when the Demonstration is initiated
INTIMIDATION_RANGE = (0, 9)  # 2.333: it cannot be shifted off the track
PEACE_END = 14  # 2.23: the campaign ends when the Peace Index reaches box 14
BHG_MINIMUM = 15  # 5.441: during an Invasion
BHG_RAISE = 20  # 5.441: after the Descent, and again after the Rising
DESCENT_TURNS = 10  # 6.252
RISING_TURNS = 12  # 6.26x: at least 12 full turns
MILICE_MINIMUM_PERCENT = 20  # 5.264
COASTAL_RAID_ALLOWANCE = 5  # 7.05: the French lose 5 SPs of Field Force allowance
COASTAL_RAID_BHG = 2  # 7.05: the Allies eliminate 2 SPs of the BHG
GRADES = "ABCDEFGH"  # combat effectiveness grades, best first ("C" to "D" is one grade worse)


def intimidation_modifier(marker: int) -> int:
    """Return the change to the Orange Revolution's base chance: (marker - 5) / 2, truncated
    toward zero as the book's own example reads it (2.334-2.335: 7 gives +1, 2 gives -1)."""
    return int((marker - INTIMIDATION_START) / 2)


def intimidation_after(marker: int, change: int) -> int:
    """Return the marker after a Dutch Intimidation Table result, kept on the track (2.333)."""
    low, high = INTIMIDATION_RANGE
    return max(low, min(high, marker + change))


def dutch_treaty_sps(roll: int) -> int:
    """Return the Dutch SPs of the Dutch Treaty Obligations: 20 less one die (5.521)."""
    return 20 - roll


def milice_percent(roll: int) -> int:
    """Return the share of the year's pool the Milice may deploy this turn: the die times 10%,
    never below 20% (5.264)."""
    return max(roll * 10, MILICE_MINIMUM_PERCENT)


def milice_emergency(roll: int, original: int, left: int, rounding: str = "down") -> int:
    """Return the Milice SPs the French may deploy this turn: the roll's share of the pool's
    original strength for the year, no more than the pool holds (5.264); `rounding` (down or
    up) is the option for a share that is not whole."""
    share = milice_percent(roll) * original
    sps = share // 100 if rounding == "down" else -(-share // 100)
    return max(0, min(sps, left))


def milice_excess(outside: int, allowance: int) -> int:
    """Return the Milice SPs outside France beyond the Field Force allowance, which go back to
    the Emergency pool at once (5.263)."""
    return max(0, outside - allowance)


def can_convert_milice(converted: int, sps: int, allowance: int) -> bool:
    """Return whether `sps` more Milice SPs may convert to Line this year: conversions are capped
    at 100% of the Field Force allowance a calendar year (5.26)."""
    return converted + sps <= allowance


def bhg_strength(sps: int, auxiliaries: int = 0, artillery_sps: int = 0) -> int:
    """Return a force's worth in England: SPs, auxiliaries one each, Artillery SPs two each (5.446)."""
    return sps + auxiliaries + 2 * artillery_sps


def bhg_net(allied: int, french: int) -> int:
    """Return the BHG's count once each French SP or equivalent in England negates one (5.447)."""
    return allied - french


def bhg_minimum(descent_over: bool, rising_over: bool) -> int:
    """Return the BHG's current minimum: 15, +20 after the Descent, +20 after the Rising (5.441)."""
    return BHG_MINIMUM + BHG_RAISE * descent_over + BHG_RAISE * rising_over


def invasion_change(net: int, minimum: int) -> int:
    """Return the turns an Invasion is prolonged (+) or shortened (-): +2 for every 5 SPs or
    fraction short of the minimum, -1 for every 5 full SPs over it (5.443)."""
    if net < minimum:
        return 2 * math.ceil((minimum - net) / 5)
    return -((net - minimum) // 5)


def invasion_turns(base: int, net: int, minimum: int) -> int:
    """Return an Invasion's length after the BHG's change, never below 1 turn (5.443)."""
    return max(1, base + invasion_change(net, minimum))


def descent_pp(turns: int) -> int:
    """Return the French PP for a Descent lasting `turns`: 1 per 3 turns after the 7th (6.253)."""
    return max(0, (turns - 7) // 3)


def rising_pp(turns: int) -> int:
    """Return the French PP for a Rising lasting `turns`: 1 per 4 turns after the 8th (6.266)."""
    return max(0, (turns - 8) // 4)


def bhg_french_pp(lowest: int, minimum: int) -> int:
    """Return the French PP at year's or scenario's end after an Invasion: 1 for every 5 SPs or
    fraction the lowest BHG fell short of its minimum (5.444)."""
    return math.ceil(max(0, minimum - lowest) / 5)


def bhg_allied_pp(strength: int, minimum: int) -> int:
    """Return the Allied PP for a BHG over its minimum outside an Invasion: 1 per 5 full SPs (5.445)."""
    return max(0, strength - minimum) // 5


def british_leaders_required(british_sps: int) -> int:
    """Return the British leaders the England Box must hold: 1 for every 10 British SPs (5.449)."""
    return british_sps // 10


def austrian_conversion_penalty(sps: int) -> int:
    """Return the Austrian replacement rate lost (in %) for converting `sps` Garrison SPs to Line:
    5% per 10 SPs or fraction (5.342); converting back gives 5% per 10 SPs (5.343): call
    `austrian_reconversion_credit`."""
    return 5 * math.ceil(sps / 10)


def austrian_reconversion_credit(sps: int) -> int:
    """Return the penalty removed (in %) by converting `sps` SPs back: 5% per full 10 SPs (5.343)."""
    return 5 * (sps // 10)


def carabinier_breakdowns(strength: int) -> int:
    """Return the breakdown counters of a Carabiniers brigade deployed as breakdowns: half its
    strength, rounded up (5.284)."""
    return math.ceil(strength / 2)


def carabiniers_after(strength: int, sacrificed: int) -> int:
    """Return the brigade's strength when it re-forms: 2 SPs lost per breakdown Sacrificed (5.285)."""
    return max(0, strength - 2 * sacrificed)


def la_maison_rps(eliminated: int) -> int:
    """Return the Resource Points La Maison du Roi's eliminated counters are worth: 3 each (5.233)."""
    return 3 * eliminated


def grade_worse(grade: str, steps: int = 1) -> str:
    """Return a combat effectiveness grade `steps` grades worse ("C" -> "D", 5.31)."""
    return GRADES[min(len(GRADES) - 1, GRADES.index(grade) + steps)]


def grade_better(grade: str, steps: int = 1) -> str:
    """Return a combat effectiveness grade `steps` grades better ("E" -> "D", 5.514)."""
    return GRADES[max(0, GRADES.index(grade) - steps)]


def austrian_drill_grade(grade: str, sps: int, allies_attack: bool) -> str:
    """Return an Austrian foot unit's grade: one worse with 4 SPs or more when the Allies attack (5.31)."""
    return grade_worse(grade) if sps >= 4 and allies_attack else grade


def fureur_grade(grade: str, boxed: bool, french_attack: bool) -> str:
    """Return a French infantry unit's grade in battle: one better when its CE is boxed and the
    French attack (Le Fureur Francaise, 5.21)."""
    return grade_better(grade) if boxed and french_attack else grade


def dutch_grade(grade: str, orange_revolution: bool) -> str:
    """Return a Dutch unit's grade: one better once the Orange Revolution has occurred (5.514)."""
    return grade_better(grade) if orange_revolution else grade


def russian_grade(grade: str, defending: bool) -> str:
    """Return a Russian unit's grade in battle: one better on the defending side (5.721)."""
    return grade_better(grade) if defending else grade


def sea_loc_brackets(between_ports: bool, winter_or_spring: bool) -> int:
    """Return the range brackets a sea LoC adds: 1 between two ports, 1 more in Winter and Spring
    (3.541-3.542; a Riverine Route is used instead where there is one)."""
    return (1 + int(winter_or_spring)) if between_ports else 0


def bracket_after(brackets: Sequence[str], start: str, added: int) -> str:
    """Return the bracket `added` brackets beyond `start` in the ordered `brackets` (Short ->
    Medium for 1, 3.541), the last one when the list runs out."""
    return brackets[min(len(brackets) - 1, brackets.index(start) + added)]


def sea_attrition_factor(command: str) -> int:
    """Return the multiplier of a French force's sea attrition losses: x1 with French command of
    the Channel, x2 with neither side's, x4 with the Royal Navy's (6.223)."""
    return {"french": 1, "neither": 2, "royal-navy": 4}[command]


def auxiliaries_lost(sp_losses: int, sps_present: int, auxiliaries: int) -> tuple[int, int]:
    """Return (SPs lost, auxiliaries lost) at sea: at most 1 auxiliary per 5 SPs lost, unless too
    few SPs are present, when auxiliaries pay for the SPs that cannot be (3.532)."""
    if sp_losses <= sps_present:
        return sp_losses, min(auxiliaries, sp_losses // 5)
    return sps_present, min(auxiliaries, sp_losses - sps_present)


def provence_sent(required: int, in_play: int) -> tuple[int, bool]:
    """Return (SPs sent to Southern France, whether the French lose a Prestige Level) for a
    Defeat in Provence: all if the French have them; half of the requirement if they hold over
    half of it; else none, and a Prestige Level lost (6.423). Exactly half, which the book does
    not cover, is read as "not over half"."""
    if in_play >= required:
        return required, False
    if 2 * in_play > required:
        return required // 2, False
    return 0, True


def powder_magazine(garrison: int) -> tuple[int, bool]:
    """Return the garrison's SPs after a Powder Magazine explodes, and whether it surrenders
    (under 3 SPs left, 7.04)."""
    left = max(0, garrison - 1)
    return left, left < 3


def peace_after(index: int, change: int) -> int:
    """Return the Peace Index after a shift, kept at 0 or above (a Setback at 0 moves nothing)."""
    return max(0, index + change)


def breakthrough(index: int) -> int:
    """Return the Peace Index after Reach a Breakthrough: +1, unless that would end the war (7.06)."""
    return index if index + 1 >= PEACE_END else index + 1


def is_peace(index: int) -> bool:
    """Return whether the Peace Index has reached the box that ends the campaign (2.23)."""
    return index >= PEACE_END


def town_independence_garrison(roll: int, limit: int | None) -> int:
    """Return the SPs of a Garrison placed by Town Independence: the die halved (rounded down,
    the series' rule for fractions), no more than the garrison limit (7.062)."""
    sps = roll // 2
    return sps if limit is None else min(sps, limit)


def flood_next_request(refused_on: int) -> int:
    """Return the first turn a new flooding request may be made after one refused on turn
    `refused_on`: three full turns must pass (1.251)."""
    return refused_on + 4


CHARGES = {"chevaux-legers": 3, "irish": 2, "ecossais-royaux": 2, "black-watch": 2}


def charge_multiplier(unit: str) -> int:
    """Return a charging unit's multiplier: Chevaux-Legers x3 (5.281), the Irish and the
    Ecossais Royaux x2 (5.254), British units of the Black Watch's Wing x2 (5.432); else x1."""
    return CHARGES.get(unit, 1)


def irish_maximum(ecossais_formed: bool) -> int:
    """Return d'Irelandois' most SPs: 7, or 6 once the Ecossais Royaux exist (5.252)."""
    return 6 if ecossais_formed else 7


def garrison_contingent(sps: dict[str, int], grades: dict[str, str]) -> str:
    """Return the contingent of a Garrison formed from several contingents' SPs: the one giving
    the most SPs, a tie going to the worst combat effectiveness grade (8.142)."""
    most = max(sps.values())
    tied = [contingent for contingent, count in sps.items() if count == most]
    return max(tied, key=lambda contingent: (GRADES.index(grades[contingent]), contingent))
