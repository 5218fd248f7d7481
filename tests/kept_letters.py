"""Tests read and alter a game's kept letters by the path each had as a file of its own
(`mail/FOLDER/NAME`), whether the game keeps it so or in a pack of letters (`referee.letters.kept`);
and its order files the same way (`orders/STEM/NAME`, `referee.game.order_files`)."""

from __future__ import annotations

import fnmatch
import sqlite3
import zipfile
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

from referee.game.journal import KEPT_ACKS_META, KEPT_LETTERS_META, KEPT_ORDERS_META
from referee.letters.kept import is_pack, kept_names, pack_bytes, read_kept
from referee.letters.post import keep_html


def read_text(path: Path) -> str:
    """Return the kept letter's file `path` as text."""
    return read_kept(path).decode("utf-8")


def read_bytes(path: Path) -> bytes:
    """Return the kept letter's file `path` as bytes (a .gz as it was kept, by a game begun before packs)."""
    return read_kept(path)


def exists(path: Path) -> bool:
    """Return whether a letter's file is kept as `path`."""
    return path.name in kept_names(path.parent)


def glob(mail: Path, pattern: str) -> Iterator[Path]:
    """Return the kept letters' files under `mail` whose path relative to it (FOLDER/NAME) matches
    `pattern` (fnmatch: `*` crosses the slash), sorted; a pattern without a slash names folders."""
    folders = sorted(p for p in mail.iterdir() if p.is_dir()) if mail.is_dir() else []
    if "/" not in pattern:
        return iter([folder for folder in folders if fnmatch.fnmatch(folder.name, pattern)])
    found = []
    for folder in folders:
        found += [folder / n for n in kept_names(folder) if fnmatch.fnmatch(f"{folder.name}/{n}", pattern)]
    return iter(found)


def every_letter(mail: Path) -> dict[str, bytes]:
    """Return every kept letter's file under `mail` by FOLDER/NAME, with its bytes."""
    return {f"{p.parent.name}/{p.name}": read_kept(p) for p in glob(mail, "*")}


def rewrite(path: Path, data: bytes) -> None:
    """Replace the kept letter's file `path` with `data`: the file (unlinked first: a copied game
    may share it by a hard link), or its member in the pack that holds it, the pack written anew."""
    if path.is_file():
        path.unlink()
        path.write_bytes(data)
        return
    for pack in sorted(p for p in path.parent.iterdir() if is_pack(p.name)):
        with zipfile.ZipFile(pack) as opened:
            members = {name: opened.read(name) for name in opened.namelist()}
        if path.name in members:
            members[path.name] = data
            pack.unlink()
            pack.write_bytes(pack_bytes(members))
            return
    raise FileNotFoundError(path)


def remove(path: Path) -> None:
    """Remove the kept letter's file `path`, as a file or from its pack."""
    if path.is_file():
        path.unlink()
        return
    for pack in sorted(p for p in path.parent.iterdir() if is_pack(p.name)):
        with zipfile.ZipFile(pack) as opened:
            members = {name: opened.read(name) for name in opened.namelist()}
        if members.pop(path.name, None) is not None:
            pack.unlink()
            if members:
                pack.write_bytes(pack_bytes(members))
            return
    raise FileNotFoundError(path)


def as_kept_before(game_dir: Path) -> None:
    """Turn a game's packs of letters (and of acknowledgements) into a file each (the HTML gzipped),
    as games begun before keep them, and forget that the game packs them: it goes on keeping a file each."""
    for pack in sorted([*game_dir.glob("mail/*/letters-*.zip"), *game_dir.glob("mail/*/acks-*.zip")]):
        with zipfile.ZipFile(pack) as opened:
            for name in opened.namelist():
                data = opened.read(name)
                if name.endswith(".html"):
                    (pack.parent / f"{name}.gz").write_bytes(keep_html(data.decode("utf-8")))
                else:
                    (pack.parent / name).write_bytes(data)
        pack.unlink()
    with closing(sqlite3.connect(game_dir / "journal.sqlite")) as journal, journal:
        journal.execute("DELETE FROM meta WHERE key IN (?, ?)", (KEPT_LETTERS_META, KEPT_ACKS_META))


def orders_as_kept_before(game_dir: Path) -> None:
    """Turn a game's packs of order files into a file each, as games begun before keep them, and
    forget that the game packs them: it goes on keeping a file each."""
    for pack in sorted(game_dir.glob("orders/*/orders-*.zip")):
        with zipfile.ZipFile(pack) as opened:
            for name in opened.namelist():
                (pack.parent / name).write_bytes(opened.read(name))
        pack.unlink()
    with closing(sqlite3.connect(game_dir / "journal.sqlite")) as journal, journal:
        journal.execute("DELETE FROM meta WHERE key = ?", (KEPT_ORDERS_META,))
