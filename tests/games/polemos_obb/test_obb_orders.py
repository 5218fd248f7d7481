"""Command and moves: Tempo points given to generals and paid for orders (rulebook pp. 15-21).

The book's costs: four brigades within 1BW move on one order for 5 TP, a detached fifth costs
2 more (5 + 2 = 7); dismounting a stationary dragoon brigade costs 2 TP, what moving it would;
dragoons that moved this turn dismount at the end of the move for nothing.
"""

from __future__ import annotations

from typing import Any

from obb_helpers import TEST_TABLES, army_event, event, new_game, play

from games.polemos_obb import GAME


def at(step: str, side: str, allocations: dict[str, dict[str, int]], **options: Any) -> dict[str, Any]:
    """Return a danube-demo state opened at `step` of turn 1 for `side`, with TP already given out."""
    state = new_game("danube-demo", **options)
    state, _, _ = play(state, {}, [1, 5, 2, 2, 6, 1, 0, 6, 8, 1, 5, 3, 6, 6, 6, 6])
    state.update(step=step, tempo={"side": side, "by_turn": [side]}, allocations=allocations)
    return state


def codes(state: dict[str, Any], player: str, orders: dict[str, Any]) -> list[str]:
    return [p.code for p in GAME.validate(state, player, orders)]


def moves(*orders: dict[str, Any]) -> dict[str, Any]:
    return {"moves": list(orders)}


def test_four_brigades_and_a_detached_one_cost_5_plus_2() -> None:
    state = at("tempo-moves", "allies", {"dutch": {"van-gelder": 7}})
    order = moves({"order": "move", "brigades": ["W", "X", "Y", "Z"]}, {"order": "move", "brigades": ["V"]})
    state, events, _ = play(state, {"dutch": order})
    assert [(o["tp"], o["payer"]) for o in army_event(events, "moves.orders", "dutch").data["orders"]] == [
        (5, "van-gelder"),
        (2, "van-gelder"),
    ]
    assert state["tp_spent"] == {"van-gelder": 7}
    assert state["moved"] == ["W", "X", "Y", "Z", "V"]


def test_a_group_whose_cost_the_book_does_not_give_is_refused_naming_the_table() -> None:
    state = at("tempo-moves", "allies", {"dutch": {"van-gelder": 9}})
    problems = GAME.validate(state, "dutch", moves({"order": "move", "brigades": ["V", "W", "X", "Y", "Z"]}))
    assert [p.code for p in problems] == ["illegal.cost-not-supplied"]
    assert "order_costs.move" in problems[0].message and "four brigades, 5 TP" in problems[0].message
    supplied = at(
        "tempo-moves", "allies", {"dutch": {"van-gelder": 9}}, order_costs={"move": [{"brigades": 5, "tp": 6}]}
    )
    supplied, events, _ = play(supplied, {"dutch": moves({"order": "move", "brigades": ["V", "W", "X", "Y", "Z"]})})
    assert supplied["tp_spent"] == {"van-gelder": 6}


def test_dismounting_stationary_dragoons_costs_what_moving_would() -> None:
    state = at("other-moves", "allies", {"bavarian": {"de-lorme": 2}})
    state, events, _ = play(state, {"bavarian": moves({"order": "dismount", "brigades": ["D"]})})
    assert event(events, "moves.orders").data["orders"][0]["tp"] == 2
    assert state["bases"]["D"]["dismounted"] is True


def test_dragoons_dismount_at_the_end_of_their_move_for_nothing() -> None:
    state = at("other-moves", "allies", {"bavarian": {"de-lorme": 2}})
    order = moves({"order": "move", "brigades": ["D"]}, {"order": "dismount", "brigades": ["D"]})
    state, events, _ = play(state, {"bavarian": order})
    assert [o["tp"] for o in event(events, "moves.orders").data["orders"]] == [2, 0]
    state.update(step="other-moves", moved=[])
    assert codes(state, "bavarian", moves({"order": "dismount", "brigades": ["D"]})) == ["illegal.dismount.already"]
    assert codes(state, "bavarian", moves({"order": "remount", "brigades": ["D"]})) == ["illegal.cost-not-supplied"]
    assert codes(state, "bavarian", moves({"order": "dismount", "brigades": ["R"]})) == [
        "illegal.dismount.not-dragoons"
    ]


def test_guns_unlimber_free_with_a_redeploying_division_else_at_the_supplied_cost() -> None:
    state = at("other-moves", "allies", {"bavarian": {"de-lorme": 2, "bavarian-gunner": 5}})
    assert codes(state, "bavarian", moves({"order": "unlimber", "brigades": ["G1"]})) == ["illegal.cost-not-supplied"]
    assert codes(state, "bavarian", moves({"order": "unlimber", "brigades": ["G1"], "by": "de-lorme"})) == [
        "illegal.unlimber.by"
    ]
    order = moves({"order": "move", "brigades": ["R"]}, {"order": "unlimber", "brigades": ["G1"], "by": "de-lorme"})
    state, events, _ = play(state, {"bavarian": order})
    assert [o["tp"] for o in event(events, "moves.orders").data["orders"]] == [2, 0]
    assert state["bases"]["G1"]["limbered"] is False
    state["step"] = "other-moves"
    assert codes(state, "bavarian", moves({"order": "limber", "brigades": ["G1"]})) == ["illegal.moves.field-artillery"]


def test_unlimbered_light_artillery_is_moved_as_a_brigade() -> None:
    state = at("other-moves", "allies", {"bavarian": {"bavarian-gunner": 5}})
    state["bases"]["G2"]["limbered"] = False
    state, events, _ = play(state, {"bavarian": moves({"order": "move", "brigades": ["G2"]})})
    assert event(events, "moves.orders").data["orders"][0]["tp"] == 2


def test_orders_cost_no_more_than_the_general_was_given() -> None:
    state = at("tempo-moves", "allies", {"dutch": {"van-gelder": 6}})
    order = moves({"order": "move", "brigades": ["W", "X", "Y", "Z"]}, {"order": "move", "brigades": ["V"]})
    problems = GAME.validate(state, "dutch", order)
    assert [p.code for p in problems] == ["illegal.moves.tp"]
    assert "7 TP but he has 6" in problems[0].message
    assert codes(state, "dutch", moves({"order": "move", "brigades": ["V", "M"]})) == ["illegal.moves.divisions"]
    assert codes(state, "dutch", moves({"order": "move", "brigades": ["V"]}, {"order": "move", "brigades": ["V"]})) == [
        "illegal.moves.again"
    ]


def test_command_gives_points_to_generals_and_keeps_the_rest() -> None:
    state = at("tempo-command", "allies", {})
    assert state["armies"]["dutch"]["tp"] == 9
    order = {"allocate": [{"general": "van-gelder", "tp": 5}, {"general": "dutch-c-in-c", "tp": 2}]}
    state, events, _ = play(state, {"dutch": order})
    assert state["allocations"]["dutch"] == {"van-gelder": 5, "dutch-c-in-c": 2}
    assert army_event(events, "command.allocation", "dutch").data["kept"] == 2
    state["step"] = "tempo-command"
    assert codes(state, "imperial", {"allocate": [{"general": "van-gelder", "tp": 1}]}) == ["illegal.allocate.general"]
    assert codes(state, "imperial", {"allocate": [{"general": "von-adler", "tp": 99}]}) == ["illegal.allocate.too-many"]


def test_generals_join_and_leave_bases() -> None:
    state = at("tempo-command", "allies", {})
    state, _, _ = play(state, {"dutch": {"generals": [{"general": "van-gelder", "join": "X"}]}})
    assert state["generals"]["van-gelder"]["with_base"] == "X"
    state["step"] = "tempo-command"
    assert codes(state, "dutch", {"generals": [{"general": "van-gelder", "join": "M"}]}) == ["illegal.general.join"]
    assert codes(state, "dutch", {"generals": [{"general": "van-gelder"}]}) == ["illegal.general.where"]
    state["generals"]["van-gelder"]["no_move_turn"] = 1
    assert codes(state, "dutch", {"generals": [{"general": "van-gelder", "leave": True}]}) == [
        "illegal.general.no-move"
    ]


def test_rallying_needs_the_referees_table() -> None:
    state = at("tempo-command", "allies", {})
    state["bases"]["V"]["state"] = "shaken"
    problems = GAME.validate(state, "dutch", {"rally": [{"base": "V"}]})
    assert [p.code for p in problems] == ["illegal.table-missing.rally"]
    assert "rally table" in problems[0].message
    assert codes(state, "dutch", {"rally": [{"base": "W"}]}) == ["illegal.rally.not-shaken"]


def test_rallying_on_the_supplied_table() -> None:
    state = at("tempo-command", "allies", {}, tables=TEST_TABLES)
    state["bases"]["H1"]["state"] = "shaken"  # a veteran: the table's veteran modifier applies by itself
    state, events, dice = play(state, {"dutch": {"rally": [{"base": "H1", "modifiers": ["general-present"]}]}}, [3])
    rally = event(events, "command.rally").data
    assert (rally["roll"], rally["total"], rally["result"]) == (3, 5, "rallied")
    assert state["bases"]["H1"]["state"] == "fresh"
    assert dice.rolls[0]["label"] == "rally/H1"


def test_an_attack_needs_a_move_unless_the_option_says_otherwise() -> None:
    attack = {"attacks": [{"division": "de-salon", "target": "van-gelder", "pairs": [["M", "V"]]}]}
    state = at("other-contact", "allies", {})
    assert codes(state, "bavarian", attack) == ["illegal.attack.not-moved"]
    free = at("other-contact", "allies", {}, attack_needs_move=False)
    assert codes(free, "bavarian", attack) == []
    assert codes(
        free, "bavarian", {"attacks": [{"division": "de-salon", "target": "de-lorme", "pairs": [["M", "R"]]}]}
    ) == ["illegal.attack.target"]
    double = {"attacks": [{"division": "de-salon", "target": "van-gelder", "pairs": [["M", "V"], ["N", "V"]]}]}
    assert codes(free, "bavarian", double) == ["illegal.attack.paired"]


def test_two_allies_attacking_the_same_enemy_base_the_first_army_has_it() -> None:
    state = at("tempo-contact", "allies", {}, attack_needs_move=False)
    dutch = {"attacks": [{"division": "van-gelder", "target": "de-salon", "pairs": [["X", "M"]]}]}
    imperial = {"attacks": [{"division": "imperial-foot", "target": "de-salon", "pairs": [["imperial-foot-1", "M"]]}]}
    assert codes(state, "dutch", dutch) == [] and codes(state, "imperial", imperial) == []
    no_effect = [4, 4] * 3  # X against M in each of the three rounds
    state, events, _ = play(state, {"dutch": dutch, "imperial": imperial}, [*no_effect, 1, 1])
    assert event(events, "combat.pair-dropped").data == {"base": "imperial-foot-1", "enemy": "M"}
    assert [e["divisions"] for e in state["engagements"]] == [["van-gelder", "de-salon"]]


def test_an_overrun_general_may_be_captured_once() -> None:
    state = at("tempo-contact", "allies", {})
    orders = {"overrun_generals": ["de-salon"]}
    assert codes(state, "dutch", {"overrun_generals": ["de-salon", "de-salon"]}) == ["illegal.overrun.twice"]
    assert codes(state, "dutch", {"overrun_generals": ["van-gelder"]}) == ["illegal.overrun.general"]
    state, events, dice = play(state, {"dutch": orders, "imperial": orders}, [1])
    assert event(events, "general.capture").data["captured"] is True
    assert state["generals"]["de-salon"]["status"] == "captured"
    assert [r["label"] for r in dice.rolls] == ["general/de-salon/capture/overrun"]


def test_a_base_tries_to_rally_once_a_turn() -> None:
    state = at("tempo-command", "allies", {}, tables=TEST_TABLES)
    state["bases"]["V"]["state"] = "shaken"
    assert codes(state, "dutch", {"rally": [{"base": "V"}, {"base": "V"}]}) == ["illegal.rally.twice"]
