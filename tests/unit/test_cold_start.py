"""Start-up: `referee status` loads what it shows and no more (issue 23: cold start within 2x of
a bare Python start). Counted in module names, never timed: scripts/bench times it."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import MakeGame
from mailworld import MailWorld

ROOT = Path(__file__).resolve().parents[2]
# Run a command as `referee` does, then print which of the named modules it loaded.
PROBE = """
import json, runpy, sys
names, sys.argv = sys.argv[1].split(","), ["referee", *sys.argv[2:]]
try:
    runpy.run_module("referee", run_name="__main__")
except SystemExit:
    pass
print(json.dumps(sorted(name for name in names if name in sys.modules)))
"""
NEVER_FOR_STATUS = (
    "jinja2",  # letters are rendered by adjudication, not by a status
    "imapclient",  # mail is read by `referee run`
    "ssl",  # no TLS without a mail server
    "http.client",  # a beacon round is fetched when a phase is adjudicated
    "urllib.request",
    "pyrage",  # letters are encrypted when they are written
    "games.cest_la_guerre",  # a moderator game's status loads that game alone
    "games.polemos_obb",
    "games.clash_of_sovereigns",
    "yaml",  # a status reads the journal and the game's states, which are JSON, not its game.yaml
    "cryptography",  # nor the players' keys
    "email",  # the letters layer: a status writes none
    "referee.letters",
    "ctypes",  # found on a first disk sync (referee.files), and a status writes nothing
)


def loaded(*command: str, names: tuple[str, ...]) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(names), *command], capture_output=True, text=True, env=env, check=True
    )
    found: list[str] = json.loads(done.stdout.splitlines()[-1])
    return found


def test_status_of_an_open_game_loads_no_letters_mail_or_other_game(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    assert loaded("status", str(game.dir), names=("games.moderator", *NEVER_FOR_STATUS)) == ["games.moderator"]


# What the entry's status (referee.__main__, referee.game.glance) does without: click, the kit and
# the game (their answer for the open phase's state is kept), and the standard library's costly
# modules (each about a bare start: dataclasses brings inspect; pathlib is not among them because
# an editable install's finder loads it at every start, and the tests run in one).
NEVER_FOR_A_GLANCE = ("click", "referee.cli", "referee.kit", "games", "dataclasses", "inspect", "typing")


def test_a_status_loads_no_click_and_once_its_needs_are_kept_no_game(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    assert loaded("status", str(game.dir), names=("click", "referee.cli")) == []  # needs computed, then kept
    assert loaded("status", str(game.dir), names=NEVER_FOR_A_GLANCE) == []
    assert loaded("status", "--json", str(game.dir), names=NEVER_FOR_A_GLANCE) == []


def test_the_help_loads_no_game_nor_library(tmp_path: Path) -> None:
    names = ("games", "yaml", "cryptography", "jinja2", "imapclient")
    assert loaded("--help", names=names) == []


NEVER_FOR_AN_IDLE_PASS = (
    "click",  # the entry serves `run` itself (referee.__main__)
    "referee.cli",
    "email",  # the letters layer and the intake's handling load when a letter is written or a mail handled
    "referee.letters",
    "smtplib",
    "referee.game.engine",  # nothing is submitted nor adjudicated when no mail came and no deadline passed
    "referee.game.adjudication",
    "jinja2",
    "pyrage",
    "http.client",
    "ctypes",
)


def test_an_idle_pass_loads_no_engine_nor_templates(tmp_path: Path, make_game: MakeGame) -> None:
    from referee.game.engine import init_game
    from referee.mail.home import Home

    setup = make_game(tmp_path).dir.parent / "setup"
    home = Home(tmp_path / "home")
    home.create()
    home.config_path.write_text("referee: {email: referee@example.org, name: Test Referee}\n", encoding="utf-8")
    config = setup / "game.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("test-game", "idle-game"), encoding="utf-8")
    init_game(home.games_dir / "idle-game", config)
    home_path = str(home.path)
    loaded("run", "--home", home_path, "--no-mail", names=())  # the first pass posts the game's notices
    assert loaded("run", "--home", home_path, "--no-mail", names=NEVER_FOR_AN_IDLE_PASS) == []


def test_an_idle_pass_answered_from_its_summary_loads_no_yaml_nor_mail_client(mail_world: MailWorld) -> None:
    from referee.mail.idle import SUMMARY
    from referee.mail.run import run_pass

    gc.collect()  # journals' connections left to the collector: one closed later changes its journal's stamps
    for _ in range(3):  # until a pass keeps its summary (its files taken as settled once it began)
        run_pass(mail_world.home, keep_summary=True, settle_ns=0)
    assert (mail_world.home.path / SUMMARY).exists()
    names = ("yaml", "cryptography", "imapclient", "imaplib", "ssl", "socket", "sqlite3", "games", "dataclasses")
    assert loaded("run", "--home", str(mail_world.home.path), names=names) == []


def test_a_status_answered_from_the_kept_one_opens_no_journal(tmp_path: Path, make_game: MakeGame) -> None:
    import time

    from referee.game.stamps import SETTLED_NS
    from referee.game.status_kept import journal_stamps, keep_status

    game = str(make_game(tmp_path).dir)
    gc.collect()  # journals' connections left to the collector: one closed later changes its journal's stamps
    before = journal_stamps(game)  # kept as if its journal had settled: tests do not wait
    assert keep_status(game, before, time.time_ns() + SETTLED_NS + 1, [], "text\n", "{}\n")
    assert loaded("status", game, names=("sqlite3", "referee.game.glance", "referee.protocol.display")) == []


# The installed `referee` command is our launcher (scripts/referee), not pip's console script,
# which imports `re` before the entry runs (half a bare start). Run here as pip installs it: the
# launcher as the script, and -S (no site) because the tests' editable install imports `re` and
# `pathlib` at every start through its finder, which users of a normal install do not have.
LAUNCHER = ROOT / "scripts" / "referee"
# What a kept status or an idle pass may import from the standard library beyond a bare start:
# the lock (fcntl) and the probe's socket (_socket), both built into Debian's Python.
STANDARD_FOR_AN_IDLE_START = {"__future__", "fcntl", "_socket"}


def imported_beyond_a_bare_start(*command: str) -> set[str]:
    """Return the modules the installed `referee` imports for `command` that a bare start does not."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def imported(*args: str) -> set[str]:
        done = subprocess.run(
            [sys.executable, "-S", "-X", "importtime", *args], capture_output=True, text=True, env=env, check=True
        )
        lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
        return {line.rsplit("|", 1)[1].strip() for line in lines[1:]}  # the first line is the header

    return imported(str(LAUNCHER), *command) - imported("-c", "import os")  # site imports os in a bare start


def test_the_command_is_installed_as_our_launcher_not_a_console_script() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "referee" not in project["project"].get("scripts", {})  # pip would write its script over ours
    assert project["tool"]["setuptools"]["script-files"] == ["scripts/referee"]
    # The wheel's rule: a script's first line `#!python` becomes the environment's Python on install.
    assert LAUNCHER.read_bytes().startswith(b"#!python\n")
    assert os.access(LAUNCHER, os.X_OK)


def test_the_launcher_prints_what_python_m_referee_prints(tmp_path: Path, make_game: MakeGame) -> None:
    game = str(make_game(tmp_path).dir)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for command in (["status", game], ["status", "--json", game], ["status", str(tmp_path / "none")], ["--version"]):
        by_launcher, by_module = (
            subprocess.run([sys.executable, *start, *command], capture_output=True, text=True, env=env)
            for start in ([str(LAUNCHER)], ["-m", "referee"])
        )
        assert (by_launcher.returncode, by_launcher.stdout, by_launcher.stderr) == (
            by_module.returncode,
            by_module.stdout,
            by_module.stderr,
        )


def test_a_kept_status_imports_the_referee_entry_and_nothing_else(tmp_path: Path, make_game: MakeGame) -> None:
    import time

    from referee.game.stamps import SETTLED_NS
    from referee.game.status_kept import journal_stamps, keep_status

    game = str(make_game(tmp_path).dir)
    gc.collect()  # journals' connections left to the collector: one closed later changes its journal's stamps
    assert keep_status(game, journal_stamps(game), time.time_ns() + SETTLED_NS + 1, [], "text\n", "{}\n")
    found = imported_beyond_a_bare_start("status", game)
    assert "referee.game.status_kept" in found  # answered from the kept status
    assert {name for name in found if name.split(".")[0] != "referee"} <= STANDARD_FOR_AN_IDLE_START


def test_an_idle_pass_imports_the_referee_entry_and_nothing_else(mail_world: MailWorld) -> None:
    from referee.mail.idle import SUMMARY
    from referee.mail.run import run_pass

    gc.collect()  # journals' connections left to the collector: one closed later changes its journal's stamps
    for _ in range(3):  # until a pass keeps its summary (its files taken as settled once it began)
        run_pass(mail_world.home, keep_summary=True, settle_ns=0)
    assert (mail_world.home.path / SUMMARY).exists()
    found = imported_beyond_a_bare_start("run", "--home", str(mail_world.home.path))
    assert "referee.mail.imap_probe" in found and "referee.mail.run" not in found  # answered from the summary
    assert {name for name in found if name.split(".")[0] != "referee"} <= STANDARD_FOR_AN_IDLE_START
