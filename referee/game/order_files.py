"""The order files a game keeps under GAMEDIR/orders/: a file each with its `.sig`, or packed.

A game begun before keeps each accepted order file as `orders/STEM/P-seqN-SHA12.yaml` (the
bytes the player signed) and its signature beside it as `P-seqN-SHA12.yaml.sig`. A game begun
since (`GameDir.orders_packed`: the journal's meta key `kept_orders` is `packed`) keeps a
phase's order files and their signatures as members of one zip in the same folder,
`orders/STEM/orders-DIGEST.zip`, under the same names: 4 players' orders took 8 files, each a
4 KiB block on disk whatever its length, and take one. Each order file accepted makes the
folder's pack anew, holding the pack before it (or, in a batch of mails, the batch's), and the
old pack is removed once the new one is durable (`referee.files.atomic_write`'s `replaced`): a
crash between leaves two packs with the same members, which read the same. The zip is the one
of the packs of letters (`referee.letters.kept`): `unzip -p orders-*.zip alice-seq1-....yaml`.

The referee's corrections (`orders/corrections/...`, `referee override`) stay a file each.
Readers name an order file by its path under orders/, as the journal and `referee audit` do.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from referee.files import atomic_write
from referee.game.journal import GameDir
from referee.letters.kept import ORDERS_PACK_PREFIX, is_pack, keep_packed, kept_names, read_kept

SIGNATURE_SUFFIX = ".sig"


def keep_order_file(game_dir: GameDir, name: str, raw: bytes, signature: bytes) -> None:
    """Keep the order file `name` (STEM/FILE under orders/) and its signature, durably (inside a
    group commit, when the group lands)."""
    path = game_dir.orders / name
    if game_dir.orders_packed:
        members = {path.name: raw, path.name + SIGNATURE_SUFFIX: signature}
        keep_packed(path.parent, members, ORDERS_PACK_PREFIX)
        return
    atomic_write(path, raw)
    atomic_write(path.with_name(path.name + SIGNATURE_SUFFIX), signature)


def read_order_file(game_dir: GameDir, name: str) -> bytes:
    """Return the bytes of the order file `name` (STEM/FILE under orders/), kept as a file or
    in its folder's pack; FileNotFoundError if neither."""
    return read_kept(game_dir.orders / name)


def read_order_signature(game_dir: GameDir, name: str) -> bytes:
    """Return the signature of the order file `name`, kept as a file or in its folder's pack."""
    return read_kept(game_dir.orders / (name + SIGNATURE_SUFFIX))


def every_kept_file(game_dir: GameDir) -> Iterator[tuple[str, bytes]]:
    """Yield every file kept under orders/ (order files, their signatures, corrections) as its
    path under orders/ and its bytes, files and packs' members alike, sorted by path."""
    if not game_dir.orders.is_dir():
        return
    for folder, _dirs, _files in sorted(os.walk(game_dir.orders)):
        for name in kept_names(Path(folder)):
            path = Path(folder) / name
            yield path.relative_to(game_dir.orders).as_posix(), read_kept(path)


def packs_in(folder: Path) -> list[str]:
    """Return the names of the packs of order files in `folder` (none in a game begun before)."""
    try:
        return sorted(name for name in os.listdir(folder) if is_pack(name))
    except FileNotFoundError:
        return []
