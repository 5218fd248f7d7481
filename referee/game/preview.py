"""`referee preview`: adjudicate the open phase on a scratch copy of the game, for the referee's eyes.

Nothing in the game directory changes and nothing goes to the outbox. The scratch copy holds
the referee's key and the game's secrets, so it lives in a private folder inside the game
directory (never in the system's temporary folder) and is removed on every exit, an error
included; one left by a killed preview is removed by the next.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from referee.errors import StateError
from referee.game.engine import adjudicate
from referee.game.journal import CHAIN_CHECKED_META, GameDir
from referee.game.order_files import packs_in
from referee.game.results import Adjudication
from referee.game.supplies import WaitingOnReferee
from referee.letters.kept import read_kept

SCRATCH_PREFIX = ".preview-"
# The journal is copied through SQLite's backup API (consistent even in WAL mode); the
# outbox is left behind so the copy can never send anything.
NOT_COPIED = ("journal.sqlite", "journal.sqlite-wal", "journal.sqlite-shm", ".lock", "outbox")


@dataclass
class Preview:
    """A preview's outcome, read before its scratch game was removed: the reports (file name and
    text) and the public record the phase would get."""

    adjudication: Adjudication
    reports: list[tuple[str, str]]
    record: bytes


def preview(path: Path, force: bool = False, scratch_root: Path | None = None) -> Preview:
    """Adjudicate a copy of the game in a private scratch folder (in `scratch_root`, by default
    the game directory), read what it wrote, and remove it."""
    game_dir = GameDir(path).require()
    root = Path(scratch_root) if scratch_root is not None else game_dir.path
    for stale in root.glob(f"{SCRATCH_PREFIX}*"):  # left by a preview that was killed
        shutil.rmtree(stale, ignore_errors=True)
    scratch_folder = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX, dir=root))  # mode 0700
    try:
        scratch = scratch_folder / game_dir.path.name
        with game_dir.lock():
            shutil.copytree(game_dir.path, scratch, ignore=_not_copied_for(game_dir))
            with sqlite3.connect(scratch / "journal.sqlite") as copy:
                game_dir.db.backup(copy)
            game_dir.close()
        try:
            result = adjudicate(scratch, force=force)
        except WaitingOnReferee as waiting:  # say it of the game, not of its scratch copy
            raise WaitingOnReferee(game_dir.path, waiting.phase, waiting.needs, waiting.why) from None
        reports = [(report.name, read_kept(report).decode("utf-8")) for report in result.reports]
        return Preview(result, reports, result.record.read_bytes())
    finally:
        shutil.rmtree(scratch_folder, ignore_errors=True)


def _not_copied_for(game_dir: GameDir) -> Callable[[str, list[str]], list[str]]:
    """Return copytree's `ignore` for a preview of `game_dir`: what adjudicating the open phase
    reads is copied, the game's history is not (its past states, records and letters), so that a
    preview costs the same late in a game as early."""
    wanted = _states_read(game_dir)
    phase = game_dir.open_phase()
    letters = {phase.folder} if phase is not None else set()
    past: dict[str, set[str]] = {
        str(game_dir.states): wanted,
        str(game_dir.records): set(),
        str(game_dir.mail): letters,
        str(game_dir.orders): set(),
        str(game_dir.refused): set(),
    }
    if phase is not None:  # the order files on record for the open phase (orders/STEM/FILE), with their .sig or pack
        files = [order.file for order in game_dir.standing_orders(phase).values()]
        files += [row.body["file"] for row in game_dir.overrides(phase.turn, phase.phase) if row.kind == "order"]
        for file in files:
            folder = game_dir.orders
            *parents, name = Path(file).parts
            for part in parents:
                past[str(folder)].add(part)
                folder = folder / part
                past.setdefault(str(folder), set())
            past[str(folder)].update((name, f"{name}.sig", *packs_in(folder)))

    def ignore(folder: str, names: list[str]) -> list[str]:
        kept = past.get(str(Path(folder)))
        return [
            name
            for name in names
            if name in NOT_COPIED or name.startswith(SCRATCH_PREFIX) or (kept is not None and name not in kept)
        ]

    return ignore


def _states_read(game_dir: GameDir) -> set[str]:
    """Return the file names of the states adjudicating the open phase may read: from its state
    back through the referee's state edits to the last state checked with its chain
    (`GameDir.check_state_chain`), and the current state."""
    names: set[str] = set()
    phase = game_dir.open_phase()
    mark = game_dir.get_meta(CHAIN_CHECKED_META)
    pending = phase.state_before if phase is not None else None
    while pending is not None and pending != mark and f"{pending}.json" not in names:
        names.add(f"{pending}.json")
        try:
            envelope = json.loads(game_dir.state_bytes(pending))
        except StateError:
            break  # copied as it is: the preview's adjudication says what is wrong with it
        previous = envelope.get("previous") if isinstance(envelope, dict) else None
        pending = previous if isinstance(previous, str) else None
    names.add(f"{game_dir.current_state_hash()}.json")
    if mark is not None:
        names.add(f"{mark}.json")
    return names
