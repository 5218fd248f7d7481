"""A status answered from what the last one printed (`referee.game.status_kept`) is never stale:
any commit to the journal after the reading, a commit between the reading and keeping (a crash
then leaves the older answer), changed code, or a journal written in the same clock tick as the
reading (not kept at all) sends the next status back to the journal."""

from __future__ import annotations

import gc
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from referee.game.stamps import SETTLED_NS
from referee.game.status_kept import KEPT, journal_stamps, keep_status, kept_status

from conftest import TestGame, new_game

ROOT = Path(__file__).resolve().parents[2]
ENTRY = "import sys; sys.argv[0] = 'referee'; from referee.__main__ import main; main()"
CLICK = "import sys; sys.argv[0] = 'referee'; from referee.cli import main; main()"


def quiet_game(tmp_path: Path) -> TestGame:
    """A new game whose journal no connection of this process holds any more: a connection the
    garbage collector closes later checkpoints the journal, which changes its stamps (a miss)."""
    game = new_game(tmp_path)
    gc.collect()
    return game


def settled_now() -> int:
    """A reading's start as if the journal had been left alone long enough (tests do not wait)."""
    return time.time_ns() + SETTLED_NS + 1


def status(code: str, *args: str) -> str:
    env = {"PYTHONPATH": str(ROOT), "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code, "status", *args], capture_output=True, env=env, check=True)
    return done.stdout.decode("utf-8")


def keep_as_printed(game: TestGame) -> None:
    """Keep the status the entry prints now, as if its journal had settled."""
    path = str(game.dir)
    before = journal_stamps(path)
    assert keep_status(path, before, settled_now(), [], status(CLICK, path), status(CLICK, "--json", path))


def test_a_kept_status_is_what_the_journal_says(tmp_path: Path) -> None:
    game = quiet_game(tmp_path)
    keep_as_printed(game)
    assert kept_status(str(game.dir), as_json=False) is not None
    assert status(ENTRY, str(game.dir)) == status(CLICK, str(game.dir))
    assert status(ENTRY, "--json", str(game.dir)) == status(CLICK, "--json", str(game.dir))


def test_orders_received_make_it_stale(tmp_path: Path) -> None:
    game = quiet_game(tmp_path)
    keep_as_printed(game)
    assert game.submit("alice", 1, "rolls: [{label: scout, dice: 2d6, purpose: scouting}]").accepted
    assert kept_status(str(game.dir), as_json=False) is None
    assert "received  alice" in status(ENTRY, str(game.dir))


def test_a_commit_between_the_reading_and_keeping_makes_it_stale(tmp_path: Path) -> None:
    game = quiet_game(tmp_path)
    path = str(game.dir)
    before = journal_stamps(path)
    text = status(CLICK, path)
    with sqlite3.connect(game.dir / "journal.sqlite") as db:  # another process commits meanwhile
        db.execute("INSERT INTO meta (key, value) VALUES ('another', '1')")
    assert keep_status(path, before, settled_now(), [], text, text)  # kept, then a crash: never used
    assert kept_status(path, as_json=False) is None


def test_a_journal_written_just_before_the_reading_is_not_kept(tmp_path: Path) -> None:
    game = quiet_game(tmp_path)  # its journal was written a moment ago
    path = str(game.dir)
    assert not keep_status(path, journal_stamps(path), time.time_ns(), [], "text", "json")
    assert not (game.dir / KEPT).exists()


def test_changed_code_makes_it_stale(tmp_path: Path) -> None:
    game = quiet_game(tmp_path)
    code = tmp_path / "game_code"
    code.mkdir()
    (code / "rules.py").write_text("x = 1\n", encoding="utf-8")
    path = str(game.dir)
    assert keep_status(path, journal_stamps(path), settled_now(), [str(code)], "text", "json")
    assert kept_status(path, as_json=True) == "json"
    (code / "rules.py").write_text("x = 2\n", encoding="utf-8")
    assert kept_status(path, as_json=True) is None
    assert not keep_status(path, journal_stamps(path), settled_now(), [None], "text", "json")  # no answer: not kept


def test_code_edited_while_the_status_ran_is_not_kept(tmp_path: Path) -> None:
    game = quiet_game(tmp_path)
    code = tmp_path / "game_code"
    code.mkdir()
    since = settled_now()
    (code / "rules.py").write_text("x = 1\n", encoding="utf-8")
    os.utime(code / "rules.py", ns=(since, since))  # written after the reading began
    path = str(game.dir)
    assert not keep_status(path, journal_stamps(path), since, [str(code)], "text", "json")
