"""Disputes: a player names a roll label (or an event) and a reason; the referee resolves it,
upheld (with the evidence `referee explain` gives) or overridden (after `referee override`), and
every player is told. Kept in the game's journal log:

    dispute.opened    {number, player, label, record, reason, source}
    dispute.resolved  {number, outcome: "upheld" | "overridden", note}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee.errors import RefereeError, StateError
from referee.game.announce import post_dispute_resolution
from referee.game.explain import explain
from referee.game.journal import GameDir
from referee.game.opened import Game

OUTCOMES = ("upheld", "overridden")


def find_roll(game_dir: GameDir, label: str) -> str | None:
    """Return the record (file name) that holds a roll with this label, newest first, or None."""
    for record in sorted(game_dir.records.glob("*.json"), reverse=True):
        try:
            rolls = json.loads(record.read_bytes()).get("rolls", [])
        except (OSError, ValueError):
            continue
        if any(roll.get("label") == label for roll in rolls):
            return record.name
    return None


def disputes(game_dir: GameDir) -> list[dict[str, Any]]:
    """Return the game's disputes, each with its state ("open", "upheld" or "overridden")."""
    found: dict[int, dict[str, Any]] = {}
    for entry in game_dir.log_entries(("dispute.opened", "dispute.resolved")):
        data = entry["data"]
        if entry["kind"] == "dispute.opened":
            found[data["number"]] = {**data, "state": "open", "at": entry["at"]}
        elif data["number"] in found:
            found[data["number"]].update(state=data["outcome"], note=data.get("note", ""))
    return [found[n] for n in sorted(found)]


def resolve_dispute(path: Path, number: int, outcome: str, note: str) -> list[Path]:
    """Record a dispute's resolution and tell every player; return the letters written."""
    if outcome not in OUTCOMES:
        raise RefereeError(f"a dispute is resolved as {' or '.join(OUTCOMES)}, not {outcome!r}")
    game = Game.open(path)
    with game.dir.lock():
        known = {d["number"]: d for d in disputes(game.dir)}
        dispute = known.get(number)
        if dispute is None:
            listed = ", ".join(f"#{n}" for n in known) or "none"
            raise StateError(f"game '{game.config.game}' has no dispute #{number}", hints=(f"disputes: {listed}",))
        if dispute["state"] != "open":
            raise StateError(f"dispute #{number} was already resolved ({dispute['state']})")
        evidence = None
        if outcome == "upheld" and dispute.get("record"):
            record = json.loads((game.dir.records / dispute["record"]).read_bytes())
            evidence = explain(path, dispute["label"], f"{record['turn']}/{record['phase']}")
        letters = post_dispute_resolution(game, dispute, outcome, note, evidence)
        with game.dir.transaction():
            game.dir.log(
                "dispute.resolved", {"number": number, "outcome": outcome, "note": note}, player=dispute["player"]
            )
    return letters
