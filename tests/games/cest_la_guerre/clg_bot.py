"""A simple player for whole-game tests: it advances on the enemy, charges what it can reach and
shoots what it may. It reads only what its own view shows (its own cards, the public table),
and writes orders a player could write; each phase's orders are trimmed until the rules accept
them (as a player would after reading the refusal)."""

from __future__ import annotations

import copy
import re
from typing import Any

from games.cest_la_guerre import GAME
from games.cest_la_guerre.battle import shooter_problem, target_problem
from games.cest_la_guerre.formations import command_group
from games.cest_la_guerre.geometry import describe_facing, heading, opposite
from games.cest_la_guerre.units import placed, units_of

ARMIES = {
    "blue": {
        "list": "gnw_sweden",
        "choices": [2],
        "dummies": 2,
        "reserve": ["sub-command-average-1", "cavalry-average-1", "cavalry-average-2", "dummy-2"],
    },
    "red": {"list": "wss_british_dutch_hanover", "dummies": 3},
}
TERRAIN = {
    "features": [
        {"kind": "woods", "x1": 100, "y1": 380, "x2": 250, "y2": 520},
        {"kind": "river", "x1": 1000, "y1": 300, "x2": 1040, "y2": 600},
        {"kind": "hill", "x1": 750, "y1": 400, "x2": 900, "y2": 500},
    ],
    "side_by": "die",
}


def army_orders(role: str, secret: str) -> dict[str, Any]:
    """Return the role's army order, every card named `<secret>-<id>` (names no opponent may ever see)."""
    orders = copy.deepcopy(ARMIES[role])
    summary_cards = _card_ids(orders)
    orders["names"] = [{"unit": card, "name": f"{secret}-{card}"} for card in summary_cards]
    return orders


def _card_ids(orders: dict[str, Any]) -> list[str]:
    from games.cest_la_guerre.armies import build_army
    from games.cest_la_guerre.options import resolve_options

    _, cards, problems = build_army(orders, resolve_options({}))
    assert not problems, problems
    return [card["id"] for card in cards]


def orders_for(state: dict[str, Any], role: str) -> dict[str, Any]:
    """Return this player's orders for the open phase."""
    spec = GAME.phase(state)
    assert spec is not None
    stage = state["stage"]
    if stage == "terrain":
        return copy.deepcopy(TERRAIN)
    if stage == "deploy":
        return copy.deepcopy(spec.example)
    if stage == "move":
        return trim(state, role, movement(state, role, spec.example))
    if stage == "combat":
        return trim(state, role, shooting(state, role))
    raise AssertionError(stage)


def movement(state: dict[str, Any], role: str, example: dict[str, Any]) -> dict[str, Any]:
    """Advance: the General's group first (one IP), then cards one at a time, charging when close."""
    forward = opposite(state["edges"][role])
    actions: list[dict[str, Any]] = []
    general = next(u for u in units_of(state, role) if u["type"] == "general")
    moved: set[str] = set()
    if general["status"] == "table":
        group = [u for u in command_group(state, general) if not u["disordered"]]
        if len(group) > 1:
            actions.append({"group": general["marker"], "moves": [_advance(state, u, forward) for u in group]})
            moved |= {u["marker"] for u in group}
    enemies = [u for u in placed(state) if u["owner"] != role]
    for unit in units_of(state, role):
        if unit["status"] != "table" or unit["marker"] in moved:
            continue
        if unit["disordered"]:
            actions.append({"reorder": unit["marker"]})
            continue
        target = min(enemies, key=lambda e: abs(e["x"] - unit["x"]) + abs(e["y"] - unit["y"]), default=None)
        if target is not None and abs(target["x"] - unit["x"]) + abs(target["y"] - unit["y"]) < 170:
            actions.append({"move": unit["marker"], "contact": {"target": target["marker"], "edge": "front"}})
        else:
            actions.append(_advance(state, unit, forward, verb="move"))
    orders: dict[str, Any] = {"actions": actions}
    if "reserve" in example:
        orders["reserve"] = example["reserve"]
    return orders


def _advance(state: dict[str, Any], unit: dict[str, Any], forward: Any, verb: str = "move") -> dict[str, Any]:
    dx, dy = heading(forward)
    reach = 90 if unit["type"] in ("artillery", "heavy_artillery") else 140
    to = {"x": round(unit["x"] + dx * reach), "y": round(unit["y"] + dy * reach), "facing": describe_facing(forward)}
    return {verb: unit["marker"], "to": to}


def shooting(state: dict[str, Any], role: str) -> dict[str, Any]:
    """Shoot with every card that has a legal target, each target once."""
    shots = []
    taken: set[str] = set()
    for unit in units_of(state, role):
        if unit["status"] != "table":
            continue
        for enemy in placed(state):
            if enemy["owner"] == role or enemy["marker"] in taken:
                continue
            target, why = target_problem(state, role, enemy["marker"])
            if target is not None and why is None and shooter_problem(state, unit, target) is None:
                shots.append({"shooter": unit["marker"], "target": enemy["marker"]})
                taken.add(enemy["marker"])
                break
    return {"shots": shots}


PATH = re.compile(r"orders\.(actions|shots)\[(\d+)\](?:\.moves\[(\d+)\])?")


def trim(state: dict[str, Any], role: str, orders: dict[str, Any]) -> dict[str, Any]:
    """Drop what the rules refuse, one refusal at a time, until the orders are accepted."""
    for _ in range(300):
        problems = GAME.validate(state, role, orders)
        if not problems:
            return orders
        path = problems[0].path
        if path.startswith("orders.reserve"):
            del orders["reserve"]
            continue
        match = PATH.match(path)
        assert match, problems
        items = orders[match.group(1)]
        index = int(match.group(2))
        if match.group(3) is not None:
            moves = items[index]["moves"]
            del moves[int(match.group(3))]
            if not moves:
                del items[index]
        else:
            del items[index]
    raise AssertionError("orders never became acceptable")
