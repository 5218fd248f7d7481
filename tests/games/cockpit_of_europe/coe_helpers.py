"""Helpers for the cockpit-of-europe tests: a state placed on a given turn and phase, dice
scripted or real, and the events of a kind."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import yaml

from games.cockpit_of_europe import GAME, calendar
from games.cockpit_of_europe.model import tables_of
from referee.kit import Event, Tables
from referee.protocol.draws import Dice
from referee.protocol.hidden import HiddenDraws

from scripted_dice import ScriptedDice

SUPPLY_EXAMPLES = {need.id: yaml.safe_load(need.example)["data"] for need in GAME.supplies.needs}  # type: ignore[union-attr]


def playing(
    scenario: str = "campaign", year: int = 1745, turn: int = 1, phase: str = "administration", **options: Any
) -> dict[str, Any]:
    """Return a state in play on `turn` of `year`, in `phase` (the set-up done, nothing supplied)."""
    state = GAME.setup(scenario, ["allies", "france"], options)
    state.update(stage="play", year=year, turn=turn, phase=phase, first_turn=calendar.absolute(year, turn))
    return json.loads(json.dumps(state))


def supplied(state: dict[str, Any], *needs: str) -> dict[str, Any]:
    """Return the state with the supplies' own examples (NOT the book's values) supplied."""
    for need in needs:
        state, problems = GAME.supplies.supply(state, need, SUPPLY_EXAMPLES[need])  # type: ignore[union-attr]
        assert problems == [], problems
    return json.loads(json.dumps(state))


def scripted(*values: int) -> ScriptedDice:
    """Return dice that give `values` in order."""
    return ScriptedDice(values)


def real_dice(name: str = "test", turn: int = 1, phase: str = "p") -> Dice:
    """Return real dice (with sealed draws) for one phase."""
    key = hashlib.sha256(name.encode()).digest()
    return Dice(key, HiddenDraws(hashlib.sha256(b"h" + key).digest(), turn, phase))


def tables(state: dict[str, Any]) -> Tables:
    """Return every table the state reads."""
    return tables_of(state)


def kinds(events: Sequence[Event], kind: str) -> list[Event]:
    """Return the events of a kind."""
    return [event for event in events if event.kind == kind]


def texts(events: Sequence[Event]) -> str:
    """Return every event's text, a line each."""
    return "\n".join(event.text for event in events)
