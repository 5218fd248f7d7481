"""Issue 16's rule findings, each re-derived from the rulebook's text (L-numbers into the rulebook):
obligatory shooting, the going modifier, enfilade from an aiding shooter, the attacker's choice
against Combat Engineers, and the pace of combat phases."""

from __future__ import annotations

import copy
from typing import Any

from clg_helpers import battle, bound, card, feature, texts, unit

from games.cest_la_guerre import rules, standing
from games.cest_la_guerre.actions import _turn_to_face, _turning_order, run_movement, turn_to_face
from games.cest_la_guerre.armies import build_army
from games.cest_la_guerre.battle import combat_problems, run_combat
from games.cest_la_guerre.combat import melee_modifiers, shooting_modifiers
from games.cest_la_guerre.options import resolve_options
from games.cest_la_guerre.pace import combat_possible, deciders
from games.cest_la_guerre.pregame import deploy_problems
from games.cest_la_guerre.relations import contacts_on

from scripted_dice import ScriptedDice


def pose(card: dict[str, Any]) -> tuple[Any, Any, str]:
    """Return a card's place and facing as a compass word (facings may be kept as bearings)."""
    facing = card["facing"]
    if not isinstance(facing, str):
        facing = {0: "north", 90: "east", 180: "south", 270: "west"}[round(facing) % 360]
    return card["x"], card["y"], facing


def kinds(events: list[Any]) -> list[str]:
    return [e["kind"] if isinstance(e, dict) else e.kind for e in events]


def shootings(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["kind"] == "combat.shooting"]


def facing_pair(**extra: Any) -> dict[str, Any]:
    """Two Regular Infantry cards face to face, 40 mm apart: each in the other's lane and musket range."""
    return battle(
        [card("B1", "reg_inf", 500, 400, "north"), card("R1", "reg_inf", 500, 470, "south")], stage="combat", **extra
    )


# -- L295 "can and must shoot"; L172 "those units ... who can shoot must do so" ----------------


def test_a_card_named_in_no_shot_still_shoots() -> None:
    state = facing_pair()
    b = run_combat(state, {"blue": {}, "red": {}}, ScriptedDice([3, 3, 3, 3]))  # a tie: no result
    shots = shootings(b.events)
    assert len(shots) == 1 and shots[0]["data"]["shooter"]["marker"] == "B1"
    assert shots[0]["data"]["returned"] is True  # R1 returns fire (L313) and so has shot
    told = [e for e in b.events if e["kind"] == "shot.obliged"]
    assert [e["visible_to"] for e in told] == [["blue"]] and "B1" in told[0]["text"]


def test_force_takes_every_obligatory_shot() -> None:
    """A player who sent nothing gets the phase's default orders: those shoot too."""
    state = facing_pair()
    state["stage"] = "combat"
    spec = rules.phase(state)
    orders = {role: copy.deepcopy(spec.default_orders) for role in state["roles"]}
    _, events = rules.resolve(state, orders, ScriptedDice([3, 3, 3, 3, 4]))  # the tie, then red's IP
    assert "combat.shooting" in kinds(events)


def test_an_unnamed_card_aids_a_shot_at_its_only_target() -> None:
    """L317: a 2nd or 3rd unit shooting at the same target aids the first (-1 each to the target)."""
    state = battle(
        [
            card("B1", "reg_inf", 500, 400, "north"),
            card("B2", "reg_inf", 550, 400, "north"),
            card("R1", "reg_inf", 530, 470, "south"),
        ],
        stage="combat",
    )
    orders = {"blue": {"shots": [{"shooter": "B1", "target": "R1"}]}}
    b = run_combat(state, orders, ScriptedDice([3, 3, 3, 3, 6]))  # 10 against 9; R1's casualty roll
    (shot,) = shootings(b.events)
    assert {"name": "aided by B2", "value": -1} in shot["data"]["target"]["modifiers"]
    assert unit(b.state, "B2")["shots"] == 1


def test_the_referee_picks_the_nearest_legal_target_by_default() -> None:
    """L295 lets the shooter take "any one"; the book names no default: option unnamed_shot_target."""
    cards = [
        card("B1", "artillery", 500, 300, "north"),
        card("R1", "reg_inf", 480, 700, "south"),
        card("R2", "reg_inf", 530, 500, "south"),
    ]
    for option, target in (("nearest", "R2"), ("lowest_marker", "R1")):
        state = battle(copy.deepcopy(cards), stage="combat", options={"unnamed_shot_target": option})
        b = run_combat(state, {}, ScriptedDice([1, 1, 6, 6]))  # the target wins: the guns shot unanswered
        (shot,) = shootings(b.events)
        assert shot["data"]["target"]["marker"] == target


def test_a_player_may_choose_only_among_legal_targets() -> None:
    state = facing_pair()
    state["units"].append(card("R2", "reg_inf", 800, 470, "south"))
    problems = combat_problems(state, "blue", {"shots": [{"shooter": "B1", "target": "R2"}]})
    assert problems and "not in" in problems[0].message


# -- L392: "-2 if in, or mounted in contact with enemy in, bad going" ---------------------------


def test_cavalry_shot_at_from_a_wood_has_no_bad_going_modifier() -> None:
    wood = feature("W1", "woods", 460, 370, 540, 430)
    state = battle(
        [card("B1", "reg_inf", 500, 400, "north"), card("R1", "cavalry", 500, 470, "south")], terrain=(wood,)
    )
    shooter, target = unit(state, "B1"), unit(state, "R1")
    assert all(value != -2 for _, value in shooting_modifiers(state, target, shooter, True))
    assert ("bad_going", -2) in shooting_modifiers(state, shooter, target, True)  # the shooter itself is in it


def test_mounted_in_contact_with_an_enemy_in_bad_going_has_the_modifier() -> None:
    wood = feature("W1", "woods", 460, 370, 540, 420)
    state = battle(
        [card("B1", "reg_inf", 500, 400, "north"), card("R1", "cavalry", 500, 430, "south")], terrain=(wood,)
    )
    modifiers = melee_modifiers(state, unit(state, "R1"), unit(state, "B1"), False)
    assert ("mounted_vs_enemy_in_bad_going", -2) in modifiers


# -- L321: enfilade "when the firing unit or a supporting firing unit is shooting the flank" -----


def test_enfilade_from_an_aiding_shooter_counts() -> None:
    state = battle(
        [
            card("B1", "reg_inf", 500, 560, "south"),  # in front of R1: not enfilade
            card("B2", "reg_inf", 560, 500, "west"),  # level with R1's flank: enfilade
            card("R1", "reg_inf", 500, 500, "north"),
        ],
        stage="combat",
    )
    orders = {"blue": {"shots": [{"shooter": "B1", "target": "R1", "aides": ["B2"]}]}}
    b = run_combat(state, orders, ScriptedDice([3, 3, 3, 3, 6]))
    (shot,) = shootings(b.events)
    assert {"name": "enfilade by B2", "value": 1} in shot["data"]["shooter"]["modifiers"]


# -- L291: against Combat Engineers "the attacking player gets to choose" the primary attacker ---


def engineers_beset() -> dict[str, Any]:
    return battle(
        [
            card("B1", "reg_inf", 500, 470, "north"),  # against R1's south edge
            card("B2", "cavalry", 500, 530, "south"),  # against R1's north edge
            card("R1", "engineers", 500, 500, "north"),
        ],
        stage="combat",
    )


def melee_attacker(events: list[dict[str, Any]]) -> str:
    (fight,) = [e for e in events if e["kind"] == "combat.melee"]
    return str(fight["data"]["attacker"]["marker"])


def test_the_attacker_chooses_who_fights_combat_engineers() -> None:
    state = engineers_beset()
    orders = {"blue": {"primary": [{"engineers": "R1", "attacker": "B1"}]}}
    assert combat_problems(state, "blue", orders["blue"]) == []
    b = run_combat(state, orders, ScriptedDice([3, 3, 3, 3]))
    assert melee_attacker(b.events) == "B1"
    fight = next(e for e in b.events if e["kind"] == "combat.melee")
    assert {"name": "B2 on flank or rear", "value": -1} in fight["data"]["defender"]["modifiers"]


def test_unchosen_the_best_melee_factor_fights_combat_engineers() -> None:
    b = run_combat(engineers_beset(), {}, ScriptedDice([3, 3, 3, 3]))
    assert melee_attacker(b.events) == "B2"  # Cavalry +4 against infantry, Regular Infantry +2


def test_the_chosen_card_must_touch_the_engineers() -> None:
    state = engineers_beset()
    state["units"].append(card("B3", "reg_inf", 800, 470, "north"))
    problems = combat_problems(state, "blue", {"primary": [{"engineers": "R1", "attacker": "B3"}]})
    assert problems and "does not touch" in problems[0].message


# -- pace: a combat phase only when a fight or shot is possible, for the players with a choice ---


def test_a_face_down_card_that_moved_is_not_taken_for_guns() -> None:
    """L313: artillery that moved this Round does not shoot, so a face-down card that moved could
    at most be a rifle (15 cm): 30 cm from the enemy, no combat step."""
    state = battle(
        [
            card("B1", "reg_inf", 500, 100, "north", face_up=False, moved_round=True),
            card("R1", "reg_inf", 500, 430, "south", face_up=False, moved_round=True),
        ]
    )
    assert not combat_possible(state)
    unit(state, "B1")["moved_round"] = False  # it could be guns: 75 cm reach
    assert combat_possible(state)


def test_terrain_blocking_the_line_means_no_combat() -> None:
    """L315: no shooting through trees, a village or a town."""
    wood = feature("W1", "woods", 300, 250, 700, 300)
    state = battle(
        [card("B1", "artillery", 500, 100, "north"), card("R1", "reg_inf", 500, 430, "south")], terrain=(wood,)
    )
    assert not combat_possible(state)
    state["terrain"] = []
    assert combat_possible(state)


def test_whether_a_phase_opens_or_waits_never_tells_a_dummy_from_a_card() -> None:
    """README, hidden information: a face-down card is judged as any card could be."""
    for kind in ("dummy", "reg_inf", "heavy_artillery", "engineers"):
        state = battle(
            [
                card("B1", kind, 500, 300, "north", face_up=False),
                card("R1", "reg_inf", 480, 700, "south"),
                card("R2", "reg_inf", 530, 500, "south"),
                card("R3", "reg_inf", 900, 500, "south", face_up=False),
                card("B2", "reg_inf", 900, 470, "north"),
                card("B3", "reg_inf", 930, 530, "west"),
            ]
        )
        assert combat_possible(state), kind
        assert deciders(state) == ("blue",), kind


def test_no_order_to_choose_and_no_target_to_choose_waits_for_nobody() -> None:
    state = facing_pair()
    assert combat_possible(state) and deciders(state) == ()
    state["options"]["combat_order"] = "marker_order"
    state["units"].append(card("B2", "reg_inf", 800, 400, "north"))
    state["units"].append(card("R2", "reg_inf", 800, 470, "south"))
    assert deciders(state) == ()
    state["options"]["combat_order"] = "asked"
    assert deciders(state) == ("blue",)  # two firefights: the moving player orders them (L172)


# -- L325: "If a unit contacts the flanks of two such enemy units, both these turn, the second
#    moving behind the first." -------------------------------------------------------------------


def two_flanks() -> dict[str, Any]:
    """B1 faces east against the left flanks of R1 and R2, a column of two facing north."""
    return battle(
        [
            card("B1", "reg_inf", 485, 500, "east"),
            card("R1", "reg_inf", 525, 515, "north"),
            card("R2", "reg_inf", 525, 485, "north"),
        ]
    )


def test_two_cards_turned_by_one_enemy_stand_one_behind_the_other() -> None:
    state = two_flanks()
    assert [edge for _, edge in contacts_on(state, unit(state, "R1")) + contacts_on(state, unit(state, "R2"))] == [
        "left",
        "left",
    ]
    b = bound(state, ScriptedDice([]))
    turn_to_face(b)
    first, second = unit(state, "R1"), unit(state, "R2")
    assert pose(first) == (515, 500, "west")  # nearer: ties go by marker
    assert pose(second) == (545, 500, "west")
    assert "behind R1" in texts(b.events)


def test_a_flank_contact_covers_half_the_flank_or_the_whole_by_option() -> None:
    """S-12: the book has one front meet two flanks (L325), so half a flank covered is a contact by
    default; `flank_contact: whole` asks for the whole flank (front corners level)."""
    state = two_flanks()
    state["options"]["flank_contact"] = "whole"
    assert contacts_on(state, unit(state, "R1")) == [] and contacts_on(state, unit(state, "R2")) == []
    unit(state, "B1")["y"] = 505  # front corners level with R1's: its whole left flank
    assert [edge for _, edge in contacts_on(state, unit(state, "R1"))] == ["left"]
    assert contacts_on(state, unit(state, "R2")) == []
    state["options"]["flank_contact"] = "half"  # R2's flank is 20 of 30 mm covered: both are contacted
    assert len(contacts_on(state, unit(state, "R1")) + contacts_on(state, unit(state, "R2"))) == 2


def test_the_second_card_turns_behind_the_first() -> None:
    state = two_flanks()
    b = bound(state, ScriptedDice([]))
    attacker, first, second = unit(state, "B1"), unit(state, "R1"), unit(state, "R2")
    order = _turning_order(state, attacker, [second, first])
    assert order == [first, second]
    assert _turn_to_face(b, first, attacker, None, order)
    assert _turn_to_face(b, second, attacker, first, order)
    assert pose(first) == (515, 500, "west")
    assert pose(second) == (545, 500, "west")


def test_a_card_with_no_room_to_turn_stays_by_the_named_option() -> None:
    state = two_flanks()
    state["units"].append(card("B2", "reg_inf", 530, 530, "north"))  # where R1 would turn to
    b = bound(state, ScriptedDice([]))
    attacker, first = unit(state, "B1"), unit(state, "R1")
    assert not _turn_to_face(b, first, attacker, None, [first])
    assert "option no_room_to_turn" in texts(b.events)
    assert pose(first)[2] == "north"


# -- the point system's Generals (S-04): the lists all have exactly one; the point system is silent


def test_a_point_army_may_buy_generals_as_the_option_says() -> None:
    units = [{"type": "general", "grade": "average", "count": 2}, {"type": "reg_inf", "grade": "average", "count": 4}]
    for rule, fine in (("exactly_one", False), ("at_most_one", False), ("any", True)):
        options = resolve_options({"point_army_generals": rule})
        problems = build_army({"list": "point-system", "units": units}, options)[2]
        assert (not any(p.code == "illegal.army.general" for p in problems)) is fine, rule
    problems = build_army({"list": "point-system", "units": units[1:]}, resolve_options({}))[2]
    assert any("exactly one General" in p.message for p in problems)


# -- L273-L283: Combat Engineering --------------------------------------------------------------


def sappers(*extra: dict[str, Any], terrain: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    return battle([card("B1", "engineers", 500, 300, "north"), *extra], terrain=terrain)


def act(state: dict[str, Any], *actions: dict[str, Any]) -> Any:
    return run_movement(state, "blue", {"actions": list(actions)}, ScriptedDice([1, 1]))  # the reserve die


def test_engineers_build_10_cm_of_fortification_a_turn() -> None:
    """L275: 200 m (10 cm) of field fortification per turn; L380: +1 from a completed one."""
    state = sappers(card("B2", "reg_inf", 560, 340, "north"))
    b = act(state, {"build": "B1", "kind": "fortification", "rect": [530, 350, 640, 360]})
    assert b.problems == [] and "engineering.progress" in kinds(b.events)
    assert b.state["works"][0]["done_mm"] == 100 and b.state["works"][0]["length"] == 110
    assert run_movement(b.state, "blue", {"actions": [{"build": "B1", "work": "W1"}]}, None).problems  # once a turn
    b.state["round"] += 1
    for u in b.state["units"]:
        u["moved_round"] = False
    b = act(b.state, {"build": "B1", "work": "W1"})
    assert "engineering.done" in kinds(b.events) and b.state["works"] == []
    fort = b.state["terrain"][-1]
    assert fort["kind"] == "fortification" and fort["rect"] == [530, 350, 640, 360]


def test_a_bridge_builds_5_cm_a_turn_and_counts_only_once_across() -> None:
    """L275: 100 m (5 cm) of a bridge a turn; L277: only its completion removes the river's effects."""
    river = feature("T1", "river", 400, 340, 700, 370, condition="difficult")
    state = sappers(terrain=(river,))
    short = {"actions": [{"build": "B1", "kind": "bridge", "rect": [480, 345, 520, 365]}]}
    assert run_movement(state, "blue", short, None).problems  # not bank to bank
    b = act(state, {"build": "B1", "kind": "bridge", "rect": [480, 320, 520, 390]})
    assert b.problems == [] and [t["kind"] for t in b.state["terrain"]] == ["river"]
    assert b.state["works"][0]["done_mm"] == 50


def test_engineers_that_moved_do_not_build() -> None:
    """L279: a Combat Engineer that has moved cannot construct or demolish that turn."""
    state = sappers()
    unit(state, "B1")["moved_round"] = True
    problems = run_movement(
        state, "blue", {"actions": [{"build": "B1", "kind": "road", "rect": [480, 320, 520, 400]}]}, None
    ).problems
    assert problems and "L279" in problems[0].message


def test_an_enemy_within_25_cm_stops_the_work_unless_screened() -> None:
    """L275: no construction with an enemy within 500 m (25 cm) not at least partly screened off."""
    order = {"actions": [{"build": "B1", "kind": "road", "rect": [480, 320, 520, 400]}]}
    state = sappers(card("R1", "reg_inf", 500, 500, "south"))
    problems = run_movement(state, "blue", order, None).problems
    assert problems and "R1 is within 25 cm" in problems[0].message
    screened = sappers(card("R1", "reg_inf", 500, 500, "south"), card("B2", "reg_inf", 500, 420, "north"))
    assert run_movement(screened, "blue", order, None).problems == []


def test_demolishing_takes_the_building_time() -> None:
    road = feature("T1", "road", 480, 320, 520, 500)
    state = sappers(terrain=(road,))
    b = act(state, {"demolish": "B1", "feature": "T1"})
    assert b.problems == [] and b.state["terrain"][0]["demolished_mm"] == 100


# -- L154: deploy "within 200 meters (or 10 cm) of his base edge or if it is a shore line the water's edge"


def test_a_shoreline_base_edge_deploys_from_the_waters_edge() -> None:
    lake = feature("T1", "lake", 300, 0, 700, 200)
    waiting = card("B1", "reg_inf", 0, 0, "north", status="army", face_up=False)
    waiting["marker"] = None
    state = battle([waiting], terrain=(lake,))
    state["stage"] = "deploy"

    def problems(y: int, **options: Any) -> list[Any]:
        state["options"].update(options)
        return deploy_problems(state, "blue", {"place": [{"unit": "reg-inf-b1", "x": 500, "y": y, "facing": "north"}]})

    assert problems(230) == []  # 15 mm from the water's edge
    assert problems(320) and problems(320)[0].code == "illegal.place.zone"  # 105 mm from it
    assert problems(230, shoreline_deployment=False)[0].code == "illegal.place.zone"


# -- the notice a player can play from (issue 16, deliverable 4) --------------------------------


def test_the_notice_lists_obligatory_shots_contacts_and_reach() -> None:
    state = battle(
        [
            card("B1", "reg_inf", 500, 400, "north"),
            card("B2", "cavalry", 800, 300, "north"),
            card("R1", "reg_inf", 500, 470, "south"),
            card("R2", "reg_inf", 800, 330, "south", face_up=False),
        ]
    )
    own = rules.view(state, "blue")["your_army"]
    assert own["must_shoot"] == [{"shooter": "B1", "targets": ["R1"]}]
    assert own["contacts"] == [{"card": "B2", "enemy": "R2", "edge": "front"}]
    assert own["within_reach"] == {"B1": ["R1"], "B2": ["R1", "R2"]}
    moves = {c["marker"]: c["move_left_mm"] for c in own["cards"]}
    assert moves == {"B1": 150, "B2": 400}  # L226 and L224: 15 cm and 40 cm
    facts = {f.name: f for f in standing.standing(state, "blue")}
    assert facts["Shots your cards must take (L295)"].items == ("B1 at R1",)
    assert facts["Contacts and overlaps on your cards"].items == ("R2 against B2's front",)
    assert "your_army" not in rules.view(state, None) and "must_shoot" not in str(rules.view(state, "red")["cards"])


def test_combat_engineers_return_fire_at_a_shooter_within_range_whatever_their_facing() -> None:
    """L291: engineers have no "straight ahead" but may return fire at an enemy shooter within range."""
    state = battle(
        [card("B1", "reg_inf", 500, 400, "north"), card("R1", "engineers", 500, 470, "north")], stage="combat"
    )
    b = run_combat(state, {}, ScriptedDice([1, 1, 3, 3]))  # 2 +4 +1 enfilade (G-36) against 6 +1: a tie
    (shot,) = shootings(b.events)
    assert shot["data"]["returned"] is True


def test_a_shot_at_a_dummy_is_lost_not_owed_again() -> None:
    """G-16: a dummy shot at is removed and the shot is lost; the shooter has shot (L295 is met)."""
    state = battle(
        [
            card("B1", "artillery", 500, 300, "north"),
            card("R1", "dummy", 530, 500, "south", face_up=False),
            card("R2", "reg_inf", 480, 700, "south"),
        ],
        stage="combat",
    )
    b = run_combat(state, {}, ScriptedDice([]))
    assert "shot.cancelled" in kinds(b.events) and shootings(b.events) == []


def test_an_aide_that_can_no_longer_shoot_drops_out_and_the_shot_stands() -> None:
    state = facing_pair()
    state["units"].append(card("B2", "reg_inf", 900, 400, "north"))  # nothing in its lane
    orders = {"blue": {"shots": [{"shooter": "B1", "target": "R1", "aides": ["B2"]}]}}
    b = run_combat(state, orders, ScriptedDice([3, 3, 3, 3]))
    (shot,) = shootings(b.events)
    assert all(m["name"] != "aided by B2" for m in shot["data"]["target"]["modifiers"])
    assert "shot.aide.dropped" in kinds(b.events)
