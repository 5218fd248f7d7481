"""Every gap of the extraction is a named, documented option with its proposed default."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from games.cest_la_guerre import GAME, rules
from games.cest_la_guerre.options import BY_NAME, SPECS, resolve_options
from referee.kit import GameDataError

README = Path(__file__).resolve().parents[3] / "games" / "cest_la_guerre" / "README.md"


def test_every_gap_from_g01_to_g47_has_an_option() -> None:
    gaps = {spec.gap for spec in SPECS if spec.gap and spec.gap.startswith("G-")}
    assert gaps == {f"G-{n:02d}" for n in range(1, 48)}


def test_the_silences_found_since_are_numbered_options_too() -> None:
    silent = sorted(spec.gap for spec in SPECS if spec.gap and spec.gap.startswith("S-"))
    assert silent == [f"S-{n:02d}" for n in range(1, len(silent) + 1)] and len(silent) >= 5


def test_every_option_is_in_the_module_and_the_readme() -> None:
    text = README.read_text(encoding="utf-8")
    for spec in SPECS:
        assert spec.name in GAME.options
        assert re.search(rf"\| `{spec.name}` \|", text), f"README does not list {spec.name}"
        if spec.gap:
            assert re.search(rf"\| {spec.gap} \| `{spec.name}` \|", text), (
                f"README does not tie {spec.name} to {spec.gap}"
            )


def test_the_state_keeps_the_resolved_options() -> None:
    state = rules.setup("open-battle", ["blue", "red"], {"ip_dice": "2d6", "rounds": 6, "tables": {"x": 1}})
    assert state["options"]["ip_dice"] == "2d6"
    assert state["options"]["reveal_distance_mm"] == 250
    assert set(state["options"]) == set(BY_NAME)


@pytest.mark.parametrize(
    ("options", "wanted"),
    [
        ({"ip_dice": "1d10"}, "six-sided dice"),
        ({"tie_rule": "attacker_wins"}, "one of no_result, reroll"),
        ({"loss_threshold": 0}, "from 1 to 100"),
        ({"reserve_needs": {"own_base": 5}}, "own_base, flank and enemy_base"),
        ({"melee_chart_fill": {"dragoons": {"infantry": 1, "mounted": 1}}}, "a melee chart row"),
        ({"terrain_menu": {"bog": {"going": "sticky", "los_block": False, "elevation": 0}}}, "good, bad, impassable"),
        ({"reveal_distance": 250}, "unknown option"),
        ({"players": 3}, "from 2 to 2"),
    ],
)
def test_a_bad_option_is_refused_with_what_is_allowed(options: dict[str, Any], wanted: str) -> None:
    with pytest.raises(GameDataError) as caught:
        resolve_options(options)
    assert wanted in str(caught.value)


def test_a_changed_chart_row_keeps_the_other_rows() -> None:
    resolved = resolve_options({"melee_chart_fill": {"cavalry": {"infantry": 1, "mounted": 3}}})
    assert resolved["melee_chart_fill"]["cavalry"] == {"infantry": 1, "mounted": 3}
    assert resolved["melee_chart_fill"]["heavy_cav"] == {"infantry": 5, "mounted": 4}
