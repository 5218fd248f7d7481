"""Rules of `moderator`: each round, every player may request labelled die rolls (read
against the referee's tables, with named modifiers), seal a declaration, leave a note, act on
the game's decks of cards, and write hidden notes. Rolls, declarations and notes are revealed
to every player when the round is adjudicated; cards in hands and draw piles, and hidden notes,
only to whoever may see them (README.md, "What each player sees").

Round 1's adjudication shuffles every deck and deals it before anything else: `setup` gets no
dice, so that nothing is drawn before the first commitment. Card actions therefore start in
round 2. Each round resolves player by player (in name order), and each player's orders in
this order: rolls, card actions (in their list's order), hidden note, reveals, declaration, note.

A game's options may give it a procedure (`procedure.py`): a sequence of phases a turn, each
with its fixed active players, deadline and scheduled rolls; a calendar; public tracks, one of
which may end the game; public lists. Without them a game is played exactly as before.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from referee.kit import (
    Dice,
    Event,
    GameDataError,
    InPlay,
    PhaseSpec,
    Problem,
    Secret,
    Tables,
    decks,
    parse_tables,
    thaw,
)
from referee.kit.procedure import procedure, sequence
from referee.kit.procedure.hidden_notes import (
    NOTE_SCHEMA,
    REVEAL_SCHEMA,
    note_problems,
    note_secrets,
    note_view,
    notes_in_play,
    reveal_notes,
    seal_note,
)
from referee.kit.procedure.rolls import LABEL as LABEL  # what standing.py and tests name
from referee.kit.procedure.rolls import PLAIN_ROLL_SCHEMA, ROLL_SCHEMA, roll_problems, roll_request
from referee.kit.procedure.rolls import roll_label as roll_label

PHASE = "round"
MAX_ROLLS = 5000
OPTIONS = {
    "rounds": "how many rounds (turns, with a sequence) the game lasts (a whole number; leave out for no limit)",
    "tables": "the referee's die-roll tables (a tables file or mapping; see docs)",
    "lists": "public lists of names, to pick from at random and to make a scheduled roll for each: "
    "{ID: [NAME, ...]} (see README.md, Follow-ups and Public lists)",
    "decks": "the game's decks of cards: {ID: {title, cards: [{id, name, count, text, FIELD...}], owner or "
    "per_player, hand_limit, deal, discard, reshuffle, fields, uses, set_aside}} (see README.md)",
    "history": "what the state keeps of declarations and notes: last-round (written into every new "
    "game's configuration) or every-round (games begun before; left out, it means every-round)",
    "sequence": "the phases of a turn: [{name, title, active: [PLAYER...] or all, deadline, scheduled: "
    "[{label, table or dice, purpose, per}]}] (see README.md; without it, one round a turn, everyone active)",
    "calendar": "turn labels: {start: YEAR, per_year: [LABEL, ...]}",
    "tracks": "public counters: {ID: {title, start, min, max, ends_game_at}}",
    "roll_requests": "what a roll request may hold: follow-ups (then:, numeric modifiers; written into every "
    "new game's configuration) or plain (games begun before; left out, it means plain)",
}
HISTORIES = ("last-round", "every-round")
ROLL_REQUESTS = ("follow-ups", "plain")
# New games keep only the last round's declarations and notes (the records hold every round's),
# and take follow-ups and numeric modifiers in their roll requests. A game begun before keeps what
# it began with, so that its notices, states and records replay in `referee audit` as they were.
NEW_GAME_OPTIONS = {"history": "last-round", "roll_requests": "follow-ups"}
MAX_CARD_ACTIONS = 50

ORDER_SCHEMA: dict[str, Any] = {
    "type": "map",
    "fields": {
        "rolls": {"type": "list", "max": MAX_ROLLS, "items": ROLL_SCHEMA, "description": "roll requests"},
        "declaration": {"type": "any", "description": "a sealed declaration (bid, plan...), revealed with the report"},
        "note": {"type": "str", "max": 4000, "description": "a note to every player"},
        "cards": {
            "type": "list",
            "max": MAX_CARD_ACTIONS,
            "items": decks.CARD_ACTION_SCHEMA,
            "description": "card actions, carried out in this order",
        },
        "hidden_note": NOTE_SCHEMA,
        "reveal": REVEAL_SCHEMA,
    },
}
# Decks of a card-driven game (card data, uses or set-aside cards) take every action: give,
# show, take, put_in_play, end_in_play, bring_in and a play's use. Other decks keep the classic
# actions, so the notices of games begun before say what they said.
CARD_DRIVEN_ACTIONS: dict[str, Any] = {**ORDER_SCHEMA["fields"]["cards"], "items": decks.CARD_DRIVEN_ACTION_SCHEMA}
# A game without decks takes no card actions: its notices do not describe them.
ORDER_SCHEMA_WITHOUT_CARDS: dict[str, Any] = {
    "type": "map",
    "fields": {k: v for k, v in ORDER_SCHEMA["fields"].items() if k != "cards"},
}
# The same, for games whose roll requests are plain (see NEW_GAME_OPTIONS).
_PLAIN_ROLLS = {"type": "list", "max": MAX_ROLLS, "items": PLAIN_ROLL_SCHEMA, "description": "roll requests"}
PLAIN_ORDER_SCHEMA = {"type": "map", "fields": {**ORDER_SCHEMA["fields"], "rolls": _PLAIN_ROLLS}}
PLAIN_ORDER_SCHEMA_WITHOUT_CARDS = {
    "type": "map",
    "fields": {**ORDER_SCHEMA_WITHOUT_CARDS["fields"], "rolls": _PLAIN_ROLLS},
}
EXAMPLE = {
    "rolls": [{"label": "first-roll", "dice": "2d6", "purpose": "what this roll decides"}],
}


def roles(scenario: str, options: Mapping[str, Any]) -> None:
    """Any names may play: the players' names are the roles."""
    return None


def setup(scenario: str, players: Sequence[str], options: Mapping[str, Any]) -> dict[str, Any]:
    """Return the state before round 1: the decks unshuffled (round 1's adjudication deals)."""
    rounds = options.get("rounds")
    if rounds is not None and (isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1):
        raise GameDataError(f"option 'rounds' must be a whole number of at least 1, got {rounds!r}")
    history = options.get("history", "every-round")
    if history not in HISTORIES:
        raise GameDataError(f"option 'history' must be one of {', '.join(HISTORIES)}, got {history!r}")
    requests = options.get("roll_requests", "plain")
    if requests not in ROLL_REQUESTS:
        raise GameDataError(f"option 'roll_requests' must be one of {', '.join(ROLL_REQUESTS)}, got {requests!r}")
    definitions = decks.parse_decks(options.get("decks"), players)
    tables = options.get("tables") or {}
    steps = procedure.setup(
        options, players, Tables(parse_tables(tables, "the game's configuration") if tables else {})
    )
    return {
        "round": 1,
        "rounds": rounds,
        "players": sorted(players),
        "tables": options.get("tables") or {},
        "declarations": [],
        "notes": [],
        "last_rolls": [],
        "cards": decks.new_decks(definitions, players),
        "hidden_notes": [],
        # A game begun before the option keeps the state it began with (no key): it replays as played.
        **({"history": history} if history != "every-round" else {}),
        **({"roll_requests": requests} if requests != "plain" else {}),
        **steps,
    }


def _kept(state: Mapping[str, Any], key: str, this_round: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the state's declarations or notes after this round: this round's alone (history
    last-round), or every round's so far (games begun before, whose states kept them all)."""
    entry = [{"round": state["round"], "by": this_round}] if this_round else []
    if state.get("history") == "last-round":
        return entry
    return [*state[key], *entry]


def _cards(state: Mapping[str, Any]) -> Mapping[str, Any]:
    """Return the decks' state (a game begun before decks existed has none)."""
    return state.get("cards") or decks.new_decks({}, state["players"])


def _is_dealt(state: Mapping[str, Any]) -> bool:
    cards = _cards(state)
    return bool(cards["decks"]) and all(decks.is_started(cards, deck) for deck in cards["decks"])


def phase(state: Mapping[str, Any]) -> PhaseSpec | None:
    """Return the open phase (a round, or the sequence's phase of the open turn), or None once
    the last turn is played or a track's trigger has ended the game."""
    turn, step = sequence.position(state)
    if (state["rounds"] is not None and turn > state["rounds"]) or procedure.is_over(state):
        return None
    schema = _order_schema(state)
    added = procedure.order_fields(state)
    return PhaseSpec(
        turn=turn,
        name=PHASE if step is None else step["name"],
        active=tuple(state["players"] if step is None else step["active"]),
        sealed=True,
        schema={**schema, "fields": {**schema["fields"], **added}} if added else schema,
        default_orders={},
        example={**EXAMPLE, "cards": []} if _is_dealt(state) else EXAMPLE,
        title=procedure.spec_title(state),
    )


def _order_schema(state: Mapping[str, Any]) -> dict[str, Any]:
    """Return the orders' schema: card actions only with decks, follow-ups only in games that take them."""
    cards = bool(_cards(state)["decks"])
    if state.get("roll_requests") == "follow-ups":
        schema = ORDER_SCHEMA if cards else ORDER_SCHEMA_WITHOUT_CARDS
    else:
        schema = PLAIN_ORDER_SCHEMA if cards else PLAIN_ORDER_SCHEMA_WITHOUT_CARDS
    if cards and decks.is_card_driven(_cards(state)):
        return {**schema, "fields": {**schema["fields"], "cards": CARD_DRIVEN_ACTIONS}}
    return schema


def tables_of(state: Mapping[str, Any]) -> Tables:
    """Return the referee's tables: part of the game's configuration, which every player may read.
    Parsed once for every player's validation, standing and order form (`repr` of plain data
    tells apart what parses differently: 1 and "1", 1 and 1.0, True and 1)."""
    data = state["tables"]
    if not data:
        return Tables({})
    key = repr(thaw(data))
    tables = _parsed_tables.get(key)
    if tables is None:
        tables = Tables(parse_tables(data, "the game's configuration"))
        if len(_parsed_tables) >= PARSED_TABLES_KEPT:
            _parsed_tables.clear()
        _parsed_tables[key] = tables
    return tables


_parsed_tables: dict[str, Tables] = {}
PARSED_TABLES_KEPT = 8


def validate(state: Mapping[str, Any], player: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return the problems with a player's orders: duplicate labels, bad dice, unknown tables,
    card actions the state does not allow, hidden notes and reveals."""
    problems = roll_problems(
        tables_of(state), state.get("lists", {}), state.get("hidden_notes", []), state["players"], player, orders
    )
    problems += decks.action_problems(_cards(state), player, orders.get("cards") or [], "orders.cards")
    problems += note_problems(state.get("hidden_notes", []), state["players"], player, orders)
    return problems + procedure.order_problems(state, orders)


def resolve(
    state: Mapping[str, Any], orders: Mapping[str, Mapping[str, Any]], dice: Dice
) -> tuple[dict[str, Any], list[Event]]:
    """Deal the decks in round 1; then, player by player, roll every request, carry out the card
    actions, seal the hidden note, reveal notes, and reveal declarations and notes."""
    tables = tables_of(state)
    events: list[Event] = []
    rolled: list[dict[str, Any]] = []
    declarations: dict[str, Any] = {}
    notes: dict[str, str] = {}
    cards: Mapping[str, Any] = _cards(state)
    if not all(decks.is_started(cards, deck) for deck in cards["decks"]):
        cards, dealt = decks.start(cards, dice)
        events += dealt
    hidden: list[dict[str, Any]] = [dict(note) for note in state.get("hidden_notes", [])]
    for event in procedure.before_orders(state, tables, dice):
        events.append(event)
        rolled.append(_summary(event.data))
    for player in sorted(orders):
        order = orders[player]
        for request in order.get("rolls") or []:
            happened = roll_request(player, request, tables, dice, state.get("lists", {}), hidden)
            events += happened
            rolled += [_summary(event.data) for event in happened if event.kind in ("roll", "pick")]
        for action in order.get("cards") or []:
            cards, happened = decks.apply_action(cards, player, action, dice)
            events += happened
        if order.get("hidden_note") is not None:
            hidden, happened = seal_note(hidden, state["round"], player, order["hidden_note"], dice)
            events += happened
        if order.get("reveal"):
            hidden, happened = reveal_notes(hidden, state["round"], player, order["reveal"])
            events += happened
        if order.get("declaration") is not None:
            declarations[player] = order["declaration"]
            events.append(
                Event(
                    "declaration.revealed",
                    f"{player} declared: {_short(order['declaration'])}",
                    {"player": player, "declaration": order["declaration"]},
                )
            )
        if order.get("note"):
            notes[player] = order["note"]
            events.append(Event("note", f"{player} notes: {order['note']}", {"player": player, "note": order["note"]}))
    new_state = {
        **state,
        "round": state["round"] + 1,
        "declarations": _kept(state, "declarations", declarations),
        "notes": _kept(state, "notes", notes),
        "last_rolls": rolled,
        "cards": cards,
        "hidden_notes": hidden,
    }
    new_state, happened = procedure.after_orders(new_state, orders, [e for e in events if e.kind.startswith("roll")])
    return new_state, events + happened


def _summary(roll: Mapping[str, Any]) -> dict[str, Any]:
    """Return the little a state keeps of a roll or a pick: the report and the record hold the rest
    (a pick from a sealed note keeps only the lines picked, not the items)."""
    if "values" not in roll:
        return {
            "label": roll["label"],
            **({"picked": roll["picked"]} if "picked" in roll else {"lines": roll["lines"]}),
        }
    summary = {"label": roll["label"], "values": roll["values"]}
    if "lookup" in roll:
        summary["result"] = roll["lookup"]["result"]
    return summary


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 200 else text[:197] + "..."


def view(state: Mapping[str, Any], player: str | None) -> dict[str, Any]:
    """Return what a player (or the public) sees: rolls, declarations and notes (all revealed at
    adjudication), the decks as `player` may see them, and the hidden notes they may read."""
    return {
        "game": "moderator",
        "you": player,
        "round": state["round"],
        "rounds": state["rounds"],
        "players": list(state["players"]),
        "tables": sorted(state["tables"].get("tables", {})) if state["tables"] else [],
        "declarations": list(state["declarations"]),
        "notes": list(state["notes"]),
        "last_rolls": list(state["last_rolls"]),
        "decks": decks.deck_view(_cards(state), player),
        "hidden_notes": [note_view(note, player) for note in state.get("hidden_notes", [])],
        **procedure.view(state),
    }


def secrets(state: Mapping[str, Any]) -> list[Secret]:
    """Return every hidden leaf of the state with who may see it: cards in draw piles (no one),
    in hands (their holder), discarded face down (their discarder), and hidden notes not yet
    revealed (their writer and readers)."""
    found = decks.secrets(_cards(state), "/cards") if "cards" in state else []
    return found + note_secrets(state.get("hidden_notes", []), "/hidden_notes")


def in_play(state: Mapping[str, Any]) -> list[InPlay]:
    """Return the hidden draws that still hide something: shuffles with cards in draw piles, in
    hands or face down, and hidden notes not yet revealed."""
    found = decks.in_play(_cards(state)) if "cards" in state else []
    return found + notes_in_play(state.get("hidden_notes", []))


def check(state: Mapping[str, Any]) -> list[str]:
    """Return broken invariants of the state."""
    problems = []
    if state["round"] < 1:
        problems.append("round below 1")
    if state["rounds"] is not None and sequence.turns_done(state) > state["rounds"]:
        problems.append("round past the last round")
    if sorted(state["players"]) != list(state["players"]):
        problems.append("players not sorted")
    problems += decks.check(_cards(state))
    for note in state.get("hidden_notes", []):
        if note["opening"]["value"] != note["text"]:
            problems.append(f"hidden note {note['opening']['label']}: its opening is not its text")
    return problems + procedure.check(state)
