"""Pace (issue 17): a step nobody can give orders in is adjudicated within the phase before it, and a
side may send its whole half-turn in one order file. New games take option pace: skip-idle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from obb_helpers import event, new_game, play
from test_obb_combat_example import TURN_ONE_DICE, VAN_GELDER_ATTACKS

from games.polemos_obb import GAME
from games.polemos_obb.options import NEW_GAME_OPTIONS
from referee.game.audit import audit
from referee.game.engine import adjudicate, init_game, submit
from referee.game.status import status
from referee.protocol.signatures import NAMESPACE_ORDERS, generate_keypair, load_private_key, sign
from referee.protocol.verify import verify_game_dir

NEW = dict(NEW_GAME_OPTIONS)
MOVES = [{"order": "move", "brigades": ["W", "X", "Y", "Z"]}, {"order": "move", "brigades": ["V"]}]


def command_phase(**options: Any) -> dict[str, Any]:
    """Turn 1 of the combat example up to van Gelder's command phase (he holds the Tempo, 7 TP left)."""
    state = new_game(**options)
    state, _, _ = play(state, {}, [5, 3])
    state, _, _ = play(state, {"dutch": {"bid": 2}, "bavarian": {"bid": 1}})
    assert state["step"] == "tempo-command"
    return state


def kinds(events: list[Any]) -> list[str]:
    return [e.kind for e in events]


def test_bombardment_without_the_table_and_contact_without_a_move_cost_no_phase() -> None:
    state = command_phase(**NEW)
    state, events, _ = play(state, {"dutch": {"allocate": [{"general": "van-gelder", "tp": 7}]}})
    at_once = [e for e in events if e.kind == "pace.at-once"]
    assert [e.data["step"] for e in at_once] == ["tempo-bombardment"]
    assert "the bombardment table is not supplied" in at_once[0].text
    assert state["step"] == "tempo-moves"
    state, events, _ = play(state, {"dutch": {"moves": []}})
    assert [e.data["step"] for e in events if e.kind == "pace.at-once"] == ["tempo-contact"]
    assert state["step"] == "other-command"


def test_a_game_begun_before_waits_for_every_phase() -> None:
    state = command_phase()
    state, events, _ = play(state, {"dutch": {"allocate": [{"general": "van-gelder", "tp": 7}]}})
    assert "pace.at-once" not in kinds(events)
    assert state["step"] == "tempo-bombardment"
    assert GAME.phase(state).active == ("dutch",)
    problems = GAME.validate(state, "dutch", {"fire": []})
    assert problems == []
    state = command_phase()
    later = {"allocate": [{"general": "van-gelder", "tp": 7}], "later": {"moves": MOVES}}
    assert [p.code for p in GAME.validate(state, "dutch", later)] == ["illegal.later"]


def test_one_file_covers_the_whole_half_turn_and_the_book_example_plays_the_same() -> None:
    """The book's turn 1 (pp. 31-33): command, moves and attack in one file, every die as in the book."""
    state = command_phase(**NEW)
    orders = {
        "allocate": [{"general": "van-gelder", "tp": 7}],
        "later": {"moves": MOVES, **VAN_GELDER_ATTACKS["dutch"]},
    }
    state, events, _ = play(state, {"dutch": orders}, [*TURN_ONE_DICE, 2, 5])
    assert [e.data["step"] for e in events if e.kind == "pace.at-once"] == [
        "tempo-bombardment",
        "tempo-moves",
        "tempo-contact",
    ]
    assert [o["tp"] for o in event(events, "moves.orders").data["orders"]] == [5, 2]
    outcome = event(events, "combat.encounter").data["outcome"]
    scores = {line["division"]: line["score"] for line in outcome["divisions"]}
    assert scores == {"de-salon": 7, "van-gelder": 5}  # the book: de Salon 5 + 2, van Gelder 0 + 5
    assert outcome["comparisons"][0]["fall_back_bd"] == 0 and outcome["continuing"] == ["e1"]
    kept = event(events, "pace.ahead-kept")
    assert kept.visible_to == ("dutch",)
    assert state["step"] == "other-command"
    assert GAME.phase(state).active == ("bavarian",)


def test_orders_sent_ahead_that_no_longer_fit_wait_for_the_player() -> None:
    state = command_phase(**NEW)
    orders = {"allocate": [{"general": "van-gelder", "tp": 5}], "later": {"moves": MOVES}}  # 7 TP of moves
    state, events, _ = play(state, {"dutch": orders})
    refused = event(events, "pace.ahead-refused")
    assert refused.visible_to == ("dutch",) and "TP" in refused.text
    assert state["step"] == "tempo-moves"
    assert GAME.phase(state).active == ("dutch",)


def test_orders_sent_ahead_are_seen_by_their_player_alone() -> None:
    state = command_phase(**NEW)
    orders = {"allocate": [{"general": "van-gelder", "tp": 1}], "later": {"moves": MOVES[1:]}}
    state, _, _ = play(state, {"dutch": orders})
    assert state["step"] == "tempo-moves"  # 2 TP wanted, 1 given: refused, the step waits
    state = command_phase(**NEW)
    orders = {"allocate": [{"general": "van-gelder", "tp": 7}], "later": {"moves": MOVES}}
    state, _, _ = play(state, {"dutch": orders})  # moves applied; the attack is still the player's to send
    assert state["step"] == "tempo-contact"
    assert "your_orders_ahead" in GAME.view(state, "dutch")
    assert (
        "your_orders_ahead" not in GAME.view(state, "bavarian") or not GAME.view(state, "bavarian")["your_orders_ahead"]
    )
    secrets = dict(GAME.secrets(state))
    assert all(roles == ("dutch",) for pointer, roles in secrets.items() if pointer.startswith("/later/"))


def test_a_half_turn_sent_in_one_signed_file_plays_verifies_and_audits(tmp_path: Path) -> None:
    """Through the real core: the Dutch send command, moves and attack in one file; the Bavarian command
    phase is the next to open, and the game verifies and audits."""
    keys = {}
    (tmp_path / "setup" / "keys").mkdir(parents=True)
    for player in ("dutch", "bavarian"):
        keys[player] = tmp_path / "setup" / "keys" / player
        generate_keypair(keys[player], comment=f"{player}@example.org")
    config = {
        "game": "half-turn",
        "module": "polemos-obb",
        "scenario": "combat-example",
        "options": {"rounds": 1, "army_morale": {"cmf": {"dutch": 15, "bavarian": 15}}},
        "referee": {"email": "referee@example.org", "name": "The Umpire"},
        "players": [{"name": p, "email": f"{p}@example.org", "key_file": f"keys/{p}.pub"} for p in keys],
    }
    (tmp_path / "setup" / "game.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    game_dir = tmp_path / "game"
    init_game(game_dir, tmp_path / "setup" / "game.yaml")

    def send(player: str, orders: dict[str, Any]) -> None:
        info = status(game_dir)
        header = {"game": "half-turn", "turn": info["turn"], "phase": info["phase"], "player": player, "seq": 1}
        raw = yaml.safe_dump({**header, "orders": orders}, sort_keys=False).encode("utf-8")
        receipt = submit(game_dir, raw, sign(raw, load_private_key(keys[player]), NAMESPACE_ORDERS))
        assert receipt.accepted, [str(p) for p in receipt.problems]

    adjudicate(game_dir)  # muster
    send("dutch", {"bid": 2})
    send("bavarian", {"bid": 1})
    adjudicate(game_dir)
    assert status(game_dir)["active"] == ["dutch"]  # a bid of 2 against 1 wins the Tempo
    # 2 TP for one brigade: the Dutch hold at least 3 (1 + 1 + a die, their bid of 2 paid, 2 for the Tempo)
    attack = {"division": "van-gelder", "target": "de-salon", "pairs": [["Y", "N"]]}  # Y faces N on the table
    later = {"moves": [{"order": "move", "brigades": ["Y"]}], "attacks": [attack]}
    send("dutch", {"allocate": [{"general": "van-gelder", "tp": 2}], "later": later})
    result = adjudicate(game_dir)
    assert [e.data["step"] for e in result.events if e.kind == "pace.at-once"] == [
        "tempo-bombardment",
        "tempo-moves",
        "tempo-contact",
    ]
    assert any(e.kind == "combat.encounter" for e in result.events)
    assert status(game_dir)["phase"] == "other-command"
    folders = sorted(p.name for p in (game_dir / "mail").iterdir())
    assert folders[-2:] == ["0003-t1-tempo-command", "0004-t1-other-command"]
    assert verify_game_dir(game_dir).problems == []
    assert audit(game_dir).divergence is None
