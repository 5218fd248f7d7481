"""Cases from a reviewer's reading of chapter 12.0 against the module, and of the letters the
players of the coalition test game receive (regressions named for where they were found)."""

from __future__ import annotations

from typing import Any

import pytest
from eia_helpers import SealingDice
from test_eia_combats import RESULTS, corps, game, play

from games.empires_in_arms import battles, rules, standing
from referee.kit import GameDataError, schema


def _morale(**options: str) -> int:
    state = game(
        {"fr-a": corps("france", morale=4.0, infantry=10), "fr-b": corps("france", morale=2.0, infantry=2)},
        **options,  # type: ignore[arg-type]
    )
    return battles.side_morale(state, ["fr-a", "fr-b"], "1809-03")


def test_a_sides_morale_is_its_lowest_units_unless_the_group_weighs_it() -> None:
    # The chapter never says how a force's morale is found (the core rules do): the module's
    # reading is the lowest unit's; `side_morale: weighted` weighs each unit by its factors.
    assert _morale() == 20
    assert _morale(side_morale="lowest") == 20
    assert _morale(side_morale="weighted") == 36  # (4.0 x 10 + 2.0 x 2) / 12 = 3.67, down to 3.6


def test_side_morale_refuses_a_reading_it_does_not_know() -> None:
    with pytest.raises(GameDataError, match="lowest or weighted"):
        _morale(side_morale="highest")


def test_12_3_4_a_surviving_committed_guard_that_breaks_the_other_ends_the_combat() -> None:
    # 12.3.4 leaves a committing side two outcomes, and both break a side: its guard all lost (it
    # breaks), or the round fought (the other side breaks, or it does). A combat ends at a break,
    # so "once per day of combat" never lets a side commit twice in one combat.
    state = game(
        {"ru-g": corps("russia", guard=3, infantry=4), "fr-1": corps("france", morale=1.0, infantry=20)},
        guard_commitment=True,
    )
    attack = {"kind": "field", "attackers": ["ru-g"], "defenders": ["fr-1"]}
    state, _ = play(state, {"russia": {"attack": [attack]}}, SealingDice([]))
    dice = SealingDice(
        [1, 2, 2]
    )  # guard roll (+1 column: 0 lost), then each side's fire (3-3 shifted to 3-4: 1.5 morale)
    orders = {"russia": {"table": "3-3", "guard": {"nation": "russia", "shift": 1}}, "france": {"table": "3-2"}}
    state, events = play(state, orders, dice)
    dice.assert_used_up()
    ended = next(e for e in events if e.kind == "combat.ended")
    assert ended.data["broken"] == {"attacker": False, "defender": True}
    assert not any("committed its guard and did not break" in e.text for e in events)
    assert state["combats"] == [] and getattr(rules.phase(state), "name", None) == "round"


def _naval_round() -> dict[str, Any]:
    from test_eia_combats import fleet

    state = game(
        {
            "gb-1": fleet("britain", "britain", 30),
            "ru-1": fleet("russia", "russia", 10),
            "fr-1": fleet("france", "france", 20),
        }
    )
    attack = {"kind": "naval", "attackers": ["gb-1", "ru-1"], "defenders": ["fr-1"]}
    state, _ = play(state, {"britain": {"attack": [attack]}}, SealingDice([]))
    return state


def test_a_naval_rounds_form_takes_the_table_alone() -> None:
    # Found reading the letters: a naval round's form offered the guard (12.3.4) and the artillery
    # (12.3.5), land rules both; the module ignored them silently.
    state = _naval_round()
    spec = rules.phase(state)
    assert spec is not None and spec.name == "combat-c1-round-1"
    assert schema.check({"table": "3-3"}, spec.schema) == []
    refused = schema.check({"table": "3-3", "bombard": True, "guard": {"nation": "britain", "shift": 1}}, spec.schema)
    assert refused and all(p.code.startswith("invalid") for p in refused)
    form = standing.example(state, "britain")
    assert form is not None and form.orders == {"table": "3-3"}


def test_the_letters_say_each_sides_morale_and_the_losses_to_share() -> None:
    # Found reading the letters: a loss proposal's form gave the count alone, not the rounded
    # shares a proposal must keep to (12.3.6) nor which odd loss is open; a round's letter gave
    # no side's morale.
    state = game(
        {
            "ru-g": corps("russia", infantry=6),
            "gb-1": corps("britain", infantry=5),
            "fr-1": corps("france", infantry=20),
        },
        proportional_land_losses=True,
    )
    attack = {"kind": "field", "attackers": ["ru-g", "gb-1"], "defenders": ["fr-1"]}
    state, _ = play(state, {"russia": {"attack": [attack]}}, SealingDice([]))
    facts = {f.name: f for f in standing.standing(state, "russia")}
    assert facts["Combat c1 at bavaria"].items[0].endswith("morale 4.0 (lost 0.0)")
    dice = SealingDice([1, 1])  # each side's fire: 1 loss, 0.5 morale a round on these tables
    state, _ = play(state, {"russia": {"table": "3-3"}, "france": {"table": "3-3"}}, dice)
    # 1 loss between russia 6 and britain 5: shares 0.55 -> 1 and 0.45 -> 0, round out; no phase.
    assert getattr(rules.phase(state), "name", "").startswith("combat-c1-round-2")
    facts = {f.name: f for f in standing.standing(state, "britain")}
    assert "morale 3.5 (lost 0.5)" in facts["Combat c1 at bavaria"].items[0]


def test_a_loss_proposals_letter_gives_the_shares_and_the_odd_loss() -> None:
    state = game(
        {
            "ru-1": corps("russia", infantry=5),
            "gb-1": corps("britain", infantry=5),
            "fr-1": corps("france", infantry=20),
        },
        proportional_land_losses=True,
    )
    attack = {"kind": "field", "attackers": ["ru-1", "gb-1"], "defenders": ["fr-1"]}
    state, _ = play(state, {"russia": {"attack": [attack]}}, SealingDice([]))
    # 1 loss between russia 5 and britain 5: 0.5 and 0.5 both round up to 1: one loss to spare.
    state, _ = play(state, {"russia": {"table": "3-3"}, "france": {"table": "3-3"}}, SealingDice([1, 1]))
    spec = rules.phase(state)
    assert spec is not None and spec.name == "losses-c1-round-1" and spec.active == ("britain", "russia")
    facts = {f.name: f for f in standing.standing(state, "britain")}
    assert facts["Combat c1 at bavaria"].value == "field, losses of round 1 to share"
    fact = next(f for f in facts.values() if f.name.startswith("Losses to share"))
    assert fact.name == "Losses to share (combat c1, attacker)" and fact.value == "1"
    assert fact.items[:2] == ("britain: 5 present, rounded share 1", "russia: 5 present, rounded share 1")
    assert "1 odd loss(es) to spare" in fact.items[2] and "competitive rolls decide" in fact.items[2]


def _bombarded(morale_loss_before: int) -> dict[str, int]:
    """Return what a Russian corps of militia 4 and cavalry 3 loses to a French bombardment of 2
    and fire of 1, having lost `morale_loss_before` tenths of morale before the round."""
    columns: dict[str, Any] = dict(RESULTS["columns"])  # type: ignore[call-overload]
    columns["5-5"] = {t: {"losses": 2, "morale": 0} for t in "123456"}
    results = {**RESULTS, "columns": columns}
    state = game(
        {"fr-a": corps("france", artillery=3, infantry=5), "ru-1": corps("russia", militia=4, cavalry=3)},
        artillery_corps=True,
    )
    state["supplied"]["combat_results"] = results
    attack = {"kind": "field", "attackers": ["fr-a"], "defenders": ["ru-1"]}
    state, _ = play(state, {"france": {"attack": [attack]}}, SealingDice([]))
    state["combats"][0]["morale_loss"]["defender"] = morale_loss_before
    dice = SealingDice([1, 1, 1])  # France's bombardment (2 casualties), then each side's fire (1 loss, 0.5 morale)
    state, events = play(state, {"france": {"table": "3-3", "bombard": True}, "russia": {"table": "3-3"}}, dice)
    dice.assert_used_up()
    return next(e.data["taken"]["russia"] for e in events if e.kind == "combat.losses" and e.data["side"] == "defender")


def test_12_3_5_only_the_bombardment_casualties_spare_militia() -> None:
    # Found reading the chapter against the module: "the losses removed by bombardment may not be
    # militia, where possible, if the side ... already has a morale loss of 2.0 or greater". The
    # module kept every loss of the round off militia; the round's fire takes the usual order.
    assert _bombarded(20) == {"cavalry": 2, "militia": 1}


def test_12_3_5_the_morale_loss_counted_is_the_one_the_side_already_has() -> None:
    # ...and it counted the morale loss at the round's end: at 1.5 before the round (2.0 after
    # its fire), the bombardment's casualties may be militia.
    assert _bombarded(15) == {"militia": 3}


def test_a_commanders_letter_says_which_guard_may_be_committed_and_how_it_is_chosen() -> None:
    # Found reading the letters: a round's form left the guard to the reference list, with no
    # word of which nationality may shift by how much (12.3.4) nor whether the choice is sealed.
    state = game(
        {"ru-g": corps("russia", guard=3, infantry=4), "fr-g": corps("france", guard=1, infantry=4)},
        guard_commitment=True,
    )
    attack = {"kind": "field", "attackers": ["ru-g"], "defenders": ["fr-g"]}
    state, _ = play(state, {"russia": {"attack": [attack]}}, SealingDice([]))
    notes = {p: {f.name: f.value for f in standing.standing(state, p)} for p in ("russia", "france", "britain")}
    assert notes["russia"]["Your guard (12.3.4)"].startswith("you may commit one: russia +1 or +2")
    assert "both choices are sealed and revealed together" in notes["russia"]["Your guard (12.3.4)"]
    assert notes["france"]["Your guard (12.3.4)"].startswith("you may commit one: france +1,")
    assert "Your guard (12.3.4)" not in notes["britain"]


def test_12_3_5_a_side_of_artillery_alone_breaks_before_it_bombards_or_fights() -> None:
    # Derived from 12.3.5, "if at any time during a combat round a side ... consists of only
    # artillery factors, that side is automatically considered to break": the module let such a
    # side bombard and fire through the round and broke it after.
    state = game(
        {"ru-1": corps("russia", infantry=10), "fr-a": corps("france", artillery=3)},
        artillery_corps=True,
    )
    attack = {"kind": "field", "attackers": ["ru-1"], "defenders": ["fr-a"]}
    state, _ = play(state, {"russia": {"attack": [attack]}}, SealingDice([]))
    dice = SealingDice([1])  # the attacker's fire alone
    state, events = play(state, {"russia": {"table": "3-3"}, "france": {"table": "3-3", "bombard": True}}, dice)
    dice.assert_used_up()
    assert not [e for e in events if e.kind in ("combat.bombardment", "combat.fire") and e.data["side"] == "defender"]
    broken = next(e for e in events if e.kind == "combat.broken")
    assert broken.data["side"] == "defender" and "without fighting" in broken.text
    assert state["combats"] == []


def test_the_letters_give_standing_policies_in_words_and_others_only_once_revealed() -> None:
    # Found reading the letters: a policy was shown as a Python dict; another player's policy,
    # sealed or revealed, was not shown at all (that one exists is public: its sealing is).
    state = game({"fr-1": corps("france", infantry=4), "ru-1": corps("russia", infantry=4)})
    policy = {"table": "3-3", "bombard": False}
    state, _ = play(state, {"france": {"policy": policy}}, SealingDice([]))
    mine = {f.name: f for f in standing.standing(state, "france")}
    assert mine["Your standing policy"].items == ("table 3-3; artillery holds",)
    theirs = {f.name: f for f in standing.standing(state, "russia")}
    assert theirs["france's standing policy"].value.startswith("sealed")
    assert not theirs["france's standing policy"].items
