"""What a kept answer was computed from, as cheap facts about files: stamps (`os` alone, for a
fast start).

A kept answer (a status's needs, an idle pass's summary) holds the stamps of the files it was
computed from; any difference is a miss. A stamp is a file's inode, size, and modification and
change times in nanoseconds; the change time cannot be set by a copy or an installer. Times are
as coarse as the file system's clock (a few milliseconds, up to 2 s on some): a file written
just before or while an answer is computed could be written again within the same tick with the
same size, and its stamp would not change. `settled` tells such a file apart (git's "racy" check):
an answer whose files are not all settled is not kept.
"""

from __future__ import annotations

import os
import stat
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a fast start)
if TYPE_CHECKING:
    from typing import Any

# The referee's package that runs: an answer kept by other code (another install) is not this code's.
REFEREE_CODE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# How long before an answer's computation began its files must have last changed for their stamps
# to be trusted: above any file system's timestamp granularity (FAT: 2 s) and clock lag.
SETTLED_NS = 3_000_000_000


# SQLite's write-ahead logs: SQLite run as root chowns a log at every opening, which moves its
# change time though nothing in it changed; a log is only ever written by SQLite, which never sets
# a time back, so its modification time stands for both.
LOG_SUFFIX = "-wal"


def stamp(path: str) -> list[int] | None:
    """Return the stamp of the file or folder at `path` (inode, size, mtime and ctime in ns), or
    None when there is none."""
    try:
        found = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    changed = found.st_mtime_ns if path.endswith(LOG_SUFFIX) else found.st_ctime_ns
    return [found.st_ino, found.st_size, found.st_mtime_ns, changed]


def stamps(paths: list[str]) -> list[list[Any]]:
    """Return [path, stamp] for each of `paths`."""
    return [[path, stamp(path)] for path in paths]


def settled(found: list[list[Any]], since_ns: int, margin_ns: int = SETTLED_NS) -> bool:
    """Return whether every stamped file (`stamps`, or a `fingerprint`) last changed at least
    `margin_ns` before `since_ns` (the wall-clock time, in ns, when the answer's computation began)."""
    return all(max(_times(entry), default=0) < since_ns - margin_ns for entry in found)


def _times(entry: list[Any]) -> list[int]:
    """The modification and change times of a stamped file (none for a file that is not there)."""
    if len(entry) == 2:  # [path, stamp or None], or a fingerprint's file that is gone
        return list(entry[1][2:]) if entry[1] else []
    return list(entry[2:])  # a fingerprint's [path, size, mtime, ctime]


def fingerprint(folders: list[str]) -> list[list[Any]]:
    """Return each file under `folders` (caches left out), or each of them that is a file, with its
    size, modification and change times: a changed, added or removed file changes it."""
    found: list[list[Any]] = []
    for folder in folders:
        try:
            info = os.stat(folder)
        except (FileNotFoundError, NotADirectoryError):
            found.append([folder, None])
            continue
        if stat.S_ISDIR(info.st_mode):
            _files_under(folder, found)
        else:  # a module of its own (games/__init__.py)
            found.append([folder, info.st_size, info.st_mtime_ns, info.st_ctime_ns])
    return found


def _files_under(folder: str, found: list[list[Any]]) -> None:
    with os.scandir(folder) as listed:
        entries = sorted(listed, key=lambda entry: entry.name)
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__":
                _files_under(entry.path, found)
            continue
        info = entry.stat()
        found.append([entry.path, info.st_size, info.st_mtime_ns, info.st_ctime_ns])


def loaded_code() -> list[str]:
    """Return the files of the referee's modules this process has loaded: the code that computed
    an answer (what it did not load did not run; a change to what it loaded changes its stamp)."""
    found = {getattr(module, "__file__", None) or "" for module in list(sys.modules.values())}
    inside = REFEREE_CODE + os.sep
    return sorted(where for where in found if where.startswith(inside))


def keep_file(target: str, data: bytes) -> bool:
    """Write a kept answer whole (a new file renamed over the old, so a crash leaves one or the
    other), if its folder can be written; return whether it was."""
    scratch = f"{target}.{os.getpid()}.tmp"
    try:
        with open(scratch, "wb") as handle:
            handle.write(data)
        os.replace(scratch, target)
    except OSError:
        try:
            os.unlink(scratch)
        except OSError:
            pass
        return False
    return True
