"""The end of a Cockpit of Europe turn and what follows: the invasions' ends, the year's end
(2.222, 3.122, 3.133, 5.444-5.445, 5.552, 6.434), the scenario's end, and the next phase."""

from __future__ import annotations

from typing import Any

from games.cockpit_of_europe import calendar, events, invasions
from games.cockpit_of_europe.ledger import end, peace
from games.cockpit_of_europe.model import closing_turn, turn_name
from referee.kit import Event


def advance(state: dict[str, Any]) -> list[Event]:
    """Close the phase: at a turn's end the invasions, the year's end (2.222, 3.133, 5.444-5.445,
    5.552, 6.434), the scenario's end; then open the next phase."""
    if state["ended"] is not None:
        return []
    happened: list[Event] = []
    turn_ends = state["phase"] == "operations" or calendar.now(state) == state.get("admin_only_turn")
    if not turn_ends:
        state["year"], state["turn"], state["phase"] = calendar.next_position(
            state["year"], state["turn"], state["phase"]
        )
        return happened
    if state["le_roi"]["whim"] is not None and calendar.now(state) == state.get("admin_only_turn"):
        state["le_roi"]["whim"] = None
        happened.append(
            Event(
                "le-roi.whim-lapsed",
                "The Royal Whim lapses with its turn: the March-April turn has no Operations Phase (3.16, 9.139)",
                {},
            )
        )
    happened += invasions.end_of_turn(state)
    if calendar.is_last_of_year(state["turn"]):
        happened += end_of_year(state)
    state["turns_played"] += 1
    last = closing_turn(state)
    if state["ended"] is None and last is not None and calendar.now(state) >= last:
        happened += invasions.end_of_year(state) if not calendar.is_last_of_year(state["turn"]) else []
        happened += events.scenario_end(state)
        happened += end(state, f"the scenario's last turn, {turn_name(state)}, is played")
    rounds = state["options"]["rounds"]
    if state["ended"] is None and rounds is not None and state["turns_played"] >= rounds:
        happened += end(state, f"the game's {rounds} turns are played (option rounds)")
    state["standing"] = []
    state["year"], state["turn"], state["phase"] = calendar.next_position(state["year"], state["turn"], "operations")
    return happened


def end_of_year(state: dict[str, Any]) -> list[Event]:
    happened: list[Event] = [Event("year.ended", f"The year {state['year']} ends", {"year": state["year"]})]
    if state["campaign"]:
        chart = state["supplied"].get("peace-index-chart")
        if chart is None:
            happened.append(
                Event("check.waiting", "The Peace Index Chart is not supplied: no yearly advance (2.222)", {})
            )
        else:
            happened += peace(
                state, int(chart["yearly"].get(str(state["year"]), 0)), f"the yearly advance of {state['year']} (2.222)"
            )
        le_roi = state["le_roi"]
        if (
            le_roi["where"] == "captured"
            and le_roi["captured_year"] is not None
            and state["year"] > le_roi["captured_year"]
        ):
            happened += peace(state, 2, "Le Roi still a captive at the year's end (3.133)")
    if state["dutch"]["artillery"]:
        state["dutch"]["artillery"] = False
        happened.append(
            Event("dutch.artillery", "The Dutch Artillery Reserves are removed at the year's end (5.552)", {})
        )
    russians = state["russians"]
    if russians["received"] is not None and not russians["entered"] and not russians["forfeit"]:
        russians["forfeit"] = True
        happened.append(
            Event("russians.forfeit", "The Russian Corps has not entered the map: it is forfeit (6.434)", {})
        )
    happened += invasions.end_of_year(state)
    rising = state["invasions"]["rising"]
    if (
        state["cumberland"]
        and rising["start"] is not None
        and calendar.from_absolute(rising["start"])[0] == state["year"]
    ):
        state["cumberland"] = False
        happened.append(Event("cumberland", "Cumberland leaves at the end of the year of the Rising (3.122)", {}))
    if state["milice"]["year"] is not None:
        state["milice"]["converted"] = 0
    return happened
