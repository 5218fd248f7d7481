"""Every game module that asks its referee for data declares it so that `referee supply` works
(issue 15): shapes the schema checker accepts, ids used once, a template that reads as a supply
file, an example (when given) that `referee supply` accepts as it stands, and `wanted` naming
only declared needs with a known `when`."""

from __future__ import annotations

import pytest
import supplygame
import yaml
from play import players_of

import games
from referee.game.supplies import read_supply_file, supply_file_text, template_text
from referee.kit import WHENS, GameModule
from referee.kit.schema import check_schema

MODULES = [module for module in (*games.GAMES, supplygame.GAME) if module.supplies is not None]


def test_the_core_is_tested_with_at_least_one_module_that_needs_data() -> None:
    assert supplygame.GAME in MODULES


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.id)
def test_every_need_is_declared_so_that_a_referee_can_supply_it(module: GameModule) -> None:
    assert module.supplies is not None
    ids = [need.id for need in module.supplies.needs]
    assert len(ids) == len(set(ids)), f"{module.id}: a need id is declared twice: {ids}"
    for need in module.supplies.needs:
        assert need.title and need.book and need.needed_by, f"{module.id}/{need.id}: title, book and needed_by"
        check_schema(need.shape)
        skeleton = yaml.safe_load(template_text(module, need.id))
        assert skeleton["supplies"] == need.id, f"{module.id}/{need.id}: the template names another need"
        if need.example:
            raw = supply_file_text(need.id, need.example).encode()
            read_supply_file(module, "any-game", raw, f"{need.id} example")  # raises naming every problem


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.id)
def test_wanted_names_declared_needs_with_a_known_when(module: GameModule) -> None:
    assert module.supplies is not None
    for scenario in module.scenarios:
        players = players_of(module, scenario)
        state = module.setup(scenario, players, {})
        for wanted in module.supplies.wanted(state):
            assert wanted.need in module.supplies.by_id, f"{module.id}: wanted names no declared need {wanted.need}"
            assert wanted.when in WHENS, f"{module.id}/{wanted.need}: when {wanted.when!r}"
