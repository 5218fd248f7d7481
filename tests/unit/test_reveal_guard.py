"""`referee reveal --draw` refuses a deck or hidden note still in play (issue 13, item 7): it
names what it would open to whom; with --force it goes ahead and every player's reveal letter
says exactly what it opens. A finished deck, and anything once the game is over, goes freely."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import kept_letters
import pytest

import games
from referee.errors import StateError
from referee.game.engine import adjudicate, init_game
from referee.game.opened import Game
from referee.game.reveal import reveal
from referee.letters.post import read_kept_html
from referee.protocol.signatures import generate_keypair
from referee.protocol.verify import verify_game_dir

from conftest import TABLES, TestGame

PLAYERS = ("alice", "bob")
DECK = """\
    events:
      title: Event cards
      cards:
        - {id: rain, count: 2}
        - {id: fog, count: 2}
        - {id: courier}
      deal: 2
"""


def make(root: Path, rounds: int = 3, deck: str = DECK) -> TestGame:
    setup = root / "setup"
    (setup / "keys").mkdir(parents=True)
    keys = {}
    lines = ["game: test-game", "module: moderator", "title: Test game", "tables: tables.yaml"]
    lines += ["options:", f"  rounds: {rounds}", "  decks:", deck.rstrip("\n")]
    lines += ["referee: {email: referee@example.org, name: Test Referee}", "players:"]
    for player in PLAYERS:
        keys[player] = setup / "keys" / player
        generate_keypair(keys[player], comment=f"{player}@example.org")
        lines.append(f"  - {{name: {player}, email: {player}@example.org, key_file: keys/{player}.pub}}")
    (setup / "tables.yaml").write_text(TABLES, encoding="utf-8")
    (setup / "game.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    init_game(root / "game", setup / "game.yaml")
    return TestGame(root / "game", keys, players=PLAYERS)


def first_round(game: TestGame) -> None:
    """Deal two cards to each (one card stays in the draw pile); alice seals a note for bob."""
    assert game.submit("alice", 1, "hidden_note: {id: plan-b, text: We march at dawn., to: [bob]}").accepted
    assert game.submit("bob", 1, "note: ready").accepted
    adjudicate(game.dir, expect="1/round")


def hand(game: TestGame, player: str) -> list[str]:
    opened = Game.open(game.dir)
    view = opened.module.view(opened.envelope(opened.dir.current_state_hash())["state"], player)
    return [str(card["card"]) for card in view["decks"]["events"]["your_hand"]]


def test_a_deck_with_cards_in_hands_and_in_the_draw_pile_is_refused_naming_what_it_would_open(
    tmp_path: Path,
) -> None:
    game = make(tmp_path)
    first_round(game)
    with pytest.raises(StateError) as refused:
        reveal(game.dir, ["deck/*"])
    message = refused.value.message
    assert "deck/events/shuffle-1: the draw pile of events (1 card) to every player" in message
    assert "alice's hand of events (2 cards) to everyone but alice" in message
    assert "bob's hand of events (2 cards) to everyone but bob" in message
    assert any("--force" in hint for hint in refused.value.hints)
    assert not kept_letters.exists(game.dir / "reveals")  # nothing was published


def test_a_sealed_note_not_yet_opened_is_refused(tmp_path: Path) -> None:
    game = make(tmp_path)
    first_round(game)
    with pytest.raises(StateError, match=r"note/alice/1: alice's hidden note note/alice/1 \(sealed in round 1\) "):
        reveal(game.dir, ["note/*"])
    # once alice reveals it herself, nothing hides behind its draw any more
    assert game.submit("alice", 2, "reveal: [plan-b]").accepted
    assert game.submit("bob", 2, "note: seen").accepted
    adjudicate(game.dir, expect="2/round")
    assert kept_letters.exists(reveal(game.dir, ["note/*"]))


def test_force_reveals_and_tells_every_player_what_it_opens(tmp_path: Path) -> None:
    game = make(tmp_path)
    first_round(game)
    target = reveal(game.dir, ["deck/*"], force=True)
    assert json.loads(target.read_bytes())["draws"][0]["label"] == "deck/events/shuffle-1"
    for player in PLAYERS:
        letter = kept_letters.read_text(game.dir / "mail" / "reveals" / f"{player}.reveal-0001.txt")
        assert "the referee\nrevealed them anyway (--force)" in letter
        assert "  - deck/events/shuffle-1: the draw pile of events (1 card) to every player; alice's hand" in letter
        html = read_kept_html(game.dir / "mail" / "reveals" / f"{player}.reveal-0001.html")
        assert "revealed them anyway" in html
    for card in hand(game, "alice"):
        assert card not in letter.split("revealed them anyway")[1]  # places and counts, never a card
    assert verify_game_dir(game.dir).ok
    forced = Game.open(game.dir).dir.log_entries(("hidden.revealed",))[-1]["data"]["forced"]
    assert forced and forced[0].startswith("deck/events/shuffle-1: ")


def play_every_card(game: TestGame, turn: int) -> None:
    for player in PLAYERS:
        plays = ", ".join(f"{{play: {card}, deck: events}}" for card in hand(game, player))
        assert game.submit(player, turn, f"cards: [{plays}]").accepted
    adjudicate(game.dir, expect=f"{turn}/round")


def test_a_finished_deck_is_revealed_without_force(tmp_path: Path) -> None:
    game = make(tmp_path, deck=DECK.replace("        - {id: courier}\n", ""))  # four cards, all dealt
    first_round(game)
    play_every_card(game, 2)  # every card face up: the deck hides nothing any more
    assert Game.open(game.dir).dir.open_phase() is not None
    assert kept_letters.exists(reveal(game.dir, ["deck/*"]))


def test_after_the_game_is_over_nothing_is_in_play(tmp_path: Path) -> None:
    game = make(tmp_path, rounds=2)
    first_round(game)
    play_every_card(game, 2)  # one card is still in the draw pile, but the game is over
    assert Game.open(game.dir).dir.open_phase() is None
    assert kept_letters.exists(reveal(game.dir, ["deck/*"]))


def test_a_module_that_does_not_say_what_is_in_play_is_judged_by_its_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    silent = [
        dataclasses.replace(module, in_play=None) if module.id == "moderator" else module for module in games.GAMES
    ]
    monkeypatch.setattr(games, "GAMES", tuple(silent))
    game = make(tmp_path)
    first_round(game)
    with pytest.raises(StateError, match=r"hidden value\(s\) of the game's state \(its module does not say"):
        reveal(game.dir, ["deck/*"])


def test_the_command_line_refuses_and_forces(tmp_path: Path) -> None:
    game = make(tmp_path)
    first_round(game)

    def run(*args: str) -> Any:
        command = [sys.executable, "-m", "referee", "reveal", str(game.dir), "--draw", "deck/*", *args]
        return subprocess.run(command, capture_output=True, text=True, check=False)

    refused = run()
    assert refused.returncode == 1
    assert "this would open what the game still hides" in refused.stderr and "--force" in refused.stderr
    forced = run("--force")
    assert forced.returncode == 0, forced.stderr
    assert "revealed:" in forced.stdout
