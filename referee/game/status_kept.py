"""`referee status` answered from what the last status printed, while nothing it read has changed.

Even the journal reader (`referee.game.glance`) costs `sqlite3` (it brings `datetime`) and `json`,
about half a bare Python start. So a status
keeps what it printed, both as text and as JSON, in GAMEDIR/.status-kept (marshal: reading it
loads no module), with what it was computed from:

- the stamps (`referee.game.stamps`) of the journal and of its write-ahead log, taken before the
  journal was read: every commit writes one of them (SQLite writes both with write(), never
  through a mapping), so a commit after the reading changes a stamp, and a commit before it is in
  what was read;
- the files of the code that computed it: the referee's modules it loaded and the game module's
  code that answered the needs (a status whose module could not answer is not kept);
- this Python's version.

It is kept only when both journal files had settled before the reading began (`stamps.settled`):
a commit in the same clock tick as the reading could otherwise leave a stamp unchanged. Two
processes writing the journal at once are serialised by SQLite, and each commit moves a stamp.
A crash between a commit and keeping the answer leaves the older answer, whose stamps no longer
match; the answer is written whole (renamed over the old one). A hold, an interrupted operation,
orders received: all are in the journal, so they change a stamp too.
"""

from __future__ import annotations

import marshal
import os
import sys

from referee.game.stamps import REFEREE_CODE, fingerprint, keep_file, loaded_code, settled, stamps

KEPT = ".status-kept"
FORMAT = 1
JOURNAL = "journal.sqlite"  # referee.game.glance.JOURNAL


def journal_stamps(path: str) -> list[list[object]]:
    """Return the stamps of the game's journal and its write-ahead log, taken before reading it."""
    journal = os.path.join(path, JOURNAL)
    return stamps([journal, journal + "-wal"])


def kept_status(path: str, as_json: bool) -> str | None:
    """Return what `referee status` printed last for the game at `path` (text, or `--json`), if
    nothing it was computed from has changed; else None."""
    try:
        with open(os.path.join(path, KEPT), "rb") as handle:
            kept = marshal.loads(handle.read())  # whole: load() reads a file piece by piece
        if kept["format"] != FORMAT or kept["python"] != sys.version or kept["referee"] != REFEREE_CODE:
            return None
        if journal_stamps(path) != kept["journal"] or fingerprint(kept["folders"]) != kept["code"]:
            return None
        shown: str = kept["json" if as_json else "text"]
        return shown
    except (OSError, ValueError, EOFError, TypeError, KeyError, IndexError):
        return None


def keep_status(
    path: str, before: list[list[object]], since_ns: int, code: list[str | None], text: str, as_json: str
) -> bool:
    """Keep a status computed from the journal files stamped `before` at `since_ns` (the wall clock,
    in ns, before the reading), with the game module's code folders `code`; return whether it was
    kept (not when a journal file had not settled, the module could not answer, or the folder
    cannot be written)."""
    if None in code or not settled(before, since_ns):
        return False
    folders = [*loaded_code(), *(folder for folder in code if folder is not None)]
    files = fingerprint(folders)
    if not settled(files, since_ns):  # code edited while it ran: which code answered is not known
        return False
    kept = {
        "format": FORMAT,
        "python": sys.version,
        "referee": REFEREE_CODE,
        "journal": before,
        "folders": folders,
        "code": files,
        "text": text,
        "json": as_json,
    }
    return keep_file(os.path.join(path, KEPT), marshal.dumps(kept))
