"""Set-up: scenarios, the Imperialist generator rolled through the referee's dice, options, and the
parts the rulebook file lacks (refused, naming them, until the referee supplies them)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from obb_helpers import TEST_TABLES, event, new_game, play

from games.polemos_obb import GAME
from referee.kit import GameDataError, MissingTableError, load_data

# Imperial foot (first line): 1 -> 2 brigades; classes 5+1 and 6+1 (7 reads veteran); nationalities 2 and 6.
# Imperial horse (second line): 1 -> 2 brigades: type 0 (hussars) class 6; type 8 (dragoons) class 1, nationality 5.
# Guns: light 3 and field 6, read in the small army's column.
DANUBE_MUSTER = [1, 5, 2, 6, 6, 1, 0, 6, 8, 1, 5, 3, 6]


def test_the_imperialist_generator_rolls_through_the_dice() -> None:
    state = new_game("danube-demo")
    assert state["divisions"]["imperial-foot"]["brigades"] == []
    state, events, dice = play(state, {}, [*DANUBE_MUSTER, 1, 1, 1])
    generated = {d["division"]: d["bases"] for d in event(events, "army.generated").data["divisions"]}
    assert generated["imperial-foot"] == [
        {"type": "musketeers", "school": "a-prest", "class": "veteran", "nationality": "Austrian"},
        {"type": "musketeers", "school": "a-prest", "class": "veteran", "nationality": "other German"},
    ]
    assert generated["imperial-horse"] == [
        {"type": "hussars", "class": "veteran"},
        {"type": "dragoons", "class": "raw", "nationality": "other German"},
    ]
    assert [b["type"] for b in generated["imperial-guns"]] == ["light-artillery"] * 3 + ["field-artillery"] * 3
    assert state["divisions"]["imperial-foot"]["brigades"] == ["imperial-foot-1", "imperial-foot-2"]
    assert state["bases"]["imperial-horse-2"]["dismounted"] is False
    assert state["divisions"]["imperial-guns"]["bases_at_start"] == 6
    labels = [r["label"] for r in dice.rolls]
    assert labels[:5] == [
        "muster/imperial/imperial-foot/brigades",
        "muster/imperial/imperial-foot/1/class",
        "muster/imperial/imperial-foot/1/nationality",
        "muster/imperial/imperial-foot/2/class",
        "muster/imperial/imperial-foot/2/nationality",
    ]
    assert "muster/imperial/imperial-horse/1/nationality" not in labels  # none given for hussars
    assert labels[-3:] == ["tempo/income/dutch", "tempo/income/imperial", "tempo/income/bavarian"]
    lookups = [e.data["lookup"] for e in events if e.kind == "dice" and "lookup" in e.data]
    assert lookups[1]["modifiers"] == [{"name": "first-line", "value": 1}] and lookups[1]["row"] == "6+"


def test_a_second_line_division_rolls_class_without_the_bonus() -> None:
    state = new_game("danube-demo")
    state, events, _ = play(state, {}, [1, 5, 2, 6, 6, 1, 5, 5, 5, 5, 5, 1, 1, 1, 1, 1, 1])
    lookups = [e.data["lookup"] for e in events if e.kind == "dice" and "lookup" in e.data]
    classes = [lookup for lookup in lookups if lookup["table"] == "imperialist-class"]
    assert [lookup["modifiers"] for lookup in classes[2:]] == [[], []]
    assert [lookup["result"] for lookup in classes[2:]] == ["trained", "trained"]


def french_scenario() -> dict[str, Any]:
    scenario = copy.deepcopy(load_data("games.polemos_obb", "scenarios/danube-demo.yaml"))
    scenario["id"] = "french-test"
    scenario["armies"]["imperial"]["generate"]["generator"] = "french"
    return scenario


def test_a_generator_the_file_lacks_is_refused_naming_it() -> None:
    with pytest.raises(MissingTableError, match="french army generator") as caught:
        new_game("french-test", scenarios={"french-test": french_scenario()})
    assert "generators.french" in caught.value.hints[0]


def test_a_generator_the_referee_supplies_is_used() -> None:
    french = copy.deepcopy(load_data("games.polemos_obb", "generators/imperialist.yaml"))
    french.update(nation="french", title="French (test stand-in)")
    state = new_game("french-test", scenarios={"french-test": french_scenario()}, generators={"french": french})
    state, events, _ = play(state, {}, [*DANUBE_MUSTER, 1, 1, 1])
    assert "French (test stand-in)" in event(events, "army.generated").text


def test_scenario_data_is_checked_on_load() -> None:
    broken = french_scenario()
    broken["armies"]["dutch"]["divisions"][0]["brigades"].append("X")
    with pytest.raises(GameDataError, match="the id 'X' is used twice"):
        new_game("french-test", scenarios={"french-test": broken})
    with pytest.raises(GameDataError, match="no scenario 'nowhere'"):
        GAME.roles("nowhere", {})
    with pytest.raises(GameDataError, match="one player per army"):
        GAME.setup("combat-example", ["alpha", "bravo"], {})


def test_random_grades_need_the_officer_grade_table() -> None:
    scenario = french_scenario()
    scenario["armies"]["imperial"]["generate"]["generator"] = "imperialist"
    scenario["armies"]["dutch"]["divisions"][0]["commander"]["grade"] = "random"
    state = new_game("french-test", scenarios={"french-test": scenario})
    with pytest.raises(MissingTableError, match="officer-grade"):
        play(state, {}, DANUBE_MUSTER)
    state = new_game("french-test", scenarios={"french-test": scenario}, tables=TEST_TABLES)
    state, _, _ = play(state, {}, [6, *DANUBE_MUSTER, 1, 1, 1])
    assert state["generals"]["van-gelder"]["grade"] == "vigorous"


def test_options_unknown_are_listed_and_bad_ones_refused() -> None:
    state = new_game(rounds=6, colour="blue")
    assert state["ignored_options"] == ["colour"]
    assert GAME.view(state, None)["ignored_options"] == ["colour"]
    with pytest.raises(GameDataError, match="default_response"):
        new_game(default_response="maybe")
    with pytest.raises(GameDataError, match="rounds"):
        new_game(rounds=0)
    bad_table = copy.deepcopy(TEST_TABLES)
    bad_table["tables"]["rally"]["rows"][1]["result"] = "cheers"
    with pytest.raises(GameDataError, match="rally gives result"):
        new_game(tables=bad_table)


def test_the_view_lists_what_is_missing_until_supplied() -> None:
    missing = {p["need"]: p["when"] for p in GAME.view(new_game(), "dutch")["missing"]}
    assert missing == {  # the combat example has no guns: nothing there reads the bombardment table
        "tables/rally": "later",
        "tables/officer-grade": "later",
        "order_costs": "later",
        "army_morale": "later",
        "tables/follow-up": "default",
        "combat_results": "default",
        "combat_modifiers": "default",
    }
    supplied = new_game(tables=TEST_TABLES, army_morale={"cmf": {"dutch": 9, "bavarian": 9}})
    assert {p["need"] for p in GAME.view(supplied, "dutch")["missing"]} == {
        "tables/follow-up",
        "order_costs",
        "combat_results",
        "combat_modifiers",
    }
    assert GAME.view(supplied, "dutch")["referee_supplied"] == [
        "tables/bombardment",
        "tables/rally",
        "tables/officer-grade",
        "army_morale",
    ]


def test_a_referees_combat_results_chart_replaces_the_reconstruction() -> None:
    from test_obb_combat_example import VAN_GELDER_ATTACKS, turn_one_contact

    chart = [{"difference": "0-2", "result": "no-effect"}, {"difference": "3+", "result": "broken"}]
    state = turn_one_contact(combat_results=chart)
    dice = [4, 6, 4, 2, 5, 3, 5, 6, 4, 2, 5, 1, 4, 6, 3, 3]
    state, events, _ = play(state, VAN_GELDER_ATTACKS, dice)
    encounter = event(events, "combat.encounter").data
    assert [[(c["pair"], c["difference"], c["result"]) for c in r["combats"]] for r in encounter["rounds"]] == [
        [(["X", "M"], 1, "no-effect"), (["Y", "N"], 2, "no-effect"), (["Z", "O"], 2, "no-effect")],
        [(["Y", "N"], 1, "no-effect"), (["X", "M"], 3, "broken"), (["Z", "O"], 4, "broken")],
        [(["Y", "N"], 1, "no-effect")],
    ]
    assert encounter["outcome"]["fall_backs"][0]["bd"] == 9 - 3 - 2
    with pytest.raises(GameDataError, match="a difference of 0 must give no-effect"):
        new_game(combat_results=[{"difference": "0+", "result": "recoil"}])
    with pytest.raises(GameDataError, match="open-ended"):
        new_game(combat_results=[{"difference": "0-3", "result": "no-effect"}])


def test_bombardment_is_refused_until_the_referee_supplies_its_table() -> None:
    state = new_game("danube-demo")
    state, _, _ = play(state, {}, [*DANUBE_MUSTER, 1, 1, 1])
    state.update(step="other-bombardment", tempo={"side": "allies", "by_turn": ["allies"]})
    problems = GAME.validate(state, "bavarian", {"fire": [{"battery": "G1", "target": "V"}]})
    assert [p.code for p in problems] == ["illegal.table-missing.bombardment"]
    assert "Bombardment, p. 17" in problems[0].message


def test_bombardment_on_the_supplied_table_with_risk_to_a_general() -> None:
    state = new_game("danube-demo", tables=TEST_TABLES)
    state, _, _ = play(state, {}, [*DANUBE_MUSTER, 1, 1, 1])
    state.update(step="other-bombardment", tempo={"side": "allies", "by_turn": ["allies"]})
    state["generals"]["van-gelder"]["with_base"] = "V"
    orders = {"fire": [{"battery": "G1", "target": "V"}, {"battery": "G2", "target": "W", "modifiers": ["long-range"]}]}
    assert [p.code for p in GAME.validate(state, "bavarian", {"fire": [{"battery": "M", "target": "V"}]})] == [
        "illegal.fire.battery"
    ]
    state, events, dice = play(state, {"bavarian": orders}, [6, 6, 5, 6])
    fire = [e.data for e in events if e.kind == "bombardment.fire"]
    assert [(f["battery"], f["lookup"]["column"], f["lookup"]["result"], f["state_after"]) for f in fire] == [
        ("G1", "field-artillery", "recoil-shaken", "shaken"),
        ("G2", "light-artillery", "no-effect", "fresh"),
    ]
    assert event(events, "general.risk").data["total"] == 11
    assert [r["label"] for r in dice.rolls] == [
        "bombardment/G1",
        "general/van-gelder/risk/bombardment/G1",
        "bombardment/G2",
    ]
