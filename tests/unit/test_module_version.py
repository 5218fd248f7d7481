"""A game played with one version of its module is refused by another, with what to do."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from referee.errors import StateError
from referee.game import opened
from referee.game.journal import GameDir
from referee.game.opened import Game
from referee.game.pinning import MODULE_VERSION_META

from conftest import MakeGame


def test_the_version_is_read_from_the_state_once_and_kept(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    Game.open(game.dir)
    assert GameDir(game.dir).get_meta(MODULE_VERSION_META) == Game.open(game.dir).module.version


def test_another_version_of_the_module_is_refused(
    tmp_path: Path, make_game: MakeGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = make_game(tmp_path)
    played_with = Game.open(game.dir).module
    newer = dataclasses.replace(played_with, version=played_with.version + "-next")
    monkeypatch.setattr(opened, "find_game", lambda module_id: newer)
    with pytest.raises(StateError) as refused:
        Game.open(game.dir)
    message = str(refused.value)
    assert f"version {played_with.version};" in message
    assert f"version {newer.version}, which adjudicates differently" in message
    assert any("release it was begun with" in hint for hint in refused.value.hints)


def test_a_game_begun_before_the_meta_reads_its_state(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    journal = GameDir(game.dir)
    journal.db.execute("DELETE FROM meta WHERE key = ?", (MODULE_VERSION_META,))
    journal.db.commit()
    Game.open(game.dir)
    assert GameDir(game.dir).get_meta(MODULE_VERSION_META) is not None
