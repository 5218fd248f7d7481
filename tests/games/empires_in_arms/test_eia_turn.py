"""What the sequence's phases do under the options played: the Economic Phase's naval raiding
(12.2.2), economic manipulation (12.5) and American trade roll (12.9), militia conversion and its
arrival (12.1.1), ship building announced (12.1.2), the Land Phases counted after a peace and the
Reinforcement Phase's demobilisation (12.4), allied access (12.8) and ceding (12.3.9)."""

from __future__ import annotations

import copy
from typing import Any

from eia_helpers import SealingDice

from games.empires_in_arms import rules

SEQUENCE = [{"name": "reinforcement"}, {"name": "naval"}, {"name": "land"}, {"name": "economic"}]
DISPLAY = {"squares": {"0": {"psa": 0, "money": 0, "manpower": 0}, "+1": {"psa": -1, "money": 5, "manpower": 0}}}
POWERS = {
    "france": {"player": "france", "home": ["paris"], "at_war": ["britain"], "money": 10},
    "britain": {
        "player": "britain",
        "home": ["london"],
        "allies": [],
        "at_war": ["france"],
        "money": 10,
        "colonial_trade": 10,
    },
    "russia": {"player": "russia", "home": ["moscow"], "money": 20},
}
UNITS = {
    "fr-fleet": {"power": "france", "nation": "france", "type": "fleet", "area": "channel", "ships": 10},
    "fr-fleet-2": {"power": "france", "nation": "france", "type": "fleet", "area": "north-sea", "ships": 10},
    "fr-corps": {"power": "france", "nation": "france", "type": "corps", "area": "london", "factors": {"infantry": 5}},
    "ru-corps": {"power": "russia", "nation": "russia", "type": "corps", "area": "moscow", "factors": {"militia": 4}},
}


def game(**on: Any) -> dict[str, Any]:
    options = {
        **on,
        "sequence": SEQUENCE,
        "powers": POWERS,
        "units": UNITS,
        "start": "1806-01",
        "economic_display": DISPLAY,
        "sea_areas_next_to_britain": ["channel", "north-sea", "irish-sea"],
    }
    return copy.deepcopy(rules.setup("open", ["britain", "france", "russia"], options))


def step(state: dict[str, Any], orders: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[Any]]:
    orders = orders or {}
    for player, given in orders.items():
        assert rules.validate(state, player, given) == [], (player, given)
    new, events = rules.resolve(state, orders, SealingDice([]))
    return copy.deepcopy(new), events


def until(state: dict[str, Any], name: str) -> dict[str, Any]:
    while getattr(rules.phase(state), "name", None) != name:
        state, _ = step(state)
    return state


def test_12_2_2_raiding_and_12_5_manipulation_in_the_economic_phase() -> None:
    state = until(game(naval_raiding=True, economic_manipulation=True), "economic")
    state, events = step(state, {"france": {"manipulation": "+1"}})
    raiding = next(e for e in events if e.kind == "economy.raiding")
    assert raiding.data == {"raided": 2, "trade": 10, "after": 0}
    assert [e.data["square"] for e in events if e.kind == "economy.manipulation"] == ["0", "0", "0"]
    assert state["manipulation"]["france"] == {"square": "+1", "next": "+1"}
    state = until(state, "economic")
    state, events = step(state)
    assert state["powers"]["france"]["money"] == 15  # the +1 square's money, recorded a phase later (12.5.1)


def test_12_5_a_square_not_on_the_display_is_refused() -> None:
    state = until(game(economic_manipulation=True), "economic")
    assert [p.code for p in rules.validate(state, "france", {"manipulation": "+7"})] == ["illegal.square"]


def test_12_1_1_militia_converted_returns_as_infantry_three_months_later() -> None:
    state = until(game(militia_conversion=True), "economic")
    state, events = step(state, {"russia": {"militia": [{"unit": "ru-corps", "factors": 4}]}})
    assert state["powers"]["russia"]["money"] == 8 and state["units"]["ru-corps"]["factors"]["militia"] == 0
    assert state["conversions"] == [{"unit": "ru-corps", "factors": 4, "due": "1806-04"}]
    for _ in range(3):
        state = until(state, "reinforcement")
        state, events = step(state)
    assert state["units"]["ru-corps"]["factors"]["infantry"] == 4 and "militia.arrived" in [e.kind for e in events]


def test_12_1_2_ships_building_are_announced_to_all() -> None:
    state = until(game(ship_building_locations=True), "economic")
    state, events = step(state, {"britain": {"build_ships": [{"ships": 4, "ports": ["portsmouth"]}]}})
    built = next(e for e in events if e.kind == "ships.building")
    assert built.visible_to == "all" and rules.view(state, "france")["building"][0]["ports"] == ["portsmouth"]


def test_12_9_britain_rolls_when_b6_denies_american_trade() -> None:
    state = game(american_trade=True)
    state, _ = step(state, {"britain": {"peace": {"with": "france", "victor": "britain", "b6": True}}})
    state = until(state, "economic")
    state, events = step(state)
    assert next(e for e in events if e.kind == "economy.american-trade").data == {"by_britain": [], "by_b6": ["france"]}


def test_12_4_corps_left_six_land_phases_after_peace_are_demobilised_unless_granted_access() -> None:
    state = game(peace_limited_access=True)
    state, _ = step(state, {"britain": {"peace": {"with": "france"}}})
    kept = copy.deepcopy(state)
    for _ in range(6):
        state = until(state, "land")
        state, _ = step(state)
    state = until(state, "reinforcement")
    state, events = step(state)
    assert state["units"]["fr-corps"].get("demobilised") and "peace.demobilised" in [e.kind for e in events]
    state = kept
    state = until(state, "land")
    state, _ = step(state, {"britain": {"grant_access": ["france"]}})
    for _ in range(6):
        state = until(state, "land")
        state, _ = step(state)
    state, events = step(until(state, "reinforcement"))
    assert not state["units"]["fr-corps"].get("demobilised")


def test_12_8_access_only_to_an_ally_and_12_3_9_ceding_only_as_a_peace_term() -> None:
    state = game(allied_access=True, no_ceding=True)
    assert "12.8" in rules.validate(state, "britain", {"grant_access": ["russia"]})[0].message
    assert "12.3.9" in rules.validate(state, "britain", {"cede": {"minor": "hanover", "to": "russia"}})[0].message
    assert rules.validate(state, "britain", {"cede": {"minor": "hanover", "to": "russia", "peace_term": True}}) == []


def test_an_option_off_refuses_its_orders_naming_the_rule() -> None:
    state = until(game(), "economic")
    problems = rules.validate(state, "russia", {"militia": [{"unit": "ru-corps", "factors": 4}]})
    assert problems[0].code == "illegal.option-off" and "12.1.1" in problems[0].message
