"""What the referee of a Cockpit of Europe game supplies: each chart the volume names but does
not print is a need with a template (refused until filled in) and an example (NOT the book's
values); a step that reads a chart not yet supplied is not made and says so; the order of the
start-of-administration rolls, which the book does not give, is a named option."""

from __future__ import annotations

import json

import pytest
import yaml
from coe_helpers import SUPPLY_EXAMPLES, kinds, playing, scripted, supplied, tables

from games.cockpit_of_europe import GAME
from games.cockpit_of_europe.rules import _administration
from referee.kit import GameDataError

SUPPLIES = GAME.supplies
assert SUPPLIES is not None


@pytest.mark.parametrize("need", [n.id for n in SUPPLIES.needs])
def test_a_template_supplied_unfilled_is_refused(need: str) -> None:
    state = GAME.setup("campaign", ["allies", "france"], {})
    template = yaml.safe_load(SUPPLIES.by_id[need].template)["data"]
    _, problems = SUPPLIES.supply(state, need, template)
    assert problems, f"{need}: its template was accepted unfilled"


def test_every_need_is_wanted_with_a_reason_and_nothing_is_invented() -> None:
    state = GAME.setup("campaign", ["allies", "france"], {})
    wanted = {w.need: w for w in SUPPLIES.wanted(state)}
    assert wanted["calendar"].when == "now" and wanted["series-tables"].when == "default"
    assert wanted["random-event-table"].when == "later"
    minor = {w.need: w.when for w in SUPPLIES.wanted(GAME.setup("maurice-1746", ["allies", "france"], {}))}
    assert minor["strategic-event-chart"] == minor["peace-index-chart"] == "never"


def test_the_calendar_is_supplied_before_the_set_up_is_adjudicated() -> None:
    state = playing()
    _, problems = SUPPLIES.supply(state, "calendar", SUPPLY_EXAMPLES["calendar"])
    assert problems[0].code == "illegal.supply.calendar"
    fresh = GAME.setup("campaign", ["allies", "france"], {})
    wrong = {**SUPPLY_EXAMPLES["calendar"], "labels": [f"turn {n}" for n in range(1, 17)]}
    _, problems = SUPPLIES.supply(fresh, "calendar", wrong)
    assert "April-May" in problems[0].message


def test_the_calendar_places_the_campaign_on_april_may_1744() -> None:
    state = GAME.setup("campaign", ["allies", "france"], {})
    state, _ = SUPPLIES.supply(state, "calendar", SUPPLY_EXAMPLES["calendar"])
    state, _ = GAME.resolve(state, {"allies": {}, "france": {}}, scripted(3))
    assert (state["year"], state["turn"]) == (1744, 4)
    assert GAME.phase(state).title == "April-May 1744 (turn 1): Start of turn"


def test_a_random_event_table_naming_an_unknown_event_is_refused() -> None:
    bad = json.loads(json.dumps(SUPPLY_EXAMPLES["random-event-table"]))
    bad["table"]["rows"][0]["result"]["effects"] = ["plague-of-frogs"]
    _, problems = SUPPLIES.supply(playing(), "random-event-table", bad)
    assert problems and problems[0].code == "invalid.table"


def test_without_the_random_event_table_the_check_waits_and_with_it_the_event_applies() -> None:
    state = playing(phase="start-of-operations")
    new, happened = GAME.resolve(state, {"allies": {}, "france": {}}, scripted())
    assert kinds(happened, "check.waiting")
    state = supplied(state, "random-event-table")
    state["peace_index"] = 3
    new, happened = GAME.resolve(state, {"allies": {}, "france": {}}, scripted(8))  # 8: Reach a Breakthrough
    assert new["peace_index"] == 4 and new["random_event"]["event"] == "breakthrough"


def test_the_milice_pool_is_set_from_the_supplied_years() -> None:
    state = supplied(playing(year=1745, turn=1), "milice-pools")
    assert state["milice"]["original"] == 30 and state["milice"]["allowance"] == 12


def test_the_order_of_the_start_of_administration_rolls_is_the_option_admin_rolls() -> None:
    def labels(order: list[str] | None) -> list[str]:
        options = {"admin_rolls": order} if order else {}
        state = playing(year=1747, turn=9, **options)
        state["russians"]["received"] = 1
        state["le_roi"]["where"] = "hq"
        dice = scripted(5, 5)
        _administration(state, {"allies": {}, "france": {}}, tables(state), dice)
        return [roll["label"] for roll in dice.rolls]

    assert labels(None) == ["check/kings-ennui", "check/russian-entry"]
    assert labels(["russian-entry", "element-delay", "kings-ennui"]) == ["check/russian-entry", "check/kings-ennui"]
    with pytest.raises(GameDataError):
        GAME.setup("campaign", ["allies", "france"], {"admin_rolls": ["kings-ennui"]})


def test_2_332_a_successful_demonstration_rolls_the_supplied_dit_and_moves_the_marker() -> None:
    state = supplied(playing(year=1745, turn=5), "dutch-intimidation")
    state["le_roi"]["where"] = "captured"  # no Ennui roll in these phases
    new, _ = GAME.resolve(state, {"allies": {}, "france": {"demonstration": "start"}}, scripted())
    assert new["demonstration"]["marker"] == 5
    new.update(turn=9, phase="administration")
    assert GAME.validate(new, "france", {"demonstration": "successful"}) == []
    after, happened = GAME.resolve(new, {"allies": {}, "france": {"demonstration": "successful"}}, scripted(1))
    assert after["demonstration"]["marker"] == 7  # the example table's +2 on 0-2: NOT the book's values
    assert "Intimidation marker 5 -> 7" in "\n".join(e.text for e in happened)


def test_3_153_the_kings_presence_replaces_the_ennui_roll() -> None:
    state = playing(year=1745, turn=5)
    state["le_roi"]["where"] = "hub"
    _, happened = GAME.resolve(state, {"allies": {}, "france": {"le_roi_recall": True}}, scripted())
    assert kinds(happened, "check.waiting")  # not supplied: neither the recall nor the Ennui is rolled
    state = supplied(state, "kings-presence")
    new, happened = GAME.resolve(state, {"allies": {}, "france": {"le_roi_recall": True}}, scripted(2))
    assert new["le_roi"]["where"] == "hq" and not [e for e in happened if "Ennui" in e.text]


@pytest.mark.parametrize(("roll", "factor"), [(1, "1"), (4, "2"), (7, "4")])
def test_6_223_command_of_the_channel_sets_the_french_sea_attrition(roll: int, factor: str) -> None:
    state = supplied(playing(year=1744, turn=2), "command-of-the-channel")
    state["le_roi"]["where"] = "captured"
    _, happened = GAME.resolve(state, {"allies": {}, "france": {"channel": True}}, scripted(roll))
    assert f"sea Attrition Check are multiplied by {factor} (6.223)" in kinds(happened, "channel")[0].text
