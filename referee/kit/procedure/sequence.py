"""A procedure journal's sequence of play and calendar (README.md, "Sequence of play").

`sequence:` names the phases of a turn, in order, each with the players who give orders in it.
Who is active is fixed by the configuration, never computed from the state: a notice that names
the active players therefore tells nobody anything hidden. A game without `sequence:` plays one
phase a turn, named `round`, with every player active.

`calendar:` gives each turn a label (`spring 1744`): `start` is the first year, `per_year` the
labels of the turns of a year, in order.

Everything here is a pure function of the options (at setup) or of the state's copy of them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from referee.kit import GameDataError

NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}\Z")
DEADLINE = re.compile(
    r"\s*(?:(\d+)\s*d)?\s*(?:(\d+)\s*h)?\s*(?:(\d+)\s*m)?\s*\Z|\s*(?:mon|tue|wed|thu|fri|sat|sun)[a-z]{0,6}\s+(?:[01]?\d|2[0-3]):[0-5]\d\s*\Z",
    re.IGNORECASE,
)
PHASE_KEYS = ("name", "title", "active", "deadline", "scheduled")
CALENDAR_KEYS = ("start", "per_year")
MAX_PHASES = 20


def parse_sequence(raw: Any, players: Sequence[str]) -> list[dict[str, Any]] | None:
    """Return the sequence as the state keeps it (each phase's name, title, active players,
    deadline and scheduled rolls), or None for a game without one; raise GameDataError naming
    the mistake's path (`options.sequence[1].active`)."""
    if raw is None:
        return None
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_PHASES:
        raise GameDataError(f"option 'sequence' must be a list of 1 to {MAX_PHASES} phases, each {{name, active}}")
    phases: list[dict[str, Any]] = []
    for index, entry in enumerate(raw):
        where = f"options.sequence[{index}]"
        if not isinstance(entry, dict):
            raise GameDataError(f"{where}: a phase is a mapping {{name, active, title, deadline, scheduled}}")
        unknown = sorted(set(entry) - set(PHASE_KEYS))
        if unknown:
            raise GameDataError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(PHASE_KEYS)}")
        name = entry.get("name")
        if not isinstance(name, str) or not NAME.match(name):
            raise GameDataError(f"{where}.name: give the phase a name of lower-case letters, digits, - and _")
        if any(phase["name"] == name for phase in phases):
            raise GameDataError(f"{where}.name: the phase name '{name}' is used twice")
        phases.append(
            {
                "name": name,
                "title": _text(entry.get("title", name), f"{where}.title"),
                "active": _active(entry.get("active", "all"), players, f"{where}.active"),
                "deadline": _deadline(entry.get("deadline"), f"{where}.deadline"),
                "scheduled": entry.get("scheduled") or [],
            }
        )
    return phases


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 80:
        raise GameDataError(f"{where}: give a text of 1 to 80 characters")
    return value


def _active(value: Any, players: Sequence[str], where: str) -> list[str]:
    if value == "all":
        return sorted(players)
    if not isinstance(value, list) or not value or not all(isinstance(name, str) for name in value):
        raise GameDataError(f"{where}: give the list of players who give orders in this phase, or 'all'")
    strangers = [name for name in value if name not in players]
    if strangers:
        raise GameDataError(f"{where}: {', '.join(strangers)} do(es) not play; players: {', '.join(players)}")
    if len(set(value)) != len(value):
        raise GameDataError(f"{where}: a player is named twice")
    return sorted(value)


def _deadline(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not DEADLINE.match(value) or not value.strip():
        raise GameDataError(f"{where}: {value!r} is neither a duration (48h, 3d, 1d12h) nor a weekday and time")
    return value


def parse_calendar(raw: Any) -> dict[str, Any] | None:
    """Return the calendar {start, per_year} (None for a game without one), or raise GameDataError."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or set(raw) - set(CALENDAR_KEYS):
        raise GameDataError("option 'calendar' must be a mapping {start: YEAR, per_year: [LABEL, ...]}")
    start, labels = raw.get("start"), raw.get("per_year")
    if isinstance(start, bool) or not isinstance(start, int):
        raise GameDataError(f"options.calendar.start: give the first year as a whole number, got {start!r}")
    if not isinstance(labels, list) or not labels or not all(isinstance(label, str) and label for label in labels):
        raise GameDataError("options.calendar.per_year: give the labels of a year's turns, e.g. [winter, spring]")
    return {"start": start, "per_year": list(labels)}


def phase_deadlines(options: Mapping[str, Any]) -> dict[str, str]:
    """Return the deadline each phase of the options' sequence gives itself, by phase name (the
    core puts them under the deadlines the game's schedule names; GameModule.phase_deadlines)."""
    raw = options.get("sequence")
    if not isinstance(raw, list):
        return {}
    return {
        entry["name"]: entry["deadline"]
        for entry in raw
        if isinstance(entry, dict) and isinstance(entry.get("name"), str) and isinstance(entry.get("deadline"), str)
    }


def position(state: Mapping[str, Any]) -> tuple[int, dict[str, Any] | None]:
    """Return the open turn and the phase of the sequence open in it (None: no sequence, the
    turn is the round). A round is one phase: turn n holds rounds (n-1)*len+1 to n*len."""
    sequence = state.get("sequence")
    if not sequence:
        return state["round"], None
    turn, step = divmod(state["round"] - 1, len(sequence))
    return turn + 1, sequence[step]


def calendar_label(state: Mapping[str, Any], turn: int) -> str | None:
    """Return the calendar's label of `turn` ("spring 1744"), or None without a calendar."""
    calendar = state.get("calendar")
    if not calendar:
        return None
    year, index = divmod(turn - 1, len(calendar["per_year"]))
    return f"{calendar['per_year'][index]} {calendar['start'] + year}"


def title(state: Mapping[str, Any]) -> str:
    """Return the open phase's title: "round 3" for a game without sequence or calendar (as
    before), else the calendar label, the turn and the phase ("spring 1744, turn 2: French
    administration")."""
    turn, phase = position(state)
    label = calendar_label(state, turn)
    if phase is None:
        return f"round {turn}" if label is None else f"{label}, turn {turn}"
    when = f"turn {turn}" if label is None else f"{label}, turn {turn}"
    return f"{when}: {phase['title']}"


def turns_done(state: Mapping[str, Any]) -> int:
    """Return how many whole turns are played (with a sequence, a turn is len(sequence) rounds)."""
    length = len(state.get("sequence") or [None])
    return (state["round"] - 1) // length
