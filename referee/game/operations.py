"""Operation ids: each operator command that changes a game (`init`, `override`, `rollback`,
`roll-forward`, `reveal`) records its intent in the journal before it writes anything, and marks
it finished at its end.

An operation's id is derived from the command and its arguments (or given with `--operation`).
The intent holds the *plan*: what the command decided before writing (an override's number and
signed body, a rollback's generation, a reveal's file name), so that a re-run after a crash
carries out the same plan, whatever the first run had already changed, instead of deciding
afresh. Every step of a plan can be done again: files are rewritten with the same bytes, letters
keep their Message-IDs (the outbox holds one of each), and journal rows already committed are
found and skipped. So a re-run finishes the interrupted operation exactly once; a re-run after
it finished changes nothing and says what it did; and any other command is refused while one
is unfinished, naming the command line that finishes it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.errors import AlreadyDone, RefereeError, StateError
from referee.game.journal import GameDir, OperationRow, interrupted_error
from referee.protocol.canonical import canonical_json, sha256_hex

EXPLICIT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


@dataclass(frozen=True)
class Intent:
    """An operator command about to run: its operation id, its key and how to run it again."""

    id: str
    command: str
    key: str
    rerun: str

    @classmethod
    def of(cls, command: str, arguments: dict[str, Any], rerun: Sequence[str], explicit: str | None = None) -> Intent:
        """Return the intent of `referee COMMAND` with these `arguments` (what decides what it does).

        `rerun` is the command line after `referee COMMAND`; `explicit` an id given with --operation.
        """
        key = sha256_hex(canonical_json({"command": command, "arguments": arguments}))
        line = ["referee", command, *rerun]
        if explicit is not None:
            if not EXPLICIT_ID.fullmatch(explicit):
                raise RefereeError(
                    f"the operation id {explicit!r} is not a name",
                    hints=("use letters, digits, '.', '_' and '-' (up to 64), starting with a letter or digit",),
                )
            line += ["--operation", explicit]
        return cls(explicit or f"{command}-{key[:12]}", command, key, shlex.join(line))


def begin(game_dir: GameDir, intent: Intent) -> OperationRow | None:
    """Return the unfinished operation to carry on, or None when the intent is new.

    Raises AlreadyDone when it finished before, and StateError when another operation is
    unfinished or the explicit id was used for another command. The game's lock is held.
    """
    row = game_dir.operation(intent.id) if game_dir.exists() else None
    if row is not None and row.key != intent.key:
        raise StateError(
            f"operation {intent.id} was another command: {row.rerun}",
            hints=("give this one another id with --operation, or leave --operation out",),
        )
    if row is not None and row.finished_at is not None:
        raise AlreadyDone(already_done_text(row))
    others = [
        other for other in (game_dir.unfinished_operations() if game_dir.exists() else []) if other.id != intent.id
    ]
    if others:
        raise interrupted_error(game_dir.path, others[0])
    return row


def start(game_dir: GameDir, intent: Intent, plan: dict[str, Any]) -> None:
    """Record the intent and its plan (committed at once: before the command writes anything)."""
    game_dir.start_operation(intent.id, intent.command, intent.key, intent.rerun, plan)


def finish(game_dir: GameDir, intent: Intent, summary: str) -> None:
    """Record that the operation finished, and what it did (as the command printed it)."""
    game_dir.finish_operation(intent.id, summary)


def already_done_text(row: OperationRow) -> str:
    """Return what a re-run of a finished operation prints."""
    summary = (row.summary or "").rstrip("\n")
    return (
        f"already done: operation {row.id} (`{row.rerun}`) finished at {row.finished_at}; nothing was done again.\n"
        f"it did:\n{summary}\n"
        "to do it once more on purpose, give it a new id: --operation NAME"
    )
