"""The entry (`referee.__main__`) serves `status` and `run` without click: what it prints and its
exit code must be click's path's, byte for byte. Each case runs both and compares; the status
it reads with sqlite3 alone (`referee.game.glance`) must be the one GameDir reads."""

from __future__ import annotations

import gc
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.game import glance
from referee.game.engine import adjudicate, init_game
from referee.game.journal import LOG_INDEXES, LOG_INDEXES_REPLACED, MIGRATIONS, GameDir
from referee.game.status import status
from referee.game.supplies import HELD_EVENT, needs_when
from referee.game.unreachable import mark_unreachable
from referee.mail.home import Home
from referee.mail.idle import quick_pass
from referee.mail.run import run_pass

from conftest import TestGame, new_game

ROOT = Path(__file__).resolve().parents[2]
ENTRY = "import sys; sys.argv[0] = 'referee'; from referee.__main__ import main; main()"
CLICK = "import sys; sys.argv[0] = 'referee'; from referee.cli import main; main()"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An open game, a finished one, one with an older journal, and a home with a game after its first pass."""
    root = tmp_path_factory.mktemp("entry")
    game = new_game(root / "open")
    over = new_game(root / "over", rounds=1)
    adjudicate(over.dir, force=True)
    old = new_game(root / "old")
    with sqlite3.connect(old.dir / "journal.sqlite") as db:
        db.execute("DROP INDEX log_source_entries")  # made before the log's indexes: GameDir adds them
    home = Home(root / "home")
    home.create()
    home.config_path.write_text("referee: {email: referee@example.org, name: Test Referee}\n", encoding="utf-8")
    config = root / "open" / "setup" / "game.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("test-game", "home-game"), encoding="utf-8")
    init_game(home.games_dir / "home-game", config)
    run(ENTRY, "run", "--home", str(home.path), "--no-mail")  # the first pass posts the notices
    (root / "a-file").write_text("not a home\n", encoding="utf-8")
    kept = Home(root / "kept")  # a home whose idle pass is answered from its kept summary
    kept.create()
    kept.config_path.write_text(home.config_path.read_text(encoding="utf-8"), encoding="utf-8")
    init_game(kept.games_dir / "home-game", config)
    gc.collect()  # journals' connections left to the collector: one closed later changes its journal's stamps
    for _ in range(3):  # the first posts the notices; one after keeps its summary (files taken as settled)
        run_pass(kept, mail=False, keep_summary=True, settle_ns=0)
    assert quick_pass(str(kept.path), mail=False) is not None
    return {"game": game.dir, "over": over.dir, "old": old.dir, "home": home.path, "root": root, "kept": kept.path}


def run(code: str, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "C.UTF-8", **(env or {})},
        check=False,
    )
    return done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8")


# `status --clock` is click's on both paths (test below): its durations run to now, so two runs differ.
CASES: dict[str, tuple[list[str], dict[str, str]]] = {
    "status": (["status", "{game}"], {}),
    "status --json": (["status", "--json", "{game}"], {}),
    "status, --json after, twice": (["status", "{game}", "--json", "--json"], {}),
    "status of a finished game": (["status", "{over}", "--json"], {}),
    "status of an older journal": (["status", "{old}"], {}),
    "status of no game": (["status", "{root}/nowhere"], {}),
    "status of a file": (["status", "{root}/a-file"], {}),
    "status without GAMEDIR": (["status"], {}),
    "status with two": (["status", "{game}", "{over}"], {}),
    "status --bogus": (["status", "--bogus", "{game}"], {}),
    "status --help": (["status", "--help"], {}),
    "status --": (["status", "--", "{game}"], {}),
    "status with click's variable": (["status", "{game}"], {"REFEREE_STATUS_AS_JSON": "1"}),
    "status with REFEREE_VERSION": (["status", "{game}"], {"REFEREE_VERSION": "1"}),
    "run": (["run", "--home", "{home}", "--no-mail"], {}),
    "run --home= --quiet": (["run", "--no-mail", "--home={home}", "--quiet"], {}),
    "run from REFEREE_HOME": (["run", "--no-mail"], {"REFEREE_HOME": "{home}"}),
    "run of a home without referee.yaml": (["run", "--home", "{root}/nowhere", "--no-mail"], {}),
    "run of a file": (["run", "--home", "{root}/a-file", "--no-mail"], {}),
    "run --home without a value": (["run", "--no-mail", "--home"], {}),
    "run --bogus": (["run", "--home", "{home}", "--bogus"], {}),
    "run with click's variable": (["run", "--home", "{home}"], {"REFEREE_RUN_NO_MAIL": "1"}),
    "run answered from a kept summary": (["run", "--home", "{kept}", "--no-mail"], {}),
    "run answered from a kept summary, --quiet": (["run", "--home", "{kept}", "--no-mail", "--quiet"], {}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_entry_prints_what_click_prints(world: dict[str, Path], case: str) -> None:
    args, env = CASES[case]
    args = [arg.format(**world) for arg in args]
    env = {name: value.format(**world) for name, value in env.items()}
    assert run(ENTRY, *args, env=env) == run(CLICK, *args, env=env)


def test_the_entry_serves_status_and_run_and_hands_the_rest_to_click() -> None:
    from referee.__main__ import served

    assert served(["status", "game"]) is not None and served(["status", "--json", "game"]) is not None
    assert served(["run", "--home", "h", "--no-mail", "--quiet"]) is not None and served(["run"]) is not None
    for args in (["status", "game", "--clock"], ["run", "--watch"], ["status", "-"], ["init", "x"], ["--help"], []):
        assert served(args) is None, args


def _full(path: Path) -> dict[str, Any]:
    """The status as GameDir reads it (what `glance` hands an older journal to)."""
    info = status(path)
    if not info["over"]:
        info.update(glance.needs_of(str(path), GameDir(path).require().db, info, needs_when))
    return info


def test_a_glance_reads_what_gamedir_reads(tmp_path: Path) -> None:
    game: TestGame = new_game(tmp_path)
    game_dir = GameDir(game.dir)
    assert glance.glance(str(game.dir), needs_when) == _full(game.dir)
    assert game.submit("alice", 1, "hidden_note: {id: plan-b, text: We march at dawn., to: [bob]}").accepted
    phase = game_dir.open_phase()
    assert phase is not None
    mark_unreachable(game_dir, "bob", "550 no such user", "notice", "2026-01-01T00:00:00+00:00")
    with game_dir.transaction():
        hold = {"needs": ["tables"], "why": "a table is missing", "state": phase.state_before, "generation": 0}
        game_dir.log(HELD_EVENT, hold, phase.turn, phase.phase)
        game_dir.start_operation("op-1", "rollback", "key", "referee rollback ...", {})
    found = glance.glance(str(game.dir), needs_when)
    assert found == _full(game.dir)
    assert found is not None and found["missing_now"] == ["tables"] and found["held"]["why"] == "a table is missing"
    assert found["interrupted"][0]["operation"] == "op-1" and "bob" in found["unreachable"]
    assert found["received"] == ["alice"]


def test_a_glance_leaves_other_journals_to_gamedir(tmp_path: Path) -> None:
    game = new_game(tmp_path)
    journal = game.dir / "journal.sqlite"
    assert glance.glance(str(tmp_path / "nowhere"), needs_when) is None
    with sqlite3.connect(journal) as db:
        db.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
    assert glance.glance(str(game.dir), needs_when) is None
    with sqlite3.connect(journal) as db:
        db.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
    assert glance.glance(str(game.dir), needs_when) is not None


def test_the_glance_knows_the_journal_it_reads() -> None:
    assert len(MIGRATIONS) == glance.JOURNAL_VERSION
    assert set(glance.LOG_INDEXES) == set(LOG_INDEXES)
    assert glance.LOG_INDEXES_REPLACED == LOG_INDEXES_REPLACED


def test_the_kept_needs_hold_while_their_code_and_state_are_unchanged(tmp_path: Path) -> None:
    game = new_game(tmp_path)
    info = glance.glance(str(game.dir), needs_when)  # computes the needs and keeps them
    assert info is not None
    phase = GameDir(game.dir).open_phase()
    assert phase is not None
    kept = glance._kept_needs(str(game.dir), "moderator", phase.state_before)
    assert kept is not None and kept[1] == [["tables", "default"]]
    assert glance._kept_needs(str(game.dir), "moderator", "another state") is None
    assert glance._kept_needs(str(game.dir), "polemos-obb", phase.state_before) is None
    code = tmp_path / "code"
    code.mkdir()
    (code / "rules.py").write_text("x = 1\n", encoding="utf-8")
    before = glance.fingerprint([str(code)])
    (code / "more.py").write_text("y = 2\n", encoding="utf-8")
    assert glance.fingerprint([str(code)]) != before
