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

A shuffle is `dice.hidden_shuffle`: the record commits to the card at each position without
showing it. Every card keeps the opening of its position (its proof) wherever it goes: the
player who draws it receives the opening, and everyone does when it is played face up. `dice`
is used only when an operation shuffles (a draw from an empty pile reshuffles the discards).

Orders name actions as data (`{draw: strategy, count: 2}`); `action_problems` checks a
player's list of them against the state and `apply_action` carries one out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from referee.errors import GameDataError
from referee.schema import Problem

if TYPE_CHECKING:
    from referee.api import Dice, Event

DecksState = dict[str, Any]
Where = Literal["top", "bottom", "shuffle"]

DECK_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
CARD_ID = re.compile(r"[a-z0-9][a-z0-9_.-]{0,47}")
DECK_REF = r"[a-z0-9][a-z0-9_-]{0,31}(/[a-z0-9][a-z0-9_.-]{0,63})?"
DEFINITION_FIELDS = ("title", "cards", "owner", "per_player", "hand_limit", "deal", "discard", "reshuffle")
CARD_FIELDS = ("id", "name", "count")
DISCARD_MODES = ("face-up", "face-down")
RESHUFFLE_MODES = ("when-empty", "never")
PLACES: tuple[Where, ...] = ("top", "bottom", "shuffle")
MAX_COPIES = 100
MAX_CARDS = 2000
MAX_COUNT = 100
HINT = "a deck is {title, cards: [{id, name, count}], owner or per_player, hand_limit, deal, discard, reshuffle}"

# The actions orders may name, each with the fields it takes besides its verb.
VERBS: dict[str, tuple[str, ...]] = {
    "draw": ("count",),
    "look": ("count",),
    "play": ("deck",),
    "discard": ("deck",),
    "return": ("deck", "to"),
    "remove": ("deck",),
    "reshuffle": (),
    "shuffle": (),
}
ON_A_DECK = ("draw", "look", "reshuffle", "shuffle")  # the verb's value is the deck
_DECK_FIELD = {"type": "str", "pattern": DECK_REF, "example": "strategy"}
_CARD_FIELD = {"type": "str", "pattern": CARD_ID.pattern, "example": "blockade"}
CARD_ACTION_SCHEMA: dict[str, Any] = {
    "type": "map",
    "description": "one card action: exactly one of " + ", ".join(VERBS),
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


class DeckError(ValueError):
    """A game called a deck operation that cannot be carried out (a bug in the game's rules:
    orders are checked with `action_problems` first)."""


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
    unknown = sorted(str(key) for key in data if key not in DEFINITION_FIELDS)
    if unknown:
        _fail(where, f"unknown field(s) {', '.join(unknown)}; known fields: {', '.join(DEFINITION_FIELDS)}")
    title = data.get("title", where.rpartition(".")[2])
    if not isinstance(title, str) or not title.strip():
        _fail(f"{where}.title", "must be a text")
    cards = _cards(data.get("cards"), f"{where}.cards")
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
    total = sum(card["count"] for card in cards)
    holders = 1 if owner is not None or per_player else len(players)
    if deal * holders > total:
        _fail(
            f"{where}.deal", f"dealing {deal} cards to {holders} player(s) needs {deal * holders}; the deck has {total}"
        )
    discard, reshuffle = data.get("discard", "face-up"), data.get("reshuffle", "when-empty")
    if discard not in DISCARD_MODES:
        _fail(f"{where}.discard", f"must be one of {', '.join(DISCARD_MODES)}, got {discard!r}")
    if reshuffle not in RESHUFFLE_MODES:
        _fail(f"{where}.reshuffle", f"must be one of {', '.join(RESHUFFLE_MODES)}, got {reshuffle!r}")
    return {
        "title": title,
        "cards": cards,
        "owner": owner,
        "per_player": per_player,
        "hand_limit": hand_limit,
        "deal": deal,
        "discard": discard,
        "reshuffle": reshuffle,
    }


def _cards(data: Any, where: str) -> list[dict[str, Any]]:
    if not isinstance(data, Sequence) or isinstance(data, str) or not data:
        _fail(where, "must be a non-empty list of cards, e.g. [{id: blockade, name: Blockade, count: 2}]")
    cards: list[dict[str, Any]] = []
    for index, card in enumerate(data):
        path = f"{where}[{index}]"
        if not isinstance(card, Mapping) or "id" not in card:
            _fail(path, "must be a mapping with an id, e.g. {id: blockade, name: Blockade}")
        unknown = sorted(str(key) for key in card if key not in CARD_FIELDS)
        if unknown:
            _fail(path, f"unknown field(s) {', '.join(unknown)}; known fields: {', '.join(CARD_FIELDS)}")
        card_id, name, count = card["id"], card.get("name", card["id"]), card.get("count", 1)
        if not isinstance(card_id, str) or not CARD_ID.fullmatch(card_id):
            _fail(f"{path}.id", f"{card_id!r} must be lower-case letters, digits, '-', '_' or '.' (no spaces)")
        if any(known["id"] == card_id for known in cards):
            _fail(f"{path}.id", f"'{card_id}' is used twice; give copies of a card as its count")
        if not isinstance(name, str) or not name.strip():
            _fail(f"{path}.name", "must be a text")
        if not _is_count(count, 1) or count > MAX_COPIES:
            _fail(f"{path}.count", f"must be a whole number from 1 to {MAX_COPIES}, got {count!r}")
        cards.append({"id": card_id, "name": name, "count": count})
    if sum(card["count"] for card in cards) > MAX_CARDS:
        _fail(where, f"holds more than {MAX_CARDS} cards")
    return cards


def _is_count(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _kind(value: Any) -> str:
    return "a list" if isinstance(value, list) else "a text" if isinstance(value, str) else repr(value)


def _fail(where: str, message: str) -> Any:
    raise GameDataError(f"{where}: {message}", hints=(HINT, "docs/decks.md describes every field"))


# -- the state ----------------------------------------------------------------------------


def new_decks(definitions: Mapping[str, Mapping[str, Any]], players: Sequence[str]) -> DecksState:
    """Return the decks before the game starts: every card in its draw pile, not yet shuffled.

    A per-player deck becomes one copy per player, `ID/PLAYER`. Nothing is random here: `start`
    shuffles and deals, in an adjudicated phase, after the first commitment.
    """
    decks: dict[str, Any] = {}
    for deck_id, definition in definitions.items():
        owners = sorted(players) if definition["per_player"] else [definition["owner"]]
        for owner in owners:
            key = f"{deck_id}/{owner}" if definition["per_player"] else deck_id
            holders = sorted(players) if owner is None else [owner]
            decks[key] = {
                "deck": deck_id,
                "owner": owner,
                "draw": [{"card": c["id"], "opening": None} for c in definition["cards"] for _ in range(c["count"])],
                "discard": [],
                "removed": [],
                "hands": {player: [] for player in holders},
                "shuffles": 0,
            }
    return {"definitions": _plain(definitions), "decks": decks}


def deck_ids(state: Mapping[str, Any]) -> list[str]:
    """Return the id of every deck in play (a per-player deck once per player), sorted."""
    return sorted(state["decks"])


def is_started(state: Mapping[str, Any], deck: str) -> bool:
    """Return whether a deck has been shuffled (and dealt) since the game began."""
    return bool(state["decks"][deck]["shuffles"])


def shuffle_label(deck: str, number: int) -> str:
    """Return the hidden draw label of a deck's `number`th shuffle: `deck/ID/shuffle-N`."""
    return f"deck/{deck}/shuffle-{number}"


def card_name(state: Mapping[str, Any], deck: str, card: str) -> str:
    """Return a card's name as its deck defines it (the id itself for an unknown id)."""
    definition = state["definitions"][state["decks"][deck]["deck"]]
    return next((c["name"] for c in definition["cards"] if c["id"] == card), card)


def cards_of(state: Mapping[str, Any], deck: str) -> Counter[str]:
    """Return every card of a deck wherever it is (draw pile, hands, discards, removed)."""
    pile = state["decks"][deck]
    entries = [*pile["draw"], *pile["discard"], *pile["removed"]]
    entries += [entry for hand in pile["hands"].values() for entry in hand]
    return Counter(entry["card"] for entry in entries)


def defined_cards(state: Mapping[str, Any], deck: str) -> Counter[str]:
    """Return the cards a deck's definition lists, with their copies."""
    definition = state["definitions"][state["decks"][deck]["deck"]]
    return Counter({card["id"]: card["count"] for card in definition["cards"]})


def resolve_deck(state: Mapping[str, Any], ref: str, player: str) -> tuple[str | None, str]:
    """Return the deck a player means by `ref` (a per-player deck's id means their own copy), or
    None and why not."""
    decks = state["decks"]
    known = sorted({decks[key]["deck"] for key in decks})
    if ref in decks and decks[ref]["owner"] not in (None, player) and "/" in ref:
        return None, f"deck '{ref}' is {decks[ref]['owner']}'s own; yours is '{decks[ref]['deck']}'"
    key = ref if ref in decks else f"{ref}/{player}"
    if key not in decks:
        names = ", ".join(known) or "none (the game has no decks)"
        return None, f"there is no deck '{ref}'; decks: {names}"
    return key, ""


# -- operations ---------------------------------------------------------------------------


def start(state: Mapping[str, Any], dice: Dice) -> tuple[DecksState, list[Event]]:
    """Shuffle every deck never shuffled, then deal each its `deal` cards (decks in id order)."""
    new, events = _plain(state), []
    for deck in deck_ids(new):
        if not is_started(new, deck):
            new, shuffled = shuffle(new, deck, dice, reason="the game starts")
            new, dealt = deal(new, deck, dice)
            events += shuffled + dealt
    return new, events


def shuffle(
    state: Mapping[str, Any], deck: str, dice: Dice, by: str | None = None, reason: str = ""
) -> tuple[DecksState, list[Event]]:
    """Shuffle a deck's draw pile in secret: a new hidden shuffle, every position committed."""
    new = _plain(state)
    pile = _pile(new, deck)
    label = _new_draw_pile(pile, deck, [entry["card"] for entry in pile["draw"]], dice)
    who = f"{by} shuffled" if by else "The referee shuffled"
    why = f" ({reason})" if reason else ""
    text = f"{who} the {_title(new, deck)} draw pile{why}: {_count(len(pile['draw']))} ({label})."
    return new, [_public("deck.shuffled", text, {**_sizes(pile), "deck": deck, "label": label, "by": by})]


def reshuffle(
    state: Mapping[str, Any], deck: str, dice: Dice, by: str | None = None, reason: str = ""
) -> tuple[DecksState, list[Event]]:
    """Shuffle a deck's discard pile (face up and down) into its draw pile: one new shuffle."""
    new = _plain(state)
    pile = _pile(new, deck)
    discards = len(pile["discard"])
    cards = [entry["card"] for entry in [*pile["draw"], *pile["discard"]]]
    pile["discard"] = []
    label = _new_draw_pile(pile, deck, cards, dice)
    who = f"{by} shuffled" if by else "The referee shuffled"
    why = f" ({reason})" if reason else ""
    text = (
        f"{who} the {_title(new, deck)} discard pile ({_count(discards)}) into its draw pile{why}: "
        f"{_count(len(pile['draw']))} ({label})."
    )
    data = {**_sizes(pile), "deck": deck, "label": label, "by": by, "discards": discards}
    return new, [_public("deck.shuffled", text, data)]


def deal(state: Mapping[str, Any], deck: str, dice: Dice) -> tuple[DecksState, list[Event]]:
    """Deal the deck's `deal` cards to each holder, one card at a time in player order, each
    hand up to its limit; return a private event per player and one public event."""
    new = _plain(state)
    pile, definition = _pile(new, deck), _definition_of(new, deck)
    events: list[Event] = []
    dealt: dict[str, list[dict[str, Any]]] = {player: [] for player in sorted(pile["hands"])}
    for _ in range(definition["deal"]):
        for player in dealt:
            if _room(new, deck, player) > 0 and (entry := _take_top(new, deck, dice, events)) is not None:
                pile["hands"][player].append(entry)
                dealt[player].append(entry)
    if not definition["deal"]:
        return new, events
    for player, entries in dealt.items():
        if entries:
            events.append(
                _private(
                    "hand.dealt",
                    player,
                    f"{player} was dealt {_names(new, deck, entries)} from {_title(new, deck)}.",
                    deck,
                    entries,
                )
            )
    hands = ", ".join(f"{player} {len(entries)}" for player, entries in dealt.items())
    text = f"Cards dealt from {_title(new, deck)}: {hands}; draw pile {len(pile['draw'])}."
    events.append(_public("deck.dealt", text, {**_sizes(pile), "deck": deck}))
    return new, events


def draw(state: Mapping[str, Any], deck: str, player: str, count: int, dice: Dice) -> tuple[DecksState, list[Event]]:
    """Draw `count` cards from the top into the player's hand, stopping at the hand limit, or
    when the draw pile is empty and its discards cannot be reshuffled."""
    new = _plain(state)
    pile = _pile(new, deck)
    _require_holder(pile, deck, player)
    events: list[Event] = []
    wanted = min(count, _room(new, deck, player))
    drawn: list[dict[str, Any]] = []
    while len(drawn) < wanted and (entry := _take_top(new, deck, dice, events)) is not None:
        pile["hands"][player].append(entry)
        drawn.append(entry)
    short = ""
    if len(drawn) < count:
        why = "the hand limit" if wanted < count and len(drawn) == wanted else "an empty draw pile"
        short = f" ({len(drawn)} of the {count} asked: {why})"
    if drawn:
        events.append(
            _private(
                "hand.drawn", player, f"{player} drew {_names(new, deck, drawn)} from {_title(new, deck)}.", deck, drawn
            )
        )
    text = f"{player} drew {_count(len(drawn))} from {_title(new, deck)}{short}; {_sizes_text(pile, player)}."
    data = {**_sizes(pile), "deck": deck, "player": player, "count": len(drawn), "asked": count}
    events.append(_public("deck.drawn", text, data))
    return new, events


def look(state: Mapping[str, Any], deck: str, player: str, count: int, dice: Dice) -> tuple[DecksState, list[Event]]:
    """Show the player the top `count` cards (all, if fewer are left) without moving them; a
    look never reshuffles. `dice` is unused: every operation takes it."""
    new = _plain(state)
    pile = _pile(new, deck)
    seen = pile["draw"][:count]
    events = []
    if seen:
        events.append(
            _private(
                "hand.looked",
                player,
                f"{player} looked at the top {_count(len(seen))} of {_title(new, deck)} "
                f"(top first): {_names(new, deck, seen)}.",
                deck,
                seen,
            )
        )
    text = f"{player} looked at the top {_count(len(seen))} of {_title(new, deck)} without drawing."
    events.append(_public("deck.looked", text, {**_sizes(pile), "deck": deck, "player": player, "count": len(seen)}))
    return new, events


def play(state: Mapping[str, Any], deck: str, player: str, card: str, dice: Dice) -> tuple[DecksState, list[Event]]:
    """Play a card from the hand face up onto the discard pile; its opening goes to everyone."""
    new = _plain(state)
    pile = _pile(new, deck)
    entry = _take_from_hand(pile, deck, player, card)
    pile["discard"].append({**entry, "face_up": True, "by": player})
    text = f"{player} played {_named(new, deck, card)} from {_title(new, deck)}; {_sizes_text(pile, player)}."
    return new, [_shown("deck.played", text, new, deck, player, entry)]


def discard(state: Mapping[str, Any], deck: str, player: str, card: str, dice: Dice) -> tuple[DecksState, list[Event]]:
    """Discard a card from the hand: face up (shown, with its opening) or face down (only the
    player learns which card; the others learn that one was discarded), as the deck says."""
    new = _plain(state)
    pile = _pile(new, deck)
    entry = _take_from_hand(pile, deck, player, card)
    face_up = _definition_of(new, deck)["discard"] == "face-up"
    pile["discard"].append({**entry, "face_up": face_up, "by": player})
    if face_up:
        text = f"{player} discarded {_named(new, deck, card)} face up; {_sizes_text(pile, player)}."
        return new, [_shown("deck.discarded", text, new, deck, player, entry)]
    mine = _event(
        "hand.discarded",
        f"{player} discarded {_named(new, deck, card)} face down from {_title(new, deck)}.",
        {"deck": deck, "player": player, "card": card},
        (player,),
    )
    text = f"{player} discarded a card face down from {_title(new, deck)}; {_sizes_text(pile, player)}."
    return new, [mine, _public("deck.discarded", text, {**_sizes(pile), "deck": deck, "player": player})]


def remove(state: Mapping[str, Any], deck: str, player: str, card: str, dice: Dice) -> tuple[DecksState, list[Event]]:
    """Remove a card from the game, shown to everyone with its opening: from the player's hand,
    or, if they hold none, the top-most face-up copy in the discard pile."""
    new = _plain(state)
    pile = _pile(new, deck)
    if any(entry["card"] == card for entry in pile["hands"].get(player, [])):
        entry, where = _take_from_hand(pile, deck, player, card), "hand"
    else:
        index = _face_up_index(pile, card)
        if index is None:
            raise DeckError(f"{player} holds no '{card}' of deck '{deck}', and none is face up in its discard pile")
        entry, where = pile["discard"].pop(index), "discard pile"
        entry = {"card": entry["card"], "opening": entry["opening"]}
    pile["removed"].append({**entry, "by": player})
    text = f"{player} removed {_named(new, deck, card)} from the game (from the {where}); {_sizes_text(pile, player)}."
    return new, [_shown("deck.removed", text, new, deck, player, entry, {"from": where})]


def return_card(
    state: Mapping[str, Any], deck: str, player: str, card: str, to: Where, dice: Dice
) -> tuple[DecksState, list[Event]]:
    """Return a card from the hand to the draw pile, unseen by the others: on top or at the
    bottom it keeps its opening; shuffled in, the whole draw pile is shuffled anew."""
    if to not in PLACES:
        raise DeckError(f"a card returns to one of {', '.join(PLACES)}, not {to!r}")
    new = _plain(state)
    pile = _pile(new, deck)
    entry = _take_from_hand(pile, deck, player, card)
    label = None
    if to == "top":
        pile["draw"].insert(0, entry)
    elif to == "bottom":
        pile["draw"].append(entry)
    else:
        label = _new_draw_pile(pile, deck, [e["card"] for e in [*pile["draw"], entry]], dice)
    place = {"top": "on top of", "bottom": "at the bottom of", "shuffle": "shuffled into"}[to]
    mine = _event(
        "hand.returned",
        f"{player} returned {_named(new, deck, card)} {place} the {_title(new, deck)} draw pile.",
        {"deck": deck, "player": player, "card": card, "to": to},
        (player,),
    )
    shuffled = f" ({label})" if label else ""
    text = f"{player} returned a card {place} the {_title(new, deck)} draw pile{shuffled}; {_sizes_text(pile, player)}."
    data = {**_sizes(pile), "deck": deck, "player": player, "to": to, "label": label}
    return new, [mine, _public("deck.returned", text, data)]


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
        pile, definition = state["decks"][deck], _definition_of(state, deck)
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
        elif verb in ("play", "discard", "return") or (verb == "remove" and hands[deck][card]):
            if not hands[deck][card]:
                held = ", ".join(sorted(hands[deck].elements())) or "no cards"
                problems.append(
                    Problem(
                        "illegal.cards.not-held",
                        f"{where}.{verb}",
                        f"you hold no '{card}' of deck '{ref}' at this point (you hold: {held})",
                    )
                )
                continue
            hands[deck][card] -= 1
            sizes[deck] -= 1
            if verb == "play" or (verb == "discard" and definition["discard"] == "face-up"):
                face_up[deck][card] += 1
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
    return problems


def apply_action(
    state: Mapping[str, Any], player: str, action: Mapping[str, Any], dice: Dice
) -> tuple[DecksState, list[Event]]:
    """Carry out one card action of a player's orders. One that no longer fits the state (a card
    taken by an earlier action) is skipped, with a private event saying why; a draw over the
    hand limit draws what fits."""
    problems = [p for p in action_problems(state, player, [action], "card action") if "hand-limit" not in p.code]
    if problems:
        text = f"{player}'s card action {_describe(action)} was not carried out: {problems[0].message}."
        return _plain(state), [_event("hand.skipped", text, {"player": player, "action": dict(action)}, (player,))]
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
    operation = {"play": play, "discard": discard, "remove": remove}[verb]
    return operation(state, deck, player, action[verb], dice)


def _describe(action: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{key}: {value}" for key, value in action.items()) + "}"


# -- views, secrets and invariants --------------------------------------------------------


def deck_view(state: Mapping[str, Any], player: str | None) -> dict[str, Any]:
    """Return what `player` (None: the public) sees of every deck: their own hand with each
    card's proof, others' hand sizes, pile sizes, face-up discards and removed cards."""
    view: dict[str, Any] = {}
    for deck in deck_ids(state):
        pile, definition = state["decks"][deck], _definition_of(state, deck)
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
    return {"card": card, "name": card_name(state, deck, card)}


def _discard_view(state: Mapping[str, Any], deck: str, entry: Mapping[str, Any], player: str | None) -> dict[str, Any]:
    if entry["face_up"]:
        return {**_card_view(state, deck, entry["card"]), "by": entry["by"]}
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
        pile, definition = state["decks"][deck], _definition_of(state, deck)
        if cards_of(state, deck) != defined_cards(state, deck):
            problems.append(f"deck {deck}: its cards are not those of its definition")
        entries = [*pile["draw"], *pile["discard"], *pile["removed"], *(e for h in pile["hands"].values() for e in h)]
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


def _plain(value: Any) -> Any:
    """Return a deep copy of `value` as plain dicts and lists (the input may be frozen)."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _pile(state: DecksState, deck: str) -> dict[str, Any]:
    pile = state["decks"].get(deck)
    if pile is None:
        raise DeckError(f"there is no deck '{deck}'; decks: {', '.join(deck_ids(state)) or 'none'}")
    return pile


def _definition_of(state: Mapping[str, Any], deck: str) -> Mapping[str, Any]:
    return state["definitions"][state["decks"][deck]["deck"]]


def _require_holder(pile: Mapping[str, Any], deck: str, player: str) -> None:
    if player not in pile["hands"]:
        raise DeckError(f"{player} holds no hand of deck '{deck}' (it is {pile['owner']}'s)")


def _room(state: DecksState, deck: str, player: str) -> int:
    limit = _definition_of(state, deck)["hand_limit"]
    held = len(state["decks"][deck]["hands"][player])
    return MAX_CARDS if limit is None else max(0, limit - held)


def _take_top(state: DecksState, deck: str, dice: Dice, events: list[Event]) -> dict[str, Any] | None:
    """Take the top card of the draw pile, first reshuffling the discards into an empty draw pile
    when the deck says so; None when there is no card to take."""
    pile = state["decks"][deck]
    if not pile["draw"] and pile["discard"] and _definition_of(state, deck)["reshuffle"] == "when-empty":
        reshuffled, happened = reshuffle(state, deck, dice, reason="the draw pile ran out")
        pile.update(reshuffled["decks"][deck])
        events += happened
    return pile["draw"].pop(0) if pile["draw"] else None


def _take_from_hand(pile: dict[str, Any], deck: str, player: str, card: str) -> dict[str, Any]:
    """Take the first copy of `card` (the longest held) from the player's hand."""
    _require_holder(pile, deck, player)
    hand = pile["hands"][player]
    for index, entry in enumerate(hand):
        if entry["card"] == card:
            return hand.pop(index)
    raise DeckError(f"{player} holds no '{card}' of deck '{deck}'")


def _face_up_index(pile: Mapping[str, Any], card: str) -> int | None:
    for index in range(len(pile["discard"]) - 1, -1, -1):
        entry = pile["discard"][index]
        if entry["face_up"] and entry["card"] == card:
            return index
    return None


def _new_draw_pile(pile: dict[str, Any], deck: str, cards: list[str], dice: Dice) -> str:
    """Make the draw pile a new hidden shuffle of `cards` (taken in sorted order, so the shuffle's
    input says nothing of where they were); return its label."""
    number = pile["shuffles"] + 1
    label = shuffle_label(deck, number)
    hidden = dice.hidden_shuffle(sorted(cards), label=label)
    pile["draw"] = [{"card": card, "opening": hidden.opening(i)} for i, card in enumerate(hidden.values)]
    pile["shuffles"] = number
    return label


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _title(state: Mapping[str, Any], deck: str) -> str:
    pile = state["decks"][deck]
    title = _definition_of(state, deck)["title"]
    return f"{title} ({pile['owner']}'s)" if _definition_of(state, deck)["per_player"] else str(title)


def _named(state: Mapping[str, Any], deck: str, card: str) -> str:
    name = card_name(state, deck, card)
    return name if name == card else f"{name} ({card})"


def _count(n: int) -> str:
    return f"{n} card{'' if n == 1 else 's'}"


def _sizes(pile: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "draw_pile": len(pile["draw"]),
        "discard_pile": len(pile["discard"]),
        "hands": {holder: len(hand) for holder, hand in sorted(pile["hands"].items())},
    }


def _sizes_text(pile: Mapping[str, Any], player: str) -> str:
    held = len(pile["hands"].get(player, []))
    return f"{player} now holds {_count(held)}; draw pile {len(pile['draw'])}, discard pile {len(pile['discard'])}"


def _event(kind: str, text: str, data: Mapping[str, Any], visible_to: Any = "all") -> Event:
    # Imported here: referee.api exports this module, so it cannot be imported at the top.
    from referee.api import Event

    return Event(kind, text, data, visible_to)


def _public(kind: str, text: str, data: Mapping[str, Any]) -> Event:
    return _event(kind, text, data, "all")


def _names(state: Mapping[str, Any], deck: str, entries: list[dict[str, Any]]) -> str:
    return ", ".join(_named(state, deck, entry["card"]) for entry in entries)


def _private(kind: str, player: str, text: str, deck: str, entries: list[dict[str, Any]]) -> Event:
    """Return the event that shows `entries` to `player` alone, with the opening of each."""
    return _event(
        kind,
        text,
        {
            "deck": deck,
            "player": player,
            "cards": [entry["card"] for entry in entries],
            "openings": [entry["opening"] for entry in entries if entry["opening"] is not None],
        },
        (player,),
    )


def _shown(
    kind: str,
    text: str,
    state: Mapping[str, Any],
    deck: str,
    player: str,
    entry: Mapping[str, Any],
    extra: Mapping[str, Any] | None = None,
) -> Event:
    """Return the public event of a card shown to all, with its opening: anyone can check it."""
    pile = state["decks"][deck]
    data = {**_sizes(pile), **(extra or {}), "deck": deck, "player": player, "card": entry["card"]}
    data["openings"] = [entry["opening"]] if entry["opening"] is not None else []
    return _public(kind, text, data)
