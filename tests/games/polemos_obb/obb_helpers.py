"""Helpers for the polemos-obb tests: play one phase with scripted dice, find events."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from games.polemos_obb import GAME
from referee.kit import Event
from referee.protocol.canonical import canonical_json

from scripted_dice import ScriptedDice

# Example referee-supplied data for tests: NOT from the rulebook.
TEST_TABLES = {
    "schema_version": 1,
    "tables": {
        "officer-grade": {
            "title": "Test officer grades (not the book's)",
            "dice": "1d6",
            "rows": [
                {"range": "1-2", "result": "lethargic"},
                {"range": "3-5", "result": "active"},
                {"range": 6, "result": "vigorous"},
            ],
        },
        "rally": {
            "title": "Test rally table (not the book's)",
            "dice": "1d6",
            "modifiers": {"veteran": 1, "raw": -1, "general-present": 1},
            "rows": [{"range": "4-", "result": "shaken"}, {"range": "5+", "result": "rallied"}],
        },
        "bombardment": {
            "title": "Test bombardment table (not the book's)",
            "dice": "1d6",
            "modifiers": {"long-range": -1},
            "columns": ["light-artillery", "field-artillery"],
            "rows": [
                {"range": "3-", "result": {"light-artillery": "no-effect", "field-artillery": "no-effect"}},
                {"range": "4-5", "result": {"light-artillery": "no-effect", "field-artillery": "recoil"}},
                {"range": "6+", "result": {"light-artillery": "recoil", "field-artillery": "recoil-shaken"}},
            ],
        },
    },
}


def new_game(scenario: str = "combat-example", **options: Any) -> dict[str, Any]:
    """Return a fresh state of `scenario` with its own roles as players."""
    roles = GAME.roles(scenario, options)
    assert roles is not None
    return GAME.setup(scenario, list(roles), options)


def play(
    state: Mapping[str, Any], orders: Mapping[str, Any], dice: Sequence[int] = ()
) -> tuple[dict[str, Any], list[Event], ScriptedDice]:
    """Validate and resolve the open phase with scripted dice, which must all be used; return the result."""
    spec = GAME.phase(state)
    assert spec is not None, "the game is over"
    full = {role: orders.get(role, spec.default_orders) for role in spec.active}
    for role, order in full.items():
        assert GAME.validate(state, role, order) == [], (spec.name, role, GAME.validate(state, role, order))
    scripted = ScriptedDice(dice)
    new_state, events = GAME.resolve(state, full, scripted)
    scripted.assert_used_up()
    new_state = json.loads(canonical_json(new_state))
    assert GAME.check(new_state) == []
    return new_state, events, scripted


def play_until(state: dict[str, Any], step: str, turn: int | None = None) -> dict[str, Any]:
    """Play phases with default orders and no dice until `step` (of `turn`) is open."""
    while not (state["step"] == step and (turn is None or state["turn"] == turn)):
        state, _, _ = play(state, {})
    return state


def event(events: Sequence[Event], kind: str) -> Event:
    """Return the only event of `kind`."""
    found = [e for e in events if e.kind == kind]
    assert len(found) == 1, f"{len(found)} events of kind {kind}: {[e.text for e in events]}"
    return found[0]


def army_event(events: Sequence[Event], kind: str, army: str) -> Event:
    """Return the only event of `kind` about `army`."""
    found = [e for e in events if e.kind == kind and e.data.get("army") == army]
    assert len(found) == 1, f"{len(found)} events of kind {kind} for {army}"
    return found[0]


def combat_line(combat: Mapping[str, Any]) -> tuple[Any, ...]:
    """Return a combat as (attacker, roll, modifiers, total, defender, roll, modifiers, total, difference, result)."""
    a, d = combat["attacker"], combat["defender"]
    return (
        a["base"],
        a["roll"],
        [m["name"] for m in a["modifiers"]],
        a["total"],
        d["base"],
        d["roll"],
        [m["name"] for m in d["modifiers"]],
        d["total"],
        combat["difference"],
        combat["result"],
    )
