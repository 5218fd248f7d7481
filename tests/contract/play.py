"""Bounded play for the contract tests: the states a game reaches when each phase gets its own
example or default orders (RTT's fuzzer, without the clock), plus, for a game with a test bot,
a richer game played by it.

Every draw uses real dice: a phase key and a hidden-draw key, both fixed by the seed, the turn
and the phase, so a failing game replays exactly.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.api import GameModule, PhaseSpec
from referee.canonical import canonical_json
from referee.dice import Dice
from referee.hidden import HiddenDraws

TESTS = Path(__file__).resolve().parents[1]
DEFAULT_PLAYERS = ("alpha", "bravo", "charlie")  # for a game open to any players (roles() is None)
# Orders for a phase: (game, state, spec, role, rng) -> orders.
OrderMaker = Callable[[GameModule, Any, PhaseSpec, str, random.Random], Any]


@dataclass(frozen=True)
class Reached:
    """A state a play reached with a phase open, and where it came from (to replay it)."""

    state: dict[str, Any]
    spec: PhaseSpec
    players: tuple[str, ...]
    origin: str  # "<scenario> seed <n> step <k>" or "<scenario> bot step <k>"


def players_of(game: GameModule, scenario: str, options: dict[str, Any] | None = None) -> tuple[str, ...]:
    """Return the players of a scenario: its roles, or three names for a game open to any."""
    return tuple(game.roles(scenario, options or {}) or DEFAULT_PLAYERS)


def dice_for(seed: bytes, turn: int, phase: str) -> Dice:
    """Return real dice for one phase: its key and its hidden-draw key, both from `seed`."""
    key = hashlib.sha256(b"play/" + seed + f"/{turn}/{phase}".encode()).digest()
    hidden = hashlib.sha256(b"hidden/" + seed + f"/{turn}/{phase}".encode()).digest()
    return Dice(key, HiddenDraws(hidden, turn, phase))


def phase_orders(spec: PhaseSpec) -> Any:
    """Return the phase's example orders, or its default orders when it gives no example."""
    return copy.deepcopy(spec.example if spec.example is not None else spec.default_orders)


def example_or_default(game: GameModule, state: Any, spec: PhaseSpec, role: str, rng: random.Random) -> Any:
    """Return the example or the default orders, at random; whichever the rules accept."""
    choices = [phase_orders(spec), copy.deepcopy(spec.default_orders)]
    rng.shuffle(choices)
    return next((c for c in choices if not game.validate(state, role, c)), choices[0])


def canonical(state: Any) -> dict[str, Any]:
    """Return a state as the core stores it: canonical JSON data."""
    data: dict[str, Any] = json.loads(canonical_json(state))
    return data


def play(
    game: GameModule,
    scenario: str,
    seed: int,
    steps: int,
    options: dict[str, Any] | None = None,
    orders: OrderMaker = example_or_default,
    origin: str = "",
) -> list[Reached]:
    """Play up to `steps` phases; return every state reached with a phase open."""
    options = {"rounds": 6} if options is None else options
    players = players_of(game, scenario, options)
    state = canonical(game.setup(scenario, list(players), options))
    rng = random.Random(seed)
    reached = []
    for step in range(steps):
        spec = game.phase(state)
        if spec is None:
            break
        reached.append(Reached(state, spec, players, f"{scenario} {origin or f'seed {seed}'} step {step}"))
        given = {role: orders(game, state, spec, role, rng) for role in spec.active}
        new_state, _ = game.resolve(state, given, dice_for(seed.to_bytes(4, "big"), spec.turn, spec.name))
        state = canonical(new_state)
    return reached


# -- richer games, played by a game's own test bot ----------------------------------------------


def _test_module(relative: str, name: str) -> Any:
    """Return a helper module of tests/ by its path (the game tests' folders are not packages)."""
    if name in sys.modules:
        return sys.modules[name]
    path = TESTS / relative
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.append(folder)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _clg_bot(game: GameModule, state: Any, spec: PhaseSpec, role: str, rng: random.Random) -> Any:
    """C'est la Guerre's test bot: named armies, an advance, charges and shots."""
    bot = _test_module("games/cest_la_guerre/clg_bot.py", "clg_bot")
    if state["stage"] == "armies":
        return bot.army_orders(role, f"ZQ{role}")
    return bot.orders_for(state, role)


def _obb_standing(game: GameModule, state: Any, spec: PhaseSpec, role: str, rng: random.Random) -> Any:
    """Polemos: the example orders, with private standing orders for one of the player's bases."""
    orders = phase_orders(spec)
    if spec.name == "bid":
        mine = game.view(state, role)
        army = mine["your_army"]
        bases = [b["id"] for d in mine["divisions"] if d["army"] == army for br in d["brigades"] for b in br["bases"]]
        exceptions = [{"base": rng.choice(bases), "respond": "decline"}] if bases else []
        orders["standing"] = {"respond": rng.choice(["fight", "decline"]), "bases": exceptions}
    return orders


# game id -> (scenario, options, order maker, phases): a richer game than example orders play.
BOTS: dict[str, tuple[str, dict[str, Any], OrderMaker, int]] = {
    "cest-la-guerre": ("open-battle", {"loss_threshold": 6, "rounds": 12}, _clg_bot, 40),
    "polemos-obb": ("danube-demo", {"rounds": 2}, _obb_standing, 14),
}


def reach(game: GameModule, seeds: Sequence[int] = (1, 2), steps: int = 30) -> list[Reached]:
    """Return the distinct states bounded plays of `game` reach: each scenario with each seed
    (example or default orders), then the game's test bot if it has one."""
    reached = [r for scenario in game.scenarios for seed in seeds for r in play(game, scenario, seed, steps)]
    if game.id in BOTS:
        scenario, options, maker, phases = BOTS[game.id]
        reached += play(game, scenario, 7, phases, options, maker, origin="bot")
    seen: set[bytes] = set()
    distinct = []
    for item in reached:
        key = canonical_json(item.state)
        if key not in seen:
            seen.add(key)
            distinct.append(item)
    return distinct
