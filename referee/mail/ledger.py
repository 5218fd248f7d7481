"""The mail ledger (HOME/intake.sqlite): what came in and what went out, so that a message seen
twice is handled once and a letter is sent once, across crashes and overlapping runs.

    mailbox   per folder: UIDVALIDITY and the highest UID stored
    messages  per incoming mail (by SHA-256 of its bytes): where it is spooled, its state
              (stored -> handled, or stored -> set-aside), the outcome and the folder it belongs in
    handling  per incoming mail: how often its handling started, and whether the last one
              finished; a start that never finished means the process died on that mail
    copies    per message on the server (folder, UIDVALIDITY, UID): moved yet or not; the same
              mail delivered twice is one message with two copies
    sends     per outgoing letter (by Message-ID): attempts, when to retry, when sent
    refused_sends  per letter refused for good (a 5xx, or a bounce): never tried again
    replies   per stranger's address and day: how many replies, so a loop cannot run away
    command_nonces  per signed command file used: its game, player and nonce, so it is used once
    batch     the mails of the batch being handled (`referee.mail.batch`): rows left by a pass
              that died name the mails to look at again
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS mailbox (folder TEXT PRIMARY KEY, uidvalidity INTEGER NOT NULL, last_uid INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS messages (
    sha256 TEXT PRIMARY KEY, message_id TEXT, size INTEGER NOT NULL, file TEXT NOT NULL, stored_at TEXT NOT NULL,
    status TEXT NOT NULL, outcome TEXT, destination TEXT, handled_at TEXT);
CREATE TABLE IF NOT EXISTS copies (
    folder TEXT NOT NULL, uidvalidity INTEGER NOT NULL, uid INTEGER NOT NULL, sha256 TEXT NOT NULL,
    moved_at TEXT, PRIMARY KEY (folder, uidvalidity, uid));
CREATE INDEX IF NOT EXISTS copies_waiting ON copies (moved_at);
CREATE INDEX IF NOT EXISTS messages_message_id ON messages (message_id);
CREATE INDEX IF NOT EXISTS messages_status ON messages (status);
CREATE TABLE IF NOT EXISTS sends (
    message_id TEXT PRIMARY KEY, attempts INTEGER NOT NULL, next_at TEXT, last_error TEXT, sent_at TEXT);
CREATE TABLE IF NOT EXISTS replies (address TEXT NOT NULL, day TEXT NOT NULL, count INTEGER NOT NULL,
    PRIMARY KEY (address, day));
CREATE TABLE IF NOT EXISTS refused_sends (message_id TEXT PRIMARY KEY, error TEXT NOT NULL, refused_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS command_nonces (game TEXT NOT NULL, player TEXT NOT NULL, nonce TEXT NOT NULL,
    file_sha256 TEXT NOT NULL, mail_sha256 TEXT NOT NULL, used_at TEXT NOT NULL, PRIMARY KEY (game, player, nonce));
CREATE INDEX IF NOT EXISTS command_nonces_file ON command_nonces (file_sha256);
CREATE TABLE IF NOT EXISTS handling (
    sha256 TEXT PRIMARY KEY, attempts INTEGER NOT NULL, started_at TEXT NOT NULL, finished_at TEXT);
CREATE TABLE IF NOT EXISTS batch (sha256 TEXT PRIMARY KEY, started_at TEXT NOT NULL);
"""
# A message whose handling killed the process is not handled again: it is set aside (status
# 'set-aside') and moved to the rejected folder, and the referee is told.
SET_ASIDE = "set-aside"
MAX_BACKOFF = timedelta(hours=6)


@dataclass(frozen=True)
class StoredMessage:
    sha256: str
    message_id: str | None
    file: str
    status: str
    destination: str | None
    outcome: dict[str, Any] | None


class Ledger:
    """The home's mail ledger (one SQLite file, WAL, synchronous=FULL like the game journals)."""

    def __init__(self, path: Path) -> None:
        fresh = not path.exists()
        self.db = sqlite3.connect(path, isolation_level=None, timeout=30)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)
        if fresh:
            os.chmod(path, 0o600)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # -- the mailbox's position ---------------------------------------------------------

    def position(self, folder: str) -> tuple[int, int] | None:
        row = self.db.execute("SELECT uidvalidity, last_uid FROM mailbox WHERE folder = ?", (folder,)).fetchone()
        return (int(row["uidvalidity"]), int(row["last_uid"])) if row else None

    def set_position(self, folder: str, uidvalidity: int, last_uid: int) -> None:
        self.db.execute(
            "INSERT INTO mailbox (folder, uidvalidity, last_uid) VALUES (?, ?, ?)"
            " ON CONFLICT (folder) DO UPDATE SET uidvalidity = excluded.uidvalidity, last_uid = excluded.last_uid",
            (folder, uidvalidity, last_uid),
        )

    # -- incoming messages -------------------------------------------------------------

    def find(self, sha256: str, message_id: str | None) -> StoredMessage | None:
        """Return the message with these bytes, or else with this Message-ID, if already stored."""
        row = self.db.execute("SELECT * FROM messages WHERE sha256 = ?", (sha256,)).fetchone()
        if row is None and message_id:
            row = self.db.execute(
                "SELECT * FROM messages WHERE message_id = ? ORDER BY stored_at LIMIT 1", (message_id,)
            ).fetchone()
        return _stored(row) if row else None

    def with_message_id(self, message_id: str) -> list[StoredMessage]:
        """Return the stored messages that carry this Message-ID, oldest first."""
        rows = self.db.execute("SELECT * FROM messages WHERE message_id = ? ORDER BY rowid", (message_id,))
        return [_stored(row) for row in rows]

    def add(
        self, sha256: str, message_id: str | None, size: int, file: str, now: datetime, duplicate_of: str | None = None
    ) -> None:
        """Record a stored message; one with the Message-ID of another is recorded as handled at once."""
        status, outcome, destination = "stored", None, None
        if duplicate_of is not None:
            status, destination = "handled", "processed"
            outcome = json.dumps({"summary": f"the same Message-ID as {duplicate_of[:12]}: not handled again"})
        self.db.execute(
            "INSERT INTO messages (sha256, message_id, size, file, stored_at, status, outcome, destination)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (sha256, message_id, size, file, now.isoformat(), status, outcome, destination),
        )

    def add_copy(self, folder: str, uidvalidity: int, uid: int, sha256: str) -> None:
        """Record where a copy of a message sits on the server (it is moved once handled)."""
        self.db.execute(
            "INSERT OR IGNORE INTO copies (folder, uidvalidity, uid, sha256) VALUES (?, ?, ?, ?)",
            (folder, uidvalidity, uid, sha256),
        )

    def copies_to_move(self, folder: str, uidvalidity: int) -> dict[str, list[tuple[int, str]]]:
        """Return, by destination, the (UID, SHA-256) of handled messages' copies still in `folder`."""
        rows = self.db.execute(
            "SELECT c.uid, c.sha256, m.destination FROM copies c JOIN messages m ON m.sha256 = c.sha256"
            " WHERE c.moved_at IS NULL AND m.status IN ('handled', 'set-aside') AND c.folder = ? AND c.uidvalidity = ?"
            " ORDER BY c.uid",
            (folder, uidvalidity),
        )
        moves: dict[str, list[tuple[int, str]]] = {}
        for row in rows:
            moves.setdefault(row["destination"], []).append((int(row["uid"]), row["sha256"]))
        return moves

    def mark_moved(self, folder: str, uidvalidity: int, uids: list[int], now: datetime) -> None:
        self.db.executemany(
            "UPDATE copies SET moved_at = ? WHERE folder = ? AND uidvalidity = ? AND uid = ?",
            [(now.isoformat(), folder, uidvalidity, uid) for uid in uids],
        )

    def with_status(self, status: str) -> list[StoredMessage]:
        rows = self.db.execute("SELECT * FROM messages WHERE status = ? ORDER BY rowid", (status,))
        return [_stored(row) for row in rows]

    def mark_handled(self, sha256: str, destination: str, outcome: dict[str, Any], now: datetime) -> None:
        self.db.execute(
            "UPDATE messages SET status = 'handled', destination = ?, outcome = ?, handled_at = ? WHERE sha256 = ?",
            (destination, json.dumps(outcome, sort_keys=True), now.isoformat(), sha256),
        )

    # -- handling, so that a mail that kills a pass is set aside by the next -----------------

    def unfinished_attempts(self, sha256: str) -> int:
        """Return how often handling this message started and never finished (0: never, or it did)."""
        row = self.db.execute("SELECT attempts, finished_at FROM handling WHERE sha256 = ?", (sha256,)).fetchone()
        return int(row["attempts"]) if row is not None and row["finished_at"] is None else 0

    def start_handling(self, sha256: str, now: datetime) -> None:
        """Record that handling the message starts now (committed before it starts)."""
        self.db.execute(
            "INSERT INTO handling (sha256, attempts, started_at) VALUES (?, 1, ?)"
            " ON CONFLICT (sha256) DO UPDATE SET attempts = attempts + 1, started_at = excluded.started_at,"
            " finished_at = NULL",
            (sha256, now.isoformat()),
        )

    def finish_handling(self, sha256: str, now: datetime) -> None:
        """Record that the handling started last ended, with an outcome or with an error caught."""
        self.db.execute("UPDATE handling SET finished_at = ? WHERE sha256 = ?", (now.isoformat(), sha256))

    def set_aside(self, sha256: str, outcome: dict[str, Any], now: datetime) -> None:
        """Give up on a message whose handling never finished: it goes to the rejected folder."""
        self.db.execute(
            "UPDATE messages SET status = ?, destination = 'rejected', outcome = ?, handled_at = ? WHERE sha256 = ?",
            (SET_ASIDE, json.dumps(outcome, sort_keys=True), now.isoformat(), sha256),
        )
        self.finish_handling(sha256, now)

    def start_batch(self, sha256s: list[str], now: datetime) -> None:
        """Record that handling these messages together starts now (committed before it starts)."""
        self.db.executemany(
            "INSERT OR REPLACE INTO batch (sha256, started_at) VALUES (?, ?)",
            [(sha256, now.isoformat()) for sha256 in sha256s],
        )

    def batch_started(self) -> set[str]:
        """Return the messages of a batch whose handling started and never ended (the process died)."""
        return {row["sha256"] for row in self.db.execute("SELECT sha256 FROM batch")}

    def end_batch(self) -> None:
        self.db.execute("DELETE FROM batch")

    def count(self) -> dict[str, int]:
        rows = self.db.execute("SELECT status, COUNT(*) AS n FROM messages GROUP BY status")
        return {row["status"]: int(row["n"]) for row in rows}

    # -- outgoing letters --------------------------------------------------------------

    def send_due(self, message_id: str, now: datetime) -> bool:
        """Return whether a letter may be tried now (it is not waiting out a back-off)."""
        row = self.db.execute("SELECT next_at FROM sends WHERE message_id = ?", (message_id,)).fetchone()
        return row is None or row["next_at"] is None or datetime.fromisoformat(row["next_at"]) <= now

    def send_failed(self, message_id: str, error: str, now: datetime) -> datetime:
        """Record a failed attempt; return when to try again (doubling from a minute, up to 6 hours)."""
        row = self.db.execute("SELECT attempts FROM sends WHERE message_id = ?", (message_id,)).fetchone()
        attempts = (int(row["attempts"]) if row else 0) + 1
        retry = now + min(timedelta(minutes=2 ** (attempts - 1)), MAX_BACKOFF)
        self.db.execute(
            "INSERT INTO sends (message_id, attempts, next_at, last_error) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (message_id) DO UPDATE SET attempts = excluded.attempts,"
            " next_at = excluded.next_at, last_error = excluded.last_error",
            (message_id, attempts, retry.isoformat(), error[:500]),
        )
        return retry

    def send_done(self, message_id: str, now: datetime) -> None:
        self.db.execute(
            "INSERT INTO sends (message_id, attempts, sent_at) VALUES (?, 1, ?)"
            " ON CONFLICT (message_id) DO UPDATE SET sent_at = excluded.sent_at, next_at = NULL",
            (message_id, now.isoformat()),
        )

    def send_failed_for_good(self, message_id: str, error: str, now: datetime) -> None:
        """Record a letter the server refused for good (5xx): it is not tried again."""
        self.db.execute(
            "INSERT INTO sends (message_id, attempts, last_error) VALUES (?, 1, ?)"
            " ON CONFLICT (message_id) DO UPDATE SET attempts = attempts + 1, next_at = NULL,"
            " last_error = excluded.last_error",
            (message_id, f"refused for good: {error}"[:500]),
        )
        self.db.execute(
            "INSERT OR IGNORE INTO refused_sends (message_id, error, refused_at) VALUES (?, ?, ?)",
            (message_id, error[:500], now.isoformat()),
        )

    def send_refused(self, message_id: str) -> bool:
        """Return whether a letter was refused for good (and so is not to be tried again)."""
        row = self.db.execute("SELECT 1 FROM refused_sends WHERE message_id = ?", (message_id,)).fetchone()
        return row is not None

    def was_sent(self, message_id: str) -> bool:
        row = self.db.execute("SELECT sent_at FROM sends WHERE message_id = ?", (message_id,)).fetchone()
        return row is not None and row["sent_at"] is not None

    # -- replies to strangers ----------------------------------------------------------

    def reply_allowed(self, address: str, day: str, limit: int) -> bool:
        """Count one reply to `address` today; return False once `limit` is reached (no loops, no floods)."""
        row = self.db.execute("SELECT count FROM replies WHERE address = ? AND day = ?", (address, day)).fetchone()
        if row is not None and int(row["count"]) >= limit:
            return False
        self.db.execute(
            "INSERT INTO replies (address, day, count) VALUES (?, ?, 1)"
            " ON CONFLICT (address, day) DO UPDATE SET count = count + 1",
            (address, day),
        )
        return True

    # -- signed command files ----------------------------------------------------------

    def use_command(
        self, game: str, player: str, nonce: str, file_sha256: str, mail_sha256: str, now: datetime
    ) -> str | None:
        """Record a signed command file as used by one mail; return when it was used before by another
        mail (a replay), else None. The same mail handled again after a crash is not a replay."""
        row = self.db.execute(
            "SELECT used_at, mail_sha256 FROM command_nonces WHERE (game = ? AND player = ? AND nonce = ?)"
            " OR file_sha256 = ? ORDER BY used_at LIMIT 1",
            (game, player, nonce, file_sha256),
        ).fetchone()
        if row is not None:
            return None if row["mail_sha256"] == mail_sha256 else str(row["used_at"])
        self.db.execute(
            "INSERT INTO command_nonces (game, player, nonce, file_sha256, mail_sha256, used_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (game, player, nonce, file_sha256, mail_sha256, now.isoformat()),
        )
        return None


def _stored(row: sqlite3.Row) -> StoredMessage:
    return StoredMessage(
        row["sha256"],
        row["message_id"],
        row["file"],
        row["status"],
        row["destination"],
        json.loads(row["outcome"]) if row["outcome"] else None,
    )
