"""Land combat under chapter 12.0, as pure functions over plain counts: cavalry superiority and
withdrawals (12.3.3), the cap on a combat die roll's modifiers, overwhelming numbers (12.3.10),
artillery bombardment (12.3.5), and the morale British training gives (12.3.2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from games.empires_in_arms.chapter import CONSTANTS

CAVALRY_KINDS = ("cavalry", "cossack", "freikorps")  # 12.3.3: cossacks and freikorps count as cavalry
FIELD_KINDS = ("field", "limited-field", "trivial")


def cavalry(factors: Mapping[str, int]) -> int:
    """Return a side's cavalry factors for 12.3.3 (cavalry, cossacks and freikorps)."""
    return sum(factors.get(kind, 0) for kind in CAVALRY_KINDS)


def is_all_cavalry(factors: Mapping[str, int]) -> bool:
    """Return whether every factor of a force is cavalry (cossacks and freikorps included)."""
    total = sum(factors.values())
    return total > 0 and cavalry(factors) == total


def cavalry_superiority(side: Mapping[str, int], other: Mapping[str, int], combat: str) -> int:
    """Return the modifier cavalry superiority gives `side`'s combat die roll this round (12.3.3):
    +1 with at least twice the other side's cavalry (recounted each round, an outflanking force's
    cavalry only once it has arrived: pass only the factors present), in field, limited field or
    trivial combat; 0 when every factor on both sides is cavalry."""
    rule = CONSTANTS["cavalry_superiority"]
    if combat not in FIELD_KINDS or (is_all_cavalry(side) and is_all_cavalry(other)):
        return 0
    mine, theirs = cavalry(side), cavalry(other)
    return rule["modifier"] if mine > 0 and mine >= rule["ratio"] * theirs else 0


def capped_modifier(modifiers: Sequence[int]) -> int:
    """Return the net modifier to a combat die roll: the sum of all, never more than +1 (12.3.3)."""
    return min(sum(modifiers), CONSTANTS["cavalry_superiority"]["net_modifier_cap"])


def withdrawal_rating(
    rating: int, defender_movement_values: Sequence[int], defender_all_cavalry: bool, attacker_all_cavalry: bool
) -> int:
    """Return the strategic rating a defender withdraws with (12.3.3): +1 for a force of cavalry
    corps (or corps of movement value 5) alone or with cossacks and freikorps, unless the attacker
    is all cavalry too or the commander's rating is already 5 (errata)."""
    rule = CONSTANTS["cavalry_withdrawals"]
    fast = bool(defender_movement_values) and all(v >= rule["movement_value"] for v in defender_movement_values)
    if (defender_all_cavalry or fast) and not attacker_all_cavalry and rating != rule["not_if_rating"]:
        return rating + rule["bonus"]
    return rating


def is_overwhelming(attacker: int, defender: int) -> bool:
    """Return whether one side has 5:1 or better in strength factors (12.3.10): the field or limited
    field combat is then fought as trivial combat."""
    ratio = CONSTANTS["overwhelming_numbers"]["ratio"]
    return (defender > 0 and attacker >= ratio * defender) or (attacker > 0 and defender >= ratio * attacker)


def combat_kind(kind: str, attacker: int, defender: int, overwhelming_numbers: bool) -> str:
    """Return the kind of combat fought: trivial instead of field or limited field at 5:1 (12.3.10)."""
    if overwhelming_numbers and kind in ("field", "limited-field") and is_overwhelming(attacker, defender):
        return "trivial"
    return kind


def withdraws(roll: int, rating: int) -> bool:
    """Return whether an outnumbered defender's withdrawal roll succeeds: the commander's strategic
    rating or less (12.3.10)."""
    return roll <= rating


def can_bombard(
    power_nations: Sequence[str], artillery: int, combat: str, terrain: str, relieved: bool = False
) -> bool:
    """Return whether a side's artillery corps bombards before the round (12.3.5): France or Russia,
    with artillery factors present, in field, limited field or trivial combat (a siege assault or
    a defender attack only when a relieving force makes it a limited field combat), not in marsh."""
    rule = CONSTANTS["artillery_corps"]
    if artillery <= 0 or not any(nation in rule["powers"] for nation in power_nations):
        return False
    if terrain in rule["no_bombardment_in"]:
        return False
    return combat in FIELD_KINDS or (combat in ("siege-assault", "defender-attack") and relieved)


def bombardment_spares_militia(morale_loss: float) -> bool:
    """Return whether bombardment losses must be taken from other factors than militia where
    possible: when the side already has a morale loss of 2.0 or more (12.3.5)."""
    return morale_loss >= CONSTANTS["artillery_corps"]["militia_spared_at_morale_loss"]


def only_artillery(factors: Mapping[str, int]) -> bool:
    """Return whether a side (or its pinning force) is artillery alone: it breaks at once (12.3.5)."""
    total = sum(factors.values())
    return total > 0 and factors.get("artillery", 0) == total


def months_between(start: str, end: str) -> int:
    """Return whole months from YYYY-MM `start` to YYYY-MM `end`."""
    y1, m1 = (int(part) for part in start.split("-"))
    y2, m2 = (int(part) for part in end.split("-"))
    return (y2 - y1) * 12 + (m2 - m1)


def trained_morale(nation: str, british_since: str | None, date: str, garrison: bool, usual: float) -> float:
    """Return the morale of Hanoverian or Portuguese factors under British training (12.3.2): 4.0
    in their corps after 24 continuous months as a British-controlled minor free state; garrison
    factors, and everyone else, keep `usual`."""
    rule = CONSTANTS["british_training"]
    if garrison or nation not in rule["nations"] or british_since is None:
        return usual
    return rule["corps_morale"] if months_between(british_since, date) >= rule["months"] else usual


def depot_can_supply(already_supplied: int) -> bool:
    """Return whether a depot may supply one more corps or besieged garrison (12.3.1: four at most)."""
    return already_supplied < CONSTANTS["depot_limit"]["units_per_depot"]
