"""What the referee may supply mid-game (issue 15): C'est la Guerre's gaps with defaults.

The game never waits: each need is `default` until the referee supplies the book's value,
which the next phase reads exactly as an option given at `referee init`.
"""

from __future__ import annotations

import json
from typing import Any

from clg_helpers import battle, card, feature

from games.cest_la_guerre import GAME, rules
from games.cest_la_guerre.combat import chart_factor
from games.cest_la_guerre.supplies import SUPPLIES
from referee.kit import Problem
from referee.protocol.canonical import canonical_json


def when(state: dict[str, Any]) -> dict[str, str]:
    return {w.need: w.when for w in SUPPLIES.wanted(state)}


def supply(state: dict[str, Any], need: str, data: Any) -> tuple[dict[str, Any], list[Problem]]:
    before = canonical_json(state)
    new, problems = SUPPLIES.supply(state, need, data)
    assert canonical_json(state) == before, "supply changed its input"
    if problems:
        assert canonical_json(new) == before, "a refusal changed the state"
    return json.loads(canonical_json(new)), problems


def test_every_need_is_a_default_until_supplied_and_options_given_at_init_count_as_supplied() -> None:
    state = rules.setup("open-battle", ["blue", "red"], {})
    assert set(when(state).values()) == {"default"}
    given = rules.setup("open-battle", ["blue", "red"], {"ip_dice": "2d6", "pikes_in_melee": 2})
    assert (when(given)["ip_dice"], when(given)["pikes_in_melee"], when(given)["reserve_dice"]) == (
        "supplied",
        "supplied",
        "default",
    )


def test_a_supplied_melee_row_is_read_by_the_next_combat_and_keeps_the_other_rows() -> None:
    state = battle([card("B1", "light_cav", 500, 470, "north"), card("R1", "reg_inf", 500, 500, "south")])
    light_cav = {"type": "light_cav"}
    assert chart_factor("melee", "light_cav", light_cav, state["options"]) == 1
    state, problems = supply(state, "melee_chart_fill", {"light_cav": {"infantry": 3, "mounted": 2}})
    assert problems == []
    assert chart_factor("melee", "light_cav", light_cav, state["options"]) == 2  # against mounted
    assert state["options"]["melee_chart_fill"]["cavalry"] == {"infantry": 4, "mounted": 3}  # the fill kept
    assert when(state)["melee_chart_fill"] == "supplied"


def test_a_terrain_menu_supplied_after_the_terrain_is_laid_changes_the_laid_features() -> None:
    state = battle([], terrain=(feature("T1", "woods", 0, 0, 100, 100),))
    menu = dict(state["options"]["terrain_menu"])
    menu["woods"] = {"going": "impassable", "los_block": True, "elevation": 0}
    state, problems = supply(state, "terrain_menu", menu)
    assert problems == []
    assert state["terrain"][0]["going"] == "impassable" and state["terrain"][0]["id"] == "T1"
    del menu["woods"]
    _, problems = supply(state, "terrain_menu", menu)
    assert [(p.path, "woods" in p.message) for p in problems] == [("data", True)]


def test_mistakes_are_refused_naming_the_field() -> None:
    state = rules.setup("open-battle", ["blue", "red"], {})
    cases = [
        ("terrain_menu", {"woods": {"going": "slow", "los_block": True, "elevation": 0}}, "data.woods.going"),
        ("melee_chart_fill", {"dragoons": {"infantry": 1, "mounted": 1}}, "data.dragoons"),
        ("melee_chart_fill", {"cavalry": {"infantry": 11, "mounted": 1}}, "data.cavalry.infantry"),
        ("reserve_needs", {"own_base": "five", "flank": 7, "enemy_base": 9}, "data.own_base"),  # a wrong type
        ("reserve_needs", {"own_base": 5, "flank": 7}, "data.enemy_base"),  # a missing key
        ("ip_dice", "1d10", "data"),  # dice the game cannot roll
        ("pikes_in_melee", 7, "data"),
        ("crt", {}, "supplies"),
    ]
    for need, data, path in cases:
        _, problems = supply(state, need, data)
        assert [p.path for p in problems] == [path], (need, data, problems)


def test_the_next_phase_rolls_the_supplied_dice() -> None:
    state = rules.setup("open-battle", ["blue", "red"], {})
    state, problems = supply(state, "ip_dice", "2d6")
    assert problems == [] and state["options"]["ip_dice"] == "2d6"
    assert GAME.phase(state) is not None
