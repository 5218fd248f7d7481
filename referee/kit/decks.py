"""Decks of cards as plain data: definitions, hidden draw piles, hands and discards (docs/decks.md).

Pure functions over plain JSON data, no I/O. An operation takes the decks' state and returns a
new state with the events that say what happened, each visible only to whoever may know it:

    start(state, dice)                                  shuffle every new deck, then deal
    shuffle(state, deck, dice)                          a new hidden shuffle of the draw pile
    deal(state, deck, dice)                             `deal` cards to each holder, one at a time
    draw(state, deck, player, count, dice)              up to the hand limit
    look(state, deck, player, count, dice)              see the top cards without drawing
    play(state, deck, player, card, dice)               hand -> discard pile, face up
    discard(state, deck, player, card, dice)            face up or down, as the deck says
    remove(state, deck, player, card, dice)             out of the game, shown to all
    return_card(state, deck, player, card, to, dice)    to the top, the bottom, or shuffled in
    reshuffle(state, deck, dice)                        the discard pile shuffled into the draw pile

For card-driven games (issue 20):

    card_data(state, deck, card)                        a card's fields and text, public rules data
    bring_in(state, deck, cards, dice)                  set-aside cards into the draw pile, shuffled
    put_in_play(state, deck, player, card, dice, use)   hand -> in play, face up, staying there
    end_in_play(state, deck, card, to, dice)            in play -> discard pile or removed
    give(state, deck, from_player, to_player, card, dice)   one hand to another
    take_at_random(state, deck, player, dice, to, shown_to) a random card of a hand, by a roll
    show(state, deck, player, cards, to_players, dice)  the chosen players see the cards

A shuffle is `dice.hidden_shuffle`: the record commits to the card at each position without
showing it. Every card keeps the opening of its position (its proof) wherever it goes: the
player who draws it receives the opening, and everyone does when it is played face up. `dice`
is used only when an operation shuffles (a draw from an empty pile reshuffles the discards).

Orders name actions as data (`{draw: strategy, count: 2}`); `action_problems` checks a
player's list of them against the state and `apply_action` carries one out. `deck_view` and
`secrets` say what each player may see. The operations live in `referee.kit.deck_moves`; this
module is the one games use (through `referee.kit.decks`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from referee.errors import GameDataError
from referee.kit.contract import Dice, Event, InPlay
from referee.kit.deck_moves import (
    ENDS,
    MAX_CARDS,
    PLACES,
    DeckError,
    DecksState,
    Use,
    Where,
    bring_in,
    card_data,
    card_name,
    cards_of,
    deal,
    deck_ids,
    defined_cards,
    definition_of,
    discard,
    draw,
    end_in_play,
    give,
    is_started,
    look,
    make_event,
    new_decks,
    play,
    put_in_play,
    remove,
    reshuffle,
    resolve_deck,
    return_card,
    set_aside_cards,
    show,
    shuffle,
    shuffle_label,
    start,
    take_at_random,
)
from referee.protocol.canonical import thaw
from referee.protocol.problems import Problem

__all__ = [
    "CARD_ACTION_SCHEMA",
    "CARD_DRIVEN_ACTION_SCHEMA",
    "ENDS",
    "PLACES",
    "DeckError",
    "DecksState",
    "Use",
    "Where",
    "action_problems",
    "apply_action",
    "bring_in",
    "card_data",
    "card_name",
    "cards_of",
    "check",
    "deal",
    "deck_ids",
    "deck_view",
    "defined_cards",
    "discard",
    "draw",
    "end_in_play",
    "give",
    "is_card_driven",
    "is_started",
    "look",
    "new_decks",
    "parse_decks",
    "play",
    "proof",
    "put_in_play",
    "remove",
    "reshuffle",
    "resolve_deck",
    "return_card",
    "secrets",
    "set_aside_cards",
    "show",
    "shuffle",
    "shuffle_label",
    "start",
    "take_at_random",
]

DECK_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
CARD_ID = re.compile(r"[a-z0-9][a-z0-9_.-]{0,47}")
DECK_REF = r"[a-z0-9][a-z0-9_-]{0,31}(/[a-z0-9][a-z0-9_.-]{0,63})?"
DEFINITION_FIELDS = ("title", "cards", "owner", "per_player", "hand_limit", "deal", "discard", "reshuffle")
# Optional, for card-driven games: kept in a parsed definition only when given, so the state of
# decks defined before them keeps its bytes.
DATA_FIELDS = ("fields", "uses", "set_aside")
CARD_FIELDS = ("id", "name", "count")
CARD_DATA_FIELDS = ("text", "set_aside")
FIELD_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
FIELD_TYPES = ("int", "bool", "text")
USE_WORD = re.compile(r"[a-z][a-z0-9_-]{0,31}")
MAX_TEXT = 4000
DISCARD_MODES = ("face-up", "face-down")
RESHUFFLE_MODES = ("when-empty", "never")
MAX_COPIES = 100
MAX_COUNT = 100
HINT = "a deck is {title, cards: [{id, name, count}], owner or per_player, hand_limit, deal, discard, reshuffle}"

# The actions orders may name, each with the fields it takes besides its verb.
VERBS: dict[str, tuple[str, ...]] = {
    "draw": ("count",),
    "look": ("count",),
    "play": ("deck", "use"),
    "discard": ("deck",),
    "return": ("deck", "to"),
    "remove": ("deck",),
    "reshuffle": (),
    "shuffle": (),
    "give": ("deck", "to"),
    "show": ("deck", "to"),
    "take": ("from", "to"),
    "put_in_play": ("deck", "use"),
    "end_in_play": ("deck", "to"),
    "bring_in": ("cards",),
}
ON_A_DECK = ("draw", "look", "reshuffle", "shuffle", "take", "bring_in")  # the verb's value is the deck
_DECK_FIELD = {"type": "str", "pattern": DECK_REF, "example": "strategy"}
_CARD_FIELD = {"type": "str", "pattern": CARD_ID.pattern, "example": "blockade"}
_WHO = r"[A-Za-z0-9_.-]{1,64}"
_CLASSIC = ("draw", "look", "play", "discard", "return", "remove", "reshuffle", "shuffle")
# The schema of one action as games knew it before card-driven decks: its notices keep their words.
CARD_ACTION_SCHEMA: dict[str, Any] = {
    "type": "map",
    "description": "one card action: exactly one of " + ", ".join(_CLASSIC),
    "fields": {
        "draw": {**_DECK_FIELD, "description": "draw `count` cards (default 1) from this deck"},
        "look": {**_DECK_FIELD, "description": "see the top `count` cards (default 1) of this deck"},
        "play": {**_CARD_FIELD, "description": "play this card from your hand, face up"},
        "discard": {**_CARD_FIELD, "description": "discard this card from your hand"},
        "return": {**_CARD_FIELD, "description": "put this card from your hand back into its deck (see `to`)"},
        "remove": {**_CARD_FIELD, "description": "remove this card (your hand, else the face-up discards)"},
        "reshuffle": {**_DECK_FIELD, "description": "shuffle this deck's discard pile into its draw pile"},
        "shuffle": {**_DECK_FIELD, "description": "shuffle this deck's draw pile"},
        "deck": {**_DECK_FIELD, "description": "the card's deck (with play, discard, return, remove)"},
        "count": {"type": "int", "min": 1, "max": MAX_COUNT, "description": "how many cards (draw, look)"},
        "to": {"type": "str", "enum": list(PLACES), "description": "where a returned card goes"},
    },
}
# Every action, card-driven ones too: for a game whose decks are card-driven (`is_card_driven`).
CARD_DRIVEN_ACTION_SCHEMA: dict[str, Any] = {
    "type": "map",
    "description": "one card action: exactly one of " + ", ".join(VERBS),
    "fields": {
        **CARD_ACTION_SCHEMA["fields"],
        "play": {**_CARD_FIELD, "description": "play this card from your hand, face up (`use`: how)"},
        "give": {**_CARD_FIELD, "description": "give this card from your hand to the player `to`"},
        "show": {
            "type": "str",
            "pattern": f"hand|{CARD_ID.pattern}",
            "example": "blockade",
            "description": "show this card of your hand (or `hand`: all of it) to the player `to`",
        },
        "take": {
            **_DECK_FIELD,
            "description": "take a card at random from the hand of `from` (default yours) to `to` (default discard)",
        },
        "put_in_play": {**_CARD_FIELD, "description": "play this card face up into play, where it stays (`use`: how)"},
        "end_in_play": {**_CARD_FIELD, "description": "take this card out of play, to `to`: discard or removed"},
        "bring_in": {
            **_DECK_FIELD,
            "description": "shuffle this deck's set-aside `cards` (default all) into its draw pile",
        },
        "deck": {**_DECK_FIELD, "description": "the card's deck (with play, discard, return, remove, give, show...)"},
        "to": {
            "type": "str",
            "pattern": _WHO,
            "description": "where the card goes: top, bottom or shuffle (return); a player (give, show); "
            "discard, removed or a player (take); discard or removed (end_in_play)",
        },
        "from": {"type": "str", "pattern": _WHO, "description": "whose hand a card is taken from at random (take)"},
        "use": {"type": "str", "pattern": USE_WORD.pattern, "example": "event", "description": "how the card is used"},
        "cards": {
            "type": "list",
            "max": MAX_COUNT,
            "items": _CARD_FIELD,
            "description": "the set-aside cards to bring in (bring_in), a copy once each",
        },
    },
}


def is_card_driven(state: Mapping[str, Any]) -> bool:
    """Return whether any deck is defined for a card-driven game (declaring `fields`, `uses` or
    `set_aside`): its orders take every action (`CARD_DRIVEN_ACTION_SCHEMA`)."""
    return any(key in definition for definition in state["definitions"].values() for key in DATA_FIELDS)


# -- definitions --------------------------------------------------------------------------


def parse_decks(data: Any, players: Sequence[str], where: str = "options.decks") -> dict[str, dict[str, Any]]:
    """Return the deck definitions in `data`, complete with defaults; raise GameDataError naming
    the path of the first mistake."""
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        _fail(where, f"must be a mapping of deck ids to decks, got {_kind(data)}")
    definitions: dict[str, dict[str, Any]] = {}
    for deck_id, definition in data.items():
        if not isinstance(deck_id, str) or not DECK_ID.fullmatch(deck_id):
            _fail(where, f"deck id {deck_id!r} must be lower-case letters, digits, '-' or '_' (at most 32)")
        definitions[deck_id] = _definition(definition, sorted(players), f"{where}.{deck_id}")
    return definitions


def _definition(data: Any, players: list[str], where: str) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        _fail(where, f"must be a mapping, got {_kind(data)}")
    unknown = sorted(str(key) for key in data if key not in (*DEFINITION_FIELDS, *DATA_FIELDS))
    if unknown:
        known = ", ".join((*DEFINITION_FIELDS, *DATA_FIELDS))
        _fail(where, f"unknown field(s) {', '.join(unknown)}; known fields: {known}")
    title = data.get("title", where.rpartition(".")[2])
    if not isinstance(title, str) or not title.strip():
        _fail(f"{where}.title", "must be a text")
    fields = _fields(data["fields"], f"{where}.fields") if "fields" in data else {}
    uses = _uses(data["uses"], f"{where}.uses") if "uses" in data else None
    set_aside_when = _set_aside_when(data["set_aside"], fields, f"{where}.set_aside") if "set_aside" in data else {}
    cards = _cards(data.get("cards"), f"{where}.cards", fields, set_aside_when)
    owner, per_player = data.get("owner"), data.get("per_player", False)
    if not isinstance(per_player, bool):
        _fail(f"{where}.per_player", "must be true or false")
    if owner is not None and owner not in players:
        _fail(f"{where}.owner", f"{owner!r} is not a player; players: {', '.join(players)}")
    if owner is not None and per_player:
        _fail(where, "give 'owner' (one player's deck) or 'per_player: true' (a copy each), not both")
    hand_limit = data.get("hand_limit")
    if hand_limit is not None and not _is_count(hand_limit, 1):
        _fail(f"{where}.hand_limit", f"must be a whole number of at least 1, or null for none; got {hand_limit!r}")
    deal = data.get("deal", 0)
    if not _is_count(deal, 0):
        _fail(f"{where}.deal", f"must be a whole number of cards (0 or more), got {deal!r}")
    if hand_limit is not None and deal > hand_limit:
        _fail(f"{where}.deal", f"deals {deal} cards, over the hand limit of {hand_limit}")
    total = sum(card["count"] for card in cards if not card.get("set_aside"))
    if not total:
        _fail(f"{where}.cards", "every card is set aside: at least one must start in the draw pile")
    holders = 1 if owner is not None or per_player else len(players)
    if deal * holders > total:
        _fail(
            f"{where}.deal",
            f"dealing {deal} cards to {holders} player(s) needs {deal * holders}; the draw pile starts with {total}",
        )
    discard, reshuffle = data.get("discard", "face-up"), data.get("reshuffle", "when-empty")
    if discard not in DISCARD_MODES:
        _fail(f"{where}.discard", f"must be one of {', '.join(DISCARD_MODES)}, got {discard!r}")
    if reshuffle not in RESHUFFLE_MODES:
        _fail(f"{where}.reshuffle", f"must be one of {', '.join(RESHUFFLE_MODES)}, got {reshuffle!r}")
    definition = {
        "title": title,
        "cards": cards,
        "owner": owner,
        "per_player": per_player,
        "hand_limit": hand_limit,
        "deal": deal,
        "discard": discard,
        "reshuffle": reshuffle,
    }
    if fields:
        definition["fields"] = fields
    if uses is not None:
        definition["uses"] = uses
    if set_aside_when:
        definition["set_aside"] = set_aside_when
    return definition


def _fields(data: Any, where: str) -> dict[str, Any]:
    """Return the card fields a deck declares: name -> `int`, `bool`, `text` or a list of the
    words (or whole numbers) allowed."""
    if not isinstance(data, Mapping):
        _fail(
            where,
            f"must be a mapping of field names to types, e.g. {{cp: int, power: [france, prussia]}}; got {_kind(data)}",
        )
    fields: dict[str, Any] = {}
    for name, kind in data.items():
        at = f"{where}.{name}"
        if not isinstance(name, str) or not FIELD_NAME.fullmatch(name):
            _fail(where, f"field name {name!r} must be lower-case letters, digits or '_', starting with a letter")
        if name in (*CARD_FIELDS, *CARD_DATA_FIELDS):
            _fail(at, f"'{name}' is a card's own key; name the field otherwise")
        if isinstance(kind, str) and kind in FIELD_TYPES:
            fields[name] = kind
        elif isinstance(kind, Sequence) and not isinstance(kind, str) and kind:
            if not all(_is_word(word) for word in kind) or len(set(map(str, kind))) != len(kind):
                _fail(at, "a list of allowed values must hold distinct words or whole numbers")
            fields[name] = list(kind)
        else:
            _fail(at, f"must be one of {', '.join(FIELD_TYPES)} or a non-empty list of allowed values; got {kind!r}")
    return fields


def _uses(data: Any, where: str) -> list[str]:
    if (
        not isinstance(data, Sequence)
        or isinstance(data, str)
        or not data
        or not all(isinstance(word, str) and USE_WORD.fullmatch(word) for word in data)
        or len(set(data)) != len(data)
    ):
        _fail(where, f"must be a non-empty list of distinct lower-case words, e.g. [operations, event]; got {data!r}")
    return list(data)


def _set_aside_when(data: Any, fields: Mapping[str, Any], where: str) -> dict[str, list[Any]]:
    """Return the rule setting cards aside by a field's value: {field: [values]}."""
    if not isinstance(data, Mapping) or not data:
        _fail(
            where,
            f"must map a card field to the values whose cards start set aside, e.g. {{period: [mid, late]}}; "
            f"got {data!r}",
        )
    rule: dict[str, list[Any]] = {}
    for name, values in data.items():
        if name not in fields:
            _fail(f"{where}.{name}", f"is not a field the deck declares (fields: {', '.join(fields) or 'none'})")
        if not isinstance(values, Sequence) or isinstance(values, str) or not values:
            _fail(f"{where}.{name}", f"must be a non-empty list of the field's values; got {values!r}")
        for index, value in enumerate(values):
            problem = _value_problem(value, fields[name])
            if problem:
                _fail(f"{where}.{name}[{index}]", problem)
        rule[name] = list(values)
    return rule


def _value_problem(value: Any, kind: Any) -> str | None:
    """Return why `value` does not fit a field's type, or None."""
    if kind == "int":
        return (
            None if isinstance(value, int) and not isinstance(value, bool) else f"must be a whole number, got {value!r}"
        )
    if kind == "bool":
        return None if isinstance(value, bool) else f"must be true or false, got {value!r}"
    if kind == "text":
        if not isinstance(value, str) or len(value) > MAX_TEXT:
            return f"must be a text of at most {MAX_TEXT} characters, got {_kind(value)}"
        return None
    if isinstance(value, bool) or value not in kind:
        return f"must be one of {', '.join(map(str, kind))}, got {value!r}"
    return None


def _is_word(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, str) and bool(USE_WORD.fullmatch(value)))


def _cards(
    data: Any,
    where: str,
    fields: Mapping[str, Any] | None = None,
    set_aside_when: Mapping[str, list[Any]] | None = None,
) -> list[dict[str, Any]]:
    if not isinstance(data, Sequence) or isinstance(data, str) or not data:
        _fail(where, "must be a non-empty list of cards, e.g. [{id: blockade, name: Blockade, count: 2}]")
    cards: list[dict[str, Any]] = []
    for index, card in enumerate(data):
        path = f"{where}[{index}]"
        if not isinstance(card, Mapping) or "id" not in card:
            _fail(path, "must be a mapping with an id, e.g. {id: blockade, name: Blockade}")
        allowed = (*CARD_FIELDS, *CARD_DATA_FIELDS, *(fields or {}))
        unknown = sorted(str(key) for key in card if key not in allowed)
        if unknown:
            _fail(
                path,
                f"unknown field(s) {', '.join(unknown)}; known fields: {', '.join(allowed)} "
                "(a deck's `fields` declares the fields its cards may carry)",
            )
        card_id, name, count = card["id"], card.get("name", card["id"]), card.get("count", 1)
        if not isinstance(card_id, str) or not CARD_ID.fullmatch(card_id):
            _fail(f"{path}.id", f"{card_id!r} must be lower-case letters, digits, '-', '_' or '.' (no spaces)")
        if any(known["id"] == card_id for known in cards):
            _fail(f"{path}.id", f"'{card_id}' is used twice; give copies of a card as its count")
        if not isinstance(name, str) or not name.strip():
            _fail(f"{path}.name", "must be a text")
        if not _is_count(count, 1) or count > MAX_COPIES:
            _fail(f"{path}.count", f"must be a whole number from 1 to {MAX_COPIES}, got {count!r}")
        entry: dict[str, Any] = {"id": card_id, "name": name, "count": count}
        data_of = _card_data(card, fields or {}, path)
        if data_of:
            entry["data"] = data_of
        if _is_set_aside(card, data_of, set_aside_when or {}, path):
            entry["set_aside"] = True
        cards.append(entry)
    if sum(card["count"] for card in cards) > MAX_CARDS:
        _fail(where, f"holds more than {MAX_CARDS} cards")
    return cards


def _card_data(card: Mapping[str, Any], fields: Mapping[str, Any], path: str) -> dict[str, Any]:
    """Return a card's data: the declared fields it carries, then its `text`, each checked."""
    data: dict[str, Any] = {}
    for name, kind in fields.items():
        if name in card:
            problem = _value_problem(card[name], kind)
            if problem:
                _fail(f"{path}.{name}", problem)
            data[name] = card[name]
    if "text" in card:
        problem = _value_problem(card["text"], "text")
        if problem:
            _fail(f"{path}.text", problem)
        data["text"] = card["text"]
    return data


def _is_set_aside(card: Mapping[str, Any], data: Mapping[str, Any], rule: Mapping[str, list[Any]], path: str) -> bool:
    flag = card.get("set_aside", False)
    if not isinstance(flag, bool):
        _fail(f"{path}.set_aside", f"must be true or false, got {flag!r}")
    return flag or any(name in data and data[name] in values for name, values in rule.items())


def _is_count(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _kind(value: Any) -> str:
    return "a list" if isinstance(value, list) else "a text" if isinstance(value, str) else repr(value)


def _fail(where: str, message: str) -> Any:
    raise GameDataError(f"{where}: {message}", hints=(HINT, "docs/decks.md describes every field"))


# -- actions named in orders --------------------------------------------------------------


def action_problems(
    state: Mapping[str, Any], player: str, actions: Sequence[Mapping[str, Any]], path: str = "orders.cards"
) -> list[Problem]:
    """Return the problems with a player's list of card actions, checked in order against what
    the player will hold then: unknown or unstarted decks, others' decks, cards not held, the
    hand limit. Cards drawn in the list are unknown when orders are written: none can be played."""
    problems: list[Problem] = []
    hands = {key: Counter(e["card"] for e in pile["hands"].get(player, [])) for key, pile in state["decks"].items()}
    sizes = {key: len(pile["hands"].get(player, [])) for key, pile in state["decks"].items()}
    face_up = {key: Counter(e["card"] for e in pile["discard"] if e["face_up"]) for key, pile in state["decks"].items()}
    in_play_now = {key: Counter(e["card"] for e in pile.get("in_play", [])) for key, pile in state["decks"].items()}
    aside = {key: Counter(e["card"] for e in pile.get("set_aside", [])) for key, pile in state["decks"].items()}
    for index, action in enumerate(actions):
        where = f"{path}[{index}]"
        found = _shape_problems(action, where)
        if found:
            problems += found
            continue
        verb = next(v for v in VERBS if v in action)
        ref = action[verb] if verb in ON_A_DECK else action["deck"]
        deck, why = resolve_deck(state, ref, player)
        at = f"{where}.{verb if verb in ON_A_DECK else 'deck'}"
        if deck is None:
            problems.append(Problem("illegal.cards.unknown-deck", at, why))
            continue
        pile, definition = state["decks"][deck], definition_of(state, deck)
        if not is_started(state, deck):
            problems.append(
                Problem(
                    "illegal.cards.not-dealt",
                    at,
                    f"deck '{ref}' is not dealt yet: the decks are shuffled and dealt when the first phase "
                    "is adjudicated (nothing is drawn before the referee's first commitment), so card actions "
                    "start in the phase after",
                )
            )
            continue
        if player not in pile["hands"]:
            owner = pile["owner"]
            problems.append(Problem("illegal.cards.not-yours", at, f"deck '{ref}' is {owner}'s: only {owner} uses it"))
            continue
        card = action.get(verb)
        count = action.get("count", 1)
        if verb in ("give", "show", "take"):
            found = _whom_problems(state, deck, player, action, verb, where)
            receiver = action.get("to") if verb in ("give", "take") else None
            limit = definition["hand_limit"]
            if not found and receiver not in (None, "discard", "removed") and limit is not None:
                held = sizes[deck] if receiver == player else len(pile["hands"][receiver])
                if held + 1 > limit:
                    found.append(
                        Problem(
                            "illegal.cards.hand-limit",
                            f"{where}.to",
                            f"{receiver} holds {held} cards of '{ref}', its hand limit: they cannot take another",
                        )
                    )
            if found:
                problems += found
                continue
        if verb in ("play", "put_in_play") and "use" in action:
            allowed = definition.get("uses")
            if allowed is not None and action["use"] not in allowed:
                problems.append(
                    Problem(
                        "illegal.cards.use",
                        f"{where}.use",
                        f"deck '{ref}' takes a use of {', '.join(allowed)}, not '{action['use']}'",
                    )
                )
                continue
        if verb == "show":
            if card != "hand" and not hands[deck][card]:
                problems.append(_not_held(hands[deck], str(card), ref, f"{where}.show"))
            continue
        if verb == "take":
            if action.get("from", player) == player:
                if not sizes[deck]:
                    problems.append(
                        Problem("illegal.cards.not-held", f"{where}.take", f"you hold no card of '{ref}' to take from")
                    )
                    continue
                sizes[deck] -= 1  # which card goes is not known when orders are written
                hands[deck].clear()
            elif action.get("to") not in ("discard", "removed"):
                sizes[deck] += 1
            continue
        if verb == "bring_in":
            wanted = Counter(action.get("cards") or aside[deck].elements())
            missing = wanted - aside[deck]
            if not wanted or missing:
                left = ", ".join(sorted(aside[deck].elements())) or "none"
                problems.append(
                    Problem(
                        "illegal.cards.not-set-aside",
                        f"{where}.cards" if "cards" in action else f"{where}.bring_in",
                        f"deck '{ref}' has no set-aside {', '.join(sorted(missing)) or 'cards'} (set aside: {left})",
                    )
                )
                continue
            aside[deck] -= wanted
            continue
        if verb == "end_in_play":
            if action["to"] not in ("discard", "removed"):
                problems.append(Problem("invalid.cards.to", f"{where}.to", "a card leaves play to discard or removed"))
            elif not in_play_now[deck][card]:
                shown = ", ".join(sorted(in_play_now[deck].elements())) or "none"
                problems.append(
                    Problem(
                        "illegal.cards.not-in-play",
                        f"{where}.end_in_play",
                        f"no '{card}' of deck '{ref}' is in play (in play: {shown})",
                    )
                )
            else:
                in_play_now[deck][card] -= 1
                if action["to"] == "discard":
                    face_up[deck][card] += 1
            continue
        if verb == "return" and action["to"] not in PLACES:
            problems.append(
                Problem("invalid.cards.to", f"{where}.to", "a returned card goes to top, bottom or shuffle")
            )
            continue
        if verb == "draw":
            limit = definition["hand_limit"]
            if limit is not None and sizes[deck] + count > limit:
                problems.append(
                    Problem(
                        "illegal.cards.hand-limit",
                        f"{where}.count",
                        f"drawing {count} would give you {sizes[deck] + count} cards of '{ref}' "
                        f"(you will hold {sizes[deck]}); its hand limit is {limit}: play or discard first",
                    )
                )
            sizes[deck] += count
        elif verb in ("play", "discard", "return", "give", "put_in_play") or (verb == "remove" and hands[deck][card]):
            if not hands[deck][card]:
                problems.append(_not_held(hands[deck], str(card), ref, f"{where}.{verb}"))
                continue
            hands[deck][card] -= 1
            sizes[deck] -= 1
            if verb == "play" or (verb == "discard" and definition["discard"] == "face-up"):
                face_up[deck][card] += 1
            if verb == "put_in_play":
                in_play_now[deck][card] += 1
        elif verb == "remove":
            if not face_up[deck][card]:
                problems.append(
                    Problem(
                        "illegal.cards.not-held",
                        f"{where}.remove",
                        f"you hold no '{card}' of deck '{ref}', and none lies face up on its discard pile",
                    )
                )
                continue
            face_up[deck][card] -= 1
        elif verb == "reshuffle":
            face_up[deck].clear()
    return problems


def _not_held(hand: Counter[str], card: str, ref: str, at: str) -> Problem:
    held = ", ".join(sorted(hand.elements())) or "no cards"
    return Problem(
        "illegal.cards.not-held", at, f"you hold no '{card}' of deck '{ref}' at this point (you hold: {held})"
    )


def _whom_problems(
    state: Mapping[str, Any], deck: str, player: str, action: Mapping[str, Any], verb: str, where: str
) -> list[Problem]:
    """Return the problems with the players a give, show or take names: each must hold a hand of
    the deck, and not be the player themselves where that means nothing."""
    holders = sorted(state["decks"][deck]["hands"])
    if verb == "show":  # a card of one's own deck may be shown to anyone the decks know
        holders = sorted({who for pile in state["decks"].values() for who in pile["hands"]})
    names = {"give": ("to",), "show": ("to",), "take": ("from", "to")}[verb]
    problems = []
    for name in names:
        who = action.get(name)
        if who is None or (verb == "take" and name == "to" and who in ("discard", "removed")):
            continue
        if who not in holders:
            problems.append(
                Problem(
                    "illegal.cards.not-a-holder",
                    f"{where}.{name}",
                    f"'{who}' holds no hand of this deck; its holders: {', '.join(holders)}"
                    if verb != "show"
                    else f"'{who}' is not a player holding cards; they are: {', '.join(holders)}",
                )
            )
    if verb in ("give", "show") and action.get("to") == player:
        problems.append(Problem("illegal.cards.to-yourself", f"{where}.to", f"{verb} names another player, not you"))
    if verb == "take" and action.get("to", "discard") == action.get("from", player):
        problems.append(
            Problem(
                "illegal.cards.to-yourself", f"{where}.to", "a card taken from a hand goes elsewhere than that hand"
            )
        )
    return problems


def _shape_problems(action: Mapping[str, Any], where: str) -> list[Problem]:
    verbs = [verb for verb in VERBS if verb in action]
    if len(verbs) != 1:
        found = f" (found: {', '.join(verbs)})" if verbs else ""
        return [Problem("invalid.cards.verb", where, f"give exactly one of {', '.join(VERBS)} per action{found}")]
    verb = verbs[0]
    problems = []
    for name in sorted(set(action) - {verb} - set(VERBS[verb])):
        takes = ", ".join(VERBS[verb]) or "nothing else"
        example = f"{{{verb}: strategy}}" if verb in ON_A_DECK else f"{{{verb}: blockade, deck: strategy}}"
        problems.append(
            Problem("invalid.cards.field", f"{where}.{name}", f"'{verb}' takes {takes} (e.g. {example}), not '{name}'")
        )
    if "deck" in VERBS[verb] and "deck" not in action:
        problems.append(Problem("invalid.missing", f"{where}.deck", "say which deck the card is in: deck: ..."))
    if verb == "return" and "to" not in action:
        problems.append(
            Problem("invalid.missing", f"{where}.to", "say where the card goes: to: top, bottom or shuffle")
        )
    if verb in ("give", "show") and "to" not in action:
        problems.append(Problem("invalid.missing", f"{where}.to", f"say whom: {verb}: CARD, deck: DECK, to: PLAYER"))
    if verb == "end_in_play" and "to" not in action:
        problems.append(Problem("invalid.missing", f"{where}.to", "say where the card goes: to: discard or removed"))
    return problems


def apply_action(
    state: Mapping[str, Any], player: str, action: Mapping[str, Any], dice: Dice
) -> tuple[DecksState, list[Event]]:
    """Carry out one card action of a player's orders. One that no longer fits the state (a card
    taken by an earlier action) is skipped, with a private event saying why; a draw over the
    hand limit draws what fits."""
    draws = "draw" in action  # a draw over the hand limit draws what fits; nothing else goes over it
    problems = [
        p for p in action_problems(state, player, [action], "card action") if not (draws and "hand-limit" in p.code)
    ]
    if problems:
        text = f"{player}'s card action {_describe(action)} was not carried out: {problems[0].message}."
        return thaw(state), [make_event("hand.skipped", text, {"player": player, "action": dict(action)}, (player,))]
    verb = next(v for v in VERBS if v in action)
    ref = action[verb] if verb in ON_A_DECK else action["deck"]
    deck, _ = resolve_deck(state, ref, player)
    assert deck is not None
    if verb == "draw":
        return draw(state, deck, player, action.get("count", 1), dice)
    if verb == "look":
        return look(state, deck, player, action.get("count", 1), dice)
    if verb == "reshuffle":
        return reshuffle(state, deck, dice, by=player)
    if verb == "shuffle":
        return shuffle(state, deck, dice, by=player)
    if verb == "return":
        return return_card(state, deck, player, action["return"], action["to"], dice)
    if verb == "play":
        return play(state, deck, player, action["play"], dice, use=action.get("use"))
    if verb == "put_in_play":
        return put_in_play(state, deck, player, action["put_in_play"], dice, use=action.get("use"))
    if verb == "end_in_play":
        return end_in_play(state, deck, action["end_in_play"], action["to"], dice, by=player)
    if verb == "give":
        return give(state, deck, player, action["to"], action["give"], dice)
    if verb == "show":
        cards = "hand" if action["show"] == "hand" else [action["show"]]
        return show(state, deck, player, cards, [action["to"]], dice)
    if verb == "take":
        source = action.get("from", player)
        return take_at_random(state, deck, source, dice, action.get("to", "discard"), (player,))
    if verb == "bring_in":
        return bring_in(state, deck, action.get("cards") or set_aside_cards(state, deck), dice)
    operation = {"discard": discard, "remove": remove}[verb]
    return operation(state, deck, player, action[verb], dice)


def _describe(action: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{key}: {value}" for key, value in action.items()) + "}"


# -- views, secrets and invariants --------------------------------------------------------


def deck_view(state: Mapping[str, Any], player: str | None) -> dict[str, Any]:
    """Return what `player` (None: the public) sees of every deck: their own hand with each
    card's proof, others' hand sizes, pile sizes, face-up discards and removed cards."""
    view: dict[str, Any] = {}
    for deck in deck_ids(state):
        pile, definition = state["decks"][deck], definition_of(state, deck)
        shown: dict[str, Any] = {
            "deck": pile["deck"],
            "title": definition["title"],
            "owner": pile["owner"],
            "draw_pile": len(pile["draw"]),
            "discard_pile": [_discard_view(state, deck, entry, player) for entry in pile["discard"]],
            "removed": [_card_view(state, deck, entry["card"]) for entry in pile["removed"]],
            "hand_sizes": {holder: len(hand) for holder, hand in sorted(pile["hands"].items())},
            "hand_limit": definition["hand_limit"],
            "discard": definition["discard"],
            "shuffles": pile["shuffles"],
        }
        if "set_aside" in pile:
            shown["set_aside"] = [_card_view(state, deck, entry["card"]) for entry in pile["set_aside"]]
        if "in_play" in pile:
            shown["in_play"] = [
                {**_card_view(state, deck, entry["card"]), "by": entry["by"], **_use_of(entry)}
                for entry in pile["in_play"]
            ]
        if player is not None and player in pile["hands"]:
            shown["your_hand"] = [
                {**_card_view(state, deck, entry["card"]), "proof": proof(entry["opening"])}
                for entry in pile["hands"][player]
            ]
        view[deck] = shown
    return view


def proof(opening: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Return what proves a card: the shuffle's label, turn and phase, the position, its salt
    and commitment (None for a card not yet shuffled)."""
    if opening is None:
        return None
    return {key: opening[key] for key in ("label", "turn", "phase", "index", "salt", "commitment")}


def _card_view(state: Mapping[str, Any], deck: str, card: str) -> dict[str, Any]:
    data = card_data(state, deck, card)
    return {"card": card, "name": card_name(state, deck, card), **({"data": data} if data else {})}


def _use_of(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {"use": entry["use"]} if entry.get("use") else {}


def _discard_view(state: Mapping[str, Any], deck: str, entry: Mapping[str, Any], player: str | None) -> dict[str, Any]:
    if entry["face_up"]:
        return {**_card_view(state, deck, entry["card"]), "by": entry["by"], **_use_of(entry)}
    if player is not None and player == entry["by"]:
        return {**_card_view(state, deck, entry["card"]), "by": entry["by"], "face_down": True}
    return {"by": entry["by"], "face_down": True}


def secrets(state: Mapping[str, Any], pointer: str) -> list[tuple[str, tuple[str, ...]]]:
    """Return the JSON pointer (under `pointer`, where the game keeps these decks) of every hidden
    leaf, with who may see it: draw piles no one, a hand its holder, a face-down discard its
    discarder."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for deck in deck_ids(state):
        pile = state["decks"][deck]
        base = f"{pointer}/decks/{_escape(deck)}"
        for index, entry in enumerate(pile["draw"]):
            found += _entry_secrets(f"{base}/draw/{index}", entry, ())
        for holder, hand in sorted(pile["hands"].items()):
            for index, entry in enumerate(hand):
                found += _entry_secrets(f"{base}/hands/{_escape(holder)}/{index}", entry, (holder,))
        for index, entry in enumerate(pile["discard"]):
            if not entry["face_up"]:
                found += _entry_secrets(f"{base}/discard/{index}", entry, (entry["by"],))
    return found


def in_play(state: Mapping[str, Any]) -> list[InPlay]:
    """Return each shuffle whose cards some player still may not know (in a draw pile, in a hand,
    discarded face down), with where they are: revealing its key would open them to everyone."""
    places: dict[str, list[str]] = {}
    for deck in deck_ids(state):
        pile = state["decks"][deck]
        groups: list[tuple[list[Mapping[str, Any]], str]] = [
            (pile["draw"], f"the draw pile of {deck} ({{n}}) to every player")
        ]
        groups += [
            (hand, f"{holder}'s hand of {deck} ({{n}}) to everyone but {holder}")
            for holder, hand in sorted(pile["hands"].items())
        ]
        discarders = sorted({entry["by"] for entry in pile["discard"] if not entry["face_up"]})
        groups += [
            (
                [e for e in pile["discard"] if not e["face_up"] and e["by"] == by],
                f"{by}'s face-down discards of {deck} ({{n}}) to everyone but {by}",
            )
            for by in discarders
        ]
        for entries, text in groups:
            counts: Counter[str] = Counter(
                entry["opening"]["label"] for entry in entries if entry.get("opening") is not None
            )
            for label, count in sorted(counts.items()):
                places.setdefault(label, []).append(text.format(n=f"{count} card{'' if count == 1 else 's'}"))
    return [InPlay(label, "; ".join(where)) for label, where in sorted(places.items())]


def _entry_secrets(at: str, entry: Mapping[str, Any], roles: tuple[str, ...]) -> list[tuple[str, tuple[str, ...]]]:
    leaves = [(f"{at}/card", roles)]
    if entry["opening"] is not None:
        leaves += [(f"{at}/opening/value", roles), (f"{at}/opening/salt", roles)]
    return leaves


def check(state: Mapping[str, Any]) -> list[str]:
    """Return broken invariants: a deck whose cards differ from its definition, an opening that
    names another card, a hand over its limit or held by someone who may not."""
    problems = []
    for deck in deck_ids(state):
        pile, definition = state["decks"][deck], definition_of(state, deck)
        if cards_of(state, deck) != defined_cards(state, deck):
            problems.append(f"deck {deck}: its cards are not those of its definition")
        entries = [*pile["draw"], *pile["discard"], *pile["removed"], *(e for h in pile["hands"].values() for e in h)]
        entries += [*pile.get("in_play", []), *pile.get("set_aside", [])]
        if any(entry["opening"] is not None for entry in pile.get("set_aside", [])):
            problems.append(f"deck {deck}: a set-aside card has a position in a shuffle")
        if any(e["opening"] is not None and e["opening"]["value"] != e["card"] for e in entries):
            problems.append(f"deck {deck}: a card's opening names another card")
        limit = definition["hand_limit"]
        for holder, hand in pile["hands"].items():
            if limit is not None and len(hand) > limit:
                problems.append(f"deck {deck}: {holder} holds {len(hand)} cards, over the limit of {limit}")
        if pile["owner"] is not None and set(pile["hands"]) != {pile["owner"]}:
            problems.append(f"deck {deck}: hands held by others than its owner {pile['owner']}")
    return problems


# -- helpers ------------------------------------------------------------------------------


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
