#!/usr/bin/env python3
"""Intake alone: N order mails of many games through a real Dovecot, no deadline reached and no
phase complete (each game has a fourth player who never sends), so nothing is adjudicated.

    PYTHONPATH=$PWD python3 scripts/bench_intake.py [--mails 1000] [--games 10] [--history N] [--profile FILE]

Prints mails per second as CPU time (process_time) and wall time, and the syncs per mail.

Measured on the 2-core build machine under a load average of about 14 (seven sessions at work),
1,000 order mails, 10 games, run back to back: before group commit 23 mails/s CPU (44.1 s),
4 mails/s wall (259 s), 15 os.fsync and 3.01 SQLite commits per mail; after it and the lighter
mail reading and building 71 mails/s CPU (14.1 s), 14 mails/s wall (71.9 s), no os.fsync,
0.03 syncfs and 0.13 SQLite commits per mail. The same machine measured 16.7 ms of CPU per mail
quiet, against 44 ms here: a quiet machine should give about 2.6 times these rates.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))

PLAYERS = ("alice", "bob", "carol", "dave")  # dave never sends: no phase completes
SENDERS = PLAYERS[:3]


def make_home(workdir: Path, dovecot, user: str, games: int):
    from referee.game.engine import init_game
    from referee.mail.home import Home
    from referee.protocol.signatures import generate_keypair

    home = Home(workdir / f"home-{user}")
    home.create()
    os.environ["REFEREE_BENCH_PASSWORD"] = dovecot.password
    home.config_path.write_text(
        "referee: {email: referee@example.org, name: Bench}\n"
        f"imap: {{host: 127.0.0.1, port: {dovecot.port}, security: none, username: {user},"
        " password_env: REFEREE_BENCH_PASSWORD}\n"
    )
    keys = workdir / f"keys-{user}"
    keys.mkdir()
    for player in PLAYERS:
        generate_keypair(keys / player)
    entries = "".join(f"  - {{name: {p}, email: {p}@example.org, key_file: {keys / p}.pub}}\n" for p in PLAYERS)
    for index in range(games):
        (workdir / "game.yaml").write_text(f"game: g{index:03d}\nmodule: moderator\nplayers:\n" + entries)
        init_game(home.games_dir / f"g{index:03d}", workdir / "game.yaml")
    return home, keys


def order_mails(keys: Path, count: int, games: int) -> list[bytes]:
    from referee.protocol.signatures import NAMESPACE_ORDERS, load_private_key, sign

    private = {p: load_private_key(keys / p) for p in SENDERS}
    mails = []
    for index in range(count):
        player = SENDERS[index % 3]
        game = f"g{index % games:03d}"
        seq = index // (3 * games) + 1
        raw = (
            f"game: {game}\nturn: 1\nphase: round\nplayer: {player}\nseq: {seq}\n"
            f"orders:\n  rolls: [{{label: r, dice: 2d6, purpose: bench {index}}}]\n"
        ).encode()
        message = EmailMessage()
        message["From"] = f"{player}@example.org"
        message["To"] = "referee@example.org"
        message["Subject"] = "orders"
        message["Message-ID"] = f"<bench-{index}@example.org>"
        message.set_content("orders attached")
        message.add_attachment(raw, maintype="application", subtype="yaml", filename="orders.yaml")
        signature = sign(raw, private[player], NAMESPACE_ORDERS).encode()
        message.add_attachment(signature, maintype="application", subtype="octet-stream", filename="orders.yaml.sig")
        mails.append(bytes(message))
    return mails


STEPS = (
    ("referee.mail.message", "read_message"),
    ("referee.mail.intake", "read_message"),
    ("referee.mail.intake", "submit"),
    ("referee.game.engine", "_examine"),
    ("referee.game.engine", "post_ack"),
    ("referee.game.engine", "_store_accepted"),
    ("referee.letters.post", "post"),
    ("referee.letters.post", "render"),
    ("referee.letters.outbox", "build_message"),
    ("referee.letters.outbox", "post"),
    ("referee.files", "land"),
    ("referee.files", "syncfs"),
    ("referee.files", "_write_temporary"),
    ("referee.mail.batch", "Batch.game"),
    ("referee.mail.undeliverable", "mark_reachable"),
    ("referee.mail.run", "fetch_and_store"),
    ("referee.mail.run", "move_handled"),
    ("referee.mail.run", "handle_stored"),
    ("referee.mail.intake", "_store_file"),
    ("referee.mail.intake", "signed_form"),
    ("referee.mail.intake", "mail_from"),
    ("referee.letters.post", "keep_html"),
    ("referee.protocol.signatures", "sign"),
    ("referee.mail.imap", "Mailbox.fetch"),
    ("referee.mail.imap", "Mailbox.move"),
    ("referee.mail.ledger", "Ledger.transaction"),
)


class Split:
    """CPU time spent in the main steps of intake (a step inside another counts in both)."""

    def __init__(self) -> None:
        import importlib

        self.seconds: dict[str, float] = {}
        self.waited: dict[str, float] = {}
        self._saved = []
        for module_name, name in STEPS:
            module = importlib.import_module(module_name)
            owner, _, attribute = name.rpartition(".")
            target = getattr(module, owner) if owner else module
            if not hasattr(target, attribute):
                continue
            original = getattr(target, attribute)
            label = f"{module_name.rsplit('.', 1)[1]}.{name}"
            self._saved.append((target, attribute, original))
            setattr(target, attribute, self._timed(label, original))

    def _timed(self, label: str, function):  # type: ignore[no-untyped-def]
        def timed(*args, **kwargs):  # type: ignore[no-untyped-def]
            start, wall = time.process_time(), time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[label] = self.seconds.get(label, 0.0) + time.process_time() - start
                self.waited[label] = self.waited.get(label, 0.0) + time.perf_counter() - wall

        return timed

    def stop(self) -> None:
        for target, attribute, original in self._saved:
            setattr(target, attribute, original)

    def describe(self, mails: int) -> str:
        return "CPU ms per mail (wall ms): " + ", ".join(
            f"{label} {seconds / mails * 1000:.2f} ({self.waited[label] / mails * 1000:.2f})"
            for label, seconds in self.seconds.items()
        )


class SyncCounter:
    """Counts what makes writes durable: os.fsync, syncfs(2) (referee.files.syncfs) and SQLite commits."""

    def __init__(self) -> None:
        self.fsyncs = self.syncfs = self.commits = 0

    def start(self) -> None:
        import sqlite3

        from referee import files

        self._saved = (os.fsync, getattr(files, "syncfs", None), sqlite3.connect)
        real_fsync, real_syncfs, real_connect = self._saved

        def fsync(fd: int) -> None:
            self.fsyncs += 1
            real_fsync(fd)

        def syncfs(folder: Path) -> None:
            self.syncfs += 1
            real_syncfs(folder)  # type: ignore[misc]

        def connect(*args, **kwargs):  # type: ignore[no-untyped-def]
            db = real_connect(*args, **kwargs)
            db.set_trace_callback(self._statement)
            return db

        os.fsync, files.syncfs, sqlite3.connect = fsync, syncfs, connect

    def _statement(self, sql: str) -> None:
        if sql.strip().upper().startswith(("COMMIT", "END")):
            self.commits += 1

    def stop(self) -> None:
        import sqlite3

        from referee import files

        os.fsync, files.syncfs, sqlite3.connect = self._saved

    def describe(self, mails: int) -> str:
        return (
            f"per mail: {self.fsyncs / mails:.2f} fsync, {self.syncfs / mails:.3f} syncfs, "
            f"{self.commits / mails:.2f} SQLite commits"
        )


class SysCalls:
    """`strace -c` attached to this process (not Dovecot) from now until `stop`."""

    CALLS = "fsync,fdatasync,syncfs,openat,rename,renameat,renameat2,unlink,unlinkat"

    def __init__(self, output: Path) -> None:
        import subprocess

        self.output = output
        self.process = subprocess.Popen(
            ["strace", "-c", "-e", f"trace={self.CALLS}", "-o", str(output), "-p", str(os.getpid())]
        )
        time.sleep(1.0)  # attached before the pass starts

    def stop(self, mails: int) -> str:
        self.process.terminate()
        self.process.wait()
        counted = []
        for line in self.output.read_text().splitlines():
            fields = line.split()
            if len(fields) >= 5 and fields[3].isdigit() and fields[-1] != "total":
                counted.append(f"{fields[-1]} {int(fields[3]) / mails:.3f}")
        return "system calls a mail (strace): " + ", ".join(counted)


def add_history(home, entries: int) -> None:
    """Give each game's log `entries` earlier submissions, as a game that has run long holds."""
    from referee.game.journal import GameDir

    for path in sorted(home.games_dir.iterdir()):
        journal = GameDir(path)
        with journal.transaction():
            for n in range(entries):
                data = {"sha256": f"{n:064x}", "source": f"imap:old:{n}", "seq": n, "file": f"old-{n}.yaml"}
                journal.log("order.accepted", data, turn=0, phase="earlier", player=PLAYERS[n % 3])
        journal.close()


def main() -> None:
    import mailservers

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mails", type=int, default=1000)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--profile", help="write a cProfile of the pass to this file")
    parser.add_argument("--split", action="store_true", help="print the CPU time of the main steps (no profiler)")
    parser.add_argument(
        "--strace",
        action="store_true",
        help="count the pass's disk system calls (SQLite's own fdatasyncs too) with strace attached to it",
    )
    parser.add_argument("--first-pass", action="store_true", help="run a pass before the mails: a home in use")
    parser.add_argument(
        "--history",
        type=int,
        default=0,
        help="log entries of earlier submissions each game holds first (a game that has run long)",
    )
    args = parser.parse_args()
    if not mailservers.dovecot_available():
        sys.exit("Dovecot is not installed")
    from referee.mail.run import run_pass

    root = Path(tempfile.mkdtemp(prefix="referee-bench-intake-"))
    root.chmod(0o755)
    dovecot = mailservers.Dovecot(root / "dovecot").start()
    try:
        for run in range(args.runs):
            user = f"intake{run}"
            home, keys = make_home(root, dovecot, user, args.games)
            if args.history:
                add_history(home, args.history)
            if args.first_pass:
                run_pass(home)  # the games opened and pinned, the ledger made, as in a home in use
            client = dovecot.client(user)
            for raw in order_mails(keys, args.mails, args.games):
                client.append("INBOX", raw)
            client.logout()
            split = Split() if args.split else None
            tracer = SysCalls(root / f"strace-{run}.txt") if args.strace else None
            counts = SyncCounter()
            counts.start()
            profiler = None
            if args.profile:
                import cProfile

                profiler = cProfile.Profile(time.process_time)  # CPU: the machine is shared
                profiler.enable()
            try:
                cpu, wall, times = time.process_time(), time.perf_counter(), os.times()
                report = run_pass(home)
                cpu, wall, after = time.process_time() - cpu, time.perf_counter() - wall, os.times()
            finally:
                counts.stop()
                if tracer is not None:
                    print(tracer.stop(args.mails))
                if split is not None:
                    split.stop()
                    print(split.describe(args.mails))
                if profiler is not None:
                    profiler.disable()
                    profiler.dump_stats(args.profile)
            assert report.intake.handled == args.mails and report.ok, report.lines()[:8]
            assert report.intake.moved == args.mails, report.lines()[:3]
            assert "accepted" in report.lines()[1], report.lines()[1]
            print(
                f"intake: {args.mails} order mails, {args.games} games: {args.mails / cpu:.0f} mails/s CPU "
                f"({cpu:.2f} s: user {(after.user - times.user) / args.mails * 1000:.2f}, system "
                f"{(after.system - times.system) / args.mails * 1000:.2f} ms a mail), {args.mails / wall:.0f} "
                f"mails/s wall ({wall:.2f} s), {counts.describe(args.mails)}"
            )
    finally:
        dovecot.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
