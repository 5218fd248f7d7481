"""The worked examples Cockpit of Europe's exclusive rules print, each checked against the
module's arithmetic, citing its case."""

from __future__ import annotations

from coe_helpers import kinds, playing, scripted, supplied

from games.cockpit_of_europe import arithmetic, checks, invasions


def test_2_335_intimidation_marker_7_changes_the_base_chance_by_plus_1() -> None:
    assert arithmetic.intimidation_modifier(7) == 1


def test_2_335_intimidation_marker_2_changes_it_by_minus_1_truncating_toward_zero() -> None:
    # 2 - 5 = -3, halved -1.5: the book's example reads -1 (not "round down" to -2).
    assert arithmetic.intimidation_modifier(2) == -1


def test_3_541_a_sea_loc_between_two_ports_adds_one_bracket_short_becomes_medium() -> None:
    brackets = ["short", "medium", "long"]
    added = arithmetic.sea_loc_brackets(between_ports=True, winter_or_spring=False)
    assert added == 1
    assert arithmetic.bracket_after(brackets, "short", added) == "medium"


def test_3_542_in_winter_and_spring_another_bracket_two_in_all() -> None:
    assert arithmetic.sea_loc_brackets(between_ports=True, winter_or_spring=True) == 2


def test_5_264_a_roll_of_4_is_40_percent_of_the_years_original_pool() -> None:
    assert arithmetic.milice_percent(4) == 40
    assert arithmetic.milice_emergency(4, original=30, left=18) == 12  # of the original 30, not the 18 left


def test_5_264_the_deployment_is_made_in_play_from_the_years_pool() -> None:
    state = supplied(playing(year=1744, turn=3, phase="operations"), "milice-pools")  # example pools: 30 in 1744
    state["milice"].update(year=1744, original=30, pool=18, allowance=10)
    sps, events = checks.milice_emergency(state, scripted(4), "check/milice-emergency")
    assert sps == 12 and state["milice"]["pool"] == 6
    assert "40%" in events[0].text


def test_5_31_austrian_foot_of_4_sps_drop_a_grade_c_to_d_when_the_allies_attack() -> None:
    assert arithmetic.austrian_drill_grade("C", sps=4, allies_attack=True) == "D"
    assert arithmetic.austrian_drill_grade("C", sps=3, allies_attack=True) == "C"
    assert arithmetic.austrian_drill_grade("C", sps=4, allies_attack=False) == "C"


def test_5_448_the_bhg_of_24_less_6_french_is_18_over_the_bar_but_not_shortening() -> None:
    french = arithmetic.bhg_strength(5, auxiliaries=1)
    allied = arithmetic.bhg_strength(20, artillery_sps=2)
    assert (french, allied) == (6, 24)
    net = arithmetic.bhg_net(allied, french)
    assert net == 18
    assert arithmetic.invasion_change(net, minimum=15) == 0
    assert arithmetic.invasion_change(20, minimum=15) == -1  # 20 would be needed to shorten it


def test_5_448_reported_in_play_the_descent_keeps_its_ten_turns() -> None:
    state = playing(year=1744, turn=1)
    invasions.start_descent(state, state["first_turn"])
    invasions.report_french(state, arithmetic.bhg_strength(5, auxiliaries=1))
    events = invasions.report_bhg(state, arithmetic.bhg_strength(20, artillery_sps=2), british_sps=20)
    assert kinds(events, "invasion.length")[0].data["turns"] == 10


def test_5_514_dutch_units_gain_a_grade_e_to_d_after_the_orange_revolution() -> None:
    assert arithmetic.grade_better("E") == "D"


def test_5_521_a_die_of_7_gives_13_dutch_sps() -> None:
    assert arithmetic.dutch_treaty_sps(7) == 13
    state = playing(year=1744, turn=3)
    invasions.start_descent(state, state["first_turn"])
    events = checks.dutch_treaty(state, scripted(7))
    assert state["dutch"]["treaty"] == 13 and "13 Dutch SPs" in events[0].text


def test_6_253_a_descent_of_all_10_turns_gives_the_french_1_pp() -> None:
    assert arithmetic.descent_pp(10) == 1


def test_6_253_played_the_descent_ending_on_its_tenth_turn_gives_1_pp() -> None:
    state = playing(year=1744, turn=1)
    invasions.start_descent(state, state["first_turn"])
    state["turn"] = 10
    events = invasions.end_of_turn(state)
    assert state["prestige"]["france"]["pp"] == 1
    assert kinds(events, "invasion.ended")[0].data["turns"] == 10


def test_6_266_a_rising_of_12_turns_gives_the_french_1_pp() -> None:
    assert arithmetic.rising_pp(12) == 1


def test_6_266_played_a_rising_lasting_12_turns_gives_1_pp() -> None:
    state = playing(year=1745, turn=5)
    invasions.start_rising(state)
    state["turn"] = 16
    invasions.end_of_turn(state)
    assert state["prestige"]["france"]["pp"] == 1
    assert state["invasions"]["rising"]["over"]
