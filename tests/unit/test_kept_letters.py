"""Letters kept in packs (issue 23, item 7: bounded disk a round): a game begun since keeps the
letters written together in one zip per folder; a game begun before keeps a file each, and both
are read, audited and sent again the same way (`referee.letters.kept`).

A real moderator game is played through the engine; the files a round adds are counted.
"""

from __future__ import annotations

import os
import sqlite3
import zipfile
from contextlib import closing
from pathlib import Path

import kept_letters
import pytest

from referee import files
from referee.game.audit import audit
from referee.game.engine import adjudicate
from referee.game.journal import KEPT_ACKS_META, GameDir
from referee.game.preview import preview
from referee.letters.kept import (
    ACKS_PACK_PREFIX,
    gathered,
    keep_packed,
    kept_exists,
    kept_names,
    pack_bytes,
    pack_name,
    read_kept,
)
from referee.letters.post import read_kept_html
from referee.mail.commands import _latest_report
from referee.mail.directory import Seat

from conftest import MakeGame, TestGame

ROLL = "rolls:\n  - {label: attack, dice: 2d6, purpose: the attack}\n"


def play_round(game: TestGame, turn: int) -> None:
    for player in game.players:
        assert game.submit(player, turn, ROLL).accepted
    adjudicate(game.dir, expect=f"{turn}/round")


def files_under(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def test_a_new_game_keeps_a_round_of_letters_in_a_few_packs(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    assert GameDir(game.dir).letters_packed
    play_round(game, 1)
    before = files_under(game.dir / "mail")
    play_round(game, 2)
    added = files_under(game.dir / "mail") - before
    # 3 acknowledgements (one pack for the folder, each new one taking in the last, the reports'
    # pack taking in theirs), the reports, the next notices: 27 files kept a file each.
    assert sorted(Path(name).name.split("-")[0] for name in added) == ["letters", "letters"], added
    folder = game.dir / "mail" / "0002-t2-round"
    for player in game.players:
        for name in ("report.txt", "report.txt.sig", "report.html", "view-after.yaml", "notice.txt", "view.yaml"):
            assert f"{player}.{name}" in kept_names(folder)
        assert read_kept_html(folder / f"{player}.report.html").startswith("<!DOCTYPE html>")
        assert kept_exists(folder / f"{player}.report.txt") and not kept_exists(folder / f"{player}.nothing.txt")
    with pytest.raises(FileNotFoundError):
        read_kept(folder / "nobody.report.txt")
    report = audit(game.dir)
    assert report.ok and report.letters == 6 * 3 - 3, report.divergence  # every notice of 3 phases, 2 reports


def test_a_game_kept_before_reads_audits_and_goes_on_a_file_each(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    play_round(game, 1)
    kept_letters.as_kept_before(game.dir)
    assert not GameDir(game.dir).letters_packed
    play_round(game, 2)
    mail = game.dir / "mail"
    assert not list(mail.rglob("letters-*.zip"))
    assert (mail / "0002-t2-round" / "alice.report.txt").is_file()
    assert (mail / "0002-t2-round" / "alice.report.html.gz").is_file()
    report = audit(game.dir)
    assert report.ok and report.letters == 6 * 3 - 3, report.divergence


@pytest.mark.parametrize("layout", ["packed", "a file each"])
def test_every_reader_reads_both_layouts(tmp_path: Path, make_game: MakeGame, layout: str) -> None:
    game = make_game(tmp_path)
    if layout != "packed":
        kept_letters.as_kept_before(game.dir)
    play_round(game, 1)
    receipt = game.submit("alice", 2, ROLL)
    assert receipt.letter is not None and "accepted" in read_kept(receipt.letter).decode()
    # `report` by mail sends the player's last report again, as kept.
    last = _latest_report(Seat("test-game", game.dir, "bob", "bob@example.org"))
    assert last == game.dir / "mail" / "0001-t1-round" / "bob.report.txt"
    assert read_kept(last).startswith(b"Test game (test-game): report of turn 1")
    # `referee preview` shows the reports of a scratch copy, read back in either layout.
    for player in ("bob", "carol"):
        assert game.submit(player, 2, ROLL).accepted
    shown = preview(game.dir)
    assert [name for name, _ in shown.reports] == ["alice.report.txt", "bob.report.txt", "carol.report.txt"]
    assert all(text.startswith("Test game (test-game): report of turn 2") for _, text in shown.reports)
    assert audit(game.dir).ok


def test_an_altered_letter_in_a_pack_is_named(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    play_round(game, 1)
    path = game.dir / "mail" / "0001-t1-round" / "bob.report.txt"
    kept_letters.rewrite(path, kept_letters.read_text(path).replace("bob", "robert", 1).encode())
    report = audit(game.dir)
    assert not report.ok and "mail/0001-t1-round/bob.report.txt, line " in str(report.divergence)
    kept_letters.remove(path.with_name("bob.report.txt.sig"))
    kept_letters.rewrite(path, read_kept(path).replace(b"robert", b"bob", 1))
    assert "the signature of mail/0001-t1-round/bob.report.txt: it is missing" in str(audit(game.dir).divergence)


def test_a_pack_is_the_same_bytes_for_the_same_letters(tmp_path: Path) -> None:
    members = {"b.txt": b"second\n" * 40, "a.txt.sig": b"signature\n"}
    assert pack_bytes(members) == pack_bytes(dict(reversed(members.items())))
    assert pack_name(["a", "b"]) == pack_name(["b", "a"]) != pack_name(["a"])
    keep_packed(tmp_path, members)
    (pack,) = tmp_path.iterdir()
    with zipfile.ZipFile(pack) as opened:  # any zip reader opens it
        assert opened.namelist() == ["a.txt.sig", "b.txt"] and opened.testzip() is None
    keep_packed(tmp_path, members)  # kept again after a crash: the same pack, replaced
    assert [p.name for p in tmp_path.iterdir()] == [pack.name]


def test_letters_gathered_land_together_or_not_at_all(tmp_path: Path) -> None:
    with gathered():
        keep_packed(tmp_path / "f", {"a.txt": b"a"})
        keep_packed(tmp_path / "f", {"b.txt": b"b"})
        assert read_kept(tmp_path / "f" / "a.txt") == b"a" and not (tmp_path / "f").exists()
    assert len(os.listdir(tmp_path / "f")) == 1 and kept_names(tmp_path / "f") == ["a.txt", "b.txt"]
    with pytest.raises(RuntimeError), gathered():
        keep_packed(tmp_path / "g", {"c.txt": b"c"})
        raise RuntimeError("a crash before the block ends")
    assert not (tmp_path / "g").exists()
    with files.group_commit():  # a batch of mails: their acknowledgements in one pack a folder
        keep_packed(tmp_path / "h", {"d.txt": b"d"})
        keep_packed(tmp_path / "h", {"e.txt": b"e"})
        assert read_kept(tmp_path / "h" / "d.txt") == b"d" and not (tmp_path / "h").exists()
        assert kept_names(tmp_path / "h") == ["d.txt", "e.txt"]
    assert len(os.listdir(tmp_path / "h")) == 1 and read_kept(tmp_path / "h" / "e.txt") == b"e"
    with pytest.raises(RuntimeError), files.group_commit():
        keep_packed(tmp_path / "i", {"f.txt": b"f"})
        raise RuntimeError("a crash before the batch lands")
    assert not (tmp_path / "i").exists()


def test_a_game_packed_before_acks_packs_keeps_a_pack_an_acknowledgement(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    with closing(sqlite3.connect(game.dir / "journal.sqlite")) as journal, journal:
        journal.execute("DELETE FROM meta WHERE key = ?", (KEPT_ACKS_META,))  # as a game begun before
    assert GameDir(game.dir).letters_packed and not GameDir(game.dir).acks_packed
    play_round(game, 1)
    folder = game.dir / "mail" / "0001-t1-round"
    assert sorted(p.name.split("-")[0] for p in folder.iterdir()) == ["letters"] * 5  # 3 acks, notices, reports
    assert audit(game.dir).ok


def test_acknowledgements_make_one_pack_a_folder_until_the_reports_take_them_in(tmp_path: Path) -> None:
    keep_packed(tmp_path, {"a.ack.txt": b"a"}, ACKS_PACK_PREFIX)
    keep_packed(tmp_path, {"b.ack.txt": b"b"}, ACKS_PACK_PREFIX)
    assert sorted(p.name.split("-")[0] for p in tmp_path.iterdir()) == ["acks"]
    with files.group_commit():  # a batch: the folder's pack made anew once, as the batch lands
        keep_packed(tmp_path, {"d.ack.txt": b"d"}, ACKS_PACK_PREFIX)
        keep_packed(tmp_path, {"e.ack.txt": b"e"}, ACKS_PACK_PREFIX)
        assert len(os.listdir(tmp_path)) == 1 and read_kept(tmp_path / "a.ack.txt") == b"a"
    assert len(os.listdir(tmp_path)) == 1
    with gathered():  # the phase's reports: their pack takes in the acknowledgements
        keep_packed(tmp_path, {"c.report.txt": b"c"})
        assert sorted(p.name.split("-")[0] for p in tmp_path.iterdir()) == ["acks"]
    assert sorted(p.name.split("-")[0] for p in tmp_path.iterdir()) == ["letters"]
    assert kept_names(tmp_path) == ["a.ack.txt", "b.ack.txt", "c.report.txt", "d.ack.txt", "e.ack.txt"]
