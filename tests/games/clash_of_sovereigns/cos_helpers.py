"""Helpers for the Clash of Sovereigns tests: the supplies made up for tests (every need's
example file: AN EXAMPLE, NOT THE BOOK'S VALUES), real dice, and a state with everything
supplied and dealt."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import yaml

from games.clash_of_sovereigns import GAME
from games.clash_of_sovereigns.supplies import NEEDS
from referee.kit import load_text
from referee.protocol.canonical import canonical_json
from referee.protocol.draws import Dice
from referee.protocol.hidden import HiddenDraws

EXAMPLES = {
    need.id: yaml.safe_load(load_text("games.clash_of_sovereigns", f"examples/{need.id.replace('/', '-')}.yaml"))[
        "data"
    ]
    for need in NEEDS
}


def dice(seed: bytes = b"cos", turn: int = 1, phase: str = "p") -> Dice:
    """Real dice for one phase."""
    key = hashlib.sha256(b"play/" + seed + f"/{turn}/{phase}".encode()).digest()
    hidden = hashlib.sha256(b"hidden/" + seed + f"/{turn}/{phase}".encode()).digest()
    return Dice(key, HiddenDraws(hidden, turn, phase))


def canonical(value: Any) -> Any:
    return json.loads(canonical_json(value))


def supplied_state(
    scenario: str = "two-players", options: dict[str, Any] | None = None, needs: Any = None
) -> dict[str, Any]:
    """Return a state after set-up with every (or the named) need supplied from its example."""
    roles = GAME.roles(scenario, options or {})
    state = canonical(GAME.setup(scenario, list(roles or ()), options or {}))
    assert GAME.supplies is not None
    for need in needs if needs is not None else EXAMPLES:
        state, problems = GAME.supplies.supply(state, need, EXAMPLES[need])
        assert problems == [], problems
    return canonical(state)


def advance(
    state: dict[str, Any], orders: dict[str, Any] | None = None, seed: bytes = b"cos"
) -> tuple[dict[str, Any], list[Any]]:
    """Adjudicate the open phase with the given orders (others send none)."""
    spec = GAME.phase(state)
    assert spec is not None
    given = {role: (orders or {}).get(role, {}) for role in spec.active}
    for role, order in given.items():
        assert GAME.validate(state, role, order) == [], (role, GAME.validate(state, role, order))
    new, events = GAME.resolve(state, given, dice(seed, spec.turn, spec.name))
    new = canonical(new)
    assert GAME.check(new) == [], GAME.check(new)
    return new, events


def dealt_state(scenario: str = "two-players", options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return the state of the first power turn, every need supplied, the decks dealt."""
    state, _ = advance(supplied_state(scenario, options))
    return state
