"""The morale phase (rulebook p. 30): two-base brigades, division morale, army morale, end of turn."""

from __future__ import annotations

from typing import Any

import pytest
from obb_helpers import event, new_game, play


def morale_phase(**options: Any) -> dict[str, Any]:
    """A danube-demo state at the morale phase of turn 1 in which Q1, of de Lorme's brigade Q, broke."""
    state = new_game("danube-demo", **options)
    state, _, _ = play(state, {}, [1, 5, 2, 2, 6, 1, 0, 6, 8, 1, 5, 3, 6, 6, 6, 6])
    state.update(step="morale", tempo={"side": "allies", "by_turn": ["allies"]}, broken_this_turn=["Q1"])
    state["bases"]["Q1"]["state"] = "broken"
    return state


@pytest.mark.parametrize(
    ("grade", "roll", "result"),
    [
        ("trained", 2, "breaks"),
        ("veteran", 2, "holds"),
        ("veteran", 1, "breaks"),
        ("raw", 3, "breaks"),
        ("raw", 4, "holds"),
    ],
)
def test_the_other_base_of_a_two_base_brigade(grade: str, roll: int, result: str) -> None:
    state = morale_phase()
    state["bases"]["Q2"]["class"] = grade
    state, events, dice = play(state, {}, [roll, 3, 6, 6, 6])  # partner, de Lorme's morale, Tempo dice
    assert event(events, "morale.partner").data == {"brigade": "Q", "base": "Q2", "class": grade, "roll": roll,
                                                     "result": result}  # fmt: skip
    check = event(events, "morale.division").data
    assert check["lost"] == (["Q1", "Q2"] if result == "breaks" else ["Q1"])
    assert state["bases"]["Q2"]["state"] == ("removed" if result == "breaks" else "fresh")
    assert dice.rolls[0]["label"] == "morale/partner/Q2"


def test_a_division_is_spent_when_its_points_exceed_its_starting_bases() -> None:
    state = morale_phase(army_morale={"cmf": {"bavarian": 5}, "when_exhausted": "army-leaves"})
    state["bases"]["R"]["state"] = "shaken"
    state["bases"]["Q2"]["state"] = "broken"
    state["broken_this_turn"].append("Q2")
    state, events, _ = play(state, {}, [6, 5])  # de Lorme 5 + 2 = 7 > 4; the army's CMF falls by 5
    check = event(events, "morale.division").data
    assert (check["points"], check["adjustment"], check["final"], check["spent"]) == (5, 2, 7, True)
    army = event(events, "morale.army").data
    assert (army["before"], army["after"], army["exhausted"], army["effect"]) == (5, 0, True, "army-leaves")
    assert state["armies"]["bavarian"]["exhausted"] and all(
        state["divisions"][d]["spent"] for d in ("de-salon", "st-joseph")
    )
    assert state["over"] and state["result"] == "one side has no division left on the field."


def test_an_exhausted_army_ends_the_battle_by_default() -> None:
    state = morale_phase(army_morale={"cmf": {"bavarian": 3}})
    for base in ("Q2", "R"):
        state["bases"][base]["state"] = "broken"
        state["broken_this_turn"].append(base)
    state, events, _ = play(state, {}, [6, 3])
    assert state["over"] and "critical morale factor" in state["result"]


def test_losses_counted_this_turn_only_by_option() -> None:
    state = morale_phase(morale_losses="turn")
    state["bases"]["R"]["state"] = "removed"  # lost in an earlier turn
    state, events, _ = play(state, {}, [4, 3, 6, 6, 6])
    assert event(events, "morale.division").data["lost"] == ["Q1"]
    state = morale_phase()
    state["bases"]["R"]["state"] = "removed"
    state, events, _ = play(state, {}, [4, 3, 6, 6, 6])
    assert event(events, "morale.division").data["lost"] == ["Q1", "R"]


def test_end_of_turn_removes_broken_bases_and_lets_unspent_points_lapse() -> None:
    state = morale_phase()
    state["allocations"] = {"dutch": {"van-gelder": 3}}
    state["tp_spent"] = {"van-gelder": 1}
    state, events, _ = play(state, {}, [4, 3, 1, 1, 1])
    assert state["bases"]["Q1"]["state"] == "removed"
    assert (state["turn"], state["step"], state["allocations"]) == (2, "bid", {})
    assert state["armies"]["dutch"]["tp"] == 3 + 1  # only the new income


def test_unspent_points_carry_over_by_option() -> None:
    state = morale_phase(carry_over_tp=True)
    state["armies"]["dutch"]["tp"] = 2
    state["allocations"] = {"dutch": {"van-gelder": 3}}
    state["tp_spent"] = {"van-gelder": 1}
    state, _, _ = play(state, {}, [4, 3, 1, 1, 1])
    assert state["armies"]["dutch"]["tp"] == 2 + 2 + 3 + 1
