"""A three-player card game played through the real engine: `moderator` with decks, orders signed
with real keys, four adjudicated rounds (deal, draw, play, look, face-down discard, return,
reshuffle, a hidden note and its reveal). Then every letter under mail/ and every record is read
for anything a player should not know, and the proofs are checked with nothing but hashlib.

The oracle for "should not know" is the referee's own states (GAMEDIR/states/): after each
round, a card in a hand is known to its holder, a face-down discard to its discarder, a face-up
card to all, and a card in a draw pile to no one (but the player who looked at it).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kept_letters
import pytest
import yaml
from played import copy_game

from referee.game.engine import adjudicate, init_game
from referee.game.opened import Game
from referee.game.reveal import reveal
from referee.letters.kept import read_kept
from referee.protocol.signatures import generate_keypair
from referee.protocol.verify import verify_game_dir

from conftest import TestGame

PLAYERS = ("alice", "bob", "carol")
GAME = "cards-game"
NOTE = "SECRETPLAN feint at the ford, then the bridge"
# Ids with a '-' and names with a space: neither can turn up by chance in hex or base64.
STRATEGY = [{"id": f"st-{n:02d}", "name": f"Gambit {n:02d}"} for n in range(1, 16)]
INTEL = [{"id": f"in-{n}", "name": f"Rumour {n}"} for n in range(1, 7)]
DECKS = {
    "strategy": {"title": "Strategy cards", "cards": STRATEGY, "hand_limit": 5, "deal": 3},
    "intel": {"title": "Intelligence", "cards": INTEL, "deal": 1, "discard": "face-down", "reshuffle": "never"},
    "orders": {"title": "Orders", "cards": [{"id": "march", "count": 2}, {"id": "halt"}], "per_player": True},
}
UNIQUE = {c["id"]: c["name"] for c in [*STRATEGY, *INTEL]}  # cards with one copy in the game


@dataclass
class Played:
    """The finished game: its directory, the state after each round, and who looked at what."""

    game: TestGame
    states: list[dict[str, Any]] = field(default_factory=list)  # [0]: before round 1
    looked: dict[int, dict[str, list[dict[str, Any]]]] = field(default_factory=dict)  # turn -> player -> entries


def current_state(game_dir: Path) -> dict[str, Any]:
    game = Game.open(game_dir)
    state: dict[str, Any] = game.envelope(game.dir.get_meta("state"))["state"]
    return state


def hand(state: dict[str, Any], player: str, deck: str = "strategy") -> list[str]:
    return [entry["card"] for entry in state["cards"]["decks"][deck]["hands"][player]]


def new_game(root: Path) -> TestGame:
    setup = root / "setup"
    (setup / "keys").mkdir(parents=True)
    keys = {}
    players = []
    for player in PLAYERS:
        keys[player] = setup / "keys" / player
        generate_keypair(keys[player], comment=f"{player}@example.org")
        players.append({"name": player, "email": f"{player}@example.org", "key_file": f"keys/{player}.pub"})
    config = {
        "game": GAME,
        "module": "moderator",
        "title": "A card game",
        "options": {"rounds": 4, "decks": DECKS},
        "referee": {"email": "referee@example.org", "name": "Card Referee"},
        "players": players,
    }
    (setup / "game.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    init_game(root / "game", setup / "game.yaml")
    return TestGame(root / "game", keys, game=GAME, players=PLAYERS)


def play_round(played: Played, turn: int, orders: dict[str, dict[str, Any]]) -> None:
    game = played.game
    for player in PLAYERS:
        body = yaml.safe_dump(orders.get(player, {}), sort_keys=False) if orders.get(player) else "{}"
        receipt = game.submit(player, turn, body)
        assert receipt.accepted, (turn, player, [str(p) for p in receipt.problems])
    adjudicate(game.dir, expect=f"{turn}/round")
    played.states.append(current_state(game.dir))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    root = tmp_path_factory.mktemp("cards")
    result = Played(new_game(root))
    result.states.append(current_state(result.game.dir))
    # Round 1: the decks are shuffled and dealt; alice writes a hidden note for bob.
    play_round(result, 1, {"alice": {"hidden_note": {"id": "plan", "text": NOTE, "to": ["bob"]}}})
    after = result.states[-1]
    # Round 2: alice plays and draws; bob draws from and discards face down to the intel deck;
    # carol (last in player order) looks at the top two strategy cards.
    play_round(
        result,
        2,
        {
            "alice": {"cards": [{"play": hand(after, "alice")[0], "deck": "strategy"}, {"draw": "strategy"}]},
            "bob": {"cards": [{"discard": hand(after, "bob", "intel")[0], "deck": "intel"}, {"draw": "intel"}]},
            "carol": {"cards": [{"look": "strategy", "count": 2}]},
        },
    )
    result.looked[2] = {"carol": result.states[-1]["cards"]["decks"]["strategy"]["draw"][:2]}
    after = result.states[-1]
    # Round 3: alice reveals her note; bob plays; carol returns a card to the bottom and draws
    # from her own orders deck.
    play_round(
        result,
        3,
        {
            "alice": {"reveal": ["plan"]},
            "bob": {"cards": [{"play": hand(after, "bob")[1], "deck": "strategy"}]},
            "carol": {
                "cards": [
                    {"return": hand(after, "carol")[0], "deck": "strategy", "to": "bottom"},
                    {"draw": "orders", "count": 2},
                ]
            },
        },
    )
    # Round 4: bob shuffles the discards back in; carol draws; alice removes the card she played.
    played_by_alice = result.states[2]["cards"]["decks"]["strategy"]["discard"][0]["card"]
    play_round(
        result,
        4,
        {
            "alice": {"cards": [{"remove": played_by_alice, "deck": "strategy"}]},
            "bob": {"cards": [{"reshuffle": "strategy"}]},
            "carol": {"cards": [{"draw": "strategy", "count": 2}]},
        },
    )
    return result


# -- the oracle ---------------------------------------------------------------------------------


def entitled(state: dict[str, Any]) -> dict[str, set[str]]:
    """Return, for each secret token of a state (a position's salt, a unique card's id and
    name), who may know it: players' names, or "all"."""
    known: dict[str, set[str]] = {}

    def add(entry: dict[str, Any], who: set[str]) -> None:
        tokens = [entry["opening"]["salt"]] if entry["opening"] else []
        if entry["card"] in UNIQUE:
            tokens += [entry["card"], UNIQUE[entry["card"]]]
        for token in tokens:
            known.setdefault(token, set()).update(who)

    for pile in state["cards"]["decks"].values():
        for entry in pile["draw"]:
            add(entry, set())
        for player, cards in pile["hands"].items():
            for entry in cards:
                add(entry, {player})
        for entry in pile["discard"]:
            add(entry, {"all"} if entry["face_up"] else {entry["by"]})
        for entry in pile["removed"]:
            add(entry, {"all"})
    return known


def knowledge(played: Played, upto: int) -> dict[str, set[str]]:
    """Return who may know each token once round `upto` is adjudicated (what is known stays known)."""
    known: dict[str, set[str]] = {}
    for turn, state in enumerate(played.states[: upto + 1]):
        for token, who in entitled(state).items():
            known.setdefault(token, set()).update(who)
        for player, entries in played.looked.get(turn, {}).items():
            for entry in entries:
                for token in (entry["opening"]["salt"], entry["card"], UNIQUE[entry["card"]]):
                    known[token].add(player)
    return known


def turn_of(folder: str) -> int:
    return int(folder.split("-t")[1].split("-")[0])


def letters(played: Played) -> list[tuple[str, int, Path]]:
    """Return (recipient, turn, path) of every letter and attachment the referee kept under mail/."""
    found = []
    for path in sorted(kept_letters.glob(played.game.dir / "mail", "*/*")):
        if path.parent.name[:4].isdigit():
            found.append((path.name.split(".")[0], turn_of(path.parent.name), path))
    return found


def records(played: Played) -> list[tuple[int, dict[str, Any], str]]:
    found = []
    for path in sorted((played.game.dir / "records").glob("*.json")):
        text = path.read_text(encoding="utf-8")
        found.append((turn_of(path.name), json.loads(text), text))
    return found


# -- the tests ----------------------------------------------------------------------------------


def test_the_game_was_played_as_ordered(played: Played) -> None:
    first, last = played.states[1], played.states[-1]
    for player in PLAYERS:
        assert len(hand(first, player)) == 3 and len(hand(first, player, "intel")) == 1
    assert len(hand(last, "carol", "orders/carol")) == 2
    strategy = last["cards"]["decks"]["strategy"]
    assert [e["card"] for e in strategy["removed"]] == [
        played.states[2]["cards"]["decks"]["strategy"]["discard"][0]["card"]
    ]
    assert strategy["shuffles"] == 2 and strategy["discard"] == []
    assert last["hidden_notes"][0]["revealed"] == 3
    assert len(letters(played)) > 40


def test_no_letter_shows_a_player_what_they_may_not_know(played: Played) -> None:
    checked = 0
    for player, turn, path in letters(played):
        assert player in PLAYERS, path
        data = read_kept(path)
        text = gzip.decompress(data).decode() if path.suffix == ".gz" else data.decode("utf-8")
        for token, who in knowledge(played, turn).items():
            if "all" not in who and player not in who:
                assert token not in text, f"{path.relative_to(played.game.dir)} shows {token} to {player}"
        if turn < 3 and player == "carol":
            assert "SECRETPLAN" not in text, path
        checked += 1
    assert checked > 40


def test_records_hold_commitments_not_hidden_cards(played: Played) -> None:
    seen = records(played)
    assert [turn for turn, _, _ in seen] == [1, 2, 3, 4]
    for turn, record, text in seen:
        assert record["protocol"] == "pbem-referee/4"
        assert len(record["hidden_commit"]) == 64
        for token, who in knowledge(played, turn).items():
            if "all" not in who:
                assert token not in text, f"record of turn {turn} shows {token}"
        for opened in record["opened"]:
            assert ("value" in opened) == (opened["to"] == "all")
        if turn < 3:
            assert "SECRETPLAN" not in text
    first = seen[0][1]
    labels = [entry["label"] for entry in first["hidden"]]
    assert labels == [
        "deck/intel/shuffle-1",
        "deck/orders/alice/shuffle-1",
        "deck/orders/bob/shuffle-1",
        "deck/orders/carol/shuffle-1",
        "deck/strategy/shuffle-1",
        "note/alice/1",
    ]
    assert len(first["hidden"][-2]["commitments"]) == len(STRATEGY)
    assert {tuple(o["to"]) for o in first["opened"]} == {("alice",), ("bob",), ("carol",), ("alice", "bob")}


def check_card(salt: str, label: str, index: int, value: str, commitment: str) -> bool:
    """What README.md tells a player to run: nothing but hashlib (a game begun on version 4
    commits each value as its JSON, section 8)."""
    line = f"pbem-hidden/2 {label} {index} {json.dumps(value, ensure_ascii=False)}\n"
    return hashlib.sha256(bytes.fromhex(salt) + line.encode("utf-8")).hexdigest() == commitment


def test_a_played_card_checks_against_the_commitment_made_when_it_was_shuffled(played: Played) -> None:
    seen = {turn: record for turn, record, _ in records(played)}
    committed = {entry["label"]: entry["commitments"] for entry in seen[1]["hidden"]}
    card = played.states[2]["cards"]["decks"]["strategy"]["discard"][0]["card"]
    opened = next(o for o in seen[2]["opened"] if o["to"] == "all")
    assert opened["value"] == card and opened["label"] == "deck/strategy/shuffle-1"
    assert check_card(
        opened["salt"], opened["label"], opened["index"], card, committed[opened["label"]][opened["index"]]
    )
    other = next(c["id"] for c in STRATEGY if c["id"] != card)
    assert not check_card(
        opened["salt"], opened["label"], opened["index"], other, committed[opened["label"]][opened["index"]]
    )


def test_each_player_gets_the_proofs_of_their_own_cards(played: Played) -> None:
    report = {
        p: kept_letters.read_text(played.game.dir / "mail" / "0001-t1-round" / f"{p}.report.txt") for p in PLAYERS
    }
    for player in PLAYERS:
        for entry in played.states[1]["cards"]["decks"]["strategy"]["hands"][player]:
            opening = entry["opening"]
            assert opening["commitment"] in report[player] and opening["salt"] in report[player]
            assert all(opening["salt"] not in report[other] for other in PLAYERS if other != player)
    view = yaml.safe_load(kept_letters.read_text(played.game.dir / "mail" / "0001-t1-round" / "bob.view-after.yaml"))
    shown = view["decks"]["strategy"]["your_hand"]
    assert [c["card"] for c in shown] == hand(played.states[1], "bob")
    assert all(
        check_card(c["proof"]["salt"], c["proof"]["label"], c["proof"]["index"], c["card"], c["proof"]["commitment"])
        for c in shown
    )


def test_the_hidden_note_reaches_its_reader_then_everyone(played: Played) -> None:
    mail = played.game.dir / "mail"
    assert NOTE in kept_letters.read_text(mail / "0001-t1-round" / "bob.report.txt")
    assert NOTE not in kept_letters.read_text(mail / "0001-t1-round" / "carol.report.txt")
    assert NOTE in kept_letters.read_text(mail / "0003-t3-round" / "carol.report.txt")
    seen = {turn: record for turn, record, _ in records(played)}
    note = next(entry for entry in seen[1]["hidden"] if entry["label"] == "note/alice/1")
    opened = next(o for o in seen[3]["opened"] if o["label"] == "note/alice/1")
    assert (opened["turn"], opened["value"], opened["to"]) == (1, NOTE, "all")
    assert check_card(opened["salt"], "note/alice/1", 0, NOTE, note["commitments"][0])


def test_the_face_down_discard_and_the_look_stay_private(played: Played) -> None:
    mail = played.game.dir / "mail" / "0002-t2-round"
    discarded = played.states[2]["cards"]["decks"]["intel"]["discard"][0]
    assert discarded["face_up"] is False and discarded["by"] == "bob"
    assert UNIQUE[discarded["card"]] in kept_letters.read_text(mail / "bob.report.txt")
    for player in ("alice", "carol"):
        report = kept_letters.read_text(mail / f"{player}.report.txt")
        assert "bob discarded a card face down" in report and UNIQUE[discarded["card"]] not in report
    looked = played.looked[2]["carol"]
    carol = kept_letters.read_text(mail / "carol.report.txt")
    assert all(UNIQUE[entry["card"]] in carol for entry in looked)


def test_the_game_verifies(played: Played) -> None:
    report = verify_game_dir(played.game.dir)
    assert report.ok, report.problems


def readme_script() -> str:
    """The check_card.py script README.md gives players."""
    readme = (Path(__file__).resolve().parents[2] / "games" / "moderator" / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Checking a card against the record", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readmes_check_card_script(played: Played, tmp_path: Path) -> None:
    script = tmp_path / "check_card.py"
    script.write_text(readme_script(), encoding="utf-8")
    records_dir = played.game.dir / "records"

    def run(*args: object) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, str(script), str(records_dir), *map(str, args)]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)

    mine = yaml.safe_load(kept_letters.read_text(played.game.dir / "mail" / "0001-t1-round" / "carol.view-after.yaml"))
    card = mine["decks"]["strategy"]["your_hand"][0]
    proof = card["proof"]
    result = run(proof["label"], proof["index"], card["card"], proof["salt"])
    assert result.returncode == 0 and result.stdout.startswith("OK:"), result
    wrong = next(c["id"] for c in STRATEGY if c["id"] != card["card"])
    result = run(proof["label"], proof["index"], wrong, proof["salt"])
    assert result.returncode == 1 and result.stdout.startswith("MISMATCH:")
    revealed = next(
        o
        for _, record, _ in records(played)
        for o in record["opened"]
        if o["label"] == "note/alice/1" and o["to"] == "all"
    )
    assert run("note/alice/1", 0, revealed["value"], revealed["salt"]).returncode == 0
    assert "no record" in run("deck/nothing/shuffle-1", 0, "x", "00").stderr


def test_the_final_reveal_proves_every_card_move(played: Played, tmp_path: Path) -> None:
    """Deal, draw, look, play, face-down discard, return, reshuffle and remove: after the final
    reveal every shuffle's inputs are its deck or the piles it gathered, and every secret move
    took a card of that hand (docs/protocol.md, section 12)."""
    game = copy_game(played.game, tmp_path / "game")
    moves = [m for _, record, _ in records(played) for m in record["card_moves"]]
    assert {m.get("to", "").split("/")[0] for m in moves} >= {"hand", "look", "discard", "removed", "draw-bottom"}
    assert any("commitment" in m for m in moves) and sum("shuffle" in m for m in moves) == 6
    reveal(game.dir, final=True)
    report = verify_game_dir(game.dir, final=True)
    assert report.ok and report.final, report.problems
