"""The book's worked examples and the outcomes its text fixes, each citing its rule
(/work/shared/rules/clash-of-sovereigns.md section 7 lists them). Numbers are the book's; where
a test needs a card, a table or a rating the book does not print, it is the made-up example
supply (marked as such in its file)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from cos_helpers import EXAMPLES, advance, canonical, dealt_state, dice, supplied_state

from games.clash_of_sovereigns import GAME, arithmetic, battle, cards
from games.clash_of_sovereigns.turn import PowerTurn

# -- 5.1 and 17.3: attrition ------------------------------------------------------------------


@pytest.mark.parametrize(("sp", "percent", "loss"), [(23, 10, 2), (27, 10, 3), (10, 20, 2)])
def test_5_1_attrition_is_a_percentage_of_the_force_rounded_six_tenths_up(sp: int, percent: int, loss: int) -> None:
    """5.1 / 17.3: 23 SP in Silesia (10%) lose 2, 27 SP lose 3; 10 SP in Milan (20%) lose 2."""
    assert arithmetic.attrition_loss(sp, percent) == loss


def test_5_1_a_demoralized_force_with_ss_3_loses_one_and_three_more() -> None:
    """5.1: a Demoralized 10 SP force in Milan with an SS-3 marker loses 2 + 1 + 3 = 6."""
    assert arithmetic.attrition_loss(10, 20, demoralized=True, short_supply=3) == 6


def test_5_1_rounding_differs_from_combat() -> None:
    """5.1 rounds .5 down (2.5 -> 2) where 13.6 rounds it up (3.5 -> 4)."""
    assert arithmetic.round_six_tenths_up(Fraction(5, 2)) == 2
    assert arithmetic.round_half_up(Fraction(7, 2)) == 4


# -- 8.2-8.4, 8.9: activation and AP -----------------------------------------------------------


def test_8_2_de_saxe_activates_for_his_initiative_and_spends_six_of_eight_ap() -> None:
    """8.2-8.4 (De Saxe's example): 1 CP (Initiative 1), AP 8 with 20 SP; five spaces at 1 AP,
    the overrun among them at 0 AP more, +1 AP into the space with an Austrian command: 6 AP spent, 2 left."""
    assert arithmetic.ap_allowance(8, 20) == 8
    moves: list[dict[str, bool]] = [{}] * 3 + [{"overrun": True}] + [{"enemy_command": True}]  # five spaces entered
    assert arithmetic.activation_ap_spent(moves) == 6


@pytest.mark.parametrize(("sp", "ap"), [(34, 8), (35, 7), (50, 7), (51, 6), (70, 6)])
def test_8_4_a_large_command_has_fewer_ap(sp: int, ap: int) -> None:
    """8.4: -1 AP with 35-50 SP, -2 with 51 or more (the Strategy Notes: De Saxe, AP 8, with 70 SP has 6)."""
    assert arithmetic.ap_allowance(8, sp) == ap


def test_8_3_a_successful_raid_space_costs_two_ap_and_a_siege_roll_two() -> None:
    """12.4: entering a Successful Raid space costs 2 AP (1 + 1); 15.4: Maillebois's 4 AP buy 2 siege rolls."""
    assert arithmetic.move_cost(ch=True) == 2
    assert arithmetic.siege_rolls_for(4) == 2
    assert arithmetic.activation_ap_spent([], siege_rolls=2) == 4


def test_8_2_operations_over_the_cards_cp_or_ap_are_refused() -> None:
    """6.4, 8.2, 8.4: an activation costs the leader's Initiative in CP and spends at most his AP."""
    state = dealt_state()
    info = {"cp": 1}
    over_cp = [{"activate": "Charles", "sp": 10, "moves": []}]  # Initiative 2 (example ratings)
    assert [p.code for p in cards.operations_problems(state, "austria", info, over_cp, "ops")] == ["illegal.cp"]
    too_far = [{"activate": "Charles", "sp": 40, "moves": [{"to": f"s{i}"} for i in range(6)]}]  # AP 6 - 1
    assert [p.code for p in cards.operations_problems(state, "austria", {"cp": 3}, too_far, "ops")] == ["illegal.ap"]
    march = [{"admin_march": True, "sp": 16, "moves": []}]
    assert [p.code for p in cards.operations_problems(state, "austria", {"cp": 3}, march, "ops")] == [
        "illegal.admin-march"
    ]


# -- 13.3-13.7: battle ratings, Tac cards, CRT arithmetic -----------------------------------------


def test_13_3_a_mixed_force_averages_its_army_ratings_rounded_up() -> None:
    """13.3: British 5, Dutch 2, Austrian 4: (5 + 4 + 2) / 3 = 3.67 -> 4."""
    assert arithmetic.mixed_army_rating([5, 2, 4]) == 4


def test_13_3_3_the_higher_abr_takes_the_difference() -> None:
    """13.3.3: Prussia ABR 8 (1745), Austria Army 4 + Charles 1 + Batthyani 1 = 6: Prussia +2, Austria 0."""
    austria = arithmetic.army_battle_rating(4, 1, [1])
    assert austria == 6
    assert arithmetic.abr_drms(8, austria) == (2, 0)


def test_13_3_the_example_force_abr_from_the_supplied_ratings() -> None:
    """13.3: with the example ratings (Austrian army 4, Charles 1, Batthyani 1) the game finds ABR 6;
    with option subordinate_ratings: never, Batthyani does not count."""
    state = dealt_state()
    force = {"commander": "Charles", "subordinates": ["Batthyani"], "nations": [{"nation": "austrian", "sp": 30}]}
    assert battle.side_abr(state, force)[0] == 6
    state["options"]["subordinate_ratings"] = "never"
    assert battle.side_abr(state, force)[0] == 5


def test_13_5_ligoniers_finest_day_nets_french_plus_one_british_plus_three() -> None:
    """13.5: French ABR 9 vs British 6: French +3; the British play Ligonier's Finest Day (+3 to
    themselves, -2 to the French): French net +1, British net +3."""
    french_abr, british_abr = arithmetic.abr_drms(9, 6)
    assert arithmetic.battle_drm(french_abr, [-2]) == 1
    assert arithmetic.battle_drm(british_abr, [3]) == 3


def _battle_state(cavalry: int) -> tuple[dict, dict]:
    state = dealt_state()
    state["battles"] = [
        {"attacker": "france", "defender": "britain", "at": "Fontenoy", "terrain": "clear", "intercept": False}
    ]
    state["step"] = {"kind": "battle"}
    state["resume"] = {"kind": "power", "power": "prussia", "index": 0}
    pile = state["cards"]["decks"]["britain-piedmont"]
    if not any(e["card"] == "bp-21" for e in pile["hands"]["pragmatic"]):  # put Ligonier in hand for the test
        where = next(z for z in ("draw", "discard") if any(e["card"] == "bp-21" for e in pile[z]))
        entry = next(e for e in pile[where] if e["card"] == "bp-21")
        pile[where].remove(entry)
        pile["hands"]["pragmatic"].append({k: v for k, v in entry.items() if k in ("card", "opening")})
    force = {"commander": "Cumberland", "nations": [{"nation": "british", "sp": 20}], "cavalry_sp": cavalry}
    return canonical(state), {"force": force, "tac": ["bp-21"]}


def test_13_5_ligoniers_finest_day_with_three_cavalry_sp_is_refused() -> None:
    """13.5: Ligonier's Finest Day needs 4 cavalry SP: with 3 the card is refused, with 4 accepted."""
    state, orders = _battle_state(3)
    problems = GAME.validate(state, "pragmatic", orders)
    assert [p.code for p in problems] == ["illegal.tac.prerequisite"]
    assert "4 cavalry SP" in problems[0].message
    state, orders = _battle_state(4)
    assert GAME.validate(state, "pragmatic", orders) == []


def test_13_5_a_tac_card_played_in_battle_moves_both_rolls_and_its_text_is_reported() -> None:
    """13.2 steps 6-9 and 13.5, through the game: the Tac card's DRMs land on both rolls."""
    state, orders = _battle_state(4)
    french = {"force": {"commander": "De Saxe", "nations": [{"nation": "french", "sp": 20}]}}
    new, events = advance(state, {"pragmatic": orders, "bourbon": french})
    result = next(e for e in events if e.kind == "battle.result")
    # French ABR 4 + 3 = 7, British 5 + 1 = 6: French +1 - 2 (Ligonier) = -1; British 0 + 3 = +3.
    assert result.data["abr"] == [7, 6] and result.data["drm"] == [-1, 3]
    played = next(e for e in events if e.kind == "card.played")
    told = next(e for e in events if e.kind == "deck.played")
    assert "Ligonier" in played.text and "Tac card" in played.text
    assert "+3 British" in told.text and "+3 British" not in played.text  # the card's text is told once
    assert new["step"]["kind"] == "power"


@pytest.mark.parametrize(("sp", "percent", "loss"), [(20, 25, 5), (30, 10, 3), (70, 5, 4)])
def test_13_6_losses_are_the_firers_own_sp_times_the_crt_percentage(sp: int, percent: int, loss: int) -> None:
    """13.6: 20 Prussian SP at 25% take 5 Austrian SP; 30 Austrian SP at 10% take 3; 70 SP at 5% take 4 (.5 up)."""
    assert arithmetic.losses_inflicted(sp, percent) == loss


def test_13_7_the_side_that_inflicted_more_wins_and_a_tie_goes_to_the_higher_abr() -> None:
    """13.7: Prussia inflicted 5, Austria 3: Prussia wins; on equal losses the higher ABR wins."""
    assert arithmetic.battle_winner((5, 3), (8, 6)) == 0
    assert arithmetic.battle_winner((3, 3), (6, 8)) == 1
    assert arithmetic.battle_winner((3, 3), (6, 6)) is None


def test_13_4_terrain() -> None:
    """13.4: Mountain -2 attacker / +2 defender; Alpine -3 / +3."""
    assert arithmetic.terrain_drms("mountain") == (-2, 2)
    assert arithmetic.terrain_drms("alpine") == (-3, 3)


# -- 12.4: the C/H raid; 15.4: the siege --------------------------------------------------------


@pytest.mark.parametrize(("roll", "sp", "ok"), [(3, 1, True), (1, 1, False), (6, 6, False)])
def test_12_4_a_raid_succeeds_on_a_roll_above_the_enemy_sp(roll: int, sp: int, ok: bool) -> None:
    """12.4: Glatz holds 1 Prussian SP, Austria rolls 3 > 1: success; with 6 SP any raid fails."""
    assert arithmetic.raid_succeeds(roll, sp) is ok


def test_12_4_the_croats_interrupt_raids_when_the_enemy_enters_the_space() -> None:
    """6.5.5 and 12.4 through the game: Austria's sealed interrupt opens when Frederick enters Kolin,
    the card is played as an interrupt (its text reported) and the raid on Glatz is rolled."""
    state = dealt_state()
    pile = state["cards"]["decks"]["austria"]
    if not any(e["card"] == "au-01" for e in pile["hands"]["pragmatic"]):
        where = next(z for z in ("draw", "discard") if any(e["card"] == "au-01" for e in pile[z]))
        entry = next(e for e in pile[where] if e["card"] == "au-01")
        pile[where].remove(entry)
        pile["hands"]["pragmatic"].append(entry)
    state = canonical(state)
    prussian = [
        c
        for c in cards.hand(state, "bourbon", "prussia-spain")
        if "operations" in cards.card_info(state, "prussia-spain", c)["uses"]
    ][0]
    orders = {
        "bourbon": {
            "play": {
                "card": prussian,
                "as": "operations",
                "operations": [{"activate": "Frederick", "sp": 30, "moves": [{"to": "Kolin"}]}],
            }
        },
        "pragmatic": {
            "reactions": {
                "interrupt": [{"card": "au-01", "when_enters": "Kolin", "raid": {"space": "Glatz", "enemy_sp": 1}}]
            }
        },
    }
    new, events = advance(state, orders)
    kinds = [e.kind for e in events]
    assert kinds.index("move") < kinds.index("reaction.opened") < kinds.index("raid")
    raid = next(e for e in events if e.kind == "raid")
    assert raid.data["success"] is (raid.data["roll"] > 1)
    opened = next(e for e in events if e.kind == "reaction.opened")
    assert opened.visible_to == "all" and opened.data["openings"]
    assert "au-01" not in cards.hand(new, "pragmatic", "austria")


def test_15_4_two_siege_rolls_for_four_ap_advance_the_siege() -> None:
    """15.4: Maillebois spends 4 AP for 2 more siege rolls at Prague, which Noailles brought to Siege +1."""
    state = dealt_state()
    state["sieges"] = {"Prague": 1}
    turn = PowerTurn(canonical(state), {}, dice(b"siege"), "france")
    turn.siege({"space": "Prague", "rolls": 2})
    rolls = [e for e in turn.events if e.kind == "siege"]
    assert len(rolls) == 2
    advanced = sum("advance" in str(e.data["lookup"]["result"]) for e in rolls)
    assert turn.state["sieges"]["Prague"] == 1 + advanced


# -- optional rules 22.x ---------------------------------------------------------------------


def test_22_1_a_large_battle_halves_losses_rounding_up() -> None:
    """22.1: 90 SP together is a Large Battle; the sample card halves losses, up (7 -> 4, 5 -> 3)."""
    assert arithmetic.is_large_battle(50, 40) and not arithmetic.is_large_battle(50, 39)
    assert [arithmetic.halve_round_up(n) for n in (7, 5)] == [4, 3]


@pytest.mark.parametrize(
    ("sp", "cavalry", "drms"), [((20, 20), (9, 5), (0, -1)), ((20, 20), (8, 5), (0, 0)), ((20, 9), (9, 5), (0, 0))]
)
def test_22_2_cavalry_superiority(sp: tuple[int, int], cavalry: tuple[int, int], drms: tuple[int, int]) -> None:
    """22.2: both sides 10 SP or more and 4 more cavalry SP: the other side -1."""
    assert arithmetic.cavalry_superiority(sp, cavalry) == drms


def test_22_3_colonial_influence_success_numbers() -> None:
    """22.3.2: French markers succeed on 1-3, British on 1-5."""
    assert [arithmetic.colonial_influence_succeeds("france", r) for r in (3, 4)] == [True, False]
    assert [arithmetic.colonial_influence_succeeds("britain", r) for r in (5, 6)] == [True, False]


def test_22_3_a_second_colonial_influence_in_a_year_is_refused() -> None:
    """22.3.5: one Colonial Influence a year; 22.3: only 3+ CP cards, only British and French."""
    state = dealt_state(options={"colonial_influence": True})
    state["colonial"]["bought"]["france"] = state["year"]
    play = {"card": "fr-03", "as": "colonial-influence", "colonial": "india"}
    pile = state["cards"]["decks"]["france"]
    for zone in ("draw", "discard"):
        for entry in list(pile[zone]):
            if entry["card"] == "fr-03":
                pile[zone].remove(entry)
                pile["hands"]["bourbon"].append(entry)
    problems = cards.play_problems(canonical(state), "bourbon", "france", play, "orders.play")
    assert [p.code for p in problems] == ["illegal.card.colonial"]


def test_22_7_bombardment_takes_depots_before_sp() -> None:
    """22.7: sixes {6, 2, 6} against 1 Depot and 4 SP: the Depot, then 1 SP."""
    assert arithmetic.bombardment([6, 2, 6], depots=1, sp=4) == (1, 1)


def test_22_8_supply_sharing() -> None:
    """22.8: French SP trace to French or Spanish sources, 5 SP or less to a Prussian one; Prussians likewise."""
    assert arithmetic.may_trace_supply("france", "spain", 20)
    assert arithmetic.may_trace_supply("france", "prussia", 5) and not arithmetic.may_trace_supply(
        "france", "prussia", 6
    )
    assert not arithmetic.may_trace_supply("prussia", "france", 6)


def test_22_5_a_sovereign_takes_the_field_at_most_twice() -> None:
    """22.5: George Shall Command a third time is refused."""
    state = dealt_state(options={"sovereign_limits": True})
    state["sovereigns"]["george-ii"] = 2
    pile = state["cards"]["decks"]["britain-piedmont"]
    for zone in ("draw", "discard"):
        for entry in list(pile[zone]):
            if entry["card"] == "bp-23":
                pile[zone].remove(entry)
                pile["hands"]["pragmatic"].append(entry)
    problems = cards.play_problems(
        canonical(state), "pragmatic", "britain", {"card": "bp-23", "as": "event"}, "orders.play"
    )
    assert [p.code for p in problems] == ["illegal.card.sovereign"]


def test_22_10_a_mulligan_rerolls_once_and_is_spent() -> None:
    """22.10: a side's Mulligan rerolls one of its own non-battle rolls; the reroll stands; spent for ever."""
    from games.clash_of_sovereigns.rolls import Roller

    state = dealt_state(options={"mulligans": True})
    events: list = []
    roller = Roller(state, {"pragmatic": {"mulligan": {"on": "raid", "at_most": 6}}}, dice(b"m"))
    roller.d6("pragmatic", "raid", "raid/glatz/1", events, "the raid")
    assert state["mulligans"]["pragmatic"] is False and [e.kind for e in events] == ["mulligan"]
    roller.d6("pragmatic", "raid", "raid/glatz/2", events, "the raid")
    assert len(events) == 1
    assert EXAMPLES  # the supplies are the made-up examples


def test_22_6_the_1744_start_opens_with_free_admin_marches_that_no_one_can_interrupt() -> None:
    """22.6: for the 1744 and 1746 starts, a free 15 SP admin march each, in player order, before play."""
    state, _ = advance(supplied_state(options={"changing_aims": True, "first_year": 1744}))
    assert state["step"]["kind"] == "changing-aims"
    over = {"bourbon": {"free_march": {"power": "france", "sp": 15, "moves": [{"to": "Metz"}] * 7}}}
    assert [p.code for p in GAME.validate(state, "bourbon", over["bourbon"])] == ["illegal.ap"]
    orders = {"bourbon": {"free_march": {"power": "france", "sp": 15, "moves": [{"to": "Metz"}]}}}
    new, events = advance(state, orders)
    assert [e.kind for e in events if e.kind == "free-march"] == ["free-march"]
    assert "cannot be interrupted" in next(e.text for e in events if e.kind == "free-march")
    assert new["step"]["kind"] == "power" and not any(e.kind == "reactions.sealed" for e in events)


def test_an_event_that_stays_in_play_stays_until_its_owner_ends_it() -> None:
    """6.5 (an event that lasts): played as an event it stays in play, shown to all, until ended."""
    state = dealt_state()
    pile = state["cards"]["decks"]["austria"]
    for zone in ("draw", "discard"):
        for entry in list(pile[zone]):
            if entry["card"] == "au-02":
                pile[zone].remove(entry)
                pile["hands"]["pragmatic"].append(entry)
    state["step"] = {"kind": "power", "power": "austria", "index": 1}
    state = canonical(state)
    new, events = advance(state, {"pragmatic": {"play": {"card": "au-02", "as": "event"}}})
    assert "au-02" in [c["card"] for c in GAME.view(new, "bourbon")["decks"]["austria"]["in_play"]]
    new, _ = advance(new, {"pragmatic": {"end_in_play": [{"card": "au-02", "to": "discard"}]}})
    assert not GAME.view(new, None)["decks"]["austria"].get("in_play")
