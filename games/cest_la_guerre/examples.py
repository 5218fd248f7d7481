"""Example orders for each phase: the order form a notice sends the players who must write.

Every example is legal in the state it is made for (the contract test plays them). Examples of
a one-player phase may name that player's own cards: a notice shows the form only to them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.cest_la_guerre.actions import run_movement
from games.cest_la_guerre.geometry import opposite, step
from games.cest_la_guerre.placing import suggest
from games.cest_la_guerre.pregame import DEPLOY_DEPTH, to_deploy
from games.cest_la_guerre.units import units_of
from games.cest_la_guerre.zones import entry_edge

ARMY_EXAMPLE = {
    "list": "gnw_sweden",
    "choices": [2],
    "dummies": 2,
    "reserve": ["sub-command-average-1", "cavalry-average-1", "cavalry-average-2", "dummy-2"],
}
COMBAT_EXAMPLE: dict[str, Any] = {"shots": []}


def terrain_example(state: Mapping[str, Any]) -> dict[str, Any]:
    """Return a small field: a wood, a hill and a river across one flank, clear of both base strips."""
    width, depth = state["options"]["table_mm"]
    middle = depth // 2
    features = [
        {"kind": "woods", "x1": width // 4, "y1": middle - 100, "x2": width // 4 + 150, "y2": middle + 60},
        {"kind": "hill", "x1": width // 2 + 100, "y1": middle - 80, "x2": width // 2 + 300, "y2": middle + 80},
        {"kind": "river", "x1": width - 200, "y1": 200, "x2": width - 170, "y2": depth - 200},
    ]
    menu = state["options"]["terrain_menu"]
    return {"features": [f for f in features if f["kind"] in menu], "side_by": "coin"}


def deploy_example(state: Mapping[str, Any], role: str) -> dict[str, Any]:
    """Return a deployment of the side's cards in rows along its base edge, facing the enemy."""
    edge = state["edges"][role]
    facing = opposite(edge)
    return {"place": suggest(state, to_deploy(state, role), edge, DEPLOY_DEPTH, facing)}


def movement_example(state: Mapping[str, Any], role: str) -> dict[str, Any]:
    """Return orders that bring on a waiting reserve (from Round 2) and step one card forward."""
    example: dict[str, Any] = {"actions": []}
    waiting = [u for u in units_of(state, role) if u["status"] == "reserve"]
    if waiting and state["round"] >= 2:
        edge = entry_edge(state, role, "own_base")
        place = suggest(state, waiting, edge, state["options"]["reserve_entry_depth_mm"], opposite(edge))
        if len(place) == len(waiting):
            example["reserve"] = {"edge": "own_base", "place": place}
            if run_movement(state, role, example, None).problems:
                del example["reserve"]
    for unit in units_of(state, role):
        if unit["status"] != "table" or unit["disordered"]:
            continue
        x, y = step((unit["x"], unit["y"]), unit["facing"], 20)
        action = {"move": unit["marker"], "to": {"x": round(x), "y": round(y)}}
        trial = {**example, "actions": [action]}
        if not run_movement(state, role, trial, None).problems:
            return trial
    return example
