"""Where a seat stands, for the top of every notice and report: its hands with the cards'
texts, the cards in play, the tracks, and what is awaited from it (GameModule.standing)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from games.clash_of_sovereigns import rules, seats
from games.clash_of_sovereigns.seats import DECK_OF_POWER, POWERS, SIDE_OF_POWER
from games.clash_of_sovereigns.supplies import supplied
from referee.kit import Example, Fact


def standing(state: Mapping[str, Any], seat: str) -> list[Fact]:
    """Return a seat's facts, from its own view only."""
    mine = rules.view(state, seat)
    facts = [Fact("Your seat", f"{seat}: {', '.join(mine['your_powers'])}"), Fact("Now", mine["phase"])]
    for shown in mine["decks"].values():
        if "your_hand" in shown:
            items = tuple(
                f"{c['card']} {c['name']} ({c.get('cp', '?')} CP; {', '.join(c.get('uses', []))}): {c.get('text', '')}"
                for c in shown["your_hand"]
            )
            facts.append(Fact(f"Your hand of {shown['title']}", f"{len(items)} card(s)", items))
        in_play = shown.get("in_play") or []
        if in_play:
            facts.append(
                Fact(
                    f"In play ({shown['title']})",
                    f"{len(in_play)}",
                    tuple(f"{c.get('card')} {c.get('name', '')}: {c.get('text', '')}" for c in in_play),
                )
            )
    if mine["played"]:
        facts.append(
            Fact(
                "Just played (the phase before this one)",
                "",
                tuple(f"{p['power']}: {p['card']} {p['name']} as {p['use']}: {p['text']}" for p in mine["played"]),
            )
        )
    values = {key: track["value"] for key, track in mine["tracks"].items()}
    if state["cards"] is None:
        facts.append(Fact("Tracks (VP, Event VP, MW)", "set to their supplied starts when the decks are dealt"))
    else:
        by_power = tuple(
            f"{power}: VP {values[f'vp-{power}']}, Event VP {values[f'event-vp-{power}']}, MW {values[f'mw-{power}']}"
            for power in POWERS
        )
        facts.append(Fact("Tracks (VP, Event VP, MW)", "", by_power))
    facts.append(Fact("Awaited from you", _awaited(state, seat)))
    return facts


def _awaited(state: Mapping[str, Any], seat: str) -> str:
    spec = rules.phase(state)
    if spec is None:
        return "nothing: the game is over"
    if seat not in spec.active:
        return "nothing this phase"
    kind = state["step"]["kind"]
    if kind == "start":
        return "nothing yet: the decks are dealt when the referee has supplied the cards (an empty order is fine)"
    if kind == "battle" and not rules.fights(state, seat):
        fight = state["battles"][0]
        return (
            f"nothing needed: the battle at {fight['at']} is {fight['attacker'].title()}'s against "
            f"{fight['defender'].title()}'s (an empty order is fine; you may move a track or end a card in play)"
        )
    if kind == "battle":
        return "your force (commander, nations, cavalry SP, Worn) and any Tac cards, sealed"
    if kind in ("spring", "changing-aims"):
        return "a card for its Spring use, or nothing"
    if rules._is_mover(state, seat):
        return f"{state['step']['power'].title()}'s card: play one (operations, event...) or pass"
    return "your standing reactions for this turn (interrupts, interceptions, withdrawals), sealed; or nothing"


def example(state: Mapping[str, Any], seat: str) -> Example | None:
    """Return a seat's own order form, naming only the fields it may give now: the mover's first
    card played for operations; an opponent's reactions; in a battle, a side's force."""
    if state["step"]["kind"] == "over":
        return None
    found = _own_example(state, seat) or Example({})
    fields = rules._fields(state, seat)
    if state["step"]["kind"] == "power" and seats.side_of_seat(state, seat) == SIDE_OF_POWER[state["step"]["power"]]:
        fields = tuple(name for name in fields if name != "reactions")  # an ally has nothing to react to
    return dataclasses.replace(found, fields=fields)


def _own_example(state: Mapping[str, Any], seat: str) -> Example | None:
    if state["step"]["kind"] == "battle" and rules.fights(state, seat):
        return _battle_example(state, seat)
    if state["step"]["kind"] != "power":
        return None
    if not rules._is_mover(state, seat):
        return _reactions_example(state, seat)
    mine = rules.view(state, seat)
    deck = mine["decks"].get(DECK_OF_POWER[state["step"]["power"]])
    if deck is None or not deck.get("your_hand"):
        return Example({"pass": True}, {"orders.pass": "you hold no card: pass"})
    card = deck["your_hand"][0]
    uses = card.get("uses", [])
    use = "operations" if "operations" in uses else uses[0] if uses else "operations"
    return Example(
        {"play": {"card": card["card"], "as": use, "operations": []}},
        {
            "orders.play.card": f"one of yours: {', '.join(c['card'] for c in deck['your_hand'])}",
            "orders.play.as": "one of the card's uses",
        },
    )


def _reactions_example(state: Mapping[str, Any], seat: str) -> Example | None:
    """An opponent's form: its standing reactions, empty, with what each list takes."""
    power = state["step"]["power"]
    if seats.side_of_seat(state, seat) == SIDE_OF_POWER[power]:
        return None  # an ally's turn: nothing to react to
    return Example(
        {"reactions": {"interrupt": [], "intercept": [], "withdraw": [], "naval_intercept": False}},
        {
            "orders.reactions": f"sealed; each opened only if {power.title()}'s turn triggers it",
            "orders.reactions.interrupt": "{card, when_enters: SPACE, raid: {space, enemy_sp}}: an interrupt card",
            "orders.reactions.intercept": "{when_enters: SPACE, leader}: roll to intercept there (9.2)",
            "orders.reactions.withdraw": "{when_battle_at: SPACE, to: SPACE}: roll to withdraw (10.2)",
            "orders.reactions.naval_intercept": "true: roll against any fleet sortie this turn (16.3)",
        },
    )


def _battle_example(state: Mapping[str, Any], seat: str) -> Example:
    fight = state["battles"][0]
    power = fight["attacker"] if rules.seat_of_power(state, fight["attacker"]) == seat else fight["defender"]
    ratings = supplied(state, "ratings") or {"leaders": [], "armies": []}
    leaders = [item["name"] for item in ratings["leaders"] if item["power"] == power]
    nation = next((a["nation"] for a in ratings["armies"] if a["nation"].startswith(power[:3])), power)
    force = {
        "commander": leaders[0] if leaders else "a leader",
        "nations": [{"nation": nation, "sp": 10}],
        "cavalry_sp": 0,
    }
    return Example(
        {"force": force, "tac": []},
        {
            "orders.force.commander": f"{power}'s commander: {', '.join(leaders) or 'see the ratings'}",
            "orders.tac": "Tac cards from your hand",
        },
    )
