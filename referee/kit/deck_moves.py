"""The operations that move cards, for `referee.kit.decks` (which re-exports them; games use that).

Each takes the decks' state and returns a new state and the events that tell what happened.
The input is never changed (it may be frozen): an operation works on a plain deep copy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from referee.kit.contract import Dice, Event
from referee.protocol.canonical import thaw
from referee.protocol.cards import definition_source, piles_source

DecksState = dict[str, Any]
Where = Literal["top", "bottom", "shuffle"]
PLACES: tuple[Where, ...] = ("top", "bottom", "shuffle")
MAX_CARDS = 2000


class DeckError(ValueError):
    """A game called a deck operation that cannot be carried out (a bug in the game's rules:
    orders are checked with `action_problems` first)."""


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
            cards = [(c["id"], bool(c.get("set_aside"))) for c in definition["cards"] for _ in range(c["count"])]
            decks[key] = {
                "deck": deck_id,
                "owner": owner,
                "draw": [{"card": card, "opening": None} for card, aside in cards if not aside],
                "discard": [],
                "removed": [],
                "hands": {player: [] for player in holders},
                "shuffles": 0,
            }
            if any(aside for _, aside in cards):
                decks[key]["set_aside"] = [{"card": card, "opening": None} for card, aside in cards if aside]
    return {"definitions": thaw(definitions), "decks": decks}


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
    entries = [*pile["draw"], *pile["discard"], *pile["removed"], *pile.get("set_aside", []), *pile.get("in_play", [])]
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
    new, events = thaw(state), []
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
    new = thaw(state)
    pile = _pile(new, deck)
    fresh = not is_started(new, deck)
    aside = Counter(entry["card"] for entry in pile.get("set_aside", []))
    source = definition_source(pile["deck"], defined_cards(new, deck), aside) if fresh else piles_source(["draw"])
    label = _new_draw_pile(pile, deck, [entry["card"] for entry in pile["draw"]], dice, source)
    who = f"{by} shuffled" if by else "The referee shuffled"
    why = f" ({reason})" if reason else ""
    text = f"{who} the {_title(new, deck)} draw pile{why}: {_count(len(pile['draw']))} ({label})."
    return new, [_public("deck.shuffled", text, {**_sizes(pile), "deck": deck, "label": label, "by": by})]


def reshuffle(
    state: Mapping[str, Any], deck: str, dice: Dice, by: str | None = None, reason: str = ""
) -> tuple[DecksState, list[Event]]:
    """Shuffle a deck's discard pile (face up and down) into its draw pile: one new shuffle."""
    new = thaw(state)
    pile = _pile(new, deck)
    discards = len(pile["discard"])
    cards = [entry["card"] for entry in [*pile["draw"], *pile["discard"]]]
    pile["discard"] = []
    label = _new_draw_pile(pile, deck, cards, dice, piles_source(["draw", "discard"]))
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
    new = thaw(state)
    pile, definition = _pile(new, deck), definition_of(new, deck)
    events: list[Event] = []
    dealt: dict[str, list[dict[str, Any]]] = {player: [] for player in sorted(pile["hands"])}
    for _ in range(definition["deal"]):
        for player in dealt:
            if _room(new, deck, player) > 0 and (entry := _take_top(new, deck, dice, events, player)) is not None:
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
                    new,
                )
            )
    hands = ", ".join(f"{player} {len(entries)}" for player, entries in dealt.items())
    text = f"Cards dealt from {_title(new, deck)}: {hands}; draw pile {len(pile['draw'])}."
    events.append(_public("deck.dealt", text, {**_sizes(pile), "deck": deck}))
    return new, events


def draw(state: Mapping[str, Any], deck: str, player: str, count: int, dice: Dice) -> tuple[DecksState, list[Event]]:
    """Draw `count` cards from the top into the player's hand, stopping at the hand limit, or
    when the draw pile is empty and its discards cannot be reshuffled."""
    new = thaw(state)
    pile = _pile(new, deck)
    _require_holder(pile, deck, player)
    events: list[Event] = []
    wanted = min(count, _room(new, deck, player))
    drawn: list[dict[str, Any]] = []
    while len(drawn) < wanted and (entry := _take_top(new, deck, dice, events, player)) is not None:
        pile["hands"][player].append(entry)
        drawn.append(entry)
    short = ""
    if len(drawn) < count:
        why = "the hand limit" if wanted < count and len(drawn) == wanted else "an empty draw pile"
        short = f" ({len(drawn)} of the {count} asked: {why})"
    if drawn:
        events.append(
            _private(
                "hand.drawn",
                player,
                f"{player} drew {_names(new, deck, drawn)} from {_title(new, deck)}.",
                deck,
                drawn,
                new,
            )
        )
    text = f"{player} drew {_count(len(drawn))} from {_title(new, deck)}{short}; {_sizes_text(pile, player)}."
    data = {**_sizes(pile), "deck": deck, "player": player, "count": len(drawn), "asked": count}
    events.append(_public("deck.drawn", text, data))
    return new, events


def look(state: Mapping[str, Any], deck: str, player: str, count: int, dice: Dice) -> tuple[DecksState, list[Event]]:
    """Show the player the top `count` cards (all, if fewer are left) without moving them; a
    look never reshuffles. `dice` is unused: every operation takes it."""
    new = thaw(state)
    pile = _pile(new, deck)
    seen = pile["draw"][:count]
    for entry in seen:
        _moved(dice, deck, entry, "draw", f"look/{player}")
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
                new,
            )
        )
    text = f"{player} looked at the top {_count(len(seen))} of {_title(new, deck)} without drawing."
    events.append(_public("deck.looked", text, {**_sizes(pile), "deck": deck, "player": player, "count": len(seen)}))
    return new, events


def play(
    state: Mapping[str, Any], deck: str, player: str, card: str, dice: Dice, use: str | None = None
) -> tuple[DecksState, list[Event]]:
    """Play a card from the hand face up onto the discard pile; its opening goes to everyone.
    `use` records how it was played (`operations`, `event`...: a word the deck allows) in the
    event and the discard entry."""
    new = thaw(state)
    pile = _pile(new, deck)
    _check_use(new, deck, use)
    entry = _take_from_hand(pile, deck, player, card)
    _moved(dice, deck, entry, f"hand/{player}", "discard")
    pile["discard"].append({**entry, "face_up": True, "by": player, **({"use": use} if use else {})})
    text = (
        f"{player} played {_named(new, deck, card)}{_as(use)} from {_title(new, deck)}{_text_of(new, deck, card)}; "
        f"{_sizes_text(pile, player)}."
    )
    return new, [_shown("deck.played", text, new, deck, player, entry, {"use": use} if use else None)]


def discard(state: Mapping[str, Any], deck: str, player: str, card: str, dice: Dice) -> tuple[DecksState, list[Event]]:
    """Discard a card from the hand: face up (shown, with its opening) or face down (only the
    player learns which card; the others learn that one was discarded), as the deck says."""
    new = thaw(state)
    pile = _pile(new, deck)
    entry = _take_from_hand(pile, deck, player, card)
    face_up = definition_of(new, deck)["discard"] == "face-up"
    _moved(dice, deck, entry, f"hand/{player}", "discard", secret=not face_up)
    pile["discard"].append({**entry, "face_up": face_up, "by": player})
    if face_up:
        text = f"{player} discarded {_named(new, deck, card)} face up; {_sizes_text(pile, player)}."
        return new, [_shown("deck.discarded", text, new, deck, player, entry)]
    mine = make_event(
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
    new = thaw(state)
    pile = _pile(new, deck)
    if any(entry["card"] == card for entry in pile["hands"].get(player, [])):
        entry, where = _take_from_hand(pile, deck, player, card), "hand"
        _moved(dice, deck, entry, f"hand/{player}", "removed")
    else:
        index = _face_up_index(pile, card)
        if index is None:
            raise DeckError(f"{player} holds no '{card}' of deck '{deck}', and none is face up in its discard pile")
        entry, where = pile["discard"].pop(index), "discard pile"
        _moved(dice, deck, entry, "discard", "removed")
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
    new = thaw(state)
    pile = _pile(new, deck)
    entry = _take_from_hand(pile, deck, player, card)
    label = None
    _moved(dice, deck, entry, f"hand/{player}", "draw-top" if to == "top" else "draw-bottom", secret=True)
    if to == "top":
        pile["draw"].insert(0, entry)
    elif to == "bottom":
        pile["draw"].append(entry)
    else:
        cards = [e["card"] for e in [*pile["draw"], entry]]
        label = _new_draw_pile(pile, deck, cards, dice, piles_source(["draw"]))
    place = {"top": "on top of", "bottom": "at the bottom of", "shuffle": "shuffled into"}[to]
    mine = make_event(
        "hand.returned",
        f"{player} returned {_named(new, deck, card)} {place} the {_title(new, deck)} draw pile.",
        {"deck": deck, "player": player, "card": card, "to": to},
        (player,),
    )
    shuffled = f" ({label})" if label else ""
    text = f"{player} returned a card {place} the {_title(new, deck)} draw pile{shuffled}; {_sizes_text(pile, player)}."
    data = {**_sizes(pile), "deck": deck, "player": player, "to": to, "label": label}
    return new, [mine, _public("deck.returned", text, data)]


# -- helpers ------------------------------------------------------------------------------


def _pile(state: DecksState, deck: str) -> dict[str, Any]:
    pile = state["decks"].get(deck)
    if pile is None:
        raise DeckError(f"there is no deck '{deck}'; decks: {', '.join(deck_ids(state)) or 'none'}")
    return pile


def definition_of(state: Mapping[str, Any], deck: str) -> Mapping[str, Any]:
    """Return the definition a deck (or a player's copy of it) was made from."""
    return state["definitions"][state["decks"][deck]["deck"]]


def _require_holder(pile: Mapping[str, Any], deck: str, player: str) -> None:
    if player not in pile["hands"]:
        raise DeckError(f"{player} holds no hand of deck '{deck}' (it is {pile['owner']}'s)")


def _room(state: DecksState, deck: str, player: str) -> int:
    limit = definition_of(state, deck)["hand_limit"]
    held = len(state["decks"][deck]["hands"][player])
    return MAX_CARDS if limit is None else max(0, limit - held)


def _take_top(state: DecksState, deck: str, dice: Dice, events: list[Event], player: str) -> dict[str, Any] | None:
    """Take the top card of the draw pile into the player's hand, first reshuffling the discards
    into an empty draw pile when the deck says so; None when there is no card to take."""
    pile = state["decks"][deck]
    if not pile["draw"] and pile["discard"] and definition_of(state, deck)["reshuffle"] == "when-empty":
        reshuffled, happened = reshuffle(state, deck, dice, reason="the draw pile ran out")
        pile.update(reshuffled["decks"][deck])
        events += happened
    if not pile["draw"]:
        return None
    entry: dict[str, Any] = pile["draw"].pop(0)
    _moved(dice, deck, entry, "draw", f"hand/{player}")
    return entry


def _moved(dice: Dice, deck: str, entry: Mapping[str, Any], source: str, to: str, secret: bool = False) -> None:
    """List the card's move in the record by the position it holds (none before any shuffle)."""
    opening = entry["opening"]
    if opening is not None:
        dice.move_card(deck, (opening["label"], opening["index"]), source, to, secret=secret)


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


def _new_draw_pile(pile: dict[str, Any], deck: str, cards: list[str], dice: Dice, source: Mapping[str, Any]) -> str:
    """Make the draw pile a new hidden shuffle of `cards` (taken in sorted order, so the shuffle's
    input says nothing of where they were, and the record says what they are: `source`);
    return its label."""
    number = pile["shuffles"] + 1
    label = shuffle_label(deck, number)
    hidden = dice.hidden_shuffle(sorted(cards), label=label, source={**source, "deck": deck})
    pile["draw"] = [{"card": card, "opening": hidden.opening(i)} for i, card in enumerate(hidden.values)]
    pile["shuffles"] = number
    return label


def _title(state: Mapping[str, Any], deck: str) -> str:
    pile = state["decks"][deck]
    title = definition_of(state, deck)["title"]
    return f"{title} ({pile['owner']}'s)" if definition_of(state, deck)["per_player"] else str(title)


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


def make_event(kind: str, text: str, data: Mapping[str, Any], visible_to: Any = "all") -> Event:
    """Return an event; `Event` is imported here since referee.kit imports referee.kit.decks."""
    return Event(kind, text, data, visible_to)


def _public(kind: str, text: str, data: Mapping[str, Any]) -> Event:
    return make_event(kind, text, data, "all")


def _names(state: Mapping[str, Any], deck: str, entries: list[dict[str, Any]]) -> str:
    return ", ".join(_named(state, deck, entry["card"]) for entry in entries)


def _private(
    kind: str, player: str, text: str, deck: str, entries: list[dict[str, Any]], state: Mapping[str, Any]
) -> Event:
    """Return the event that shows `entries` to `player` alone, with the opening of each."""
    return make_event(
        kind,
        text,
        {
            "deck": deck,
            "player": player,
            "cards": [entry["card"] for entry in entries],
            "openings": [entry["opening"] for entry in entries if entry["opening"] is not None],
            **_data_of(state, deck, [entry["card"] for entry in entries]),
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
    data.update(_data_of(state, deck, [entry["card"]]))
    return _public(kind, text, data)


# -- card-driven games: set-aside cards, cards in play, hands that trade cards -------------

Use = str  # how a card was played: `operations`, `event`, `interrupt`, any word the deck allows
ENDS: tuple[str, ...] = ("discard", "removed")


def card_data(state: Mapping[str, Any], deck: str, card: str) -> dict[str, Any]:
    """Return a card's data as its deck defines it (the `fields` the deck declares, and `text`),
    `{}` for a card without any. Card data is public rules data: letters show it when the card
    is shown or played (`{}` too for an id the deck does not define)."""
    definition = state["definitions"][state["decks"][deck]["deck"]]
    found = next((c for c in definition["cards"] if c["id"] == card), None)
    return thaw(found.get("data", {})) if found is not None else {}


def set_aside_cards(state: Mapping[str, Any], deck: str) -> list[str]:
    """Return the ids of a deck's set-aside cards (not in the opening draw pile; public), a copy
    once each, in the definition's order."""
    return [entry["card"] for entry in state["decks"][deck].get("set_aside", [])]


def bring_in(state: Mapping[str, Any], deck: str, cards: Sequence[str], dice: Dice) -> tuple[DecksState, list[Event]]:
    """Put the named set-aside cards (an id once a copy) into the draw pile, shuffling the whole
    draw pile anew (one hidden shuffle; the record says which cards came in); the public event
    names them."""
    new = thaw(state)
    pile = _pile(new, deck)
    if isinstance(cards, str) or not cards:
        raise DeckError(f"bring_in takes a list of set-aside card ids of deck '{deck}', got {cards!r}")
    if not is_started(new, deck):
        raise DeckError(f"deck '{deck}' is not shuffled yet: start it before bringing cards in")
    aside = pile.get("set_aside", [])
    missing = Counter(cards) - Counter(entry["card"] for entry in aside)
    if missing:
        held = ", ".join(entry["card"] for entry in aside) or "none"
        raise DeckError(f"deck '{deck}' has no set-aside {', '.join(sorted(missing))} (set aside: {held})")
    wanted = Counter(cards)
    pile["set_aside"] = []
    for entry in aside:
        if wanted[entry["card"]]:
            wanted[entry["card"]] -= 1
        else:
            pile["set_aside"].append(entry)
    before = len(pile["draw"])
    label = _new_draw_pile(
        pile, deck, [e["card"] for e in pile["draw"]] + list(cards), dice, piles_source(["draw"], Counter(cards))
    )
    names = ", ".join(_named(new, deck, card) for card in cards)
    text = (
        f"{_count(len(cards))} came into the {_title(new, deck)} draw pile ({names}), shuffled with the "
        f"{_count(before)} it held: {_count(len(pile['draw']))} ({label})."
    )
    data = {**_sizes(pile), "deck": deck, "label": label, "cards": list(cards)}
    data.update(_data_of(new, deck, cards))
    return new, [_public("deck.brought_in", text, data)]


def put_in_play(
    state: Mapping[str, Any], deck: str, player: str, card: str, dice: Dice, use: Use | None = None
) -> tuple[DecksState, list[Event]]:
    """Play a card from the hand face up into the deck's in-play zone, where it stays (an event
    that lasts) until `end_in_play`; its opening goes to everyone, with how it was used."""
    new = thaw(state)
    pile = _pile(new, deck)
    _check_use(new, deck, use)
    entry = _take_from_hand(pile, deck, player, card)
    _moved(dice, deck, entry, f"hand/{player}", IN_PLAY)
    pile.setdefault("in_play", []).append({**entry, "by": player, **({"use": use} if use else {})})
    text = (
        f"{player} put {_named(new, deck, card)} in play{_as(use)} from {_title(new, deck)}, where it stays"
        f"{_text_of(new, deck, card)}; {_sizes_text(pile, player)}."
    )
    return new, [_shown("deck.in_play", text, new, deck, player, entry, {"use": use} if use else None)]


def end_in_play(
    state: Mapping[str, Any], deck: str, card: str, to: str, dice: Dice, by: str | None = None
) -> tuple[DecksState, list[Event]]:
    """Move a card from the in-play zone to the discard pile (`to="discard"`, face up) or out of
    the game (`to="removed"`); the longest in play of its copies goes."""
    if to not in ENDS:
        raise DeckError(f"a card in play goes to one of {', '.join(ENDS)}, not {to!r}")
    new = thaw(state)
    pile = _pile(new, deck)
    zone = pile.get("in_play", [])
    index = next((i for i, entry in enumerate(zone) if entry["card"] == card), None)
    if index is None:
        shown = ", ".join(entry["card"] for entry in zone) or "none"
        raise DeckError(f"no '{card}' of deck '{deck}' is in play (in play: {shown})")
    entry = zone.pop(index)
    _moved(dice, deck, entry, IN_PLAY, to)
    kept = {"card": entry["card"], "opening": entry["opening"]}
    if to == "discard":
        pile["discard"].append({**kept, "face_up": True, "by": entry["by"], **_use_of(entry)})
    else:
        pile["removed"].append({**kept, "by": by or entry["by"]})
    where = "onto the discard pile" if to == "discard" else "out of the game"
    who = f"{by} took" if by else "The referee took"
    text = f"{who} {_named(new, deck, card)} out of play, {where}; draw pile {len(pile['draw'])}."
    extra = {"to": to, "by": by, "played_by": entry["by"], **_use_of(entry)}
    return new, [_shown("deck.out_of_play", text, new, deck, entry["by"], kept, extra)]


def give(
    state: Mapping[str, Any],
    deck: str,
    from_player: str,
    to_player: str,
    card: str,
    dice: Dice,
    shown: bool = False,
) -> tuple[DecksState, list[Event]]:
    """Move a card from one hand to another: the receiver gets the card with its opening; the
    others learn that a card moved (which card too when `shown`, as some rules say)."""
    new = thaw(state)
    pile = _pile(new, deck)
    _require_holder(pile, deck, to_player)
    if to_player == from_player:
        raise DeckError(f"{from_player} cannot give a card to themselves")
    if _room(new, deck, to_player) < 1:
        raise DeckError(f"{to_player}'s hand of deck '{deck}' is at its limit: they cannot take another card")
    entry = _take_from_hand(pile, deck, from_player, card)
    _moved(dice, deck, entry, f"hand/{from_player}", f"hand/{to_player}")
    pile["hands"][to_player].append(entry)
    named = _named(new, deck, card)
    events = [
        make_event(
            "hand.given",
            f"{from_player} gave {named} from {_title(new, deck)} to {to_player}.",
            {"deck": deck, "player": from_player, "to": to_player, "card": card},
            (from_player,),
        ),
        _private(
            "hand.received",
            to_player,
            f"{to_player} received {named} from {from_player} ({_title(new, deck)}){_text_of(new, deck, card)}.",
            deck,
            [entry],
            new,
        ),
    ]
    if shown:
        text = f"{from_player} gave {named} to {to_player} from {_title(new, deck)}; {_sizes_text(pile, to_player)}."
        events.append(_shown("deck.given", text, new, deck, from_player, entry, {"to": to_player}))
    else:
        text = f"{from_player} gave a card of {_title(new, deck)} to {to_player}; {_sizes_text(pile, to_player)}."
        events.append(
            _public("deck.given", text, {**_sizes(pile), "deck": deck, "player": from_player, "to": to_player})
        )
    return new, events


def take_at_random(
    state: Mapping[str, Any],
    deck: str,
    player: str,
    dice: Dice,
    to: str = "discard",
    shown_to: Sequence[str] = (),
) -> tuple[DecksState, list[Event]]:
    """Take a card at random from the player's hand, by a labelled roll over the hand in the
    order its cards came in, to `to`: `discard` (face up), `removed`, or a player (`bob` or
    `hand/bob`) who receives it with its opening. `shown_to` names others who see the card
    (its opening). An empty hand gives nothing, and no roll is made."""
    new = thaw(state)
    pile = _pile(new, deck)
    _require_holder(pile, deck, player)
    receiver = None if to in ENDS else to.removeprefix("hand/")
    if receiver is not None:
        _require_holder(pile, deck, receiver)
        if receiver == player:
            raise DeckError(f"a card taken at random from {player}'s hand goes elsewhere than back to them")
    hand = pile["hands"][player]
    if not hand:
        text = f"{player} holds no card of {_title(new, deck)}: none was taken at random."
        return new, [_public("deck.taken", text, {**_sizes(pile), "deck": deck, "player": player, "to": to})]
    if receiver is not None and _room(new, deck, receiver) < 1:
        raise DeckError(f"{receiver}'s hand of deck '{deck}' is at its limit: they cannot take another card")
    pile["picks"] = pile.get("picks", 0) + 1
    label = f"deck/{deck}/take-{pile['picks']}"
    picked = dice.uniform(len(hand), label=label)
    entry = hand.pop(picked)
    card, named = entry["card"], _named(new, deck, entry["card"])
    opening = entry["opening"]
    place = "discard" if to == "discard" else "removed" if to == "removed" else f"hand/{receiver}"
    if opening is not None:
        dice.move_card(deck, (opening["label"], opening["index"]), f"hand/{player}", place, pick=label)
    base = {"deck": deck, "player": player, "to": receiver or to, "label": label}
    events = [
        make_event("hand.taken", f"{named} was taken at random from {player}'s hand.", base | {"card": card}, (player,))
    ]
    if receiver is None:
        if to == "discard":
            pile["discard"].append({**entry, "face_up": True, "by": player})
        else:
            pile["removed"].append({**entry, "by": player})
        where = "onto the discard pile" if to == "discard" else "out of the game"
        text = (
            f"{named} was taken at random from {player}'s hand ({label}), {where}{_text_of(new, deck, card)}; "
            f"{_sizes_text(pile, player)}."
        )
        events.append(_shown("deck.taken", text, new, deck, player, entry, {"to": to, "label": label}))
        return new, events
    pile["hands"][receiver].append(entry)
    events.append(
        _private(
            "hand.received",
            receiver,
            f"{receiver} took {named} at random from {player}'s hand ({_title(new, deck)}){_text_of(new, deck, card)}.",
            deck,
            [entry],
            new,
        )
    )
    watchers = sorted(set(shown_to) - {player, receiver})
    if watchers and opening is not None:
        for watcher in watchers:
            dice.move_card(deck, (opening["label"], opening["index"]), f"hand/{receiver}", f"look/{watcher}")
        events.append(
            make_event(
                "hand.shown",
                f"{', '.join(watchers)} saw the card {receiver} took at random from {player}: {named}"
                f"{_text_of(new, deck, card)}.",
                {
                    "deck": deck,
                    "player": receiver,
                    "cards": [card],
                    "openings": [opening],
                    **_data_of(new, deck, [card]),
                },
                tuple(watchers),
            )
        )
    text = (
        f"{receiver} took a card at random from {player}'s hand of {_title(new, deck)} ({label}); "
        f"{_sizes_text(pile, player)}."
    )
    events.append(_public("deck.taken", text, {**_sizes(pile), **base, "shown_to": watchers}))
    return new, events


def show(
    state: Mapping[str, Any],
    deck: str,
    player: str,
    cards: Sequence[str] | Literal["hand"],
    to_players: Sequence[str],
    dice: Dice,
) -> tuple[DecksState, list[Event]]:
    """Show cards of the player's hand (card ids, a copy once each, or "hand": all of it) to the
    chosen players: each receives the cards with their openings; the others learn how many
    cards were shown to whom, not which. The cards stay in the hand."""
    new = thaw(state)
    pile = _pile(new, deck)
    _require_holder(pile, deck, player)
    hand = pile["hands"][player]
    viewers = sorted(set(to_players) - {player})
    if not viewers:
        raise DeckError(f"{player} shows cards to other players: name at least one ({', '.join(to_players) or 'none'})")
    if cards == "hand":
        chosen = list(hand)
    else:
        if isinstance(cards, str):
            raise DeckError(f'show takes a list of card ids, or "hand", not {cards!r}')
        chosen, left = [], list(hand)
        for card in cards:
            entry = next((e for e in left if e["card"] == card), None)
            if entry is None:
                raise DeckError(f"{player} holds no (further) '{card}' of deck '{deck}' to show")
            left.remove(entry)
            chosen.append(entry)
    for entry in chosen:
        for viewer in viewers:
            _moved(dice, deck, entry, f"hand/{player}", f"look/{viewer}")
    shown_cards = ", ".join(_named(new, deck, e["card"]) + _text_of(new, deck, e["card"]) for e in chosen)
    what = shown_cards or "no card (an empty hand)"
    ids = [entry["card"] for entry in chosen]
    shown = make_event(
        "hand.shown",
        f"{player} showed {', '.join(viewers)} from {_title(new, deck)}: {what}.",
        {
            "deck": deck,
            "player": player,
            "cards": ids,
            "openings": [entry["opening"] for entry in chosen if entry["opening"] is not None],
            **_data_of(new, deck, ids),
        },
        tuple(viewers),
    )
    mine = make_event(
        "hand.showed",
        f"{player} showed {', '.join(viewers)} from {_title(new, deck)}: {what}.",
        {"deck": deck, "player": player, "cards": ids, "to": viewers},
        (player,),
    )
    whole = " (the whole hand)" if cards == "hand" else ""
    text = f"{player} showed {_count(len(chosen))}{whole} of {_title(new, deck)} to {', '.join(viewers)}."
    data = {**_sizes(pile), "deck": deck, "player": player, "to": viewers, "count": len(chosen)}
    return new, [mine, shown, _public("deck.shown", text, data)]


# -- helpers of card-driven games ---------------------------------------------------------

IN_PLAY = "in-play"


def _check_use(state: Mapping[str, Any], deck: str, use: str | None) -> None:
    allowed = definition_of(state, deck).get("uses")
    if use is not None and (not isinstance(use, str) or (allowed is not None and use not in allowed)):
        words = ", ".join(allowed) if allowed is not None else "a word"
        raise DeckError(f"deck '{deck}' takes a use of {words}, not {use!r}")


def _use_of(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {"use": entry["use"]} if entry.get("use") else {}


def _as(use: str | None) -> str:
    return f" as {use}" if use else ""


def _text_of(state: Mapping[str, Any], deck: str, card: str) -> str:
    """Return ` ("text")` for a card with a text, else nothing."""
    text = card_data(state, deck, card).get("text")
    return f' ("{text}")' if text else ""


def _data_of(state: Mapping[str, Any], deck: str, cards: Sequence[str]) -> dict[str, Any]:
    """Return `{"card_data": {card: data}}` for the cards with data, else {} (events of decks
    without card data keep their form)."""
    found = {card: card_data(state, deck, card) for card in dict.fromkeys(cards)}
    found = {card: data for card, data in found.items() if data}
    return {"card_data": found} if found else {}
