"""Operation ids (issue 14, item 5): an operator command cut short by a crash is finished by
running it again, exactly once; run again after it finished, it says so; and nothing else
changes the game while one is unfinished."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from played import copy_game, new_game

from referee.errors import AlreadyDone, StateError
from referee.game import rollback as rollback_module
from referee.game.audit import audit
from referee.game.engine import adjudicate, init_game
from referee.game.journal import GameDir
from referee.game.override import make_override
from referee.game.rollback import roll_forward, rollback
from referee.game.status import status, status_text
from referee.protocol.verify import verify_game_dir

if TYPE_CHECKING:
    from conftest import TestGame

CHARGE = "rolls:\n  - {label: charge, table: morale, modifiers: [elite], purpose: the charge}\n"
VOLLEY = "rolls:\n  - {label: volley, dice: 2d6, purpose: the volley}\n"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> TestGame:
    """Three rounds played by alice and bob; round 4 open."""
    game = new_game(tmp_path_factory.mktemp("played"), players=("alice", "bob"))
    for turn in (1, 2, 3):
        assert game.submit("alice", turn, CHARGE).accepted
        assert game.submit("bob", turn, VOLLEY).accepted
        adjudicate(game.dir)
    return game


@pytest.fixture
def game(played: TestGame, tmp_path: Path) -> TestGame:
    return copy_game(played, tmp_path / "game")


def count(game: TestGame, sql: str) -> int:
    with sqlite3.connect(game.dir / "journal.sqlite") as db:
        return int(db.execute(sql).fetchone()[0])


def letters(game: TestGame) -> list[str]:
    return sorted(p.name for p in (game.dir / "outbox").glob("*/*.eml"))


def crash_in_roll_forward(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the next roll forward die as a crash would, after the rollback committed."""

    def crash(*args: object) -> None:
        raise OSError("simulated crash")

    monkeypatch.setattr("referee.game.override.roll_forward_locked", crash)
    monkeypatch.setattr(rollback_module, "roll_forward_locked", crash)


def test_an_override_cut_short_is_finished_once_by_running_it_again(
    game: TestGame, played: TestGame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean = copy_game(played, tmp_path / "clean")
    make_override(clean.dir, "reroll", "roll/alice/charge", [], "it fell off", phase="2/round")
    with monkeypatch.context() as patch:
        crash_in_roll_forward(patch)
        with pytest.raises(OSError, match="simulated crash"):
            make_override(game.dir, "reroll", "roll/alice/charge", [], "it fell off", phase="2/round")
    # Rolled back and the override stored, not yet rolled forward: the game says how to finish.
    assert "INTERRUPTED `referee override`" in status_text(status(game.dir))
    with pytest.raises(StateError, match="interrupted") as caught:
        adjudicate(game.dir)
    assert caught.value.hints[0].endswith(
        f"referee override {game.dir} reroll roll/alice/charge --reason 'it fell off' --phase 2/round"
    )
    with pytest.raises(StateError, match="`referee override` was interrupted"):
        rollback(game.dir, "1/round", "something else")

    result = make_override(game.dir, "reroll", "roll/alice/charge", [], "it fell off", phase="2/round")
    assert result.override.id == 1 and result.override.body["new_label"] == "roll/alice/charge/reroll-1"
    assert count(game, "SELECT COUNT(*) FROM overrides") == 1  # one re-roll, not two
    assert count(game, "SELECT COUNT(*) FROM superseded_phases") == count(
        clean, "SELECT COUNT(*) FROM superseded_phases"
    )
    assert letters(game) == letters(clean)
    for name in ("0002-t2-round.json", "0003-t3-round.json"):
        assert (game.dir / "records" / name).read_bytes() == (clean.dir / "records" / name).read_bytes()
    assert verify_game_dir(game.dir).ok and audit(game.dir).ok


def test_a_finished_operation_run_again_says_what_it_did_and_does_nothing(game: TestGame) -> None:
    make_override(game.dir, "reroll", "roll/alice/charge", [], "it fell off", phase="2/round")
    before = letters(game)
    with pytest.raises(AlreadyDone, match=r"already done: operation override-[0-9a-f]{12}") as caught:
        make_override(game.dir, "reroll", "roll/alice/charge", [], "it fell off", phase="2/round")
    assert "override #1 (reroll) of turn 2/round" in caught.value.message
    assert "--operation NAME" in caught.value.message
    assert count(game, "SELECT COUNT(*) FROM overrides") == 1 and letters(game) == before
    # On purpose, once more: a new operation id.
    make_override(game.dir, "reroll", "roll/alice/charge", [], "it fell off", phase="2/round", operation="again")
    assert count(game, "SELECT COUNT(*) FROM overrides") == 2
    with pytest.raises(StateError, match="operation again was another command"):
        rollback(game.dir, "1/round", "r", operation="again")


def test_a_rollback_cut_short_in_its_roll_forward_is_not_rolled_back_twice(
    game: TestGame, played: TestGame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean = copy_game(played, tmp_path / "clean")
    rollback(clean.dir, "2/round", "a rules question")
    records = {p.name: p.read_bytes() for p in (game.dir / "records").glob("*.json")}
    with monkeypatch.context() as patch:
        crash_in_roll_forward(patch)
        with pytest.raises(OSError, match="simulated crash"):
            rollback(game.dir, "2/round", "a rules question")
    plan, forward = rollback(game.dir, "2/round", "a rules question")
    assert plan.generation == 1 and GameDir(game.dir).generation() == 1  # one rollback, not two
    assert forward is not None and [a.phase.ident for a in forward.adjudications] == ["2/round", "3/round"]
    assert {p.name: p.read_bytes() for p in (game.dir / "records").glob("*.json")} == records
    assert letters(game) == letters(clean)  # every letter once: none lost, none twice
    assert count(game, "SELECT COUNT(*) FROM log WHERE kind = 'game.rollback'") == 1
    with pytest.raises(AlreadyDone, match="rolled back to turn 2/round"):
        rollback(game.dir, "2/round", "a rules question")
    assert verify_game_dir(game.dir).ok and audit(game.dir).ok


def test_nothing_to_roll_back_names_roll_forward(game: TestGame) -> None:
    with pytest.raises(StateError, match="nothing to roll back") as caught:
        rollback(game.dir, "4/round", "r")
    assert any("referee roll-forward" in hint for hint in caught.value.hints)
    rollback(game.dir, "2/round", "a pause", forward=False)
    with pytest.raises(StateError, match="nothing to roll back") as caught:
        rollback(game.dir, "2/round", "again")
    assert caught.value.hints[0] == (
        f"a rollback returned to it and it waits to be adjudicated again: referee roll-forward {game.dir}"
    )
    assert [a.phase.ident for a in roll_forward(game.dir).adjudications] == ["2/round", "3/round"]


def test_init_cut_short_is_finished_by_running_it_again(
    played: TestGame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = played.dir.parent / "setup" / "game.yaml"
    target = tmp_path / "new"
    with monkeypatch.context() as patch:

        def crash(*args: object, **kwargs: object) -> None:
            raise OSError("simulated crash")

        patch.setattr("referee.game.engine.open_phase", crash)
        with pytest.raises(OSError, match="simulated crash"):
            init_game(target, config)
    assert "INTERRUPTED `referee init`" in status_text(status(target))
    with pytest.raises(StateError, match="`referee init` was interrupted") as caught:
        adjudicate(target)
    assert caught.value.hints[0].endswith(f"referee init {target} --config {config}")
    key = (target / "referee.pub").read_bytes()
    info = init_game(target, config)
    assert info["turn"] == 1 and (target / "referee.pub").read_bytes() == key  # the same game, finished
    assert json.loads(GameDir(target).get_meta("game") or "{}")["players"] == ["alice", "bob"]
    with pytest.raises(AlreadyDone, match="turn 1 'round'"):
        init_game(target, config)
    with pytest.raises(StateError, match="already exists and is not empty"):
        init_game(tmp_path / "new" / "mail", config)  # not empty, and no game
