"""`referee become`: the referee enters a player's orders from a file with only `orders:` (or
part of the header); a refused entry goes to the referee only (issue 18, item 6)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import kept_letters
import pytest

from referee.game.engine import submit
from referee.game.journal import GameDir
from referee.protocol.orders import parse_order_file

if TYPE_CHECKING:
    from conftest import TestGame

ROLLS = "rolls:\n  - {label: attack, dice: 2d6, purpose: the attack}\n"
ORDERS_ONLY = b"orders:\n  " + ROLLS.replace("\n  ", "\n    ").encode()


@pytest.fixture
def game(make_game: Callable[..., TestGame], tmp_path: Path) -> TestGame:
    return make_game(tmp_path)


def outbox(game: TestGame) -> list[str]:
    return sorted(p.read_text(errors="replace") for p in (game.dir / "outbox" / "new").glob("*"))


def stored_order(game: TestGame, player: str) -> bytes:
    journal = GameDir(game.dir)
    try:
        phase = journal.open_phase()
        assert phase is not None
        return kept_letters.read_bytes(game.dir / "orders" / journal.standing_orders(phase)[player].file)
    finally:
        journal.close()


def test_a_file_with_only_orders_gets_the_open_phase_header(game: TestGame) -> None:
    receipt = submit(game.dir, ORDERS_ONLY, None, become="carol")
    assert receipt.accepted, receipt.problems
    assert receipt.filled == ("game", "turn", "phase", "player")  # seq: 1 when absent
    order = parse_order_file(stored_order(game, "carol"))
    assert (order.game, order.turn, order.phase, order.player, order.seq) == (game.game, 1, "round", "carol", 1)
    assert order.orders == {"rolls": [{"label": "attack", "dice": "2d6", "purpose": "the attack"}]}
    assert receipt.letter is not None and "entered this file on your behalf" in kept_letters.read_text(receipt.letter)


def test_a_partial_header_is_completed_and_seq_follows_the_players_own(game: TestGame) -> None:
    assert game.submit("carol", 1, ROLLS, seq=2).accepted
    receipt = submit(game.dir, b"turn: 1\n" + ORDERS_ONLY, None, become="carol")
    assert receipt.accepted, receipt.problems
    assert receipt.filled == ("game", "phase", "player", "seq") and receipt.seq == 3


def test_the_full_header_still_works(game: TestGame) -> None:
    receipt = submit(game.dir, game.order("carol", 1, ROLLS), None, become="carol")
    assert receipt.accepted and receipt.filled == ()


@pytest.mark.parametrize(
    ("header", "code"),
    [("player: bob\n", "refused.player"), ("phase: battle\n", "refused.not-open"), ("turn: 2\n", "refused.not-open")],
)
def test_a_contradicting_header_is_refused_and_nothing_goes_to_the_player(
    game: TestGame, header: str, code: str
) -> None:
    before = outbox(game)
    receipt = submit(game.dir, header.encode() + ORDERS_ONLY, None, become="carol")
    assert not receipt.accepted and code in [p.code for p in receipt.problems]
    assert receipt.letter is None
    assert outbox(game) == before  # no refusal mailed to the absent player
    assert not list(kept_letters.glob(game.dir / "mail", "0001-t1-round/carol.ack-*"))


def test_a_players_own_refusal_is_still_mailed(game: TestGame) -> None:
    before = outbox(game)
    receipt = game.submit("carol", 2, ROLLS)
    assert not receipt.accepted and receipt.letter is not None
    assert len(outbox(game)) == len(before) + 1
