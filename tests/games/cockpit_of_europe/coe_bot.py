"""A Cockpit of Europe test bot: orders from a side's own view alone, reaching every sealed part
(set-ups, plans, the Descent, candidate lists, standing orders, sea movement) and duels."""

from __future__ import annotations

import random
from typing import Any

LEADERS = {"allies": ["Waldeck", "Ligonier", "Batthyany"], "france": ["Lowendal", "Clermont", "Saxe"]}
ROYALS = {"allies": ["Cumberland"], "france": ["Louis XV"]}


def candidates(side: str) -> dict[str, list[str]]:
    """Return a side's candidate lists (made-up names, each side its own)."""
    return {
        "leaders": list(LEADERS[side]),
        "royals": list(ROYALS[side]),
        "grand-army-stacks": [f"{side}-grand-army"],
        "hubs": [f"{side}-hub"],
        "half-depots": [f"{side}-depot-half"],
        "full-depots": [f"{side}-depot-full"],
        "sieges": [f"{side}-siege-at-Mons: 4"],
        "mess": [f"{side}-line: {side}-colonel"],
    }


def orders_for(view: dict[str, Any], side: str, rng: random.Random) -> dict[str, Any]:
    """Return the orders a plain-minded side writes in the open phase."""
    phase = view["phase"]
    if phase == "set-up":
        orders: dict[str, Any] = {
            "setup": f"{side} set-up {rng.randint(1, 999)}",
            "plan": f"{side} plan A",
            "candidates": candidates(side),
        }
        if side == "france":
            orders["descent"] = rng.choice(["launch", "decline"])
        return orders
    if phase == "start-of-turn":
        return (
            {"challenge": [{"challenger": p[0], "target": p[1]} for p in view["enemies"][:1]]}
            if rng.random() < 0.5
            else {}
        )
    if phase == "administration":
        orders = {"candidates": candidates(side)}
        if side == "france":
            orders["standing"] = {"milice": {"deploy": "all to Lille"}}
            orders["embark"] = [{"force": f"force-{view['turn']}", "destination": "Oostende"}]
            held = [entry["force"] for entry in view["at_sea"] if entry["side"] == side]
            orders["land"] = held[:1]
        else:
            orders["bhg"] = {"sps": rng.randint(10, 30), "british_sps": 12}
            orders["plan"] = "plan B"
        return orders
    if phase == "start-of-operations":
        independence = view["town_independence"]
        if independence and independence["side"] == side:
            return {"standing": {"town_independence": {"places": ["any"], "garrison_limit": 3}}}
        return {}
    if side == "allies":
        return {"entered_france": ["Lille"], "ended_on_empty": ["Ath"]} if rng.random() < 0.5 else {}
    return {"ended_on_empty": ["Ath"]}
