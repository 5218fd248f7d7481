"""Build a small moderator game with the code on PYTHONPATH (a release), for the old-games test."""

import sys
from pathlib import Path

from referee.game.engine import adjudicate, init_game, submit
from referee.protocol.signatures import NAMESPACE_ORDERS, generate_keypair, load_private_key, sign

PLAYERS = ("alice", "bob")
TABLES = (
    "schema_version: 1\ntables:\n  morale:\n    title: Morale\n    dice: 2d6\n    modifiers: {elite: 1, shaken: -2}\n"
    "    rows:\n      - {range: '6-', result: breaks}\n      - {range: '7+', result: holds}\n"
)
DECKS = "  decks:\n    events:\n      title: Events\n      per_player: false\n      owner: null\n"


def orders(player, turn):
    body = (
        f"game: oldgame\nturn: {turn}\nphase: round\nplayer: {player}\norders:\n  rolls:\n"
        f"    - {{label: r{turn}, table: morale, modifiers: [elite], purpose: morale check {turn}}}\n"
        f"    - {{label: d{turn}, dice: 1d6, purpose: weather}}\n"
        f"  declaration: {{bid: {turn}}}\n  note: round {turn} from {player}\n"
    )
    if turn == 1:
        body += "  hidden_note: {id: plan, text: 'march on Namur', to: []}\n"
    if turn == 3 and player == "alice":
        body += "  reveal: [plan]\n"
    return body.encode()


work = Path(sys.argv[1])
work.mkdir(parents=True)
for p in PLAYERS:
    generate_keypair(work / p)
entries = "".join(f"  - {{name: {p}, email: {p}@example.org, key_file: {p}.pub}}\n" for p in PLAYERS)
(work / "game.yaml").write_text("game: oldgame\nmodule: moderator\ntables: tables.yaml\nplayers:\n" + entries)
(work / "tables.yaml").write_text(TABLES)
game = work / "game"
init_game(game, work / "game.yaml")
for turn in (1, 2, 3):
    for p in PLAYERS:
        raw = orders(p, turn)
        result = submit(game, raw, sign(raw, load_private_key(work / p), NAMESPACE_ORDERS))
        assert result.accepted, result.problems
    adjudicate(game)
print("built", game)
