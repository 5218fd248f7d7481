"""`referee demo`: a three-player moderator game played end to end with fresh keys."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.errors import RefereeError
from referee.files import atomic_write
from referee.game.engine import adjudicate, init_game, submit
from referee.game.opened import Game
from referee.game.reveal import reveal
from referee.protocol.signatures import generate_keypair
from referee.protocol.verify import verify_game_dir
from referee.protocol.yamlsafe import dump, load_strict
from referee.signing import sign_order_file

PLAYERS = ("alice", "bob", "carol")
MARKER = ".referee-demo"
TABLES = """\
schema_version: 1
tables:
  morale:
    title: Morale check
    dice: 2d6
    modifiers: {elite: 2, veteran: 1, shaken: -2, flanked: -1}
    clamp: [2, 12]
    rows:
      - {range: "2-5", result: routs}
      - {range: "6-8", result: falls back}
      - {range: "9+", result: holds}
  fire:
    title: Musketry
    dice: 1d6
    modifiers: {close-range: 1, in-cover: -1}
    columns: [line, column]
    rows:
      - {range: "1-", result: {line: no effect, column: no effect}}
      - {range: "2-3", result: {line: no effect, column: 1 hit}}
      - {range: "4-5", result: {line: 1 hit, column: 2 hits}}
      - {range: "6+", result: {line: 2 hits, column: 3 hits}}
"""
# A deck of event cards: round 1 shuffles it in secret and deals two to each player.
DECKS = """\
events:
  title: Event cards
  cards:
    - {id: rain, name: Heavy rain, count: 2}
    - {id: fog, name: Morning fog, count: 2}
    - {id: courier, name: Courier captured}
    - {id: forced-march, name: Forced march, count: 2}
    - {id: ammunition, name: Ammunition runs low}
  deal: 2
  hand_limit: 4
"""
# The players' orders, turn by turn: roll requests (some read on the tables), sealed declarations,
# notes, cards and a hidden note; PLAY marks where alice plays the first card of her hand.
PLAY = "PLAY"
ORDERS = """\
- alice:
    rolls:
      - {label: weather, dice: 1d6, purpose: weather at dawn}
    declaration: {plan: hold the ridge, reserve: 2nd brigade}
  bob:
    rolls:
      - {label: guards-morale, table: morale, modifiers: [elite], purpose: Guards charged by cuirassiers}
      - {label: volley, table: fire, column: line, modifiers: [close-range], purpose: volley at 50 paces}
    hidden_note: {id: flank-march, text: The 3rd brigade marches round the left flank., to: [carol]}
  carol:
    rolls:
      - {label: events, dice: 1d10z, purpose: random event (d10 read 0-9)}
    note: Carol's light cavalry screens the left.
- alice:
    rolls:
      - {label: assault, dice: 2d6, purpose: assault on the village}
      - {label: village-morale, table: morale, modifiers: [veteran, flanked], purpose: defenders of the village}
    cards: PLAY
  bob:
    declaration: {bid: 4}
    cards:
      - {draw: events}
  carol:
    declaration: {bid: 3}
    rolls:
      - {label: scouting, dice: 3d6, purpose: scouting the woods}
- alice:
    rolls:
      - {label: pursuit, dice: 1d6, purpose: pursuit by the hussars}
  bob:
    rolls:
      - {label: rally, table: morale, modifiers: [shaken], purpose: rallying the second line}
    reveal: [flank-march]
  carol:
    note: Carol withdraws in good order.
"""


def run_demo(directory: Path, say: Callable[[str], None]) -> None:
    """Create, play and verify the demo game in `directory`, telling the user what happens."""
    directory = _fresh(Path(directory))
    keys = directory / "players"
    keys.mkdir(parents=True)
    for player in PLAYERS:
        generate_keypair(keys / player, comment=f"{player}@example.org")
    atomic_write(directory / "tables.yaml", TABLES.encode())
    players = "".join(f"  - {{name: {p}, email: {p}@example.org, key_file: players/{p}.pub}}\n" for p in PLAYERS)
    atomic_write(
        directory / "game.yaml",
        (
            "game: demo-skirmish\nmodule: moderator\ntitle: Demo skirmish\ntables: tables.yaml\n"
            f"options:\n  rounds: 3\n  decks:\n{_indent(DECKS, 4)}"
            f"referee: {{email: referee@example.org, name: Demo Referee}}\nplayers:\n{players}"
        ).encode(),
    )
    game = directory / "game"
    init_game(game, directory / "game.yaml")
    say(f"created game demo-skirmish in {game} for {', '.join(PLAYERS)}")
    first_orders: Path | None = None
    for turn, orders in enumerate(load_strict(ORDERS), start=1):
        for player, body in orders.items():
            if body.get("cards") == PLAY:
                game_state = Game.open(game)
                hand = game_state.module.view(game_state.envelope(game_state.dir.current_state_hash())["state"], player)
                card = _first_card(hand)
                body["cards"] = [{"play": card, "deck": "events"}]
                say(f"  turn {turn}: {player} plays '{card}' from her hand, face up")
            path = keys / f"{player}-t{turn}.yaml"
            header = {"game": "demo-skirmish", "turn": turn, "phase": "round", "player": player}
            atomic_write(path, dump({**header, "orders": body}).encode())
            signature = sign_order_file(path, keys / player, lambda: b"")
            receipt = submit(game, path.read_bytes(), signature.read_bytes())
            verdict = "accepted" if receipt.accepted else "REFUSED"
            say(f"  turn {turn}: {player}'s orders {verdict} ({receipt.sha256[:12]})")
            first_orders = first_orders or path
        if turn == 2 and first_orders is not None:
            replay = submit(game, first_orders.read_bytes(), Path(str(first_orders) + ".sig").read_bytes())
            say(f"  turn {turn}: a replayed turn-1 file is refused: {replay.problems[0].message}")
        result = adjudicate(game, expect=f"{turn}/round")
        say(f"adjudicated turn {turn}: {result.rolls} roll(s); record {result.record.relative_to(directory)}")
    report = verify_game_dir(game)
    if not report.ok:
        raise RefereeError("the demo game did not verify: " + "; ".join(report.problems))
    say(f"verified: {report.records} records, {report.rolls} rolls re-derived, signatures and chain hold")
    revealed = reveal(game, final=True)
    report = verify_game_dir(game, final=True)
    if not report.ok:
        raise RefereeError("the demo game's hidden draws did not verify: " + "; ".join(report.problems))
    say(
        f"game over: the hidden secret is revealed ({revealed.relative_to(directory)}); "
        f"{report.hidden_proven} hidden draws and {report.openings} public openings "
        "(a card played, a note revealed) proven"
    )
    packs = game / "mail" / "0003-t3-round" / "letters-*.zip"
    say(f"reports and notices: {game / 'mail'}, in packs of letters (e.g. unzip -p '{packs}' alice.report.txt)")
    say(f"outgoing mail (maildir): {game / 'outbox' / 'new'}")
    say(f"check it yourself: referee verify --final {game}")


def _indent(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line for line in text.splitlines(keepends=True))


def _first_card(view: dict[str, Any]) -> str:
    """Return the id of the first card in a player's view of their hand."""
    for deck in view.get("decks", {}).values():
        for card in deck.get("your_hand") or []:
            return str(card["card"])
    raise RefereeError("the demo expected a card in alice's hand")


def _fresh(directory: Path) -> Path:
    """Return `directory`, emptied if it holds an earlier demo, refused if it holds anything else."""
    if directory.exists() and any(directory.iterdir()):
        if not (directory / MARKER).exists():
            raise RefereeError(
                f"{directory} exists and is not an earlier demo; nothing was touched",
                hints=("give another directory: referee demo DIR",),
            )
        shutil.rmtree(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MARKER).write_text("made by referee demo; removed by the next one\n")
    return directory
