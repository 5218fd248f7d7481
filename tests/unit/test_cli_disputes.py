"""The dispute commands (`override`, `rollback`, `roll-forward`, `audit`) through click: each
parses its options, calls one library function and says what it did."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import kept_letters
import pytest
from click.testing import CliRunner
from played import copy_game, new_game

from referee.cli import cli
from referee.errors import RefereeError
from referee.game.engine import adjudicate

if TYPE_CHECKING:
    from conftest import TestGame

ROLLS = "rolls:\n  - {label: attack, dice: 2d6, purpose: the attack}\n"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> TestGame:
    game = new_game(tmp_path_factory.mktemp("played"), players=("alice", "bob"))
    for turn in (1, 2):
        for player in game.players:
            assert game.submit(player, turn, ROLLS).accepted
        adjudicate(game.dir)
    return game


@pytest.fixture
def game(played: TestGame, tmp_path: Path) -> TestGame:
    return copy_game(played, tmp_path / "game")


def run(*args: str | Path) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_override_rollback_and_roll_forward(game: TestGame, tmp_path: Path) -> None:
    out = run("override", game.dir, "reroll", "roll/bob/attack", "--phase", "1/round", "--reason", "cocked die")
    assert out.splitlines() == [
        "override #1 (reroll) of turn 1/round, signed: the roll roll/bob/attack was rolled again as "
        "roll/bob/attack/reroll-1; the re-roll counts",
        "reason: cocked die",
        "every player was told (2 letter(s) in mail/changes/)",
        "the game was rolled back to turn 1/round (generation 1)",
        "adjudicated again: turn 1/round (record 0001-t1-round.json)",
        "adjudicated again: turn 2/round (record 0002-t2-round.json)",
        "stopped: turn 3 'round' is open for orders",
    ]
    out = run("rollback", game.dir, "2/round", "--reason", "a question", "--stay")
    assert "rolled back to turn 2/round (generation 2); every player was told" in out
    assert "superseded: 0002-t2-round.json (kept in records/superseded/2/)" in out
    assert "`referee roll-forward` adjudicates it as it was" in out
    assert run("roll-forward", game.dir).splitlines() == [
        "adjudicated again: turn 2/round (record 0002-t2-round.json)",
        "stopped: turn 3 'round' is open for orders",
    ]
    fixed = tmp_path / "fixed.yaml"
    fixed.write_bytes(game.order("alice", 3, "note: hello\n"))
    assert game.submit("alice", 3, ROLLS).accepted
    out = run("override", game.dir, "order", "alice", fixed, "--reason", "misread")
    assert "it applies when the phase is adjudicated" in out
    out = run("override", game.dir, "state", "/notes", "[]", "--reason", "tidy")
    assert "the open phase now starts from the state as changed" in out
    assert run("audit", game.dir).startswith("ok: 3 phase(s) replayed")
    assert "and 3 superseded record(s)" in run("verify", game.dir)


def test_usage_and_refusals(game: TestGame) -> None:
    result = CliRunner().invoke(cli, ["override", str(game.dir), "order", "alice", "--reason", "r"])
    assert result.exit_code == 2 and "order takes PLAYER ORDERFILE" in result.output
    result = CliRunner().invoke(cli, ["override", str(game.dir), "cancel", "1", "--reason", "r"])
    assert result.exit_code == 2
    result = CliRunner().invoke(cli, ["rollback", str(game.dir), "1/round"])
    assert result.exit_code == 2 and "--reason" in result.output
    with pytest.raises(RefereeError, match="cannot read"):
        CliRunner().invoke(
            cli,
            ["override", str(game.dir), "order", "alice", str(game.dir / "nothing.yaml"), "--reason", "r"],
            catch_exceptions=False,
        )


def test_dispute_list_and_resolve(game: TestGame) -> None:
    from referee.game.journal import GameDir

    game_dir = GameDir(game.dir)
    with game_dir.lock(), game_dir.transaction():
        data = {"number": 1, "player": "bob", "label": "roll/alice/attack", "record": "0002-t2-round.json"}
        game_dir.log("dispute.opened", {**data, "reason": "too lucky", "source": "test"}, player="bob")
    game_dir.close()

    assert "#1  open" in run("dispute", "list", game.dir)
    assert "dispute #1 upheld: 2 letter(s)" in run("dispute", "resolve", game.dir, "1", "--upheld", "--note", "fine")
    assert "#1  upheld" in run("dispute", "list", game.dir)
    letter = kept_letters.read_text(game.dir / "mail" / "disputes" / "alice.dispute-1.txt")
    assert "too lucky" in letter and "fine" in letter and "0002-t2-round.json" in letter
    with pytest.raises(RefereeError, match="already resolved"):
        CliRunner().invoke(cli, ["dispute", "resolve", str(game.dir), "1", "--upheld"], catch_exceptions=False)
