"""Polemos on the referee's table (option battlefield: table, new games): positions, moves at the
book's rates, contacts and support read from the table, recoils and falls back moved, the picture.

Each rule's test names the line of the rulebook file (shared/seeds/004_...txt) it comes from.
Lengths are in mm with the default base width: 1BW = 60 mm, 1BD = 30 mm (L105, L116).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import kept_letters
import pytest
import yaml
from obb_helpers import TEST_TABLES, army_event, event, new_game, play
from test_obb_combat_example import TURN_ONE_DICE, VAN_GELDER_ATTACKS, turn_one_contact

from games.polemos_obb import GAME
from games.polemos_obb.options import NEW_GAME_OPTIONS
from games.polemos_obb.picture import _initials
from games.polemos_obb.table import back
from referee.game.engine import adjudicate, init_game
from referee.kit.tabletop.picture import check_scene
from referee.letters.post import read_kept_html
from referee.protocol.signatures import generate_keypair

from scripted_dice import ScriptedDice

NEW = {**NEW_GAME_OPTIONS, "pace": "every-phase"}  # every step waits for its orders: the tests play each
BW, BD = 60, 30
FOOT = ["imperial-foot-1", "imperial-foot-2", "imperial-foot-3"]
# Test costs for groups of 2, 3 and 5 brigades (the book's tempo-cost table is missing).
COSTS = {"move": [{"brigades": 2, "tp": 3}, {"brigades": 3, "tp": 4}, {"brigades": 5, "tp": 6}]}


def pose(state: dict[str, Any], base: str) -> tuple[Any, Any, Any]:
    record = state["bases"][base]["pose"]
    return record["x"], record["y"], record["facing"]


def combat_moves() -> dict[str, Any]:
    """The combat example on the table at van Gelder's moves phase (7 TP to spend)."""
    state = new_game(**NEW)
    state, _, _ = play(state, {}, [5, 3])
    state, _, _ = play(state, {"dutch": {"bid": 2}, "bavarian": {"bid": 1}})
    state, _, _ = play(state, {"dutch": {"allocate": [{"general": "van-gelder", "tp": 7}]}})
    state, _, _ = play(state, {})  # no bombardment
    assert state["step"] == "tempo-moves"
    return state


def danube(side: str = "allies", tp: int = 20) -> dict[str, Any]:
    """The danube demo on the table, mustered, at `side`'s moves step with every commander given `tp`."""
    morale = {"cmf": {"dutch": 9, "imperial": 9, "bavarian": 9}}
    state = new_game("danube-demo", **NEW, army_morale=morale, order_costs=COSTS)
    state, _ = GAME.resolve(state, {}, ScriptedDice([3] * 200))  # muster: the Imperial army generated
    state["step"], state["tempo"]["side"] = "tempo-moves", side
    state["allocations"] = {
        army: {state["divisions"][d]["commander"]: tp for d in record["divisions"]}
        for army, record in state["armies"].items()
    }
    return state


def moves(state: dict[str, Any], player: str, *orders: dict[str, Any]) -> list[str]:
    return [p.code for p in GAME.validate(state, player, {"moves": list(orders)})]


def move(brigades: list[str], *steps: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"order": "move", "brigades": brigades, "steps": list(steps), **more}


# -- positions -------------------------------------------------------------------------------


def test_the_combat_example_stands_as_the_book_draws_it_once_the_line_has_conformed() -> None:
    """L378-L382: X contacts M and the line conforms; L396: W beside X. 1BW x 1BD bases (L116)."""
    state = combat_moves()
    assert [pose(state, b) for b in "VWXYZ"] == [(x, 180, 0) for x in (120, 180, 240, 300, 360)]
    assert [pose(state, b) for b in "MNOP"] == [(x, 210, 180) for x in (240, 300, 360, 420)]
    assert state["divisions"]["van-gelder"]["formation"] == "deployed"
    assert "pose" in state["generals"]["van-gelder"]


def test_a_division_in_defile_stands_one_base_behind_another() -> None:
    """L233: defile is a march formation one BW wide."""
    state = danube()
    column = [pose(state, f"imperial-foot-{n}") for n in (1, 2, 3)]
    assert column == [(930, 270, 0), (930, 240, 0), (930, 210, 0)]
    assert state["divisions"]["imperial-foot"]["formation"] == "defile"
    guns = pose(state, "imperial-guns-1"), pose(state, "imperial-guns-2")
    assert guns[1][0] - guns[0][0] == BW / 2  # artillery is 0.5BW wide (L124)


def test_a_game_begun_before_keeps_no_table() -> None:
    state = new_game()
    assert "table" not in state
    state, _, _ = play(state, {}, [5, 3])
    assert "pose" not in state["bases"]["V"]
    assert GAME.picture is not None and GAME.picture(GAME.view(state, "dutch"), "dutch", []) is None


# -- moves at the book's rates -------------------------------------------------------------


def test_deployed_troops_move_1bw_and_no_more() -> None:
    """L251: infantry or cavalry deployed over 1BW wide move up to 1BW a turn."""
    state = danube()
    assert moves(state, "dutch", move(["V", "W", "X", "Y", "Z"], {"advance": BW})) == []
    assert moves(state, "dutch", move(["V"], {"advance": BW + 5})) == ["illegal.moves.too-far"]


def test_a_column_in_defile_marches_4bw_along_its_path_each_base_in_the_trail() -> None:
    """L249: a column moves 4BW; the leading base wheels round obstacles, the followers keep corner contact."""
    state = danube()
    column = move(FOOT, {"march": [[930, 330], [990, 330], [990, 420]]})  # 60 + 60 + 90 = 210 mm
    assert moves(state, "imperial", column) == []
    after, _, _ = play(state, {"imperial": {"moves": [column]}})
    assert pose(after, "imperial-foot-1") == (990, 420, 0)
    assert pose(after, "imperial-foot-2") == (990, 390, 0)
    too_far = move(FOOT, {"march": [[930, 400], [1100, 400]]})  # 130 + 170 = 300 > 240
    assert moves(state, "imperial", too_far) == ["illegal.moves.too-far"]


def test_hussars_deployed_move_2bw() -> None:
    """L256."""
    state = danube()
    for base in ("H1", "H2"):
        state["bases"][base]["type"] = "hussars"
    assert moves(state, "dutch", move(["H1", "H2"], {"advance": 2 * BW})) == []
    assert moves(state, "dutch", move(["H1", "H2"], {"advance": 2 * BW + 5})) == ["illegal.moves.too-far"]


def test_cavalry_launching_an_attack_adds_1bw_and_must_reach_the_enemy() -> None:
    """L255: cavalry launching an attack may add 1BW to its move."""
    state = danube()
    state["bases"]["A"]["pose"] = {"x": 590, "y": 300, "facing": 180}  # 1.5BW from H1's front, clear of H2
    charge = move(["H1"], {"advance": 90}, charge=True)
    assert moves(state, "dutch", charge) == []
    assert moves(state, "dutch", move(["H1"], {"advance": 90})) == ["illegal.moves.too-far"]
    assert moves(state, "dutch", move(["H2"], {"advance": 90}, charge=True)) == ["illegal.moves.charge"]
    assert set(moves(state, "dutch", move(["V"], {"advance": 30}, charge=True))) == {"illegal.moves.charge"}


def test_a_wheel_is_at_most_1bw_at_the_outer_corner_and_artillery_1bd() -> None:
    """L267-L268."""
    state = danube()
    assert moves(state, "dutch", move(["V", "W"], {"wheel": "right", "by": BW})) == []
    assert "illegal.moves.wheel" in moves(state, "dutch", move(["V", "W"], {"wheel": "right", "by": BW + 10}))
    guns = move(["imperial-guns-1"], {"wheel": "left", "by": BD + 5})
    state["bases"]["imperial-guns-1"]["limbered"] = False  # light artillery, manhandled (L265)
    assert "illegal.moves.wheel" in moves(state, "imperial", guns)
    assert moves(state, "imperial", move(["imperial-guns-1"], {"wheel": "right", "by": BD})) == []


def test_a_retire_is_1bd_back_keeping_the_facing() -> None:
    """L269: infantry, cavalry and dismounted dragoons retire 1BD, ending facing as they started."""
    state = danube()
    after, _, _ = play(state, {"dutch": {"moves": [move(["V"], {"retire": True})]}})
    assert pose(after, "V") == (240, 150, 0)
    assert moves(state, "dutch", move(["V"], {"retire": True}, {"advance": 10})) == ["illegal.moves.retire"]


def test_guns_limbered_move_as_baggage_unlimbered_field_guns_never() -> None:
    """L144 and L262: limbers count as baggage, 1BD; L264: unlimbered field artillery never moves again;
    L265: unlimbered light artillery is manhandled 1BW."""
    state = danube()
    assert moves(state, "imperial", move(["imperial-guns-1"], {"advance": BD})) == []
    assert moves(state, "imperial", move(["imperial-guns-1"], {"advance": BD + 5})) == ["illegal.moves.too-far"]
    state["bases"]["imperial-guns-1"]["limbered"] = False
    assert moves(state, "imperial", move(["imperial-guns-1"], {"advance": BW})) == []
    state["bases"]["imperial-guns-4"]["limbered"] = False
    assert moves(state, "imperial", move(["imperial-guns-4"], {"advance": 10})) == ["illegal.moves.field-artillery"]


def test_friends_pass_through_each_other_enemies_stop_a_move() -> None:
    """L270: friendly infantry or cavalry pass through each other; a move ends on no other base."""
    state = danube()
    state["bases"]["imperial-horse-1"]["pose"] = {"x": 930, "y": 360, "facing": 0}
    through = move(FOOT, {"advance": 4 * BW})
    assert moves(state, "imperial", through) == []
    assert moves(state, "imperial", move(FOOT, {"advance": 90})) == ["illegal.moves.ends-on"]
    state["bases"]["A"]["pose"] = state["bases"]["imperial-horse-1"]["pose"]
    state["bases"]["imperial-horse-1"]["pose"] = {"x": 1020, "y": 180, "facing": 0}
    assert set(moves(state, "imperial", through)) == {"illegal.moves.through"}


def test_bases_thrown_together_may_stand_and_a_move_must_leave_them_apart() -> None:
    """Bases thrown back onto friends share ground until they move: an order to stand (no steps) is
    no move onto a base; a move ends on no base."""
    state = danube()
    state["bases"]["imperial-foot-3"]["pose"] = {"x": 930, "y": 225, "facing": 0}  # half on imperial-foot-2
    assert moves(state, "imperial", move(["imperial-foot-3"])) == []
    assert moves(state, "imperial", move(["imperial-foot-3"], {"advance": 10})) == ["illegal.moves.ends-on"]


def test_a_base_thrown_onto_an_enemy_may_stand() -> None:
    """Nothing in the book stops a base from standing. In the long danube game a horse base thrown
    onto Q2 had its order to stand refused ("would pass through Q2") turn after turn, so it could
    never attack (an attack is the end of a move, option attack_needs_move)."""
    state = danube()
    state["bases"]["imperial-horse-1"]["pose"] = {"x": 700, "y": 555, "facing": 0}  # 15 mm into Q2's rear
    state["bases"]["Q2"]["pose"] = {"x": 707, "y": 575, "facing": 180}
    assert moves(state, "imperial", move(["imperial-horse-1"])) == []
    assert moves(state, "imperial", move(["imperial-horse-1"], {"advance": 30})) == [
        "illegal.moves.ends-on",
        "illegal.moves.through",
    ]  # further into the enemy: refused as before


def test_brigades_act_on_one_order_only_within_1bw() -> None:
    """L237: brigades within 1BW of each other act on one order; a larger gap needs separate orders."""
    state = danube()
    assert moves(state, "dutch", move(["V", "Z"], {"advance": 30})) == ["illegal.moves.apart"]
    assert moves(state, "dutch", move(["V", "W"], {"advance": 30})) == []


def test_no_move_off_the_table_nor_into_terrain_whose_effects_are_missing() -> None:
    """Terrain effects (p. 22) are not in the rulebook file: option terrain_moves refuses, or lets bases through."""
    state = danube()
    state["bases"]["V"]["pose"] = {"x": 30, "y": 180, "facing": 270}
    assert moves(state, "dutch", move(["V"], {"advance": 30})) == ["illegal.moves.off-table"]
    state["bases"]["imperial-horse-3"]["pose"] = {"x": 1230, "y": 300, "facing": 0}
    assert moves(state, "imperial", move(["imperial-horse-3"], {"advance": 60})) == ["illegal.moves.terrain"]
    state["config"]["terrain_moves"] = "free"
    assert moves(state, "imperial", move(["imperial-horse-3"], {"advance": 60})) == []


def test_a_column_deploys_the_lead_base_right_and_the_next_three_on_its_left() -> None:
    """L283: the lead base wheels up to 45 degrees free and moves up to 4BW to the right; the next three
    form on its left."""
    state = danube()
    deploy = move(FOOT, {"deploy": {"wheel": 0, "right": 2 * BW}})
    after, _, _ = play(state, {"imperial": {"moves": [deploy]}})
    assert [pose(after, f"imperial-foot-{n}") for n in (1, 2, 3)] == [(1050, 270, 0), (990, 270, 0), (930, 270, 0)]
    assert after["divisions"]["imperial-foot"]["formation"] == "deployed"
    assert moves(state, "imperial", move(FOOT, {"deploy": {"right": 5 * BW}})) == ["illegal.moves.deploy"]
    assert moves(state, "dutch", move(["V"], {"deploy": {"right": 10}})) == ["illegal.moves.deploy"]


def test_a_general_rides_3bw_1bw_when_lethargic() -> None:
    """L263: generals move 3BW a turn, lethargic ones 1BW, 4BW with troops in march formation."""
    state = danube()
    state["step"] = "tempo-command"
    ride = {"generals": [{"general": "van-gelder", "to": [360, 120 + 3 * BW]}]}
    assert GAME.validate(state, "dutch", ride) == []
    far = {"generals": [{"general": "von-falk", "to": [1140, 120 + 2 * BW]}]}  # lethargic
    assert [p.code for p in GAME.validate(state, "imperial", far)] == ["illegal.general.too-far"]


# -- contact from the table ------------------------------------------------------------------


def contact(state: dict[str, Any], player: str, **attack: Any) -> list[str]:
    return [p.code for p in GAME.validate(state, player, {"attacks": [attack]})]


def test_an_attack_without_contact_on_the_table_is_refused() -> None:
    state = danube("franco-bavarian")
    state["moved"] = ["M", "N"]
    state["step"] = "tempo-contact"
    codes = contact(state, "bavarian", division="de-salon", target="van-gelder", pairs=[["M", "V"], ["N", "W"]])
    assert codes == ["illegal.attack.no-contact"]


def test_pairs_support_and_column_are_held_to_the_table() -> None:
    """L382: the line conforms by wheeling forward up to 2BW; L396/L426: support beside or directly behind."""
    state = turn_one_contact(**NEW)
    book = VAN_GELDER_ATTACKS["dutch"]["attacks"][0]
    assert GAME.validate(state, "dutch", VAN_GELDER_ATTACKS) == []
    assert contact(state, "dutch", **{**book, "support": [{"base": "X", "by": ["V"]}]}) == [
        "illegal.support.not-beside"
    ]
    assert contact(state, "dutch", **{**book, "column": True}) == ["illegal.attack.column"]
    state["bases"]["P"]["pose"] = {"x": 600, "y": 210, "facing": 180}
    assert contact(state, "dutch", **{**book, "support": [], "pairs": [*book["pairs"], ["W", "P"]]}) == [
        "illegal.attack.out-of-reach"
    ]
    blocked = {**book, "support": [], "rounds": [], "pairs": [["V", "M"]]}  # V would conform onto M, where X stands
    assert contact(state, "dutch", **blocked) == ["illegal.attack.blocked"]
    overrun = {"attacks": [book], "overrun_generals": ["de-salon"]}
    assert [p.code for p in GAME.validate(state, "dutch", overrun)] == ["illegal.overrun.not-in-the-way"]


def test_a_defender_s_standing_support_counts_only_from_beside_or_behind() -> None:
    """L396, L426: P, two bases from M, gives M no support however its standing orders declare it."""
    state = turn_one_contact(**NEW)
    state["standing"]["bavarian"] = {"respond": "fight", "bases": {}, "support": {"M": ["P"]}}
    attack = {"division": "van-gelder", "target": "de-salon", "pairs": [["X", "M"]]}
    state, events, _ = play(state, {"dutch": {"attacks": [attack]}}, [4, 4, 4, 4, 4, 4, 3, 3])
    for played in event(events, "combat.encounter").data["rounds"]:
        assert played["combats"][0]["defender"]["modifiers"] == []


def test_recoils_follow_ups_and_advances_move_the_bases_as_the_book_tells() -> None:
    """L403/L407: N and O recoil 1BD; L409: Y follows up, Z stays; L439: Z advances back into contact."""
    state, events, _ = play(turn_one_contact(**NEW), VAN_GELDER_ATTACKS, [*TURN_ONE_DICE, 2, 5])
    moved = [(m["base"], m["why"]) for m in event(events, "combat.encounter").data["engagements"][0]["moves"]]
    assert moved[:3] == [("N", "recoils"), ("O", "recoils"), ("Y", "follows up")]
    assert ("Z", "advances into contact") in moved
    assert pose(state, "Y") == (300, 210, 0) and pose(state, "N") == (300, 240, 180)
    assert pose(state, "M") == (240, 270, 180)  # recoiled twice, 1BD each, X did not follow the second time
    assert pose(state, "X") == (240, 210, 0)


def test_a_losing_division_falls_back_the_difference_less_2_base_depths() -> None:
    """L482 (the book's hypothetical): de Salon 10, van Gelder 2: he falls back 6BD, his bases shaken."""
    state, events, _ = play(turn_one_contact(**NEW), VAN_GELDER_ATTACKS, [*TURN_ONE_DICE, 5, 2])
    fall_back = event(events, "combat.encounter").data["outcome"]["fall_backs"][0]
    assert fall_back["bd"] == 6
    assert {m["base"] for m in fall_back["moves"]} == {"N", "P"}  # M and O, shaken already, broke
    assert pose(state, "N") == (300, 240 + 6 * BD, 180)


def test_a_base_thrown_back_stops_at_the_table_s_edge() -> None:
    """The file says nothing of bases driven off the table: the referee moves them back no farther
    than the edge, where they stay in play (a fall-back of the danube game left bases at y < 0)."""
    state = danube()
    state["bases"]["V"]["pose"] = {"x": 240, "y": 40, "facing": 0}
    assert ends_back(state, "V") == pytest.approx((240, 15, 0))  # its rear on the south edge
    state["bases"]["M"]["pose"] = {"x": 300, "y": 930, "facing": 180}
    assert ends_back(state, "M") == pytest.approx((300, 945, 180))  # the table is 960 mm deep
    state["bases"]["V"]["pose"] = {"x": 240, "y": 150, "facing": 0}
    assert ends_back(state, "V") == pytest.approx((240, 30, 0))  # room enough: 2BW


def test_a_base_thrown_back_stops_at_the_first_enemy_behind_it() -> None:
    """L270: never through an enemy. A fall-back of de Salon's division in the danube game left O
    on V, who stood behind it."""
    state = danube()
    state["bases"]["M"]["pose"] = {"x": 240, "y": 20, "facing": 180}  # from y 5 to 35
    state["bases"]["V"]["pose"] = {"x": 240, "y": 120, "facing": 0}  # 2BW back would end at y 0
    assert ends_back(state, "V") == pytest.approx((240, 50, 0), abs=1)  # its rear against M (35 + 15)


def test_a_base_whose_rear_touches_an_enemy_goes_back_no_farther() -> None:
    """L270: never through an enemy, nor onto one. In the long danube game an Imperial horse base
    stood rear to rear with Q2, recoiled 1BD onto it, and the two then stood overlapping: every
    order of theirs after was refused ("would pass through"), standing included, so neither could
    attack again for 18 turns."""
    state = danube()
    state["bases"]["Q2"]["pose"] = {"x": 707, "y": 575, "facing": 180}  # its rear edge at y 590
    state["bases"]["imperial-horse-3"]["pose"] = {"x": 754, "y": 606, "facing": 0}  # its rear at y 591
    assert ends_back(state, "imperial-horse-3") == pytest.approx((754, 606, 0), abs=3)  # within the touch of 1 mm


def ends_back(state: dict[str, Any], base: str) -> tuple[float, float, float]:
    end, _ = back(state, base, 2 * BW)
    return end.x, end.y, end.facing


def test_a_broken_base_goes_2bw_straight_back() -> None:
    """L506: a broken base moves straight back 2BW."""
    attack = {
        "division": "van-gelder",
        "target": "de-salon",
        "pairs": [["X", "M"]],
        "support": [{"base": "X", "by": ["W"]}],
    }
    state, events, _ = play(turn_one_contact(**NEW), {"dutch": {"attacks": [attack]}}, [6, 1, 3, 3])
    assert state["bases"]["M"]["state"] == "broken"
    assert pose(state, "M") == (240, 210 + 2 * BW, 180)


# -- the picture -----------------------------------------------------------------------------


def test_the_picture_draws_every_base_the_moves_and_the_fights() -> None:
    state, events, _ = play(turn_one_contact(**NEW), VAN_GELDER_ATTACKS, [*TURN_ONE_DICE, 2, 5])
    seen = [{"kind": e.kind, "text": e.text, "data": e.data} for e in events]
    scene = GAME.picture(GAME.view(state, "dutch"), "dutch", seen)
    assert scene is not None
    check_scene(scene)
    items = scene["items"]
    units = [i["label"] for i in items if i["item"] == "unit"]
    assert {"X Ft", "M Ft sh", "A Hs"} <= set(units)
    assert sum(i["item"] == "arrow" for i in items) == 9
    assert sum(i["item"] == "marker" for i in items) == 3
    assert scene["sides"]["allies"]["name"] == "The Allies (you)"
    public = GAME.picture(GAME.view(state, None), None, seen)
    assert public is not None and public["items"] == items  # the table is public


def test_generals_leave_the_picture_with_their_troops() -> None:
    """The last report of a battle drew the broken Imperial army's generals on an empty field."""
    state = danube()
    labels = _general_labels(state)
    assert {"Gen VG", "Gen DS", "Gen ICIC"} <= labels
    state["armies"]["imperial"]["exhausted"] = True  # the army leaves the battle: all its generals go
    state["divisions"]["de-salon"]["spent"] = True  # a spent division's commander goes with it
    imperial = {g for g, general in state["generals"].items() if general["army"] == "imperial"}
    gone = {_initials({"id": g}) for g in imperial} | {"Gen DS"}
    assert {"Gen ICIC", "Gen VA"} <= gone
    assert _general_labels(state) == labels - gone and "Gen BCIC" in labels - gone


def _general_labels(state: dict) -> set[str]:
    scene = GAME.picture(GAME.view(state, "dutch"), "dutch", [])
    assert scene is not None
    return {i["label"] for i in scene["items"] if i["item"] == "unit" and i["label"].startswith("Gen ")}


def test_the_pairs_in_reach_are_written_as_pairs_are_ordered() -> None:
    """Ids with hyphens (imperial-foot-1) made "imperial-foot-1-D" unreadable: a pair is [OWN, ENEMY]."""
    state = danube()
    state["bases"]["A"]["pose"] = {"x": 930, "y": 300, "facing": 180}  # touching imperial-foot-1's front
    state["step"] = "tempo-contact"
    state["moved"] = ["imperial-foot-1"]  # its brigade moved: it may attack
    assert "[imperial-foot-1, A] touching" in GAME.example(state, "imperial").notes["orders.attacks"]


def test_the_pairs_in_reach_are_only_those_an_attack_may_name() -> None:
    """The long danube game's contact form listed B's pairs "in reach" while B fought in an
    engagement and its brigade had not moved: an attack naming them is refused (already in
    contact; option attack_needs_move), so the form misled the player."""
    state = danube()
    state["bases"]["A"]["pose"] = {"x": 930, "y": 300, "facing": 180}  # touching imperial-foot-1's front
    state["step"] = "tempo-contact"
    assert "[imperial-foot-1, A]" not in GAME.example(state, "imperial").notes["orders.attacks"]  # not moved
    state["moved"] = ["imperial-foot-1"]
    assert "[imperial-foot-1, A] touching" in GAME.example(state, "imperial").notes["orders.attacks"]
    state["engagements"] = [
        {"id": "e1", "divisions": ["imperial-foot", "st-joseph"], "launched_by": "imperial", "started": 1,
         "pairs": [{"bases": ["imperial-foot-1", "A"], "contact": True}], "support": {}, "fought_turn": 1}
    ]  # fmt: skip
    assert "reached as your line conforms, up to 2BW): none;" in GAME.example(state, "imperial").notes["orders.attacks"]


def test_a_long_id_is_labelled_by_its_initials_and_number() -> None:
    """The generated Imperial bases' ids (imperial-horse-3) ran over their neighbours' on the picture."""
    state = danube()
    scene = GAME.picture(GAME.view(state, "imperial"), "imperial", [])
    assert scene is not None
    labels = {i["label"] for i in scene["items"] if i["item"] == "unit"}
    assert {"ih3 Cu", "if1 Ft", "ig5 FA", "Q1 Ft"} <= labels
    assert "(imperial-foot-1: if1)" in GAME.example(state, "imperial").notes["orders.moves"]


def test_the_order_form_lists_positions_and_targets_in_reach() -> None:
    state = combat_moves()
    # A letter prints a note only on a field the form fills in: the notes go on `moves` and `attacks`.
    form = GAME.example(state, "dutch")
    assert "moves" in form.orders and "X at (240, 180) facing 0" in form.notes["orders.moves"]
    assert "van-gelder: 7 TP left" in form.notes["orders.moves"]  # the form's own note is kept
    state, _, _ = play(state, {"dutch": {"moves": [{"order": "move", "brigades": ["W", "X", "Y", "Z"]}]}})
    form = GAME.example(state, "dutch")
    assert "attacks" in form.orders and "[X, M] touching" in form.notes["orders.attacks"]


@pytest.mark.parametrize("options", [{}, {"battlefield": "players"}])
def test_steps_are_refused_without_the_table(options: dict[str, Any]) -> None:
    state = new_game(**options)
    state, _, _ = play(state, {}, [5, 3])
    state, _, _ = play(state, {"dutch": {"bid": 2}, "bavarian": {"bid": 1}})
    state, _, _ = play(state, {"dutch": {"allocate": [{"general": "van-gelder", "tp": 7}]}})
    state, _, _ = play(state, {})
    assert GAME.validate(state, "dutch", {"moves": [move(["V"], {"advance": 10})]})


def test_a_bombarded_base_recoils_1bd_on_the_table_and_the_shot_is_drawn() -> None:
    """The combat chart's distances (L403) for the bombardment's recoil: p. 17's rules are missing."""
    state = danube("franco-bavarian")
    state["overlays"]["tables"] = TEST_TABLES
    state["step"] = "tempo-bombardment"
    fire = {"fire": [{"battery": "G1", "target": "X"}]}
    assert GAME.validate(state, "bavarian", fire) == []
    after, events = GAME.resolve(state, {"bavarian": fire}, ScriptedDice([5]))
    assert pose(after, "X") == (360, 180 - BD, 0)
    seen = [{"kind": e.kind, "text": e.text, "data": e.data} for e in events]
    scene = GAME.picture(GAME.view(after, "dutch"), "dutch", seen)
    assert scene is not None
    assert [i["kind"] for i in scene["items"] if i["item"] == "arrow"] == ["shot", "fall-back"]


def test_a_contact_step_with_no_base_touching_the_enemy_is_adjudicated_at_once() -> None:
    """Option pace: skip-idle: on the table an attack opens from contact, so without any the step is idle."""
    state = danube()
    state["config"]["pace"] = "skip-idle"
    after, events = GAME.resolve(state, {"dutch": {"moves": [move(["V"], {"advance": 30})]}}, ScriptedDice([]))
    idle = [e for e in events if e.kind == "pace.at-once"]
    assert idle and "touches an enemy base" in idle[0].data["why"]
    assert after["step"] == "other-command"


@pytest.mark.parametrize(
    ("option", "z_ends"),
    [("a", (120, 300, 0)), ("b", (180, 240, 0))],
)
def test_the_second_turn_of_a_deployment_extends_the_line_or_forms_a_second(option: str, z_ends: tuple) -> None:
    """L289: (a) the line goes on to the right and the rest form on its left; L295: (b) the leading
    base still in column makes the same move and ends behind the first line, up to 1BW to the rear."""
    state = danube()
    state["divisions"]["van-gelder"]["formation"] = "defile"
    for index, base in enumerate("VWXYZ"):
        state["bases"][base]["pose"] = {"x": 240, "y": 300 - index * BD, "facing": 0}
    first = move(["V", "W", "X", "Y", "Z"], {"deploy": {"right": BW}})
    state, _, _ = play(state, {"dutch": {"moves": [first]}})
    assert [pose(state, b) for b in "VWXYZ"] == [
        (300, 300, 0),
        (240, 300, 0),
        (180, 300, 0),
        (120, 300, 0),
        (120, 240, 0),
    ]
    assert state["divisions"]["van-gelder"]["formation"] == "deploying"
    state["moved"], state["tp_spent"], state["step"] = [], {}, "tempo-moves"
    second = {**first, "steps": [{"deploy": {"option": option, "right": BW}}]}
    assert moves(state, "dutch", second) == ["illegal.moves.deploy"]  # a continuation move (L278)
    state["overlays"]["order_costs"] = {**COSTS, "continue": [{"brigades": 5, "tp": 4}]}
    state, _, _ = play(state, {"dutch": {"moves": [{**second, "order": "continue"}]}})
    assert pose(state, "Z") == z_ends
    assert state["divisions"]["van-gelder"]["formation"] == "deployed"


def test_a_new_game_s_letters_carry_the_battlefield(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the core: `referee init` gives a new game the table, and its muster report and the
    bid notice show the battlefield as SVG in the HTML letter."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)  # durability is not under test here
    setup = tmp_path / "setup"
    (setup / "keys").mkdir(parents=True)
    for player in ("dutch", "bavarian"):
        generate_keypair(setup / "keys" / player, comment=f"{player}@example.org")
    config = {
        "game": "table-test",
        "module": "polemos-obb",
        "scenario": "combat-example",
        "options": {"army_morale": {"cmf": {"dutch": 9, "bavarian": 9}}},
        "referee": {"email": "referee@example.org", "name": "The Umpire"},
        "players": [
            {"name": p, "email": f"{p}@example.org", "key_file": f"keys/{p}.pub"} for p in ("dutch", "bavarian")
        ],
    }
    (setup / "game.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    init_game(tmp_path / "game", setup / "game.yaml")
    adjudicate(tmp_path / "game")
    mail = tmp_path / "game" / "mail"
    kept = [p.with_name(p.name.removesuffix(".gz")) for p in kept_letters.glob(mail, "*/dutch.*.html*")]
    assert [p.parent.name[5:] + "/" + p.name for p in kept] == [
        "t1-muster/dutch.notice.html",
        "t1-muster/dutch.report.html",
        "t1-bid/dutch.notice.html",
    ]

    def battlefields(html: str) -> list[str]:
        """The letter's pictures of the table (its army board is a picture too)."""
        svgs = [piece.split("</svg>")[0] for piece in html.split("<svg ")[1:]]
        return [svg for svg in svgs if ": the battlefield as " in svg]

    assert battlefields(read_kept_html(kept[0])) == []  # before the armies are laid out
    for path in kept[1:]:
        (svg,) = battlefields(read_kept_html(path))
        assert ">X<" in svg and ">M<" in svg  # each base labelled, its id on the first line


def test_the_moves_report_says_how_far_each_group_went() -> None:
    state = danube()
    _, events, _ = play(state, {"dutch": {"moves": [move(["V", "W"], {"advance": 30})]}})
    assert army_event(events, "moves.orders", "dutch").text.endswith("V, W 30 mm of 60.")


def test_limbered_guns_on_a_road_move_1bw_and_roads_are_no_obstacle() -> None:
    """L262: baggage moves 1BD, or 1BW on roads; limbers count as baggage (L144)."""
    state = danube()
    road = {"id": "road-1", "kind": "road", "line": [[735, 0], [735, 960]], "width": 20}
    state["table"]["terrain"].append(road)
    assert moves(state, "imperial", move(["imperial-guns-1"], {"advance": BW})) == []
    assert moves(state, "imperial", move(["imperial-guns-2"], {"advance": BW})) == ["illegal.moves.too-far"]


def test_a_follow_up_onto_ground_another_base_holds_does_not_happen() -> None:
    """Y wins against N and tests to follow up (L403, L409), but M stands half across the ground N
    left: Y stays, and the report says why."""
    state = turn_one_contact(**NEW)
    state["bases"]["M"]["pose"] = {"x": 250, "y": 210, "facing": 180}
    attack = {"division": "van-gelder", "target": "de-salon", "pairs": [["Y", "N"]], "rounds": [["Y"], [], []]}
    state, events, _ = play(state, {"dutch": {"attacks": [attack]}}, [4, 2, 5, 3, 3])
    encounter = event(events, "combat.encounter")
    combat = encounter.data["rounds"][0]["combats"][0]
    assert combat["follow_up"]["follows"] is False and combat["follow_up"]["blocked"] == ["M"]
    assert pose(state, "Y") == (300, 180, 0) and pose(state, "N") == (300, 240, 180)
