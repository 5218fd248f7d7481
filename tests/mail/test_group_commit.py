"""Group commit (issue 23, item 6): a batch of mails is made durable with a few syncs, not a
dozen per mail, and a crash anywhere in it leaves a state the next pass finishes from."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from referee import files
from referee.game.journal import GameDir
from referee.mail import run, undeliverable
from referee.mail.ledger import Ledger

from conftest import GAME_ID
from mailworld import PASSWORD_ENV, MailWorld

ROLL = "rolls: [{label: scout, dice: 2d6, purpose: scouting}]"
MAILS = 50
ROOT = Path(__file__).resolve().parents[2]


class Syncs:
    """Counts what makes a write durable: os.fsync, syncfs(2), and SQLite commits."""

    def __init__(self) -> None:
        self.fsync = self.syncfs = self.commits = 0

    @property
    def total(self) -> int:
        return self.fsync + self.syncfs + self.commits


@contextmanager
def counting(monkeypatch: pytest.MonkeyPatch) -> Iterator[Syncs]:
    syncs = Syncs()
    real_fsync, real_syncfs, real_connect = os.fsync, files.syncfs, sqlite3.connect

    def fsync(fd: int) -> None:
        syncs.fsync += 1
        real_fsync(fd)

    def syncfs(folder: Path) -> None:
        syncs.syncfs += 1
        real_syncfs(folder)

    def statement(sql: str) -> None:
        syncs.commits += sql.strip().upper().startswith(("COMMIT", "END"))

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = real_connect(*args, **kwargs)
        db.set_trace_callback(statement)
        return db

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", fsync)
        patch.setattr(files, "syncfs", syncfs)
        patch.setattr(sqlite3, "connect", connect)
        yield syncs


def accepted_orders(world: MailWorld) -> int:
    return len(GameDir(world.game_dirs[GAME_ID]).log_entries(("order.accepted",)))


def acks(world: MailWorld, player: str) -> list[str]:
    return [x["Subject"] for x in world.letters(player) if "orders accepted" in x["Subject"]]


def test_fifty_order_mails_cost_well_under_one_sync_each(
    mail_world: MailWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    for seq in range(1, MAILS + 1):
        mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL, seq=seq)))
    counted: list[Syncs] = []
    intake = run._intake

    def counted_intake(*args: Any) -> Any:  # the intake alone: not the schedule, not the sending
        with counting(monkeypatch) as syncs:
            counted.append(syncs)
            return intake(*args)

    monkeypatch.setattr(run, "_intake", counted_intake)
    report = mail_world.run()

    assert report.ok, report.lines()
    assert report.intake.handled == MAILS and report.intake.moved == MAILS
    assert accepted_orders(mail_world) == MAILS
    assert len(acks(mail_world, "alice")) == MAILS
    (syncs,) = counted
    # Before group commit: 15 os.fsync and 3 SQLite commits per mail. Now, for the batch: the
    # spool (2 syncfs, 1 commit), the batch's start (1), its letters (2 syncfs), the game (1 commit,
    # made durable by 1 syncfs), the outcomes (1) and the move (1); the pass's other commits are
    # per pass, not per mail.
    assert syncs.fsync == 0
    assert syncs.total / MAILS < 0.3, vars(syncs)


def test_a_batch_killed_while_landing_its_letters_is_finished_by_the_next_pass(mail_world: MailWorld) -> None:
    """Killed between the letters' landing and the game's commit: the letters are there, the game
    took nothing; the next pass takes every order once and keeps each letter once."""
    for seq in range(1, 6):
        mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL, seq=seq)))

    driver = textwrap.dedent(
        """
        import os, signal, sys
        from pathlib import Path
        from referee import files
        from referee.mail.home import Home
        from referee.mail.run import run_pass
        land = files.land
        def land_then_die(group):
            land(group)
            if any(path.parent.name == "new" for path in group.writes):  # the letters, not the spool
                os.kill(os.getpid(), signal.SIGKILL)
        files.land = land_then_die
        run_pass(Home(Path(sys.argv[1])))
        """
    )
    env = {**os.environ, PASSWORD_ENV: mail_world.dovecot.password, "PYTHONPATH": str(ROOT)}
    killed = subprocess.run([sys.executable, "-c", driver, str(mail_world.home.path)], env=env, capture_output=True)
    assert killed.returncode == -9, killed.stderr.decode()
    outbox = mail_world.game_dirs[GAME_ID] / "outbox" / "new"
    assert len(list(outbox.iterdir())) == 5  # the acknowledgements landed
    assert accepted_orders(mail_world) == 0
    ledger = Ledger(mail_world.home.ledger_path)
    try:
        assert ledger.count() == {"stored": 5}
    finally:
        ledger.close()

    after = mail_world.run()

    assert after.ok and after.intake.handled == 5 and after.intake.set_aside == 0, after.lines()
    assert accepted_orders(mail_world) == 5
    assert len(acks(mail_world, "alice")) == 5
    assert mail_world.folder("INBOX") == []
    assert len(mail_world.folder("Processed")) == 5


def test_a_group_lands_its_files_at_its_end_or_not_at_all(tmp_path: Path) -> None:
    with files.group_commit():
        files.atomic_write(tmp_path / "a", b"one")
        files.write_staged(tmp_path / "tmp" / "b", tmp_path / "new" / "b", b"two")
        assert not (tmp_path / "a").exists() and files.pending_write(tmp_path / "a")
        files.flush_group()
        assert (tmp_path / "a").read_bytes() == b"one" and (tmp_path / "new" / "b").read_bytes() == b"two"
        files.atomic_write(tmp_path / "c", b"three")
    assert (tmp_path / "c").read_bytes() == b"three"
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["a", "b", "c"]  # no temporary left

    with pytest.raises(RuntimeError), files.group_commit():
        files.atomic_write(tmp_path / "d", b"four")
        raise RuntimeError("a crash")
    assert not (tmp_path / "d").exists()


def test_a_batchs_game_commits_are_made_durable_by_one_sync_before_the_ledger_records_them(
    mail_world: MailWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game's commit in a batch syncs nothing itself (synchronous=NORMAL); one sync of the
    games' file system follows the commits, and only then does the ledger record the outcomes."""
    for seq in range(1, 4):
        mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL, seq=seq)))
    events: list[str] = []
    real_syncfs, real_connect = files.syncfs, sqlite3.connect

    def syncfs(folder: Path) -> None:
        events.append(f"sync {folder.name}")
        real_syncfs(folder)

    def connect(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = real_connect(database, *args, **kwargs)
        name = Path(database).name
        db.set_trace_callback(lambda sql: events.append(f"{name}: {sql.split()[0].upper()} {sql[:40]}"))
        return db

    monkeypatch.setattr(files, "syncfs", syncfs)
    monkeypatch.setattr(sqlite3, "connect", connect)
    report = mail_world.run()

    assert report.ok and report.intake.handled == 3, report.lines()
    game_commit = events.index("journal.sqlite: COMMIT COMMIT")
    assert "journal.sqlite: PRAGMA PRAGMA synchronous=NORMAL" in events[:game_commit]
    game_folder = mail_world.game_dirs[GAME_ID].name
    synced = events.index(f"sync {game_folder}", game_commit)
    outcomes = next(i for i, e in enumerate(events) if e.startswith("intake.sqlite: UPDATE") and i > game_commit)
    assert game_commit < synced < outcomes, events
    assert events.count(f"sync {game_folder}") == 1  # one batch, one sync for its games


def test_a_senders_seats_are_cleared_once_a_batch(mail_world: MailWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each order mail shows its sender reachable; within a batch their seat is read once."""
    for seq in range(1, 6):
        mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL, seq=seq)))
    checked: list[str] = []
    real = undeliverable.mark_reachable
    intake = run._intake

    def mark_reachable(game_dir: GameDir, player: str, why: str) -> bool:
        checked.append(player)
        return real(game_dir, player, why)

    def counted_intake(*args: Any) -> Any:  # the intake alone: sending marks a player reachable too
        with monkeypatch.context() as patch:
            patch.setattr(undeliverable, "mark_reachable", mark_reachable)
            return intake(*args)

    monkeypatch.setattr(run, "_intake", counted_intake)
    report = mail_world.run()

    assert report.ok and report.intake.handled == 5, report.lines()
    assert checked == ["alice"]


def test_a_link_made_in_a_group_lands_after_its_source(tmp_path: Path) -> None:
    with files.group_commit():
        files.atomic_write(tmp_path / "view.yaml", b"you: alice\n")
        files.link_or_write(tmp_path / "view.yaml", tmp_path / "next" / "view.yaml", b"you: alice\n")
        assert files.pending_data(tmp_path / "next" / "view.yaml") == b"you: alice\n"
        assert not (tmp_path / "view.yaml").exists() and not (tmp_path / "next").exists()
    assert os.path.samefile(tmp_path / "view.yaml", tmp_path / "next" / "view.yaml")  # the bytes kept once
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["view.yaml", "view.yaml"]
