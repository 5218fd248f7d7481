"""Face-down cards, dummies and the reserve stay out of the opponent's sight until the rules reveal them."""

from __future__ import annotations

from typing import Any

import pytest
from clg_helpers import battle, card, texts, unit

from games.cest_la_guerre import rules
from games.cest_la_guerre.actions import run_movement
from games.cest_la_guerre.battle import run_combat
from games.cest_la_guerre.events import private
from games.cest_la_guerre.views import view

from scripted_dice import ScriptedDice


def hidden_table() -> dict[str, Any]:
    return battle(
        [
            card("B1", "general", 600, 100, "north", name="SECRET-NAME"),
            card("B2", "artillery", 500, 100, "north", face_up=False),
            card("B3", "dummy", 700, 100, "north", face_up=False),
            {**card("B4", "sub_command", 0, 0, "north"), "status": "reserve", "marker": None, "x": None, "y": None},
            card("R1", "reg_inf", 500, 800, "south", face_up=False),
        ]
    )


def test_the_opponent_sees_a_face_down_card_only_as_a_marker_at_a_place() -> None:
    state = hidden_table()
    seen = {c["marker"]: c for c in view(state, "red")["cards"]}
    assert seen["B2"] == {
        "marker": "B2",
        "owner": "blue",
        "x": 500,
        "y": 100,
        "facing": 0,
        "card": "face-down card",
    }
    assert seen["B3"] == {
        "marker": "B3",
        "owner": "blue",
        "x": 700,
        "y": 100,
        "facing": 0,
        "card": "face-down card",
    }
    assert seen["B1"]["card"] == "Average General" and "name" not in seen["B1"]
    assert len(seen) == 4  # the reserve is nowhere
    reds = {key: value for key, value in view(state, "red").items() if key != "your_army"}
    text = str(reds) + str(view(state, None))
    for secret in ("SECRET-NAME", "dummy", "Dummy", "Artillery", "reserve", "Sub-Command", "artillery-b2"):
        assert secret not in text
    own = view(state, "blue")["your_army"]
    assert own["reserve_waiting"] == ["sub-command-b4"]
    assert {c["id"]: c["card"] for c in own["cards"]}["dummy-b3"] == "Dummy"


def test_a_private_event_never_names_a_dice_label() -> None:
    with pytest.raises(ValueError):
        private("blue", "x", "text", label="r2/blue/reserve")


def test_the_reserve_die_is_rolled_every_bound_from_round_two_and_only_its_owner_reads_it() -> None:
    state = hidden_table()
    state["units"] = [u for u in state["units"] if u["status"] != "reserve"]
    dice = ScriptedDice([1, 1])
    b = run_movement(state, "blue", {}, dice)
    dice.assert_used_up()
    assert [r["label"] for r in dice.rolls] == ["r2/blue/reserve"]
    assert [(e["kind"], e["visible_to"]) for e in b.events] == [("roll", "all")]  # the dice list's note
    assert "needed or not" in b.events[0]["data"]["purpose"]
    dice = ScriptedDice([1, 1])
    orders = {"reserve": {"edge": "own_base", "place": [{"unit": "sub-command-b4", "x": 300, "y": 15}]}}
    b = run_movement(hidden_table(), "blue", orders, dice)
    assert all(e["visible_to"] == ["blue"] for e in b.events if e["kind"] != "roll")
    assert "needed 5" in texts(b.events)


def test_turning_up_a_dummy_removes_it() -> None:
    b = run_movement(hidden_table(), "blue", {"actions": [{"reveal": "B3"}]}, ScriptedDice([2, 2]))
    assert unit(b.state, "B3")["status"] == "removed"
    assert "was a dummy" in texts(b.events)


def test_a_shot_at_a_dummy_is_lost_and_the_dummy_removed() -> None:
    state = battle(
        [card("B1", "reg_inf", 500, 400, "north"), card("R1", "dummy", 500, 470, "south", face_up=False)],
        stage="combat",
    )
    dice = ScriptedDice([])
    b = run_combat(state, {"blue": {"shots": [{"shooter": "B1", "target": "R1"}]}, "red": {}}, dice)
    dice.assert_used_up()
    assert unit(b.state, "R1")["status"] == "removed"
    assert "finds nothing" in texts(b.events)


def test_a_face_down_card_moves_at_most_15_cm_until_turned_up() -> None:
    state = battle(
        [card("B1", "light_cav", 500, 100, "north", face_up=False), card("R1", "reg_inf", 500, 850, "south")]
    )
    far = {"actions": [{"move": "B1", "to": {"x": 500, "y": 400}}]}
    problems = rules.validate(state, "blue", far)
    assert problems and "may move 150 mm here" in problems[0].message
    assert rules.validate(state, "blue", {"actions": [{"reveal": "B1"}, *far["actions"]]}) == []


def test_contact_with_a_hidden_card_is_allowed_and_undone_if_it_turns_out_mounted() -> None:
    state = battle(
        [card("B1", "reg_inf", 500, 100, "north"), card("R1", "cavalry", 500, 160, "south", face_up=False)],
        terrain=(),
    )
    orders = {"actions": [{"move": "B1", "contact": {"target": "R1", "edge": "front"}}]}
    assert rules.validate(state, "blue", orders) == []  # refusing would tell blue what R1 is
    b = run_movement(state, "blue", orders, ScriptedDice([3, 3]))
    assert unit(b.state, "R1")["face_up"]
    assert (unit(b.state, "B1")["x"], unit(b.state, "B1")["y"]) == (500, 100)
    assert "infantry may not move into contact with mounted" in texts(b.events)
    face_up = battle([card("B1", "reg_inf", 500, 100, "north"), card("R1", "cavalry", 500, 160, "south")])
    assert rules.validate(face_up, "blue", orders)[0].code == "illegal.move.contact"
