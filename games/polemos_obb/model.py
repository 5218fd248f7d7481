"""Queries over the game state: who commands what, which bases still stand, who fights whom.

The state is plain JSON data (see rules.py for its shape). Mappings lose their order when the
core stores a state, so every ordered collection is a list of ids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.kit import load_data

State = dict[str, Any]

PACKAGE = "games.polemos_obb"
TROOPS: dict[str, Any] = load_data(PACKAGE, "troops.yaml")
STANDING = ("fresh", "shaken")  # a base in one of these states is on the field
TURN_STEPS = (
    "bid",
    "tempo-command",
    "tempo-bombardment",
    "tempo-moves",
    "tempo-contact",
    "other-command",
    "other-bombardment",
    "other-moves",
    "other-contact",
    "morale",
)
STEP_TITLES = {
    "muster": "muster: armies are generated and the first Tempo points rolled",
    "bid": "Tempo bidding (sealed)",
    "command": "command: allocate Tempo points, rally shaken bases, move generals",
    "bombardment": "bombardment",
    "moves": "moves",
    "contact": "contact: attacks and combat",
    "morale": "morale phase (no orders)",
}


def army_order(state: Mapping[str, Any]) -> list[str]:
    """Return every army id, side by side in scenario order."""
    return [army for side in state["sides"] for army in side["armies"]]


def side_of(state: Mapping[str, Any], army: str) -> str:
    """Return the id of the side `army` fights on."""
    return str(state["armies"][army]["side"])


def side_ids(state: Mapping[str, Any]) -> list[str]:
    """Return the side ids in scenario order."""
    return [side["id"] for side in state["sides"]]


def other_side(state: Mapping[str, Any], side: str) -> str:
    """Return the side that is not `side` (a battle has exactly two)."""
    return next(s for s in side_ids(state) if s != side)


def army_of_base(state: Mapping[str, Any], base: str) -> str:
    """Return the army a base belongs to."""
    return str(state["divisions"][state["bases"][base]["division"]]["army"])


def side_of_base(state: Mapping[str, Any], base: str) -> str:
    """Return the side a base fights on."""
    return side_of(state, army_of_base(state, base))


def division_bases(state: Mapping[str, Any], division: str) -> list[str]:
    """Return a division's base ids in order of battle."""
    return [b for brigade in state["divisions"][division]["brigades"] for b in state["brigades"][brigade]["bases"]]


def is_standing(state: Mapping[str, Any], base: str) -> bool:
    """Return whether a base is on the field: neither broken nor removed, its division not spent."""
    record = state["bases"][base]
    return record["state"] in STANDING and not state["divisions"][record["division"]]["spent"]


def standing_bases(state: Mapping[str, Any], division: str) -> list[str]:
    """Return the bases of a division that are still on the field."""
    return [b for b in division_bases(state, division) if is_standing(state, b)]


def arm_of(state: Mapping[str, Any], base: str) -> str:
    """Return a base's arm (infantry, cavalry, artillery); dismounted dragoons fight as infantry."""
    record = state["bases"][base]
    if record.get("dismounted"):
        return "infantry"
    return str(TROOPS["types"][record["type"]]["arm"])


def division_arm(state: Mapping[str, Any], division: str) -> str:
    """Return a division's arm: that of all its bases, "mixed", or "none" before it is generated."""
    arms = {arm_of(state, b) for b in division_bases(state, division)}
    if len(arms) == 1:
        return arms.pop()
    return "mixed" if arms else "none"


def is_in_play(state: Mapping[str, Any], army: str) -> bool:
    """Return whether an army still fights: not exhausted, with a division not spent."""
    record = state["armies"][army]
    if record["exhausted"]:
        return False
    return any(not state["divisions"][d]["spent"] for d in record["divisions"])


def players_of(state: Mapping[str, Any], armies: Sequence[str]) -> tuple[str, ...]:
    """Return the players of those armies still in play, in army order."""
    return tuple(state["armies"][a]["player"] for a in armies if is_in_play(state, a))


def army_of_player(state: Mapping[str, Any], player: str) -> str | None:
    """Return the army a player commands, or None for someone who plays no army."""
    return next((a for a in army_order(state) if state["armies"][a]["player"] == player), None)


def acting_side(state: Mapping[str, Any]) -> str | None:
    """Return the side whose half of the turn it is (tempo-... or other-... steps), else None."""
    step = str(state["step"])
    tempo = state["tempo"]["side"]
    if tempo is None:
        return None
    if step.startswith("tempo-"):
        return str(tempo)
    if step.startswith("other-"):
        return other_side(state, tempo)
    return None


def step_kind(step: str) -> str:
    """Return the kind of a step: command, bombardment, moves, contact, bid, morale or muster."""
    return step.split("-", 1)[1] if step.startswith(("tempo-", "other-")) else step


def commander_of(state: Mapping[str, Any], division: str) -> str:
    """Return the id of the general commanding a division."""
    return str(state["divisions"][division]["commander"])


def general_can_order(state: Mapping[str, Any], general: str) -> bool:
    """Return whether a general may give orders (and so receive Tempo points) this turn."""
    record = state["generals"][general]
    return record["status"] == "active" and record.get("no_orders_until", 0) < state["turn"]


def general_can_move(state: Mapping[str, Any], general: str) -> bool:
    """Return whether a general may move this turn."""
    record = state["generals"][general]
    return general_can_order(state, general) and record.get("no_move_turn") != state["turn"]


def live_pairs(state: Mapping[str, Any], engagement: Mapping[str, Any]) -> list[Any]:
    """Return an engagement's pairs whose two bases still stand."""
    return [p for p in engagement["pairs"] if all(is_standing(state, b) for b in p["bases"])]


def json_pointer(*parts: str) -> str:
    """Return the JSON pointer (RFC 6901) of a path in the state: "~" and "/" in a key escaped."""
    return "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in parts)
