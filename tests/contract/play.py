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

import games
from referee.kit import GameModule, PhaseSpec
from referee.protocol.canonical import canonical_json
from referee.protocol.draws import Dice
from referee.protocol.hidden import HiddenDraws

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
    origin: str  # "<scenario> seed <n> step <k>" or "<scenario> bot seed <n> step <k>"
    orders: dict[str, Any] | None = None  # what a bot ordered, when it names nothing hidden


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
    keep_orders: bool = False,
) -> list[Reached]:
    """Play up to `steps` phases; return every state reached with a phase open (with the orders
    given in it when `keep_orders`: orders that name nothing hidden, fit for any world)."""
    options = {"rounds": 6} if options is None else options
    players = players_of(game, scenario, options)
    state = canonical(game.setup(scenario, list(players), options))
    rng = random.Random(seed)
    reached = []
    for step in range(steps):
        spec = game.phase(state)
        if spec is None:
            break
        given = {role: orders(game, state, spec, role, rng) for role in spec.active}
        kept = copy.deepcopy(given) if keep_orders else None
        reached.append(Reached(state, spec, players, f"{scenario} {origin or f'seed {seed}'} step {step}", kept))
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


# The book's combat example, as orders: van Gelder's division moves, then attacks de Salon's.
OBB_MOVES = {"moves": [{"order": "move", "brigades": ["W", "X", "Y", "Z"]}]}
OBB_ATTACK = {
    "division": "van-gelder",
    "target": "de-salon",
    "pairs": [["X", "M"], ["Y", "N"], ["Z", "O"]],
    "support": [{"base": "X", "by": ["W"]}],
    "rounds": [["X", "Y", "Z"], ["Y", "X"], ["Z", "Y", "X"]],
}


def _obb_attack(game: GameModule, state: Any, spec: PhaseSpec, role: str, rng: random.Random) -> Any:
    """Polemos, the combat example: standing orders, all TP to the division, the book's attack."""
    orders = _obb_standing(game, state, spec, role, rng)
    kind = spec.name.split("-", 1)[-1]
    army = state["armies"][role]
    if kind == "bid":
        orders["bid"] = max(1, army["tp"] - 5) if role == "dutch" else 1
    elif kind == "command":
        general = state["divisions"][army["divisions"][0]]["commander"]
        orders["allocate"] = [{"general": general, "tp": army["tp"]}]
    elif kind == "moves" and role == "dutch":
        orders = copy.deepcopy(OBB_MOVES)
    elif kind == "contact" and role == "dutch":
        orders["attacks"] = [copy.deepcopy(OBB_ATTACK)]
    return orders if not game.validate(state, role, orders) else phase_orders(spec)


def _moderator_notes(game: GameModule, state: Any, spec: PhaseSpec, role: str, rng: random.Random) -> Any:
    """Moderator: the example orders, with a hidden note for the writer and, at times, another."""
    orders = phase_orders(spec)
    readers = [p for p in state["players"] if p != role and rng.random() < 0.5][:1]
    orders["hidden_note"] = {"id": f"plan-{spec.turn}", "text": f"{role}'s plan for round {spec.turn}", "to": readers}
    return orders if not game.validate(state, role, orders) else phase_orders(spec)


def _moderator_tests() -> Any:
    return _test_module("unit/test_moderator.py", "test_moderator")


def _moderator_cards(game: GameModule, state: Any, spec: PhaseSpec, role: str, rng: random.Random) -> Any:
    """Moderator with decks: the card bot of its own tests (draws, plays, looks, returns...)."""
    return _moderator_tests().card_bot(game, state, spec, role, rng)


def _eia_bot(game: GameModule, state: Any, spec: PhaseSpec, role: str, rng: random.Random) -> Any:
    """Empires in Arms: a standing policy, a land combat with guards and a naval combat of allies."""
    bot = _test_module("games/empires_in_arms/eia_bot.py", "eia_bot")
    return bot.orders_for(state, spec, role, rng)


def _cos_bot(game: GameModule, state: Any, spec: PhaseSpec, role: str, rng: random.Random) -> Any:
    """Clash of Sovereigns: its test bot (cards played, reactions sealed, battles fought)."""
    return _test_module("games/clash_of_sovereigns/cos_bot.py", "cos_bot").orders_for(game, state, spec, role, rng)


def _cos_options(**more: Any) -> dict[str, Any]:
    """Clash of Sovereigns with every need supplied from its example (made-up values, not the book's)."""
    return {"supplied": _test_module("games/clash_of_sovereigns/cos_helpers.py", "cos_helpers").EXAMPLES, **more}


# Options a core-driven play of a game needs: a game whose start is held until its referee
# supplies (blocking needs) gets the supplies in its configuration (made-up values, not a book's).
CONFIG_OPTIONS: dict[str, Callable[[], dict[str, Any]]] = {"clash-of-sovereigns": _cos_options}


@dataclass(frozen=True)
class Bot:
    """A richer play of one scenario than example orders give."""

    scenario: str
    options: dict[str, Any]
    orders: OrderMaker
    phases: int
    seeds: Sequence[int]
    public_orders: bool  # its orders name only what everyone sees: the leak test replays them


def _coe_bot(game: GameModule, state: Any, spec: PhaseSpec, role: str, rng: random.Random) -> Any:
    """Cockpit of Europe's test bot: sealed set-ups, plans and candidates, standing orders, duels."""
    bot = _test_module("games/cockpit_of_europe/coe_bot.py", "coe_bot")
    return bot.orders_for(game.view(state, role), role, rng)


OBB_MORALE = {"cmf": {"dutch": 15, "bavarian": 15}}  # test values: the book's are missing
OBB_NEW = dict(next(g for g in games.GAMES if g.id == "polemos-obb").new_game_options)
BOTS: dict[str, list[Bot]] = {
    # Its orders name cards by id (deployment, the reserve): the leak test resolves with examples.
    "moderator": [
        Bot("open", {"rounds": 4}, _moderator_notes, 4, (7,), True),
        # Decks, hands and every card action: its orders name cards in hand, so they are not public.
        Bot("open", _moderator_tests().BOT_OPTIONS, _moderator_cards, 8, (1, 2), False),
    ],
    "cockpit-of-europe": [Bot("campaign", {"rounds": 3}, _coe_bot, 14, (7, 8), False)],
    "cest-la-guerre": [Bot("open-battle", {"loss_threshold": 6, "rounds": 12}, _clg_bot, 40, (7,), False)],
    # Its orders name cards in hand: not public.
    "clash-of-sovereigns": [
        Bot("two-players", _cos_options(mulligans=True, day_of_battle=True), _cos_bot, 40, (3,), False),
        Bot("four-players", _cos_options(cavalry_superiority=True), _cos_bot, 30, (4,), False),
    ],
    "polemos-obb": [
        Bot("danube-demo", {"rounds": 2}, _obb_standing, 14, (7,), True),
        Bot("combat-example", {"rounds": 2, "army_morale": OBB_MORALE}, _obb_attack, 24, (2, 3), True),
        # A new game's rules and letters (the options `referee init` writes for new games).
        Bot("combat-example", {"rounds": 2, "army_morale": OBB_MORALE, **OBB_NEW}, _obb_attack, 24, (2,), True),
    ],
    "empires-in-arms": [
        Bot(
            "coalition",
            _test_module("games/empires_in_arms/eia_bot.py", "eia_bot").OPTIONS,
            _eia_bot,
            30,
            (1, 2),
            False,
        )
    ],
}


def reach(game: GameModule, seeds: Sequence[int] = (1, 2), steps: int = 30) -> list[Reached]:
    """Return the distinct states bounded plays of `game` reach: each scenario with each seed
    (example or default orders), then the game's test bot if it has one."""
    reached = [r for scenario in game.scenarios for seed in seeds for r in play(game, scenario, seed, steps)]
    for bot in BOTS.get(game.id, []):
        for seed in bot.seeds:
            origin = f"bot seed {seed}"
            reached += play(game, bot.scenario, seed, bot.phases, bot.options, bot.orders, origin, bot.public_orders)
    seen: set[bytes] = set()
    distinct = []
    for item in reached:
        key = canonical_json(item.state)
        if key not in seen:
            seen.add(key)
            distinct.append(item)
    return distinct
