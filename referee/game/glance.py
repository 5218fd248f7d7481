"""`referee status` read with `sqlite3`, `json` and `os` alone, for a fast start (issue 23).

A status is the command a referee types most, so it must start about as fast as Python does:
this module imports no dataclass, `pathlib` nor `typing` (each costs about a bare start of its
own), and no game module. `glance` reads a journal that is already as the referee keeps it
(current schema version, write-ahead log, the log's indexes, a game in it) and returns None for
anything else, which `GameDir` then opens, mends or refuses in its own words (`referee.game.status`).
`status_of` is the one status, read from either connection.

The needs a status lists (`missing_now`, `missing_later`) come from the game module's answer
for the open phase's state, which only importing the module gives (the kit and the game: about
five bare starts). That answer is kept in GAMEDIR/.status-needs.json with what it was computed
from: the game, the state's hash, and the size, modification and change times of every file of
the game's package and of the kit. Any difference is a miss, answered by the module and kept
again; a hold is read from the journal every time. Writing the file is best effort: a game
directory that cannot be written still shows its status, computed each time.
"""

from __future__ import annotations

import json
import os
import sqlite3

from referee.game.stamps import fingerprint, keep_file

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (its import is this module's cost)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    # The game module's answer for a state (referee.game.supplies.needs_when): the files it
    # depends on, and [[need id, when], ...]; None when the module or the state cannot be read.
    Answer = Callable[[str, str, str], tuple[list[str], list[list[str]]] | None]

JOURNAL = "journal.sqlite"
# The journal version GameDir brings a journal to (len(referee.game.journal.MIGRATIONS)), and
# the log's indexes it adds (LOG_INDEXES) and drops: a journal not yet so is GameDir's to open.
JOURNAL_VERSION = 3
LOG_INDEXES = ("log_kind_phase", "log_sha256_orders", "log_source_entries")
LOG_INDEXES_REPLACED = ("log_source", "log_sha256")  # GameDir drops them
HELD_EVENT = "phase.held"
ALERTED_EVENT = "phase.held.alerted"
NEEDS_CACHE = ".status-needs.json"


def glance(path: str, answer: Answer, code: list[str | None] | None = None) -> dict[str, Any] | None:
    """Return what `referee status` shows of the game at `path` (without --clock), or None when
    its journal is not one this reader takes (missing, damaged, older, busy...). `answer` is
    `referee.game.supplies.needs_when`, called when no kept answer holds. `code`, if given, gets
    the folders of the game module's code the needs were answered by (None when it could not
    answer: `referee.game.status_kept` keeps no status then)."""
    journal = os.path.join(path, JOURNAL)
    try:
        if not os.path.isfile(journal) or os.path.getsize(journal) == 0 or header_problem(journal):
            return None
        db = sqlite3.connect(journal, isolation_level=None)
        try:
            if not _as_kept(db):
                return None
            db.execute("BEGIN")  # one snapshot: a pass writing meanwhile is seen whole or not at all
            info = status_of(db)
            if not info["over"]:
                info.update(needs_of(path, db, info, answer, code if code is not None else []))
            return info
        finally:
            db.close()
    except (OSError, sqlite3.Error, ValueError):  # ValueError: JSON that does not decode
        return None


def header_problem(journal: str) -> str | None:
    """Return why a journal file is shorter than its own header says (cut by a copy or a full
    disk), or None. With a non-empty write-ahead log beside it the file may be short for a while
    (a checkpoint cut off by a full disk): SQLite completes it from the log, so it is not judged."""
    wal = journal + "-wal"
    if os.path.exists(wal) and os.path.getsize(wal) > 0:
        return None
    with open(journal, "rb") as handle:
        header = handle.read(100)
    if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
        return "it is not an SQLite database"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    size = os.path.getsize(journal)
    # The page count is valid only when the file's change counter matches (SQLite >= 3.7).
    if header[24:28] == header[92:96] and pages and size < pages * page_size:
        return f"it is {size} bytes long, but its header says {pages * page_size}"
    return None


def _as_kept(db: sqlite3.Connection) -> bool:
    """Return whether the journal is as GameDir leaves it, so that reading it changes nothing."""
    if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        return False
    if db.execute("PRAGMA user_version").fetchone()[0] != JOURNAL_VERSION:
        return False
    rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'log'")
    names = {row[0] for row in rows}
    if not set(LOG_INDEXES) <= names or names & set(LOG_INDEXES_REPLACED):
        return False
    return db.execute("SELECT 1 FROM meta WHERE key = 'game'").fetchone() is not None


def status_of(db: sqlite3.Connection) -> dict[str, Any]:
    """Return the game's status from its journal: game, turn, phase, who is awaited, the commitment."""
    result: dict[str, Any] = json.loads(_meta(db, "game") or "{}")
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'operations'").fetchone():
        rows = db.execute(
            "SELECT id, command, rerun FROM operations WHERE finished_at IS NULL ORDER BY started_at, id"
        ).fetchall()
        if rows:
            result["interrupted"] = [{"operation": r[0], "command": r[1], "finish": r[2]} for r in rows]
    result["adjudicated"] = db.execute("SELECT COUNT(*) FROM phases WHERE adjudicated_at IS NOT NULL").fetchone()[0]
    unreachable = json.loads(_meta(db, "unreachable") or "{}")  # referee.game.unreachable's meta value
    if unreachable and isinstance(unreachable, dict):  # only when there is one: the usual status stays as it was
        result["unreachable"] = unreachable
    phase = db.execute(
        "SELECT turn, phase, opened_at, active, commit_hex FROM phases WHERE adjudicated_at IS NULL"
        " ORDER BY seq DESC LIMIT 1"
    ).fetchone()
    if phase is None:
        return {
            **result,
            "over": True,
            "turn": None,
            "phase": None,
            "active": [],
            "awaited": [],
            "received": [],
            "commit": None,
        }
    turn, name, opened_at, active, commit = phase
    active = json.loads(active)
    standing = {
        row[0]
        for row in db.execute("SELECT player FROM orders WHERE turn = ? AND phase = ? GROUP BY player", (turn, name))
    }
    promised = db.execute("SELECT round, orders_close FROM beacon_rounds WHERE commit_hex = ?", (commit,)).fetchone()
    beacon = {"beacon_round": promised[0], "orders_close": promised[1]} if promised else {}
    return {
        **result,
        "over": False,
        "turn": turn,
        "phase": name,
        "opened_at": opened_at,
        "active": list(active),
        "awaited": [p for p in active if p not in standing],
        "received": sorted(standing),
        "commit": commit,
        **beacon,
    }


def status_text(info: dict[str, Any]) -> str:
    """Return the status as lines for a terminal."""
    lines = [
        f"game      {info['game']} ({info['module']}): {info['title']}",
        f"players   {', '.join(info['players'])}",
        f"phases    {info['adjudicated']} adjudicated",
    ]
    for player, why in sorted(info.get("unreachable", {}).items()):
        lines.append(f"unreachable {player} since {why['since'][:16]}: {why['reason']} (mail from them clears it)")
    lines += [
        f"INTERRUPTED `referee {o['command']}` (operation {o['operation']}): finish it with: {o['finish']}"
        for o in info.get("interrupted", [])
    ]
    if info["over"]:
        return "\n".join(lines + ["state     the game is over"]) + "\n"
    lines += [
        f"open      turn {info['turn']} '{info['phase']}' since {info['opened_at']}",
        f"commit    {info['commit']}",
        *(
            [f"beacon    round {info['beacon_round']}, the first after orders close at {info['orders_close']}"]
            if "beacon_round" in info
            else []
        ),
        f"received  {', '.join(info['received']) or 'nothing yet'}",
        f"awaited   {', '.join(info['awaited']) or 'nobody: ready to adjudicate'}",
    ]
    # What the referee supplies (referee.game.supplies.status_needs), when there is any.
    if "held" in info:
        lines.append(f"HELD      waits on the referee for: {', '.join(info['held']['needs'])} (`referee missing`)")
    if info.get("missing_now"):
        lines.append(f"supply    now: {', '.join(info['missing_now'])} (`referee missing GAMEDIR`)")
    if info.get("missing_later"):
        lines.append(f"supply    later: {', '.join(info['missing_later'])}")
    return "\n".join(lines) + "\n"


def _meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def held_of(db: sqlite3.Connection, turn: int, phase: str, generation: int, state: str) -> dict[str, Any] | None:
    """Return the hold of the phase (turn, phase) opened in `generation` from `state`, if it waits
    on its referee: the latest hold from that very state (a supply changes the state, ending the
    hold), with `alerted`: whether `referee run` has mailed the referee about it."""
    found = None
    rows = db.execute(
        "SELECT kind, at, data FROM log WHERE kind IN (?, ?) AND turn = ? AND phase = ? ORDER BY id",
        (HELD_EVENT, ALERTED_EVENT, turn, phase),
    )
    for kind, at, text in rows:
        data = json.loads(text)
        if data["generation"] != generation or data["state"] != state:
            continue
        if kind == HELD_EVENT:
            found = {"needs": data["needs"], "why": data["why"], "since": at, "alerted": False}
        elif found is not None:
            found["alerted"] = True
    return found


# -- the needs a status lists -----------------------------------------------------------------


def needs_of(
    path: str, db: sqlite3.Connection, info: dict[str, Any], answer: Answer, code: list[str | None] | None = None
) -> dict[str, Any]:
    """Return what `referee status` shows of the open phase's needs: the ids missing now and
    later, and a hold (keys left out when empty; none when the game module cannot be found).
    `code` gets the folders of the code that answered (None when it could not)."""
    code = code if code is not None else []
    turn, phase, generation, state = db.execute(
        "SELECT turn, phase, generation, state_before FROM phases WHERE adjudicated_at IS NULL"
        " ORDER BY seq DESC LIMIT 1"
    ).fetchone()
    module = info.get("module")
    if not isinstance(module, str):  # what is wrong, `referee missing` says
        return {}
    kept = _kept_needs(path, module, state)
    if kept is None:
        answered = answer(path, module, state)
        if answered is None:  # what is wrong, `referee missing` says
            code.append(None)
            return {}
        folders, when = answered
        _keep_needs(path, {"module": module, "state": state, "folders": folders, "needs": when})
    else:
        folders, when = kept
    code += folders
    hold = held_of(db, turn, phase, generation, state)
    if hold is not None:  # a need found missing by a step, not foreseen, is wanted now
        when = [[need, "now" if need in hold["needs"] else said] for need, said in when]
    result = {
        "missing_now": [need for need, said in when if said == "now"],
        "missing_later": [need for need, said in when if said == "later"],
        "held": hold,
    }
    return {key: value for key, value in result.items() if value}


def _kept_needs(path: str, module: str, state: str) -> tuple[list[str], list[list[str]]] | None:
    """Return the kept answer of the game module for `state` with the folders of its code, if it still holds."""
    try:
        with open(os.path.join(path, NEEDS_CACHE), encoding="utf-8") as handle:
            kept = json.load(handle)
        if kept["module"] != module or kept["state"] != state or kept["files"] != fingerprint(kept["folders"]):
            return None
        return kept["folders"], kept["needs"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _keep_needs(path: str, kept: dict[str, Any]) -> None:
    """Keep the game module's answer beside the journal, if the directory can be written."""
    keep_file(os.path.join(path, NEEDS_CACHE), json.dumps({**kept, "files": fingerprint(kept["folders"])}).encode())
