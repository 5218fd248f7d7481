"""Army orders: checked against their list or the point system, refused with a reason a player can act on."""

from __future__ import annotations

from typing import Any

import pytest

from games.cest_la_guerre import rules
from games.cest_la_guerre.armies import build_army
from games.cest_la_guerre.options import resolve_options


def problems(orders: dict[str, Any], **options: Any) -> list[str]:
    return [f"{p.code}: {p.message}" for p in build_army(orders, resolve_options(options))[2]]


def test_a_fitting_army_is_accepted_and_its_cards_are_named_in_list_order() -> None:
    summary, cards, found = build_army({"list": "wss_austria", "choices": [2], "dummies": 1}, resolve_options({}))
    assert found == [] and summary is not None
    assert summary["points"] == 80
    ids = [c["id"] for c in cards]
    assert ids[:3] == ["general-1", "reg-inf-inferior-1", "reg-inf-inferior-2"]
    assert ids.count("reg-inf-inferior-3") == 1 and ids[-1] == "dummy-1"  # the choice's two inferior infantry
    assert len(cards) == 18


@pytest.mark.parametrize(
    ("orders", "wanted"),
    [
        ({"list": "wss_austira"}, "did you mean wss_austria"),
        ({"list": "wss_austria"}, "give one pick for each, in order, e.g. choices: [1]"),
        ({"list": "wss_austria", "choices": [3]}, "takes one option number from 1 to 2"),
        ({"list": "wss_france", "choices": [[1]]}, "fills 2 cards: give a list of 2 option numbers"),
        ({"list": "wss_prussia", "choices": [1]}, "has no alternatives: leave choices out"),
        ({"list": "wss_prussia", "dummies": 5}, "at most 4 dummies"),
        ({"list": "wss_prussia", "reserve": ["general-9"]}, "no card 'general-9' (did you mean general-1?)"),
        ({"list": "wss_prussia", "names": [{"unit": "general-1", "name": "a\nb"}]}, "1 to 40 plain characters"),
        ({"list": "point-system", "units": [{"type": "reg_inf", "count": 2}]}, "exactly one General, not 0"),
        (
            {
                "list": "point-system",
                "units": [{"type": "general"}, {"type": "heavy_cav", "grade": "elite", "count": 9}],
            },
            "the army costs 41.0 points, over the game's 40",
        ),
        (
            {"list": "point-system", "units": [{"type": "general"}, {"type": "light_cav", "grade": "elite"}]},
            "may be average",
        ),
        ({"list": "fiw_french", "swaps": [{"swap": "indian-allies"}]}, "does not use the optional FIW swaps"),
    ],
)
def test_an_army_that_does_not_fit_is_refused_with_the_reason(orders: dict[str, Any], wanted: str) -> None:
    found = problems(orders)
    assert any(wanted in p for p in found), found


def test_a_point_system_army_with_dummies_within_the_points() -> None:
    orders = {
        "list": "point-system",
        "units": [
            {"type": "general", "grade": "brilliant"},
            {"type": "reg_inf", "grade": "elite", "count": 6, "british": True},
            {"type": "engineers"},
            {"type": "cavalry", "dismount": True, "count": 3},
        ],
        "dummies": 4,
    }
    summary, cards, found = build_army(orders, resolve_options({}))
    assert found == [] and summary is not None
    assert summary["points"] == 2 * (6 + 6 * 3.5 + 1 + 3 * 2 + 2)
    assert sum(1 for c in cards if c["type"] == "dummy") == 4
    assert problems(orders, point_system=False)


def test_the_french_and_indian_war_swaps_keep_the_points() -> None:
    orders = {
        "list": "fiw_french",
        "swaps": [{"swap": "indian-allies"}, {"swap": "woodsmen", "take": "militia"}],
    }
    summary, cards, found = build_army(orders, resolve_options({"fiw_swaps": True}))
    assert found == [] and summary is not None
    assert sum(c["cost"] for c in cards) == 80
    assert sum(1 for c in cards if c["type"] == "light_inf") == 6
    assert not any(c["type"] == "cavalry" for c in cards)
    assert problems({"list": "fiw_british", "swaps": [{"swap": "indian-allies"}]}, fiw_swaps=True)


def test_the_armies_phase_refuses_through_validate_and_accepts_the_example() -> None:
    state = rules.setup("open-battle", ["blue", "red"], {})
    spec = rules.phase(state)
    assert spec is not None and spec.active == ("blue", "red")
    assert rules.validate(state, "blue", spec.example) == []
    found = rules.validate(state, "blue", {"list": "gnw_sweden", "choices": [4]})
    assert [p.code for p in found] == ["illegal.army.choice"]
    assert found[0].path == "orders.choices[0]"
