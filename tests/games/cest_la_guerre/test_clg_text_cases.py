"""The extraction's 16 acceptance cases taken from the rulebook's own statements (section 7.1,
TX-01 ... TX-16)."""

from __future__ import annotations

from typing import Any

import pytest
from clg_helpers import battle, bound, card, feature, unit

from games.cest_la_guerre import rules
from games.cest_la_guerre.armies import build_army, every_choice, list_total
from games.cest_la_guerre.battle import combat_problems, melee, run_combat
from games.cest_la_guerre.bound import Bound
from games.cest_la_guerre.combat import common_modifiers, melee_modifiers, outcome
from games.cest_la_guerre.data import LISTS, TABLES, unit_cost
from games.cest_la_guerre.geometry import contact_pose
from games.cest_la_guerre.movement import Route, move_allowance
from games.cest_la_guerre.options import resolve_options
from games.cest_la_guerre.outcomes import roll_casualties
from games.cest_la_guerre.victory import victory_check

from scripted_dice import ScriptedDice

OPTIONS = resolve_options({})


def test_tx01_every_list_adds_up_under_every_choice() -> None:
    checked = 0
    for list_id, army in LISTS.items():
        for choices in every_choice(list_id):
            assert list_total(list_id, choices) == int(army["total"] * 2), (list_id, choices)
            summary, cards, problems = build_army({"list": list_id, "choices": choices}, OPTIONS)
            assert problems == [] and summary is not None
            assert sum(c["cost"] for c in cards) == summary["points"]
            checked += 1
    assert len(LISTS) == 28
    assert checked == 48
    assert {army["total"] for army in LISTS.values()} == {40.0, 50.0}
    assert all(army["total"] == 50.0 for army in LISTS.values() if army["period"] == "napoleonic")


def test_tx02_british_regular_infantry_pays_half_a_point_more() -> None:
    assert [unit_cost({"type": "reg_inf", "grade": g, "british": True}) for g in ("inferior", "average", "elite")] == [
        5,
        6,
        7,
    ]
    dutch = next(e for e in LISTS["wss_british_dutch_hanover"]["entries"] if e.get("british_no_bonus"))
    militia = next(e for e in LISTS["fiw_british"]["entries"] if e.get("label") == "Colonial Militia")
    assert unit_cost(dutch) == 5 and unit_cost(militia) == 4


def infantry_against(kind: str) -> dict[str, Any]:
    return battle([card("B1", kind, 500, 470, "north"), card("R1", "reg_inf", 500, 500, "south")])


def test_tx03_infantry_doubled_by_mounted_in_front_is_destroyed() -> None:
    state = infantry_against("cavalry")
    assert outcome(state, unit(state, "R1"), unit(state, "B1"), True, True) == ["destroyed"]


def test_tx04_infantry_doubled_by_infantry_only_flees() -> None:
    state = infantry_against("reg_inf")
    assert outcome(state, unit(state, "R1"), unit(state, "B1"), True, True) == ["flee", "casualty"]
    dice = ScriptedDice([6, 6, 1, 1, 6])
    b = Bound(state, "blue", dice)
    melee(b, unit(state, "B1"), unit(state, "R1"))
    dice.assert_used_up()
    assert unit(state, "R1")["status"] == "table" and unit(state, "R1")["disordered"]


def flanked(winner_front: bool) -> Bound:
    x, y, facing = contact_pose((500, 500, "south"), "right")
    state = battle(
        [
            card("B1", "reg_inf", 500, 470, "north"),
            card("R1", "reg_inf", 500, 500, "south"),
            card("B2", "cavalry", x, y, facing),
        ]
    )
    dice = ScriptedDice([6, 6, 1, 1] if winner_front else [1, 1, 6, 6, 4])
    b = Bound(state, "blue", dice)
    melee(b, unit(state, "B1"), unit(state, "R1"))
    dice.assert_used_up()
    return b


def test_tx05_a_unit_fought_in_front_and_flank_that_loses_is_destroyed() -> None:
    b = flanked(winner_front=True)
    assert unit(b.state, "R1")["status"] == "destroyed"


def test_tx06_a_unit_fought_in_front_and_flank_that_wins_drives_off_the_flank_attacker() -> None:
    b = flanked(winner_front=False)
    flanker = unit(b.state, "B2")
    assert flanker["status"] == "table" and flanker["casualties"] == 0
    assert any(e["kind"] == "fall-back" and "B2" in e["text"] for e in b.events)


@pytest.mark.parametrize(
    ("die", "condition"), [(1, "difficult"), (2, "difficult"), (3, "normal"), (4, "normal"), (5, "none"), (6, "none")]
)
def test_tx07_river_condition_at_the_first_crossing(die: int, condition: str) -> None:
    assert TABLES.lookup("river", [die]).result == condition
    assert TABLES.lookup("difficult-crossing", [die]).result == ("crosses" if die == 6 else "fails")


def river_fight(attacker_in_river: bool, defender_in_river: bool) -> dict[str, Any]:
    river = feature("T1", "river", 0, 440 if attacker_in_river else 490, 1200, 510 if defender_in_river else 485)
    return battle(
        [card("B1", "cavalry", 500, 470, "north"), card("R1", "reg_inf", 500, 500, "south")],
        ({**river, "condition": "normal"},),
    )


def test_tx08_a_normal_river_helps_its_defender() -> None:
    state = river_fight(attacker_in_river=True, defender_in_river=False)
    attacker, defender = unit(state, "B1"), unit(state, "R1")
    assert ("defending_river_bank", 1) in melee_modifiers(state, defender, attacker, True)
    assert not any(name == "bad_going" for name, _ in melee_modifiers(state, attacker, defender, False))
    assert outcome(state, attacker, defender, True, False) == ["fall_back", "casualty"]  # read as bad going
    both = river_fight(attacker_in_river=True, defender_in_river=True)
    for one, other in (("B1", "R1"), ("R1", "B1")):
        mods = melee_modifiers(both, unit(both, one), unit(both, other), True)
        assert not any(name in ("bad_going", "defending_river_bank") for name, _ in mods)


@pytest.mark.parametrize(("die", "hit"), [(1, 1), (2, 1), (3, 1), (4, 0), (5, 0), (6, 0)])
def test_tx09_casualty_roll(die: int, hit: int) -> None:
    state = infantry_against("reg_inf")
    target = unit(state, "R1")
    dice = ScriptedDice([die])
    roll_casualties(Bound(state, "blue", dice), target, 1, "test")
    dice.assert_used_up()
    assert target["casualties"] == hit
    target["casualties"] = 3
    assert ("3 casualties", -3) in common_modifiers(state, target, unit(state, "B1"))


def supported(defender_dice: list[int]) -> Bound:
    state = battle(
        [
            card("B1", "reg_inf", 500, 470, "north"),
            card("B2", "reg_inf", 500, 440, "north"),  # directly behind B1, supporting its attack
            card("R1", "cavalry", 500, 500, "south"),
        ]
    )
    dice = ScriptedDice(defender_dice)
    b = Bound(state, "blue", dice)
    melee(b, unit(state, "B1"), unit(state, "R1"))
    dice.assert_used_up()
    return b


def test_tx10_a_rear_supporter_shares_the_front_unit_s_fate() -> None:
    b = supported([3, 3, 6, 6, 6])  # B1 8 against 15: not doubled, against mounted: flees and rolls
    assert unit(b.state, "B2")["disordered"] and unit(b.state, "B2")["casualties"] == 0
    b = supported([1, 1, 6, 6, 2])  # B1 4 against 15: doubled by mounted, destroyed
    assert unit(b.state, "B1")["status"] == "destroyed"
    supporter = unit(b.state, "B2")
    assert supporter["disordered"] and supporter["casualties"] == 1  # fled and rolled for casualties
    infantry = battle(
        [
            card("B1", "reg_inf", 500, 470, "north"),
            card("B2", "reg_inf", 500, 440, "north"),
            card("R1", "reg_inf", 500, 500, "south"),
        ]
    )
    dice = ScriptedDice([3, 3, 6, 6, 6])
    b = Bound(infantry, "blue", dice)
    melee(b, unit(infantry, "B1"), unit(infantry, "R1"))
    dice.assert_used_up()
    assert unit(infantry, "B2")["y"] == 410 and not unit(infantry, "B2")["disordered"]  # fell back, no roll
    assert unit(infantry, "B1")["y"] == 440


def test_tx11_victory_at_the_end_of_a_round() -> None:
    state = battle(
        [
            card("B1", "reg_inf", 100, 100, "north", cost=30, status="destroyed"),
            card("R1", "reg_inf", 100, 800, "south", cost=10, status="destroyed"),
        ]
    )
    assert victory_check(state, [], "end of Round 2")
    assert state["result"]["winner"] == "red" and state["stage"] == "over"
    assert rules.phase(state) is None


@pytest.mark.parametrize(
    ("kind", "face_up", "going", "expected"),
    [
        ("light_cav", True, "good", 500),
        ("cavalry", True, "good", 400),
        ("general", True, "good", 400),
        ("reg_inf", True, "good", 150),
        ("artillery", True, "good", 100),
        ("heavy_artillery", True, "good", 50),
        ("horse_artillery", True, "good", 200),
        ("light_cav", False, "good", 150),
        ("cavalry", True, "bad", 200),
        ("reg_inf", True, "bad", 100),
        ("reg_inf", True, "road", 400),
        ("cavalry", True, "river", 100),
    ],
)
def test_tx12_movement_allowances(kind: str, face_up: bool, going: str, expected: int) -> None:
    terrain = {
        "good": (),
        "bad": (feature("T1", "woods", 0, 0, 1200, 900),),
        "road": (feature("T1", "road", 480, 0, 520, 900),),
        "river": ({**feature("T1", "river", 0, 300, 1200, 340), "condition": "normal"},),
    }[going]
    state = battle([card("B1", kind, 500, 280, "north", face_up=face_up)], terrain)
    mover = unit(state, "B1")
    limit, _ = move_allowance(bound(state, None), mover, Route((500, 380, 0)), False)
    assert limit == expected


def test_tx13_no_reserve_in_round_one() -> None:
    state = battle([{**card("B9", "sub_command", 0, 0, "north"), "status": "reserve", "marker": None}], round_=1)
    orders = {"reserve": {"edge": "own_base", "place": [{"unit": "sub-command-b9", "x": 300, "y": 15}]}}
    problems = rules.validate(state, "blue", orders)
    assert [p.code for p in problems] == ["illegal.reserve.round"]


def test_tx14_a_reserve_needs_a_sub_command_and_at_most_a_third_of_the_cards() -> None:
    sweden = {"list": "gnw_sweden", "choices": [2]}
    too_many = [
        "sub-command-average-1",
        "reg-inf-average-1",
        "reg-inf-average-2",
        "reg-inf-average-3",
        "reg-inf-average-4",
    ]
    problems = build_army({**sweden, "reserve": too_many}, OPTIONS)[2]
    assert [p.code for p in problems] == ["illegal.army.reserve"] and "at most a third" in problems[0].message
    assert build_army({**sweden, "reserve": too_many[:4]}, OPTIONS)[2] == []
    problems = build_army({**sweden, "reserve": ["reg-inf-average-1"]}, OPTIONS)[2]
    assert "Sub-Command" in problems[0].message
    problems = build_army({"list": "wss_austria", "choices": [1], "reserve": ["general-1"]}, OPTIONS)[2]
    assert "this army has none" in problems[0].message


def test_tx15_artillery_that_moved_this_round_may_not_shoot() -> None:
    state = battle(
        [card("B1", "artillery", 500, 100, "north", moved_round=True), card("R1", "reg_inf", 500, 330, "south")],
        stage="combat",
    )
    problems = combat_problems(state, "blue", {"shots": [{"shooter": "B1", "target": "R1"}]})
    assert problems and "moved this Round" in problems[0].message
    unit(state, "B1")["moved_round"] = False
    assert combat_problems(state, "blue", {"shots": [{"shooter": "B1", "target": "R1"}]}) == []


def test_tx16_enfilading_fire_and_the_target_does_not_turn() -> None:
    state = battle([card("B1", "reg_inf", 560, 500, "west"), card("R1", "reg_inf", 500, 500, "north")], stage="combat")
    dice = ScriptedDice([3, 3, 3, 3, 6])
    b = run_combat(state, {"blue": {"shots": [{"shooter": "B1", "target": "R1"}]}, "red": {}}, dice)
    dice.assert_used_up()
    event = next(e for e in b.events if e["kind"] == "combat.shooting")
    assert {"name": "enfilade", "value": 1} in event["data"]["shooter"]["modifiers"]
    assert event["data"]["returned"] is False and event["data"]["results"] == ["fall_back", "casualty"]
    assert unit(b.state, "R1")["facing"] == 0
