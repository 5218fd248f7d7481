"""What the referee supplies mid-game (issue 15): polemos-obb's needs, wanted(state) and supply.

`wanted` and `supply` are pure functions over states: each test builds a state, asks, and
plays on with the result, as the core does after `referee supply`.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import yaml
from obb_helpers import TEST_TABLES, event, new_game, play
from test_obb_combat_example import DE_SALON_FIGHTS_ON, SECOND_TURN_DICE, turn_two_contact

from games.polemos_obb import GAME
from games.polemos_obb.options import game_tables
from games.polemos_obb.supplies import SUPPLIES
from referee.kit import NotSupplied, Problem
from referee.kit.schema import check, check_schema
from referee.protocol.canonical import canonical_json

from scripted_dice import ScriptedDice


class StridingDice(ScriptedDice):
    """Dice that step through each die's faces by `stride`: a fixed, varied game without a seed."""

    def __init__(self, stride: int) -> None:
        super().__init__([])
        self.stride = stride

    def _take(self, label: str, lowest: int, highest: int) -> int:
        self._next += 1
        return lowest + (self._next * self.stride) % (highest - lowest + 1)


class LowDice(ScriptedDice):
    """Dice that count up from each die's lowest face (ties get broken): enough to walk a game to a phase."""

    def _take(self, label: str, lowest: int, highest: int) -> int:
        self._next += 1
        return lowest + self._next % (highest - lowest + 1)


def play_until(state: dict[str, Any], step: str) -> dict[str, Any]:
    """Play phases with default orders and the lowest dice until `step` is open."""
    while state["step"] != step:
        spec = GAME.phase(state)
        assert spec is not None
        new, _ = GAME.resolve(state, {role: spec.default_orders for role in spec.active}, LowDice([]))
        state = json.loads(canonical_json(new))
    return state


def when(state: dict[str, Any], need: str) -> str:
    return next(w.when for w in SUPPLIES.wanted(state) if w.need == need)


def supplied(state: dict[str, Any], need: str, data: Any) -> dict[str, Any]:
    """Supply `data` and return the new state, failing the test on any problem."""
    before = canonical_json(state)
    new, problems = SUPPLIES.supply(state, need, data)
    assert problems == []
    assert canonical_json(state) == before, "supply changed its input"
    return json.loads(canonical_json(new))


def refused(state: dict[str, Any], need: str, data: Any) -> list[Problem]:
    before = canonical_json(state)
    new, problems = SUPPLIES.supply(state, need, data)
    assert problems, "the mistake was accepted"
    assert canonical_json(new) == before and canonical_json(state) == before, "a refusal changed the state"
    return problems


def morale_phase_with_a_spent_division() -> dict[str, Any]:
    """Turn 2 of the book's combat example, its morale phase open: de Salon's division will be spent."""
    state = turn_two_contact()
    state, _, _ = play(state, DE_SALON_FIGHTS_ON, SECOND_TURN_DICE)
    for _ in range(4):
        state, _, _ = play(state, {})
    assert state["step"] == "morale"
    return state


MORALE_DICE = [3, 4, 4, 1, 1]  # partner, division checks, the CMF's fall, next turn's Tempo dice (not the book's)


# -- the crash of issue 15 -------------------------------------------------------------------


def test_issue_15_a_state_edit_that_sets_the_factor_but_not_the_overlay_no_longer_crashes() -> None:
    """issue 15: armies given `cmf` by a state edit, overlays without army_morale: KeyError in the morale phase."""
    state = morale_phase_with_a_spent_division()
    for army in ("dutch", "bavarian"):
        state["armies"][army]["cmf"] = 15
    assert "army_morale" not in state["overlays"]
    state, events, _ = play(state, {}, [3, 4, 4, 1, 1])
    army = event(events, "morale.army").data
    assert (army["army"], army["before"], army["after"]) == ("bavarian", 15, 11)


def test_issue_15_a_partial_state_edit_names_exactly_the_army_still_missing() -> None:
    state = morale_phase_with_a_spent_division()
    state["armies"]["dutch"]["cmf"] = 15  # only one army's factor, and no overlay at all
    with pytest.raises(NotSupplied) as caught:
        play(state, {}, MORALE_DICE)
    assert caught.value.need == "army_morale"
    assert "cmf.bavarian" in str(caught.value)
    assert any("referee supply GAMEDIR FILE" in hint for hint in caught.value.hints)
    assert any("referee supply --template army_morale" in hint for hint in caught.value.hints)
    # A partial overlay too: the armies it names are taken, the other one is asked for.
    partial = supplied(morale_phase_with_a_spent_division(), "army_morale", {"cmf": {"dutch": 12}})
    with pytest.raises(NotSupplied, match="cmf.bavarian"):
        play(partial, {}, MORALE_DICE)


def test_a_game_stopped_on_army_morale_goes_on_once_it_is_supplied() -> None:
    state = morale_phase_with_a_spent_division()
    assert when(state, "army_morale") == "now"
    assert next(w for w in SUPPLIES.wanted(state) if w.need == "army_morale").blocks
    with pytest.raises(NotSupplied):
        play(state, {}, MORALE_DICE)
    state = supplied(state, "army_morale", {"cmf": {"dutch": 15, "bavarian": 15}, "when_exhausted": "army-leaves"})
    assert when(state, "army_morale") == "supplied"
    assert "army_morale" in GAME.view(state, "dutch")["referee_supplied"]
    assert "army_morale" not in {p["need"] for p in GAME.view(state, None)["missing"]}
    state, events, _ = play(state, {}, MORALE_DICE)
    assert event(events, "morale.army").data["after"] == 11
    assert state["step"] == "bid" and state["turn"] == 3


def test_a_factor_supplied_again_counts_the_dice_already_taken_off() -> None:
    state = morale_phase_with_a_spent_division()
    state = supplied(state, "army_morale", {"cmf": {"dutch": 15, "bavarian": 15}})
    state, _, _ = play(state, {}, MORALE_DICE)
    assert state["armies"]["bavarian"]["cmf"] == 11
    state = supplied(state, "army_morale", {"cmf": {"bavarian": 20}})
    assert state["armies"]["bavarian"]["cmf"] == 16  # 20, less the 4 already lost
    assert state["overlays"]["army_morale"]["cmf"] == {"dutch": 15, "bavarian": 20}


# -- tables asked for when the game reaches them ---------------------------------------------


def test_a_successor_waits_on_the_officer_grade_table_then_is_appointed() -> None:
    state = new_game(tables={"schema_version": 1, "tables": {}}, army_morale={"cmf": {"dutch": 9, "bavarian": 9}})
    state["generals"]["van-gelder"].update(status="killed", successor_due=2)
    state = play_until(state, "morale")
    assert when(state, "tables/officer-grade") == "now"
    with pytest.raises(NotSupplied) as caught:
        play(state, {}, [1, 1])
    assert caught.value.need == "tables/officer-grade"
    assert "referee supply --template tables/officer-grade" in caught.value.hints[0]
    grades = TEST_TABLES["tables"]["officer-grade"]
    state = supplied(state, "tables/officer-grade", grades)
    state, events, _ = play(state, {}, [6, 1, 1])
    assert event(events, "general.successor").data["grade"] == "vigorous"


def test_a_fire_order_is_refused_until_the_bombardment_table_is_supplied() -> None:
    state = new_game("danube-demo", army_morale={"cmf": {"dutch": 9, "imperial": 9, "bavarian": 9}})
    state, _, _ = play(state, {}, [1, 5, 2, 6, 6, 1, 0, 6, 8, 1, 5, 3, 6, 1, 1, 1])
    assert when(state, "tables/bombardment") == "later"
    state = play_until(state, "tempo-bombardment")
    spec = GAME.phase(state)
    assert spec is not None
    gunner = spec.active[0]
    army = state["armies"][gunner]
    battery = next(
        b
        for b, rec in state["bases"].items()
        if rec["type"].endswith("artillery") and state["divisions"][rec["division"]]["army"] == gunner
    )
    target = next(
        b
        for b, rec in state["bases"].items()
        if state["armies"][state["divisions"][rec["division"]]["army"]]["side"] != army["side"]
    )
    assert when(state, "tables/bombardment") == "now"
    orders = {"fire": [{"battery": battery, "target": target}]}
    problems = GAME.validate(state, gunner, orders)
    assert [p.code for p in problems] == ["illegal.table-missing.bombardment"]
    assert "referee can supply it with `referee supply`" in problems[0].message
    state = supplied(state, "tables/bombardment", TEST_TABLES["tables"]["bombardment"])
    assert GAME.validate(state, gunner, orders) == []
    assert "no bombardment table" not in (GAME.phase(state) or spec).title


def test_an_order_cost_supplied_mid_game_is_used_from_the_next_moves_phase() -> None:
    state = play_until(new_game(army_morale={"cmf": {"dutch": 9, "bavarian": 9}}), "tempo-moves")
    assert when(state, "order_costs") == "now"
    # Only an order that needs a cost is refused: the phase is not held for it.
    assert not next(w for w in SUPPLIES.wanted(state) if w.need == "order_costs").blocks
    player = (GAME.phase(state) or pytest.fail("over")).active[0]
    division = state["armies"][player]["divisions"][0]
    brigades = state["divisions"][division]["brigades"][:2]
    orders = {"moves": [{"order": "move", "brigades": brigades}]}
    problems = GAME.validate(state, player, orders)
    assert problems and "referee can supply it" in problems[0].message
    state = supplied(state, "order_costs", {"move": [{"brigades": 2, "tp": 0}]})
    assert [p.code for p in GAME.validate(state, player, orders)] == []
    state = supplied(state, "order_costs", {"continue": [{"brigades": 1, "tp": 1}]})
    assert state["overlays"]["order_costs"] == {
        "move": [{"brigades": 2, "tp": 0}],
        "continue": [{"brigades": 1, "tp": 1}],
    }


def test_reconstructed_parts_are_defaults_until_supplied() -> None:
    state = new_game()
    assert when(state, "combat_results") == "default"
    chart = [{"difference": "0-2", "result": "no-effect"}, {"difference": "3+", "result": "broken"}]
    state = supplied(state, "combat_results", chart)
    assert when(state, "combat_results") == "supplied"
    assert state["overlays"]["combat_results"] == chart
    state = supplied(state, "combat_modifiers", [{"name": "support", "value": 2, "when": {"supported": True}}])
    assert [m["value"] for m in state["overlays"]["combat_modifiers"]] == [2]
    assert when(state, "tables/follow-up") == "default"
    follow_up = {
        "title": "t",
        "dice": "1d6",
        "rows": [{"range": "1-5", "result": "stays"}, {"range": 6, "result": "follows-up"}],
    }
    state = supplied(state, "tables/follow-up", follow_up)
    assert when(state, "tables/follow-up") == "supplied"
    assert game_tables(state).get("follow-up").rows[0].high == 5


# -- every kind of mistake, named ------------------------------------------------------------


def paths(problems: list[Problem]) -> list[str]:
    return [p.path for p in problems]


def test_mistakes_in_a_supplied_file_are_refused_naming_the_field() -> None:
    state = new_game()
    bombardment = copy.deepcopy(TEST_TABLES["tables"]["bombardment"])
    # a wrong type
    assert paths(refused(state, "order_costs", {"move": [{"brigades": "two", "tp": 3}]})) == ["data.move[0].brigades"]
    assert paths(refused(state, "army_morale", {"cmf": {"dutch": "high"}})) == ["data.cmf.dutch"]
    # a result the game cannot apply
    bombardment["rows"][2]["result"]["field-artillery"] = "routed"
    problems = refused(state, "tables/bombardment", bombardment)
    assert paths(problems) == ["data.rows[2].result"] and "routed" in problems[0].message
    assert "no-effect, recoil, recoil-shaken, broken" in problems[0].message
    assert paths(refused(state, "combat_results", [{"difference": "0+", "result": "rout"}])) == ["data[0].result"]
    # an unknown army id
    problems = refused(state, "army_morale", {"cmf": {"french": 12}})
    assert paths(problems) == ["data.cmf.french"] and "dutch, bavarian" in problems[0].message
    # a missing key
    del bombardment["rows"]
    assert paths(refused(state, "tables/bombardment", bombardment)) == ["data.rows"]
    assert paths(refused(state, "army_morale", {"when_exhausted": "game-ends"})) == ["data.cmf"]
    # a table that does not cover every roll, an unknown condition, a kind with no cost, a chart with a gap
    gap = {"title": "t", "dice": "1d6", "rows": [{"range": "1-3", "result": "rallied"}]}
    assert "4" in refused(state, "tables/rally", gap)[0].message
    bad_modifier = [{"name": "x", "value": 1, "when": {"weather": ["rain"]}}]
    assert paths(refused(state, "combat_modifiers", bad_modifier)) == ["data[0].when.weather"]
    assert paths(refused(state, "order_costs", {"march": [{"brigades": 1, "tp": 1}]})) == ["data.march"]
    chart = [{"difference": "0-1", "result": "no-effect"}, {"difference": "3+", "result": "broken"}]
    assert paths(refused(state, "combat_results", chart)) == ["data[1].difference"]
    # not a need of this game; set-up data mid-game; a template's placeholder left in
    assert paths(refused(state, "crt", {})) == ["supplies"]
    assert refused(state, "scenarios", {"x": {}})[0].code == "illegal.supply.set-up-only"
    placeholder = {"title": "FILL IN: the table's name", "dice": "1d6", "rows": [{"range": "1-6", "result": "active"}]}
    assert paths(refused(state, "tables/officer-grade", placeholder)) == ["data.title"]


def test_an_exhausted_army_takes_no_new_factor() -> None:
    state = new_game(army_morale={"cmf": {"dutch": 9, "bavarian": 9}})
    state["armies"]["bavarian"]["exhausted"] = True
    assert paths(refused(state, "army_morale", {"cmf": {"bavarian": 12}})) == ["data.cmf.bavarian"]


# -- templates and examples ------------------------------------------------------------------


@pytest.mark.parametrize("need", SUPPLIES.needs, ids=lambda n: n.id)
def test_each_template_and_example_is_a_supply_file_of_the_right_shape(need: Any) -> None:
    check_schema(need.shape)
    for text in (need.template, need.example):
        document = yaml.safe_load(text)
        assert document["supplies"] == need.id
        assert check(document["data"], need.shape, "data") == []
    assert "NOT THE BOOK'S VALUES" in need.example.splitlines()[0]
    assert "not the book's" in need.template


@pytest.mark.parametrize("need", SUPPLIES.needs, ids=lambda n: n.id)
def test_each_example_is_accepted_where_the_game_can_take_it(need: Any) -> None:
    data = yaml.safe_load(need.example)["data"]
    for scenario in GAME.scenarios:
        state = new_game(scenario)
        if when(state, need.id) == "never" and need.id in ("generators", "scenarios"):
            # Set-up data: the example is taken at set-up, as an option.
            options = {need.id: data}
            chosen = "blenheim-1704" if need.id == "scenarios" else scenario
            roles = GAME.roles(chosen, options)
            assert roles is not None and GAME.setup(chosen, list(roles), options)
            continue
        supplied(state, need.id, data)


# -- a whole game, each part supplied only when the game asks for it ---------------------------

ATTACK = {
    "division": "van-gelder",
    "target": "de-salon",
    "pairs": [["X", "M"], ["Y", "N"], ["Z", "O"]],
    "support": [{"base": "X", "by": ["W"]}],
    "rounds": [["X", "Y", "Z"], ["Y", "X"], ["Z", "Y", "X"]],
}
NEED_OF_REFUSAL = {
    "illegal.cost-not-supplied": "order_costs",
    "illegal.table-missing.rally": "tables/rally",
    "illegal.table-missing.bombardment": "tables/bombardment",
}
EXAMPLES = {need.id: yaml.safe_load(need.example)["data"] for need in SUPPLIES.needs}


def attack_orders(state: dict[str, Any], step: str, role: str) -> dict[str, Any]:
    """The book's combat example as orders: all TP to the division, a move of three brigades, the attack."""
    army = state["armies"][role]
    kind = step.split("-", 1)[-1]
    if kind == "bid":
        return {"bid": 1}
    if kind == "command":
        general = state["divisions"][army["divisions"][0]]["commander"]
        orders: dict[str, Any] = {"allocate": [{"general": general, "tp": army["tp"]}]} if army["tp"] else {}
        shaken = [
            b
            for b, rec in state["bases"].items()
            if rec["state"] == "shaken" and state["divisions"][rec["division"]]["army"] == role
        ]
        return {**orders, "rally": [{"base": shaken[0]}]} if shaken else orders
    if kind == "moves" and role == "dutch":
        return {"moves": [{"order": "move", "brigades": ["X", "Y", "Z"]}]}  # three brigades: a cost not in the file
    if kind == "contact" and role == "dutch" and state["turn"] == 1:
        return {"attacks": [copy.deepcopy(ATTACK)]}
    return {}


def test_a_game_begun_with_nothing_supplied_is_played_to_its_end_supplying_each_part_when_asked() -> None:
    state = new_game(rounds=3)
    asked: list[tuple[int, str, str]] = []
    for _ in range(60):
        spec = GAME.phase(state)
        if spec is None:
            break
        orders = {}
        for role in spec.active:
            order = attack_orders(state, spec.name, role)
            for problem in GAME.validate(state, role, order):
                need = NEED_OF_REFUSAL.get(problem.code)
                if need is not None and when(state, need) != "supplied":
                    assert when(state, need) == "now", (need, spec.name)
                    assert "referee can supply it" in problem.message
                    asked.append((state["turn"], spec.name, need))
                    state = supplied(state, need, EXAMPLES[need])
            order = order if GAME.validate(state, role, order) == [] else {}
            orders[role] = order
        try:
            new, _ = GAME.resolve(state, orders, StridingDice(3))
        except NotSupplied as waiting:
            assert when(state, waiting.need) == "now", waiting.need
            asked.append((state["turn"], spec.name, waiting.need))
            state = supplied(state, waiting.need, EXAMPLES[waiting.need])
            continue
        state = json.loads(canonical_json(new))
        assert GAME.check(state) == []
    assert state["over"], state["step"]
    assert [(turn, need) for turn, _, need in asked] == [(1, "order_costs"), (1, "army_morale")]
    assert [w.need for w in SUPPLIES.wanted(state) if w.when == "now"] == []
    for _, _, need in asked:
        assert when(state, need) == "supplied"
