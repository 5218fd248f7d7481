"""`referee send`: a game's outbox handed to the machine's sendmail, each letter once.

The happy path runs the real msmtp (installed by scripts/test) as `sendmail`, relaying to the
tests' aiosmtpd server; the failures use a small sendmail-compatible program that records what
it was given and refuses, or kills `referee send` right after taking a letter.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from email import message_from_bytes, policy
from pathlib import Path

import pytest

from referee.errors import ConfigError
from referee.letters.outbox import SENT_INDEX, Letter, post
from referee.mail import sendmail as sendmail_module
from referee.mail.home import Home
from referee.mail.sendmail import find_sendmail

from conftest import MakeGame
from mailservers import SmtpServer

PLAYERS = ("alice", "bob", "carol")

# A sendmail stand-in: records argv and the letter, then does what $FAKE_SENDMAIL_MODE says.
FAKE_SENDMAIL = """\
#!{python}
import json, os, signal, sys
folder = os.environ["FAKE_SENDMAIL_LOG"]
raw = sys.stdin.buffer.read()
count = len(os.listdir(folder))
with open(os.path.join(folder, "%03d.json" % count), "w") as out:
    json.dump({{"argv": sys.argv[1:], "letter": raw.decode()}}, out)
mode = os.environ.get("FAKE_SENDMAIL_MODE", "ok")
if mode == "refuse-bob" and "bob@example.org" in sys.argv:
    print("sendmail: bob@example.org: User unknown", file=sys.stderr)
    sys.exit(67)
if mode == "kill-caller":  # the letter is taken; the referee dies before it records that
    os.kill(os.getppid(), signal.SIGKILL)
sys.exit(0)
"""


def referee_send(*args: str | Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", "send", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def _env(tmp_path: Path, bin_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    env.update(HOME=str(tmp_path / "home"), PATH=f"{bin_dir}:{env['PATH']}", **extra)
    (tmp_path / "home").mkdir(exist_ok=True)
    return env


def _outbox(game_dir: Path, folder: str) -> list[Path]:
    return sorted((game_dir / "outbox" / folder).glob("*.eml"))


def _sent(game_dir: Path) -> dict[str, bytes]:
    """Return what the outbox keeps of each letter sent (its headers), by its file name."""
    with closing(sqlite3.connect(game_dir / "outbox" / SENT_INDEX)) as db:
        return {name: bytes(headers) for name, headers in db.execute("SELECT name, headers FROM sent")}


@pytest.fixture
def fake_sendmail(tmp_path: Path) -> tuple[Path, Path]:
    """Return (a bin folder holding `sendmail`, the folder where it records each call)."""
    bin_dir, log = tmp_path / "bin", tmp_path / "sendmail-log"
    bin_dir.mkdir()
    log.mkdir()
    program = bin_dir / "sendmail"
    program.write_text(FAKE_SENDMAIL.format(python=sys.executable))
    program.chmod(0o755)
    return bin_dir, log


def _calls(log: Path) -> list[dict[str, object]]:
    import json

    return [json.loads(path.read_text()) for path in sorted(log.iterdir())]


@pytest.mark.skipif(shutil.which("msmtp") is None, reason="msmtp is not installed: scripts/test installs it")
def test_the_outbox_leaves_through_a_real_sendmail(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path, players=PLAYERS)
    waiting = {path.name: path.read_bytes() for path in _outbox(game.dir, "new")}
    assert len(waiting) == len(PLAYERS)  # the first phase's notices
    server = SmtpServer().start()
    try:
        home, bin_dir = tmp_path / "home", tmp_path / "bin"
        home.mkdir()
        bin_dir.mkdir()
        (bin_dir / "sendmail").symlink_to(shutil.which("msmtp") or "")  # msmtp-mta does just this
        rc = home / ".msmtprc"
        rc.write_text(
            f"account default\nhost 127.0.0.1\nport {server.port}\nauth off\ntls off\nfrom referee@example.org\n"
        )
        rc.chmod(0o600)
        env = _env(tmp_path, bin_dir)

        first = referee_send(game.dir, env=env)
        assert first.returncode == 0, first.stderr
        assert f"sent      3 letter(s) from {game.dir} through {bin_dir / 'sendmail'}" in first.stdout
        for player in PLAYERS:
            (letter,) = server.letters_to(f"{player}@example.org")
            assert "notice" in letter["Subject"].lower() or "turn 1" in letter["Subject"]
        sent = {message_from_bytes(raw, policy=policy.default)["Message-ID"] for _, raw in server.delivered}
        assert sent == {message_from_bytes(raw, policy=policy.default)["Message-ID"] for raw in waiting.values()}
        assert _outbox(game.dir, "new") == []
        # sent.sqlite keeps each letter sent by its name and headers (its text and files are under mail/)
        assert _outbox(game.dir, "cur") == []
        kept = {name: message_from_bytes(raw, policy=policy.default) for name, raw in _sent(game.dir).items()}
        assert kept.keys() == waiting.keys()
        for name, raw in waiting.items():
            original = message_from_bytes(raw, policy=policy.default)
            for header in ("Message-ID", "To", "Subject", "Date", "From"):
                assert kept[name][header] == original[header]
            assert kept[name]["X-Referee-Kept"] == "headers" and len(bytes(kept[name])) < len(raw)

        again = referee_send(game.dir, env=env)
        assert again.returncode == 0, again.stderr
        assert "sent      0 letter(s)" in again.stdout
        assert len(server.delivered) == len(PLAYERS)  # nothing went twice
    finally:
        server.stop()


def test_a_refused_letter_waits_and_the_others_go(
    tmp_path: Path, make_game: MakeGame, fake_sendmail: tuple[Path, Path]
) -> None:
    game = make_game(tmp_path, players=PLAYERS)
    bin_dir, log = fake_sendmail

    refused = referee_send(
        game.dir, env=_env(tmp_path, bin_dir, FAKE_SENDMAIL_LOG=str(log), FAKE_SENDMAIL_MODE="refuse-bob")
    )
    assert refused.returncode == 1
    assert (
        "sendmail exited 67, addressee unknown (EX_NOUSER): sendmail: bob@example.org: User unknown" in refused.stdout
    )
    assert "1 letter(s) not sent" in refused.stderr
    assert "referee send` again" in refused.stderr
    calls = _calls(log)
    assert sorted(call["argv"] for call in calls) == [  # type: ignore[type-var]
        ["-i", "-f", "referee@example.org", "--", f"{player}@example.org"] for player in PLAYERS
    ]
    (waiting,) = _outbox(game.dir, "new")
    assert "bob@example.org" in waiting.read_text()
    assert len(_sent(game.dir)) == 2

    accepted = referee_send(game.dir, env=_env(tmp_path, bin_dir, FAKE_SENDMAIL_LOG=str(log)))
    assert accepted.returncode == 0, accepted.stderr
    assert len(_calls(log)) == 4  # bob's letter alone went again
    assert _calls(log)[-1]["argv"][-1] == "bob@example.org"
    assert _outbox(game.dir, "new") == []


def test_killed_after_sendmail_took_a_letter_it_goes_again_with_the_same_message_id(
    tmp_path: Path, make_game: MakeGame, fake_sendmail: tuple[Path, Path]
) -> None:
    """The chosen side of the crash window: a letter may go twice (same bytes, same Message-ID),
    never zero times."""
    game = make_game(tmp_path, players=PLAYERS)
    bin_dir, log = fake_sendmail

    killed = referee_send(
        game.dir, env=_env(tmp_path, bin_dir, FAKE_SENDMAIL_LOG=str(log), FAKE_SENDMAIL_MODE="kill-caller")
    )
    assert killed.returncode == -9
    assert len(_calls(log)) == 1
    assert len(_outbox(game.dir, "new")) == 3  # the rename to cur/ never happened

    again = referee_send(game.dir, env=_env(tmp_path, bin_dir, FAKE_SENDMAIL_LOG=str(log)))
    assert again.returncode == 0, again.stderr
    calls = _calls(log)
    assert len(calls) == 4
    first_message_id = message_from_bytes(str(calls[0]["letter"]).encode(), policy=policy.default)["Message-ID"]
    repeated = [call for call in calls[1:] if call["letter"] == calls[0]["letter"]]
    assert len(repeated) == 1, "the letter taken before the crash goes once more, byte for byte"
    assert first_message_id in str(repeated[0]["letter"])
    assert _outbox(game.dir, "new") == []


def test_no_sendmail_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sendmail_module, "SENDMAIL_PLACES", (tmp_path / "sbin" / "sendmail",))
    with pytest.raises(ConfigError) as raised:
        find_sendmail()
    assert "no sendmail program" in raised.value.message
    hints = " ".join(raised.value.hints)
    assert "apt install msmtp-mta" in hints
    assert "smtp: account in referee.yaml" in hints


def test_a_named_sendmail_that_is_not_there(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path, players=PLAYERS)
    result = referee_send(game.dir, "--sendmail", tmp_path / "nowhere", env=_env(tmp_path, tmp_path))
    assert result.returncode == 1
    assert "was not found or is not executable" in result.stderr
    assert len(_outbox(game.dir, "new")) == 3


@pytest.mark.skipif(
    any(Path(place).exists() for place in ("/usr/sbin/sendmail", "/usr/lib/sendmail")),
    reason="this machine has a sendmail",
)
def test_no_sendmail_on_this_machine_through_the_command_line(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path, players=PLAYERS)
    env = _env(tmp_path, tmp_path)
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not (Path(p) / "sendmail").exists())
    result = referee_send(game.dir, env=env)
    assert result.returncode == 1
    assert "referee: error: this machine has no sendmail program" in result.stderr
    assert "referee: hint: install one that relays through your mail provider: sudo apt install msmtp-mta" in (
        result.stderr
    )


def test_a_home_sends_its_own_outbox_and_every_games(
    tmp_path: Path, make_game: MakeGame, fake_sendmail: tuple[Path, Path]
) -> None:
    game = make_game(tmp_path, players=PLAYERS)
    home = Home(tmp_path / "referee-home")
    home.create()
    moved = home.games_dir / "blenheim"
    shutil.move(game.dir, moved)
    letter = Letter(
        to="stranger@example.net", subject="a reply", text="hello\n", html="", message_id="<r1@example.org>"
    )
    post(home.outbox, letter, "referee@example.org", "The Umpire")
    bin_dir, log = fake_sendmail

    result = referee_send(home.path, env=_env(tmp_path, bin_dir, FAKE_SENDMAIL_LOG=str(log)))
    assert result.returncode == 0, result.stderr
    assert f"sent      4 letter(s) from {home.path} through" in result.stdout
    assert sorted(call["argv"][-1] for call in _calls(log)) == [  # type: ignore[index]
        "alice@example.org",
        "bob@example.org",
        "carol@example.org",
        "stranger@example.net",
    ]
    assert _outbox(moved, "new") == [] and list((home.outbox / "new").iterdir()) == []
