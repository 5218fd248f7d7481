"""The extraction's 20 derived acceptance cases (section 7.2, DT-01 ... DT-20), with fixed dice.

Blue is the phasing player on the south edge (facing north); red faces south. All cards are
face up, Average and in good going unless a case says otherwise. Distances are in mm.
"""

from __future__ import annotations

from typing import Any

import pytest
from clg_helpers import battle, bound, card, feature, texts, unit

from games.cest_la_guerre.actions import run_movement
from games.cest_la_guerre.battle import melee, run_combat
from games.cest_la_guerre.combat import chart_factor, chart_row, melee_modifiers, outcome
from games.cest_la_guerre.formations import commands
from games.cest_la_guerre.geometry import contact_pose, overlap_pose
from games.cest_la_guerre.hidden import reveal_check
from games.cest_la_guerre.initiative import move_cost
from games.cest_la_guerre.outcomes import flee
from games.cest_la_guerre.victory import points_lost, victory_check

from scripted_dice import ScriptedDice


def shoot_once(state: dict[str, Any], values: list[int], shooter: str = "B1", target: str = "R1") -> Any:
    dice = ScriptedDice(values)
    result = run_combat(state, {"blue": {"shots": [{"shooter": shooter, "target": target}]}, "red": {}}, dice)
    dice.assert_used_up()
    return result


def fight(state: dict[str, Any], values: list[int], attacker: str = "B1", defender: str = "R1") -> Any:
    dice = ScriptedDice(values)
    b = bound(state, dice)
    melee(b, unit(state, attacker), unit(state, defender))
    dice.assert_used_up()
    return b


def combat_event(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in events if e["kind"].startswith("combat."))


def firefight() -> dict[str, Any]:
    """DT-01's table: British B1 and French R1, head on, 40 mm apart."""
    return battle(
        [card("B1", "reg_inf", 500, 400, "north", british=True), card("R1", "reg_inf", 500, 470, "south")],
        stage="combat",
    )


def test_dt01_mutual_shooting_not_doubled() -> None:
    b = shoot_once(firefight(), [3, 4, 2, 4, 2])
    event = combat_event(b.events)
    assert event["data"]["shooter"]["total"] == 12
    assert event["data"]["target"]["total"] == 10
    assert event["data"]["returned"] is True
    assert (event["data"]["loser"], event["data"]["doubled"]) == ("R1", False)
    french = unit(b.state, "R1")
    assert (french["y"], french["facing"], french["casualties"]) == (500, 180, 1)  # fell back 3 cm, one casualty


def test_dt02_mutual_shooting_doubled_flees_but_is_not_destroyed() -> None:
    b = shoot_once(firefight(), [3, 4, 1, 1, 5])
    event = combat_event(b.events)
    assert (event["data"]["target"]["total"], event["data"]["doubled"]) == (6, True)
    assert event["data"]["results"] == ["flee", "casualty"]
    french = unit(b.state, "R1")
    assert french["status"] == "table" and french["disordered"]
    assert (french["y"], french["facing"], french["casualties"]) == (500 + 150, 0, 0)


def cavalry_charge(friend_behind: bool = True, woods: bool = False) -> dict[str, Any]:
    """DT-03's table: blue Cavalry B1 against the front of red Regular Infantry R1."""
    cards = [card("B1", "cavalry", 500, 470, "north"), card("R1", "reg_inf", 500, 500, "south")]
    if friend_behind:
        cards.append(card("R2", "reg_inf", 500, 550, "south"))  # its front edge 2 cm behind R1's rear edge
    terrain = (feature("T1", "woods", 450, 440, 550, 480),) if woods else ()
    return battle(cards, terrain, stage="combat")


def test_dt03_cavalry_quick_kills_infantry_and_the_friend_behind_panics() -> None:
    state = cavalry_charge()
    b = fight(state, [4, 4, 1, 2, 3])
    event = combat_event(b.events)
    assert (event["data"]["attacker"]["total"], event["data"]["defender"]["total"]) == (12, 5)
    assert event["data"]["results"] == ["destroyed"]
    assert unit(b.state, "R1")["status"] == "destroyed"
    assert points_lost(b.state, "red") == 5  # 2.5 points
    friend = unit(b.state, "R2")
    assert friend["disordered"] and friend["casualties"] == 1 and friend["facing"] == 0
    assert "panics" in texts(b.events)


def test_dt04_not_doubled_infantry_flees_from_cavalry() -> None:
    b = fight(cavalry_charge(friend_behind=False), [4, 4, 3, 3, 6])
    event = combat_event(b.events)
    assert (event["data"]["defender"]["total"], event["data"]["doubled"]) == (8, False)
    assert event["data"]["results"] == ["flee", "casualty"]
    infantry = unit(b.state, "R1")
    assert (infantry["y"], infantry["facing"], infantry["disordered"]) == (680, 0, True)


def test_dt05_cavalry_beaten_falls_back_and_in_bad_going_rolls_for_casualties() -> None:
    b = fight(cavalry_charge(friend_behind=False), [3, 3, 5, 5])
    event = combat_event(b.events)
    assert (event["data"]["attacker"]["total"], event["data"]["defender"]["total"]) == (10, 12)
    assert event["data"]["results"] == ["fall_back"]
    assert unit(b.state, "B1")["y"] == 440
    b = fight(cavalry_charge(friend_behind=False, woods=True), [3, 3, 5, 5, 2])
    event = combat_event(b.events)
    assert event["data"]["attacker"]["total"] == 8
    assert (event["data"]["doubled"], event["data"]["results"]) == (False, ["fall_back", "casualty"])
    assert unit(b.state, "B1")["casualties"] == 1


def long_range_gun(target_kind: str = "reg_inf", gap: int = 300) -> dict[str, Any]:
    """Blue Artillery B1 at the south, a red card `gap` mm ahead of its front edge."""
    return battle(
        [card("B1", "artillery", 500, 100, "north"), card("R1", target_kind, 500, 115 + gap + 15, "south")],
        stage="combat",
    )


def test_dt06_long_range_artillery_unanswered() -> None:
    b = shoot_once(long_range_gun(), [5, 4, 2, 2, 1])
    event = combat_event(b.events)
    assert event["data"]["returned"] is False
    assert (event["data"]["shooter"]["total"], event["data"]["target"]["total"]) == (10, 8)
    assert event["data"]["results"] == ["fall_back", "casualty"]
    b = shoot_once(long_range_gun(), [1, 1, 6, 6])
    assert "shot unanswered: no effect" in texts(b.events)
    assert unit(b.state, "B1")["status"] == "table"


def test_dt07_close_artillery_against_pikes_holds_them() -> None:
    b = shoot_once(long_range_gun("pike", 150), [1, 2, 3, 3, 4])
    event = combat_event(b.events)
    assert event["data"]["shooter"]["total"] == 10  # 3 + 6 (near) + 1 (artillery at close order)
    assert event["data"]["target"]["total"] == 8
    assert event["data"]["results"] == ["hold", "casualty"]
    assert unit(b.state, "R1")["y"] == 280


def test_dt08_initiative_costs_and_their_surcharges() -> None:
    general = card("B1", "general", 500, 100, "north")
    gun = card("B2", "artillery", 850, 100, "north")  # 30 cm from the General's card
    state = battle([general, gun])
    assert move_cost(state, state, "blue", [gun])[0] == 2
    hidden = battle([general, gun], (feature("T1", "woods", 600, 0, 700, 200),))
    assert move_cost(hidden, hidden, "blue", [gun])[0] == 3
    lost = battle([card("B1", "general", 500, 100, "north", status="destroyed"), gun])
    assert move_cost(lost, lost, "blue", [gun])[0] == 3
    far = card("B3", "reg_inf", 525 + 550 + 25, 100, "north")
    near = card("B4", "reg_inf", 525 + 450 + 25, 300, "north")
    state = battle([general, far, near])
    assert move_cost(state, state, "blue", [far])[0] == 2
    assert move_cost(state, state, "blue", [near])[0] == 1


def test_dt09_command_range_is_measured_from_the_card_edge() -> None:
    brilliant = card("B1", "general", 500, 100, "north", grade="brilliant")
    assert commands(brilliant, card("B2", "reg_inf", 525 + 199 + 25, 100, "north"))
    assert not commands(brilliant, card("B3", "reg_inf", 525 + 201 + 25, 100, "north"))
    inferior = card("B4", "sub_command", 500, 400, "north", grade="inferior")
    assert commands(inferior, card("B5", "reg_inf", 550, 400, "north"))
    assert not commands(inferior, card("B6", "reg_inf", 560, 400, "north"))


def test_dt10_modifiers_stack() -> None:
    elite = card("B1", "reg_inf", 500, 470, "north", grade="elite", casualties=2)
    enemy = card("R1", "reg_inf", 500, 500, "south")
    x, y, facing = overlap_pose((500, 470, "north"), "left")
    state = battle([elite, enemy, card("R2", "reg_inf", x, y, facing)], (feature("T1", "woods", 450, 440, 550, 480),))
    total = chart_factor("melee", chart_row(elite, state["options"], 0), enemy, state["options"])
    total += sum(value for _, value in melee_modifiers(state, elite, enemy, False))
    assert total == -2


def front_and_flank(defender: str = "reg_inf") -> dict[str, Any]:
    """DT-11's table: red R1 fought in front by B1 and on its flank by B2."""
    x, y, facing = contact_pose((500, 500, "south"), "left")
    return battle(
        [
            card("B1", "reg_inf", 500, 470, "north"),
            card("R1", defender, 500, 500, "south"),
            card("B2", "reg_inf", x, y, facing),
        ],
        stage="combat",
    )


def test_dt11_front_and_flank_loser_is_destroyed_and_a_winner_drives_off_its_flanker() -> None:
    b = fight(front_and_flank(), [3, 4, 3, 4])
    event = combat_event(b.events)
    assert (event["data"]["attacker"]["total"], event["data"]["defender"]["total"]) == (9, 8)
    assert unit(b.state, "R1")["status"] == "destroyed"
    state = front_and_flank()
    flanker_before = dict(unit(state, "B2"))
    b = fight(state, [3, 4, 5, 5, 1])
    assert combat_event(b.events)["data"]["results"] == ["fall_back", "casualty"]
    assert unit(b.state, "B1")["y"] == 440 and unit(b.state, "B1")["casualties"] == 1
    flanker = unit(b.state, "B2")
    assert flanker["casualties"] == 0 and (flanker["x"], flanker["y"]) != (flanker_before["x"], flanker_before["y"])


def test_dt12_pikes_hold_even_when_flanked() -> None:
    b = fight(front_and_flank("pike"), [2, 2, 1, 2])
    event = combat_event(b.events)
    assert event["data"]["defender"]["total"] == 6 and "A tie" in event["text"]
    b = fight(front_and_flank("pike"), [3, 3, 1, 2, 2])
    event = combat_event(b.events)
    assert event["data"]["results"] == ["hold", "casualty"]
    pikes = unit(b.state, "R1")
    assert (pikes["status"], pikes["y"], pikes["casualties"]) == ("table", 500, 1)


def test_dt13_light_cavalry_in_bad_going() -> None:
    state = battle(
        [card("B1", "light_cav", 500, 470, "north"), card("R1", "cavalry", 500, 500, "south")],
        (feature("T1", "marsh", 450, 440, 550, 480),),
    )
    light, enemy = unit(state, "B1"), unit(state, "R1")
    assert outcome(state, light, enemy, True, False) == ["flee"]
    assert outcome(state, light, enemy, True, True) == ["flee", "casualty"]


def test_dt14_disordered_infantry() -> None:
    state = battle(
        [card("B1", "reg_inf", 500, 470, "north", disordered=True), card("R1", "reg_inf", 500, 500, "south")]
    )
    loser, winner = unit(state, "B1"), unit(state, "R1")
    assert outcome(state, loser, winner, True, False) == ["flee", "casualty"]
    assert outcome(state, loser, winner, True, True) == ["destroyed"]


def reserve_table() -> dict[str, Any]:
    cards = [
        card("B1", "general", 600, 100, "north"),
        {**card("B9", "sub_command", 0, 0, "north"), "status": "reserve", "marker": None, "x": None, "y": None},
        {**card("B9", "reg_inf", 0, 0, "north"), "id": "reg-inf-9", "status": "reserve", "marker": None},
    ]
    return battle(cards)


@pytest.mark.parametrize(
    ("edge", "values", "arrives", "place"),
    [
        ("own_base", [2, 3], True, [(300, 15, "north"), (360, 15, "north")]),
        ("left_flank", [3, 3], False, [(15, 400, "east"), (15, 460, "east")]),
        ("enemy_base", [5, 6], True, [(300, 885, "south"), (360, 885, "south")]),
    ],
)
def test_dt15_reserve_arrival_on_2d6(edge: str, values: list[int], arrives: bool, place: list[Any]) -> None:
    state = reserve_table()
    ids = ["sub-command-b9", "reg-inf-9"]
    orders = {
        "reserve": {
            "edge": edge,
            "place": [{"unit": i, "x": x, "y": y, "facing": f} for i, (x, y, f) in zip(ids, place, strict=True)],
        }
    }
    assert run_movement(state, "blue", orders, None).problems == []
    dice = ScriptedDice(values)
    b = run_movement(state, "blue", orders, dice)
    dice.assert_used_up()
    waiting = [u for u in b.state["units"] if u["status"] == "reserve"]
    assert (not waiting) == arrives
    if arrives:
        placed = [u for u in b.state["units"] if u["id"] in ids]
        assert all(not u["face_up"] and u["marker"] for u in placed)
        assert any(e["kind"] == "reserve.arrived" and e["visible_to"] == "all" for e in b.events)
    else:
        assert all(e["visible_to"] == ["blue"] for e in b.events if e["kind"].startswith("reserve"))


def river_table() -> dict[str, Any]:
    return battle(
        [card("B1", "reg_inf", 500, 280, "north"), card("B2", "reg_inf", 600, 280, "north")],
        (feature("T1", "river", 0, 300, 1200, 340),),
        round_=1,
    )


def test_dt16_a_difficult_river() -> None:
    state = river_table()
    orders = {
        "actions": [
            {"move": "B1", "to": {"x": 500, "y": 360}},
            {"move": "B2", "to": {"x": 600, "y": 360}},
        ]
    }
    dice = ScriptedDice([2, 5, 6])
    b = run_movement(state, "blue", orders, dice)
    dice.assert_used_up()
    assert b.state["terrain"][0]["condition"] == "difficult"
    assert unit(b.state, "B1")["y"] == 280  # failed: stays on the near bank, its move over
    assert unit(b.state, "B1")["moved_bound"]
    assert unit(b.state, "B2")["y"] == 360
    unit(b.state, "B1")["moved_bound"] = False  # its next bound: a crossing still allows only 10 cm
    too_far = run_movement(b.state, "blue", {"actions": [{"move": "B1", "to": {"x": 500, "y": 400}}]}, None)
    assert too_far.problems and "100 mm" in too_far.problems[0].message
    fleeing = battle(
        [card("B3", "reg_inf", 800, 380, "north")],
        ({**feature("T1", "river", 0, 300, 1200, 340), "condition": "difficult"},),
    )
    dice = ScriptedDice([3])
    b = bound(fleeing, dice)
    flee(b, unit(fleeing, "B3"), "test")
    dice.assert_used_up()
    assert unit(fleeing, "B3")["status"] == "destroyed"


@pytest.mark.parametrize(("gap", "turns_up"), [(250, True), (251, False)])
def test_dt17_reveal_at_25_cm(gap: int, turns_up: bool) -> None:
    state = battle(
        [card("B1", "reg_inf", 500, 100, "north"), card("R1", "reg_inf", 500, 115 + gap + 15, "south", face_up=False)]
    )
    events: list[dict[str, Any]] = []
    reveal_check(state, events)
    assert unit(state, "R1")["face_up"] == turns_up


def test_dt17_a_dummy_in_view_is_removed_at_no_cost() -> None:
    state = battle(
        [card("B1", "reg_inf", 500, 100, "north"), card("R1", "dummy", 500, 115 + 240 + 15, "south", face_up=False)]
    )
    events: list[dict[str, Any]] = []
    reveal_check(state, events)
    assert unit(state, "R1")["status"] == "removed"
    assert points_lost(state, "red") == 0
    assert "was a dummy" in texts(events)


def losses(blue: int, red: int) -> dict[str, Any]:
    return battle(
        [
            card("B1", "reg_inf", 100, 100, "north", cost=blue * 2, status="destroyed"),
            card("R1", "reg_inf", 100, 800, "south", cost=red * 2, status="destroyed"),
        ]
    )


@pytest.mark.parametrize(("blue", "red", "loser"), [(16, 12, "blue"), (16, 16, None), (14, 3, None)])
def test_dt18_victory_check(blue: int, red: int, loser: str | None) -> None:
    state = losses(blue, red)
    over = victory_check(state, [], "test")
    assert over == (loser is not None)
    assert (state["result"] or {}).get("loser") == loser


def test_dt18_fleeing_off_the_table_counts_as_lost() -> None:
    state = battle([card("B1", "reg_inf", 500, 100, "north", cost=6), card("R1", "reg_inf", 500, 800, "south")])
    flee(bound(state, ScriptedDice([])), unit(state, "B1"), "test")
    assert unit(state, "B1")["status"] == "off_table"
    assert points_lost(state, "blue") == 6


def skirmish() -> dict[str, Any]:
    return battle(
        [card("B1", "light_inf", 500, 400, "north"), card("R1", "cavalry", 500, 470, "south")],
        stage="combat",
    )


def test_dt19_a_beaten_shooter_that_was_not_shot_back_is_unharmed() -> None:
    b = shoot_once(skirmish(), [1, 1, 3, 3])
    event = combat_event(b.events)
    assert (event["data"]["shooter"]["total"], event["data"]["target"]["total"]) == (3, 8)
    assert "no effect" in event["text"]
    b = shoot_once(skirmish(), [5, 5, 3, 3])
    assert combat_event(b.events)["data"]["results"] == ["fall_back"]


def test_dt20_combat_engineers() -> None:
    state = battle(
        [card("B1", "engineers", 500, 470, "north"), card("R1", "reg_inf", 500, 500, "south")], stage="combat"
    )
    engineers, enemy = unit(state, "B1"), unit(state, "R1")
    assert outcome(state, engineers, enemy, True, False) == ["destroyed"]
    assert outcome(state, engineers, enemy, False, False) == ["flee"]
    b = bound(state, ScriptedDice([]))
    state["units"][1]["y"] = 700
    flee(b, engineers, "shot")
    assert engineers["disordered"]
