"""Tests for referee.kit.decks with real hidden draws: definitions, dealing, every operation, what each
player's events and views show, the proofs, and a property: no sequence of operations loses or
makes a card."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.errors import GameDataError
from referee.kit import Event, decks
from referee.kit.schema import check_schema
from referee.protocol.draws import Dice
from referee.protocol.hidden import HiddenDraws

PLAYERS = ("alice", "bob", "carol")
# Every card of the shared decks is unique, with a distinctive name, so a leak is easy to see.
STRATEGY = [{"id": f"s{n:02d}", "name": f"Strategy Card {n:02d}"} for n in range(1, 13)]
DEFINITIONS: dict[str, Any] = {
    "strategy": {"title": "Strategy", "cards": STRATEGY, "hand_limit": 4, "deal": 3},
    "intel": {
        "title": "Intelligence",
        "cards": [{"id": f"i{n}", "name": f"Intel {n}"} for n in range(1, 7)],
        "deal": 1,
        "discard": "face-down",
        "reshuffle": "never",
    },
    "orders": {"cards": [{"id": "march", "count": 3}, {"id": "halt", "count": 2}], "per_player": True},
    "spies": {"cards": [{"id": "agent", "count": 2}], "owner": "bob"},
}


def dice_for(step: int, phase: str = "round") -> Dice:
    """Real dice for one phase: a phase key and a hidden-draw key."""
    key = hashlib.sha256(f"key {step}".encode()).digest()
    hidden = hashlib.sha256(f"hidden {step}".encode()).digest()
    return Dice(key, HiddenDraws(hidden, step, phase))


def started(definitions: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[Event], Dice]:
    dice = dice_for(1)
    state = decks.new_decks(decks.parse_decks(definitions or DEFINITIONS, PLAYERS), PLAYERS)
    state, events = decks.start(state, dice)
    return state, events, dice


def text_of(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=lambda e: e.as_dict())


def visible(events: list[Event], player: str | None) -> list[Event]:
    return [event for event in events if event.is_visible_to(player)]


def commitment_of(salt_hex: str, label: str, index: int, value: str) -> str:
    """The commitment to one position, computed from scratch as a player would."""
    line = f"pbem-hidden/1 {label} {index} {value}\n".encode()
    return hashlib.sha256(bytes.fromhex(salt_hex) + line).hexdigest()


def record_commitments(dice: Dice) -> dict[str, list[str]]:
    """The public record's part: the commitments of each hidden draw, by label."""
    return {entry["label"]: entry["commitments"] for entry in dice.hidden.entries}


def hand(state: dict[str, Any], deck: str, player: str) -> list[str]:
    return [entry["card"] for entry in state["decks"][deck]["hands"][player]]


# -- definitions --------------------------------------------------------------------------------


def test_definitions_get_their_defaults() -> None:
    parsed = decks.parse_decks(DEFINITIONS, PLAYERS)
    assert parsed["orders"] == {
        "title": "orders",
        "cards": [{"id": "march", "name": "march", "count": 3}, {"id": "halt", "name": "halt", "count": 2}],
        "owner": None,
        "per_player": True,
        "hand_limit": None,
        "deal": 0,
        "discard": "face-up",
        "reshuffle": "when-empty",
    }
    assert decks.parse_decks(None, PLAYERS) == {}


@pytest.mark.parametrize(
    "change, where, words",
    [
        ({"colour": "red"}, "options.decks.strategy", "unknown field(s) colour"),
        ({"cards": []}, "options.decks.strategy.cards", "non-empty list"),
        ({"cards": [{"id": "two words"}]}, "options.decks.strategy.cards[0].id", "no spaces"),
        ({"cards": [{"id": "Big"}]}, "options.decks.strategy.cards[0].id", "lower-case"),
        ({"cards": [{"id": "a"}, {"id": "a"}]}, "options.decks.strategy.cards[1].id", "used twice"),
        ({"cards": [{"id": "a", "count": 0}]}, "options.decks.strategy.cards[0].count", "from 1 to 100"),
        ({"cards": [{"id": "a", "colour": 1}]}, "options.decks.strategy.cards[0]", "unknown field(s) colour"),
        ({"owner": "dave"}, "options.decks.strategy.owner", "'dave' is not a player"),
        ({"owner": "bob", "per_player": True}, "options.decks.strategy", "not both"),
        ({"hand_limit": 0}, "options.decks.strategy.hand_limit", "at least 1"),
        ({"deal": 5}, "options.decks.strategy.deal", "over the hand limit of 4"),
        ({"deal": 4, "hand_limit": None, "cards": STRATEGY[:11]}, "options.decks.strategy.deal", "needs 12"),
        ({"discard": "sideways"}, "options.decks.strategy.discard", "face-up, face-down"),
        ({"reshuffle": "always"}, "options.decks.strategy.reshuffle", "when-empty, never"),
    ],
)
def test_a_bad_definition_is_refused_with_its_path(change: dict[str, Any], where: str, words: str) -> None:
    definitions = {**DEFINITIONS, "strategy": {**DEFINITIONS["strategy"], **change}}
    with pytest.raises(GameDataError) as caught:
        decks.parse_decks(definitions, PLAYERS)
    assert caught.value.message.startswith(f"{where}: ") and words in caught.value.message
    assert caught.value.hints


def test_bad_deck_ids_and_shapes() -> None:
    with pytest.raises(GameDataError, match="options.decks: must be a mapping"):
        decks.parse_decks(["strategy"], PLAYERS)
    with pytest.raises(GameDataError, match="deck id 'Strategy Cards'"):
        decks.parse_decks({"Strategy Cards": DEFINITIONS["strategy"]}, PLAYERS)


def test_the_action_schema_is_well_formed() -> None:
    check_schema({"type": "list", "items": decks.CARD_ACTION_SCHEMA})


# -- before and at the start -------------------------------------------------------------------


def test_new_decks_are_unshuffled_and_whole() -> None:
    state = decks.new_decks(decks.parse_decks(DEFINITIONS, PLAYERS), PLAYERS)
    assert decks.deck_ids(state) == ["intel", "orders/alice", "orders/bob", "orders/carol", "spies", "strategy"]
    assert state["decks"]["spies"]["hands"] == {"bob": []}
    assert state["decks"]["orders/carol"]["owner"] == "carol"
    assert not any(decks.is_started(state, deck) for deck in decks.deck_ids(state))
    assert decks.check(state) == []


def test_start_shuffles_each_deck_into_a_permutation_and_deals() -> None:
    state, events, dice = started()
    commitments = record_commitments(dice)
    assert sorted(commitments) == sorted(decks.shuffle_label(deck, 1) for deck in decks.deck_ids(state))
    for deck in decks.deck_ids(state):
        assert decks.cards_of(state, deck) == decks.defined_cards(state, deck)
        assert len(commitments[decks.shuffle_label(deck, 1)]) == sum(decks.defined_cards(state, deck).values())
    for player in PLAYERS:
        assert len(hand(state, "strategy", player)) == 3 and len(hand(state, "intel", player)) == 1
    assert len(state["decks"]["strategy"]["draw"]) == 12 - 9
    # Dealt one at a time: alice, bob, carol, alice...
    dealt = [e["opening"]["index"] for p in PLAYERS for e in state["decks"]["strategy"]["hands"][p]]
    assert dealt == [0, 3, 6, 1, 4, 7, 2, 5, 8]
    assert decks.check(state) == []
    kinds = [(event.kind, event.visible_to) for event in events if event.data.get("deck") == "strategy"]
    assert kinds == [
        ("deck.shuffled", "all"),
        ("hand.dealt", ("alice",)),
        ("hand.dealt", ("bob",)),
        ("hand.dealt", ("carol",)),
        ("deck.dealt", "all"),
    ]


def test_a_shuffle_depends_on_the_hidden_key_and_not_on_the_piles_order() -> None:
    state = decks.new_decks(decks.parse_decks(DEFINITIONS, PLAYERS), PLAYERS)
    first = decks.shuffle(state, "strategy", dice_for(1))[0]
    assert first == decks.shuffle(state, "strategy", dice_for(1))[0]
    other = decks.shuffle(state, "strategy", dice_for(2))[0]
    order = [e["card"] for e in first["decks"]["strategy"]["draw"]]
    assert [e["card"] for e in other["decks"]["strategy"]["draw"]] != order
    reversed_pile = {**state, "decks": {**state["decks"], "strategy": {**state["decks"]["strategy"]}}}
    reversed_pile["decks"]["strategy"]["draw"] = state["decks"]["strategy"]["draw"][::-1]
    assert [
        e["card"] for e in decks.shuffle(reversed_pile, "strategy", dice_for(1))[0]["decks"]["strategy"]["draw"]
    ] == order


def test_a_dealt_cards_opening_checks_against_the_records_commitment() -> None:
    state, events, dice = started()
    commitments = record_commitments(dice)
    for player in PLAYERS:
        for deck in ("strategy", "intel"):
            for entry in state["decks"][deck]["hands"][player]:
                opening = entry["opening"]
                assert opening["value"] == entry["card"] and (opening["turn"], opening["phase"]) == (1, "round")
                expected = commitments[opening["label"]][opening["index"]]
                assert commitment_of(opening["salt"], opening["label"], opening["index"], entry["card"]) == expected
                forged = "s99" if entry["card"] != "s99" else "s98"
                assert commitment_of(opening["salt"], opening["label"], opening["index"], forged) != expected
    # The player's own event carries exactly the openings of their cards.
    mine = next(
        e for e in events if e.kind == "hand.dealt" and e.visible_to == ("alice",) and e.data["deck"] == "intel"
    )
    assert mine.data["openings"] == [e["opening"] for e in state["decks"]["intel"]["hands"]["alice"]]


def test_opponents_events_and_views_never_show_a_hidden_card() -> None:
    state, events, dice = started()
    state, more = decks.draw(state, "strategy", "alice", 1, dice)
    state, looked = decks.look(state, "strategy", "bob", 2, dice)
    events += more + looked
    pile = state["decks"]["strategy"]
    for player in (*PLAYERS, None):
        allowed = pile["hands"].get(player or "", []) + (pile["draw"][:2] if player == "bob" else [])
        hidden = [e for p in PLAYERS for e in pile["hands"][p]] + pile["draw"]
        forbidden = [e for e in hidden if e not in allowed]
        shown = text_of(visible(events, player)) + text_of(decks.deck_view(state, player))
        for entry in forbidden:
            name = decks.card_name(state, "strategy", entry["card"])
            for secret in (f'"{entry["card"]}"', name, entry["opening"]["salt"]):
                assert secret not in shown, (player, secret)
        for entry in allowed:
            assert entry["opening"]["salt"] in shown
    # bob looked at the two top cards: they reached him alone, with their openings.
    event = next(e for e in looked if e.kind == "hand.looked")
    assert event.visible_to == ("bob",) and event.data["openings"] == [entry["opening"] for entry in pile["draw"][:2]]
    assert pile["draw"][0]["opening"]["index"] == 10  # 9 dealt, 1 drawn by alice: the look moved nothing


def test_views_show_own_hand_with_proofs_and_counts_of_the_rest() -> None:
    state, _, _ = started()
    alice = decks.deck_view(state, "alice")
    strategy = alice["strategy"]
    assert strategy["hand_sizes"] == {"alice": 3, "bob": 3, "carol": 3} and strategy["draw_pile"] == 3
    for shown, entry in zip(strategy["your_hand"], state["decks"]["strategy"]["hands"]["alice"], strict=True):
        assert shown["card"] == entry["card"] and shown["name"].startswith("Strategy Card")
        assert shown["proof"] == {
            k: entry["opening"][k] for k in ("label", "turn", "phase", "index", "salt", "commitment")
        }
    assert "your_hand" not in alice["spies"] and "your_hand" not in alice["orders/bob"]
    assert alice["orders/alice"]["your_hand"] == []
    public = decks.deck_view(state, None)
    assert not any("your_hand" in deck for deck in public.values())


# -- operations ---------------------------------------------------------------------------------


def test_play_shows_the_card_to_everyone_with_its_opening() -> None:
    state, _, dice = started()
    card = hand(state, "strategy", "alice")[1]
    state, events = decks.play(state, "strategy", "alice", card, dice_for(2))
    assert [e.kind for e in events] == ["deck.played"] and events[0].visible_to == "all"
    opening = events[0].data["openings"][0]
    assert opening["value"] == card
    assert (
        commitment_of(opening["salt"], opening["label"], opening["index"], card)
        == (record_commitments(dice)[opening["label"]][opening["index"]])
    )
    assert "Strategy Card" in events[0].text and "alice now holds 2 cards" in events[0].text
    assert decks.deck_view(state, "carol")["strategy"]["discard_pile"] == [
        {"card": card, "name": decks.card_name(state, "strategy", card), "by": "alice"}
    ]
    assert decks.check(state) == []


def test_a_face_down_discard_leaks_nothing() -> None:
    state, _, _ = started()
    card = hand(state, "intel", "carol")[0]
    opening = state["decks"]["intel"]["hands"]["carol"][0]["opening"]
    state, events = decks.discard(state, "intel", "carol", card, dice_for(2))
    assert [(e.kind, e.visible_to) for e in events] == [("hand.discarded", ("carol",)), ("deck.discarded", "all")]
    assert not any("openings" in e.data for e in events)  # not even the position goes on record
    for player in ("alice", "bob", None):
        shown = text_of(visible(events, player)) + text_of(decks.deck_view(state, player))
        for secret in (card, decks.card_name(state, "intel", card), opening["salt"], opening["commitment"]):
            assert secret not in shown, (player, secret)
    assert decks.deck_view(state, "bob")["intel"]["discard_pile"] == [{"by": "carol", "face_down": True}]
    assert decks.deck_view(state, "carol")["intel"]["discard_pile"][0]["card"] == card
    assert ("/cards/decks/intel/discard/0/card", ("carol",)) in decks.secrets(state, "/cards")


def test_hand_limit_refuses_in_orders_and_stops_a_draw() -> None:
    state, _, dice = started()
    problems = decks.action_problems(state, "alice", [{"draw": "strategy", "count": 2}])
    assert [(p.code, p.path) for p in problems] == [("illegal.cards.hand-limit", "orders.cards[0].count")]
    assert "hand limit is 4" in problems[0].message
    card = hand(state, "strategy", "alice")[0]
    assert (
        decks.action_problems(state, "alice", [{"play": card, "deck": "strategy"}, {"draw": "strategy", "count": 2}])
        == []
    )
    state, events = decks.draw(state, "strategy", "alice", 3, dice_for(2))
    assert len(hand(state, "strategy", "alice")) == 4
    public = next(e for e in events if e.kind == "deck.drawn")
    assert public.data["count"] == 1 and public.data["asked"] == 3 and "hand limit" in public.text


def test_reshuffle_when_empty_makes_a_new_draw_pile_of_the_discards() -> None:
    state, _, _ = started({"d": {"cards": [{"id": f"c{n}"} for n in range(6)], "deal": 2}})
    for player in PLAYERS:
        for card in hand(state, "d", player):
            state, _ = decks.play(state, "d", player, card, dice_for(2))
    assert state["decks"]["d"]["draw"] == [] and len(state["decks"]["d"]["discard"]) == 6
    dice = dice_for(3)
    state, events = decks.draw(state, "d", "bob", 2, dice)
    assert [e.kind for e in events] == ["deck.shuffled", "hand.drawn", "deck.drawn"]
    assert events[0].data["label"] == "deck/d/shuffle-2" and "ran out" in events[0].text
    assert list(record_commitments(dice)) == ["deck/d/shuffle-2"]
    assert state["decks"]["d"]["discard"] == [] and len(state["decks"]["d"]["draw"]) == 4
    assert all(e["opening"]["label"] == "deck/d/shuffle-2" for e in state["decks"]["d"]["hands"]["bob"])
    assert decks.check(state) == []


def test_without_reshuffle_a_draw_from_an_empty_pile_comes_short() -> None:
    state, _, _ = started({"d": {"cards": [{"id": "a"}, {"id": "b"}], "reshuffle": "never"}})
    state, _ = decks.draw(state, "d", "alice", 2, dice_for(2))
    state, _ = decks.play(state, "d", "alice", "a", dice_for(2))
    state, events = decks.draw(state, "d", "bob", 1, dice_for(3))
    assert [e.kind for e in events] == ["deck.drawn"] and "empty draw pile" in events[0].text
    assert hand(state, "d", "bob") == []


def test_return_to_top_and_bottom_keeps_the_opening_and_shuffle_in_makes_a_new_shuffle() -> None:
    state, _, _ = started()
    entries = state["decks"]["strategy"]["hands"]["alice"]
    first, second, third = (dict(e) for e in entries)
    state, events = decks.return_card(state, "strategy", "alice", first["card"], "top", dice_for(2))
    assert state["decks"]["strategy"]["draw"][0] == first
    assert [(e.kind, e.visible_to) for e in events] == [("hand.returned", ("alice",)), ("deck.returned", "all")]
    assert first["card"] not in text_of(visible(events, "bob"))
    state, _ = decks.return_card(state, "strategy", "alice", second["card"], "bottom", dice_for(2))
    assert state["decks"]["strategy"]["draw"][-1] == second
    state, drawn = decks.draw(state, "strategy", "bob", 0, dice_for(2))
    state, _ = decks.draw(state, "strategy", "carol", 1, dice_for(2))
    assert state["decks"]["strategy"]["hands"]["carol"][-1] == first  # the top card, with its old proof
    dice = dice_for(3)
    state, events = decks.return_card(state, "strategy", "alice", third["card"], "shuffle", dice)
    assert events[1].data["label"] == "deck/strategy/shuffle-2" and state["decks"]["strategy"]["shuffles"] == 2
    assert all(e["opening"]["label"] == "deck/strategy/shuffle-2" for e in state["decks"]["strategy"]["draw"])
    assert len(record_commitments(dice)["deck/strategy/shuffle-2"]) == len(state["decks"]["strategy"]["draw"])
    assert decks.check(state) == []


def test_remove_from_the_hand_or_the_face_up_discards() -> None:
    state, _, _ = started()
    mine = hand(state, "strategy", "bob")
    state, _ = decks.play(state, "strategy", "bob", mine[0], dice_for(2))
    state, events = decks.remove(state, "strategy", "carol", mine[0], dice_for(2))
    assert events[0].data["from"] == "discard pile" and events[0].data["openings"][0]["value"] == mine[0]
    state, events = decks.remove(state, "strategy", "bob", mine[1], dice_for(2))
    assert events[0].data["from"] == "hand" and events[0].visible_to == "all"
    assert [c["card"] for c in decks.deck_view(state, None)["strategy"]["removed"]] == mine[:2]
    assert decks.check(state) == []
    with pytest.raises(decks.DeckError, match="holds no"):
        decks.remove(state, "strategy", "bob", mine[0], dice_for(2))


def test_reshuffle_and_shuffle_by_a_player() -> None:
    state, _, _ = started()
    state, _ = decks.play(state, "strategy", "alice", hand(state, "strategy", "alice")[0], dice_for(2))
    state, events = decks.reshuffle(state, "strategy", dice_for(2), by="alice")
    assert events[0].data == {
        "deck": "strategy",
        "label": "deck/strategy/shuffle-2",
        "by": "alice",
        "discards": 1,
        "draw_pile": 4,
        "discard_pile": 0,
        "hands": {"alice": 2, "bob": 3, "carol": 3},
    }
    state, events = decks.shuffle(state, "strategy", dice_for(3), by="bob")
    assert events[0].data["label"] == "deck/strategy/shuffle-3" and decks.check(state) == []


# -- orders -------------------------------------------------------------------------------------


def codes(state: dict[str, Any], player: str, actions: list[dict[str, Any]]) -> list[tuple[str, str]]:
    problems = decks.action_problems(state, player, actions)
    assert all(problem.message for problem in problems)
    return [(problem.code, problem.path) for problem in problems]


def test_action_problems() -> None:
    state, _, _ = started()
    held = hand(state, "strategy", "alice")[0]
    other = hand(state, "strategy", "bob")[0]
    assert codes(state, "alice", [{"play": other, "deck": "strategy"}]) == [
        ("illegal.cards.not-held", "orders.cards[0].play")
    ]
    assert codes(state, "alice", [{"draw": "nope"}]) == [("illegal.cards.unknown-deck", "orders.cards[0].draw")]
    assert codes(state, "alice", [{"draw": "spies"}]) == [("illegal.cards.not-yours", "orders.cards[0].draw")]
    assert codes(state, "bob", [{"draw": "spies", "count": 2}]) == []
    assert codes(state, "alice", [{"look": "orders/bob"}]) == [("illegal.cards.unknown-deck", "orders.cards[0].look")]
    assert codes(state, "alice", [{"draw": "orders"}, {"draw": "orders/alice"}]) == []
    assert codes(state, "alice", [{"play": held, "draw": "strategy"}]) == [("invalid.cards.verb", "orders.cards[0]")]
    assert codes(state, "alice", [{"count": 2}]) == [("invalid.cards.verb", "orders.cards[0]")]
    assert codes(state, "alice", [{"play": held}]) == [("invalid.missing", "orders.cards[0].deck")]
    assert codes(state, "alice", [{"draw": "strategy", "deck": "strategy"}]) == [
        ("invalid.cards.field", "orders.cards[0].deck")
    ]
    assert codes(state, "alice", [{"return": held, "deck": "strategy"}]) == [("invalid.missing", "orders.cards[0].to")]
    # In order: a card played cannot be played again; one played can be removed from the discards.
    assert codes(state, "alice", [{"play": held, "deck": "strategy"}, {"discard": held, "deck": "strategy"}]) == [
        ("illegal.cards.not-held", "orders.cards[1].discard")
    ]
    assert codes(state, "alice", [{"play": held, "deck": "strategy"}, {"remove": held, "deck": "strategy"}]) == []
    assert codes(state, "alice", [{"remove": other, "deck": "strategy"}]) == [
        ("illegal.cards.not-held", "orders.cards[0].remove")
    ]
    fresh = decks.new_decks(decks.parse_decks(DEFINITIONS, PLAYERS), PLAYERS)
    assert codes(fresh, "alice", [{"draw": "strategy"}]) == [("illegal.cards.not-dealt", "orders.cards[0].draw")]


def test_apply_action_skips_what_no_longer_fits_and_tells_only_the_player() -> None:
    state, _, _ = started()
    other = hand(state, "strategy", "bob")[0]
    state, events = decks.apply_action(state, "alice", {"play": other, "deck": "strategy"}, dice_for(2))
    assert [(e.kind, e.visible_to) for e in events] == [("hand.skipped", ("alice",))]
    state, events = decks.apply_action(state, "carol", {"draw": "orders", "count": 2}, dice_for(2))
    assert len(hand(state, "orders/carol", "carol")) == 2 and events[-1].kind == "deck.drawn"
    state, events = decks.apply_action(state, "alice", {"draw": "strategy", "count": 3}, dice_for(3))
    assert len(hand(state, "strategy", "alice")) == 4  # up to the limit, not skipped


# -- secrets ------------------------------------------------------------------------------------


def resolve_pointer(state: Any, pointer: str) -> tuple[Any, str]:
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    parent = state
    for part in parts[:-1]:
        parent = parent[int(part)] if isinstance(parent, list) else parent[part]
    return parent, parts[-1]


def test_every_secret_reaches_only_the_views_entitled_to_it() -> None:
    state, _, dice = started()
    state, _ = decks.discard(state, "intel", "alice", hand(state, "intel", "alice")[0], dice)
    wrapped = {"cards": state}
    found = decks.secrets(state, "/cards")
    assert ("/cards/decks/orders~1bob/draw/0/card", ()) in found
    for n, (pointer, _) in enumerate(found):
        parent, key = resolve_pointer(wrapped, pointer)
        parent[int(key) if isinstance(parent, list) else key] = f"MARKER{n:04d}X"
    for player in (*PLAYERS, None):
        shown = text_of(decks.deck_view(state, player))
        for n, (pointer, roles) in enumerate(found):
            if player not in roles:
                assert f"MARKER{n:04d}X" not in shown, (player, pointer)
            elif "/hands/" in pointer and not pointer.endswith("/value"):
                assert f"MARKER{n:04d}X" in shown, (player, pointer)  # a hand is shown to its holder


# -- the property: cards are conserved -----------------------------------------------------------

OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(["draw", "look", "play", "discard", "remove", "return", "reshuffle", "shuffle"]),
        st.sampled_from(PLAYERS),
        st.sampled_from(["strategy", "intel", "orders", "spies"]),
        st.integers(min_value=0, max_value=20),
        st.sampled_from(decks.PLACES),
    ),
    max_size=40,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPERATIONS)
def test_no_sequence_of_operations_loses_or_makes_a_card(operations: list[tuple[str, str, str, int, str]]) -> None:
    state, _, _ = started()
    total = {deck: decks.cards_of(state, deck) for deck in decks.deck_ids(state)}
    for step, (verb, player, ref, number, place) in enumerate(operations, start=2):
        deck, _ = decks.resolve_deck(state, ref, player)
        assert deck is not None
        held = state["decks"][deck]["hands"].get(player, [])
        action: dict[str, Any]
        if verb in ("draw", "look"):
            action = {verb: ref, "count": 1 + number % 5}
        elif verb in ("reshuffle", "shuffle"):
            action = {verb: ref}
        elif verb == "remove" and not held:
            face_up = [e["card"] for e in state["decks"][deck]["discard"] if e["face_up"]]
            action = {"remove": face_up[number % len(face_up)] if face_up else "nothing", "deck": ref}
        else:
            card = held[number % len(held)]["card"] if held else "nothing"
            action = {verb: card, "deck": ref, **({"to": place} if verb == "return" else {})}
        before = json.dumps(state, sort_keys=True)
        state, events = decks.apply_action(state, player, action, dice_for(step))
        assert all(isinstance(event, Event) for event in events)
        assert decks.check(state) == [], (action, decks.check(state))
        assert {deck: decks.cards_of(state, deck) for deck in decks.deck_ids(state)} == total
        if any(event.kind == "hand.skipped" for event in events):
            assert json.dumps(state, sort_keys=True) == before
        for event in events:  # only a card shown to all goes in a public event
            if event.visible_to == "all" and event.kind not in ("deck.played", "deck.removed"):
                assert "cards" not in event.data and ("openings" not in event.data or event.kind == "deck.discarded")
                assert "card" not in event.data or event.data["openings"]
