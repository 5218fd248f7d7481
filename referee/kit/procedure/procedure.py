"""A procedure journal's procedure: its sequence of play and calendar, tracks, public lists and
scheduled rolls, as `rules` calls them. A game whose options give none of them keeps none of
their keys in its state, so it plays, records and shows exactly as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.kit import Dice, Event, GameDataError, Problem, Tables
from referee.kit.procedure import lists as public_lists
from referee.kit.procedure import scheduled, sequence, tracks

KEYS = ("sequence", "calendar", "tracks", "lists")


def setup(options: Mapping[str, Any], players: Sequence[str], tables: Tables) -> dict[str, Any]:
    """Return the state keys of the options' procedure (none for a game without one), checked:
    a mistake raises GameDataError with its path, when the game is created."""
    found: dict[str, Any] = {}
    lists = public_lists.parse_lists(options.get("lists"))
    phases = sequence.parse_sequence(options.get("sequence"), sorted(players))
    for index, phase in enumerate(phases or []):
        where = f"options.sequence[{index}].scheduled"
        phase["scheduled"] = scheduled.parse_scheduled(phase["scheduled"], where, tables, lists or {})
    parsed = {
        "sequence": phases,
        "calendar": sequence.parse_calendar(options.get("calendar")),
        "tracks": tracks.parse_tracks(options.get("tracks")),
        "lists": lists,
    }
    found = {key: value for key, value in parsed.items() if value is not None}
    unknown = tracks.table_problems(tables, found.get("tracks") or {})
    if unknown:
        raise GameDataError("; ".join(unknown))
    if found.get("tracks"):
        found["ended"] = None
    return found


def is_over(state: Mapping[str, Any]) -> bool:
    """Return whether a track's trigger has ended the game."""
    return bool(state.get("ended"))


def order_fields(state: Mapping[str, Any]) -> dict[str, Any]:
    """Return the order keys the game's procedure adds (none without tracks or lists)."""
    fields = {}
    if state.get("tracks"):
        fields["track"] = tracks.ORDER_SCHEMA
    if state.get("lists"):
        fields["list"] = public_lists.ORDER_SCHEMA
    return fields


def order_problems(state: Mapping[str, Any], orders: Mapping[str, Any]) -> list[Problem]:
    """Return the problems with an order's track and list changes."""
    return tracks.order_problems(state, orders) + public_lists.order_problems(state, orders)


def before_orders(state: Mapping[str, Any], tables: Tables, dice: Dice) -> list[Event]:
    """Return the events of the open phase's scheduled rolls, made before any player's orders."""
    _, phase = sequence.position(state)
    if phase is None or not phase["scheduled"]:
        return []
    return scheduled.make(phase["name"], phase["scheduled"], tables, state.get("lists") or {}, dice)


def after_orders(
    state: dict[str, Any], orders: Mapping[str, Mapping[str, Any]], rolls: list[Event]
) -> tuple[dict[str, Any], list[Event]]:
    """Return the state after the phase's list and track changes (players' orders in name order,
    then the rolls' table results), and whether a track's trigger ends the game."""
    events: list[Event] = []
    if "lists" in state:
        lists = state["lists"]
        for player in sorted(orders):
            for order in orders[player].get("list") or []:
                lists, event = public_lists.change(lists, order, player)
                events += [event] if event else []
        state = {**state, "lists": lists}
    if "tracks" not in state:
        return state, events
    moved = state["tracks"]
    for player in sorted(orders):
        for order in orders[player].get("track") or []:
            moved, event = tracks.move(moved, order["track"], order["change"], order["reason"], player)
            events.append(event)
    moved, happened = tracks.apply_rolls(moved, rolls)
    events += happened
    ended = tracks.ending(moved)
    if ended is not None:
        turn, phase = sequence.position({**state, "round": state["round"] - 1})
        ended = {**ended, "turn": turn, "phase": phase["name"] if phase else "round"}
        events.append(Event("game.ended", ended["text"], ended))
    return {**state, "tracks": moved, "ended": ended}, events


def spec_title(state: Mapping[str, Any]) -> str:
    """Return the open phase's title (`round N` for a game without sequence or calendar)."""
    return sequence.title(state)


def view(state: Mapping[str, Any]) -> dict[str, Any]:
    """Return what every player sees of the procedure (nothing for a game without one)."""
    if not any(key in state for key in KEYS):
        return {}
    turn, phase = sequence.position(state)
    if state.get("ended"):  # the game ended in the phase before: the turn it ended in
        turn, phase = sequence.position({**state, "round": state["round"] - 1})
    shown: dict[str, Any] = {"turn": turn}
    if phase is not None:
        shown["phase"] = phase["name"]
        shown["sequence"] = [{"name": p["name"], "title": p["title"], "active": p["active"]} for p in state["sequence"]]
    label = sequence.calendar_label(state, turn)
    if label is not None:
        shown["calendar"] = label
    if "tracks" in state:
        shown["tracks"] = tracks.view(state["tracks"])
        shown["ended"] = state.get("ended")
    if "lists" in state:
        shown["lists"] = {key: list(value) for key, value in sorted(state["lists"].items())}
    return shown


def check(state: Mapping[str, Any]) -> list[str]:
    """Return the procedure's broken invariants (a track out of bounds after an override)."""
    return tracks.check(state["tracks"]) if "tracks" in state else []
