"""Outcomes Cockpit of Europe's rule text fixes (the extraction's acceptance table, section 6),
each a test citing its case. A d10 is read 0-9."""

from __future__ import annotations

import pytest
from coe_helpers import kinds, playing, real_dice, scripted, supplied, tables, texts

from games.cockpit_of_europe import GAME, arithmetic, calendar, checks, events, invasions, rules, territory, turn_end
from games.cockpit_of_europe.model import turn_name


def test_2_333_the_intimidation_marker_stays_on_its_track() -> None:
    assert arithmetic.intimidation_after(5, 3) == 8
    assert arithmetic.intimidation_after(8, 4) == 9
    assert arithmetic.intimidation_after(1, -3) == 0


@pytest.mark.parametrize(("marker", "change"), [(5, 0), (9, 2), (0, -2), (6, 0), (4, 0)])
def test_2_334_the_modifier_is_half_the_marker_less_5_truncated(marker: int, change: int) -> None:
    assert arithmetic.intimidation_modifier(marker) == change


def test_2_336_no_demonstration_before_1745() -> None:
    state = playing(year=1744, turn=5)
    problems = GAME.validate(state, "france", {"demonstration": "start"})
    assert [p.code for p in problems] == ["illegal.demonstration"]
    assert GAME.validate(playing(year=1745, turn=5), "france", {"demonstration": "start"}) == []


def test_2_332_the_demonstration_is_assessed_every_four_turns() -> None:
    state = playing(year=1745, turn=6)
    state["demonstration"] = {"started": calendar.absolute(1745, 5), "marker": 5}
    assert GAME.validate(state, "france", {"demonstration": "successful"})
    state["turn"] = 9
    assert GAME.validate(state, "france", {"demonstration": "successful"}) == []


def test_5_521_the_dutch_treaty_is_once_and_only_during_an_invasion() -> None:
    state = playing(year=1745, turn=3)
    assert GAME.validate(state, "allies", {"dutch_treaty": True})[0].code == "illegal.dutch"
    invasions.start_rising(state)
    assert GAME.validate(state, "allies", {"dutch_treaty": True}) == []
    checks.dutch_treaty(state, scripted(0))
    assert state["dutch"]["treaty"] == 20
    assert GAME.validate(state, "allies", {"dutch_treaty": True})[0].code == "illegal.dutch"
    assert arithmetic.dutch_treaty_sps(9) == 11


@pytest.mark.parametrize(("roll", "recalled"), [(6, True), (7, False)])
def test_5_523_the_french_recall_the_dutch_treaty_force_on_6_or_less_once_an_invasion(
    roll: int, recalled: bool
) -> None:
    state = playing(year=1745, turn=8)
    invasions.start_rising(state)
    checks.dutch_treaty(state, scripted(5))
    checks.dutch_recall(state, tables(state), scripted(roll))
    assert state["dutch"]["recalled"] is recalled
    if not recalled:
        assert (
            GAME.validate(state, "france", {"dutch_recall": True})[0].message == "one recall roll an invasion (5.523)"
        )


@pytest.mark.parametrize(("roll", "sps"), [(4, 12), (0, 6), (1, 6), (9, 18)])
def test_5_264_the_share_is_at_least_20_percent_and_capped_by_the_pool(roll: int, sps: int) -> None:
    assert arithmetic.milice_emergency(roll, original=30, left=18) == sps


@pytest.mark.parametrize(("roll", "usable"), [(5, True), (6, False)])
def test_5_29_the_cantabres_roll_before_play(roll: int, usable: bool) -> None:
    state = GAME.setup("campaign", ["allies", "france"], {})
    new, _ = GAME.resolve(state, {"allies": {}, "france": {}}, scripted(roll))
    assert new["cantabres"] is usable


def test_5_443_a_bhg_9_against_15_prolongs_the_descent_by_4_turns() -> None:
    assert arithmetic.invasion_change(9, 15) == 4
    assert arithmetic.invasion_turns(10, 9, 15) == 14


def test_5_443_a_bhg_27_against_15_shortens_it_by_2_never_below_1_turn() -> None:
    assert arithmetic.invasion_turns(10, 27, 15) == 8
    assert arithmetic.invasion_turns(10, 500, 15) == 1


@pytest.mark.parametrize(("turns", "pp"), [(10, 1), (9, 0), (13, 2)])
def test_6_253_descent_pp(turns: int, pp: int) -> None:
    assert arithmetic.descent_pp(turns) == pp


@pytest.mark.parametrize(("turns", "pp"), [(12, 1), (11, 0), (16, 2)])
def test_6_266_rising_pp(turns: int, pp: int) -> None:
    assert arithmetic.rising_pp(turns) == pp


def test_5_441_the_bhg_minimum_rises_20_after_each_invasion() -> None:
    assert arithmetic.bhg_minimum(False, False) == 15
    assert arithmetic.bhg_minimum(True, False) == 35
    assert arithmetic.bhg_minimum(True, True) == 55


@pytest.mark.parametrize(("short", "pp"), [(4, 1), (6, 2), (0, 0)])
def test_5_444_french_pp_for_a_bhg_below_its_minimum_after_an_invasion(short: int, pp: int) -> None:
    assert arithmetic.bhg_french_pp(35 - short, 35) == pp


def test_5_444_at_the_years_end_after_the_descent() -> None:
    state = playing(year=1744, turn=16)
    state["invasions"]["descent"].update(start=1, end=10, over=True)
    invasions.report_bhg(state, 31, 20)  # 4 below the minimum of 35
    invasions.end_of_year(state)
    assert state["prestige"]["france"]["pp"] == 1


def test_5_445_allied_pp_for_full_blocks_of_5_over_the_minimum() -> None:
    assert arithmetic.bhg_allied_pp(26, 15) == 2
    state = playing(year=1744, turn=16)
    invasions.report_bhg(state, 26, 20)
    invasions.end_of_year(state)
    assert state["prestige"]["allies"]["pp"] == 1 + 2  # the campaign's 1 PP, +2


def test_5_449_one_british_leader_for_every_10_british_sps() -> None:
    assert arithmetic.british_leaders_required(25) == 2


@pytest.mark.parametrize(("roll", "dead"), [(8, True), (7, False)])
def test_3_132_le_roi_killed_in_a_minor_scenario_the_french_lose(roll: int, dead: bool) -> None:
    state = playing("conquering-hero-1745", year=1745, turn=5, phase="operations")
    checks.le_roi_killed(state, tables(state), scripted(roll))
    assert (state["ended"] is not None) is dead
    if dead:
        assert state["ended"]["winner"] == "allies"
    else:
        assert state["le_roi"]["where"] == "wounded"


def test_3_132_le_roi_killed_in_the_campaign_moves_the_peace_index_4() -> None:
    state = playing(year=1745, turn=5, phase="operations")
    state["peace_index"] = 6
    checks.le_roi_killed(state, tables(state), scripted(9))
    assert state["peace_index"] == 10 and state["ended"] is None


def test_3_133_le_roi_captured_3_then_2_at_each_later_years_end() -> None:
    state = playing(year=1745, turn=5, phase="operations")
    state["peace_index"] = 3
    checks.le_roi_captured(state, tables(state), scripted(9))
    assert state["peace_index"] == 6
    for year, expected in ((1745, 6), (1746, 8), (1747, 10)):
        state.update(year=year, turn=16)
        turn_end.end_of_year(state)
        assert state["peace_index"] == expected, year


def test_3_133_le_roi_captured_roll_3_escapes() -> None:
    state = playing(year=1745, turn=5, phase="operations")
    events_ = checks.le_roi_captured(state, tables(state), scripted(3))
    assert state["le_roi"]["where"] == "hub" and "Paris or at the French Hub" in texts(events_)


def test_3_15_ennui_9_sends_le_roi_from_the_hq_to_the_hub_and_back() -> None:
    state = playing()
    checks.kings_ennui(state, tables(state), scripted(9))
    assert state["le_roi"]["where"] == "hub"
    checks.kings_ennui(state, tables(state), scripted(9))
    assert state["le_roi"]["where"] == "hq"


@pytest.mark.parametrize(
    ("where", "roll", "whim"), [("hq", 0, True), ("hq", 1, True), ("hub", 1, False), ("hq", 2, False), ("hq", 8, False)]
)
def test_3_16_a_royal_whim_on_0_or_1_only_with_the_hq(where: str, roll: int, whim: bool) -> None:
    state = playing()
    state["le_roi"]["where"] = where
    checks.kings_ennui(state, tables(state), scripted(roll))
    assert (state["le_roi"]["whim"] is not None) is whim


def test_3_161_a_whim_neither_siege_nor_battle_can_answer_is_ignored() -> None:
    assert checks.whim_possible(False, []) is None
    assert checks.whim_possible(True, ["army"]) == "siege"
    assert checks.whim_possible(False, ["column", "army"]) == "battle:army"


def test_3_163_a_whim_siege_lifted_costs_the_french_a_pp_to_the_allies() -> None:
    state = playing(scenario="conquering-hero-1745")
    checks.whim_siege_lifted(state)
    assert state["prestige"]["france"]["pp"] == 0 and state["prestige"]["allies"]["pp"] == 0
    state["prestige"]["france"]["pp"] = 2
    checks.whim_siege_lifted(state)
    assert state["prestige"]["france"]["pp"] == 1 and state["prestige"]["allies"]["pp"] == 1


@pytest.mark.parametrize(("roll", "approved"), [(3, True), (4, False)])
def test_1_251_a_flooding_request_after_the_orange_revolution(roll: int, approved: bool) -> None:
    state = playing(year=1746, turn=5, phase="start-of-operations")
    state["strategic"]["orange_revolution"] = True
    checks.flood_request(state, tables(state), scripted(roll))
    assert state["flood"]["active"] is approved
    if not approved:
        for turn, refused in ((6, True), (8, True), (9, False)):
            state["turn"] = turn
            assert bool(GAME.validate(state, "allies", {"flood_request": True})) is refused, turn


def test_1_251_no_request_before_the_orange_revolution() -> None:
    state = playing(year=1746, turn=5, phase="start-of-operations")
    assert GAME.validate(state, "allies", {"flood_request": True})[0].code == "illegal.flood"


def test_1_253_recession_rolls_5_5_5_end_the_flood_on_the_third() -> None:
    state = playing(year=1746, turn=5, phase="start-of-operations")
    state["flood"].update(active=True, since=calendar.now(state) - 1)
    for expected in (True, True, False):
        checks.flood_recession(state, tables(state), scripted(5))
        assert state["flood"]["active"] is expected


def test_1_254_two_voluntary_floods_move_the_peace_index_2() -> None:
    state = playing(year=1746, turn=5, phase="start-of-operations")
    for _ in range(2):
        checks.flood_request(state, tables(state), scripted(0))
        state["flood"]["active"] = False
    assert state["peace_index"] == 2


@pytest.mark.parametrize(("roll", "defend_only", "arrive"), [(1, True, True), (2, True, False), (4, False, True)])
def test_5_55_the_dutch_artillery_reserves(roll: int, defend_only: bool, arrive: bool) -> None:
    state = playing(year=1745)
    checks.dutch_artillery(state, tables(state), scripted(roll), plan_beyond_defend=not defend_only)
    assert state["dutch"]["artillery"] is arrive


def test_5_552_the_dutch_artillery_leaves_at_the_years_end() -> None:
    state = playing(year=1745, turn=16)
    state["dutch"]["artillery"] = True
    turn_end.end_of_year(state)
    assert state["dutch"]["artillery"] is False


def test_6_264_no_permission_roll_in_the_risings_first_admin_phase() -> None:
    state = playing(year=1745, turn=9)
    invasions.start_rising(state)
    assert GAME.validate(state, "france", {"element_permission": True})[0].code == "illegal.rising"
    state["turn"] = 10
    assert GAME.validate(state, "france", {"element_permission": True}) == []


@pytest.mark.parametrize(("roll", "entered"), [(2, True), (3, False)])
def test_6_432_the_russians_roll_from_4_turns_after_their_arrival(roll: int, entered: bool) -> None:
    state = playing(year=1747, turn=5)
    state["russians"]["received"] = calendar.absolute(1747, 5)
    state["turn"] = 8
    assert checks.russian_entry(state, tables(state), scripted()) == []
    state["turn"] = 9
    checks.russian_entry(state, tables(state), scripted(roll))
    assert state["russians"]["entered"] is entered


def test_6_434_the_russians_not_entered_by_the_years_end_are_forfeit() -> None:
    state = playing(year=1747, turn=16)
    state["russians"]["received"] = calendar.absolute(1747, 5)
    turn_end.end_of_year(state)
    assert state["russians"]["forfeit"]


@pytest.mark.parametrize(("roll", "outcome"), [(2, "recovered"), (3, None), (8, "died")])
def test_7_02_the_pox_recovery_roll(roll: int, outcome: str | None) -> None:
    state = playing(year=1745, turn=5, phase="start-of-turn")
    state["sick"] = [{"leader": "Clermont", "side": "france", "royal": False, "since": 1}]
    happened = checks.pox_recovery(state, tables(state), scripted(roll))
    assert [e.kind for e in happened if e.kind.startswith("pox.")] == ([f"pox.{outcome}"] if outcome else [])


@pytest.mark.parametrize(("garrison", "left", "surrenders"), [(3, 2, True), (4, 3, False)])
def test_7_04_powder_magazine(garrison: int, left: int, surrenders: bool) -> None:
    assert arithmetic.powder_magazine(garrison) == (left, surrenders)


def test_7_06_breakthrough_never_ends_the_war_and_setback_moves_back() -> None:
    assert arithmetic.breakthrough(13) == 13
    assert arithmetic.breakthrough(12) == 13
    state = playing()
    state["peace_index"] = 5
    events.apply_random(state, "setback", scripted())
    assert state["peace_index"] == 4


def test_2_23_the_peace_index_reaching_14_ends_the_game() -> None:
    from games.cockpit_of_europe.ledger import peace

    state = playing()
    state["peace_index"] = 12
    peace(state, 3, "a test")
    assert state["ended"] is not None and GAME.phase(state) is None


def test_7_05_coastal_raids_need_2_bhg_sps() -> None:
    state = playing()
    state["milice"].update(allowance=10)
    state["bhg"]["allied"] = 1
    events.apply_random(state, "coastal-raids", scripted())
    assert state["milice"]["allowance"] == 10 and state["bhg"]["allied"] == 1
    state["bhg"]["allied"] = 2
    events.apply_random(state, "coastal-raids", scripted())
    assert state["milice"]["allowance"] == 5 and state["bhg"]["allied"] == 0


def test_7_035_the_lower_roller_is_killed_and_a_same_side_winner_goes_to_the_mess() -> None:
    state = playing(phase="start-of-turn")
    state["enemies"] = [["Saxe", "Clermont"]]
    happened = checks.duel(state, ["Saxe", "Clermont"], ["france", "france"], scripted(6, 3), 1)
    assert state["dead"] == ["Clermont"] and "Officers' Mess" in happened[-1].text
    assert state["enemies"] == []


def test_7_036_cumberland_may_not_duel() -> None:
    state = playing(phase="start-of-turn")
    state["enemies"] = [["Cumberland", "Saxe"]]
    problems = GAME.validate(state, "allies", {"challenge": [{"challenger": "Cumberland", "target": "Saxe"}]})
    assert [p.code for p in problems] == ["illegal.duel.captain-general"]


def test_7_04_desertion_goes_to_the_other_side() -> None:
    state = playing()
    state["candidates"] = {
        "allies": {
            "mess": {"turn": 1, "openings": [{"label": "x", "index": 0, "value": "dutch: Waldeck", "commitment": "c"}]}
        }
    }
    happened = events.apply_random(state, "desertion", scripted(0, 0))
    assert happened[0].data["to"] == "france"


@pytest.mark.parametrize(("in_play", "sent", "level_lost"), [(12, 10, False), (8, 0, True), (25, 20, False)])
def test_6_423_aid_to_provence(in_play: int, sent: int, level_lost: bool) -> None:
    assert arithmetic.provence_sent(20, in_play) == (sent, level_lost)


def test_6_314_croats_lock_the_germany_box_16_turns_and_time_lorraine_and_prussia() -> None:
    state = supplied(playing(year=1745, turn=5), "strategic-event-chart")
    events.occur(state, "croats")
    now = calendar.absolute(1745, 5)
    assert state["strategic"]["germany_lock"] == calendar.absolute(1746, 5) == now + 16
    assert {t["event"]: t["at"] for t in state["strategic"]["timers"]} == {
        "lorraine": now + 4,
        "prussia-attacks": now + 4,
    }
    assert events.eligible(state, "croats") == (False, "once a year at most (6.31)")


def test_6_216_no_rising_in_the_year_the_descent_ended() -> None:
    state = playing(year=1745, turn=9)
    state["invasions"]["descent"].update(start=1, end=20, over=True, ended_year=1745)
    assert events.eligible(state, "jacobite-rising")[0] is False
    state["year"] = 1746
    assert events.eligible(state, "jacobite-rising")[0] is True


@pytest.mark.parametrize(
    ("event", "year", "allowed"),
    [
        ("orange-revolution", 1745, False),
        ("orange-revolution", 1746, True),
        ("russians", 1746, False),
        ("ap-treaty", 1744, False),
    ],
)
def test_6_1_strategic_events_first_years(event: str, year: int, allowed: bool) -> None:
    assert events.eligible(playing(year=year), event)[0] is allowed


def test_6_12_quarterly_checks_wait_for_the_chart_and_roll_on_quarter_starts() -> None:
    state = playing(year=1746, turn=5)
    assert kinds(events.strategic_checks(state, scripted()), "check.waiting")
    state = supplied(state, "strategic-event-chart")
    state["turn"] = 6
    assert events.strategic_checks(state, scripted()) == []


def test_5_263_conversions_are_capped_at_the_allowance_a_year() -> None:
    state = supplied(playing(year=1745, turn=1), "milice-pools")
    state["milice"].update(year=1745, original=30, pool=30, allowance=10, converted=10)
    assert GAME.validate(state, "france", {"milice": {"convert": 1}})[0].path == "orders.milice.convert"


def test_5_342_austrian_conversion_costs_5_percent_per_10_sps_or_fraction() -> None:
    assert arithmetic.austrian_conversion_penalty(13) == 10
    assert arithmetic.austrian_reconversion_credit(10) == 5


def test_5_284_carabiniers_breakdowns_and_sacrifices() -> None:
    assert arithmetic.carabinier_breakdowns(7) == 4
    assert arithmetic.carabiniers_after(7, 1) == 5


def test_5_233_la_maison_counter_is_worth_3_rps() -> None:
    assert arithmetic.la_maison_rps(1) == 3


def test_6_223_french_sea_attrition_factors() -> None:
    assert [3 * arithmetic.sea_attrition_factor(c) for c in ("french", "neither", "royal-navy")] == [3, 6, 12]


def test_3_532_auxiliaries_lost_at_sea() -> None:
    assert arithmetic.auxiliaries_lost(7, sps_present=10, auxiliaries=3) == (7, 1)
    assert arithmetic.auxiliaries_lost(7, sps_present=5, auxiliaries=3) == (5, 2)


def test_9_239_the_1745_jacobite_check_needs_the_calendar_and_runs_june_july_to_september_october() -> None:
    state = playing("conquering-hero-1745", year=1745, turn=4, phase="start-of-turn")
    assert kinds(checks.jacobite_1745(state, tables(state), scripted()), "check.waiting")
    state["stage"] = "set-up"
    state = supplied(state, "calendar")
    state["stage"] = "play"
    assert checks.jacobite_1745(state, tables(state), scripted()) == []  # April-May: no roll
    state["turn"] = 7  # June-July in the example calendar
    checks.jacobite_1745(state, tables(state), scripted(2))
    assert state["invasions"]["rising"]["start"] == calendar.absolute(1745, 7)


def test_9_239_a_rising_running_at_the_1745_scenarios_end_gives_2_pp() -> None:
    state = playing("conquering-hero-1745", year=1745, turn=11, phase="operations")
    invasions.start_rising(state)
    events.scenario_end(state)
    assert state["prestige"]["france"]["pp"] == 2


@pytest.mark.parametrize(("turn", "roll", "arrives"), [(5, 4, False), (7, 4, True), (8, 8, True)])
def test_9_339_charles_of_lorraine_in_1746(turn: int, roll: int, arrives: bool) -> None:
    state = playing("maurice-1746", year=1746, turn=1)
    state["stage"] = "set-up"
    state = supplied(state, "calendar")
    state.update(stage="play", turn=turn)
    checks.charles_1746(state, tables(state), scripted(roll))
    assert bool(state["strategic"].get("charles")) is arrives


def test_3_121_no_allied_captain_general_in_1744_cumberland_from_1745() -> None:
    assert GAME.setup("rosbifs-1744", ["allies", "france"], {})["cumberland"] is False


def test_5_263_milice_beyond_a_cut_allowance_go_back_to_the_pool_at_once() -> None:
    state = playing()
    state["milice"].update(year=1745, original=30, pool=10, allowance=12, outside=12)
    state["bhg"]["allied"] = 20
    happened = events.apply_random(state, "coastal-raids", scripted())
    assert state["milice"]["allowance"] == 7 and state["milice"]["outside"] == 7 and state["milice"]["pool"] == 15
    assert kinds(happened, "milice.excess")[0].data["sps"] == 5


def test_5_264_with_no_allied_unit_left_in_france_the_emergency_milice_go_back() -> None:
    state = supplied(playing(year=1745, turn=3, phase="operations"), "milice-pools")
    state["milice"].update(year=1745, original=30, pool=30, allowance=12)
    checks.milice_emergency(state, scripted(4), "check/milice-emergency")
    assert state["milice"]["pool"] == 18
    checks.milice_return(state)
    assert state["milice"]["pool"] == 30


@pytest.mark.parametrize(("roll", "permitted"), [(5, True), (6, False)])
def test_6_264_an_element_has_permission_on_5_or_less(roll: int, permitted: bool) -> None:
    from games.cockpit_of_europe.rules import _administration

    state = playing(year=1745, turn=9)
    invasions.start_rising(state)
    state["turn"] = 10
    state["le_roi"]["where"] = "captured"  # no Ennui roll this phase
    _administration(state, {"allies": {}, "france": {"element_permission": True}}, tables(state), scripted(roll))
    assert state["invasions"]["rising"]["elements"] == int(permitted)


@pytest.mark.parametrize(("unit", "times"), [("chevaux-legers", 3), ("irish", 2), ("black-watch", 2), ("line", 1)])
def test_5_281_5_254_5_432_charges(unit: str, times: int) -> None:
    assert arithmetic.charge_multiplier(unit) == times


def test_5_252_the_irish_maximum_drops_to_6_with_the_ecossais_royaux() -> None:
    assert (arithmetic.irish_maximum(False), arithmetic.irish_maximum(True)) == (7, 6)


def test_8_142_a_garrison_of_3_dutch_and_3_hessian_sps_is_of_the_worse_grade() -> None:
    assert arithmetic.garrison_contingent({"dutch": 3, "hessian": 3}, {"dutch": "E", "hessian": "C"}) == "dutch"
    assert arithmetic.garrison_contingent({"dutch": 2, "hessian": 4}, {"dutch": "E", "hessian": "C"}) == "hessian"


def test_3_122_cumberland_arrives_on_turn_1_of_1745_in_the_campaign() -> None:
    state = playing(year=1745, turn=1, phase="start-of-turn")
    _, happened = GAME.resolve(state, {"allies": {}, "france": {}}, scripted())
    assert kinds(happened, "cumberland")


def test_6_321_the_bavarian_corps_comes_no_sooner_than_1747() -> None:
    state = supplied(playing(year=1745, turn=5), "strategic-event-chart")
    events.occur(state, "bavaria-crushed")
    assert state["strategic"]["bavarians_due"] == calendar.absolute(1747, 1)
    state.update(year=1747, turn=1)
    assert "Bavarian" in texts(events.timers_due(state))


@pytest.mark.parametrize(
    "scenario", ["rosbifs-1744", "conquering-hero-1745", "maurice-1746", "end-game-1747", "campaign"]
)
def test_9_scenarios_load_with_the_books_prestige(scenario: str) -> None:
    state = GAME.setup(scenario, ["allies", "france"], {})
    level = 2 if scenario == "campaign" else 3
    assert {s: p["level"] for s, p in state["prestige"].items()} == {"allies": level, "france": level}
    assert (state["peace_index"] is not None) is (scenario == "campaign")
    assert state["strategic"]["orange_revolution"] is (scenario == "end-game-1747")


def test_7_08_the_hessians_arrive_in_the_next_administrative_phase() -> None:
    state = playing(year=1745, turn=5, phase="start-of-operations")
    events.apply_random(state, "greater-hessians", scripted())
    state.update(turn=6, phase="administration")
    state["le_roi"]["where"] = "captured"
    _, happened = GAME.resolve(state, {"allies": {}, "france": {}}, scripted())
    assert kinds(happened, "hessians.arrive")
    assert kinds(events.apply_random(state, "greater-hessians", scripted()), "random.none")  # once


def test_5_253_the_ecossais_royaux_arrive_the_year_after_the_rising() -> None:
    state = playing(year=1745, turn=9, phase="start-of-turn")
    invasions.start_rising(state)
    state.update(year=1746, turn=1)
    state["le_roi"]["where"] = "captured"
    _, happened = GAME.resolve(state, {"allies": {}, "france": {}}, scripted())
    assert kinds(happened, "ecossais-royaux")


# -- the Descent's March-April turn (9.139, 9.533, 6.252) ---------------------------------------


def _set_up(descent: str, **options: object) -> dict:
    state = supplied(GAME.setup("campaign", ["allies", "france"], options), "calendar")
    state, happened = GAME.resolve(state, {"allies": {}, "france": {"descent": descent}}, real_dice("set-up"))
    return {"state": state, "happened": happened}


def test_9_533_a_game_playing_the_descent_begins_with_the_march_april_administrative_phase() -> None:
    began = _set_up("launch")
    state = began["state"]
    assert turn_name(state) == "March-April 1744" and state["phase"] == "administration"
    assert "the turn's only phase" in rules.title(state)
    state = supplied(state, "milice-pools")
    state, happened = GAME.resolve(state, {"allies": {}, "france": {}}, real_dice("admin"))
    assert kinds(happened, "invasion.started") and kinds(happened, "milice.year")
    # The Descent's 10 turns count from the first turn of the game, March-April (6.252, option default).
    assert state["invasions"]["descent"]["start"] == calendar.absolute(1744, 3)
    assert state["invasions"]["descent"]["end"] == calendar.absolute(1744, 12)
    # 9.139: the Administrative Phase is that turn's only phase: next comes April-May's start of turn.
    assert (turn_name(state), state["phase"]) == ("April-May 1744", "start-of-turn")
    state, happened = GAME.resolve(state, {"allies": {}, "france": {}}, real_dice("admin"))
    assert not kinds(happened, "milice.year")  # the year's pools were set in March-April


def test_6_252_option_descent_counts_from_april_may() -> None:
    state = _set_up("launch", descent_counts_from="april-may")["state"]
    state, _ = GAME.resolve(state, {"allies": {}, "france": {}}, real_dice("admin"))
    assert state["invasions"]["descent"]["start"] == calendar.absolute(1744, 4)
    assert state["invasions"]["descent"]["end"] == calendar.absolute(1744, 13)


def test_9_533_a_declined_descent_begins_on_april_may() -> None:
    began = _set_up("decline")
    state = began["state"]
    assert (turn_name(state), state["phase"]) == ("April-May 1744", "start-of-turn")
    assert state["invasions"]["descent"]["decided"] == "decline" and state["admin_only_turn"] is None
    assert [e.data["text"] for e in kinds(began["happened"], "note.revealed")] == ["decline"]


def test_9_533_the_calendar_must_put_march_april_before_the_campaigns_opening() -> None:
    state = GAME.setup("campaign", ["allies", "france"], {})
    labels = [f"label {n}" for n in range(1, 17)]
    labels[3] = "April-May"
    _, problems = GAME.supplies.supply(state, "calendar", {"labels": labels})  # type: ignore[union-attr]
    assert [p.code for p in problems] == ["invalid.supply.calendar"] and "March-April" in problems[0].message
    labels[2] = "March-April"
    _, problems = GAME.supplies.supply(state, "calendar", {"labels": labels})  # type: ignore[union-attr]
    assert problems == []
    # A scenario without the Descent needs no March-April.
    labels[2] = "label 3"
    _, problems = GAME.supplies.supply(
        GAME.setup("maurice-1746", ["allies", "france"], {}),
        "calendar",
        {"labels": ["January-February", *labels[1:12], "October-November", *labels[13:]]},
    )  # type: ignore[union-attr]
    assert problems == []


def test_3_16_a_whim_rolled_in_the_march_april_turn_lapses_with_it() -> None:
    state = _set_up("launch")["state"]
    state, happened = GAME.resolve(state, {"allies": {}, "france": {}}, scripted(0, *[9] * 20))
    assert kinds(happened, "le-roi.whim") and kinds(happened, "le-roi.whim-lapsed")
    assert state["le_roi"]["whim"] is None


# -- what needs only who holds a place, or a unit's grade (T48, T57, T58, T65) --------------------


@pytest.mark.parametrize(
    ("ghent", "areas", "controller"),
    [
        ("allies", ("france", "france"), "allies"),  # T48: Ghent Allied-held
        ("france", ("france", "france"), "france"),  # T48: Ghent and both Fortified Areas French
        ("france", ("allies", "france"), None),  # T48: neither (the extraction's reading)
        ("france", ("allies", "allies"), "allies"),  # 1.23: both Fortified Areas Allied
    ],
)
def test_1_23_the_ghent_complex_for_victory(ghent: str, areas: tuple[str, str], controller: str | None) -> None:
    assert territory.ghent_control(ghent, areas) == controller


def test_1_44_liege_follows_its_city() -> None:  # T57
    assert territory.liege_alignment("france") == {"france": "friendly", "allies": "enemy"}
    assert territory.liege_alignment(None) == {"allies": "unaligned", "france": "unaligned"}


def test_1_47_bouillon_is_french_unless_the_allies_hold_the_town() -> None:  # T58
    assert territory.bouillon_alignment("allies") == "unaligned"
    assert territory.bouillon_alignment("france") == territory.bouillon_alignment(None) == "friendly to france"


def test_5_31_5_21_5_514_5_721_grades_in_battle() -> None:  # T65
    assert arithmetic.austrian_drill_grade("C", 4, allies_attack=True) == "D"
    assert arithmetic.austrian_drill_grade("C", 3, allies_attack=True) == "C"
    assert arithmetic.fureur_grade("C", boxed=True, french_attack=True) == "B"
    assert arithmetic.fureur_grade("C", boxed=True, french_attack=False) == "C"
    assert arithmetic.fureur_grade("C", boxed=False, french_attack=True) == "C"
    assert arithmetic.dutch_grade("E", orange_revolution=True) == "D"
    assert arithmetic.dutch_grade("E", orange_revolution=False) == "E"
    assert arithmetic.russian_grade("D", defending=True) == "C"
    assert arithmetic.russian_grade("D", defending=False) == "D"
