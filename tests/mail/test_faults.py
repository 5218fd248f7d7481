"""Faults while `referee run` works: a dropped IMAP connection, the SMTP server down, the process
killed between steps, two runs at once. In each, nothing is lost and nothing is done twice."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from referee.game.journal import GameDir
from referee.mail.run import home_lock, run_pass

from conftest import GAME_ID
from mailservers import FlakyProxy
from mailworld import PASSWORD_ENV, MailWorld, write_home

ROLL = "rolls: [{label: scout, dice: 2d6, purpose: scouting}]"
ROOT = Path(__file__).resolve().parents[2]


def acks(world: MailWorld, player: str) -> list[str]:
    return [x["Subject"] for x in world.letters(player) if "orders accepted" in x["Subject"]]


def accepted_orders(world: MailWorld) -> int:
    return len(GameDir(world.game_dirs[GAME_ID]).log_entries(("order.accepted",)))


def deliver_alice_seqs(world: MailWorld, seqs: range) -> None:
    for seq in seqs:
        world.deliver(world.orders_mail("alice", world.order("alice", 1, ROLL, seq=seq)))


@pytest.mark.parametrize("cut", [600, 1500, 3000, 5000, 7000])
def test_imap_connection_dropped_mid_fetch(mail_world: MailWorld, cut: int) -> None:
    proxy = FlakyProxy(mail_world.dovecot.port)
    try:
        write_home(mail_world.home.path, proxy.port, mail_world.smtp.port, mail_world.user)
        deliver_alice_seqs(mail_world, range(1, 5))
        proxy.cut_after(cut)

        first = mail_world.run()
        assert proxy.cuts == 1
        assert not first.ok
        second = mail_world.run()
    finally:
        proxy.close()

    assert second.ok, second.lines()
    assert accepted_orders(mail_world) == 4
    assert len(acks(mail_world, "alice")) == 4
    assert mail_world.folder("INBOX") == []
    assert len(mail_world.folder("Processed")) == 4


def test_smtp_server_down_then_back(mail_world: MailWorld) -> None:
    mail_world.smtp.stop()
    mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL)))
    start = datetime.now(UTC)

    down = mail_world.run(now=start)
    assert not down.ok and down.send.sent == 0 and down.send.waiting == 1
    assert any("cannot send" in failure for failure in down.send.failed)
    mail_world.smtp.start()
    backing_off = mail_world.run(now=start + timedelta(seconds=10))
    assert backing_off.send.sent == 0 and backing_off.send.waiting == 1 and backing_off.ok
    back = mail_world.run(now=start + timedelta(minutes=5))
    assert back.send.sent == 1
    again = mail_world.run(now=start + timedelta(minutes=10))

    assert again.send.sent == 0
    assert len(acks(mail_world, "alice")) == 1
    assert accepted_orders(mail_world) == 1


def kill_during_pass(world: MailWorld, hook: str) -> subprocess.CompletedProcess[bytes]:
    driver = textwrap.dedent(
        f"""
        import os, signal, sys
        from pathlib import Path
        from referee.mail.home import Home
        from referee.mail.run import Hooks, run_pass
        kill = lambda: os.kill(os.getpid(), signal.SIGKILL)
        run_pass(Home(Path(sys.argv[1])), hooks=Hooks({hook}=kill))
        """
    )
    env = {**os.environ, PASSWORD_ENV: world.dovecot.password, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", driver, str(world.home.path)], env=env, capture_output=True)


@pytest.mark.parametrize("hook", ["after_store", "before_move"])
def test_killed_between_storing_and_moving(mail_world: MailWorld, hook: str) -> None:
    deliver_alice_seqs(mail_world, range(1, 4))
    mail_world.deliver(mail_world.text_mail("bob@example.org", "status"))

    killed = kill_during_pass(mail_world, hook)
    assert killed.returncode == -9, killed.stderr.decode()
    assert mail_world.folder("Processed") == []  # killed before anything moved
    report = mail_world.run()

    assert report.ok, report.lines()
    assert accepted_orders(mail_world) == 3
    assert len(acks(mail_world, "alice")) == 3
    assert len([x for x in mail_world.letters("bob") if "Status" in x["Subject"]]) == 1
    assert mail_world.folder("INBOX") == []
    assert len(mail_world.folder("Processed")) == 4


def test_two_runs_at_once(mail_world: MailWorld) -> None:
    deliver_alice_seqs(mail_world, range(1, 9))
    env = {**os.environ, PASSWORD_ENV: mail_world.dovecot.password, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "referee", "run", "--home", str(mail_world.home.path)]
    runs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outputs = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    mail_world.run()

    assert accepted_orders(mail_world) == 8
    assert len(acks(mail_world, "alice")) == 8
    assert mail_world.folder("INBOX") == []


def test_a_run_while_another_holds_the_home_leaves_at_once(mail_world: MailWorld) -> None:
    with home_lock(mail_world.home) as taken:
        assert taken
        report = run_pass(mail_world.home)
    assert report.skipped and report.ok
    assert "another `referee run`" in report.lines()[0]


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")  # loopback only
def test_smtp_authentication(mail_world: MailWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    mail_world.smtp.stop()
    mail_world.smtp.login = ("referee", "smtp-secret")
    mail_world.smtp.start()
    config = mail_world.home.config_path.read_text()
    mail_world.home.config_path.write_text(
        # aiosmtpd stalls smtplib's fallback to AUTH LOGIN after a refused AUTH PLAIN: a short timeout.
        config.replace(
            "  security: none\n", "  security: none\n  timeout: 3\n  username: referee\n  password_env: SMTP_PW\n", 2
        ).replace(
            "  timeout: 3\n  username: referee\n  password_env: SMTP_PW\n", "", 1
        )  # the IMAP account keeps its own
    )
    monkeypatch.setenv("SMTP_PW", "wrong")
    mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL)))
    start = datetime.now(UTC)

    refused = mail_world.run(now=start)
    assert not refused.ok and refused.send.sent == 0
    assert "smtp-secret" not in "\n".join(refused.lines()) and "wrong" not in "\n".join(refused.lines())
    monkeypatch.setenv("SMTP_PW", "smtp-secret")
    accepted = mail_world.run(now=start + timedelta(minutes=5))

    assert accepted.ok and accepted.send.sent == 1
    assert len(acks(mail_world, "alice")) == 1
