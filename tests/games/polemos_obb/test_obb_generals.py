"""Risk to generals (rulebook p. 29): 2D6 with grade modifiers, the hit table, capture, succession."""

from __future__ import annotations

from typing import Any

import pytest
from obb_helpers import TEST_TABLES, event, new_game, play
from test_obb_combat_example import TURN_ONE_DICE, VAN_GELDER_ATTACKS, turn_one_contact

from games.polemos_obb import GAME
from games.polemos_obb.generals import appoint_successors, capture_roll, risk_to_general
from games.polemos_obb.options import game_tables
from games.polemos_obb.resolution import Resolution
from games.polemos_obb.tempo import income_parts
from referee.kit import MissingTableError

from scripted_dice import ScriptedDice


def resolution(dice: list[int], **options: Any) -> tuple[Resolution, ScriptedDice]:
    state = new_game(**options)
    scripted = ScriptedDice(dice)
    return Resolution(state, scripted, game_tables(state)), scripted


def test_a_vigorous_general_beside_a_breaking_base_is_hit_on_6() -> None:
    r, dice = resolution([3, 3, 5])
    r.state["generals"]["van-gelder"]["grade"] = "vigorous"
    record = risk_to_general(r, "van-gelder", "X", True, "t", "X fought")
    assert (record["roll"], [m["value"] for m in record["modifiers"]], record["total"]) == (6, [-1, -2], 3)
    assert (record["result"], record["hit"], record["effect"]) == ("possibly-hit", 5, "severe-wound")
    general = r.state["generals"]["van-gelder"]
    assert (general["status"], general["no_orders_until"], general["successor_due"]) == ("severely-wounded", 2, 3)
    assert "van Gelder" not in " ".join(p["what"] for p in income_parts(r.state, "dutch"))
    dice.assert_used_up()


def test_a_lethargic_general_is_safe_on_3() -> None:
    r, dice = resolution([1, 2])
    r.state["generals"]["van-gelder"]["grade"] = "lethargic"
    record = risk_to_general(r, "van-gelder", "X", False, "t", "X fought")
    assert (record["total"], record["result"], record["hit"]) == (4, "safe", None)
    dice.assert_used_up()


@pytest.mark.parametrize(
    ("hit", "no_move", "status"),
    [(1, None, "active"), (2, 2, "active"), (3, 2, "active"), (4, 2, "active"), (6, 2, "killed")],
)
def test_the_hit_table(hit: int, no_move: int | None, status: str) -> None:
    r, dice = resolution([1, 1, hit])
    risk_to_general(r, "van-gelder", "X", False, "t", "X fought")
    general = r.state["generals"]["van-gelder"]
    assert (general["no_move_turn"], general["status"]) == (no_move, status)
    if status == "killed":
        assert (general["no_orders_until"], general["successor_due"], general["counts_for_tp"]) == (3, 4, False)
    dice.assert_used_up()


@pytest.mark.parametrize(("grade", "roll", "captured"), [("vigorous", 1, True), ("vigorous", 2, False),
                                                         ("active", 2, True), ("active", 3, False),
                                                         ("lethargic", 3, True), ("lethargic", 4, False)])  # fmt: skip
def test_capture_by_grade(grade: str, roll: int, captured: bool) -> None:
    r, dice = resolution([roll])
    general = r.state["generals"]["van-gelder"]
    general.update(grade=grade, with_base="X")
    assert capture_roll(r, "van-gelder", "t", "X broke")["captured"] is captured
    assert general["with_base"] is None  # captured, or ridden off to the nearest friendly troops
    assert general["status"] == ("captured" if captured else "active")
    if captured:
        assert general["successor_due"] == 4  # after two game turns
    dice.assert_used_up()


def test_a_successor_takes_over_with_a_grade_from_the_referees_table() -> None:
    r, dice = resolution([1, 1, 6, 6], tables=TEST_TABLES)
    risk_to_general(r, "van-gelder", "X", False, "t", "X fought")  # killed in turn 1
    appoint_successors(r, 3)
    assert r.state["generals"]["van-gelder"]["status"] == "killed"
    appoint_successors(r, 4)
    general = r.state["generals"]["van-gelder"]
    assert (general["status"], general["grade"], general["name"]) == (
        "active",
        "vigorous",
        "the successor to Lieutenant General van Gelder",
    )
    assert general["counts_for_tp"] is False  # the C-in-C no longer gets his TP
    dice.assert_used_up()


def test_a_successor_needs_the_officer_grade_table() -> None:
    r, _ = resolution([1, 1, 6])
    risk_to_general(r, "van-gelder", "X", False, "t", "X fought")
    with pytest.raises(MissingTableError, match="officer-grade table"):
        appoint_successors(r, 4)


def test_a_general_without_orders_gets_no_points() -> None:
    state = new_game()
    state.update(step="tempo-command", tempo={"side": "allies", "by_turn": ["allies"]})
    state["generals"]["van-gelder"]["no_orders_until"] = 1
    state["armies"]["dutch"]["tp"] = 5
    assert [p.code for p in GAME.validate(state, "dutch", {"allocate": [{"general": "van-gelder", "tp": 1}]})] == [
        "illegal.allocate.no-orders"
    ]


def test_a_general_with_a_fighting_base_is_at_risk_each_combat() -> None:
    """The combat example's first turn with the Dutch C-in-C beside X: a 2D6 after each of X's three fights."""
    state = turn_one_contact()
    state["generals"]["dutch-c-in-c"]["with_base"] = "X"
    safe = [6, 6]
    dice = [*TURN_ONE_DICE[:2], *safe, *TURN_ONE_DICE[2:12], *safe, *TURN_ONE_DICE[12:19], *safe]
    dice += [*TURN_ONE_DICE[19:], 2, 5]  # after X's fights against M: advance, response, continuing
    state, events, scripted = play(state, VAN_GELDER_ATTACKS, dice)
    risks = [g for r in event(events, "combat.encounter").data["rounds"] for c in r["combats"] for g in c["generals"]]
    assert [(g["base"], g["total"], g["result"]) for g in risks] == [("X", 12, "safe")] * 3
    assert [r["label"] for r in scripted.rolls if r["label"].startswith("general/")] == [
        "general/dutch-c-in-c/risk/e1/1",
        "general/dutch-c-in-c/risk/e1/2",
        "general/dutch-c-in-c/risk/e1/3",
    ]
