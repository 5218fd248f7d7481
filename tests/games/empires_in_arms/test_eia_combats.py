"""Combats through the module's phases: sealed guard commitments revealed together (12.3.4),
losses shared between nationalities with the allies' sealed proposals and competitive rolls
(12.2.5, 12.3.6), overwhelming numbers and withdrawal (12.3.10), standing policies that fight
rounds without mail, and leader casualties in the adjudication that ends a combat (12.7)."""

from __future__ import annotations

import copy
from typing import Any

from eia_bot import COMPETITIVE, GUARD_TABLE
from eia_helpers import SealingDice

from games.empires_in_arms import rules

TEN_A_ROUND = {t: {"losses": 10, "morale": 0} for t in "123456"}
HALF = {t: {"losses": 1, "morale": 0.5} for t in "123456"}
RESULTS = {
    "dice": "1d6",
    "default_table": "3-3",
    "breaks_at_morale": 0,
    "rounds": {"field": 3, "limited-field": 3, "trivial": 1, "naval": 1},
    "columns": {
        "3-2": HALF,
        "3-3": HALF,
        "3-4": {t: {"losses": 4, "morale": 1.5} for t in "123456"},
        "3-5": HALF,
        "9-9": TEN_A_ROUND,
    },
}
POWERS = {
    "france": {"player": "france", "home": ["paris"], "at_war": ["britain", "russia"]},
    "britain": {"player": "britain", "home": ["london"], "allies": ["russia"], "at_war": ["france"]},
    "russia": {"player": "russia", "home": ["moscow"], "allies": ["britain"], "at_war": ["france"]},
}


def game(units: dict[str, Any], leaders: dict[str, Any] | None = None, **on: bool) -> dict[str, Any]:
    options = {
        **on,
        "powers": POWERS,
        "units": units,
        "leaders": leaders or {},
        "start": "1809-03",
        "combat_results": RESULTS,
        "guard_table": GUARD_TABLE,
        "competitive_rolls": COMPETITIVE,
    }
    return copy.deepcopy(rules.setup("open", ["britain", "france", "russia"], options))


def corps(power: str, morale: float = 4.0, **factors: int) -> dict[str, Any]:
    return {
        "power": power,
        "nation": power,
        "type": "corps",
        "area": "bavaria",
        "morale": morale,
        "strategic": 3,
        "factors": factors,
    }


def fleet(power: str, nation: str, ships: int) -> dict[str, Any]:
    return {"power": power, "nation": nation, "type": "fleet", "area": "north-sea", "ships": ships}


def play(state: dict[str, Any], orders: dict[str, Any], dice: SealingDice) -> tuple[dict[str, Any], list[Any]]:
    spec = rules.phase(state)
    assert spec is not None
    for player, given in orders.items():
        assert player in spec.active, (player, spec)
        assert rules.validate(state, player, given) == [], (player, given)
    new, events = rules.resolve(state, orders, dice)
    return copy.deepcopy(new), events


def kinds(events: list[Any]) -> list[str]:
    return [e.kind for e in events]


def test_12_3_4_both_sides_guards_commit_sealed_and_revealed_together() -> None:
    state = game(
        {"ru-g": corps("russia", guard=3, infantry=4), "fr-g": corps("france", guard=2, infantry=4)},
        guard_commitment=True,
    )
    attack = {"kind": "field", "attackers": ["ru-g"], "defenders": ["fr-g"]}
    state, _ = play(state, {"russia": {"attack": [attack]}}, SealingDice([]))
    spec = rules.phase(state)
    assert spec is not None and spec.name == "combat-c1-round-1" and spec.active == ("france", "russia") and spec.sealed
    # The attacker's guard roll 1 loses 1 (+2 column); the defender's 4 loses both: it breaks unfought.
    dice = SealingDice([1, 4, 3])
    orders = {
        "russia": {"table": "3-2", "guard": {"nation": "russia", "shift": 2}},
        "france": {"table": "3-3", "guard": {"nation": "france", "shift": 2}},
    }
    state, events = play(state, orders, dice)
    dice.assert_used_up()
    sealed = [e for e in events if e.kind == "sealed.choice"]
    assert sorted(e.visible_to for e in sealed) == [("france",), ("russia",)]
    revealed = next(e for e in events if e.kind == "sealed.revealed")
    assert revealed.visible_to == "all" and len(revealed.data["openings"]) == 2
    assert revealed.data["choices"]["france"]["guard"] == {"nation": "france", "shift": 2}
    fire = [e for e in events if e.kind == "combat.fire"]
    assert [(e.data["side"], e.data["table"]) for e in fire] == [
        ("attacker", "3-4")
    ]  # 3-2 shifted +2; France does not fight
    assert "breaks without fighting" in next(
        e.text for e in events if e.data.get("side") == "defender" and e.kind == "combat.guard"
    )
    assert state["units"]["fr-g"]["factors"] == {"guard": 0, "infantry": 0}  # 2 guard lost at once, then 4 losses
    assert state["units"]["ru-g"]["factors"]["guard"] == 2
    assert state["combats"] == [] and getattr(rules.phase(state), "name", None) == "round"


def test_12_3_4_a_committed_side_that_does_not_break_the_other_breaks() -> None:
    state = game(
        {"ru-g": corps("russia", guard=3, infantry=4), "fr-1": corps("france", infantry=20)}, guard_commitment=True
    )
    state, _ = play(
        state,
        {"russia": {"attack": [{"kind": "field", "attackers": ["ru-g"], "defenders": ["fr-1"]}]}},
        SealingDice([]),
    )
    dice = SealingDice([1, 2, 2])  # guard roll (+1 column: 0 lost), then each side's fire
    state, events = play(
        state, {"russia": {"table": "3-2", "guard": {"nation": "russia", "shift": 1}}, "france": {"table": "3-2"}}, dice
    )
    assert any("committed its guard and did not break" in e.text for e in events)
    assert "combat.ended" in kinds(events)


def test_12_3_4_refusals_cite_the_rule() -> None:
    state = game(
        {"gb": corps("britain", guard=3, infantry=4), "fr-1": corps("france", infantry=5)}, guard_commitment=True
    )
    state, _ = play(
        state, {"britain": {"attack": [{"kind": "field", "attackers": ["gb"], "defenders": ["fr-1"]}]}}, SealingDice([])
    )
    problems = rules.validate(state, "britain", {"table": "3-2", "guard": {"nation": "britain", "shift": 1}})
    assert [p.code for p in problems] == ["illegal.guard"] and "12.3.4" in problems[0].message


def test_12_2_5_sixty_eight_ships_share_ten_losses_without_a_mail_round() -> None:
    units = {
        "gb": fleet("britain", "britain", 36),
        "se": fleet("britain", "sweden", 20),
        "pt": fleet("britain", "portugal", 12),
        "fr": fleet("france", "france", 30),
    }
    state = game(units, proportional_naval_losses=True)
    state, _ = play(
        state,
        {"britain": {"attack": [{"kind": "naval", "attackers": ["gb", "se", "pt"], "defenders": ["fr"]}]}},
        SealingDice([]),
    )
    state, events = play(state, {"britain": {"table": "3-2"}, "france": {"table": "9-9"}}, SealingDice([3, 3]))
    assert {n: state["units"][u]["ships"] for n, u in (("britain", "gb"), ("sweden", "se"), ("portugal", "pt"))} == {
        "britain": 31,
        "sweden": 17,
        "portugal": 10,
    }
    assert state["combats"] == []


def _allied_naval() -> dict[str, Any]:
    units = {
        "gb": fleet("britain", "britain", 36),
        "se": fleet("britain", "sweden", 20),
        "pt": fleet("britain", "portugal", 12),
        "ru": fleet("russia", "russia", 14),
        "fr": fleet("france", "france", 30),
    }
    state = game(units, proportional_naval_losses=True)
    state, _ = play(
        state,
        {"britain": {"attack": [{"kind": "naval", "attackers": ["gb", "se", "pt", "ru"], "defenders": ["fr"]}]}},
        SealingDice([]),
    )
    state, _ = play(state, {"britain": {"table": "3-2"}, "france": {"table": "9-9"}}, SealingDice([3, 3]))
    return state


def test_12_2_5_an_odd_loss_between_allies_asks_both_for_sealed_proposals() -> None:
    state = _allied_naval()
    spec = rules.phase(state)
    assert spec is not None and spec.name == "losses-c1-round-1" and spec.active == ("britain", "russia")
    share = state["combats"][0]["pending"]["attacker"]
    assert share["shares"] == {"britain": 4, "sweden": 2, "portugal": 1, "russia": 2} and share["count"] == 10


def test_12_2_5_agreed_proposals_are_applied() -> None:
    state = _allied_naval()
    split = {"britain": 5, "sweden": 2, "portugal": 1, "russia": 2}
    state, events = play(state, {"britain": {"split": split}, "russia": {"split": split}}, SealingDice([]))
    assert "losses.competitive" not in kinds(events)
    assert state["units"]["gb"]["ships"] == 31 and state["units"]["ru"]["ships"] == 12
    revealed = next(e for e in events if e.kind == "sealed.revealed")
    assert set(revealed.data["choices"]) == {"britain", "russia"}


def test_12_2_5_differing_proposals_go_to_competitive_rolls_the_loser_taking_the_odd_loss() -> None:
    state = _allied_naval()
    britain = {"britain": 4, "sweden": 2, "portugal": 1, "russia": 3}
    russia = {"britain": 5, "sweden": 2, "portugal": 1, "russia": 2}
    dice = SealingDice([5, 6, 2, 4])  # britain, portugal, russia, sweden: russia lowest
    state, events = play(state, {"britain": {"split": britain}, "russia": {"split": russia}}, dice)
    dice.assert_used_up()
    rolled = next(e for e in events if e.kind == "losses.competitive")
    assert "the proposals differ" in rolled.text
    assert rolled.data["split"] == {"britain": 4, "sweden": 2, "portugal": 1, "russia": 3}


def test_12_3_6_a_missing_proposal_goes_to_competitive_rolls() -> None:
    state = _allied_naval()
    split = {"britain": 5, "sweden": 2, "portugal": 1, "russia": 2}
    dice = SealingDice([1, 6, 2, 4])  # britain rolls lowest: it takes the odd loss
    state, events = play(state, {"britain": {"split": split}}, dice)
    rolled = next(e for e in events if e.kind == "losses.competitive")
    assert "no proposal from russia" in rolled.text and rolled.data["split"]["britain"] == 5


def test_12_3_10_outnumbered_defender_with_a_policy_withdraws_on_its_rating() -> None:
    state = game({"ru": corps("russia", infantry=50), "fr": corps("france", infantry=10)}, overwhelming_numbers=True)
    state, events = play(
        state, {"france": {"policy": {"table": "3-3", "withdraw_if_outnumbered": True}}}, SealingDice([])
    )
    assert [e.visible_to for e in events if e.kind == "sealed.choice"] == [("france",)]
    state, events = play(
        state, {"russia": {"attack": [{"kind": "field", "attackers": ["ru"], "defenders": ["fr"]}]}}, SealingDice([3])
    )
    assert "combat.overwhelming" in kinds(events) and "policy.revealed" in kinds(events)
    assert next(e for e in events if e.kind == "combat.withdrawal").data == {
        "combat": "c1",
        "rating": 3,
        "roll": 3,
        "withdrew": True,
    }
    assert state["combats"] == []


def test_12_3_10_a_failed_withdrawal_fights_trivial_combat() -> None:
    state = game({"ru": corps("russia", infantry=50), "fr": corps("france", infantry=10)}, overwhelming_numbers=True)
    state, _ = play(state, {"france": {"policy": {"table": "3-3", "withdraw_if_outnumbered": True}}}, SealingDice([]))
    state, events = play(
        state, {"russia": {"attack": [{"kind": "field", "attackers": ["ru"], "defenders": ["fr"]}]}}, SealingDice([4])
    )
    assert state["combats"][0]["kind"] == "trivial"


def test_standing_policies_fight_rounds_without_mail_and_12_7_casualties_follow_in_the_same_adjudication() -> None:
    leaders = {"ney": {"power": "france", "with": "fr", "strategic": 3, "tactical": 3, "tactical_max": 3}}
    state = game(
        {"ru": corps("russia", infantry=9), "fr": corps("france", morale=1.0, infantry=9)},
        leaders,
        leader_casualties=True,
    )
    state, _ = play(
        state, {"france": {"policy": {"table": "3-2"}}, "russia": {"policy": {"table": "3-3"}}}, SealingDice([])
    )
    # Round 1 (each 0.5 morale), round 2 (France at 0.0 breaks), then France's leader check: 6+6, wounded 2 months.
    dice = SealingDice([1, 1, 1, 1, 6, 6, 2])
    state, events = play(
        state, {"russia": {"attack": [{"kind": "field", "attackers": ["ru"], "defenders": ["fr"]}]}}, dice
    )
    dice.assert_used_up()
    assert kinds(events).count("policy.revealed") == 2
    assert "combat.ended" in kinds(events) and "leaders.casualty" in kinds(events)
    assert state["leaders"]["ney"]["status"] == "wounded"
    assert getattr(rules.phase(state), "name", None) == "round"


def test_12_2_3_a_fleet_move_beyond_its_allowance_is_refused() -> None:
    units = {"gb": fleet("britain", "britain", 10), "gb2": fleet("britain", "britain", 10)}
    state = game(units, large_fleets=True)
    move = {"fleets": ["gb", "gb2"], "path": ["a", "b", "c", "d", "e", "f"]}
    assert rules.validate(state, "britain", {"fleet_moves": [move]}) == []
    problems = rules.validate(state, "britain", {"fleet_moves": [{**move, "path": [*move["path"], "g"]}]})
    assert [p.code for p in problems] == ["illegal.fleet-allowance"] and "12.2.3" in problems[0].message


def test_12_1_1_militia_converts_only_at_peace_with_every_major_power() -> None:
    units = {"ru": {**corps("russia", militia=4), "area": "moscow"}}
    state = game(units, militia_conversion=True)
    problems = rules.validate(state, "russia", {"militia": [{"unit": "ru", "factors": 4}]})
    assert problems and "12.1.1" in problems[0].message


def test_a_combat_is_fought_where_every_unit_stands_after_the_orders_moves() -> None:
    units = {"ru": {**corps("russia", infantry=5), "area": "saxony"}, "fr": corps("france", infantry=5)}
    state = game(units)
    attack = {"kind": "field", "attackers": ["ru"], "defenders": ["fr"], "area": "bavaria"}
    assert [p.code for p in rules.validate(state, "russia", {"attack": [attack]})] == ["illegal.area"]
    assert rules.validate(state, "russia", {"moves": [{"unit": "ru", "to": "bavaria"}], "attack": [attack]}) == []
    twice = {"attack": [attack, attack], "moves": [{"unit": "ru", "to": "bavaria"}]}
    assert "illegal.engaged" in [p.code for p in rules.validate(state, "russia", twice)]


def test_12_7_a_wounded_leader_is_back_after_his_complete_months() -> None:
    leaders = {"ney": {"power": "france", "with": "fr", "strategic": 3, "tactical": 3, "tactical_max": 3}}
    state = game({"fr": corps("france", infantry=5)}, leaders)
    state["leaders"]["ney"].update(status="wounded", back="1809-05")  # wounded in March for one month
    for _month in ("March", "April"):
        state, events = play(state, {}, SealingDice([]))
    assert state["leaders"]["ney"]["status"] == "wounded"
    state, events = play(state, {}, SealingDice([]))  # May
    assert state["leaders"]["ney"]["status"] == "active" and "leaders.back" in kinds(events)


def test_12_3_6_each_player_chooses_the_factor_types_their_contingent_loses() -> None:
    units = {
        "ru": {**corps("russia", infantry=6, cavalry=4), "nation": "russia"},
        "gb": corps("britain", infantry=6, cavalry=4),
        "fr": corps("france", infantry=40),
    }
    state = game(units, proportional_land_losses=True)
    attack = {"kind": "field", "attackers": ["fr"], "defenders": ["ru", "gb"]}
    state, _ = play(state, {"france": {"attack": [attack]}}, SealingDice([]))
    # Three losses on ten and ten factors: 1.5 each rounds to 2 and 2, one too many: the allies propose.
    state["supplied"]["combat_results"]["columns"]["3-4"]["1"]["losses"] = 3
    state, _ = play(state, {"france": {"table": "3-4"}, "russia": {"table": "3-2"}}, SealingDice([1, 1]))
    assert rules.phase(state).active == ("britain", "russia")  # type: ignore[union-attr]
    split = {"russia": 2, "britain": 1}
    orders = {
        "russia": {"split": split, "types": {"russia": {"cavalry": 2}}},
        "britain": {"split": split, "types": {"russia": {"infantry": 1}}},  # not britain's to choose: ignored
    }
    state, events = play(state, orders, SealingDice([]))
    assert state["units"]["ru"]["factors"] == {"infantry": 6, "cavalry": 2}
    assert state["units"]["gb"]["factors"] == {"infantry": 5, "cavalry": 4}
