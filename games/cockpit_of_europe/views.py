"""What each Cockpit of Europe side sees: every public fact of the game, its own sealed notes
and candidate lists, the other side's only as commitments and counts (views are built field by
field, never by copying the state)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from games.cockpit_of_europe import calendar, invasions, secrecy
from games.cockpit_of_europe.model import labels, turn_name
from referee.kit import InPlay, Secret
from referee.kit.procedure.hidden_notes import note_view


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def view(state: Mapping[str, Any], side: str | None) -> dict[str, Any]:
    """Return what `side` (None: the public) sees: every public fact of the game, its own sealed
    notes and candidate lists, and the other side's only as commitments and counts."""
    shown: dict[str, Any] = {
        "game": "cockpit-of-europe",
        "you": side,
        "scenario": state["scenario"],
        "stage": state["stage"],
        "phase": state["phase"],
        "turn": state["turns_played"] + 1,
        "absolute_turn": calendar.now(state) if state["stage"] == "play" else None,
        "year": state["year"],
        "turn_of_year": state["turn"],
        "quarter": calendar.quarter(state["turn"]),
        "calendar": turn_name(state) if state["stage"] == "play" else None,
        "calendar_supplied": labels(state) is not None,
        "peace_index": state["peace_index"],
        "prestige": copy.deepcopy(_plain(state["prestige"])),
        "le_roi": {"where": state["le_roi"]["where"], "whim": state["le_roi"]["whim"]},
        "demonstration": copy.deepcopy(_plain(state["demonstration"])),
        "flood": dict(state["flood"]),
        "milice": dict(state["milice"]),
        "allied_units_in_france": state["allied_units_in_france"],
        "bhg": {**dict(state["bhg"]), "minimum": invasions.minimum(_plain(state))},
        "invasions": copy.deepcopy(_plain(state["invasions"])),
        "dutch": dict(state["dutch"]),
        "strategic": copy.deepcopy(_plain(state["strategic"])),
        "russians": dict(state["russians"]),
        "cantabres": state["cantabres"],
        "black_watch": state["black_watch"],
        "austrian_penalty": state["austrian_penalty"],
        "cumberland": state["cumberland"],
        "random_event": state["random_event"],
        "captured_orders": state["captured_orders"],
        "town_independence": state["town_independence"],
        "sick": [dict(s) for s in state["sick"]],
        "enemies": [list(p) for p in state["enemies"]],
        "dead": list(state["dead"]),
        "notes": [_note(n, side) for n in state["notes"]],
        "candidates": {
            owner: {
                pool: [o["value"] if owner == side or o.get("opened") else o["commitment"] for o in held["openings"]]
                for pool, held in pools.items()
            }
            for owner, pools in state["candidates"].items()
        },
        "at_sea": [{"side": e["side"], "force": e["force"], "turn": e["turn"]} for e in state["embarked"]],
        "standing": [{"side": s["side"], "kind": s["kind"]} for s in state["standing"] if s["side"] == side],
        "supplied": sorted(state["supplied"]),
        "series_tables": sorted((state["tables"] or {}).get("tables", {})),
        "last_rolls": [dict(r) for r in state["last_rolls"]],
        "ended": state["ended"],
    }
    return shown


def _note(note: Mapping[str, Any], side: str | None) -> dict[str, Any]:
    """Return what `side` sees of a sealed note: its commitment, and, once it may read it, the
    value its proof opens (the note's text, as committed)."""
    shown = note_view(note, side)
    if "text" in shown:
        shown["proof"] = {**shown["proof"], "value": note["opening"]["value"]}
    return shown


def secrets(state: Mapping[str, Any]) -> list[Secret]:
    """Return every hidden leaf of the state with who may see it."""
    return secrecy.secrets(state)


def in_play(state: Mapping[str, Any]) -> list[InPlay]:
    """Return the sealed draws still hiding something."""
    return secrecy.in_play(state)
