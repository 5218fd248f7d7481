"""Adjudication reads each accepted file's orders as kept at acceptance, not its YAML again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.game import adjudication
from referee.game.engine import adjudicate, orders_as_json
from referee.game.journal import GameDir

from conftest import MakeGame

ROLLS = "rolls:\n  - {label: attack, dice: 2d6, purpose: the attack}\n"


def _record(game_dir: Path) -> bytes:
    return max((game_dir / "records").glob("*.json")).read_bytes()


def test_a_phase_is_adjudicated_from_the_kept_orders(
    tmp_path: Path, make_game: MakeGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = make_game(tmp_path, players=("alice", "bob"))
    for player in game.players:
        assert game.submit(player, 1, ROLLS).accepted
    journal = GameDir(game.dir)
    kept = journal.db.execute("SELECT sha256, orders FROM order_content").fetchall()
    assert len(kept) == 2 and all(
        json.loads(row["orders"]) == {"rolls": [{"label": "attack", "dice": "2d6", "purpose": "the attack"}]}
        for row in kept
    )

    def no_parse(raw: bytes) -> None:
        raise AssertionError("an accepted file's YAML was parsed again at adjudication")

    monkeypatch.setattr(adjudication, "parse_order_file", no_parse)
    adjudicate(game.dir)
    assert GameDir(game.dir).db.execute("SELECT COUNT(*) FROM order_content").fetchone()[0] == 0  # dropped at close


def test_without_kept_orders_the_files_are_read_and_the_record_is_the_same(tmp_path: Path, make_game: MakeGame) -> None:
    records = []
    for kept in (True, False):
        game = make_game(tmp_path / str(kept), players=("alice", "bob"))
        for player in game.players:
            assert game.submit(player, 1, ROLLS).accepted
        if not kept:  # a journal of a release before: no table at all
            journal = GameDir(game.dir)
            journal.db.execute("DROP TABLE order_content")
        adjudicate(game.dir)
        records.append(json.loads(_record(game.dir))["orders"])
    assert records[0] == records[1]


@pytest.mark.parametrize(
    "orders, kept",
    [
        ({"rolls": [{"label": "a", "dice": "1d6"}]}, True),
        ({"moves": {1: "north"}}, False),  # a number as a key: JSON would make it text
        ({"x": 1.5, "y": None, "z": True, "w": "é"}, True),
    ],
)
def test_orders_json_reads_back_equal_or_is_not_kept(orders: object, kept: bool) -> None:
    text = orders_as_json(orders)
    assert (text is not None) == kept
    if text is not None:
        assert json.loads(text) == orders
