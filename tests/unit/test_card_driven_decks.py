"""Decks for card-driven games (issue 20, deliverable 1; docs/decks.md): card data, set-aside cards
brought in with a shuffle, the in-play zone, cards given between hands, a random take, a hand
shown to chosen players, and how each card was used.

Every operation runs on real hidden draws; the record each phase would write is replayed by the
protocol's own checker (`referee.protocol.piles`), every card a player holds or sees comes with an
opening that checks against the shuffle's commitment, and no event or view shows a card to a
player who may not see it. The last tests play a `moderator` game through the real engine with
the new order actions, then `verify`, `verify --final` and `audit` it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.errors import GameDataError
from referee.game.audit import audit
from referee.game.engine import adjudicate, init_game
from referee.game.opened import Game
from referee.game.reveal import reveal
from referee.kit import Event, decks
from referee.kit.schema import check_schema
from referee.protocol.cards import cards_sha256
from referee.protocol.draws import Dice
from referee.protocol.hidden import HiddenDraws
from referee.protocol.piles import check_card_moves
from referee.protocol.records import public_openings
from referee.protocol.signatures import generate_keypair
from referee.protocol.verify import verify_game_dir

from conftest import TestGame

PLAYERS = ("alice", "bob", "carol")
# Every card is unique, with a distinctive id and name, so a leak is easy to see.
CARDS: list[dict[str, Any]] = [
    {
        "id": f"k{n:02d}",
        "name": f"Marker Card {n:02d}",
        "cp": n % 4 + 1,
        "power": "france" if n % 2 else "prussia",
        "period": "early" if n <= 10 else "mid",
        "text": f"Marker text {n:02d}",
    }
    for n in range(1, 15)
]
STRATEGY: dict[str, Any] = {
    "title": "Strategy",
    "fields": {"cp": "int", "power": ["france", "prussia"], "period": ["early", "mid"], "once": "bool"},
    "uses": ["operations", "event", "interrupt"],
    "set_aside": {"period": ["mid"]},
    "hand_limit": 5,
    "deal": 2,
    "cards": CARDS,
}
ALL_CARDS = {card["id"]: 1 for card in CARDS}


def dice_for(step: int) -> Dice:
    key = hashlib.sha256(f"key {step}".encode()).digest()
    hidden = hashlib.sha256(f"hidden {step}".encode()).digest()
    return Dice(key, HiddenDraws(hidden, step, "round"))


def record_of(dice: Dice, events: Sequence[Event]) -> dict[str, Any]:
    """The parts of a phase's record the card replay reads, as the engine writes them."""
    return {
        "protocol": "pbem-referee/4",
        "hidden": dice.hidden.entries,
        "card_moves": dice.hidden.moves,
        "opened": public_openings(events),
        "rolls": dice.rolls,
    }


def commitment_of(salt_hex: str, label: str, index: int, value: str) -> str:
    line = f"pbem-hidden/1 {label} {index} {value}\n".encode()
    return hashlib.sha256(bytes.fromhex(salt_hex) + line).hexdigest()


def text_of(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=lambda e: e.as_dict())


class Table:
    """A three-player game of one deck, phase by phase, keeping every record and event."""

    def __init__(self, definitions: dict[str, Any] | None = None) -> None:
        parsed = decks.parse_decks(definitions or {"strategy": STRATEGY}, PLAYERS)
        self.state = decks.new_decks(parsed, PLAYERS)
        self.records: list[tuple[str, dict[str, Any]]] = []
        self.events: list[Event] = []
        self.commitments: dict[str, list[str]] = {}
        self.step = 0
        self.phase([("start",)])

    def phase(self, operations: Sequence[tuple[Any, ...]]) -> list[Event]:
        """Run operations (name, *arguments without state and dice) in one phase; keep its record."""
        self.step += 1
        dice, events = dice_for(self.step), []
        for name, *arguments in operations:
            operation = getattr(decks, name)
            if name in ("start",):
                self.state, happened = operation(self.state, dice)
            elif name in ("take_at_random",):
                deck, player, *rest = arguments
                self.state, happened = operation(self.state, deck, player, dice, *rest)
            else:
                self.state, happened = _call(operation, self.state, arguments, dice)
            events += happened
        self.records.append((f"{self.step:04d}-t{self.step}-round.json", record_of(dice, events)))
        for entry in dice.hidden.entries:
            self.commitments[entry["label"]] = entry["commitments"]
        self.events += events
        assert decks.check(self.state) == []
        return events

    def hand(self, player: str) -> list[str]:
        return [entry["card"] for entry in self.state["decks"]["strategy"]["hands"][player]]

    def replay_problems(self) -> list[str]:
        return check_card_moves(self.records, definitions={"strategy": ALL_CARDS})


def _call(operation: Any, state: Any, arguments: Sequence[Any], dice: Dice) -> Any:
    """Call an operation whose dice come after its other positional arguments; keywords last."""
    keywords = arguments[-1] if arguments and isinstance(arguments[-1], dict) else {}
    positional = list(arguments[:-1] if keywords else arguments)
    return operation(state, *positional, dice, **keywords)


# -- card data --------------------------------------------------------------------------------


def test_card_data_is_parsed_with_its_declared_fields_and_text() -> None:
    parsed = decks.parse_decks({"strategy": STRATEGY}, PLAYERS)["strategy"]
    assert parsed["fields"] == STRATEGY["fields"]
    assert parsed["uses"] == ["operations", "event", "interrupt"]
    assert parsed["cards"][0] == {
        "id": "k01",
        "name": "Marker Card 01",
        "count": 1,
        "data": {"cp": 2, "power": "france", "period": "early", "text": "Marker text 01"},
    }
    assert parsed["cards"][10]["set_aside"] is True  # period mid: set aside by the deck's rule
    state = decks.new_decks({"strategy": parsed}, PLAYERS)
    assert decks.card_data(state, "strategy", "k03") == {
        "cp": 4,
        "power": "france",
        "period": "early",
        "text": "Marker text 03",
    }
    assert decks.card_data(state, "strategy", "nothing") == {}


def test_a_deck_without_card_data_keeps_its_form() -> None:
    plain = {"cards": [{"id": "a", "count": 2}, {"id": "b"}], "deal": 1}
    assert decks.parse_decks({"d": plain}, PLAYERS)["d"] == {
        "title": "d",
        "cards": [{"id": "a", "name": "a", "count": 2}, {"id": "b", "name": "b", "count": 1}],
        "owner": None,
        "per_player": False,
        "hand_limit": None,
        "deal": 1,
        "discard": "face-up",
        "reshuffle": "when-empty",
    }
    state = decks.new_decks(decks.parse_decks({"d": plain}, PLAYERS), PLAYERS)
    assert set(state["decks"]["d"]) == {"deck", "owner", "draw", "discard", "removed", "hands", "shuffles"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"cards": [*CARDS[:3], {**CARDS[3], "cp": "three"}]}, "options.decks.strategy.cards[3].cp: must be a whole"),
        ({"cards": [{**CARDS[0], "power": "austria"}]}, "cards[0].power: must be one of france, prussia"),
        ({"cards": [{**CARDS[0], "once": "yes"}]}, "cards[0].once: must be true or false"),
        ({"cards": [{**CARDS[0], "vp": 2}]}, "cards[0]: unknown field(s) vp"),
        ({"cards": [{**CARDS[0], "text": 7}]}, "cards[0].text: must be a text"),
        ({"cards": [{**CARDS[0], "set_aside": "no"}]}, "cards[0].set_aside: must be true or false"),
        ({"fields": {"cp": "float"}}, "options.decks.strategy.fields.cp: must be one of int, bool, text"),
        ({"fields": {"Bad Name": "int"}}, "field name 'Bad Name' must be lower-case"),
        ({"fields": {"name": "text"}}, "fields.name: 'name' is a card's own key"),
        ({"uses": "event"}, "options.decks.strategy.uses: must be a non-empty list"),
        ({"set_aside": {"year": [1]}}, "set_aside.year: is not a field the deck declares"),
        ({"set_aside": {"period": ["late"]}}, "set_aside.period[0]: must be one of early, mid"),
        ({"cards": [{**CARDS[10]}]}, "options.decks.strategy.cards: every card is set aside"),
    ],
)
def test_card_data_mistakes_name_their_path(change: dict[str, Any], message: str) -> None:
    with pytest.raises(GameDataError) as caught:
        decks.parse_decks({"strategy": {**STRATEGY, **change}}, PLAYERS, "options.decks")
    assert message in caught.value.message


def test_a_card_set_aside_by_its_own_flag_stays_out_of_the_opening_draw_pile() -> None:
    definition = {"cards": [{"id": "a", "count": 3}, {"id": "b", "set_aside": True}], "deal": 1}
    state = decks.new_decks(decks.parse_decks({"d": definition}, PLAYERS), PLAYERS)
    assert [entry["card"] for entry in state["decks"]["d"]["draw"]] == ["a", "a", "a"]
    assert decks.set_aside_cards(state, "d") == ["b"]
    with pytest.raises(GameDataError, match="draw pile starts with 3"):
        decks.parse_decks({"d": {**definition, "deal": 2}}, PLAYERS)


# -- the record: every move replayed by the protocol's checker ---------------------------------


def played_table() -> Table:
    """Deal, then: alice gives bob a card, bob shows carol his hand, a random card of bob's goes
    to alice (carol sees it), carol puts a card in play as an event, the mid-war cards come in,
    a random card of alice's is discarded; then the event ends, bob plays for operations and
    carol draws two."""
    table = Table()
    given = table.hand("alice")[0]
    table.given = given  # type: ignore[attr-defined]
    table.phase(
        [
            ("give", "strategy", "alice", "bob", given),
            ("show", "strategy", "bob", "hand", ["carol"]),
            ("take_at_random", "strategy", "bob", "alice", ("carol",)),
        ]
    )
    in_play = table.hand("carol")[0]
    table.in_play = in_play  # type: ignore[attr-defined]
    table.phase(
        [
            ("put_in_play", "strategy", "carol", in_play, {"use": "event"}),
            ("bring_in", "strategy", decks.set_aside_cards(table.state, "strategy")),
            ("take_at_random", "strategy", "alice", "discard"),
        ]
    )
    table.phase(
        [
            ("end_in_play", "strategy", in_play, "discard", {"by": "carol"}),
            ("play", "strategy", "bob", table.hand("bob")[0], {"use": "operations"}),
            ("draw", "strategy", "carol", 2),
        ]
    )
    return table


def test_every_new_move_replays_cleanly_in_the_record() -> None:
    table = played_table()
    assert table.replay_problems() == []
    first = table.records[0][1]
    assert first["hidden"][0]["source"] == {
        "definition": "strategy",
        "cards_sha256": cards_sha256(ALL_CARDS),
        "set_aside": {"k11": 1, "k12": 1, "k13": 1, "k14": 1},
    }
    assert first["hidden"][0]["spec"] == "shuffle(10)"
    moves = table.records[1][1]["card_moves"]
    assert moves[0]["from"] == "hand/alice" and moves[0]["to"] == "hand/bob"
    assert [move["to"] for move in moves[1:4]] == ["look/carol"] * 3  # bob's hand: two dealt, one given
    assert moves[4]["pick"] == "deck/strategy/take-1" and moves[4]["to"] == "hand/alice"
    seen = {key: value for key, value in moves[4].items() if key != "pick"}
    assert moves[5] == {**seen, "from": "hand/alice", "to": "look/carol"}  # carol sees the card taken
    brought = table.records[2][1]["hidden"][0]
    assert brought["source"] == {"piles": ["draw"], "brought_in": {"k11": 1, "k12": 1, "k13": 1, "k14": 1}}
    view = decks.deck_view(table.state, None)["strategy"]
    assert view["set_aside"] == [] and view["in_play"] == []
    assert [(e["card"], e.get("use")) for e in view["discard_pile"]][-2:] == [
        (table.in_play, "event"),  # type: ignore[attr-defined]
        (view["discard_pile"][-1]["card"], "operations"),
    ]


def test_each_card_held_or_seen_comes_with_an_opening_that_checks() -> None:
    table = played_table()
    for player in PLAYERS:
        held = decks.deck_view(table.state, player)["strategy"]["your_hand"]
        assert held
        for card in held:
            proof = card["proof"]
            commitment = table.commitments[proof["label"]][proof["index"]]
            assert proof["commitment"] == commitment
            assert commitment_of(proof["salt"], proof["label"], proof["index"], card["card"]) == commitment
    # Every card an event gave or showed a player, too.
    for event in table.events:
        for opening in event.data.get("openings", ()):
            commitment = table.commitments[opening["label"]][opening["index"]]
            assert commitment_of(opening["salt"], opening["label"], opening["index"], opening["value"]) == commitment


def test_a_random_take_is_the_card_its_roll_names() -> None:
    table = Table()
    table.phase([("take_at_random", "strategy", "bob", "discard")])
    [taken] = [e for e in table.events if e.kind == "deck.taken"]
    roll = table.records[1][1]["rolls"][0]
    assert roll["label"] == "deck/strategy/take-1" and roll["spec"] == "uniform(2)"
    assert table.replay_problems() == []
    # A referee who names another card of the hand than the roll picked is caught.
    move = table.records[1][1]["card_moves"][0]
    other = 1 - roll["values"][0]
    dealt = [m for m in table.records[0][1]["card_moves"] if m.get("to") == "hand/bob"]
    move["index"] = dealt[other]["index"]
    problems = table.replay_problems()
    assert any("roll deck/strategy/take-1 picked card" in line for line in problems), problems
    assert taken.data["openings"]


def test_bringing_in_a_card_not_set_aside_is_refused_and_caught() -> None:
    table = Table()
    with pytest.raises(decks.DeckError, match="no set-aside k01"):
        decks.bring_in(table.state, "strategy", ["k01"], dice_for(9))
    table.phase([("bring_in", "strategy", ["k11"])])
    assert decks.set_aside_cards(table.state, "strategy") == ["k12", "k13", "k14"]
    table.records[1][1]["hidden"][0]["source"]["brought_in"] = {"k01": 1}
    problems = table.replay_problems()
    assert any("brings in cards not set aside: k01" in line for line in problems), problems


def test_a_first_shuffle_that_sets_aside_too_few_cards_is_caught() -> None:
    table = Table()
    source = table.records[0][1]["hidden"][0]["source"]
    source["set_aside"] = {"k11": 1}
    problems = table.replay_problems()
    assert any("shuffles 10 cards, deck 'strategy' holds 14, 1 of them set aside" in p for p in problems), problems


def test_a_card_shown_from_a_hand_stays_in_it() -> None:
    table = Table()
    card = table.hand("alice")[0]
    table.phase([("show", "strategy", "alice", [card], ["bob", "carol"]), ("play", "strategy", "alice", card)])
    assert table.replay_problems() == []


def test_misuse_is_refused_with_what_to_do() -> None:
    table = Table()
    alice = table.hand("alice")[0]
    with pytest.raises(decks.DeckError, match="takes a use of operations, event, interrupt, not 'sideways'"):
        decks.play(table.state, "strategy", "alice", alice, dice_for(9), use="sideways")
    with pytest.raises(decks.DeckError, match="no 'k01' of deck 'strategy' is in play"):
        decks.end_in_play(table.state, "strategy", "k01", "discard", dice_for(9))
    with pytest.raises(decks.DeckError, match="goes to one of discard, removed"):
        decks.end_in_play(table.state, "strategy", "k01", "hand", dice_for(9))
    with pytest.raises(decks.DeckError, match="cannot give a card to themselves"):
        decks.give(table.state, "strategy", "alice", "alice", alice, dice_for(9))
    with pytest.raises(decks.DeckError, match="name at least one"):
        decks.show(table.state, "strategy", "alice", "hand", ["alice"], dice_for(9))


def test_a_hand_at_its_limit_takes_no_card_given() -> None:
    table = Table()
    table.phase([("draw", "strategy", "bob", 3)])
    with pytest.raises(decks.DeckError, match="at its limit"):
        decks.give(table.state, "strategy", "alice", "bob", table.hand("alice")[0], dice_for(9))
    problems = decks.action_problems(
        table.state, "alice", [{"give": table.hand("alice")[0], "deck": "strategy", "to": "bob"}]
    )
    assert [p.code for p in problems] == ["illegal.cards.hand-limit"]


def test_a_random_take_from_an_empty_hand_takes_nothing() -> None:
    table = Table({"d": {"cards": [{"id": "a", "count": 4}]}})
    state, events = decks.take_at_random(table.state, "d", "alice", dice_for(9), "discard")
    assert state == table.state and [e.kind for e in events] == ["deck.taken"]


# -- leaks ----------------------------------------------------------------------------------------


def seen_by(table: Table, player: str | None) -> str:
    return text_of([e for e in table.events if e.is_visible_to(player)]) + text_of(decks.deck_view(table.state, player))


def test_no_event_or_view_shows_a_card_to_a_player_who_may_not_see_it() -> None:
    table = Table()
    given = table.hand("alice")[0]
    table.phase([("give", "strategy", "alice", "bob", given)])
    assert given in seen_by(table, "bob") and given in seen_by(table, "alice")
    assert given not in seen_by(table, "carol") and given not in seen_by(table, None)
    carol_before = table.hand("carol")
    table.phase([("take_at_random", "strategy", "carol", "bob")])
    [taken] = [card for card in carol_before if card not in table.hand("carol")]
    assert taken in seen_by(table, "bob") and taken in seen_by(table, "carol")
    assert taken not in seen_by(table, "alice") and taken not in seen_by(table, None)
    table.phase([("show", "strategy", "alice", "hand", ["carol"])])
    for card in table.hand("alice"):
        assert card in seen_by(table, "carol")
        assert card not in seen_by(table, "bob") and card not in seen_by(table, None)
    for card in table.hand("bob"):
        if card != given:
            assert card not in seen_by(table, "alice")
        if card != taken:
            assert card not in seen_by(table, "carol")
    # The names and texts of the cards leak no more than their ids.
    for defined in CARDS:
        for reader in ("alice", "bob", "carol", None):
            text = seen_by(table, reader)
            if defined["id"] not in text:
                assert defined["name"] not in text and defined["text"] not in text


def test_a_played_or_shown_card_carries_its_text() -> None:
    table = Table()
    card = table.hand("carol")[0]
    [event] = table.phase([("put_in_play", "strategy", "carol", card, {"use": "event"})])
    data = decks.card_data(table.state, "strategy", card)
    assert data["text"] in event.text and event.data["card_data"] == {card: data}
    assert event.data["use"] == "event" and event.visible_to == "all"
    assert decks.deck_view(table.state, None)["strategy"]["in_play"] == [
        {
            "card": card,
            "name": decks.card_name(table.state, "strategy", card),
            "data": data,
            "by": "carol",
            "use": "event",
        }
    ]


# -- orders ---------------------------------------------------------------------------------------


def test_the_action_schemas_are_valid_and_card_driven_decks_take_every_action() -> None:
    check_schema({"type": "list", "items": decks.CARD_ACTION_SCHEMA})
    check_schema({"type": "list", "items": decks.CARD_DRIVEN_ACTION_SCHEMA})
    assert set(decks.CARD_DRIVEN_ACTION_SCHEMA["fields"]) > set(decks.CARD_ACTION_SCHEMA["fields"])
    assert "give" not in decks.CARD_ACTION_SCHEMA["fields"]  # the classic decks' notices keep their words
    assert decks.is_card_driven(Table().state)
    plain = decks.new_decks(decks.parse_decks({"d": {"cards": [{"id": "a"}]}}, PLAYERS), PLAYERS)
    assert not decks.is_card_driven(plain)


def test_order_actions_for_card_driven_games_are_checked_in_order() -> None:
    table = Table()
    mine = table.hand("alice")
    problems = decks.action_problems(
        table.state,
        "alice",
        [
            {"give": mine[0], "deck": "strategy", "to": "bob"},
            {"give": mine[0], "deck": "strategy", "to": "bob"},  # given already
            {"show": "hand", "deck": "strategy", "to": "dave"},
            {"show": "hand", "deck": "strategy"},
            {"take": "strategy", "from": "bob", "to": "alice"},
            {"put_in_play": mine[1], "deck": "strategy", "use": "sideways"},
            {"put_in_play": mine[1], "deck": "strategy", "use": "event"},
            {"end_in_play": mine[1], "deck": "strategy", "to": "removed"},
            {"end_in_play": mine[1], "deck": "strategy", "to": "removed"},  # out of play already
            {"bring_in": "strategy", "cards": ["k11", "k01"]},
            {"bring_in": "strategy"},
            {"bring_in": "strategy"},  # nothing left to bring in
            {"play": "k99", "deck": "strategy", "use": "event"},
        ],
    )
    assert [(p.code, p.path) for p in problems] == [
        ("illegal.cards.not-held", "orders.cards[1].give"),
        ("illegal.cards.not-a-holder", "orders.cards[2].to"),
        ("invalid.missing", "orders.cards[3].to"),
        ("illegal.cards.use", "orders.cards[5].use"),
        ("illegal.cards.not-in-play", "orders.cards[8].end_in_play"),
        ("illegal.cards.not-set-aside", "orders.cards[9].cards"),
        ("illegal.cards.not-set-aside", "orders.cards[11].bring_in"),
        ("illegal.cards.not-held", "orders.cards[12].play"),
    ]


def test_order_actions_carry_out_the_operations() -> None:
    table = Table()
    state, dice = table.state, dice_for(9)
    card = table.hand("alice")[0]
    for action in (
        {"give": card, "deck": "strategy", "to": "bob"},
        {"show": "hand", "deck": "strategy", "to": "carol"},
        {"take": "strategy", "from": "bob", "to": "alice"},
        {"bring_in": "strategy"},
        {"take": "strategy"},
    ):
        state, events = decks.apply_action(state, "alice", action, dice)
        assert not [e for e in events if e.kind == "hand.skipped"], (action, events)
    assert decks.set_aside_cards(state, "strategy") == []
    assert len(state["decks"]["strategy"]["discard"]) == 1
    assert decks.check(state) == []


# -- a moderator game through the engine: verify, verify --final, audit --------------------------


def play_moderator(root: Path) -> Path:
    setup = root / "setup"
    (setup / "keys").mkdir(parents=True)
    keys, players = {}, []
    for player in PLAYERS:
        keys[player] = setup / "keys" / player
        generate_keypair(keys[player], comment=f"{player}@example.org")
        players.append({"name": player, "email": f"{player}@example.org", "key_file": f"keys/{player}.pub"})
    config = {
        "game": "card-driven",
        "module": "moderator",
        "title": "Card-driven decks",
        "options": {"rounds": 3, "decks": {"strategy": STRATEGY}},
        "referee": {"email": "referee@example.org", "name": "Referee"},
        "players": players,
    }
    (setup / "game.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    init_game(root / "game", setup / "game.yaml")
    game = TestGame(root / "game", keys, game="card-driven", players=PLAYERS)
    hands: dict[str, list[str]] = {}
    for turn in (1, 2, 3):
        orders: dict[str, str] = {}
        if turn == 2:
            opened = Game.open(game.dir)
            state = opened.envelope(str(opened.dir.get_meta("state")))["state"]
            hands = {p: [e["card"] for e in state["cards"]["decks"]["strategy"]["hands"][p]] for p in PLAYERS}
            orders = {
                "alice": f"cards: [{{give: {hands['alice'][0]}, deck: strategy, to: bob}}, "
                "{show: hand, deck: strategy, to: carol}, {bring_in: strategy, cards: [k11, k12]}]",
                "bob": "cards: [{take: strategy, from: alice, to: bob}]",
                "carol": f"cards: [{{put_in_play: {hands['carol'][0]}, deck: strategy, use: event}}]",
            }
        if turn == 3:
            orders = {
                "carol": f"cards: [{{end_in_play: {hands['carol'][0]}, deck: strategy, to: removed}}, "
                "{draw: strategy}, {take: strategy}]",
                "bob": f"cards: [{{play: {hands['alice'][0]}, deck: strategy, use: operations}}]",
            }
        for player in PLAYERS:
            assert game.submit(player, turn, orders.get(player, "{}")).accepted, (player, turn)
        adjudicate(game.dir, expect=f"{turn}/round")
    return game.dir


def test_a_moderator_game_with_the_new_actions_verifies_and_audits(tmp_path: Path) -> None:
    pytest.importorskip("cryptography")
    game_dir = play_moderator(tmp_path)
    records = [json.loads(path.read_text()) for path in sorted((game_dir / "records").glob("*.json"))]
    moves = [move for record in records for move in record.get("card_moves", [])]
    assert {"in-play", "look/carol", "hand/bob"} <= {move.get("to") for move in moves}
    assert any("pick" in move for move in moves)
    report = verify_game_dir(game_dir)
    assert report.ok, report.problems
    assert audit(game_dir).ok
    reveal(game_dir, final=True)
    final = verify_game_dir(game_dir, final=True)
    assert final.ok and final.final, final.problems


def test_a_moderator_player_sees_card_texts_cards_in_play_and_set_aside_cards() -> None:
    from games.moderator import rules
    from games.moderator.standing import standing

    state = rules.setup("standard", PLAYERS, {"rounds": 3, "decks": {"strategy": STRATEGY}})
    state, _ = rules.resolve(state, {}, dice_for(1))
    card = state["cards"]["decks"]["strategy"]["hands"]["carol"][0]["card"]
    cards, _ = decks.put_in_play(state["cards"], "strategy", "carol", card, dice_for(2), use="event")
    facts = {fact.name: fact for fact in standing({**state, "cards": cards}, "alice")}
    data = decks.card_data(cards, "strategy", card)
    [in_play] = facts["In play from Strategy (strategy)"].items
    assert in_play.startswith(f"{decks.card_name(cards, 'strategy', card)} (id {card}), by carol as event: cp ")
    assert in_play.endswith(data["text"])
    assert len(facts["Set aside from Strategy (strategy)"].items) == 4
    [held, *_] = facts["Your hand of Strategy (strategy)"].items
    assert "Marker text" in held


def test_a_random_take_after_a_face_down_discard_waits_for_the_final_check() -> None:
    """The public replay still lists a card discarded face down in its hand (which one went is
    secret), so it cannot tell the hand's order for the roll: it raises no false alarm."""
    definition = {"cards": [{"id": f"x{n}"} for n in range(9)], "deal": 3, "discard": "face-down", "uses": ["event"]}
    table = Table({"strategy": definition})
    table.phase(
        [
            ("discard", "strategy", "alice", table.hand("alice")[1]),
            ("take_at_random", "strategy", "alice", "bob"),
        ]
    )
    moves = table.records[1][1]["card_moves"]
    assert "commitment" in moves[0] and "pick" in moves[1]
    assert check_card_moves(table.records) == []


def test_a_card_of_ones_own_deck_may_be_shown_to_another_player() -> None:
    own = {"cards": [{"id": "guard", "count": 3}], "per_player": True, "deal": 2, "uses": ["event"]}
    table = Table({"reserves": own})
    action = {"show": "guard", "deck": "reserves", "to": "bob"}
    assert decks.action_problems(table.state, "alice", [action]) == []
    refused = decks.action_problems(table.state, "alice", [{**action, "to": "dave"}])
    assert [(p.code, p.path) for p in refused] == [("illegal.cards.not-a-holder", "orders.cards[0].to")]
    state, events = decks.apply_action(table.state, "alice", action, dice_for(9))
    [shown] = [e for e in events if e.kind == "hand.shown"]
    assert shown.visible_to == ("bob",) and shown.data["openings"]
