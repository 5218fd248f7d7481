"""Cockpit of Europe's sealed parts: set-ups, plans and the Descent decision sealed until the
rules open them (6.251, 8.1x); sea destinations sealed at embarkation (3.523); standing orders
for the interrupts of the enemy's move (5.264, 7.062), opened only when triggered; random picks
over candidate lists committed before the pick (7.011), opening only the item picked."""

from __future__ import annotations

import json
from typing import Any

from coe_helpers import kinds, playing, real_dice, supplied

from games.cockpit_of_europe import GAME, calendar, events


def resolve(state: dict[str, Any], orders: dict[str, Any], name: str = "x") -> tuple[dict[str, Any], list[Any]]:
    new, happened = GAME.resolve(state, {"allies": {}, "france": {}, **orders}, real_dice(name))
    return json.loads(json.dumps(new)), happened


def seen_by(state: dict[str, Any], side: str | None) -> str:
    return json.dumps(GAME.view(state, side))


def test_8_1_set_ups_and_plans_are_sealed_until_the_end_and_6_25_the_descent_opens_with_the_game() -> None:
    state = GAME.setup("campaign", ["allies", "france"], {})
    state, happened = resolve(
        state,
        {
            "france": {"setup": "FR-SETUP-secret", "plan": "FR-PLAN-secret", "descent": "launch"},
            "allies": {"setup": "AL-SETUP-secret"},
        },
    )
    assert "FR-SETUP-secret" not in seen_by(state, "allies") and "FR-SETUP-secret" in seen_by(state, "france")
    # The Descent is a French pre-game option (6.25): the game's first turn tells it (9.533), so it
    # opens, with its proof, once both set-ups are sealed.
    assert [e.data["text"] for e in kinds(happened, "note.revealed")] == ["launch"]
    assert (state["turn"], state["phase"]) == (1, "administration")  # no calendar: turn 1 stands in
    state, _ = resolve(state, {}, "admin")  # March-April: the Administrative Phase only
    assert state["invasions"]["descent"]["start"] == state["first_turn"]
    assert (state["turn"], state["phase"]) == (2, "start-of-turn")
    assert "FR-PLAN-secret" not in seen_by(state, "allies")


def test_3_523_a_sea_destination_is_sealed_at_embarkation_and_opens_when_it_lands() -> None:
    state = playing(year=1745, turn=2)
    state, _ = resolve(state, {"france": {"embark": [{"force": "Irish", "destination": "HARWICH-secret"}]}})
    assert "HARWICH-secret" not in seen_by(state, "allies") and "Irish" in seen_by(state, "allies")
    state.update(phase="administration", turn=3)
    assert GAME.validate(state, "france", {"land": ["Irish"]}) == []
    state, happened = resolve(state, {"france": {"land": ["Irish"]}}, "land")
    assert "HARWICH-secret" in seen_by(state, "allies")
    assert kinds(happened, "note.revealed")[0].data["openings"][0]["value"] == "HARWICH-secret"


def test_5_264_the_milice_standing_order_opens_when_an_allied_unit_enters_france() -> None:
    state = supplied(playing(year=1745, turn=3, phase="operations"), "milice-pools")
    state["milice"].update(year=1745, original=30, pool=30, allowance=12)
    standing = {"standing": {"milice": {"deploy": "MILICE-to-Maubeuge"}}}
    quiet, _ = resolve(state, {"france": standing})
    assert "MILICE-to-Maubeuge" not in seen_by(quiet, "allies")  # not triggered: stays sealed
    entered, happened = resolve(state, {"france": standing, "allies": {"entered_france": ["Maubeuge"]}})
    assert kinds(happened, "milice.deployed") and "MILICE-to-Maubeuge" in seen_by(entered, "allies")
    assert entered["allied_units_in_france"] is True


def test_7_062_town_independence_garrisons_an_empty_fortification_the_enemy_ends_on() -> None:
    state = playing(year=1745, turn=3, phase="operations")
    state["town_independence"] = {"side": "france", "turn": calendar.now(state), "used": False}
    standing = {"standing": {"town_independence": {"places": ["Ath"], "garrison_limit": 3}}}
    missed, _ = resolve(state, {"france": standing, "allies": {"ended_on_empty": ["Mons"]}})
    assert missed["town_independence"]["used"] is False and "Ath" not in seen_by(missed, "allies")
    hit, happened = resolve(state, {"france": standing, "allies": {"ended_on_empty": ["Ath"]}})
    garrison = kinds(happened, "town-independence.garrison")[0].data
    assert garrison["place"] == "Ath" and garrison["sps"] == min(garrison["roll"] // 2, 3)
    assert GAME.validate(state, "allies", standing)[0].code == "illegal.town-independence"


def test_7_011_a_random_pick_opens_only_the_item_picked() -> None:
    state = playing(year=1745, turn=3, phase="administration")
    lists = {"leaders": ["FR-Saxe", "FR-Lowendal", "FR-Clermont"]}
    state, _ = resolve(state, {"france": {"candidates": lists}, "allies": {"candidates": {"leaders": ["AL-Waldeck"]}}})
    assert not any(name in seen_by(state, "allies") for name in lists["leaders"])
    dice = real_dice("pox")
    happened = events.apply_random(state, "the-pox", dice)
    picked = happened[0].data["leader"]
    assert happened[0].data["openings"][0]["value"] == picked
    state = json.loads(json.dumps(state))
    allies_view = seen_by(state, "allies")
    others = [name for name in lists["leaders"] if name != picked]
    assert not any(name in allies_view for name in others)
    assert [s["leader"] for s in state["sick"]] == [picked]


def test_7_012_an_event_without_candidates_is_no_event() -> None:
    state = playing()
    assert kinds(events.apply_random(state, "lost-orders", real_dice()), "random.none")
