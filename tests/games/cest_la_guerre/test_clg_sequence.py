"""The sequence of play: the pre-game phases, bounds High scorer first, combat phases, the end."""

from __future__ import annotations

import copy
from typing import Any

from clg_helpers import battle, card

from games.cest_la_guerre import rules
from referee.protocol.draws import Dice

from scripted_dice import ScriptedDice


def run(state: dict[str, Any], orders: dict[str, Any], dice: Any) -> tuple[dict[str, Any], list[Any]]:
    return rules.resolve(state, orders, dice)


def test_the_pre_game_runs_armies_terrain_and_deployment_low_scorer_first() -> None:
    state = rules.setup("open-battle", ["blue", "red"], {})
    names = []
    for step in range(5):
        spec = rules.phase(state)
        assert spec is not None
        names.append((spec.turn, spec.name, spec.active))
        orders = {role: copy.deepcopy(spec.example) for role in spec.active}
        state, _ = rules.resolve(state, orders, Dice(bytes([7, step]) * 16))
    low, high = state["low"], state["high"]
    assert names[:4] == [
        (0, "armies", ("blue", "red")),
        (0, "terrain", (low,)),
        (0, f"deploy-{low}", (low,)),
        (0, f"deploy-{high}", (high,)),
    ]
    assert names[4] == (1, f"{high}-move", (high,))
    assert state["edges"][low] != state["edges"][high]


def far_apart(**options: Any) -> dict[str, Any]:
    return battle(
        [
            card("B1", "general", 500, 15, "north", face_up=False),
            card("R1", "general", 500, 885, "south", face_up=False),
        ],
        round_=1,
        options=options,
    )


def test_with_nothing_in_reach_the_combat_phase_is_skipped_and_the_round_ends() -> None:
    state = far_apart()
    state, events = run(state, {"blue": {}}, ScriptedDice([3]))  # red's IP
    assert [e.kind for e in events] == ["combat.none", "initiative"]
    assert rules.phase(state).name == "red-move"
    state, events = run(state, {"red": {}}, ScriptedDice([4]))  # blue's IP for Round 2
    kinds = [e.kind for e in events]
    assert kinds == ["combat.none", "victory.check", "initiative"]
    assert state["round"] == 2


def test_a_combat_nobody_has_a_choice_in_is_fought_at_once() -> None:
    """L172: units that can shoot must; two cards facing each other in range make one firefight,
    with no target or order to choose (pace: no phase waits for either player)."""
    state = battle([card("B1", "reg_inf", 500, 400, "north"), card("R1", "reg_inf", 500, 470, "south")])
    # the reserve die of Round 2, the firefight's 2D6 each, then red's IP
    state, events = run(state, {"blue": {}}, ScriptedDice([1, 1, 3, 3, 3, 3, 4]))
    kinds = [e.kind for e in events]
    assert "combat.unasked" in kinds and "combat.shooting" in kinds
    assert rules.phase(state).name == "red-move"


def test_a_choice_of_targets_opens_a_combat_phase_for_that_player_only() -> None:
    """L295: a shooter with two enemies in its lane chooses "any one"; the target has no choice."""
    state = battle(
        [
            card("B1", "artillery", 500, 300, "north"),
            card("R1", "reg_inf", 480, 470, "south"),
            card("R2", "reg_inf", 530, 600, "west"),
        ]
    )
    state, _ = run(state, {"blue": {}}, ScriptedDice([1, 1]))  # the reserve die of Round 2
    spec = rules.phase(state)
    assert spec is not None and (spec.name, spec.active) == ("blue-combat", ("blue",))


def test_the_literal_second_bound_has_no_combat() -> None:
    state = battle([card("B1", "reg_inf", 500, 400, "north"), card("R1", "reg_inf", 500, 470, "south")], phasing="red")
    state["options"]["combat_in_both_bounds"] = False
    state, events = run(state, {"red": {}}, ScriptedDice([2, 2, 5]))  # red's reserve roll, then blue's IP
    assert rules.phase(state).name == "blue-move"


def test_a_round_limit_ends_in_a_draw() -> None:
    state = far_apart(rounds=1)
    state, _ = run(state, {"blue": {}}, ScriptedDice([3]))
    state, events = run(state, {"red": {}}, ScriptedDice([]))
    assert rules.phase(state) is None
    assert state["result"] == {"winner": None, "loser": None, "draw": True}


def test_unspent_ip_can_be_kept_by_option() -> None:
    state = far_apart(ip_carry_over=True)
    state["round"] = 2
    state["sides"]["blue"].update(ip=5, ip_spent=2)
    state["phasing"] = "red"
    state["sides"]["red"].update(ip=1, ip_spent=0)
    state, events = run(state, {"red": {}}, ScriptedDice([1, 1, 4]))  # red's reserve roll, blue's IP
    assert state["sides"]["blue"]["ip"] == 4 + 3
