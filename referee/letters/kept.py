"""The letters kept under GAMEDIR/mail/: one file each, or packed, and read the same either way.

A game begun before keeps each letter as its own files in the folder it was sent from
(`mail/0003-t2-round/alice.report.txt`, `.txt.sig`, `.html.gz`, its attachments). A game begun
since (`GameDir.letters_packed`) keeps the letters written together (a phase's reports, the
next phase's notices, an acknowledgement) in one zip per folder, `letters-DIGEST.zip`, each
letter's files as members under the names they had (the HTML as `NAME.html`): a round of 4
players wrote 44 small files, each taking a 4 KiB block on disk, where it now writes about 6.

Why a zip: every system reads it (`unzip -p letters-*.zip alice.report.txt`, Python's
`zipfile`), it finds one member without reading the others, and it compresses each member on
its own (the letters' text is what `referee audit` compares byte for byte and is read back
exactly). A pack is written once, whole, through `referee.files.atomic_write` (so inside a
group commit it lands with the group) and never changed; its name is the digest of its members'
names, so that writing the same letters again after a crash replaces it. A tar would take 512
bytes of header and padding for each member (a signature is 306 bytes); a table in the journal
would tie every letter to the journal's transactions, which today commit after the letters land.

Readers name a letter by the path it has in a game kept before (`mail/FOLDER/NAME`): `read_kept`
returns its bytes from the file or from the pack that holds it.

The order files of a game begun since are kept the same way, in packs named `orders-DIGEST.zip`
(`referee.game.order_files`), and so are its acknowledgements, one pack a folder
(`acks-DIGEST.zip`): what is said here of a pack holds for them, but that each new one takes in
the folder's pack of its kind before it, removed once the new one is durable. A pack of letters
takes in its folder's acknowledgements the same way: a phase's reports pack ends the folder
with every letter of the phase but its notices (a round of 4 players keeps 3 packs, not 6).
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from referee.files import Writer, atomic_write, held_in_group, peek_held, pending_writes

PACK_PREFIX = "letters-"
ORDERS_PACK_PREFIX = "orders-"  # the packs of order files (referee.game.order_files), read here the same way
ACKS_PACK_PREFIX = "acks-"  # a folder's acknowledgements, in a game that keeps them in one pack a folder
PACK_PREFIXES = (PACK_PREFIX, ORDERS_PACK_PREFIX, ACKS_PACK_PREFIX)
PACK_SUFFIX = ".zip"
# Members are dated at the start of the zip format's calendar: the same letters make the same pack.
PACK_DATE = (1980, 1, 1, 0, 0, 0)
PACK_LEVEL = 6  # zlib's default: letters are deflated on the adjudication's path, megabytes in a long phase
# A long phase's report (hundreds of KB of rolls) is deflated at level 1: 3-10 times faster than
# at 6, some 30% larger; the short letters of every round keep level 6, where the disk is counted.
LARGE_MEMBER = 64 * 1024
LARGE_MEMBER_LEVEL = 1

_gathering: dict[Path, dict[str, bytes]] | None = None  # folder -> the letters' files held by `gathered`
PackSeen = tuple[str, tuple[float, int, int]]  # a pack's name, time, size and inode
_indexes: dict[Path, tuple[tuple[PackSeen, ...], dict[str, Path]]] = {}  # folder -> (its packs, member -> pack)
INDEXES_KEPT = 64


def is_pack(name: str) -> bool:
    """Return whether a file name under mail/ (or orders/) is a pack of letters (of order files)."""
    return name.endswith(PACK_SUFFIX) and name.startswith(PACK_PREFIXES)


def pack_name(names: Iterator[str] | list[str], prefix: str = PACK_PREFIX) -> str:
    """Return the file name of the pack holding the members `names` (the digest of the names)."""
    digest = hashlib.sha256("\n".join(sorted(names)).encode()).hexdigest()[:16]
    return f"{prefix}{digest}{PACK_SUFFIX}"


def pack_bytes(members: dict[str, bytes]) -> bytes:
    """Return the zip holding `members` (name -> bytes), in name order, each deflated."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as pack:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, PACK_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            level = LARGE_MEMBER_LEVEL if len(members[name]) >= LARGE_MEMBER else PACK_LEVEL
            pack.writestr(info, members[name], compresslevel=level)
    return buffer.getvalue()


GROUP_KEY = "kept-letters"  # what a group commit holds of the letters kept while it is open
# The same, by kind of pack.
GROUP_KEYS = {PACK_PREFIX: GROUP_KEY, ORDERS_PACK_PREFIX: "kept-orders", ACKS_PACK_PREFIX: "kept-acks"}
# Kinds of pack a folder holds one of: each new pack takes in the folder's others of its kind (a
# phase's order files and acknowledgements come one at a time, and would otherwise take a pack,
# so a 4 KiB block, each).
WHOLE_FOLDER = (ORDERS_PACK_PREFIX, ACKS_PACK_PREFIX)


def keep_packed(folder: Path, members: dict[str, bytes], prefix: str = PACK_PREFIX) -> None:
    """Keep one letter's files in `folder`: in the block's pack inside `gathered`; inside a group
    commit (a batch of mails, each with its acknowledgement) in one pack a folder for the group,
    made when it lands; else in a pack of their own, written now. `prefix` names the kind of
    pack (letters, order files); `gathered` holds letters only."""
    if _gathering is not None and prefix == PACK_PREFIX:
        _gathering.setdefault(folder, {}).update(members)
        return
    held = held_in_group(GROUP_KEYS[prefix], functools.partial(_write_packs, prefix=prefix))
    if held is not None:
        held.setdefault(folder, {}).update(members)
        return
    _write_packs({folder: members}, atomic_write, prefix)


def _write_packs(held: dict[Path, dict[str, bytes]], write: Writer, prefix: str = PACK_PREFIX) -> None:
    for folder, own in held.items():
        # The new pack takes in the folder's others of its kind, removed once it is durable; a pack
        # of letters (a phase's reports) takes in the folder's acknowledgements, which come before.
        # It is named by its own members: written again after a crash, it finds itself and keeps
        # what it took in the first time (gone from the folder since), so it is the same bytes.
        target = folder / pack_name(list(own), prefix)
        replaced = _packs(folder, prefix if prefix in WHOLE_FOLDER else ACKS_PACK_PREFIX)
        earlier = [target] if target not in replaced and target.is_file() else []
        members = {**_members(earlier + replaced), **own} if earlier or replaced else own
        write(target, pack_bytes(members), replaced=replaced)


def _packs(folder: Path, prefix: str) -> list[Path]:
    """Return the packs of kind `prefix` in `folder` on disk, oldest first."""
    try:
        with os.scandir(folder) as entries:
            found = [(e.stat().st_mtime, e.name) for e in entries if is_pack(e.name) and e.name.startswith(prefix)]
    except FileNotFoundError:
        return []
    return [folder / name for _, name in sorted(found)]


def _members(packs: list[Path]) -> dict[str, bytes]:
    members: dict[str, bytes] = {}
    for pack in packs:
        with zipfile.ZipFile(pack) as opened:
            members.update({name: opened.read(name) for name in opened.namelist()})
    return members


def _held(folder: Path) -> dict[str, bytes]:
    """Return the files the open group holds for `folder`, in packs of every kind."""
    found: dict[str, bytes] = {}
    for key in GROUP_KEYS.values():
        found.update(peek_held(key).get(folder, {}))
    return found


@contextmanager
def gathered() -> Iterator[None]:
    """Keep the letters posted in the block in one pack per folder, written when it ends (an
    exception drops them, as a group commit drops its writes). Blocks do not nest."""
    global _gathering
    if _gathering is not None:
        yield
        return
    _gathering = {}
    try:
        yield
    except BaseException:
        _gathering = None
        raise
    held, _gathering = _gathering, None
    _write_packs(held, atomic_write)


def read_kept(path: Path) -> bytes:
    """Return the bytes of the letter's file kept as `path` (mail/FOLDER/NAME): the file itself
    in a game kept before, else the member NAME of a pack in FOLDER; FileNotFoundError if neither."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    data = _read_member(path.parent, path.name)
    if data is None:
        raise FileNotFoundError(2, "no letter kept as this file nor in a pack of its folder", str(path))
    return data


def kept_exists(path: Path) -> bool:
    """Return whether a letter's file is kept as `path`, as a file or in a pack of its folder."""
    return path.is_file() or _read_member(path.parent, path.name, peek=True) is not None


def kept_names(folder: Path) -> list[str]:
    """Return the names of the letters' files kept in `folder` (a phase's, `changes`...), as files
    or in packs, sorted; the packs themselves are not named."""
    names: set[str] = set()
    try:
        with os.scandir(folder) as entries:
            names.update(e.name for e in entries if e.is_file() and not is_pack(e.name) and not e.name.startswith("."))
    except FileNotFoundError:
        pass
    names.update(_index(folder))
    names.update(_held(folder))
    if _gathering is not None:
        names.update(_gathering.get(folder, {}))
    return sorted(names)


def kept_time(path: Path) -> float:
    """Return when the letter's file kept as `path` was written: its own time, or its pack's."""
    if path.is_file():
        return path.stat().st_mtime
    pack = _index(path.parent).get(path.name)
    if pack is None:
        raise FileNotFoundError(2, "no letter kept as this file nor in a pack of its folder", str(path))
    return _mtime(pack)


def _read_member(folder: Path, name: str, peek: bool = False) -> bytes | None:
    if _gathering is not None and name in _gathering.get(folder, {}):
        return _gathering[folder][name]
    held = _held(folder)
    if name in held:
        return held[name]
    pack = _index(folder).get(name)
    if pack is None:
        return None
    if peek:
        return b""
    pending = pending_writes(folder).get(pack)
    with zipfile.ZipFile(io.BytesIO(pending) if pending is not None else pack) as opened:
        return opened.read(name)


def _index(folder: Path) -> dict[str, Path]:
    """Return which pack of `folder` holds each member (the newest, should two hold one), the packs
    listed each time and read again only when one was added or replaced."""
    pending = {path: data for path, data in pending_writes(folder).items() if is_pack(path.name)}
    on_disk: dict[str, tuple[float, int, int]] = {}  # name -> (time, size, inode): a pack replaced is read again
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if is_pack(entry.name):
                    found = entry.stat()
                    on_disk[entry.name] = (found.st_mtime, found.st_size, found.st_ino)
    except FileNotFoundError:
        pass
    for path, data in pending.items():
        on_disk[path.name] = (float("inf"), len(data), 0)  # held in a group, not landed yet: the newest
    packs = tuple(sorted(on_disk.items()))
    cached = _indexes.get(folder)
    if cached is not None and cached[0] == packs:
        return cached[1]
    index: dict[str, Path] = {}
    for name in sorted(on_disk, key=lambda n: (on_disk[n][0], n)):
        held = pending.get(folder / name)
        with zipfile.ZipFile(io.BytesIO(held) if held is not None else folder / name) as opened:
            index.update(dict.fromkeys(opened.namelist(), folder / name))
    _indexes.pop(folder, None)
    _indexes[folder] = (packs, index)
    while len(_indexes) > INDEXES_KEPT:
        del _indexes[next(iter(_indexes))]
    return index


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:  # held in a group, not landed yet: the newest
        return float("inf")
