"""Where a `moderator` player stands, and their own order form: drawn from their view (their
hand, their hidden notes, the round) and from the referee's tables, which every player may read.

The form asks for one plain roll, and one roll on each of the first tables with the modifiers
each accepts listed beside it; card actions stay an empty list (a form sent unchanged must
not play a card), with the player's own cards named in the comment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from games.moderator.rules import LABEL, phase, tables_of, view
from referee.kit import Example, Fact, Table

TABLES_IN_FORM = 3  # roll requests on tables the form fills in; the standing lists every table
_LABEL = re.compile(LABEL)


def standing(state: Mapping[str, Any], player: str) -> list[Fact]:
    """Return where `player` stands: the round, their hands, their hidden notes, the tables."""
    seen = view(state, player)
    last = f" of {seen['rounds']}" if seen["rounds"] else " (no last round set)"
    facts = [Fact("Round", f"{seen['round']}{last}")] if "turn" not in seen else _procedure_facts(seen)
    for deck in seen["decks"].values():
        if deck["owner"] not in (None, player):
            continue  # another player's own deck: only its size would show
        hand = deck.get("your_hand")
        others = ", ".join(f"{who} {count}" for who, count in deck["hand_sizes"].items() if who != player)
        pile = f"draw pile {deck['draw_pile']}" + (f"; other hands: {others}" if others else "")
        if not deck["shuffles"]:
            pile = f"draw pile {deck['draw_pile']}, dealt when round 1 is adjudicated"
        if hand is not None:
            cards = tuple(f"{card['name']} (id {card['card']}){_data_text(card)}" for card in hand)
            held = f"{len(hand)} card{'' if len(hand) == 1 else 's'}"
            facts.append(Fact(f"Your hand of {deck['title']} ({deck['deck']})", f"{held}; {pile}", cards))
        else:
            facts.append(Fact(f"Deck {deck['title']} ({deck['deck']})", pile))
        if deck.get("in_play"):
            lines = tuple(
                f"{card['name']} (id {card['card']}), by {card['by']}"
                + (f" as {card['use']}" if card.get("use") else "")
                + _data_text(card)
                for card in deck["in_play"]
            )
            facts.append(Fact(f"In play from {deck['title']} ({deck['deck']})", str(len(lines)), lines))
        if deck.get("set_aside"):
            lines = tuple(f"{card['name']} (id {card['card']})" for card in deck["set_aside"])
            facts.append(Fact(f"Set aside from {deck['title']} ({deck['deck']})", str(len(lines)), lines))
    mine = [note for note in seen["hidden_notes"] if note.get("by") == player and not note.get("revealed")]
    if mine:
        notes = tuple(f"{note['id']} (round {note['round']})" for note in mine)
        facts.append(Fact("Your hidden notes, not yet revealed", str(len(mine)), notes))
    tables = tables_of(state)
    if tables.names():
        facts.append(Fact("Tables you may roll on", "", tuple(_table_line(tables.get(t)) for t in tables.names())))
    spec = phase(state)
    if spec is not None and player in spec.active:
        awaited = f"round {seen['round']}" if "turn" not in seen else spec.title
        facts.append(Fact("Awaited from you", f"your orders for {awaited}"))
    return facts


def _data_text(card: Mapping[str, Any]) -> str:
    """Return a card's data as ": cp 3, period early; TEXT", or nothing for a card without any."""
    data = dict(card.get("data") or {})
    if not data:
        return ""
    text = data.pop("text", None)
    fields = ", ".join(f"{name} {value}" for name, value in data.items())
    return ": " + "; ".join(part for part in (fields, text) if part)


def _procedure_facts(seen: Mapping[str, Any]) -> list[Fact]:
    """Return the turn (with its calendar label and phase), the tracks and the public lists."""
    last = f" of {seen['rounds']}" if seen["rounds"] else ""
    when = f"{seen['turn']}{last}" + (f", {seen['calendar']}" if "calendar" in seen else "")
    facts = [Fact("Turn", when)]
    if "sequence" in seen:
        steps = tuple(
            f"{step['title']} ({step['name']}): {', '.join(step['active'])}"
            + (" <- now" if step["name"] == seen["phase"] and not seen.get("ended") else "")
            for step in seen["sequence"]
        )
        facts.append(Fact("Sequence of play", "who gives orders in each phase", steps))
    if seen.get("ended"):
        facts.append(Fact("Game over", seen["ended"]["text"]))
    if "tracks" in seen:
        lines = tuple(
            f"{track['title']} ({track_id}): {track['value']}"
            + (f" (the game ends at {track['ends_game_at']})" if track["ends_game_at"] is not None else "")
            for track_id, track in seen["tracks"].items()
        )
        facts.append(Fact("Tracks", "", lines))
    for list_id, members in seen.get("lists", {}).items():
        facts.append(Fact(f"List {list_id}", ", ".join(members) or "empty"))
    return facts


def _table_line(table: Table) -> str:
    modifiers = ", ".join(table.describe_modifier(name) for name in table.modifier_names) or "none"
    columns = f"; columns: {', '.join(table.columns)}" if table.columns else ""
    return f"{table.id} ({table.title}): {table.dice.text}; modifiers: {modifiers}{columns}"


def example(state: Mapping[str, Any], player: str) -> Example | None:
    """Return `player`'s order form: a plain roll and a roll on each of the first tables, the
    card actions their hand allows named in a comment."""
    spec = phase(state)
    if spec is None or player not in spec.active:
        return None
    orders: dict[str, Any] = {"rolls": [{"label": "first-roll", "dice": "2d6", "purpose": "what this roll decides"}]}
    notes = {
        "orders.rolls[].label": "your name for the roll (a-z, 0-9, - _ .)",
        "orders.rolls[].dice": "2d6, 3d6, 1d10, 1d10z (a d10 read 0-9)...",
        "orders.rolls[].purpose": "what the roll is for, in words",
    }
    tables = tables_of(state)
    for index, name in enumerate(tables.names()[:TABLES_IN_FORM], start=1):
        table = tables.get(name)
        label = f"{name}-roll" if _LABEL.fullmatch(f"{name}-roll") else f"table-roll-{index}"
        request: dict[str, Any] = {"label": label, "table": name, "purpose": f"a roll on {table.title}"}
        path = f"orders.rolls[{index}]"
        notes[f"{path}.table"] = f"{table.title}, read with {table.dice.text} (leave 'dice' out)"
        request["modifiers"] = []
        accepted = ", ".join(f"{m} ({v:+d})" for m, v in table.modifiers.items())
        notes[f"{path}.modifiers"] = f"any of: {accepted}" if accepted else "this table has no modifiers"
        if table.columns:
            request["column"] = table.columns[0]
            notes[f"{path}.column"] = f"one of: {', '.join(table.columns)}"
        orders["rolls"].append(request)
    if spec.example is not None and "cards" in spec.example:
        orders["cards"] = []
        notes["orders.cards"] = _card_note(view(state, player)["decks"], player)
    return Example(orders, notes)


def _card_note(decks: Mapping[str, Any], player: str) -> str:
    """Return what the form's card actions say: the player's own cards, and how to act on them."""
    held = [(deck["deck"], card) for deck in decks.values() for card in deck.get("your_hand", [])]
    decks = {key: deck for key, deck in decks.items() if deck["owner"] in (None, player)}
    if not held:
        first = next(iter(decks), "DECK")
        return f"card actions, in order; e.g. {{draw: {first}, count: 1}}"
    deck, card = held[0]
    names = ", ".join(f"{c['card']} ({c['name']})" for _, c in held)
    return f"you hold {names}; e.g. {{play: {card['card']}, deck: {deck}}} or {{draw: {deck}}}"
