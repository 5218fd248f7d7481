"""The journal: schema versions and migrations of journals written by earlier versions."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from referee.journal import MIGRATIONS, GameDir


def test_fresh_journal_is_at_the_current_version(tmp_path: Path) -> None:
    journal = GameDir(tmp_path)
    assert journal.db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


def test_journal_from_before_by_referee_is_migrated(tmp_path: Path) -> None:
    old = sqlite3.connect(tmp_path / "journal.sqlite")
    old.execute(
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, phase_seq INTEGER NOT NULL, player TEXT NOT NULL,"
        " seq INTEGER NOT NULL, sha256 TEXT NOT NULL, file TEXT NOT NULL, accepted_at TEXT NOT NULL)"
    )
    old.execute("INSERT INTO orders VALUES (1, 1, 'alice', 1, 'aa', 'f.yaml', 'then')")
    old.commit()
    old.close()
    journal = GameDir(tmp_path)
    standing = journal.standing_orders(1)
    assert standing["alice"].by_referee is False and standing["alice"].sha256 == "aa"
    assert journal.db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
