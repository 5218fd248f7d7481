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
            decks[key] = {
                "deck": deck_id,
                "owner": owner,
                "draw": [{"card": c["id"], "opening": None} for c in definition["cards"] for _ in range(c["count"])],
                "discard": [],
                "removed": [],
                "hands": {player: [] for player in holders},
                "shuffles": 0,
            }
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
    source = definition_source(pile["deck"], defined_cards(new, deck)) if fresh else piles_source(["draw"])
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
    entry = _take_from_hand(pile, deck, player, card)
    _moved(dice, deck, entry, f"hand/{player}", "discard")
    pile["discard"].append({**entry, "face_up": True, "by": player})
    text = f"{player} played {_named(new, deck, card)} from {_title(new, deck)}; {_sizes_text(pile, player)}."
    return new, [_shown("deck.played", text, new, deck, player, entry)]


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


def _private(kind: str, player: str, text: str, deck: str, entries: list[dict[str, Any]]) -> Event:
    """Return the event that shows `entries` to `player` alone, with the opening of each."""
    return make_event(
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


# -- card-driven games: set-aside cards, cards in play, hands that trade cards -------------

Use = str  # how a card was played: `operations`, `event`, `interrupt`, any word the deck allows
ENDS: tuple[str, ...] = ("discard", "removed")


def card_data(state: Mapping[str, Any], deck: str, card: str) -> dict[str, Any]:
    """Return a card's data as its deck defines it (the `fields` the deck declares, and `text`),
    `{}` for a card without any. Card data is public rules data: letters show it when the card
    is shown or played."""
    raise NotImplementedError("card_data: being written (issue 20)")


def set_aside_cards(state: Mapping[str, Any], deck: str) -> list[str]:
    """Return the ids of a deck's set-aside cards (not in the opening draw pile; public), a copy
    once each, in the definition's order."""
    raise NotImplementedError("set_aside_cards: being written (issue 20)")


def bring_in(state: Mapping[str, Any], deck: str, cards: Sequence[str], dice: Dice) -> tuple[DecksState, list[Event]]:
    """Put the named set-aside cards (an id once a copy) into the draw pile, shuffling the whole
    draw pile anew (one hidden shuffle; the record says which cards came in); the public event
    names them."""
    raise NotImplementedError("bring_in: being written (issue 20)")


def put_in_play(
    state: Mapping[str, Any], deck: str, player: str, card: str, dice: Dice, use: Use | None = None
) -> tuple[DecksState, list[Event]]:
    """Play a card from the hand face up into the deck's in-play zone, where it stays (an event
    that lasts) until `end_in_play`; its opening goes to everyone, with how it was used."""
    raise NotImplementedError("put_in_play: being written (issue 20)")


def end_in_play(
    state: Mapping[str, Any], deck: str, card: str, to: str, dice: Dice, by: str | None = None
) -> tuple[DecksState, list[Event]]:
    """Move a card from the in-play zone to the discard pile (`to="discard"`, face up) or out of
    the game (`to="removed"`)."""
    raise NotImplementedError("end_in_play: being written (issue 20)")


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
    raise NotImplementedError("give: being written (issue 20)")


def take_at_random(
    state: Mapping[str, Any],
    deck: str,
    player: str,
    dice: Dice,
    to: str = "discard",
    shown_to: Sequence[str] = (),
) -> tuple[DecksState, list[Event]]:
    """Take a card at random from the player's hand, by a labelled roll over the hand in order of
    position, to `to`: `discard` (face up), `removed`, or a player (`bob` or `hand/bob`) who
    receives it with its opening. `shown_to` names others who see the card (its opening)."""
    raise NotImplementedError("take_at_random: being written (issue 20)")


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
    raise NotImplementedError("show: being written (issue 20)")
