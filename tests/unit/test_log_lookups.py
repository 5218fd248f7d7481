"""The journal's look-ups of the log cost the same however long the game has run.

Intake asks, for every mail, whether its source was handled and how many times its file was
sent; `referee status` asks whether the open phase is held. Each is counted here in SQLite
virtual-machine steps (a progress handler called on every instruction): a scan of the log
would grow tenfold between 100 and 1,000 entries, an index look-up does not grow.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.game.journal import LOG_INDEXES, LOG_INDEXES_REPLACED, GameDir, OpenPhase
from referee.game.supplies import ALERTED_EVENT, HELD_EVENT, held


def _game_of(path: Path, entries: int) -> GameDir:
    """A journal whose log holds `entries` order submissions over as many phases, each from a mail."""
    journal = GameDir(path).allow_create()
    with journal.transaction():
        for n in range(entries):
            kind = ("order.accepted", "order.refused", "order.duplicate")[n % 3]
            data = {"sha256": f"{n:064x}", "source": f"imap:INBOX:{n}", "by": "alice"}
            journal.log(kind, data, turn=n // 4 + 1, phase="round", player="alice")
            if n % 4 == 0:
                hold = {"state": f"s{n}", "generation": 0, "needs": ["weather"], "why": "no supply"}
                journal.log(HELD_EVENT, hold, turn=n // 4 + 1, phase="round")
                journal.log(ALERTED_EVENT, {"state": f"s{n}", "generation": 0}, turn=n // 4 + 1, phase="round")
    return journal


def _steps(journal: GameDir, look_up: Callable[[], object]) -> int:
    """Return how many virtual-machine instructions SQLite ran for `look_up`."""
    count = 0

    def step() -> int:
        nonlocal count
        count += 1
        return 0

    journal.db.set_progress_handler(step, 1)
    try:
        look_up()
    finally:
        journal.db.set_progress_handler(None, 1)
    return count


def _look_ups(journal: GameDir, entries: int) -> dict[str, int]:
    last = entries - 1
    mark = journal.db.execute("SELECT MAX(id) FROM log").fetchone()[0] - 5
    phase = OpenPhase(1, last // 4 + 1, "round", "c", f"s{last - last % 4}", "t", ("alice",), None, None, None)
    return {
        "seen": _steps(journal, lambda: journal.source_seen(f"imap:INBOX:{last}")),
        "unseen": _steps(journal, lambda: journal.source_seen("imap:INBOX:never")),
        "received": _steps(journal, lambda: journal.times_received(f"{last:064x}")),
        "held": _steps(journal, lambda: held(journal, phase)),
        # an incremental reader (the attendance fold of the idle pass): the entries after its mark
        "since": _steps(journal, lambda: journal.log_entries(("order.accepted", HELD_EVENT), since_id=mark)),
    }


def test_intake_and_hold_look_ups_do_not_grow_with_the_log(tmp_path: Path) -> None:
    (tmp_path / "short").mkdir()
    (tmp_path / "long").mkdir()
    short, long = _game_of(tmp_path / "short", 100), _game_of(tmp_path / "long", 1000)
    assert long.source_seen("imap:INBOX:999") and not long.source_seen("imap:INBOX:1000")
    assert long.times_received(f"{999:064x}") == 1
    assert held(long, OpenPhase(1, 250, "round", "c", "s996", "t", ("alice",), None, None, None)) is not None
    assert _look_ups(short, 100) == _look_ups(long, 1000)


@pytest.mark.parametrize("busy", [False, True])
def test_a_journal_without_the_indexes_gets_them_when_opened(tmp_path: Path, busy: bool) -> None:
    """A journal written before the indexes existed is indexed once, on open; while another
    process writes it, opening does not wait for it, and the look-ups still answer."""
    journal = _game_of(tmp_path, 300)
    journal.db.execute("INSERT INTO meta (key, value) VALUES ('game', '{}')")
    journal.close()
    writer = sqlite3.connect(tmp_path / "journal.sqlite", isolation_level=None)
    for name in LOG_INDEXES:
        writer.execute(f"DROP INDEX {name}")
    if busy:
        writer.execute("BEGIN IMMEDIATE")
    try:
        reopened = GameDir(tmp_path)
        names = {r[0] for r in reopened.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert (set(LOG_INDEXES) <= names) is not busy
        assert reopened.source_seen("imap:INBOX:299") and reopened.times_received(f"{299:064x}") == 1
        assert reopened.db.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    finally:
        writer.close()


def _json_parses(journal: GameDir, write: Callable[[], object]) -> int:
    """Return how many times SQLite's json_extract ran while `write` ran (an override counting calls)."""
    calls = 0

    def extract(text: str, path: str) -> object:
        nonlocal calls
        calls += 1
        return _BUILTIN.execute("SELECT json_extract(?, ?)", (text, path)).fetchone()[0]

    journal.db.create_function("json_extract", 2, extract, deterministic=True)
    try:
        write()
    finally:
        journal.db.create_function("json_extract", 2, None)
    return calls


_BUILTIN = sqlite3.connect(":memory:")


def test_an_adjudication_entry_is_not_parsed_to_index_it(tmp_path: Path) -> None:
    """The log's JSON indexes leave out the adjudication's entry (its events, megabytes in a long
    phase): writing it parses nothing, where an order entry is parsed for each index it is in."""
    journal = _game_of(tmp_path, 10)
    events = {"events": [{"kind": "roll", "values": [n]} for n in range(100)], "record": "r.json"}
    with journal.transaction():
        big = _json_parses(journal, lambda: journal.log("phase.adjudicated", events, turn=9, phase="round"))
        order = _json_parses(journal, lambda: journal.log("order.accepted", {"sha256": "ab", "source": "s"}, turn=9))
        absent = _json_parses(journal, lambda: journal.log("player.absent", {"source": "t"}, turn=9))
    assert (big, order, absent) == (0, 2, 1)
    assert journal.source_seen("s") and journal.source_seen("t") and journal.times_received("ab") == 1


def test_the_whole_log_indexes_of_an_older_journal_are_replaced(tmp_path: Path) -> None:
    journal = _game_of(tmp_path, 30)
    journal.db.execute("INSERT INTO meta (key, value) VALUES ('game', '{}')")
    for name in LOG_INDEXES:
        journal.db.execute(f"DROP INDEX {name}")
    for name, key in zip(LOG_INDEXES_REPLACED, ("source", "sha256"), strict=True):
        journal.db.execute(f"CREATE INDEX {name} ON log (json_extract(data, '$.{key}'))")
    journal.close()
    reopened = GameDir(tmp_path)
    names = {r[0] for r in reopened.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert set(LOG_INDEXES) <= names and not names & set(LOG_INDEXES_REPLACED)
    assert reopened.source_seen("imap:INBOX:29") and reopened.times_received(f"{29:064x}") == 1
