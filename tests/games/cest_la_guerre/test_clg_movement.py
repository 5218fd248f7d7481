"""Step 3: moves paid in Initiative Points, formations, and the rules every move must keep."""

from __future__ import annotations

from typing import Any

from clg_helpers import battle, card, texts, unit

from games.cest_la_guerre import rules
from games.cest_la_guerre.actions import run_movement

from scripted_dice import ScriptedDice


def codes(state: dict[str, Any], *actions: dict[str, Any]) -> list[str]:
    return [p.code for p in rules.validate(state, "blue", {"actions": list(actions)})]


def line_up() -> dict[str, Any]:
    """A General with three Regular Infantry abreast beside him, and a red card far off."""
    return battle(
        [
            card("B1", "general", 500, 100, "north"),
            card("B2", "reg_inf", 555, 100, "north"),
            card("B3", "reg_inf", 605, 100, "north"),
            card("B4", "reg_inf", 655, 100, "north"),
            card("B5", "reg_inf", 1000, 100, "north"),
            card("R1", "reg_inf", 500, 800, "south"),
        ],
        ip=2,
    )


def test_a_move_longer_than_the_allowance_is_refused_with_the_allowance() -> None:
    state = line_up()
    problems = rules.validate(state, "blue", {"actions": [{"move": "B5", "to": {"x": 1000, "y": 260}}]})
    assert problems[0].code == "illegal.move.too-far"
    assert "may move 150 mm here (good going)" in problems[0].message
    assert codes(state, {"move": "B5", "to": {"x": 1000, "y": 250}}) == []


def test_cards_may_not_overlap_or_pass_through_each_other() -> None:
    state = line_up()
    assert codes(state, {"move": "B2", "to": {"x": 605, "y": 120}}) == ["illegal.move.overlap"]
    assert codes(state, {"move": "B2", "to": {"x": 710, "y": 100}}) == ["illegal.move.through"]
    mounted = battle([card("B1", "general", 500, 100, "north"), card("B2", "cavalry", 500, 70, "north")])
    assert codes(mounted, {"move": "B2", "to": {"x": 500, "y": 140}}) == []  # Mounted through a Command Unit


def test_a_command_group_moves_for_one_ip_and_only_its_members() -> None:
    state = line_up()
    group = {
        "group": "B1",
        "moves": [
            {"move": m, "to": {"x": x, "y": 200}} for m, x in (("B1", 500), ("B2", 555), ("B3", 605), ("B4", 655))
        ],
    }
    b = run_movement(
        state, "blue", {"actions": [group, {"move": "B5", "to": {"x": 1000, "y": 200}}]}, ScriptedDice([1, 1])
    )
    assert b.problems == []
    assert all(unit(b.state, m)["y"] == 200 for m in ("B1", "B2", "B3", "B4", "B5"))
    assert b.state["sides"]["blue"]["ip_spent"] == 2
    outsider = {"group": "B1", "moves": [{"move": "B5", "to": {"x": 1000, "y": 200}}]}
    assert codes(state, outsider) == ["illegal.formation.member"]


def test_a_line_moves_together_and_a_column_needs_cards_one_behind_the_other() -> None:
    state = line_up()
    line = {
        "line": ["B2", "B3", "B4"],
        "moves": [{"move": m, "to": {"x": x, "y": 200}} for m, x in (("B2", 555), ("B3", 605), ("B4", 655))],
    }
    assert codes(state, line) == []
    ragged = {**line, "moves": [*line["moves"][:2], {"move": "B4", "to": {"x": 655, "y": 150}}]}
    assert codes(state, ragged) == ["illegal.formation.line"]
    assert codes(state, {"line": ["B1", "B2", "B3"], "moves": line["moves"]}) == ["illegal.formation.line"]
    assert codes(state, {"column": ["B2", "B3"], "moves": line["moves"][:1]}) == ["illegal.formation.column"]


def test_surcharges_and_running_out_of_ip() -> None:
    state = line_up()
    problems = rules.validate(
        state,
        "blue",
        {"actions": [{"move": m, "to": {"x": x, "y": 200}} for m, x in (("B5", 1000), ("B2", 555), ("B3", 605))]},
    )
    assert [p.code for p in problems] == ["illegal.ip"]
    assert "only 0 are left" in problems[0].message


def test_a_zone_of_control_may_be_entered_head_on_but_not_crossed() -> None:
    state = battle(
        [
            card("B1", "cavalry", 500, 300, "north"),
            card("R1", "reg_inf", 500, 420, "south"),
            card("B9", "general", 100, 100, "north"),
        ]
    )
    assert codes(state, {"move": "B1", "to": {"x": 620, "y": 450, "facing": "north"}}) == ["illegal.move.zoc"]
    assert codes(state, {"move": "B1", "contact": {"target": "R1", "edge": "front"}}) == []
    assert codes(state, {"move": "B1", "to": {"x": 500, "y": 370, "facing": "north"}}) == []


def test_only_cavalry_charges_and_only_into_contact() -> None:
    state = battle(
        [
            card("B1", "light_cav", 500, 100, "north"),
            card("R1", "reg_inf", 500, 700, "south"),
            card("B9", "general", 100, 100, "north"),
        ]
    )
    first = {"move": "B1", "to": {"x": 500, "y": 400}}
    charge = {"charge": "B1", "contact": {"target": "R1", "edge": "front"}}
    assert codes(state, charge) == ["illegal.move.charge"]  # it has not moved yet
    assert codes(state, first, charge) == []
    assert codes(state, first, {"charge": "B1", "to": {"x": 500, "y": 500}}) == ["illegal.move.charge"]
    b = run_movement(state, "blue", {"actions": [first, charge]}, ScriptedDice([1, 1]))
    assert unit(b.state, "B1")["y"] == 670 and unit(b.state, "R1")["face_up"]


def test_artillery_never_moves_into_contact() -> None:
    state = battle([card("B1", "artillery", 500, 100, "north"), card("R1", "reg_inf", 500, 160, "south")])
    assert codes(state, {"move": "B1", "contact": {"target": "R1", "edge": "front"}}) == ["illegal.move.contact"]


def test_reorder_and_rally() -> None:
    state = battle(
        [
            card("B1", "general", 500, 100, "north"),
            card("B2", "reg_inf", 555, 100, "north", disordered=True, casualties=2),
            card("B3", "reg_inf", 900, 100, "north", casualties=1),
            card("R1", "reg_inf", 500, 800, "south"),
        ]
    )
    assert codes(state, {"move": "B2", "to": {"x": 555, "y": 150}}) == ["illegal.move.disordered"]
    assert codes(state, {"rally": "B3"}) == ["illegal.rally"]  # in no Command Group
    b = run_movement(
        state, "blue", {"actions": [{"reorder": "B2"}, {"rally": "B2"}, {"rally": "B2"}]}, ScriptedDice([1, 1])
    )
    assert not unit(b.state, "B2")["disordered"] and unit(b.state, "B2")["casualties"] == 1
    assert "already removed a casualty" in texts(b.events)


def test_a_card_contacted_on_its_flank_turns_to_face() -> None:
    state = battle(
        [
            card("B1", "cavalry", 500, 300, "north"),
            card("R1", "reg_inf", 580, 450, "west"),
            card("B9", "general", 100, 100, "north"),
        ]
    )
    b = run_movement(
        state, "blue", {"actions": [{"move": "B1", "contact": {"target": "R1", "edge": "left"}}]}, ScriptedDice([1, 1])
    )
    red = unit(b.state, "R1")
    assert red["facing"] == 180
    assert "turns to face" in texts(b.events)
