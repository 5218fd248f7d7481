"""A test bot for empires-in-arms: the coalition scenario with test tables (made-up values, not
the book's), standing policies, a land combat with guards and artillery on both sides, and a
naval combat of British, Swedish, Portuguese and Russian ships against the French fleet."""

from __future__ import annotations

import random
from typing import Any

# Test values, not the book's (the chapter prints none of these tables).
ROWS_32 = {"1": [1, 0.5], "2": [1, 0.5], "3": [2, 0.5], "4": [2, 1.0], "5": [3, 1.0], "6": [3, 1.5]}


def _column(shift: int) -> dict[str, Any]:
    return {t: {"losses": loss + shift, "morale": morale + shift / 2} for t, (loss, morale) in ROWS_32.items()}


COMBAT_RESULTS = {
    "dice": "1d6",
    "default_table": "3-3",
    "breaks_at_morale": 0,
    "rounds": {"field": 3, "limited-field": 3, "trivial": 1, "naval": 1},
    "columns": {"3-2": _column(0), "3-3": _column(1), "3-4": _column(2), "3-5": _column(3), "5-5": _column(1)},
}
GUARD_TABLE = {
    "dice": "1d6",
    "columns": {
        "+1": {"1": 0, "2": 0, "3": 1, "4": 1, "5": 1, "6": 2},
        "+2": {"1": 1, "2": 1, "3": 1, "4": 2, "5": 2, "6": 3},
    },
}
COMPETITIVE = {"dice": "1d6", "higher_wins": True, "odd_loss_to": "loser"}
RULES_ON = (
    "guard_commitment",
    "artillery_corps",
    "cavalry_superiority",
    "cavalry_withdrawals",
    "proportional_land_losses",
    "proportional_naval_losses",
    "leader_casualties",
    "overwhelming_numbers",
    "large_fleets",
    "napoleon_ratings",
    "british_training",
)
OPTIONS: dict[str, Any] = {
    "rounds": 4,
    **{key: True for key in RULES_ON},
    "combat_results": COMBAT_RESULTS,
    "guard_table": GUARD_TABLE,
    "competitive_rolls": COMPETITIVE,
}
LAND_ATTACK = {
    "kind": "field",
    "area": "bavaria",
    "attackers": ["ru-guard", "ru-cossacks", "ru-artillery", "gb-corps-1", "pt-corps"],
    "defenders": ["fr-guard", "fr-corps-1", "fr-artillery"],
}
NAVAL_ATTACK = {
    "kind": "naval",
    "area": "north-sea",
    "attackers": ["gb-fleet-1", "se-fleet", "pt-fleet", "ru-fleet"],
    "defenders": ["fr-fleet"],
}
POLICIES = {
    "france": {"table": "3-3", "bombard": True, "guard": {"nation": "france", "shift": 2, "rounds": [2]}},
}


def orders_for(state: dict[str, Any], spec: Any, role: str, rng: random.Random) -> dict[str, Any]:
    """Return `role`'s orders for the open phase, from the state or a player's view (which shows
    the same units and combats)."""
    return orders_from(state, spec.name, spec.turn, role, rng)


def orders_from(state: dict[str, Any], name: str, turn: int, role: str, rng: random.Random) -> dict[str, Any]:
    """Return `role`'s orders for phase `name` of `turn`."""
    if name.startswith("combat-"):
        combat = state["combats"][0]
        orders: dict[str, Any] = {"table": rng.choice(["3-2", "3-3"])}
        if combat["kind"] == "naval":
            return orders  # a naval round takes the table alone
        orders["bombard"] = True
        side = next(s for s in ("attacker", "defender") if combat["sides"][s]["commander"] == role)
        guards = {
            u["nation"]
            for uid in combat["sides"][side]["units"]
            for u in [state["units"][uid]]
            if u.get("factors", {}).get("guard", 0) >= 2 and u["nation"] in ("france", "russia")
        }
        if guards and not combat["guard_used"][side] and rng.random() < 0.7:
            orders["guard"] = {"nation": sorted(guards)[0], "shift": 1}
        return orders
    if name.startswith("losses-"):
        combat = state["combats"][0]
        pending = combat.get("pending") or combat.get("losses_to_share") or {}
        share = next(s for s in pending.values() if role in s["proposers"])
        split = dict(share["shares"])
        odd = share["count"] - sum(split.values())
        nations = sorted(split)
        target = rng.choice(nations) if role != "britain" else nations[0]
        while odd:
            step = 1 if odd > 0 else -1
            if 0 <= split[target] + step <= share["strengths"][target]:
                split[target] += step
                odd -= step
            else:
                target = nations[(nations.index(target) + 1) % len(nations)]
        return {"split": split}
    orders = {}
    if turn == 1 and role in POLICIES:
        orders["policy"] = POLICIES[role]
    if turn == 3 and role == "france":
        fresh = [
            uid
            for uid, u in state["units"].items()
            if u["power"] in ("britain", "russia")
            and u["type"] == "corps"
            and u["area"] == "bavaria"
            and sum(u["factors"].values()) > 0
            and not u.get("demobilised")
        ]
        engaged = {uid for c in state["combats"] for s in c["sides"].values() for uid in s["units"]}
        fresh = [uid for uid in fresh if uid not in engaged][:2]
        if fresh and "fr-corps-2" not in engaged:
            orders["moves"] = [{"unit": "fr-corps-2", "to": "bavaria"}]
            orders["attack"] = [{"kind": "field", "area": "bavaria", "attackers": ["fr-corps-2"], "defenders": fresh}]
    if turn == 2:
        if role == "russia":
            orders["attack"] = [LAND_ATTACK]
        if role == "britain":
            orders["attack"] = [NAVAL_ATTACK]
    return orders
