"""Decks bound to their definitions (issue 13, item 2; docs/protocol.md, section 12): a referee
patched to stack a deck, to add or leave out a card, or to skip or repeat positions is caught by
`verify` (what the public record shows) or `verify --final` (what the game secret proves), and an
honest game verifies.

Each game is the `moderator` game with one shared deck, played through the real engine with
orders signed by real keys: round 1 shuffles and deals two cards each, round 2 alice draws one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.game.engine import adjudicate, init_game
from referee.game.reveal import reveal
from referee.kit import deck_moves
from referee.protocol import hidden
from referee.protocol.canonical import canonical_json, pretty_json
from referee.protocol.cards import cards_sha256, move_commitment, move_salt
from referee.protocol.hidden import HiddenDraws
from referee.protocol.piles import check_card_moves, inputs_problem
from referee.protocol.records import phase_record
from referee.protocol.signatures import generate_keypair
from referee.protocol.verify import verify_game_dir, verify_record

from conftest import TestGame

VECTORS = Path(__file__).resolve().parents[2] / "tests" / "vectors" / "decks"
PLAYERS = ("alice", "bob")
CARDS = [{"id": "ace", "count": 2}, {"id": "king"}, {"id": "queen"}, {"id": "jack"}, {"id": "ten"}, {"id": "nine"}]
DECKS = {"events": {"title": "Events", "cards": CARDS, "deal": 2}}
Patch = Callable[[pytest.MonkeyPatch], None]


def play(root: Path, monkeypatch: pytest.MonkeyPatch, cheat: Patch | None = None) -> Path:
    """Return the game directory after two rounds adjudicated under `cheat`."""
    setup = root / "setup"
    (setup / "keys").mkdir(parents=True)
    keys, players = {}, []
    for player in PLAYERS:
        keys[player] = setup / "keys" / player
        generate_keypair(keys[player], comment=f"{player}@example.org")
        players.append({"name": player, "email": f"{player}@example.org", "key_file": f"keys/{player}.pub"})
    config = {
        "game": "deck-binding",
        "module": "moderator",
        "title": "Bound decks",
        "options": {"rounds": 2, "decks": DECKS},
        "referee": {"email": "referee@example.org", "name": "Referee"},
        "players": players,
    }
    (setup / "game.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    init_game(root / "game", setup / "game.yaml")
    game = TestGame(root / "game", keys, game="deck-binding", players=PLAYERS)
    with monkeypatch.context() as patched:
        if cheat is not None:
            cheat(patched)
        for turn, orders in ((1, {}), (2, {"alice": "cards: [{draw: events}]"})):
            for player in PLAYERS:
                assert game.submit(player, turn, orders.get(player, "{}")).accepted
            adjudicate(game.dir, expect=f"{turn}/round")
    return game.dir


def records(game_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted((game_dir / "records").glob("*.json"))]


@contextmanager
def expect_caught(game_dir: Path, *, public: str | None, final: str) -> Iterator[None]:
    """Check that `verify` names `public` (None: the public record cannot show it), then, once
    the referee has revealed the game secret, that `verify --final` names `final`."""
    yield
    problems = verify_game_dir(game_dir).problems
    if public is None:
        assert problems == []
    else:
        assert any(public in line for line in problems), problems
    reveal(game_dir, final=True)
    problems = verify_game_dir(game_dir, final=True).problems
    assert any(final in line for line in problems), problems


# -- the honest game ------------------------------------------------------------------------


def test_an_honest_game_verifies_and_its_record_says_what_moved_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_dir = play(tmp_path, monkeypatch)
    first, second = records(game_dir)
    assert first["protocol"] == second["protocol"] == "pbem-referee/4"
    [shuffle] = first["hidden"]
    assert shuffle["source"] == {
        "definition": "events",
        "cards_sha256": cards_sha256({"ace": 2, "king": 1, "queen": 1, "jack": 1, "ten": 1, "nine": 1}),
    }
    label = "deck/events/shuffle-1"
    assert first["card_moves"] == [
        {"deck": "events", "shuffle": label},
        *(
            {"deck": "events", "label": label, "index": i, "from": "draw", "to": f"hand/{player}"}
            for i, player in enumerate(["alice", "bob", "alice", "bob"])
        ),
    ]
    assert second["card_moves"] == [{"deck": "events", "label": label, "index": 4, "from": "draw", "to": "hand/alice"}]
    assert second["hidden"] == []
    assert verify_game_dir(game_dir).ok
    reveal(game_dir, final=True)
    report = verify_game_dir(game_dir, final=True)
    assert report.ok and report.final, report.problems


# -- a referee patched to cheat -------------------------------------------------------------


def stack_by_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shuffle's inputs in an order of the referee's choosing: knowing the hidden key, it
    picks the order that permutes into the hands it wants."""
    monkeypatch.setattr(hidden, "canonical_inputs", lambda items: sorted(items, reverse=True))


def test_a_deck_stacked_by_ordering_its_inputs_is_caught_at_the_final_reveal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_dir = play(tmp_path, monkeypatch, stack_by_order)
    with expect_caught(game_dir, public=None, final="its inputs are not sorted: the referee chose their order"):
        pass


def swap_a_card(restate: bool) -> Patch:
    """A deck with one ace more and no king; `restate` also states the hash of the cards shuffled."""

    def cheat(monkeypatch: pytest.MonkeyPatch) -> None:
        honest = HiddenDraws.shuffle

        def shuffle(self: HiddenDraws, items: Sequence[str], label: str, source: Any = None) -> Any:
            items = ["ace" if item == "king" else item for item in items]
            if restate:
                source = {**source, "cards_sha256": cards_sha256(items)}
            return honest(self, items, label, source)

        monkeypatch.setattr(HiddenDraws, "shuffle", shuffle)

    return cheat


def test_a_card_added_and_one_left_out_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game_dir = play(tmp_path, monkeypatch, swap_a_card(restate=False))
    with expect_caught(game_dir, public=None, final="its inputs are not the cards whose SHA-256 the record states"):
        pass


def test_a_card_swap_the_record_owns_up_to_is_caught_against_the_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_dir = play(tmp_path, monkeypatch, swap_a_card(restate=True))
    caught = "is not that of deck 'events' in the game's configuration: cards were added or left out"
    with expect_caught(game_dir, public=caught, final=caught):
        pass


def take(index_of: Callable[[list[Any]], int], named: Callable[[list[Any], int], int] | None = None) -> Patch:
    """A `_take_top` that takes the card at `index_of(draw pile)` and lists in the record the
    card at `named(draw pile, taken index)` (the one taken, unless the referee lies)."""

    def cheat(monkeypatch: pytest.MonkeyPatch) -> None:
        def take_top(state: Any, deck: str, dice: Any, events: Any, player: str) -> Any:
            pile = state["decks"][deck]["draw"]
            if not pile:
                return None
            at = index_of(pile)
            listed = pile[named(pile, at) if named else at]
            entry = pile.pop(at) if at >= 0 else dict(pile[0])
            deck_moves._moved(dice, deck, listed, "draw", f"hand/{player}")
            return entry

        monkeypatch.setattr(deck_moves, "_take_top", take_top)

    return cheat


def test_a_skipped_position_is_caught_by_the_public_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # alice's second card is position 3 instead of 2: the deal gives her positions 0 and 3.
    taken: list[int] = []

    def index_of(pile: list[Any]) -> int:
        taken.append(1 if len(taken) == 2 else 0)
        return taken[-1]

    game_dir = play(tmp_path, monkeypatch, take(index_of))
    caught = "takes deck/events/shuffle-1 #3 from the draw pile of events, whose top is deck/events/shuffle-1 #2"
    with expect_caught(game_dir, public=caught, final=caught):
        pass


def test_a_repeated_position_is_caught_by_the_public_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The first card dealt stays on top (a copy goes to alice), so bob is dealt it again.
    taken: list[int] = []

    def index_of(pile: list[Any]) -> int:
        taken.append(-1 if not taken else 0)
        return taken[-1]

    game_dir = play(tmp_path, monkeypatch, take(index_of, lambda pile, at: 0))
    caught = "takes deck/events/shuffle-1 #0 from the draw pile of events, whose top is deck/events/shuffle-1 #1"
    with expect_caught(game_dir, public=f"{caught} (taken already)", final=caught):
        pass


def test_a_position_the_record_lies_about_is_caught_by_the_openings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The record lists the top card, but alice's first card is the one below it.
    taken: list[int] = []

    def index_of(pile: list[Any]) -> int:
        taken.append(1 if not taken else 0)
        return taken[-1]

    game_dir = play(tmp_path, monkeypatch, take(index_of, lambda pile, at: 0))
    caught = "gives alice deck/events/shuffle-1 #1, which no card move of this record gives them"
    with expect_caught(game_dir, public=caught, final=caught):
        pass


# -- the replay on its own ------------------------------------------------------------------


def test_a_secret_move_is_proven_only_with_the_game_secret() -> None:
    """A face-down discard lists a commitment: before the final reveal the replay cannot tell
    which card of the hand went; with the hidden key it must name one the hand held."""
    label = "deck/d/shuffle-1"
    key = bytes(range(32))
    salt = move_salt(key, 3)
    record: dict[str, Any] = {
        "protocol": "pbem-referee/4",
        "hidden": [{"label": label, "spec": "shuffle(3)", "commitments": [], "source": {"piles": ["draw"]}}],
        "card_moves": [
            {"deck": "d", "shuffle": label},
            {"deck": "d", "label": label, "index": 0, "from": "draw", "to": "hand/p"},
            {"deck": "d", "label": label, "index": 1, "from": "draw", "to": "hand/p"},
            {"deck": "d", "from": "hand/p", "to": "discard", "commitment": move_commitment(salt, "d", label, 1)},
        ],
        "opened": [{"label": label, "index": i, "to": ["p"], "turn": 1, "phase": "x"} for i in (0, 1)],
    }
    # The deck's first shuffle is older than version 4: nothing is checked of it.
    assert check_card_moves([("0001-t1-x.json", record)]) == []
    record["hidden"][0]["source"] = {"definition": "d", "cards_sha256": cards_sha256(["a", "b", "c"])}
    assert check_card_moves([("0001-t1-x.json", record)], definitions={"d": {"a": 1, "b": 1, "c": 1}}) == []
    record["card_moves"].append({"deck": "d", "label": label, "index": 1, "from": "hand/p", "to": "discard"})
    # Without the secret, the card discarded face down may be the one now played: not caught yet.
    assert check_card_moves([("0001-t1-x.json", record)]) == []
    record["card_moves"].append({"deck": "d", "label": label, "index": 1, "from": "hand/p", "to": "discard"})
    assert check_card_moves([("0001-t1-x.json", record)]) == [
        "0001-t1-x.json: card_moves[5]: moves deck/d/shuffle-1 #1 from hand/p of d, which does not hold it"
    ]


# -- the vectors of section 12 ----------------------------------------------------------------


def read_vector(path: Path) -> tuple[dict[str, str], str]:
    head, _, body = path.read_text(encoding="utf-8").partition("\n\n")
    return dict(line.split(": ", 1) for line in head.splitlines()), body


@pytest.mark.parametrize("path", sorted(VECTORS.glob("*.txt")), ids=lambda p: p.stem)
def test_deck_vector(path: Path) -> None:
    headers, body = read_vector(path)
    expect = headers["expect"]
    if "cards_json" in headers:
        deck = dict(item.rsplit("x", 1) for item in headers["deck"].split())
        counts = {card: int(count) for card, count in deck.items()}
        assert canonical_json(dict(sorted(counts.items()))).decode() == headers["cards_json"]
        assert hashlib.sha256(headers["cards_json"].encode()).hexdigest() == headers["cards_sha256"]
        assert cards_sha256(counts) == headers["cards_sha256"]
        assert body.splitlines() == sorted(card for card, count in counts.items() for _ in range(count))
        return
    key = bytes.fromhex(headers["hidden_key"])
    if "seq" in headers:
        salt = move_salt(key, int(headers["seq"]))
        assert salt.hex() == headers["salt"]
        line = f"pbem-move/1 {headers['deck']} {headers['label']} {headers['index']}\n".encode()
        assert hashlib.sha256(salt + line).hexdigest() == headers["commitment"]
        assert move_commitment(salt, headers["deck"], headers["label"], int(headers["index"])) == headers["commitment"]
        return
    source = json.loads(headers["source"])
    if expect == "bad move":
        moves = [json.loads(line) for line in body.splitlines()]
        entry = {"label": headers["label"], "spec": headers["spec"], "commitments": [], "source": source}
        record = {"hidden": [entry], "card_moves": moves, "opened": [], "rolls": json.loads(headers.get("rolls", "[]"))}
        problems = check_card_moves([("0001-t3-tempo-bid.json", record)])
        assert any(line.startswith(f"0001-t3-tempo-bid.json: card_moves[{len(moves) - 1}]: ") for line in problems)
        return
    inputs = headers["inputs"].split()
    if expect == "bad inputs":
        assert inputs_problem(inputs, source) is not None
        return
    assert expect == "success" and inputs_problem(inputs, source) is None
    deck = HiddenDraws(key, 3, "tempo-bid").shuffle(inputs, headers["label"], source)
    assert list(deck.values) == body.splitlines() and deck.commitments[0] == headers["commitment_0"]
    assert f"shuffle({len(inputs)})" == headers["spec"]


def test_every_deck_vector_class_is_there() -> None:
    expects = {read_vector(path)[0]["expect"] for path in VECTORS.glob("*.txt")}
    assert expects == {"success", "bad inputs", "bad move"}


def test_section_12_quotes_the_vectors() -> None:
    doc = (VECTORS.parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = doc[doc.index("## 12. Decks bound to their definitions") :]
    for path in sorted(VECTORS.glob("0[123]-*.txt")):
        headers, _ = read_vector(path)
        for key in ("cards_json", "cards_sha256", "commitment_0", "salt", "commitment"):
            if key in headers:
                assert headers[key] in section, (path.name, key)


def test_a_record_whose_only_card_move_is_secret_is_a_whole_version_4_record() -> None:
    """A phase where a card is only discarded face down: no hidden draw, no opening, one move."""
    move = {"deck": "d", "from": "hand/p", "to": "discard", "commitment": "ab" * 32}
    record = phase_record(
        game="g",
        turn=2,
        phase="round",
        commit=hashlib.sha256(bytes(32)).hexdigest(),
        server_seed=bytes(32),
        orders={"p": "cd" * 32},
        rolls=[],
        state_before="00" * 32,
        state_after="11" * 32,
        next_commit=None,
        hidden_commit="22" * 32,
        card_moves=[move],
    )
    assert record["protocol"] == "pbem-referee/4" and record["hidden_commit"] == "22" * 32
    _, problems = verify_record(pretty_json(record), None, None, "0002-t2-round.json")
    assert problems == ["0002-t2-round.json: no signature (0002-t2-round.json.sig is missing)"]
