"""Order files kept in packs (issue 23, item 7: bounded disk a round): a game begun since keeps a
phase's order files and their signatures in one zip of the phase's folder under orders/; a game
begun before keeps a file each; both are read and audited the same way
(`referee.game.order_files`).

A real moderator game is played through the engine; the files a round adds are counted.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import kept_letters

from referee import files
from referee.game.audit import audit
from referee.game.engine import adjudicate
from referee.game.journal import GameDir
from referee.game.order_files import every_kept_file, keep_order_file, read_order_file, read_order_signature
from referee.protocol.canonical import sha256_hex
from referee.protocol.signatures import NAMESPACE_ORDERS, verify

from conftest import MakeGame, TestGame

ROLL = "rolls:\n  - {label: attack, dice: 2d6, purpose: the attack}\n"
FOLDER = "0001-t1-round"


def standing(game: TestGame) -> dict[str, str]:
    """Return each player's standing order file (STEM/NAME under orders/) in the open phase."""
    journal = GameDir(game.dir)
    try:
        phase = journal.open_phase()
        assert phase is not None
        return {player: order.file for player, order in journal.standing_orders(phase).items()}
    finally:
        journal.close()


def submit_all(game: TestGame, turn: int) -> dict[str, str]:
    for player in game.players:
        assert game.submit(player, turn, ROLL).accepted
    return standing(game)


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_new_game_keeps_a_phase_of_order_files_in_one_pack(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    assert GameDir(game.dir).orders_packed
    kept = submit_all(game, 1)
    folder = game.dir / "orders" / FOLDER
    (pack,) = files_in(folder)  # 3 order files and 3 signatures: one pack, each new one taking in the last
    assert pack.startswith("orders-") and pack.endswith(".zip")
    with zipfile.ZipFile(folder / pack) as opened:  # what `unzip -p` reads
        names = sorted(opened.namelist())
        assert names == sorted([Path(f).name for f in kept.values()] + [Path(f).name + ".sig" for f in kept.values()])
    for player, name in kept.items():
        raw = read_order_file(GameDir(game.dir), name)
        assert name.endswith(f"-{sha256_hex(raw)[:12]}.yaml")
        assert verify(raw, read_order_signature(GameDir(game.dir), name), NAMESPACE_ORDERS).fingerprint
        assert f"player: {player}" in raw.decode()
    adjudicate(game.dir, expect="1/round")
    submit_all(game, 2)
    adjudicate(game.dir, expect="2/round")
    assert len(files_in(game.dir / "orders" / "0002-t2-round")) == 1
    report = audit(game.dir)
    assert report.ok and report.orders == 6, report.divergence


def test_a_game_kept_before_reads_audits_and_goes_on_a_file_each(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    submit_all(game, 1)
    kept_letters.orders_as_kept_before(game.dir)
    assert not GameDir(game.dir).orders_packed
    adjudicate(game.dir, expect="1/round")
    kept = submit_all(game, 2)
    adjudicate(game.dir, expect="2/round")
    for folder in ("0001-t1-round", "0002-t2-round"):
        assert len(files_in(game.dir / "orders" / folder)) == 6  # a file and its .sig, each
    assert all((game.dir / "orders" / name).is_file() for name in kept.values())
    report = audit(game.dir)
    assert report.ok and report.orders == 6, report.divergence


def test_a_crash_before_the_old_pack_is_removed_leaves_the_same_orders(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    assert game.submit("alice", 1, ROLL).accepted
    folder = game.dir / "orders" / FOLDER
    (first,) = files_in(folder)
    saved = tmp_path / first
    shutil.copy(folder / first, saved)
    assert game.submit("bob", 1, ROLL).accepted
    shutil.copy(saved, folder / first)  # as if the process died between the new pack and the removal
    assert len(files_in(folder)) == 2
    kept = standing(game)
    assert {name: read_order_file(GameDir(game.dir), name) for name in kept.values()}
    assert game.submit("carol", 1, ROLL).accepted  # the next pack takes in both
    assert len(files_in(folder)) == 1
    adjudicate(game.dir, expect="1/round")
    assert audit(game.dir).ok


def test_inside_a_group_the_old_pack_stays_until_the_new_one_landed(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    assert game.submit("alice", 1, ROLL).accepted
    folder = game.dir / "orders" / FOLDER
    old = files_in(folder)
    journal = GameDir(game.dir)
    name = f"{FOLDER}/bob-seq1-000000000000.yaml"
    with files.group_commit():
        keep_order_file(journal, name, b"orders of bob\n", b"signature\n")
        keep_order_file(journal, f"{FOLDER}/carol-seq1-000000000000.yaml", b"orders of carol\n", b"sig\n")
        assert files_in(folder) == old  # nothing lands, nothing is removed, before the group ends
        assert read_order_file(journal, name) == b"orders of bob\n"  # read from what the group holds
    (pack,) = files_in(folder)
    assert pack not in old
    assert read_order_signature(journal, name) == b"signature\n"
    kept = dict(every_kept_file(journal))
    assert kept[name] == b"orders of bob\n" and len(kept) == 6
