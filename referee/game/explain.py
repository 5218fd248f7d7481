"""`referee explain` on the referee's side: the protocol's step-by-step explanation of a roll,
completed with what the adjudication made of it, from the events the journal kept.

A folder without a journal (a player's copy of the records) is explained from the records alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.game.journal import GameDir
from referee.protocol.explain import explain as explain_from_records


def explain(game_dir: Path, label: str, phase: str | None = None) -> str:
    """Return the full explanation of the roll `label` (in phase `TURN/PHASE` if given) as text."""
    journal = GameDir(Path(game_dir))
    if not journal.exists():
        return explain_from_records(game_dir, label, phase)

    def events_of(turn: int, name: str) -> list[dict[str, Any]]:
        entry = journal.log_entry("phase.adjudicated", turn, name) or {}
        return list(entry.get("events", []))

    return explain_from_records(game_dir, label, phase, events_of)
