"""The exceptions a user can meet. Each says what went wrong and, in hints, what to do.

`RefereeError` and the protocol's own errors are defined in `referee.protocol.errors` (so the
protocol needs nothing outside itself) and re-exported here; the rest belong to the referee's
side. Every layer above the protocol imports its errors from this module.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

from referee.protocol.display import printable
from referee.protocol.errors import KeyFileError, OrderRefusedError, RefereeError, SignatureError, VerificationError

__all__ = [
    "AlreadyDone",
    "ConfigError",
    "GameDataError",
    "KeyFileError",
    "LockedError",
    "NoGameError",
    "OrderRefusedError",
    "RefereeError",
    "SignatureError",
    "StateError",
    "SystemRefusedError",
    "VerificationError",
    "no_game_error",
    "error_lines",
    "system_error",
]


class GameDataError(RefereeError):
    """A game's YAML data or a referee-supplied table is malformed or missing."""


class ConfigError(RefereeError):
    """A game configuration file is malformed."""


class StateError(RefereeError):
    """The game is not in a state where the command can act (wrong phase, game over...)."""


class NoGameError(StateError):
    """GAMEDIR holds no game: a wrong path, or a game not made yet. Every command that takes a
    GAMEDIR says so in the same words and exits 2, like any other mistake on the command line."""

    exit_code = 2


def no_game_error(path: Path, lacking: str, hints: tuple[str, ...]) -> NoGameError:
    """Return the one refusal of a GAMEDIR with no game in it: `lacking` names what a game has there."""
    if not path.exists():
        why = "there is no such directory"
    elif not path.is_dir():
        why = "it is a file, not a directory"
    else:
        why = f"it has no {lacking}"
    return NoGameError(f"no game in {path}: {why}", hints=hints)


class LockedError(RefereeError):
    """Another referee process is working on the same game."""


class AlreadyDone(RefereeError):
    """An operator's command was run again after it had finished: nothing is done twice. Not a
    failure (exit 0): the message says when it was done and what it did."""

    exit_code = 0


class SystemRefusedError(RefereeError):
    """The operating system or SQLite refused: a read-only or full disk, a permission, a damaged file."""


def system_error(error: OSError | sqlite3.Error) -> RefereeError:
    """Return an OS or SQLite error as one line a referee can act on, with a hint.

    Every write is atomic or in a transaction, so after any of these the command can simply be
    run again once the cause is fixed; the hints say so.
    """
    again = "then run the command again: what it left half done is finished, nothing is done twice"
    if isinstance(error, sqlite3.Error):
        text = str(error)
        if "full" in text:
            return SystemRefusedError(
                f"the disk is full (SQLite: {text})", hints=(f"free some space ({_df}); {again}",)
            )
        if "readonly" in text or "read-only" in text:
            return SystemRefusedError(
                f"the journal cannot be written (SQLite: {text})",
                hints=(f"make the game directory writable again (is the disk mounted read-only?); {again}",),
            )
        if "unable to open" in text:
            return SystemRefusedError(
                f"the journal cannot be opened (SQLite: {text})",
                hints=(f"check that the game directory and journal.sqlite belong to you and are writable; {again}",),
            )
        if "disk I/O" in text:
            return SystemRefusedError(
                f"the journal could not be written (SQLite: {text})",
                hints=(f"is the disk full, read-only or failing? {_df}; {again}",),
            )
        if "locked" in text or "busy" in text:
            return SystemRefusedError(f"the journal is busy (SQLite: {text})", hints=("wait a moment and try again",))
        return SystemRefusedError(
            f"the journal is damaged (SQLite: {text})",
            hints=("restore journal.sqlite (with its -wal and -shm files) from a backup of the game directory",),
        )
    where = f"{error.filename}: " if error.filename else ""
    reason = error.strerror or str(error)
    if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return SystemRefusedError(f"{where}{reason}: the disk is full", hints=(f"free some space ({_df}); {again}",))
    if error.errno == errno.EROFS:
        return SystemRefusedError(
            f"{where}the file system is read-only",
            hints=(f"remount it read-write, or move the game directory to a writable disk; {again}",),
        )
    if error.errno in (errno.EACCES, errno.EPERM):
        return SystemRefusedError(
            f"{where}permission denied",
            hints=(f"run the referee as the user who owns the game directory, or fix its permissions; {again}",),
        )
    return SystemRefusedError(f"{where}{reason}", hints=(again,))


_df = "`df -h GAMEDIR` shows how much is left"


def error_lines(error: RefereeError) -> list[str]:
    """Return an error as the command line shows it: `referee: error: ...`, a line per problem,
    a line per hint (player text among them, its control characters spelled out)."""
    lines = [f"referee: error: {printable(error.message)}"]
    lines += [f"referee:   - {printable(str(problem))}" for problem in getattr(error, "problems", [])]
    return lines + [f"referee: hint: {printable(hint)}" for hint in error.hints]
