"""Pace: whether a bound has a combat step at all, and who has something to decide in it.

A combat phase opens only when some card is in contact or some card could shoot (L171-L173), and
waits only for the players with a choice to make: a card with more than one target (or a target
more than one of their cards could shoot: which shoots and which aids, L317), the order of
combats for the phasing player (L172-L173, when there are two or more), and which card fights
Combat Engineers touched by several (L291). When nobody has a choice, the referee fights the
combat step at once, in the movement phase's report.

Everything here is judged from what both players see (the hidden-information rule of the
README): a face-down card is taken to be whatever card it could be, so it could shoot as far as
the longest weapon in the game (artillery's only if it has not moved, L313) and it could be
Combat Engineers. Neither a phase opening nor a player being waited for tells anyone what a
face-down card is not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.cest_la_guerre.battle import engaged, in_lane, line_blocked, shots_allowed
from games.cest_la_guerre.data import WEAPONS
from games.cest_la_guerre.relations import contacts_on
from games.cest_la_guerre.units import can_shoot, is_artillery, marker_order, placed, weapon_range

Unit = dict[str, Any]
GUNS = ("artillery", "heavy_artillery", "horse_artillery")


def unseen_reach(state: Mapping[str, Any], card: Mapping[str, Any]) -> int:
    """Return how far a face-down card might shoot, from what anyone sees: the longest weapon in
    the game, and the longest that is not a gun if it moved (guns that moved do not shoot, L313)."""
    options = state["options"]
    ranges = {**WEAPONS, "horse_artillery": options["horse_artillery_range_mm"], "pistol": options["pistol_range_mm"]}
    key = "moved_round" if options["artillery_still_for"] == "round" else "moved_bound"
    if card[key]:
        ranges = {weapon: reach for weapon, reach in ranges.items() if weapon not in GUNS}
    return max(ranges.values())


def seen_shooter_reach(state: Mapping[str, Any], card: Mapping[str, Any]) -> int | None:
    """Return how far a card may shoot now as both players see it (None: it cannot shoot)."""
    if not card["face_up"]:
        return None if engaged(state, card) else unseen_reach(state, card)
    options = state["options"]
    if not can_shoot(card, options) or card["shots"] >= shots_allowed(state, card) or engaged(state, card):
        return None
    key = "moved_round" if options["artillery_still_for"] == "round" else "moved_bound"
    if is_artillery(card) and card[key]:
        return None
    return weapon_range(card, options)


def possible_targets(state: Mapping[str, Any], card: Mapping[str, Any]) -> list[Unit]:
    """Return the enemy cards `card` could shoot at, as both players see it (marker order)."""
    reach = seen_shooter_reach(state, card)
    if reach is None:
        return []
    guns = None if card["face_up"] else True  # a face-down card might be guns on a hill, firing over friends
    found = []
    for target in sorted(placed(state), key=marker_order):
        if target["owner"] == card["owner"] or in_lane(state, card, target, reach) is None:
            continue
        if line_blocked(state, card, target, guns) is None and not engaged(state, target):
            found.append(target)
    return found


def possible_shots(state: Mapping[str, Any]) -> dict[str, list[str]]:
    """Return, by marker, the enemy markers each card could shoot at, as both players see it."""
    found = {}
    for card in sorted(placed(state), key=marker_order):
        targets = possible_targets(state, card)
        if targets:
            found[card["marker"]] = [t["marker"] for t in targets]
    return found


def contact_pairs(state: Mapping[str, Any]) -> list[tuple[Unit, Unit]]:
    """Return every (attacker, contacted card) pair: a card's front edge against an enemy."""
    return [(attacker, card) for card in placed(state) for attacker, _ in contacts_on(state, card)]


def combat_possible(state: Mapping[str, Any]) -> bool:
    """Return whether any fight or shot may happen this combat step, judged from what both see."""
    return bool(contact_pairs(state)) or bool(possible_shots(state))


def deciders(state: Mapping[str, Any]) -> tuple[str, ...]:
    """Return the roles with a choice to make in this combat step, in role order (see the module doc)."""
    found = choices(state)
    return tuple(role for role in state["roles"] if found.get(role))


def choices(state: Mapping[str, Any]) -> dict[str, list[str]]:
    """Return, by role, the choices it may have in this combat step, in words (from what both see)."""
    shots = possible_shots(state)
    pairs = contact_pairs(state)
    cards = {card["marker"]: card for card in placed(state)}
    found: dict[str, list[str]] = {}
    aimed: dict[tuple[str, str], list[str]] = {}
    for shooter, targets in shots.items():
        owner = cards[shooter]["owner"]
        if len(targets) > 1:
            found.setdefault(owner, []).append(f"{shooter}'s target among {', '.join(targets)}")
        for target in targets:
            aimed.setdefault((owner, target), []).append(shooter)
    for (owner, target), shooters in aimed.items():
        if len(shooters) > 1:
            found.setdefault(owner, []).append(f"which of {', '.join(shooters)} shoots at {target} and which aid")
    touching: dict[str, list[str]] = {}
    for attacker, card in pairs:
        if not card["face_up"] or card["type"] == "engineers":
            touching.setdefault(card["marker"], []).append(attacker["marker"])
    for target, attackers in touching.items():
        if len(attackers) > 1:
            owner = cards[attackers[0]]["owner"]
            found.setdefault(owner, []).append(f"which of {', '.join(attackers)} fights {target} if Combat Engineers")
    # Two cards that could shoot each other make one combat (the target returns fire, L313).
    combats = {frozenset((a["marker"], c["marker"])) for a, c in pairs}
    combats |= {frozenset((shooter, target)) for shooter, targets in shots.items() for target in targets}
    if len(combats) > 1 and state["options"].get("combat_order", "asked") == "asked":
        found.setdefault(state["phasing"], []).append(f"the order of up to {len(combats)} combats")
    return found
