"""The game directory: its layout, its SQLite journal, and the one-process-at-a-time lock.

The journal is the only module that speaks SQL, so that moving a hosted service to another
store touches this file alone. The log table is append-only; the phases and orders tables
index what the files in the directory hold.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from referee.canonical import canonical_json, sha256_hex
from referee.errors import LockedError, StateError
from referee.files import atomic_write

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seeds (
    turn INTEGER NOT NULL, phase TEXT NOT NULL, server_seed TEXT NOT NULL,
    PRIMARY KEY (turn, phase));
CREATE TABLE IF NOT EXISTS phases (
    seq INTEGER PRIMARY KEY, turn INTEGER NOT NULL, phase TEXT NOT NULL,
    commit_hex TEXT NOT NULL, state_before TEXT NOT NULL, active TEXT NOT NULL, opened_at TEXT NOT NULL,
    adjudicated_at TEXT, state_after TEXT, record TEXT,
    UNIQUE (turn, phase));
CREATE TABLE IF NOT EXISTS orders (
    id INTEGER PRIMARY KEY, phase_seq INTEGER NOT NULL REFERENCES phases(seq),
    player TEXT NOT NULL, seq INTEGER NOT NULL, sha256 TEXT NOT NULL, file TEXT NOT NULL,
    accepted_at TEXT NOT NULL, by_referee INTEGER NOT NULL DEFAULT 0, UNIQUE (phase_seq, player, seq));
CREATE TABLE IF NOT EXISTS log (
    id INTEGER PRIMARY KEY, at TEXT NOT NULL, kind TEXT NOT NULL,
    turn INTEGER, phase TEXT, player TEXT, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS log_source ON log (json_extract(data, '$.source'));
"""
LOCK_WAIT_SECONDS = 10.0
# Each step brings a journal from the version before it to the next (PRAGMA user_version).
MIGRATIONS = ("ALTER TABLE orders ADD COLUMN by_referee INTEGER NOT NULL DEFAULT 0",)


def _migrate(db: sqlite3.Connection) -> None:
    """Bring an older journal up to the current schema, one recorded step at a time."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    columns = {row[1] for row in db.execute("PRAGMA table_info(orders)")}
    if version == 0 and "by_referee" in columns:  # created by this version's SCHEMA
        version = len(MIGRATIONS)
    for step in MIGRATIONS[version:]:
        db.execute(step)
    db.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")


def utc_now() -> str:
    """Return the current UTC time as ISO 8601 text with seconds."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


@dataclass(frozen=True)
class OpenPhase:
    """A phase's row in the journal."""

    seq: int
    turn: int
    phase: str
    commit: str
    state_before: str
    opened_at: str
    active: tuple[str, ...]
    adjudicated_at: str | None
    state_after: str | None
    record: str | None

    @property
    def ident(self) -> str:
        """`TURN/PHASE`, as `--expect` takes it."""
        return f"{self.turn}/{self.phase}"

    @property
    def stem(self) -> str:
        """The file-name stem of this phase's record, reports and notices."""
        return f"{self.seq:04d}-t{self.turn}-{self.phase}"


@dataclass(frozen=True)
class AcceptedOrder:
    """An accepted order file standing in the journal."""

    player: str
    seq: int
    sha256: str
    file: str
    by_referee: bool = False


class GameDir:
    """Paths inside one game's directory, and its journal."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.config = self.path / "game.yaml"
        self.key = self.path / "referee.key"
        self.public_key = self.path / "referee.pub"
        self.journal_path = self.path / "journal.sqlite"
        self.records = self.path / "records"
        self.states = self.path / "states"
        self.orders = self.path / "orders"
        self.refused = self.path / "refused"
        self.mail = self.path / "mail"
        self.outbox = self.path / "outbox"
        self._db: sqlite3.Connection | None = None

    def exists(self) -> bool:
        """Return whether this directory holds a game."""
        return self.journal_path.exists()

    def require(self) -> GameDir:
        """Return self, or raise StateError when the directory holds no game."""
        if not self.exists():
            raise StateError(
                f"{self.path} is not a game directory (no journal.sqlite)",
                hints=("create a game with: referee init GAMEDIR --config game.yaml",),
            )
        return self

    @property
    def db(self) -> sqlite3.Connection:
        """The journal connection (opened on first use; WAL, synchronous=FULL)."""
        if self._db is None:
            fresh = not self.journal_path.exists()
            self._db = sqlite3.connect(self.journal_path, isolation_level=None)
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
            _migrate(self._db)
            if fresh:
                os.chmod(self.journal_path, 0o600)
        return self._db

    def close(self) -> None:
        """Close the journal connection."""
        if self._db is not None:
            self._db.close()
            self._db = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run the block in one journal transaction: all of it is stored, or none."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    @contextmanager
    def lock(self, wait: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
        """Hold the game's lock: one referee process at a time works on a game."""
        self.path.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + wait
        with open(self.path / ".lock", "a+") as handle:
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise LockedError(
                            f"another referee process is working on {self.path}",
                            hints=("wait for it to finish and try again",),
                        ) from None
                    time.sleep(0.05)
            yield

    # -- meta -------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        """Return a meta value, or None."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row["value"] if row else None

    def set_meta(self, key: str, value: str) -> None:
        """Store a meta value."""
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- states -----------------------------------------------------------------------

    def save_state(self, state: Any) -> str:
        """Store a state snapshot (content-addressed canonical JSON); return its hash."""
        data = canonical_json(state)
        digest = sha256_hex(data)
        path = self.states / f"{digest}.json"
        if not path.exists():
            atomic_write(path, data, mode=0o600)
        return digest

    def load_state(self, digest: str) -> Any:
        """Return the state snapshot with this hash, checking the file against its name."""
        data = (self.states / f"{digest}.json").read_bytes()
        if sha256_hex(data) != digest:
            raise StateError(f"state snapshot {digest}.json does not match its hash: the game directory is damaged")
        return json.loads(data)

    def current_state_hash(self) -> str:
        """Return the hash of the game's current state."""
        value = self.get_meta("state")
        if value is None:
            raise StateError(f"{self.path} has no current state: the game directory is damaged")
        return value

    # -- seeds, phases and orders -----------------------------------------------------

    def seed_for(self, turn: int, phase: str) -> bytes:
        """Return the secret seed of a phase, drawing and storing it first if it has none.

        Drawn once and kept: a crash between writing a notice and committing the phase
        must not let a second run publish a different commitment.
        """
        self.db.execute(
            "INSERT OR IGNORE INTO seeds (turn, phase, server_seed) VALUES (?, ?, ?)",
            (turn, phase, os.urandom(32).hex()),
        )
        row = self.db.execute("SELECT server_seed FROM seeds WHERE turn = ? AND phase = ?", (turn, phase)).fetchone()
        return bytes.fromhex(row["server_seed"])

    def open_phase(self) -> OpenPhase | None:
        """Return the phase waiting for adjudication, or None when the game is over."""
        row = self.db.execute("SELECT * FROM phases WHERE adjudicated_at IS NULL ORDER BY seq DESC LIMIT 1").fetchone()
        return _phase(row) if row else None

    def phases(self) -> list[OpenPhase]:
        """Return every phase in the order opened."""
        return [_phase(row) for row in self.db.execute("SELECT * FROM phases ORDER BY seq")]

    def next_phase_seq(self) -> int:
        """Return the sequence number the next opened phase gets."""
        row = self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM phases").fetchone()
        return int(row["n"])

    def insert_phase(
        self, seq: int, turn: int, phase: str, commit: str, state_before: str, active: tuple[str, ...]
    ) -> None:
        """Record that a phase is open, and who must send orders in it."""
        self.db.execute(
            "INSERT INTO phases (seq, turn, phase, commit_hex, state_before, active, opened_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (seq, turn, phase, commit, state_before, json.dumps(list(active)), utc_now()),
        )

    def close_phase(self, seq: int, state_after: str, record: str) -> None:
        """Record that a phase was adjudicated."""
        self.db.execute(
            "UPDATE phases SET adjudicated_at = ?, state_after = ?, record = ? WHERE seq = ?",
            (utc_now(), state_after, record, seq),
        )

    def standing_orders(self, phase_seq: int) -> dict[str, AcceptedOrder]:
        """Return, per player, the accepted order with the highest seq in the phase."""
        rows = self.db.execute("SELECT * FROM orders WHERE phase_seq = ? ORDER BY player, seq", (phase_seq,))
        return {row["player"]: _order(row) for row in rows}

    def find_order(self, phase_seq: int, player: str, seq: int) -> AcceptedOrder | None:
        """Return the accepted order with this seq, if any."""
        row = self.db.execute(
            "SELECT * FROM orders WHERE phase_seq = ? AND player = ? AND seq = ?", (phase_seq, player, seq)
        ).fetchone()
        return _order(row) if row else None

    def insert_order(
        self, phase_seq: int, player: str, seq: int, sha256: str, file: str, by_referee: bool = False
    ) -> None:
        """Record an accepted order file (`by_referee`: entered by the referee for the player)."""
        self.db.execute(
            "INSERT INTO orders (phase_seq, player, seq, sha256, file, accepted_at, by_referee)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (phase_seq, player, seq, sha256, file, utc_now(), int(by_referee)),
        )

    def times_received(self, sha256: str) -> int:
        """Return how many times a file with this SHA-256 was submitted (accepted, refused or again)."""
        row = self.db.execute(
            "SELECT COUNT(*) AS n FROM log WHERE kind IN ('order.accepted', 'order.refused', 'order.duplicate')"
            " AND json_extract(data, '$.sha256') = ?",
            (sha256,),
        ).fetchone()
        return int(row["n"])

    def source_seen(self, source: str) -> bool:
        """Return whether a submission from this source (e.g. one incoming mail) was already handled."""
        row = self.db.execute(
            "SELECT 1 FROM log WHERE json_extract(data, '$.source') = ? LIMIT 1", (source,)
        ).fetchone()
        return row is not None

    def log_entry(self, kind: str, turn: int, phase: str) -> dict[str, Any] | None:
        """Return the data of the latest log entry of this kind for a phase, or None."""
        row = self.db.execute(
            "SELECT data FROM log WHERE kind = ? AND turn = ? AND phase = ? ORDER BY id DESC LIMIT 1",
            (kind, turn, phase),
        ).fetchone()
        return json.loads(row["data"]) if row else None

    def log_entries(self, kinds: tuple[str, ...], since_id: int = 0) -> list[dict[str, Any]]:
        """Return the log entries of these kinds, oldest first, each with id, at, kind, turn, phase, player, data."""
        marks = ", ".join("?" for _ in kinds)
        rows = self.db.execute(
            f"SELECT id, at, kind, turn, phase, player, data FROM log WHERE kind IN ({marks}) AND id > ? ORDER BY id",
            (*kinds, since_id),
        )
        return [{**dict(row), "data": json.loads(row["data"])} for row in rows]

    def log(
        self,
        kind: str,
        data: dict[str, Any],
        turn: int | None = None,
        phase: str | None = None,
        player: str | None = None,
    ) -> None:
        """Append an entry to the journal's log."""
        self.db.execute(
            "INSERT INTO log (at, kind, turn, phase, player, data) VALUES (?, ?, ?, ?, ?, ?)",
            (utc_now(), kind, turn, phase, player, json.dumps(data, sort_keys=True)),
        )


def _phase(row: sqlite3.Row) -> OpenPhase:
    return OpenPhase(
        row["seq"],
        row["turn"],
        row["phase"],
        row["commit_hex"],
        row["state_before"],
        row["opened_at"],
        tuple(json.loads(row["active"])),
        row["adjudicated_at"],
        row["state_after"],
        row["record"],
    )


def _order(row: sqlite3.Row) -> AcceptedOrder:
    return AcceptedOrder(row["player"], row["seq"], row["sha256"], row["file"], bool(row["by_referee"]))
