"""An idle `referee run` answered from a kept summary (`referee.mail.idle`) never skips work that
is due: each change below makes the quick pass decline, and the full pass then does the work.
With nothing changed, the quick pass prints what the full pass prints. Real Dovecot and SMTP."""

from __future__ import annotations

import gc
import os
from datetime import UTC, datetime, timedelta

import pytest
import yaml

from referee.game.journal import GameDir
from referee.mail import idle
from referee.mail.imap_probe import mail_past
from referee.mail.ledger import Ledger
from referee.mail.run import Hooks, PassReport, run_pass

from conftest import GAME_ID
from mailworld import MailWorld, add_game

ROLL = "rolls: [{label: scout, dice: 2d6, purpose: scouting}]"


def keep_idle(world: MailWorld) -> PassReport:
    """Run full passes until one keeps a summary (its files taken as settled once the pass began).
    First the journals' connections this process left to the garbage collector are closed: one
    closed later checkpoints its journal, which changes its stamps."""
    gc.collect()
    for _ in range(3):
        report = run_pass(world.home, keep_summary=True, settle_ns=0)
        if (world.home.path / idle.SUMMARY).exists():
            return report
    raise AssertionError("no summary was kept")


def quick(world: MailWorld, now: datetime | None = None) -> list[str] | None:
    now_ns = None if now is None else int(now.timestamp() * 1e9)
    return idle.quick_pass(str(world.home.path), mail=True, now_ns=now_ns)


def test_nothing_changed_the_quick_pass_prints_what_the_full_pass_prints(mail_world: MailWorld) -> None:
    kept = keep_idle(mail_world)
    assert kept.idle and quick(mail_world) == kept.lines()
    again = run_pass(mail_world.home)
    assert again.idle and again.lines() == quick(mail_world)


def test_mail_arriving(mail_world: MailWorld) -> None:
    keep_idle(mail_world)
    mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL)))
    assert quick(mail_world) is None
    report = run_pass(mail_world.home, keep_summary=True, settle_ns=0)
    assert report.intake.fetched == 1 and report.intake.handled == 1
    assert not (mail_world.home.path / idle.SUMMARY).exists()  # a pass that did something keeps none
    keep_idle(mail_world)  # past the mail taken in, the position moved with it
    assert quick(mail_world) is not None


def test_a_deadline_passing(mail_world: MailWorld) -> None:
    schedule = "deadline: 72h\ngrace: 1h\nreminders: [24h]\nmissed_orders: default\n"
    game_dir = GameDir(add_game(mail_world, "sched", mail_world.players, schedule=schedule))
    run_pass(mail_world.home)  # the notices
    phase = game_dir.open_phase()
    game_dir.close()
    assert phase is not None
    keep_idle(mail_world)
    reminder = datetime.fromisoformat(phase.opened_at) + timedelta(hours=48)
    midnight = datetime.combine(datetime.now(UTC).date() + timedelta(days=1), datetime.min.time(), UTC)
    due = min(reminder, midnight)  # absences end by date: a summary holds until the next midnight at most
    assert quick(mail_world, due - timedelta(seconds=1)) is not None
    assert quick(mail_world, due) is None
    at_reminder = run_pass(mail_world.home, now=reminder)
    assert any("reminded alice" in line for line in at_reminder.games)


def test_an_edited_configuration(mail_world: MailWorld) -> None:
    keep_idle(mail_world)
    config = mail_world.home.config_path
    config.write_text(config.read_text() + "defaults: {deadline: 1h}\n")
    assert quick(mail_world) is None


def test_an_edited_key_file_its_game_yaml_names(mail_world: MailWorld) -> None:
    game_yaml = GameDir(mail_world.game_dirs[GAME_ID]).config
    key = mail_world.keys["alice"].with_suffix(".pub")
    (game_yaml.parent / "alice.pub").write_text(key.read_text())
    data = yaml.safe_load(game_yaml.read_text())
    data["players"][0] = {"name": "alice", "email": "alice@example.org", "key_file": "alice.pub"}
    game_yaml.write_text(yaml.safe_dump(data))
    report = keep_idle(mail_world)
    assert report.idle
    assert quick(mail_world) is not None
    os.utime(game_yaml.parent / "alice.pub")  # the same bytes, touched: a stamp changes all the same
    assert quick(mail_world) is None


def test_a_game_added(mail_world: MailWorld) -> None:
    keep_idle(mail_world)
    add_game(mail_world, "second", mail_world.players)
    assert quick(mail_world) is None
    report = run_pass(mail_world.home)
    assert report.send.sent == 3  # the new game's notices


def test_an_unsent_letter_in_an_outbox(mail_world: MailWorld) -> None:
    keep_idle(mail_world)
    outbox = GameDir(mail_world.game_dirs[GAME_ID]).outbox / "new"
    outbox.mkdir(parents=True, exist_ok=True)
    (outbox / "letter.eml").write_bytes(
        b"From: referee@example.org\r\nTo: alice@example.org\r\nSubject: hi\r\n"
        b"Message-ID: <x@example.org>\r\n\r\nhi\r\n"
    )
    assert quick(mail_world) is None
    assert run_pass(mail_world.home).send.sent == 1


def test_a_crash_between_keeping_the_summary_and_using_it(mail_world: MailWorld) -> None:
    keep_idle(mail_world)
    summary = mail_world.home.path / idle.SUMMARY
    summary.write_bytes(summary.read_bytes()[:100])  # cut short (a rename makes this unlikely, not impossible)
    assert quick(mail_world) is None
    keep_idle(mail_world)
    mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL)))

    def crash() -> None:
        raise RuntimeError("killed after storing")

    with pytest.raises(RuntimeError):  # a pass that dies half-way leaves no summary standing
        run_pass(mail_world.home, keep_summary=True, settle_ns=0, hooks=Hooks(after_store=crash))
    assert not summary.exists() and quick(mail_world) is None
    assert run_pass(mail_world.home).intake.handled == 1


def test_a_summary_is_kept_only_when_its_files_have_settled(mail_world: MailWorld) -> None:
    report = run_pass(mail_world.home, keep_summary=True)  # the fixture's pass wrote the journal just now
    assert report.idle and not (mail_world.home.path / idle.SUMMARY).exists()


def test_the_probe_asks_dovecot(mail_world: MailWorld) -> None:
    account = {
        "host": "127.0.0.1",
        "port": mail_world.dovecot.port,
        "security": "none",
        "username": mail_world.user,
        "timeout": 10.0,
        "inbox": "INBOX",
        "ca_file": None,
    }
    password = mail_world.dovecot.password
    assert mail_past(account, password, None) is False
    mail_world.deliver(mail_world.text_mail("stranger@example.org", "hello"))
    assert mail_past(account, password, None) is True
    report = run_pass(mail_world.home)
    ledger = Ledger(mail_world.home.ledger_path)
    try:
        position = ledger.position("INBOX")
    finally:
        ledger.close()
    assert report.intake.fetched == 1 and position is not None
    assert mail_past(account, password, list(position)) is False
    assert mail_past(account, password, [position[0] + 1, position[1]]) is True  # renumbered
    assert mail_past({**account, "inbox": "Nowhere"}, password, list(position)) is None  # refused: the full pass says
    assert mail_past({**account, "inbox": "Ünïcode"}, password, list(position)) is None
