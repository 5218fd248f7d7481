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

from referee.errors import LockedError, StateError, no_game_error
from referee.files import atomic_write
from referee.game.glance import header_problem
from referee.protocol.canonical import canonical_json, sha256_hex, stored_json

# The operator's commands that change a game, each recorded before it writes anything and
# marked finished at its end (referee.game.operations). Created on first use in an older
# journal too: it needs no migration step.
OPERATIONS_SCHEMA = """
CREATE TABLE IF NOT EXISTS operations (
    id TEXT PRIMARY KEY, command TEXT NOT NULL, key TEXT NOT NULL, rerun TEXT NOT NULL,
    plan TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT, summary TEXT);
"""
# The orders of each accepted file as read when it was accepted (JSON, by the file's SHA-256),
# so that adjudicating a phase does not parse its order files' YAML a second time; dropped when
# the phase closes. Derived data: a file without a row (a journal made before, a phase adjudicated
# again after a rollback) is read from its YAML as before. Created on first use.
ORDER_CONTENT_SCHEMA = """
CREATE TABLE IF NOT EXISTS order_content (
    sha256 TEXT PRIMARY KEY, turn INTEGER NOT NULL, phase TEXT NOT NULL, orders TEXT NOT NULL);
"""
SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seeds (
    turn INTEGER NOT NULL, phase TEXT NOT NULL, server_seed TEXT NOT NULL,
    PRIMARY KEY (turn, phase));
CREATE TABLE IF NOT EXISTS phases (
    seq INTEGER PRIMARY KEY, turn INTEGER NOT NULL, phase TEXT NOT NULL,
    commit_hex TEXT NOT NULL, state_before TEXT NOT NULL, active TEXT NOT NULL, opened_at TEXT NOT NULL,
    adjudicated_at TEXT, state_after TEXT, record TEXT,
    generation INTEGER NOT NULL DEFAULT 0, forced INTEGER, defaulted TEXT,
    UNIQUE (turn, phase));
CREATE TABLE IF NOT EXISTS superseded_phases (
    superseded_by INTEGER NOT NULL, seq INTEGER NOT NULL, turn INTEGER NOT NULL, phase TEXT NOT NULL,
    commit_hex TEXT NOT NULL, state_before TEXT NOT NULL, active TEXT NOT NULL, opened_at TEXT NOT NULL,
    adjudicated_at TEXT, state_after TEXT, record TEXT,
    generation INTEGER NOT NULL, forced INTEGER, defaulted TEXT,
    PRIMARY KEY (superseded_by, seq));
CREATE TABLE IF NOT EXISTS orders (
    id INTEGER PRIMARY KEY, turn INTEGER NOT NULL, phase TEXT NOT NULL, phase_seq INTEGER NOT NULL,
    player TEXT NOT NULL, seq INTEGER NOT NULL, sha256 TEXT NOT NULL, file TEXT NOT NULL,
    accepted_at TEXT NOT NULL, by_referee INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL,
    UNIQUE (turn, phase, player, seq));
CREATE TABLE IF NOT EXISTS overrides (
    id INTEGER PRIMARY KEY, turn INTEGER NOT NULL, phase TEXT NOT NULL, kind TEXT NOT NULL,
    body TEXT NOT NULL, signature TEXT NOT NULL, made_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS log (
    id INTEGER PRIMARY KEY, at TEXT NOT NULL, kind TEXT NOT NULL,
    turn INTEGER, phase TEXT, player TEXT, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS beacon_rounds (
    commit_hex TEXT PRIMARY KEY, round INTEGER NOT NULL, orders_close TEXT NOT NULL,
    signature TEXT, previous_signature TEXT);
"""
    + OPERATIONS_SCHEMA
)

# Indexes of the log, so that the look-ups intake makes on every submission (was this mail
# handled? how many times was this file sent?) and those of one phase's entries cost the same
# at the game's first mail and at its ten-thousandth. Created on open in a journal made before
# them (GameDir._connect): an index is derived data, SQLite builds it from the log in one pass,
# and the log's bytes are untouched, so no migration step and no version are needed.
# The two JSON indexes are partial: SQLite parses a row's JSON to index it, and an adjudication's
# entry (its events: 3.5 MB at 10,000 rolls) holds neither key, so it is left out (WHERE), and
# each look-up says the same WHERE so that SQLite may use the index (source_seen, times_received).
ORDER_KINDS = "kind IN ('order.accepted', 'order.refused', 'order.duplicate')"
NOT_ADJUDICATED = "kind <> 'phase.adjudicated'"
LOG_INDEXES = {
    "log_source_entries": "CREATE INDEX IF NOT EXISTS log_source_entries ON log (json_extract(data, '$.source'))"
    f" WHERE {NOT_ADJUDICATED}",
    "log_sha256_orders": "CREATE INDEX IF NOT EXISTS log_sha256_orders ON log (json_extract(data, '$.sha256'))"
    f" WHERE {ORDER_KINDS}",
    "log_kind_phase": "CREATE INDEX IF NOT EXISTS log_kind_phase ON log (kind, turn, phase)",
}
# The whole-log JSON indexes of journals made before (sessions 27-31), dropped where LOG_INDEXES
# are made: each parsed every entry written, the adjudication's too.
LOG_INDEXES_REPLACED = ("log_source", "log_sha256")

LOCK_WAIT_SECONDS = 10.0
# The meta key naming the newest state whose chain, back to the game's first state, the referee
# has checked (GameDir.check_state_chain): a check starts there instead of at the first state.
CHAIN_CHECKED_META = "chain_checked"
# The meta key saying how the game keeps its letters under mail/: "packed" (a zip of the letters
# written together, `referee.letters.kept`) in a game begun since; absent, one file each, as games
# begun before keep them for good. Readers read both.
KEPT_LETTERS_META = "kept_letters"
KEPT_LETTERS_PACKED = "packed"
# The same for its order files under orders/ (`referee.game.order_files`): "packed", one zip a phase.
KEPT_ORDERS_META = "kept_orders"
KEPT_ORDERS_PACKED = "packed"
# And for the acknowledgements of a folder under mail/: "packed", one zip (`acks-`) a folder, each
# new acknowledgement's taking in the one before; absent, a pack each (or a file each, above).
KEPT_ACKS_META = "kept_acks"
KEPT_ACKS_PACKED = "packed"
RECENT_STATES = 4  # states kept in memory once read (GameDir.state_bytes): a phase's few, not the game's
# Each step brings a journal from the version before it to the next (PRAGMA user_version); a
# step runs in one transaction with its version bump, so a crash never leaves half a step.
MIGRATIONS = (
    "ALTER TABLE orders ADD COLUMN by_referee INTEGER NOT NULL DEFAULT 0;",
    # Rollbacks (issue 5): orders belong to a (turn, phase), not to the row of a phase that a
    # rollback may supersede, and each remembers the state it was checked against; phases say
    # in which generation they were opened and how they were adjudicated, so a roll forward
    # can repeat it. Old adjudications are read back from the log.
    """
    ALTER TABLE phases ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE phases ADD COLUMN forced INTEGER;
    ALTER TABLE phases ADD COLUMN defaulted TEXT;
    UPDATE phases SET
        forced = (SELECT json_extract(data, '$.forced') FROM log WHERE kind = 'phase.adjudicated'
                  AND log.turn = phases.turn AND log.phase = phases.phase ORDER BY id DESC LIMIT 1),
        defaulted = (SELECT json_extract(data, '$.defaulted') FROM log WHERE kind = 'phase.adjudicated'
                     AND log.turn = phases.turn AND log.phase = phases.phase ORDER BY id DESC LIMIT 1)
        WHERE adjudicated_at IS NOT NULL;
    CREATE TABLE orders_migrated (
        id INTEGER PRIMARY KEY, turn INTEGER NOT NULL, phase TEXT NOT NULL, phase_seq INTEGER NOT NULL,
        player TEXT NOT NULL, seq INTEGER NOT NULL, sha256 TEXT NOT NULL, file TEXT NOT NULL,
        accepted_at TEXT NOT NULL, by_referee INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL,
        UNIQUE (turn, phase, player, seq));
    INSERT INTO orders_migrated
        SELECT o.id, p.turn, p.phase, o.phase_seq, o.player, o.seq, o.sha256, o.file, o.accepted_at,
               o.by_referee, p.state_before
        FROM orders o JOIN phases p ON p.seq = o.phase_seq;
    DROP TABLE orders;
    ALTER TABLE orders_migrated RENAME TO orders;
    """,
    # Tables added in later versions (public beacon rounds, operator operations): SCHEMA makes
    # them in a new journal; this step makes them in one that was already current before.
    """
    CREATE TABLE IF NOT EXISTS beacon_rounds (
        commit_hex TEXT PRIMARY KEY, round INTEGER NOT NULL, orders_close TEXT NOT NULL,
        signature TEXT, previous_signature TEXT);
    """
    + OPERATIONS_SCHEMA,
)


def _migrate(db: sqlite3.Connection) -> None:
    """Bring an older journal up to the current schema, one recorded step at a time."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    columns = {row[1] for row in db.execute("PRAGMA table_info(orders)")}
    if version == 0 and "state" in columns:  # created by this version's SCHEMA
        version = len(MIGRATIONS)
    elif version == 0 and "by_referee" in columns:
        version = 1
    for number, step in enumerate(MIGRATIONS[version:], start=version + 1):
        db.executescript(f"BEGIN IMMEDIATE;\n{step}\nPRAGMA user_version = {number};\nCOMMIT;")
    if version == len(MIGRATIONS) and db.execute("PRAGMA user_version").fetchone()[0] != version:
        db.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")


def _index_log(db: sqlite3.Connection) -> None:
    """Create the log's indexes a journal lacks (LOG_INDEXES): one read of the schema when it has them all."""
    present = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'log'")}
    missing = [sql for name, sql in LOG_INDEXES.items() if name not in present]
    missing += [f"DROP INDEX {name}" for name in LOG_INDEXES_REPLACED if name in present]
    if not missing:
        return
    # Not worth waiting for: while another process writes the journal, or when this one may
    # not write it (a read-only copy), the look-ups still answer by reading the log through,
    # and a later open builds the indexes.
    timeout = db.execute("PRAGMA busy_timeout").fetchone()[0]
    db.execute("PRAGMA busy_timeout = 0")
    try:
        db.executescript("BEGIN IMMEDIATE;\n" + ";\n".join(missing) + ";\nCOMMIT;")
    except sqlite3.OperationalError:
        if db.in_transaction:
            db.execute("ROLLBACK")
    finally:
        db.execute(f"PRAGMA busy_timeout = {int(timeout)}")


def utc_now() -> str:
    """Return the current UTC time as ISO 8601 text with seconds."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


@dataclass(frozen=True)
class BeaconRound:
    """The beacon round promised to a phase, and its signature once fetched and verified."""

    round: int
    orders_close: str  # ISO 8601 UTC: the last moment orders were to be taken, the round follows it
    signature: str | None
    previous_signature: str | None


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
    generation: int = 0
    forced: bool | None = None
    defaulted: tuple[str, ...] = ()

    @property
    def ident(self) -> str:
        """`TURN/PHASE`, as `--expect` takes it."""
        return f"{self.turn}/{self.phase}"

    @property
    def stem(self) -> str:
        """The file-name stem of this phase's record, reports and notices."""
        return f"{self.seq:04d}-t{self.turn}-{self.phase}"

    @property
    def folder(self) -> str:
        """The folder under mail/ of this phase's letters: a phase opened again after a rollback
        (generation g > 0) gets its own, so that the letters sent before are kept as they were."""
        return self.stem if self.generation == 0 else f"{self.stem}.g{self.generation}"


@dataclass(frozen=True)
class AcceptedOrder:
    """An accepted order file standing in the journal."""

    player: str
    seq: int
    sha256: str
    file: str
    by_referee: bool = False
    state: str = ""  # the state the order was checked against when accepted


@dataclass(frozen=True)
class OverrideRow:
    """A referee's override as the journal keeps it: the signed body and its signature."""

    id: int
    turn: int
    phase: str
    kind: str
    body: dict[str, Any]
    signature: str


@dataclass(frozen=True)
class OperationRow:
    """An operator's command as the journal keeps it: what it is, how to run it again, what it
    decided before writing (its plan), and, once finished, what it did."""

    id: str
    command: str
    key: str  # the hash of the command and its arguments: an explicit id may not be reused for another
    rerun: str  # the command line that finishes it
    plan: dict[str, Any]
    started_at: str
    finished_at: str | None
    summary: str | None


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
        self._checked_states: set[str] = set()
        self._recent_states: dict[str, bytes] = {}  # the last states read, checked (state_bytes)
        self._hidden_secret: bytes | None = None  # never changes once drawn: read once per command
        self._may_create = False
        self._locks_held = 0  # lock() is re-entrant on one object: mail intake holds it for a batch

    def exists(self) -> bool:
        """Return whether this directory holds a game."""
        return self.journal_path.exists()

    def looks_like_a_game(self) -> bool:
        """Return whether this directory holds a game, or what is left of one (its journal lost)."""
        return self.exists() or bool(self._game_files())

    def require(self) -> GameDir:
        """Return self, or raise StateError when the directory holds no game (or lost its journal)."""
        if not self.exists():
            files = self._game_files()
            if files:
                raise self._journal_lost("is missing", files)
            raise no_game_error(
                self.path,
                "journal (journal.sqlite)",
                hints=(
                    "check the path: GAMEDIR is the directory `referee init` made (in a referee home: HOME/games/NAME)",
                    *(
                        []
                        if self.path.is_file()
                        else [f"to start a game there: referee init {self.path} --config FILE"]
                    ),
                ),
            )
        return self

    def allow_create(self) -> GameDir:
        """Let this object create the journal: only `referee init` makes a new game's journal."""
        self._may_create = True
        return self

    @property
    def db(self) -> sqlite3.Connection:
        """The journal connection (opened on first use; WAL, synchronous=FULL).

        The journal is never created here except for `referee init` (`allow_create`): an empty,
        missing or damaged journal beside a game's files is refused, naming how to restore it,
        because a new one would silently lose the secret seeds and start the game afresh.
        """
        if self._db is None:
            fresh = not self.journal_path.exists() or self.journal_path.stat().st_size == 0
            if fresh and not self._may_create:
                self.require()  # a missing journal: say what is left and how to restore it
                raise self._journal_lost("is empty", self._game_files())
            if not fresh:
                self._check_not_truncated()
            try:
                self._db = self._connect(fresh)
            except sqlite3.DatabaseError as error:
                self._db = None
                if isinstance(error, sqlite3.OperationalError) and "locked" not in str(error):
                    raise
                raise self._journal_damaged(str(error)) from None
        return self._db

    def _connect(self, fresh: bool) -> sqlite3.Connection:
        db = sqlite3.connect(self.journal_path, isolation_level=None)
        try:
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            # A journal already at the current version needs no schema script: opening stays a
            # read, which matters to `referee run` opening every game of a home on each pass.
            if db.execute("PRAGMA user_version").fetchone()[0] != len(MIGRATIONS):
                if not fresh and db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0:
                    self._refuse_beside_game_files("holds no tables")
                db.executescript(SCHEMA)
                _migrate(db)
            _index_log(db)
            if fresh:
                os.chmod(self.journal_path, 0o600)
            elif not self._may_create and db.execute("SELECT 1 FROM meta WHERE key = 'game'").fetchone() is None:
                self._refuse_beside_game_files("names no game")
        except BaseException:
            db.close()
            raise
        return db

    def _check_not_truncated(self) -> None:
        """Refuse a journal file shorter than its own header says (cut by a copy or a full disk)."""
        problem = header_problem(str(self.journal_path))
        if problem:
            raise self._journal_damaged(problem)

    def _refuse_beside_game_files(self, how: str) -> None:
        files = self._game_files()
        if files:
            raise self._journal_lost(how, files)

    def _game_files(self) -> list[str]:
        """Say what of a game the directory holds besides its journal ('3 record(s)', ...)."""
        found = []
        for folder, what in ((self.records, "record(s)"), (self.states, "state(s)")):
            count = sum(1 for _ in folder.glob("*.json")) if folder.is_dir() else 0
            if count:
                found.append(f"{count} {what}")
        if self.orders.is_dir() and any(self.orders.iterdir()):
            found.append("order files in orders/")
        if self.mail.is_dir() and any(self.mail.iterdir()):
            found.append("letters in mail/")
        return found

    def _journal_lost(self, how: str, files: list[str]) -> StateError:
        beside = f"; the directory holds {', '.join(files)}" if files else ""
        return StateError(
            f"the journal {self.journal_path} {how}{beside}: it was lost or emptied, and the referee will "
            "not start the game afresh (that would lose its secret seeds and its hidden secret)",
            hints=(
                f"restore journal.sqlite (with journal.sqlite-wal and journal.sqlite-shm if the backup has them) "
                f"into {self.path} from a backup of the game directory",
                f"the public records can still be checked without it: referee verify {self.path}",
            ),
        )

    def _journal_damaged(self, why: str) -> StateError:
        return StateError(
            f"the journal {self.journal_path} is damaged: {why}",
            hints=(
                f"restore journal.sqlite (with journal.sqlite-wal and journal.sqlite-shm if the backup has them) "
                f"into {self.path} from a backup of the game directory",
                f"`sqlite3 {self.journal_path} .recover` may save what is left; keep a copy of the damaged file",
            ),
        )

    def close(self) -> None:
        """Close the journal connection."""
        if self._db is not None:
            self._db.close()
            self._db = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run the block in one journal transaction: all of it is stored, or none.

        Inside a transaction already open (mail intake's batch: one commit for a batch's orders)
        the block is a savepoint of it: undone alone on an error, committed with the batch."""
        db = self.db
        if db.in_transaction:
            db.execute("SAVEPOINT block")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK TO block")
                db.execute("RELEASE block")
                raise
            db.execute("RELEASE block")
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    @contextmanager
    def lock(self, wait: float = LOCK_WAIT_SECONDS, guard: bool = True) -> Iterator[None]:
        """Hold the game's lock: one referee process at a time works on a game.

        With `guard`, refuse while an operator's command is unfinished (a crash interrupted it):
        nothing else may change the game before it is finished. The operator's commands pass
        False and decide themselves (referee.game.operations)."""
        if self._locks_held:  # flock is per open file: a second one in this process would wait on the first
            self._locks_held += 1
            try:
                yield
            finally:
                self._locks_held -= 1
            return
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
            if guard and self.exists():
                unfinished = self.unfinished_operations()
                if unfinished:
                    raise interrupted_error(self.path, unfinished[0])
            self._locks_held = 1
            try:
                yield
            finally:
                self._locks_held = 0

    # -- meta -------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        """Return a meta value, or None."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row["value"] if row else None

    def set_meta(self, key: str, value: str) -> None:
        """Store a meta value."""
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def keep_meta(self, key: str, value: str) -> str:
        """Store a meta value unless the key has one already; return the value stored (the first)."""
        self.db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", (key, value))
        return str(self.get_meta(key))

    @property
    def letters_packed(self) -> bool:
        """Whether this game keeps its letters in packs (a game begun since), not a file each."""
        return self.get_meta(KEPT_LETTERS_META) == KEPT_LETTERS_PACKED

    @property
    def orders_packed(self) -> bool:
        """Whether this game keeps a phase's order files in one pack (a game begun since), not a file each."""
        return self.get_meta(KEPT_ORDERS_META) == KEPT_ORDERS_PACKED

    @property
    def acks_packed(self) -> bool:
        """Whether this game keeps a folder's acknowledgements in one pack (a game begun since)."""
        return self.letters_packed and self.get_meta(KEPT_ACKS_META) == KEPT_ACKS_PACKED

    # -- states -----------------------------------------------------------------------

    def save_state(self, state: Any, data: bytes | None = None) -> str:
        """Store a state snapshot (content-addressed canonical JSON); return its hash. `data`: the
        state's canonical JSON, when the caller has it already."""
        data = canonical_json(state) if data is None else data
        digest = sha256_hex(data)
        path = self.states / f"{digest}.json"
        if not path.exists():
            atomic_write(path, data, mode=0o600)
        return digest

    def load_state(self, digest: str) -> Any:
        """Return the state snapshot with this hash, checking the file against its name."""
        return json.loads(self.state_bytes(digest))

    def state_bytes(self, digest: str) -> bytes:
        """Return the bytes of the state snapshot with this hash, checked against its name.

        The few states read last are kept, checked: adjudicating a phase reads its state before
        for the chain, the outcome and the state edits, and the audit each state as one phase's
        state after and the next one's state before; each is read from disk once."""
        data = self._recent_states.pop(digest, None)
        if data is None:
            data = self._state_bytes(digest)
        self._recent_states[digest] = data
        while len(self._recent_states) > RECENT_STATES:
            del self._recent_states[next(iter(self._recent_states))]
        return data

    def _state_bytes(self, digest: str) -> bytes:
        path = self.states / f"{digest}.json"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise StateError(
                f"the state snapshot {path} is missing: the chain of states is broken",
                hints=("restore the file from a backup; `referee audit GAMEDIR` shows what else differs",),
            ) from None
        if sha256_hex(data) != digest:
            raise StateError(
                f"the state snapshot {path} was changed: its content hashes to {sha256_hex(data)[:16]}..., "
                "not to its name; the referee refuses to play on from an edited state",
                hints=(
                    "restore the file from a backup (`referee audit GAMEDIR` shows the first field that differs)",
                    "to change the game's state, use `referee override GAMEDIR state PATH VALUE --reason ...`",
                ),
            )
        return data

    def check_state_chain(self, digest: str) -> None:
        """Check a state and the states before it (through `previous`) that no check has covered yet.

        Raises StateError naming the first file that was changed or is missing. The walk stops
        at a state this object checked already, and at the one the journal marks as checked with
        every state before it (meta `chain_checked`), so that adjudicating a phase reads the
        states made since the last check, not the game's whole history. A file changed under
        the mark afterwards is not read again here: `referee verify` and `referee audit` check
        every state (docs/architecture.md, "What the referee checks and what `verify` checks").
        """
        mark = self.get_meta(CHAIN_CHECKED_META)
        pending: str | None = digest
        walked = []  # counted as checked only once the walk reached a checked state or the first
        while pending is not None and pending not in self._checked_states and pending != mark:
            envelope = json.loads(self.state_bytes(pending))
            walked.append(pending)
            previous = envelope.get("previous") if isinstance(envelope, dict) else None
            pending = previous if isinstance(previous, str) else None
        self._checked_states.update(walked)
        if walked:
            self.set_meta(CHAIN_CHECKED_META, digest)

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

    def hidden_secret(self, create: bool = False) -> bytes | None:
        """Return the game's hidden-draw secret (docs/protocol.md section 8); with `create`,
        draw and store it first if the game has none. Drawn once, as seeds are."""
        if self._hidden_secret is not None:
            return self._hidden_secret
        value = self.get_meta("hidden_secret")
        if value is None and create:
            self.db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('hidden_secret', ?)", (os.urandom(32).hex(),)
            )
            value = self.get_meta("hidden_secret")
        self._hidden_secret = bytes.fromhex(value) if value else None
        return self._hidden_secret

    def promise_beacon_round(self, commit: str, round_number: int, orders_close: str) -> BeaconRound:
        """Return the beacon round promised to the phase opened under `commit`, storing this one
        first if it has none. Promised once, as seeds are drawn once: its notice states it."""
        self.db.execute(
            "INSERT OR IGNORE INTO beacon_rounds (commit_hex, round, orders_close) VALUES (?, ?, ?)",
            (commit, round_number, orders_close),
        )
        promised = self.beacon_round(commit)
        assert promised is not None
        return promised

    def beacon_round(self, commit: str) -> BeaconRound | None:
        """Return the beacon round promised to the phase opened under `commit` (None: no beacon)."""
        row = self.db.execute("SELECT * FROM beacon_rounds WHERE commit_hex = ?", (commit,)).fetchone()
        if row is None:
            return None
        return BeaconRound(row["round"], row["orders_close"], row["signature"], row["previous_signature"])

    def store_beacon_round(self, commit: str, signature: str, previous_signature: str | None) -> None:
        """Keep the verified signature of a phase's beacon round: adjudication, the roll forward
        and the audit read it from here, so the beacon is fetched once."""
        with self.transaction():
            self.db.execute(
                "UPDATE beacon_rounds SET signature = ?, previous_signature = ? WHERE commit_hex = ?",
                (signature, previous_signature, commit),
            )

    def seed_of(self, turn: int, phase: str) -> bytes | None:
        """Return the seed of a phase without drawing one (None when it has none)."""
        row = self.db.execute("SELECT server_seed FROM seeds WHERE turn = ? AND phase = ?", (turn, phase)).fetchone()
        return bytes.fromhex(row["server_seed"]) if row else None

    def replace_seed(self, turn: int, phase: str, reason: str) -> bytes:
        """Draw a fresh seed for a phase whose seed was revealed, keeping the old one in the log."""
        old = self.seed_of(turn, phase)
        seed = os.urandom(32)
        with self.transaction():
            self.db.execute(
                "INSERT OR REPLACE INTO seeds (turn, phase, server_seed) VALUES (?, ?, ?)", (turn, phase, seed.hex())
            )
            self.log("seed.replaced", {"old": old.hex() if old else None, "reason": reason}, turn, phase)
        return seed

    def open_phase(self) -> OpenPhase | None:
        """Return the phase waiting for adjudication, or None when the game is over."""
        row = self.db.execute("SELECT * FROM phases WHERE adjudicated_at IS NULL ORDER BY seq DESC LIMIT 1").fetchone()
        return _phase(row) if row else None

    def phases(self) -> list[OpenPhase]:
        """Return every phase in the order opened."""
        return [_phase(row) for row in self.db.execute("SELECT * FROM phases ORDER BY seq")]

    def has_phase(self, turn: int | None = None, phase: str | None = None) -> bool:
        """Return whether the game's line holds this phase (or, without one, any phase): one
        look-up, where reading every phase would grow with the game."""
        if turn is None:
            row = self.db.execute("SELECT 1 FROM phases LIMIT 1").fetchone()
        else:
            row = self.db.execute("SELECT 1 FROM phases WHERE turn = ? AND phase = ?", (turn, phase)).fetchone()
        return row is not None

    def adjudicated_count(self) -> int:
        """Return how many phases of the game's line were adjudicated."""
        return int(self.db.execute("SELECT COUNT(*) FROM phases WHERE adjudicated_at IS NOT NULL").fetchone()[0])

    def next_phase_seq(self) -> int:
        """Return the sequence number the next opened phase gets."""
        row = self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM phases").fetchone()
        return int(row["n"])

    def insert_phase(
        self,
        seq: int,
        turn: int,
        phase: str,
        commit: str,
        state_before: str,
        active: tuple[str, ...],
        generation: int = 0,
    ) -> None:
        """Record that a phase is open, and who must send orders in it."""
        self.db.execute(
            "INSERT INTO phases (seq, turn, phase, commit_hex, state_before, active, opened_at, generation)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (seq, turn, phase, commit, state_before, json.dumps(list(active)), utc_now(), generation),
        )

    def close_phase(
        self, seq: int, state_after: str, record: str, forced: bool = False, defaulted: tuple[str, ...] = ()
    ) -> None:
        """Record that a phase was adjudicated, and how (forced, with default orders for `defaulted`)."""
        self.db.execute(
            "UPDATE phases SET adjudicated_at = ?, state_after = ?, record = ?, forced = ?, defaulted = ?"
            " WHERE seq = ?",
            (utc_now(), state_after, record, int(forced), json.dumps(list(defaulted)), seq),
        )
        if self._has_table("order_content"):
            self.db.execute(
                "DELETE FROM order_content WHERE (turn, phase) IN (SELECT turn, phase FROM phases WHERE seq = ?)",
                (seq,),
            )

    def keep_order_content(self, sha256: str, turn: int, phase: str, orders_json: str) -> None:
        """Keep an accepted file's orders as read at acceptance (ORDER_CONTENT_SCHEMA)."""
        if not self._has_table("order_content"):
            self.db.execute(ORDER_CONTENT_SCHEMA)  # one statement, inside the caller's transaction
        self.db.execute(
            "INSERT OR IGNORE INTO order_content (sha256, turn, phase, orders) VALUES (?, ?, ?, ?)",
            (sha256, turn, phase, orders_json),
        )

    def order_content(self, sha256: str) -> str | None:
        """Return the orders kept for an accepted file (JSON text), or None when none are kept."""
        if not self._has_table("order_content"):
            return None
        row = self.db.execute("SELECT orders FROM order_content WHERE sha256 = ?", (sha256,)).fetchone()
        return row["orders"] if row else None

    def set_state_before(self, seq: int, state_before: str) -> None:
        """Point an open phase at another state (one the referee's overrides made)."""
        self.db.execute("UPDATE phases SET state_before = ? WHERE seq = ?", (state_before, seq))

    def generation(self) -> int:
        """Return how many times the game was rolled back (0: never)."""
        return int(self.get_meta("generation") or 0)

    def supersede(self, from_seq: int, generation: int) -> list[OpenPhase]:
        """Move the phases from `from_seq` on out of the game's line, on record under
        `generation` (the rollback that superseded them); return them."""
        rows = [_phase(row) for row in self.db.execute("SELECT * FROM phases WHERE seq >= ? ORDER BY seq", (from_seq,))]
        self.db.execute(
            "INSERT INTO superseded_phases SELECT ?, seq, turn, phase, commit_hex, state_before, active, opened_at,"
            " adjudicated_at, state_after, record, generation, forced, defaulted FROM phases WHERE seq >= ?",
            (generation, from_seq),
        )
        self.db.execute("DELETE FROM phases WHERE seq >= ?", (from_seq,))
        return rows

    def superseded_phases(self, turn: int | None = None, phase: str | None = None) -> list[tuple[int, OpenPhase]]:
        """Return (superseded by generation, phase) for the superseded phases (of one phase, if
        given), the latest rollback first."""
        where, args = ("WHERE turn = ? AND phase = ?", (turn, phase)) if turn is not None else ("", ())
        rows = self.db.execute(
            f"SELECT * FROM superseded_phases {where} ORDER BY superseded_by DESC, seq DESC",
            args,
        )
        return [(row["superseded_by"], _phase(row)) for row in rows]

    def revealed(self, turn: int, phase: str, commit: str) -> OpenPhase | None:
        """Return the latest superseded adjudication of this phase under this commitment: its
        seed is public (its record revealed it), so the phase may only be replayed."""
        for _, row in self.superseded_phases(turn, phase):
            if row.commit == commit and row.record is not None:
                return row
        return None

    def standing_orders(self, phase: OpenPhase | int) -> dict[str, AcceptedOrder]:
        """Return, per player, the accepted order with the highest seq in the phase (a phase row or its seq)."""
        row = phase if isinstance(phase, OpenPhase) else self.phase_by_seq(phase)
        if row is None:
            return {}
        # Each player's highest seq alone (SQLite takes the other columns from the row holding the
        # MAX): a player who sends fifty corrections does not make every later mail read fifty rows.
        rows = self.db.execute(
            "SELECT *, MAX(seq) FROM orders WHERE turn = ? AND phase = ? GROUP BY player ORDER BY player",
            (row.turn, row.phase),
        )
        return {r["player"]: _order(r) for r in rows}

    def phase_by_seq(self, seq: int) -> OpenPhase | None:
        """Return the phase with this sequence number in the game's line, or None."""
        row = self.db.execute("SELECT * FROM phases WHERE seq = ?", (seq,)).fetchone()
        return _phase(row) if row else None

    def find_order(self, phase: OpenPhase, player: str, seq: int) -> AcceptedOrder | None:
        """Return the accepted order with this seq, if any."""
        row = self.db.execute(
            "SELECT * FROM orders WHERE turn = ? AND phase = ? AND player = ? AND seq = ?",
            (phase.turn, phase.phase, player, seq),
        ).fetchone()
        return _order(row) if row else None

    def insert_order(
        self, phase: OpenPhase, player: str, seq: int, sha256: str, file: str, by_referee: bool = False
    ) -> None:
        """Record an accepted order file (`by_referee`: entered by the referee for the player)."""
        self.db.execute(
            "INSERT INTO orders (turn, phase, phase_seq, player, seq, sha256, file, accepted_at, by_referee, state)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                phase.turn,
                phase.phase,
                phase.seq,
                player,
                seq,
                sha256,
                file,
                utc_now(),
                int(by_referee),
                phase.state_before,
            ),
        )

    # -- overrides --------------------------------------------------------------------

    def next_override_id(self) -> int:
        """Return the number the next override gets."""
        return int(self.db.execute("SELECT COALESCE(MAX(id), 0) + 1 AS n FROM overrides").fetchone()["n"])

    def insert_override(self, row: OverrideRow) -> None:
        """Store a referee's signed override."""
        self.db.execute(
            "INSERT INTO overrides (id, turn, phase, kind, body, signature, made_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row.id, row.turn, row.phase, row.kind, json.dumps(row.body, sort_keys=True), row.signature, utc_now()),
        )

    def overrides(self, turn: int | None = None, phase: str | None = None) -> list[OverrideRow]:
        """Return the overrides (of one phase, if given) in the order made."""
        where, args = ("WHERE turn = ? AND phase = ?", (turn, phase)) if turn is not None else ("", ())
        rows = self.db.execute(f"SELECT * FROM overrides {where} ORDER BY id", args)
        return [
            OverrideRow(r["id"], r["turn"], r["phase"], r["kind"], json.loads(r["body"]), r["signature"]) for r in rows
        ]

    def times_received(self, sha256: str) -> int:
        """Return how many times a file with this SHA-256 was submitted (accepted, refused or again)."""
        row = self.db.execute(
            f"SELECT COUNT(*) AS n FROM log WHERE {ORDER_KINDS} AND json_extract(data, '$.sha256') = ?",
            (sha256,),
        ).fetchone()
        return int(row["n"])

    def source_seen(self, source: str) -> bool:
        """Return whether a submission from this source (e.g. one incoming mail) was already handled."""
        row = self.db.execute(
            f"SELECT 1 FROM log WHERE {NOT_ADJUDICATED} AND json_extract(data, '$.source') = ? LIMIT 1", (source,)
        ).fetchone()
        return row is not None

    def log_entry(self, kind: str, turn: int, phase: str) -> dict[str, Any] | None:
        """Return the data of the latest log entry of this kind for a phase, or None."""
        row = self.db.execute(
            "SELECT data FROM log WHERE kind = ? AND turn = ? AND phase = ? ORDER BY id DESC LIMIT 1",
            (kind, turn, phase),
        ).fetchone()
        return json.loads(row["data"]) if row else None

    def log_entries(
        self, kinds: tuple[str, ...], since_id: int = 0, turn: int | None = None, phase: str | None = None
    ) -> list[dict[str, Any]]:
        """Return the log entries of these kinds (of one phase, if given), oldest first, each with
        id, at, kind, turn, phase, player, data."""
        marks = ", ".join("?" for _ in kinds)
        if turn is not None:  # one phase's entries: through the log_kind_phase index
            where, args = f"kind IN ({marks}) AND turn = ? AND phase = ?", (*kinds, turn, phase)
        else:
            # `+kind` keeps SQLite off the kind index: the entries after `since_id` (an incremental
            # reader's) are found in the log's order, not among every entry of these kinds.
            where, args = f"+kind IN ({marks})", kinds
        rows = self.db.execute(
            f"SELECT id, at, kind, turn, phase, player, data FROM log WHERE {where} AND id > ? ORDER BY id",
            (*args, since_id),
        )
        return [{**dict(row), "data": json.loads(row["data"])} for row in rows]

    def answered_at(self) -> dict[tuple[int, str, str], str]:
        """Return, per (turn, phase, player), when the player's own latest accepted orders came
        (orders the referee entered for them do not count): one row per answer, not per entry."""
        rows = self.db.execute(
            "SELECT turn, phase, player, at, MAX(id) FROM log WHERE kind = 'order.accepted'"
            " AND COALESCE(json_extract(data, '$.by'), player) = player GROUP BY turn, phase, player"
        )
        return {(row["turn"], row["phase"], row["player"]): row["at"] for row in rows}

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
            (utc_now(), kind, turn, phase, player, stored_json(data)),
        )

    # -- operations -------------------------------------------------------------------

    def _has_operations(self) -> bool:
        return self._has_table("operations")

    def _has_table(self, name: str) -> bool:
        return (
            self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone()
            is not None
        )

    def operation(self, identifier: str) -> OperationRow | None:
        """Return the operation with this id, or None."""
        if not self._has_operations():
            return None
        row = self.db.execute("SELECT * FROM operations WHERE id = ?", (identifier,)).fetchone()
        return _operation(row) if row else None

    def unfinished_operations(self) -> list[OperationRow]:
        """Return the operations started and not finished (a crash interrupted them), oldest first."""
        if not self._has_operations():
            return []
        rows = self.db.execute("SELECT * FROM operations WHERE finished_at IS NULL ORDER BY started_at, id")
        return [_operation(row) for row in rows]

    def start_operation(self, identifier: str, command: str, key: str, rerun: str, plan: dict[str, Any]) -> None:
        """Record that an operation starts, with what it decided (committed before it writes anything)."""
        if not self._has_operations():
            self.db.executescript(OPERATIONS_SCHEMA)
        self.db.execute(
            "INSERT INTO operations (id, command, key, rerun, plan, started_at) VALUES (?, ?, ?, ?, ?, ?)",
            (identifier, command, key, rerun, json.dumps(plan, sort_keys=True), utc_now()),
        )

    def finish_operation(self, identifier: str, summary: str) -> None:
        """Record that an operation finished, and what it did."""
        self.db.execute(
            "UPDATE operations SET finished_at = ?, summary = ? WHERE id = ?", (utc_now(), summary, identifier)
        )


def unmade_error(game_dir: GameDir) -> StateError:
    """Return the refusal to act on a game directory that `referee init` did not finish."""
    unfinished = game_dir.unfinished_operations()
    if unfinished:
        return interrupted_error(game_dir.path, unfinished[0])
    return StateError(
        f"{game_dir.path} is a game directory that was never finished: game.yaml or the game's entry "
        "in the journal is missing",
        hints=(
            "if `referee init` was interrupted, run the same `referee init` again: it finishes the game",
            "otherwise restore the game directory from a backup",
        ),
    )


def interrupted_error(path: Path, row: OperationRow) -> StateError:
    """Return the refusal to act on a game while the operation `row` is unfinished."""
    hints = [f"finish it (it carries on where it stopped, nothing is done twice): {row.rerun}"]
    if row.command == "init":
        hints.append(f"or, if its configuration changed since, remove {path}: no game was played in it yet")
    return StateError(
        f"`referee {row.command}` was interrupted in {path} (operation {row.id}, started {row.started_at}) "
        "and must be finished before anything else changes the game",
        hints=tuple(hints),
    )


def _operation(row: sqlite3.Row) -> OperationRow:
    return OperationRow(
        row["id"],
        row["command"],
        row["key"],
        row["rerun"],
        json.loads(row["plan"]),
        row["started_at"],
        row["finished_at"],
        row["summary"],
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
        row["generation"],
        None if row["forced"] is None else bool(row["forced"]),
        tuple(json.loads(row["defaulted"] or "[]")),
    )


def _order(row: sqlite3.Row) -> AcceptedOrder:
    return AcceptedOrder(row["player"], row["seq"], row["sha256"], row["file"], bool(row["by_referee"]), row["state"])
