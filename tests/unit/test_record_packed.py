"""Letter format 5: a big record goes to the reports gzip-compressed (NAME.json.gz, its .sig as
before), the reports say how to unpack it, `verify` says to unpack one it finds still packed, and
a phase written before keeps its letters (`audit` re-renders each phase in its own format)."""

from __future__ import annotations

import email
import gzip
import shutil
from email import policy
from pathlib import Path

import pytest

import referee.game.announce
from referee.game.audit import audit
from referee.game.engine import adjudicate
from referee.game.journal import GameDir
from referee.game.letter_format import RECORD_PACKED_META
from referee.protocol.verify import verify_game_dir

from conftest import MakeGame, TestGame

PLAYERS = ("alice", "bob")
ROLLS = "rolls:\n" + "".join(f"  - {{label: r{i}, dice: 2d6, purpose: roll {i}}}\n" for i in range(40))


def reports(game: TestGame, phase_folder: str) -> dict[str, dict[str, bytes]]:
    """Return each report mail's attachments by file name, by player."""
    found: dict[str, dict[str, bytes]] = {}
    for path in sorted((game.dir / "outbox" / "new").glob(f"*{phase_folder}.report.*")):
        message = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        player = path.name.split(".report.")[1].split(".")[0]
        found[player] = {
            part.get_filename(): part.get_payload(decode=True) for part in message.walk() if part.get_filename()
        }
    return found


def play(game: TestGame, turn: int) -> str:
    for player in PLAYERS:
        assert game.submit(player, turn, ROLLS).accepted
    return adjudicate(game.dir).phase.folder


@pytest.fixture
def packed_over_1_kib(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(referee.game.announce, "RECORD_PACKED_OVER", 1024)  # a quick game's record is 9 KiB


def test_a_big_record_is_attached_packed_and_unpacks_to_the_record(
    tmp_path: Path, make_game: MakeGame, packed_over_1_kib: None
) -> None:
    game = make_game(tmp_path, players=PLAYERS)
    folder = play(game, 1)
    record = next((game.dir / "records").glob("*.json"))
    found = reports(game, folder)
    assert sorted(found) == sorted(PLAYERS)  # a report for each player, each read below
    for player, attached in found.items():
        assert record.name not in attached, player
        assert gzip.decompress(attached[record.name + ".gz"]) == record.read_bytes()
        assert attached[record.name + ".sig"] == record.with_name(record.name + ".sig").read_bytes()
        text = next(data for name, data in attached.items() if name.endswith(f"{player}.report.txt")).decode()
        assert f"attached gzip-compressed as {record.name}.gz, with its .sig" in text
        assert f"first unpack the record: gunzip {record.name}.gz" in text
    assert audit(game.dir).ok


def test_verify_asks_for_a_packed_record_to_be_unpacked(
    tmp_path: Path, make_game: MakeGame, packed_over_1_kib: None
) -> None:
    game = make_game(tmp_path, players=PLAYERS)
    folder = play(game, 1)
    # A player's folder: the referee's key, and the record and .sig as the report attached them.
    mine = tmp_path / "mine"
    (mine / "records").mkdir(parents=True)
    shutil.copy(game.dir / "referee.pub", mine / "referee.pub")
    for name, data in reports(game, folder)["bob"].items():
        if ".json" in name:
            (mine / "records" / name).write_bytes(data)
    packed = next((mine / "records").glob("*.json.gz"))
    problems = verify_game_dir(mine).problems
    assert any(f"{packed}: a record still packed, not checked: unpack it (gunzip {packed}" in line for line in problems)
    packed.with_suffix("").write_bytes(gzip.decompress(packed.read_bytes()))
    packed.unlink()
    assert verify_game_dir(mine).ok


def test_a_small_record_is_attached_as_it_is(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path, players=PLAYERS)
    folder = play(game, 1)
    record = next((game.dir / "records").glob("*.json"))
    attached = reports(game, folder)["alice"]
    assert attached[record.name] == record.read_bytes() and record.name + ".gz" not in attached


def test_a_game_begun_before_format_5_keeps_its_letters_then_packs_big_records(
    tmp_path: Path, make_game: MakeGame, packed_over_1_kib: None
) -> None:
    game = make_game(tmp_path, players=PLAYERS)
    game_dir = GameDir(game.dir)
    with game_dir.transaction():  # as a game begun before format 5
        game_dir.db.execute("DELETE FROM meta WHERE key = ?", (RECORD_PACKED_META,))
    game_dir.close()
    first = play(game, 1)
    assert any(name.endswith(".json") for name in reports(game, first)["alice"])
    second = play(game, 2)
    assert any(name.endswith(".json.gz") for name in reports(game, second)["alice"])
    assert audit(game.dir).ok  # each phase re-rendered in its own format
