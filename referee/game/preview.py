"""`referee preview`: adjudicate the open phase on a scratch copy of the game, for the referee's eyes.

Nothing in the game directory changes and nothing goes to the outbox. The scratch copy holds
the referee's key and the game's secrets, so it lives in a private folder inside the game
directory (never in the system's temporary folder) and is removed on every exit, an error
included; one left by a killed preview is removed by the next.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from referee.game.engine import adjudicate
from referee.game.journal import GameDir
from referee.game.results import Adjudication
from referee.game.supplies import WaitingOnReferee

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
            shutil.copytree(game_dir.path, scratch, ignore=_not_copied)
            with sqlite3.connect(scratch / "journal.sqlite") as copy:
                game_dir.db.backup(copy)
            game_dir.close()
        try:
            result = adjudicate(scratch, force=force)
        except WaitingOnReferee as waiting:  # say it of the game, not of its scratch copy
            raise WaitingOnReferee(game_dir.path, waiting.phase, waiting.needs, waiting.why) from None
        reports = [(report.name, report.read_bytes().decode("utf-8")) for report in result.reports]
        return Preview(result, reports, result.record.read_bytes())
    finally:
        shutil.rmtree(scratch_folder, ignore_errors=True)


def _not_copied(folder: str, names: list[str]) -> list[str]:
    return [name for name in names if name in NOT_COPIED or name.startswith(SCRATCH_PREFIX)]
