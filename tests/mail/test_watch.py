"""`referee run --watch`: IMAP IDLE wakes a pass as soon as mail arrives."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from referee.mail.imap import MailboxLoginError
from referee.mail.run import watch

from conftest import GAME_ID
from mailservers import Dovecot, FlakyProxy, SmtpServer, dovecot_available
from mailworld import PASSWORD_ENV, REFEREE, MailWorld, add_game, write_home

ROLL = "rolls: [{label: scout, dice: 2d6, purpose: scouting}]"
PLAYERS = ("alice", "bob", "carol")


@contextmanager
def watching(mail_world: MailWorld, on_pass: Callable[[object], None]) -> Iterator[None]:
    """Run `referee run --watch` in a thread for the block's length, ticking every 30 s: mail
    acknowledged within seconds was woken by IDLE or found before it, not by the tick."""
    stop = threading.Event()
    worker = threading.Thread(
        target=watch,
        kwargs={
            "home": mail_world.home,
            "tick_seconds": 30,
            "renew_seconds": 2,  # IDLE is renewed, and `stop` looked at, every 2 s: the test ends soon after
            "stop": stop.is_set,
            "on_pass": on_pass,
        },
        daemon=True,
    )
    worker.start()
    try:
        yield
    finally:
        stop.set()
        worker.join(timeout=40)


def _acknowledged(mail_world: MailWorld) -> bool:
    return any("orders accepted" in x["Subject"] for x in mail_world.letters("alice"))


def test_idle_brings_an_acknowledgement_within_seconds(mail_world: MailWorld) -> None:
    passes: list[object] = []
    with watching(mail_world, passes.append):
        deadline = time.monotonic() + 10
        while not passes and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # the watcher is now in IDLE
        sent_at = time.monotonic()
        mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL)))
        while time.monotonic() - sent_at < 15 and not _acknowledged(mail_world):
            time.sleep(0.05)
        waited = time.monotonic() - sent_at
    assert _acknowledged(mail_world)
    assert waited < 10, f"the acknowledgement took {waited:.1f} s: IDLE did not wake the watcher"


def test_mail_arriving_between_the_pass_and_idle_is_not_left_for_the_tick(mail_world: MailWorld) -> None:
    """SELECT already counts mail delivered after the pass, so IDLE never announces it: the watcher
    must look for it before idling, not wait out the 30-second tick."""
    passes: list[object] = []

    def deliver_after_the_first_pass(report: object) -> None:
        passes.append(report)
        if len(passes) == 1:
            mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL)))

    with watching(mail_world, deliver_after_the_first_pass):
        acknowledged = _until(lambda: _acknowledged(mail_world), 15)
    assert acknowledged, "mail delivered between a pass and IDLE waited for the tick"


@pytest.fixture
def own_dovecot_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MailWorld]:
    """A mail world on a Dovecot of its own, which the test may stop and start again."""
    if not dovecot_available():
        pytest.skip("Dovecot is not installed: scripts/test installs dovecot-imapd")
    root = Path(tempfile.mkdtemp(prefix="referee-dovecot-"))
    root.chmod(0o755)
    server = Dovecot(root).start()
    user = "referee-restarted"
    monkeypatch.setenv(PASSWORD_ENV, server.password)
    smtp = SmtpServer(server, {REFEREE: user}).start()
    world = MailWorld(write_home(tmp_path / "home", server.port, smtp.port, user), server, smtp, user, {}, PLAYERS)
    add_game(world, GAME_ID, world.players)
    world.run()
    smtp.clear()
    try:
        yield world
    finally:
        smtp.stop()
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


def _until(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_watch_outlives_a_restart_of_the_imap_server(own_dovecot_world: MailWorld) -> None:
    world = own_dovecot_world
    stop = threading.Event()
    passes: list[object] = []
    logs: list[str] = []
    worker = threading.Thread(
        target=watch,
        kwargs={
            "home": world.home,
            "tick_seconds": 5,
            "stop": stop.is_set,
            "on_pass": passes.append,
            "log": logs.append,
            "backoff_first": 0.2,
            "backoff_cap": 1.0,
        },
        daemon=True,
    )
    worker.start()
    try:
        assert _until(lambda: bool(passes), 15)
        time.sleep(0.5)  # the watcher is now in IDLE
        world.dovecot.stop()
        assert _until(lambda: len(logs) >= 3, 15), logs  # failures, each retried later than the one before
        world.dovecot.start()
        assert _until(lambda: any("connected again" in line for line in logs), 15), logs
        time.sleep(0.5)  # in IDLE again, on a new connection
        world.deliver(world.orders_mail("alice", world.order("alice", 1, ROLL)))
        accepted = _until(lambda: any("orders accepted" in x["Subject"] for x in world.letters("alice")), 15)
    finally:
        stop.set()
        worker.join(timeout=20)
    assert accepted, logs
    assert not worker.is_alive()
    assert all("trying again in" in line for line in logs[:3]), logs
    assert "trying again in 0.2 s" in logs[0] and "trying again in 0.4 s" in logs[1], logs


def test_watch_ends_on_a_refused_login_with_a_clear_error(
    mail_world: MailWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PASSWORD_ENV, "not-the-password")
    deadline = time.monotonic() + 30
    with pytest.raises(MailboxLoginError, match="refused the login"):
        watch(mail_world.home, tick_seconds=1, stop=lambda: time.monotonic() > deadline, backoff_first=0.1)
    assert time.monotonic() < deadline


def test_watch_outlives_a_connection_cut_in_the_middle_of_idle(mail_world: MailWorld) -> None:
    proxy = FlakyProxy(mail_world.dovecot.port)
    config = mail_world.home.config_path
    config.write_text(config.read_text().replace(f"port: {mail_world.dovecot.port}", f"port: {proxy.port}"))
    stop = threading.Event()
    passes: list[object] = []
    logs: list[str] = []
    worker = threading.Thread(
        target=watch,
        kwargs={
            "home": mail_world.home,
            "tick_seconds": 5,
            "stop": stop.is_set,
            "on_pass": passes.append,
            "log": logs.append,
            "backoff_first": 0.2,
        },
        daemon=True,
    )
    worker.start()
    try:
        assert _until(lambda: bool(passes), 15)
        time.sleep(0.5)  # the watcher is now in IDLE
        proxy.drop_all()  # imaplib reads EOF in IDLE: an imaplib.IMAP4.abort
        assert _until(lambda: any("connected again" in line for line in logs), 15), logs
        time.sleep(0.5)
        mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL)))
        accepted = _until(lambda: any("orders accepted" in x["Subject"] for x in mail_world.letters("alice")), 15)
    finally:
        stop.set()
        worker.join(timeout=20)
        proxy.close()
    assert accepted and not worker.is_alive(), logs
    assert "abort" in logs[0], logs


def test_referee_run_watch_ends_on_a_refused_login_with_an_error_and_a_hint(mail_world: MailWorld) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "referee", "run", "--watch", "--home", str(mail_world.home.path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, PASSWORD_ENV: "not-the-password"},
    )
    assert result.returncode == 1, result.stderr
    assert "referee: error: the IMAP server refused the login" in result.stderr
    assert "referee: hint: check the username and the password" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
