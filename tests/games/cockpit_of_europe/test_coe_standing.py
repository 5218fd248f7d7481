"""What a side's letters say of where it stands: in words a player reads without the rulebook's
state names, and only what holds this turn."""

from __future__ import annotations

from coe_helpers import playing

from games.cockpit_of_europe import calendar
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
