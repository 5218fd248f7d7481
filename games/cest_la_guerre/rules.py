"""C'est la Guerre (Cards of Combat edition, version x.2; A. J. Hay): a two-player battle of the
age of muskets. Armies from 28 lists or the point system, face-down cards and dummies, a
secret Reserve Force, Rounds of two bounds (Initiative Points, movement, shooting and melee),
and a victory check at the end of every Round.

The phases: `armies` (both, sealed), `terrain` (the Low scorer), `deploy-<role>` (Low scorer,
then High scorer), then for each bound `<role>-move` (the phasing player) and `<role>-combat`
(both players name their shots). Turn numbers are Rounds; the pre-game is turn 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.cest_la_guerre import examples, schemas
from games.cest_la_guerre.actions import run_movement
from games.cest_la_guerre.battle import combat_problems, run_combat
from games.cest_la_guerre.events import to_events
from games.cest_la_guerre.geometry import overlaps, rect_of
from games.cest_la_guerre.options import resolve_options
from games.cest_la_guerre.pace import deciders
from games.cest_la_guerre.pregame import (
    armies_problems,
    armies_resolve,
    deploy_problems,
    deploy_resolve,
    terrain_problems,
    terrain_resolve,
)
from games.cest_la_guerre.sequence import after_movement, end_bound
from games.cest_la_guerre.units import placed
from games.cest_la_guerre.views import secrets as hidden_leaves
from games.cest_la_guerre.views import view as build_view
from referee.kit import Dice, Event, GameDataError, PhaseSpec, Problem, Secret, thaw

ROLES = ("blue", "red")
SCENARIOS = ("open-battle",)
MARKER_PREFIX = {"blue": "B", "red": "R"}


def roles(scenario: str, options: Mapping[str, Any]) -> tuple[str, ...]:
    """Return the two sides: blue and red."""
    return ROLES


def setup(scenario: str, players: Sequence[str], options: Mapping[str, Any]) -> dict[str, Any]:
    """Return the state before the armies are chosen."""
    if scenario not in SCENARIOS:
        raise GameDataError(f"cest-la-guerre has no scenario {scenario!r}; scenarios: {', '.join(SCENARIOS)}")
    if sorted(players) != sorted(ROLES):
        raise GameDataError(
            f"cest-la-guerre is played by {' and '.join(ROLES)}, not {', '.join(players)}",
            hints=("name the two players blue and red in the game configuration",),
        )
    resolved = resolve_options(options)
    return {
        "scenario": scenario,
        "roles": list(ROLES),
        "marker_prefix": dict(MARKER_PREFIX),
        "options": resolved,
        "stage": "armies",
        "round": 0,
        "phasing": None,
        "high": None,
        "low": None,
        "edges": {},
        "terrain": [],
        "sides": {
            role: {"markers": 0, "ip": 0, "ip_spent": 0, "reserve_arrived": False, "special_rules": []}
            for role in ROLES
        },
        "units": [],
        "result": None,
    }


def phase(state: Mapping[str, Any]) -> PhaseSpec | None:
    """Return the open phase, or None once the battle is decided."""
    stage = state["stage"]
    if stage == "over":
        return None
    if stage == "armies":
        # A player who sends no army when the referee forces the phase fields the example's.
        army = examples.ARMY_EXAMPLE
        return PhaseSpec(0, "armies", ROLES, True, schemas.ARMY, army, army, "choose your army")
    if stage == "terrain":
        low = state["low"]
        return PhaseSpec(
            0, "terrain", (low,), True, schemas.TERRAIN, {}, examples.terrain_example(state), "the Low scorer's terrain"
        )
    role = state["phasing"]
    if stage == "deploy":
        return PhaseSpec(
            0,
            f"deploy-{role}",
            (role,),
            True,
            schemas.DEPLOY,
            examples.deploy_example(state, role),
            examples.deploy_example(state, role),
            f"{role} deploys face down",
        )
    if stage == "move":
        return PhaseSpec(
            state["round"],
            f"{role}-move",
            (role,),
            True,
            schemas.MOVEMENT,
            {},
            examples.movement_example(state, role),
            f"Round {state['round']}, {role}'s bound: movement",
        )
    return PhaseSpec(
        state["round"],
        f"{role}-combat",
        deciders(state),
        True,
        schemas.COMBAT,
        {},
        examples.COMBAT_EXAMPLE,
        f"Round {state['round']}, {role}'s bound: shooting and melee",
    )


def validate(state: Mapping[str, Any], player: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return why a player's orders break the rules (empty: accepted)."""
    stage = state["stage"]
    if stage == "armies":
        return armies_problems(state, orders)
    if stage == "terrain":
        return terrain_problems(state, orders)
    if stage == "deploy":
        return deploy_problems(state, player, orders)
    if stage == "move":
        return run_movement(state, player, orders, None).problems
    if stage == "combat":
        return combat_problems(state, player, orders)
    return [Problem("illegal.over", "orders", "the battle is over")]


def resolve(
    state: Mapping[str, Any], orders: Mapping[str, Mapping[str, Any]], dice: Dice
) -> tuple[dict[str, Any], list[Event]]:
    """Adjudicate the open phase; return the new state and what happened."""
    stage = state["stage"]
    if stage == "armies":
        new, events = armies_resolve(state, orders, dice)
    elif stage == "terrain":
        new, events = terrain_resolve(state, orders[state["low"]], dice)
    elif stage == "deploy":
        new, events = deploy_resolve(state, state["phasing"], orders[state["phasing"]], dice)
    elif stage == "move":
        bound = run_movement(state, state["phasing"], orders.get(state["phasing"]) or {}, dice)
        new, events = bound.state, bound.events
        after_movement(new, dice, events)
    elif stage == "combat":
        bound = run_combat(state, orders, dice)
        new, events = bound.state, bound.events
        end_bound(new, dice, events)
    else:
        new, events = thaw(state), []
    return new, to_events(events)


def view(state: Mapping[str, Any], player: str | None) -> dict[str, Any]:
    """Return what `player` (None: the public) may see."""
    return build_view(state, player)


def secrets(state: Mapping[str, Any]) -> list[Secret]:
    """Return the hidden leaves of the state and who may see each (for the leak test)."""
    return hidden_leaves(state)


def check(state: Mapping[str, Any]) -> list[str]:
    """Return broken invariants of the state."""
    problems = []
    markers = [u["marker"] for u in state["units"] if u["marker"] is not None]
    if len(markers) != len(set(markers)):
        problems.append("a marker is used twice")
    on_table = list(placed(state))
    width, depth = state["options"]["table_mm"]
    for unit in on_table:
        x1, y1, x2, y2 = rect_of(unit).bounds
        if unit["marker"] is None:
            problems.append(f"{unit['owner']} {unit['id']} is on the table without a marker")
        if x1 < -0.1 or y1 < -0.1 or x2 > width + 0.1 or y2 > depth + 0.1:
            problems.append(f"{unit['marker']} is off the table at ({unit['x']}, {unit['y']})")
        if unit["casualties"] < 0:
            problems.append(f"{unit['marker']} has negative casualties")
        if unit["type"] == "dummy" and unit["face_up"]:
            problems.append(f"{unit['marker']} is a dummy face up")
    for index, unit in enumerate(on_table):
        for other in on_table[index + 1 :]:
            if overlaps(rect_of(unit), rect_of(other)):
                problems.append(f"{unit['marker']} and {other['marker']} overlap")
    for role in state["roles"]:
        side = state["sides"][role]
        if side["ip_spent"] > side["ip"]:
            problems.append(f"{role} spent more IP than it rolled")
    if state["stage"] == "over" and state["result"] is None:
        problems.append("the game is over without a result")
    return problems
