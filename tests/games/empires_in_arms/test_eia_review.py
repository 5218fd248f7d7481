"""Cases from a reviewer's reading of chapter 12.0 against the module, and of the letters the
players of the coalition test game receive (regressions named for where they were found)."""

from __future__ import annotations

import pytest
from eia_helpers import SealingDice
from test_eia_combats import corps, game, play

from games.empires_in_arms import battles, rules
from referee.kit import GameDataError


def _morale(**options: str) -> int:
    state = game(
        {"fr-a": corps("france", morale=4.0, infantry=10), "fr-b": corps("france", morale=2.0, infantry=2)},
        **options,  # type: ignore[arg-type]
    )
    return battles.side_morale(state, ["fr-a", "fr-b"], "1809-03")


def test_a_sides_morale_is_its_lowest_units_unless_the_group_weighs_it() -> None:
    # The chapter never says how a force's morale is found (the core rules do): the module's
    # reading is the lowest unit's; `side_morale: weighted` weighs each unit by its factors.
    assert _morale() == 20
    assert _morale(side_morale="lowest") == 20
    assert _morale(side_morale="weighted") == 36  # (4.0 x 10 + 2.0 x 2) / 12 = 3.67, down to 3.6


def test_side_morale_refuses_a_reading_it_does_not_know() -> None:
    with pytest.raises(GameDataError, match="lowest or weighted"):
        _morale(side_morale="highest")


def test_12_3_4_a_surviving_committed_guard_that_breaks_the_other_ends_the_combat() -> None:
    # 12.3.4 leaves a committing side two outcomes, and both break a side: its guard all lost (it
    # breaks), or the round fought (the other side breaks, or it does). A combat ends at a break,
    # so "once per day of combat" never lets a side commit twice in one combat.
    state = game(
        {"ru-g": corps("russia", guard=3, infantry=4), "fr-1": corps("france", morale=1.0, infantry=20)},
        guard_commitment=True,
    )
    attack = {"kind": "field", "attackers": ["ru-g"], "defenders": ["fr-1"]}
    state, _ = play(state, {"russia": {"attack": [attack]}}, SealingDice([]))
    dice = SealingDice(
        [1, 2, 2]
    )  # guard roll (+1 column: 0 lost), then each side's fire (3-3 shifted to 3-4: 1.5 morale)
    orders = {"russia": {"table": "3-3", "guard": {"nation": "russia", "shift": 1}}, "france": {"table": "3-2"}}
    state, events = play(state, orders, dice)
    dice.assert_used_up()
    ended = next(e for e in events if e.kind == "combat.ended")
    assert ended.data["broken"] == {"attacker": False, "defender": True}
    assert not any("committed its guard and did not break" in e.text for e in events)
    assert state["combats"] == [] and getattr(rules.phase(state), "name", None) == "round"
