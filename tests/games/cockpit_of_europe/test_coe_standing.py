"""What a side's letters say of where it stands: in words a player reads without the rulebook's
state names, and only what holds this turn."""

from __future__ import annotations

from coe_helpers import playing

from games.cockpit_of_europe import calendar, checks, events
from games.cockpit_of_europe.ledger import end
from games.cockpit_of_europe.standing import standing


def facts(state: dict, side: str = "allies") -> dict[str, str]:
    return {fact.name: fact.value for fact in standing(state, side)}


def test_le_roi_is_placed_in_words() -> None:
    state = playing(year=1745, turn=3)
    assert facts(state)["Le Roi"] == "with the Armee du Roi HQ"
    state["le_roi"].update(where="hub", whim={"turn": calendar.now(state)})
    assert facts(state)["Le Roi"] == "at the French Hub - a Royal Whim this turn (3.16)"


def test_7_01_a_random_event_is_shown_only_in_the_turn_it_was_rolled() -> None:
    state = playing(year=1745, turn=3, phase="operations")
    state["random_event"] = {"event": "the-duellists", "turn": calendar.now(state)}
    assert facts(state)["Random Event this turn"] == "The duellists (7.01)"
    state.update(turn=4, phase="start-of-turn")
    assert "Random Event this turn" not in facts(state)


def test_2_11_the_end_says_who_wins_with_the_prestige_that_decides() -> None:
    state = playing(year=1745, turn=3)
    (ended,) = end(state, "test")
    assert "Prestige Levels are tied (allies Level 2, 1 PP, france Level 2, 0 PP)" in ended.text
    assert "KR&Os 9.0" in ended.text and ended.data["winner"] is None
    state = playing(scenario="maurice-1746", year=1746, turn=3)
    (ended,) = end(state, "test")
    assert "The Allies win (allies Level 3, 0 PP, france Level 3, 0 PP)" in ended.text  # 9.138: a tie is Allied


def test_3_16_a_royal_whim_tells_france_what_to_report_of_the_board() -> None:
    state = playing(year=1745, turn=3)
    (whim,) = checks.royal_whim(state)
    assert "whim_battle: true" in whim.text and "whim_siege_lifted: true" in whim.text and "`note`" in whim.text


def test_7_06_town_independence_tells_its_beneficiary_which_orders_use_it() -> None:
    text = events.SIDE_EVENTS["town-independence"]
    assert "town_independence_capture" in text and "standing: {town_independence:" in text
    assert "ended_on_empty" in text
