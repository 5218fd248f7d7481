"""Seats, sides, powers and their decks (1.2, 1.3, 2.1): who holds which deck in 2, 3 and 4 players.

The book has a deck per power seat (four decks, 153 cards) and two alliances. Four players take
a seat each; two players take an alliance each, so each holds both its seats' decks. The book
allows three players without saying which seats merge, so the three-player scenarios name it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SIDES = ("bourbon", "pragmatic")
# The major powers taking turns, and the deck each plays from (1.2, 1.3, 2.1).
POWERS = ("france", "prussia", "spain", "austria", "britain", "piedmont")
DECKS = ("france", "prussia-spain", "austria", "britain-piedmont")
DECK_OF_POWER = {
    "france": "france",
    "prussia": "prussia-spain",
    "spain": "prussia-spain",
    "austria": "austria",
    "britain": "britain-piedmont",
    "piedmont": "britain-piedmont",
}
SIDE_OF_DECK = {
    "france": "bourbon",
    "prussia-spain": "bourbon",
    "austria": "pragmatic",
    "britain-piedmont": "pragmatic",
}
SIDE_OF_POWER = {power: SIDE_OF_DECK[deck] for power, deck in DECK_OF_POWER.items()}
DECK_TITLES = {
    "france": "French cards",
    "prussia-spain": "Prussian/Spanish cards",
    "austria": "Austrian cards",
    "britain-piedmont": "British/Piedmontese cards",
}
_BOURBON = {"bourbon": ["france", "prussia-spain"]}
_PRAGMATIC = {"pragmatic": ["austria", "britain-piedmont"]}
# Scenario -> seat -> the decks it holds.
SEATINGS: dict[str, dict[str, list[str]]] = {
    "four-players": {deck: [deck] for deck in DECKS},
    "two-players": {**_BOURBON, **_PRAGMATIC},
    "three-players-bourbon-one": {**_BOURBON, "austria": ["austria"], "britain-piedmont": ["britain-piedmont"]},
    "three-players-pragmatic-one": {"france": ["france"], "prussia-spain": ["prussia-spain"], **_PRAGMATIC},
}
SCENARIOS = tuple(SEATINGS)


def roles(scenario: str, options: Mapping[str, Any]) -> tuple[str, ...]:
    """Return the seats of a scenario, sorted (each holds one or two decks)."""
    if scenario not in SEATINGS:
        raise ValueError(f"no scenario {scenario!r}; scenarios: {', '.join(SCENARIOS)}")
    return tuple(sorted(SEATINGS[scenario]))


def holder_of_deck(state: Mapping[str, Any], deck: str) -> str:
    """Return the seat holding a deck."""
    return next(seat for seat, decks in state["seats"].items() if deck in decks)


def seat_of_power(state: Mapping[str, Any], power: str) -> str:
    """Return the seat that plays a power's turns (the holder of its deck)."""
    return holder_of_deck(state, DECK_OF_POWER[power])


def side_of_seat(state: Mapping[str, Any], seat: str) -> str:
    """Return a seat's alliance (its decks are all of one side)."""
    return SIDE_OF_DECK[state["seats"][seat][0]]


def opponents(state: Mapping[str, Any], seat: str) -> list[str]:
    """Return the seats of the other alliance."""
    side = side_of_seat(state, seat)
    return sorted(other for other in state["seats"] if side_of_seat(state, other) != side)


def powers_of_seat(state: Mapping[str, Any], seat: str) -> list[str]:
    """Return the powers a seat plays, in POWERS' order."""
    return [power for power in POWERS if DECK_OF_POWER[power] in state["seats"][seat]]
