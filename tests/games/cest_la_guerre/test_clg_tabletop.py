"""C'est la Guerre on the tabletop: free-angle poses, moves along paths and wheels, and the geometric
findings of issue 16, each re-derived from the rulebook text (line numbers Lnnn into the rulebook).

The expected numbers are worked out here by hand from the rules and a card's size (5 x 3 cm, L62),
not read off the code.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from clg_helpers import battle, bound, card, feature, unit

from games.cest_la_guerre import GAME
from games.cest_la_guerre.actions import run_movement
from games.cest_la_guerre.formations import command_group, line_through
from games.cest_la_guerre.geometry import contact_pose, overlaps, pose_of, rect_of, swept
from games.cest_la_guerre.outcomes import fall_back, flee
from games.cest_la_guerre.placing import placement_problems
from games.cest_la_guerre.relations import contact_edge, front_enemy
from games.cest_la_guerre.retreat import flight

from scripted_dice import ScriptedDice

Orders = dict[str, Any]


def codes(state: dict[str, Any], *actions: Orders) -> list[str]:
    return [p.code for p in run_movement(state, "blue", {"actions": list(actions)}, None).problems]


def moved(state: dict[str, Any], *actions: Orders) -> dict[str, Any]:
    result = run_movement(state, "blue", {"actions": list(actions)}, None)
    assert not result.problems, result.problems
    return result.state


def test_the_module_is_version_2() -> None:
    assert GAME.version == "2"


# -- free-angle poses ----------------------------------------------------------------------


def test_a_card_is_placed_at_any_facing_in_degrees_or_a_compass_word() -> None:
    """L154: cards deploy within 10 cm of the base edge; a card turned 30 degrees must still lie wholly
    inside the strip (its corners reach 25 sin 30 + 15 cos 30 = 25.5 mm from the centre across y)."""
    state = battle([], stage="move")
    cards = [{"id": "reg-inf-a", "type": "reg_inf"}, {"id": "reg-inf-b", "type": "reg_inf"}]
    for c in cards:
        state["units"].append({**card("B9", "reg_inf", 0, 0, "north"), "id": c["id"], "status": "deploy"})
    fits = [
        {"unit": "reg-inf-a", "x": 300, "y": 30, "facing": 30},
        {"unit": "reg-inf-b", "x": 500, "y": 30, "facing": "north-east"},
    ]
    assert placement_problems(state, "blue", fits, cards, "south", 100, "orders.place") == []
    # at y 80 the turned card reaches 80 + 25.5 > 100: partly outside the strip
    spills = [{**fits[0], "y": 80}, fits[1]]
    problems = placement_problems(state, "blue", spills, cards, "south", 100, "orders.place")
    assert [p.code for p in problems] == ["illegal.place.zone"]
    bad = [{**fits[0], "facing": "northish"}, fits[1]]
    assert [p.code for p in placement_problems(state, "blue", bad, cards, "south", 100, "p")] == [
        "illegal.place.facing"
    ]


def test_a_move_ends_at_any_facing_and_the_state_keeps_it_quantized() -> None:
    state = battle([card("B1", "cavalry", 500, 300, "north")])
    after = moved(state, {"move": "B1", "to": {"x": 520, "y": 380, "facing": 37.25}})
    b1 = unit(after, "B1")
    assert (b1["x"], b1["y"], b1["facing"]) == (520, 380, 37.2)  # 0.1 degree kept (round half to even)


def test_contact_with_a_card_at_an_angle_lines_up_front_to_front() -> None:
    """L325: a contact lines the attacker's front edge up against the target's edge; at any angle."""
    state = battle([card("B1", "cavalry", 500, 300, "north"), card("R1", "reg_inf", 560, 420, 210)])
    after = moved(state, {"move": "B1", "contact": {"target": "R1", "edge": "front"}})
    b1, r1 = unit(after, "B1"), unit(after, "R1")
    assert b1["facing"] == 30
    # the centres are one card depth (30 mm) apart along R1's facing
    assert math.dist((b1["x"], b1["y"]), (r1["x"], r1["y"])) == pytest.approx(30, abs=0.1)
    assert contact_edge(b1, r1) == "front" and front_enemy(after, r1) is b1


# -- moves along a path, wheels ------------------------------------------------------------


def test_light_cavalry_goes_round_a_village_and_a_card_in_one_move() -> None:
    """L208: a single unit may move in any direction, no part of it farther than its allowance;
    Light Cavalry 50 cm in good going. Round the village by (600, 150) and (600, 350): the legs are
    111.8 + 200 + 111.8 = 423.6 mm, all in good going. Straight through, the village (bad going,
    G-41: the worst going on the path applies) cuts the allowance below the 300 mm needed."""
    village = feature("V1", "village", 450, 200, 550, 300)
    cards = [card("B1", "light_cav", 500, 100, "north"), card("B2", "dummy", 680, 250, "north")]
    assert codes(battle(cards, (village,)), {"move": "B1", "to": {"x": 500, "y": 400}}) == ["illegal.move.too-far"]
    after = moved(
        battle(cards, (village,)), {"move": "B1", "to": {"x": 500, "y": 400}, "via": [[600, 150], [600, 350]]}
    )
    assert (unit(after, "B1")["x"], unit(after, "B1")["y"]) == (500, 400)


def test_a_path_is_measured_along_its_legs_not_from_start_to_end() -> None:
    """L208: Regular Infantry 15 cm; out to (600, 150) and back to (500, 200) is 2 x 111.8 mm."""
    state = battle([card("B1", "reg_inf", 500, 100, "north")])
    assert codes(state, {"move": "B1", "to": {"x": 500, "y": 200}}) == []
    assert codes(state, {"move": "B1", "to": {"x": 500, "y": 200}, "via": [[600, 150]]}) == ["illegal.move.too-far"]


def test_a_path_round_a_card_may_not_pass_through_it() -> None:
    """L271: only Mounted pass Command Units, and anyone Combat Engineers; infantry may not pass infantry."""
    state = battle([card("B1", "light_cav", 500, 100, "north"), card("B2", "reg_inf", 600, 250, "north")])
    assert codes(state, {"move": "B1", "to": {"x": 500, "y": 400}, "via": [[600, 150], [600, 350]]}) == [
        "illegal.move.through"
    ]


def test_a_wheel_is_an_arc_about_a_front_corner() -> None:
    """A wheel pivots on a front corner; the farthest part, the rear outer corner sqrt(50^2 + 30^2) =
    58.3 mm from the pivot, travels 58.3 x pi/2 = 91.6 mm for 90 degrees: within infantry's 15 cm,
    but 180 degrees (183.2 mm) is not. Wheeling right 90 degrees about the front-right corner
    (525, 315), the centre (500, 300) goes to (510, 340), facing east."""
    state = battle([card("B1", "reg_inf", 500, 300, "north")])
    after = moved(state, {"move": "B1", "wheel": {"pivot": "right", "degrees": 90}})
    b1 = unit(after, "B1")
    assert (b1["x"], b1["y"], b1["facing"]) == (510, 340, 90)
    assert codes(state, {"move": "B1", "wheel": {"pivot": "right", "degrees": 180}}) == ["illegal.move.too-far"]


def test_a_wheel_onto_an_enemy_flank_beside_a_friend_crosses_nothing() -> None:
    """Issue 16: passing through friends is judged on the area the move sweeps. B1 wheels about its
    front-right corner onto R1's left flank; B2 stands touching B1's right side, which the wheel
    never reaches (every point of B1 turns about the corner on B2's edge)."""
    cards = [
        card("B1", "cavalry", 500, 300, "north"),
        card("B2", "reg_inf", 550, 300, "north"),
        card("R1", "reg_inf", 550, 350, "north"),
    ]
    after = moved(battle(cards), {"move": "B1", "wheel": {"pivot": "right", "degrees": 90}})
    assert (unit(after, "B1")["x"], unit(after, "B1")["y"], unit(after, "B1")["facing"]) == (510, 340, 90)
    assert front_enemy(after, unit(after, "R1")) is unit(after, "B1")  # R1, taken in flank, turned to face (L325)
    in_the_arc = [*cards[:1], card("B3", "reg_inf", 470, 360, "north")]
    assert codes(battle(in_the_arc), {"move": "B1", "wheel": {"pivot": "right", "degrees": 90}}) == [
        "illegal.move.through"
    ]


def test_the_going_is_read_on_the_whole_swept_area() -> None:
    """G-41: a card whose side brushes a wood (its centre's path clear of it) is in bad going."""
    wood = feature("W1", "woods", 530, 0, 700, 900)  # B1 spans x 475-525: a wheel or slide east enters
    state = battle([card("B1", "reg_inf", 500, 100, "north")], (wood,))
    assert codes(state, {"move": "B1", "to": {"x": 500, "y": 240}}) == []  # 140 mm, good going
    assert codes(state, {"move": "B1", "to": {"x": 515, "y": 220}}) == ["illegal.move.too-far"]  # 10 cm in bad


# -- the geometric findings ---------------------------------------------------------------


def test_a_line_is_still_a_line_with_a_general_touching_its_end() -> None:
    """L206: a Line is three or more combat units of one type, front corners touching, facing the same
    way; a General touching its end is not part of it, so it does not break it. L193-L200: a Command
    Group takes in every Line partly in range, so the whole Line is in the General's group although
    the Average General's 10 cm reach only covers its first cards."""
    cards = [
        card("B1", "reg_inf", 500, 300, "north"),
        card("B2", "reg_inf", 550, 300, "north"),
        card("B3", "reg_inf", 600, 300, "north"),
        card("B4", "reg_inf", 650, 300, "north"),
        card("B5", "general", 450, 300, "north"),
    ]
    state = battle(cards)
    assert {u["marker"] for u in line_through(state, unit(state, "B1"))} == {"B1", "B2", "B3", "B4"}
    assert {u["marker"] for u in command_group(state, unit(state, "B5"))} == {"B1", "B2", "B3", "B4", "B5"}


def test_a_line_at_an_angle_is_recognised() -> None:
    """L206 at any facing: three cards at 30 degrees, each 50 mm along the front from the last."""
    dx, dy = 50 * math.cos(math.radians(30)), -50 * math.sin(math.radians(30))
    cards = [card(f"B{k + 1}", "reg_inf", 500 + k * dx, 300 + k * dy, 30) for k in range(3)]
    for c in cards:
        c["x"], c["y"] = round(c["x"], 1), round(c["y"], 1)
    state = battle(cards)
    assert len(line_through(state, unit(state, "B2"))) == 3


def test_mounted_falling_back_pass_a_command_unit_facing_the_same_way() -> None:
    """L452: a unit falling back passes through friends facing the same way if allowed (L271: Mounted
    through Command Units) and ends to their rear: B1's front must clear the General's rear edge at
    y 245, so its centre ends at 245 - 15 = 230."""
    state = battle([card("B1", "cavalry", 500, 300, "north"), card("B2", "general", 500, 260, "north")])
    assert fall_back(bound(state, None), unit(state, "B1"), "test")
    assert (unit(state, "B1")["x"], unit(state, "B1")["y"]) == (500, 230)


def test_mounted_falling_back_onto_a_command_unit_facing_another_way_is_destroyed() -> None:
    """L452: friends not facing the same way can be neither passed through nor pushed back (Engineers
    excepted); a unit meeting friends it cannot pass or push is destroyed."""
    state = battle([card("B1", "cavalry", 500, 300, "north"), card("B2", "general", 500, 260, "east")])
    dice = ScriptedDice([6])  # the General behind flees in panic (L456) and rolls for a casualty
    assert not fall_back(bound(state, dice), unit(state, "B1"), "test")
    dice.assert_used_up()
    assert unit(state, "B1")["status"] == "destroyed"


def test_anyone_falling_back_passes_engineers_whatever_their_facing() -> None:
    """L452: Engineers can always be passed through."""
    state = battle([card("B1", "reg_inf", 500, 300, "north"), card("B2", "engineers", 500, 260, "west")])
    assert fall_back(bound(state, None), unit(state, "B1"), "test")
    assert unit(state, "B1")["status"] == "table" and unit(state, "B1")["y"] < 300 - 30


def test_falling_back_exactly_onto_an_enemy_front_destroys_the_unit() -> None:
    """L452: a unit that meets enemy while falling back is destroyed. B1's rear edge, 3 cm back, lands
    exactly on R2's front edge (y 255): it meets R2, and is destroyed rather than fighting again."""
    state = battle([card("B1", "reg_inf", 500, 300, "north"), card("R2", "reg_inf", 500, 240, "north")])
    assert not fall_back(bound(state, None), unit(state, "B1"), "test")
    assert unit(state, "B1")["status"] == "destroyed"


def test_falling_back_from_a_flank_attacker_is_not_meeting_it() -> None:
    """L452 with L327: a unit contacted only on a flank falls back along its attacker's front edge."""
    r1 = card("R1", "cavalry", 0, 0, "east")
    r1["x"], r1["y"], _ = contact_pose((500, 300, 0), "left")
    state = battle([card("B1", "reg_inf", 500, 300, "north"), r1])
    assert fall_back(bound(state, None), unit(state, "B1"), "test")
    assert unit(state, "B1")["y"] == 270


def test_a_fleeing_unit_swerves_by_the_least_angle_and_runs_its_full_move() -> None:
    """L454: a fleeing unit falls back 3 cm, turns about and moves its full allowance (Regular Infantry
    15 cm, G-32), changing direction only by the least needed to avoid friends it cannot pass; it
    never stops short. B2 stands straight in its way."""
    state = battle([card("B1", "reg_inf", 500, 300, "south"), card("B2", "reg_inf", 500, 420, "north")])
    flee(bound(state, None), unit(state, "B1"), "test")
    b1 = unit(state, "B1")
    assert b1["status"] == "table" and b1["disordered"]
    assert math.dist((b1["x"], b1["y"]), (500, 330)) == pytest.approx(150, abs=0.2)
    swerve = min(b1["facing"], 360 - b1["facing"])
    assert 0 < swerve < 90
    assert not overlaps(rect_of(b1), rect_of(unit(state, "B2")))
    # one degree less would have run into B2
    less = b1["facing"] - 1 if b1["facing"] < 180 else b1["facing"] + 1
    path = swept((500, 330, 0), (500, 330, less)).union(
        swept(
            (500, 330, less), (500 + 150 * math.sin(math.radians(less)), 330 + 150 * math.cos(math.radians(less)), less)
        )
    )
    assert overlaps(path, rect_of(unit(state, "B2")))


def test_a_fleeing_unit_swerves_round_difficult_ground_rather_than_stopping_in_it() -> None:
    """L454: bad going is avoided by the least change of direction, never entered or stopped short of."""
    wood = feature("W1", "woods", 470, 400, 530, 460)
    state = battle([card("B1", "reg_inf", 500, 300, "south")], (wood,))
    flee(bound(state, None), unit(state, "B1"), "test")
    b1 = unit(state, "B1")
    assert b1["status"] == "table"
    assert math.dist((b1["x"], b1["y"]), (500, 330)) == pytest.approx(150, abs=0.2)
    assert not overlaps(rect_of(b1), (470, 400, 530, 460)) and 0 < min(b1["facing"], 360 - b1["facing"]) < 90


def test_a_fleeing_unit_blocked_every_way_is_destroyed() -> None:
    """L454: a fleeing unit blocked by enemy, friends it cannot pass or bad or impassable going is
    destroyed. A lake across its front and enemies at both sides leave no way out within a quarter
    turn."""
    lake = feature("L1", "lake", 0, 380, 1200, 600)
    cards = [
        card("B1", "reg_inf", 500, 300, "south"),
        card("R1", "reg_inf", 560, 330, "north"),
        card("R2", "reg_inf", 440, 330, "north"),
    ]
    state = battle(cards, (lake,))
    assert flight({**state}, {**unit(state, "B1"), "y": 330, "facing": 0}, 150).end is None
    flee(bound(state, None), unit(state, "B1"), "test")
    assert unit(state, "B1")["status"] == "destroyed"


def test_the_flight_keeps_to_the_table_or_leaves_it() -> None:
    """L454 with R8: a unit fleeing off the table edge counts as lost."""
    state = battle([card("B1", "reg_inf", 500, 800, "south")])
    flee(bound(state, None), unit(state, "B1"), "test")
    assert unit(state, "B1")["status"] == "off_table"


def test_pose_of_reads_old_compass_words() -> None:
    assert pose_of({"x": 1, "y": 2, "facing": "west"}) == (1.0, 2.0, 270.0)


@pytest.mark.parametrize(("first", "east_of_centre"), [("clockwise", True), ("anticlockwise", False)])
def test_a_fleeing_unit_swerves_the_way_the_option_says_when_both_ways_are_equal(
    first: str, east_of_centre: bool
) -> None:
    """G-32 (the book gives no side): B2 stands squarely in the way, so either side needs the same turn."""
    cards = [card("B1", "reg_inf", 500, 300, "south"), card("B2", "reg_inf", 500, 420, "north")]
    state = battle(cards, options={"flee_swerve_first": first})
    flee(bound(state, None), unit(state, "B1"), "test")
    assert (unit(state, "B1")["x"] > 500) is east_of_centre


def test_a_line_wheels_each_card_through_the_same_angle() -> None:
    """L206: the cards of a Line move the same distance or wheel through the same angles; the Line
    wheels as one about its end: B1's centre (500, 300) turns 20 degrees clockwise about B3's
    front-right corner (625, 315), to (625 - 125 cos 20 - 15 sin 20, 315 + 125 sin 20 - 15 cos 20)
    = (502.4, 343.6); its farthest corner, 153 mm from the pivot, travels 53.4 mm."""
    cards = [card(f"B{k}", "reg_inf", 450 + 50 * k, 300, "north") for k in (1, 2, 3)]
    same = [{"move": f"B{k}", "wheel": {"pivot": "right", "degrees": 20}} for k in (1, 2, 3)]
    after = moved(battle(cards), {"line": ["B1", "B2", "B3"], "moves": same})
    b1 = unit(after, "B1")
    assert (b1["x"], b1["y"], b1["facing"]) == (pytest.approx(502.4, abs=0.1), pytest.approx(343.6, abs=0.1), 20)
    ragged = [*same[:2], {"move": "B3", "wheel": {"pivot": "right", "degrees": 30}}]
    assert codes(battle(cards), {"line": ["B1", "B2", "B3"], "moves": ragged}) == ["illegal.formation.line"]


def test_a_turn_counts_the_arc_its_corners_travel() -> None:
    """L208: no part of the base moves more than the allowance (Heavy Artillery 5 cm). Turning in place,
    each corner, sqrt(25^2 + 15^2) = 29.15 mm from the centre, runs an arc: 45.8 mm for 90 degrees,
    50.9 mm for 100 degrees (though the corner ends only 44.7 mm from where it began)."""
    state = battle([card("B1", "heavy_artillery", 500, 300, "north")])
    assert codes(state, {"move": "B1", "to": {"x": 500, "y": 300, "facing": 90}}) == []
    assert codes(state, {"move": "B1", "to": {"x": 500, "y": 300, "facing": 100}}) == ["illegal.move.too-far"]


def _move_path(state: dict[str, Any], action: Orders) -> list[list[float]]:
    result = run_movement(state, "blue", {"actions": [action]}, None)
    assert not result.problems, result.problems
    [event] = [e for e in result.events if (e["kind"] if isinstance(e, dict) else e.kind) == "move"]
    data = event["data"] if isinstance(event, dict) else event.data
    return data["path"]


def test_a_moves_picture_arrow_runs_through_its_waypoints_and_along_a_wheels_arc() -> None:
    """The picture draws a move from the path its event carries: the start, each waypoint and the
    end; for a wheel, points along the centre's arc about the pivot (every 10 degrees)."""
    cards = [card("B1", "light_cav", 500, 100, "north")]
    path = _move_path(battle(cards), {"move": "B1", "to": {"x": 500, "y": 400}, "via": [[600, 150], [600, 350]]})
    assert path == [[500, 100], [600, 150], [600, 350], [500, 400]]
    path = _move_path(
        battle([card("B1", "reg_inf", 500, 300, "north")]), {"move": "B1", "wheel": {"pivot": "right", "degrees": 90}}
    )
    assert len(path) == 10 and path[0] == [500, 300] and path[-1] == [510, 340]
    assert all(math.isclose(math.dist(p, (525, 315)), math.dist((500, 300), (525, 315)), abs_tol=0.1) for p in path)
