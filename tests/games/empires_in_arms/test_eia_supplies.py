"""What the referee supplies: each example taken, each template refused until filled in, a step
that reaches a table not yet supplied waits for it (NotSupplied), and `wanted` says when."""

from __future__ import annotations

import copy

import pytest
import yaml
from eia_helpers import SealingDice

from games.empires_in_arms import rules
from games.empires_in_arms.supplies import NEEDS, supply, wanted
from referee.kit import NotSupplied


def plain_game() -> dict:
    return copy.deepcopy(rules.setup("coalition", ["britain", "france", "russia"], {"proportional_land_losses": True}))


@pytest.mark.parametrize("need", NEEDS, ids=lambda n: n.id)
def test_each_example_is_taken_and_each_template_refused(need: object) -> None:
    state = plain_game()
    example = yaml.safe_load(need.example)["data"]  # type: ignore[attr-defined]
    new, problems = supply(state, need.id, example)  # type: ignore[attr-defined]
    assert problems == [] and need.id in new["supplied"]  # type: ignore[attr-defined]
    template = yaml.safe_load(need.template)["data"]  # type: ignore[attr-defined]
    _, refused = supply(state, need.id, template)  # type: ignore[attr-defined]
    assert refused


def test_a_table_missing_a_die_total_is_refused_naming_it() -> None:
    data = yaml.safe_load(next(n for n in NEEDS if n.id == "guard_table").example)["data"]
    del data["columns"]["+2"]["6"]
    _, problems = supply(plain_game(), "guard_table", data)
    assert any("6" in p.message and p.path == "data.columns.+2" for p in problems)


def test_a_combat_waits_for_the_combat_resolution_table() -> None:
    state = plain_game()
    attack = {"kind": "field", "attackers": ["ru-guard"], "defenders": ["fr-corps-1"]}
    state, _ = rules.resolve(state, {"russia": {"attack": [attack]}}, SealingDice([]))
    assert {w.need: w.when for w in wanted(state)}["combat_results"] == "now"
    with pytest.raises(NotSupplied) as raised:
        rules.resolve(state, {"russia": {"table": "3-2"}, "france": {"table": "3-2"}}, SealingDice([]))
    assert raised.value.need == "combat_results"


def test_wanted_names_later_for_rules_played_and_never_for_the_rest() -> None:
    when = {w.need: w.when for w in wanted(plain_game())}
    assert when == {
        "combat_results": "later",
        "guard_table": "never",
        "economic_display": "never",
        "competitive_rolls": "later",
    }
