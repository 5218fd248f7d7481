"""The journal: schema versions and migrations of journals written by earlier versions."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from referee.game.journal import MIGRATIONS, GameDir

# The schema of version 1 (orders knew by_referee; no rollbacks), as that version created it.
SCHEMA_V1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE seeds (turn INTEGER NOT NULL, phase TEXT NOT NULL, server_seed TEXT NOT NULL, PRIMARY KEY (turn, phase));
CREATE TABLE phases (
    seq INTEGER PRIMARY KEY, turn INTEGER NOT NULL, phase TEXT NOT NULL,
    commit_hex TEXT NOT NULL, state_before TEXT NOT NULL, active TEXT NOT NULL, opened_at TEXT NOT NULL,
    adjudicated_at TEXT, state_after TEXT, record TEXT,
    UNIQUE (turn, phase));
CREATE TABLE orders (
    id INTEGER PRIMARY KEY, phase_seq INTEGER NOT NULL REFERENCES phases(seq),
    player TEXT NOT NULL, seq INTEGER NOT NULL, sha256 TEXT NOT NULL, file TEXT NOT NULL,
    accepted_at TEXT NOT NULL, by_referee INTEGER NOT NULL DEFAULT 0, UNIQUE (phase_seq, player, seq));
CREATE TABLE log (
    id INTEGER PRIMARY KEY, at TEXT NOT NULL, kind TEXT NOT NULL,
    turn INTEGER, phase TEXT, player TEXT, data TEXT NOT NULL);
"""
# Version 0: the same, before orders knew who entered them.
SCHEMA_V0 = SCHEMA_V1.replace(", by_referee INTEGER NOT NULL DEFAULT 0", "")


def _old_journal(path: Path, version: int) -> None:
    """Write a journal as version `version` left it: phase 1 adjudicated by force, phase 2 open."""
    db = sqlite3.connect(path / "journal.sqlite")
    db.executescript(SCHEMA_V1 if version == 1 else SCHEMA_V0)
    db.execute("INSERT INTO phases VALUES (1, 1, 'round', 'c1', 's0', '[\"alice\", \"bob\"]', 't', 't', 's1', 'r1')")
    db.execute("INSERT INTO phases VALUES (2, 2, 'round', 'c2', 's1', '[\"alice\", \"bob\"]', 't', NULL, NULL, NULL)")
    by_referee = ", 1" if version == 1 else ""
    db.execute(f"INSERT INTO orders VALUES (1, 1, 'alice', 1, 'aa', 'f1.yaml', 't'{by_referee})")
    db.execute(f"INSERT INTO orders VALUES (2, 2, 'bob', 1, 'bb', 'f2.yaml', 't'{by_referee})")
    data = json.dumps({"defaulted": ["bob"], "forced": True, "record": "r1", "events": []})
    db.execute(
        "INSERT INTO log (at, kind, turn, phase, data) VALUES ('t', 'phase.adjudicated', 1, 'round', ?)", (data,)
    )
    db.execute(f"PRAGMA user_version = {version}")
    db.commit()
    db.close()


def test_fresh_journal_is_at_the_current_version(tmp_path: Path) -> None:
    journal = GameDir(tmp_path).allow_create()
    assert journal.db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


@pytest.mark.parametrize("version", [0, 1])
def test_an_older_journal_is_migrated(tmp_path: Path, version: int) -> None:
    _old_journal(tmp_path, version)
    journal = GameDir(tmp_path)
    assert journal.db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    first, second = journal.phases()
    # Orders now belong to a turn and phase, and remember the state they were checked against.
    alice = journal.standing_orders(first)["alice"]
    assert (alice.sha256, alice.file, alice.state, alice.by_referee) == ("aa", "f1.yaml", "s0", version == 1)
    assert journal.standing_orders(2)["bob"].state == "s1"
    # How phase 1 was adjudicated is read back from the log, so a roll forward can repeat it.
    assert (first.generation, first.forced, first.defaulted) == (0, True, ("bob",))
    assert (second.forced, second.defaulted) == (None, ())
    assert journal.overrides() == [] and journal.superseded_phases() == []
    journal.close()
    # Opening it again changes nothing.
    again = GameDir(tmp_path)
    assert again.phases() == [first, second]
    again.close()
