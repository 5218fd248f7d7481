"""Group commit for mail intake: a batch of mails handled together and made durable together.

Handling one order mail used to cost a dozen disk syncs: the ledger's start and outcome, the
game journal's commit, and two or three per letter file. A batch pays them once:

    1. the ledger records, in one commit, that the batch's handling starts (table `batch`);
    2. each mail is handled, its name first written to HOME/handling (no sync: it outlives a
       killed process, which is what it is for); its letters are held in memory
       (`referee.files.group_commit`) and its orders go into one open transaction per game;
    3. the batch ends: HOME/handling is emptied, the letters land (two syncs for all of them),
       each game commits once, without a sync of its own (its journal is at synchronous=NORMAL
       for the batch: SQLite keeps a commit whole, not durable), then one sync makes every
       game's commit durable together, and the ledger records every outcome in one commit;
    4. only then are the mails moved on the server (`referee.mail.intake.move_handled`).

A crash before step 3 ends leaves the games as they were before the batch (their transactions
never committed, or committed and not yet synced: a power cut may undo such a commit whole) and
the batch's rows in the ledger: the next pass handles those mails again, as new, except the one
HOME/handling names, whose handling started and never finished: it is set aside as before.
Letters landed before a crash are found by their Message-ID and kept once; a game that
committed before a crash knows each mail by its source and does not take it twice.
"""

from __future__ import annotations

import os
from contextlib import ExitStack
from pathlib import Path

from referee.files import flush_group, sync_files
from referee.game.opened import Game

MARKER_BYTES = 64  # a SHA-256 in hex


class Batch:
    """The games a batch of mails touched, each open, locked and inside one transaction."""

    def __init__(self) -> None:
        self._games: dict[Path, Game] = {}
        self._locks = ExitStack()
        # Seats found reachable since the games were opened: only a bounce marks a player
        # unreachable, and a bounce is handled after the batch commits (which empties this).
        self.reachable: set[tuple[Path, str]] = set()

    def game(self, path: Path) -> Game:
        """Return the game at `path`, opened, locked and in the batch's transaction on first use."""
        game = self._games.get(path)
        if game is None:
            game = Game.open(path)
            try:
                self._locks.enter_context(game.dir.lock())
                # No sync at the commit: `commit` makes every game's commit durable with one.
                # The connection is the batch's alone and closed with it.
                game.dir.db.execute("PRAGMA synchronous=NORMAL")
                game.dir.db.execute("BEGIN IMMEDIATE")
            except BaseException:
                game.dir.close()
                raise
            self._games[path] = game
        return game

    def commit(self) -> None:
        """Land the letters held so far, then commit every game (letters first: an acknowledgement
        must never be missing for orders a game took), make the commits durable with one sync,
        and release the games."""
        flush_group()
        try:
            for game in self._games.values():
                game.dir.db.execute("COMMIT")
            if self._games:
                journals = [game.dir.journal_path for game in self._games.values()]
                wals = [path.with_name(path.name + "-wal") for path in journals]
                sync_files([path for path in wals if path.exists()], sorted({path.parent for path in journals}))
        finally:
            self.close()

    def rollback(self) -> None:
        """Undo what the batch did in the games (its letters are dropped by the group's end)."""
        for game in self._games.values():
            if game.dir.db.in_transaction:
                game.dir.db.execute("ROLLBACK")
        self.close()

    def close(self) -> None:
        for game in self._games.values():
            game.dir.close()
        self._games.clear()
        self.reachable.clear()
        self._locks.close()


class Marker:
    """HOME/handling: the SHA-256 of the mail being handled, rewritten in place for each mail and
    never synced. After a killed process it names the mail that was in hand; after a power cut
    it may name nothing, and the batch's mails are all handled again."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> Marker:
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self._fd)

    def write(self, sha256: str) -> None:
        os.pwrite(self._fd, sha256.encode("ascii").ljust(MARKER_BYTES)[:MARKER_BYTES], 0)

    def clear(self) -> None:
        os.pwrite(self._fd, b" " * MARKER_BYTES, 0)

    @staticmethod
    def read(path: Path) -> str | None:
        try:
            text = path.read_bytes()[:MARKER_BYTES].decode("ascii", "replace").strip()
        except OSError:
            return None
        return text or None
