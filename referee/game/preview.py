"""`referee preview`: adjudicate the open phase on a scratch copy of the game, for the referee's eyes.

Nothing in the game directory changes and nothing goes to the outbox; the scratch copy, with
its reports, is left where the referee can read it.
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

# The journal is copied through SQLite's backup API (consistent even in WAL mode); the
# outbox is left behind so the copy can never send anything.
NOT_COPIED = ("journal.sqlite", "journal.sqlite-wal", "journal.sqlite-shm", ".lock", "outbox")


@dataclass
class Preview:
    """A preview's outcome and where its scratch game lies."""

    scratch: Path
    adjudication: Adjudication


def preview(path: Path, force: bool = False, scratch_root: Path | None = None) -> Preview:
    """Adjudicate a copy of the game in `scratch_root` (a new temporary folder by default)."""
    game_dir = GameDir(path).require()
    root = Path(tempfile.mkdtemp(prefix="referee-preview-", dir=scratch_root))
    scratch = root / game_dir.path.name
    with game_dir.lock():
        shutil.copytree(game_dir.path, scratch, ignore=lambda _dir, names: [n for n in names if n in NOT_COPIED])
        with sqlite3.connect(scratch / "journal.sqlite") as copy:
            game_dir.db.backup(copy)
        game_dir.close()
    result = adjudicate(scratch, force=force)
    shutil.rmtree(scratch / "outbox", ignore_errors=True)
    return Preview(scratch, result)
