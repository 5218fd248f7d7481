"""`referee explain`: the step-by-step account of a roll agrees with the dice and the record."""

from __future__ import annotations

import pytest

from referee.errors import RefereeError
from referee.game.engine import adjudicate
from referee.game.explain import explain
from referee.protocol.dice import phase_key, transcript
from referee.protocol.explain import draw_steps

# protocol section 7
SEED = bytes(range(32))
COMMIT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
KEY = phase_key(SEED, transcript("blenheim-1704", 3, "tempo-bid", COMMIT, {"tallard": "a" * 64, "eugene": "b" * 64}))


def test_rejected_draws_are_shown() -> None:
    lines, values = draw_steps(KEY, "bias/check", f"uniform({2**63 + 1})", 2)
    assert values == [6452239896803130661, 1104623587392653090]
    assert any("rejected" in line for line in lines)


def test_shuffle_and_dice_steps() -> None:
    assert draw_steps(KEY, "deck/shuffle", "shuffle(10)", 10)[1] == [8, 1, 7, 9, 3, 6, 0, 4, 2, 5]
    lines, values = draw_steps(KEY, "combat/X-vs-M/attacker", "2d6", 2)
    assert values == [6, 2]
    assert sum("block 0" in line for line in lines) == 1 and "the die shows" in lines[-1]


def test_explain_a_table_roll(make_game, tmp_path) -> None:  # type: ignore[no-untyped-def]
    game = make_game(tmp_path)
    rolls = "rolls:\n  - {label: charge, table: morale, modifiers: [elite], purpose: the charge}\n"
    for player in game.players:
        game.submit(player, 1, rolls if player == "alice" else "note: waiting\n")
    adjudicate(game.dir)
    text = explain(game.dir, "roll/alice/charge")
    assert "matches the commit" in text and "they agree" in text
    assert "| pbem-referee-rolls/1" in text and "| order alice " in text
    assert "table morale (Morale check)" in text and "elite +2" in text and "row " in text


def test_unknown_label(make_game, tmp_path) -> None:  # type: ignore[no-untyped-def]
    game = make_game(tmp_path)
    for player in game.players:
        game.submit(player, 1, "note: nothing\n")
    adjudicate(game.dir)
    with pytest.raises(RefereeError) as caught:
        explain(game.dir, "roll/alice/nothing")
    assert "no roll labelled 'roll/alice/nothing'" in caught.value.message
