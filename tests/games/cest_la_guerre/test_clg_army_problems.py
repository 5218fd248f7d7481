"""An army order with several mistakes is refused with every independent one at once (issue 18,
item 6): a player fixes them all in one answer instead of one per mail."""

from __future__ import annotations

from typing import Any

from games.cest_la_guerre.armies import build_army
from games.cest_la_guerre.options import resolve_options


def codes(orders: dict[str, Any]) -> list[str]:
    summary, cards, problems = build_army(orders, resolve_options({}))
    assert summary is None and cards == []
    return sorted(p.code for p in problems)


def test_three_independent_mistakes_of_a_list_army_are_listed_together() -> None:
    orders = {
        "list": "wss_austria",
        "choices": [3],  # wss_austria's one choice takes 1 or 2
        "dummies": 9,  # at most 4
        "units": [{"type": "general"}],  # units are for point-system armies
    }
    assert codes(orders) == ["illegal.army.choice", "illegal.army.dummies", "illegal.army.units"]


def test_three_independent_mistakes_of_a_point_system_army_are_listed_together() -> None:
    orders = {
        "list": "point-system",
        "units": [
            {"type": "general"},
            {"type": "dragoons"},  # no such troop type
            {"type": "light_cav", "grade": "elite"},  # light cavalry is average
            {"type": "reg_inf", "dismount": True},  # only cavalry dismounts
        ],
    }
    assert codes(orders) == ["illegal.army.dismount", "illegal.army.grade", "illegal.army.type"]


def test_what_follows_from_a_wrong_choice_is_not_reported_twice() -> None:
    """With the choices wrong the army's cards are unknown: its points and a reserve naming one of
    them are not judged (they would be wrong only because of the choice)."""
    orders = {"list": "wss_austria", "choices": [3], "reserve": ["sub-command-1"]}
    assert codes(orders) == ["illegal.army.choice"]


def test_a_fitting_list_army_still_passes() -> None:
    summary, cards, problems = build_army({"list": "wss_austria", "choices": [2]}, resolve_options({}))
    assert problems == [] and summary is not None and cards
