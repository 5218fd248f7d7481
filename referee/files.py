"""Durable file writes: a file is either wholly there with its new content, or not changed.

Inside `group_commit()` writes are held and landed together when the block ends: every file
written to a temporary name, one sync, every rename and hard link, one sync. A crash before the
end leaves none of them (a temporary file at most); after, all of them. Mail intake lands a
batch of mails' letters so, and an adjudication its record and letters, with two syncs instead
of two or three per file. A module may also gather what it writes while the group is open
(`held_in_group`: the letters kept in a pack a folder) and make its files as the group lands,
with the group's. A file written may take in the content of others (`replaced`: the packs of
order files a new pack holds whole), which are removed only once it is durable.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Container, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

# A file's bytes, or its bytes in pieces written one after the other: a letter of megabytes is
# made of a few large pieces (the record's base64, the same in every player's report), which
# are not copied into one object only to be written.
Content = bytes | list[bytes]


def joined(data: Content) -> bytes:
    """Return a file's bytes, whole."""
    return data if isinstance(data, bytes) else b"".join(data)


class Writer(Protocol):
    """What writes a file durably: `atomic_write`, or the group's as it lands."""

    def __call__(self, path: Path, data: bytes, *, replaced: Sequence[Path] = ()) -> None: ...


@dataclass
class _Group:
    writes: dict[Path, tuple[Content, int, Path | None]] = field(default_factory=dict)  # final -> (data, mode, staged)
    links: dict[Path, tuple[Path, bytes]] = field(default_factory=dict)  # final -> (source, its data)
    # What a module gathers while the group is open, by its key, with what makes its files when the group lands.
    held: dict[str, tuple[dict[Path, dict[str, bytes]], Callable[[dict[Path, dict[str, bytes]], Writer], None]]] = (
        field(default_factory=dict)
    )
    removals: list[Path] = field(default_factory=list)  # files a written one took in, removed once it landed

    def write(self, path: Path, data: Content, *, replaced: Sequence[Path] = (), mode: int = 0o644) -> None:
        self.links.pop(path, None)
        self.writes[path] = (data, mode, None)
        self.removals += [other for other in replaced if other != path]


_group: _Group | None = None


def atomic_write(path: Path, data: Content, mode: int = 0o644, *, replaced: Sequence[Path] = ()) -> None:
    """Write `data` to `path` through a temporary file, fsync, rename, then fsync the folder.
    `replaced`: files whose content `path` now holds, removed once it is durable (inside a group,
    once the group has landed; a crash before leaves both, with the same content)."""
    if _group is not None:
        _group.write(path, data, replaced=replaced, mode=mode)
        return
    _write_temporary(path, path.with_name(f".{path.name}.{os.getpid()}.tmp"), data, mode, sync=True)
    fsync_dir(path.parent)
    _remove(replaced, {path})


def _remove(paths: Sequence[Path], kept: Container[Path]) -> None:
    for path in paths:
        if path not in kept:
            path.unlink(missing_ok=True)


def write_staged(staged: Path, path: Path, data: Content) -> None:
    """Write `data` as `staged`, then rename it to `path` (the maildir way: a reader of `path`'s
    folder sees complete files only, and no temporary ones)."""
    if _group is not None:
        _group.writes[path] = (data, 0o644, staged)
        return
    atomic_write(staged, data)
    os.replace(staged, path)
    fsync_dir(path.parent)


def link_or_write(source: Path, path: Path, data: bytes) -> None:
    """Make `path` a hard link to `source`, a file that holds `data` (durable, or written in the
    open group), so that the disk keeps the bytes once; where the file system has no hard links,
    write them. Inside a group the link is made when the group lands, after its files."""
    if _group is not None:
        _group.writes.pop(path, None)
        _group.links[path] = (source, data)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    _land_link(source, path, data)
    fsync_dir(path.parent)


def pending_write(path: Path) -> bool:
    """Return whether `path` is written in the open group and not yet landed."""
    return _group is not None and (path in _group.writes or path in _group.links)


def pending_data(path: Path) -> bytes | None:
    """Return the bytes the open group will land as `path`, or None (not written in a group)."""
    if _group is None:
        return None
    if path in _group.writes:
        return joined(_group.writes[path][0])
    return _group.links[path][1] if path in _group.links else None


def pending_writes(folder: Path) -> dict[Path, bytes]:
    """Return the files of `folder` written in the open group and not yet landed, with their bytes."""
    if _group is None:
        return {}
    return {path: joined(data) for path, (data, _, _) in _group.writes.items() if path.parent == folder}


def held_in_group(
    key: str, on_landing: Callable[[dict[Path, dict[str, bytes]], Writer], None]
) -> dict[Path, dict[str, bytes]] | None:
    """Return what the open group holds for `key` (a dict, empty at first), or None outside a group.
    When the group lands, `on_landing(held, write)` is called first: the files it writes land
    with the group's. An exception that drops the group drops what it held."""
    if _group is None:
        return None
    if key not in _group.held:
        _group.held[key] = ({}, on_landing)
    return _group.held[key][0]


def peek_held(key: str) -> dict[Path, dict[str, bytes]]:
    """Return what the open group holds for `key`, without making it (empty: nothing, or no group)."""
    return _group.held[key][0] if _group is not None and key in _group.held else {}


@contextmanager
def group_commit() -> Iterator[None]:
    """Hold the block's `atomic_write`s and land them together at its end (see the docstring);
    an exception drops them. Groups do not nest: an inner one joins the outer."""
    global _group
    if _group is not None:
        yield
        return
    _group = _Group()
    try:
        yield
    except BaseException:
        _group = None
        raise
    group, _group = _group, None
    assert group is not None
    land(group)


def land(group: _Group) -> None:
    for held, on_landing in group.held.values():
        on_landing(held, group.write)
    if not group.writes and not group.links:
        return
    staged: list[tuple[Path, Path]] = []
    for path, (_, _, named) in group.writes.items():
        staged.append((named or path.with_name(f".{path.name}.{os.getpid()}.tmp"), path))
    folders = sorted(
        {path.parent for _, path in staged}
        | {temporary.parent for temporary, _ in staged}
        | {p.parent for p in group.links}
    )
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    for (temporary, path), (data, mode, _) in zip(staged, group.writes.values(), strict=True):
        _write_temporary(path, temporary, data, mode, sync=False)
    sync_files([temporary for temporary, _ in staged], folders)  # the contents, before any rename
    for temporary, path in staged:
        os.replace(temporary, path)
    for path, (source, data) in group.links.items():
        _land_link(source, path, data)
    sync_files([], folders)  # the renames and links
    _remove(group.removals, group.writes)


def _land_link(source: Path, path: Path, data: bytes) -> None:
    """Make `path` a hard link to `source`, landed already; without hard links, write `data`."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        if path.exists() and os.path.samefile(source, path):
            return  # a re-run (after a crash) keeping the same letter: linked already
        temporary.unlink(missing_ok=True)
        os.link(source, temporary)
    except OSError:
        _write_temporary(path, temporary, data, 0o644, sync=True)
        return
    os.replace(temporary, path)
    temporary.unlink(missing_ok=True)  # rename(2) does nothing when both names are links to one file


def _write_temporary(path: Path, temporary: Path, data: Content, mode: int, sync: bool) -> None:
    if sync:  # a group made its folders once
        path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        if sync or not isinstance(data, bytes):
            with os.fdopen(fd, "wb") as handle:
                if isinstance(data, bytes):
                    handle.write(data)
                else:
                    handle.writelines(data)  # a large piece goes to the file as it is, not through the buffer
                if sync:
                    handle.flush()
                    os.fsync(handle.fileno())
            if sync:
                os.replace(temporary, path)
        else:  # no buffered file object for a small file written once
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def fsync_dir(folder: Path) -> None:
    """Flush a folder's entries to disk, so a rename inside it survives a crash."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@functools.cache
def _load_syncfs():  # type: ignore[no-untyped-def]
    # Found on first sync, not at import: find_library runs ldconfig in a child process, a cost
    # every command paid at start-up (`referee status` writes nothing).
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        function = libc.syncfs
    except (OSError, AttributeError):  # not Linux: each file and folder is synced by itself
        return None
    function.argtypes = [ctypes.c_int]
    function.restype = ctypes.c_int
    return function


def sync_files(files: list[Path], folders: list[Path]) -> None:
    """Make `files` and the entries of `folders` durable: one syncfs(2) per file system on Linux
    (it flushes everything written to that file system), else an fsync of each."""
    if _load_syncfs() is not None:
        devices: dict[int, Path] = {}
        for folder in folders:
            devices.setdefault(folder.stat().st_dev, folder)
        for folder in devices.values():
            syncfs(folder)
        return
    for file in files:
        fd = os.open(file, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    for folder in folders:
        fsync_dir(folder)


def syncfs(folder: Path) -> None:
    """Flush the whole file system that holds `folder` (Linux's syncfs(2))."""
    function = _load_syncfs()
    assert function is not None
    fd = os.open(folder, os.O_RDONLY)
    try:
        if function(fd) != 0:
            import ctypes  # loaded by _load_syncfs: only to read errno

            error = ctypes.get_errno()
            raise OSError(error, os.strerror(error), str(folder))
    finally:
        os.close(fd)


def flush_group() -> None:
    """Land the open group's writes now and go on grouping (no group: nothing to do)."""
    global _group
    if _group is None:
        return
    group, _group = _group, _Group()
    land(group)
