"""Chapter 12.0's printed examples and the outcomes its text fixes, each against the module's pure
functions, citing its rule."""

from __future__ import annotations

import pytest
from eia_helpers import SealingDice

from games.empires_in_arms import chapter, economy, guard, land, leaders, losses, naval, peace


def test_chapter_lists_23_numbered_options_each_off_by_default() -> None:
    numbers = {info["rule"] for info in chapter.RULES.values()}
    assert len(numbers) == 23  # 12.1.1 ... 12.9; 12.2.1, 12.3.3 and 12.3.7 have sub-options of their own
    assert set(chapter.parse_rules({}).values()) == {False}


# 12.2.3 Moving large fleets/transports: the printed example and what its text fixes.
@pytest.mark.parametrize(
    ("fleets", "transporting", "allowance"),
    [
        (1, False, 7),
        (2, False, 6),
        (3, False, 5),
        (1, True, 6),
        (2, True, 5),
        (3, True, 4),
        (4, False, 4),
        (5, True, 4),
    ],
)
def test_12_2_3_fleet_movement_allowance(fleets: int, transporting: bool, allowance: int) -> None:
    assert naval.fleet_movement_allowance(7, fleets, transporting) == allowance


def test_12_2_3_no_reduction_for_naval_retreat_or_pursuit() -> None:
    assert naval.fleet_movement_allowance(7, 3, True, retreat_or_pursuit=True) == 7


def test_12_2_4_ten_army_factors_a_fleet_and_the_excess_lost_with_the_fleets() -> None:
    assert naval.transport_capacity(2) == 20
    assert naval.transport_losses(carried=18, fleets_left=1) == 8


def test_12_2_2_naval_raiding_five_a_sea_area_never_below_zero() -> None:
    assert naval.colonial_trade_after_raiding(20, 3) == 5
    assert naval.colonial_trade_after_raiding(10, 3) == 0
    fleets = [("france", "north-sea"), ("france", "channel"), ("spain", "irish-sea"), ("britain", "channel")]
    assert naval.raided_areas(fleets, {"france"}, {"north-sea", "channel", "irish-sea"}) == 2


def test_12_2_1_danish_arrows_cannot_be_blocked_with_enemies_on_both_shores() -> None:
    assert not naval.can_fleet_block(True, True, danish_arrows=True)
    assert naval.can_fleet_block(True, False, danish_arrows=True)
    assert naval.can_fleet_block(True, True, danish_arrows=False)


# 12.2.5 Proportional naval losses: the printed example, 68 ships losing 10.
def test_12_2_5_sixty_eight_ships_lose_ten_five_three_two() -> None:
    ships = {"britain": 36, "sweden": 20, "portugal": 12}
    assert losses.proportional_shares(ships, 10) == {"britain": 5, "sweden": 3, "portugal": 2}
    assert losses.odd_losses(ships, 10) == 0


def test_12_2_5_half_rounds_up_and_odd_losses_are_left_to_settle() -> None:
    assert losses.proportional_shares({"a": 1, "b": 1}, 1) == {"a": 1, "b": 1}  # .5 rounds up: one too many
    assert losses.odd_losses({"a": 1, "b": 1}, 1) == -1
    assert losses.proportional_shares({"a": 10, "b": 10, "c": 10}, 10) == {"a": 3, "b": 3, "c": 3}
    assert losses.odd_losses({"a": 10, "b": 10, "c": 10}, 10) == 1


def test_12_2_5_competitive_rolls_give_the_odd_loss_to_the_loser() -> None:
    strengths = {"a": 10, "b": 10, "c": 10}
    split = losses.settle_by_rolls(strengths, 10, {"a": [5], "b": [2], "c": [6]}, lowest_takes=True)
    assert split == {"a": 3, "b": 4, "c": 3}
    excess = losses.settle_by_rolls({"a": 1, "b": 1}, 1, {"a": [4], "b": [3, 6]}, lowest_takes=True)
    assert excess == {"a": 0, "b": 1}  # the winner is spared the rounding's extra loss


def test_12_3_6_proposals_agree_only_when_all_are_in_and_alike() -> None:
    assert losses.agreed({"britain": {"a": 1}, "russia": {"a": 1}}, ["britain", "russia"]) == {"a": 1}
    assert losses.agreed({"britain": {"a": 1}, "russia": {"a": 2}}, ["britain", "russia"]) is None
    assert losses.agreed({"britain": {"a": 1}}, ["britain", "russia"]) is None


def test_12_3_6_a_proposal_may_move_only_odd_losses() -> None:
    strengths = {"britain": 36, "sweden": 20, "portugal": 12}
    assert losses.split_problems({"britain": 5, "sweden": 3, "portugal": 2}, strengths, 10, True) == []
    assert losses.split_problems({"britain": 2, "sweden": 6, "portugal": 2}, strengths, 10, True)
    assert losses.split_problems({"britain": 5, "sweden": 3}, strengths, 10, True)


def test_competitive_rolls_roll_ties_again() -> None:
    from games.empires_in_arms.combat import competitive_rolls

    dice = SealingDice([4, 4, 2, 5, 1])  # a and b tie on 4, c has 2; then a 5 against b 1
    rolls, rounds = competitive_rolls(["a", "b", "c"], {"dice": "1d6"}, "test", dice)
    assert rolls == {"a": [4, 5], "b": [4, 1], "c": [2]}
    assert len(rounds) == 2
    dice.assert_used_up()


# 12.3.4 Guard commitment.
def test_12_3_4_the_3_2_table_becomes_3_3_or_3_4() -> None:
    assert guard.shifted_table("3-2", 1) == "3-3"
    assert guard.shifted_table("3-2", 2) == "3-4"


@pytest.mark.parametrize(
    ("nation", "factors", "shifts"),
    [
        ("france", 2, (1, 2)),
        ("russia", 5, (1, 2)),
        ("france", 1, (1,)),
        ("austria", 4, (1,)),
        ("prussia", 1, (1,)),
        ("britain", 6, ()),
        ("spain", 6, ()),
    ],
)
def test_12_3_4_who_may_commit_and_by_how_much(nation: str, factors: int, shifts: tuple[int, ...]) -> None:
    assert guard.shifts_allowed(nation, factors) == shifts


def test_12_3_4_losing_every_committed_guard_factor_breaks_the_side_without_fighting() -> None:
    assert guard.guard_outcome(2, 2) == (0, "breaks")
    assert guard.guard_outcome(3, 1) == (2, "fights")


def test_12_3_4_a_side_that_committed_must_break_the_other_or_break() -> None:
    assert guard.breaks_after_commitment(fought=True, other_broken=False)
    assert not guard.breaks_after_commitment(fought=True, other_broken=True)


def test_12_3_4_only_one_nationalitys_guard_and_all_of_it() -> None:
    side = {"france": {"guard": 3}, "austria": {"guard": 1}}
    assert guard.commitment_problem(side, "austria", 2) is not None
    assert guard.commitment_problem(side, "france", 2) is None
    assert (
        guard.commitment_problem({"britain": {"guard": 2}}, "britain", 1)
        == "britain guard may not be committed (12.3.4)"
    )


# 12.3.3 Cavalry options.
def test_12_3_3_twice_the_cavalry_gives_plus_one_cossacks_and_freikorps_counting() -> None:
    assert land.cavalry_superiority({"cavalry": 2, "cossack": 2, "infantry": 5}, {"cavalry": 2}, "field") == 1
    assert land.cavalry_superiority({"cavalry": 3}, {"cavalry": 2, "infantry": 1}, "field") == 0
    assert land.cavalry_superiority({"freikorps": 2, "infantry": 3}, {"infantry": 9}, "trivial") == 1


def test_12_3_3_not_when_every_factor_on_both_sides_is_cavalry_nor_outside_field_combat() -> None:
    assert land.cavalry_superiority({"cavalry": 6}, {"cavalry": 2}, "field") == 0
    assert land.cavalry_superiority({"cavalry": 6, "infantry": 1}, {"cavalry": 2}, "siege-assault") == 0


def test_12_3_3_the_net_modifier_is_at_most_plus_one() -> None:
    assert land.capped_modifier([1, 1]) == 1
    assert land.capped_modifier([1, -1]) == 0
    assert land.capped_modifier([-2]) == -2


def test_12_3_3_cavalry_withdrawal_plus_one_unless_the_attacker_is_all_cavalry_or_rating_five() -> None:
    assert land.withdrawal_rating(3, [5], True, False) == 4
    assert land.withdrawal_rating(3, [5, 5], False, False) == 4  # corps of movement value 5
    assert land.withdrawal_rating(3, [5, 4], False, False) == 3
    assert land.withdrawal_rating(3, [5], True, True) == 3
    assert land.withdrawal_rating(5, [5], True, False) == 5  # errata


# 12.3.5 Artillery corps.
def test_12_3_5_who_bombards_and_where() -> None:
    assert land.can_bombard(["france"], 4, "field", "clear")
    assert land.can_bombard(["russia"], 2, "trivial", "forest")
    assert not land.can_bombard(["austria"], 4, "field", "clear")
    assert not land.can_bombard(["france"], 4, "field", "marsh")
    assert not land.can_bombard(["france"], 4, "siege-assault", "clear")
    assert land.can_bombard(["france"], 4, "siege-assault", "clear", relieved=True)


def test_12_3_5_militia_spared_at_two_morale_and_artillery_alone_breaks() -> None:
    assert land.bombardment_spares_militia(2.0)
    assert not land.bombardment_spares_militia(1.5)
    assert land.only_artillery({"artillery": 3})
    assert not land.only_artillery({"artillery": 3, "infantry": 1})


# 12.3.10 Overwhelming numbers.
def test_12_3_10_five_to_one_is_trivial_combat() -> None:
    assert land.combat_kind("field", 50, 10, True) == "trivial"
    assert land.combat_kind("limited-field", 10, 50, True) == "trivial"
    assert land.combat_kind("field", 49, 10, True) == "field"
    assert land.combat_kind("field", 50, 10, False) == "field"


def test_12_3_10_the_defender_withdraws_on_its_rating_or_less() -> None:
    assert land.withdraws(3, 3)
    assert not land.withdraws(4, 3)


# 12.3.7 Army leader options.
def test_12_3_7_napoleons_ratings_by_date_but_not_in_france() -> None:
    assert leaders.napoleon_ratings(5, 5, "1808-12", False) == (5, 5)
    assert leaders.napoleon_ratings(5, 5, "1809-01", False) == (5, 4)
    assert leaders.napoleon_ratings(5, 5, "1812-01", False) == (4, 4)
    assert leaders.napoleon_ratings(5, 5, "1813-06", True) == (5, 5)


def test_12_3_7_further_tactical_reductions_and_corps_leaders() -> None:
    assert leaders.reduced_tactical(4, 6, 2) == 1  # three times the maximum: -3
    assert leaders.reduced_tactical(5, 8, 2) == 1  # four times: -4
    assert leaders.reduced_tactical(2, 8, 2) == 0  # never below zero
    assert leaders.tactical_reduction(5, 2) == 0  # below three times: the core rules' reductions
    assert leaders.corps_leader(3, 2) == {"strategic": 3, "tactical": 2, "tactical_max": 1}


# 12.7 Leader casualties.
def test_12_7_twelve_then_six_kills_else_wounded_that_many_months() -> None:
    assert leaders.casualty((6, 6), 4) == "wounded-4"
    assert leaders.casualty((6, 6), 6) == "killed"
    assert leaders.casualty((6, 5), None) == "none"


def test_12_7_all_rolls_in_one_go_after_the_combat() -> None:
    # Side a: 12, then the second of two leaders, wounded 3 months; side b: 7, no casualty.
    dice = SealingDice([6, 6, 1, 3, 3, 4])
    fates, events = leaders.leader_casualties("c1", {"a": ["ney", "murat"], "b": ["kutuzov"]}, dice)
    assert fates == {"ney": {"fate": "wounded", "months": 3}}
    assert [e.kind for e in events] == ["leaders.casualty", "leaders.unhurt"]
    dice.assert_used_up()


# 12.1.1 Militia conversion; 12.1.2 ship building; 12.5 economic manipulation; 12.9 American trade.
def test_12_1_1_four_militia_cost_twelve_and_arrive_three_months_later() -> None:
    assert economy.conversion_cost(4) == 12
    assert economy.converted_arrive("1806-11") == "1807-02"
    assert economy.conversion_problem([], True, 4, 12) is None
    assert economy.conversion_problem(["austria"], True, 4, 12) is not None
    assert economy.conversion_problem([], False, 4, 12) is not None
    assert economy.conversion_problem([], True, 4, 11) is not None


def test_12_1_2_a_major_powers_ships_in_an_occupied_port_are_destroyed() -> None:
    assert economy.ships_destroyed(True, True)
    assert not economy.ships_destroyed(False, True)


def test_12_5_recording_adds_the_squares_psa_money_and_manpower() -> None:
    display = {"0": {"psa": 0, "money": 0, "manpower": 0}, "+1": {"psa": -1, "money": 5, "manpower": 1}}
    assert economy.manipulation_result(display, "+1", 10, 3, 20) == {"money": 15, "manpower": 4, "political": 19}


def test_12_9_britain_rolls_whenever_a_power_is_denied_american_trade() -> None:
    assert economy.must_roll_american_trade([], ["prussia"])
    assert economy.must_roll_american_trade(["france"], [])
    assert not economy.must_roll_american_trade([], [])


# 12.4 Peace treaty limited access; 12.8 allied voluntary access; 12.3.9 no ceding.
def test_12_4_garrisons_out_after_three_land_phases_others_after_six() -> None:
    assert not peace.must_be_out(2, garrison=True, victor_c5=False, in_capital=False)
    assert peace.must_be_out(3, garrison=True, victor_c5=False, in_capital=False)
    assert not peace.must_be_out(5, garrison=False, victor_c5=False, in_capital=False)
    assert peace.must_be_out(6, garrison=False, victor_c5=False, in_capital=False)


def test_12_4_a_c5_victor_leaves_only_capitals_and_keeps_its_corps() -> None:
    assert not peace.must_be_out(3, garrison=True, victor_c5=True, in_capital=False)
    assert peace.must_be_out(3, garrison=True, victor_c5=True, in_capital=True)
    assert not peace.must_be_out(9, garrison=False, victor_c5=True, in_capital=False)


def test_12_4_3_stayers_demobilised_unless_granted_access() -> None:
    assert peace.fate_of_stayers(True, False) == "demobilise-or-scuttle"
    assert peace.fate_of_stayers(True, True) == "stays"


def test_12_8_access_only_to_an_ally_and_12_3_9_ceding_only_as_a_peace_term() -> None:
    assert peace.access_problem("austria", "prussia", ["russia"], allied_access=True) is not None
    assert peace.access_problem("austria", "russia", ["russia"], allied_access=True) is None
    assert peace.access_problem("austria", "prussia", [], allied_access=False) is None
    assert peace.ceding_problem(False, True) is not None
    assert peace.ceding_problem(True, True) is None


# 12.3.2 British training; 12.3.1 depot limit.
def test_12_3_2_portuguese_corps_morale_four_after_24_months_garrisons_two() -> None:
    assert land.trained_morale("portugal", "1808-01", "1809-12", False, 3.0) == 3.0
    assert land.trained_morale("portugal", "1808-01", "1810-01", False, 3.0) == 4.0
    assert land.trained_morale("portugal", "1808-01", "1810-01", True, 2.0) == 2.0
    assert land.trained_morale("sweden", "1800-01", "1810-01", False, 3.0) == 3.0


def test_12_3_1_a_depot_supplies_four_at_most() -> None:
    assert land.depot_can_supply(3)
    assert not land.depot_can_supply(4)
