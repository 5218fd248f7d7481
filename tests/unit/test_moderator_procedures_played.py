"""Cockpit of Europe's printed d10 checks run as moderator tables through the real engine: orders
signed with real keys, three adjudicated rounds using numeric modifiers, structured results, a
conditional roll, a pick from a public list and one from a sealed note; then the reports are read
for the chain of rolls and for what a player should not see, and the game verifies and audits.

The thresholds are the rulebook's (../shared/rules/cockpit-of-europe.md, section 2b): R2 the flood
ends on <= 3 after "-1 for each roll after the first"; R16 the Dutch artillery arrives on <= 1,
-3 with a plan other than Defend; R24 a sick leader recovers on 0-2 and dies on 8-9. The Random
Event Table is missing from the source: the `random-event` table is the referee's own.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import kept_letters
import pytest
import yaml
from played import copy_game

from referee.game.audit import audit
from referee.game.engine import adjudicate, init_game
from referee.game.journal import GameDir
from referee.game.public_audit import public_audit
from referee.game.reveal import reveal
from referee.protocol.signatures import generate_keypair
from referee.protocol.verify import verify_game_dir

from conftest import TestGame

PLAYERS = ("allied", "french")
GAME = "cockpit-checks"
LEADERS = ["Saxe", "Lowendahl", "Cumberland", "Waldeck", "Batthyany", "Charles of Lorraine"]
TARGETS = ["SECRET-Mons", "SECRET-Tournai", "SECRET-Namur"]
TABLES = """\
schema_version: 1
tables:
  flood-ends:
    title: Voluntary flooding ends (1.253)
    dice: 1d10z
    modifiers:
      later-rolls: {min: -20, max: 0}
    effects: [flood-ends]
    rows:
      - {range: "3-", result: {text: the flood ends, effects: [flood-ends]}}
      - {range: "4+", result: the flood goes on}
  dutch-artillery:
    title: Dutch Artillery Reserves (5.55)
    dice: 1d10z
    modifiers: {not-defend: -3}
    rows:
      - {range: "1-", result: the artillery arrives}
      - {range: "2+", result: no artillery}
  random-event:
    title: Random event (the referee's table)
    dice: 1d10z
    rows:
      - {range: "0-9", result: {text: The Pox, pick: {from: leaders}, roll: pox-recovery}}
  pox-recovery:
    title: The Pox, recovery (7.02)
    dice: 1d10z
    effects: [leader-recovers, leader-dies]
    rows:
      - {range: "0-2", result: {text: recovers, effects: [leader-recovers]}}
      - {range: "3-7", result: no effect}
      - {range: "8-9", result: {text: dies, effects: [leader-dies]}}
"""


def new_game(root: Path) -> TestGame:
    setup = root / "setup"
    (setup / "keys").mkdir(parents=True)
    keys, players = {}, []
    for player in PLAYERS:
        keys[player] = setup / "keys" / player
        generate_keypair(keys[player], comment=f"{player}@example.org")
        players.append({"name": player, "email": f"{player}@example.org", "key_file": f"keys/{player}.pub"})
    (setup / "tables.yaml").write_text(TABLES, encoding="utf-8")
    config = {
        "game": GAME,
        "module": "moderator",
        "title": "Cockpit of Europe's d10 checks",
        "tables": "tables.yaml",
        "options": {"rounds": 3, "lists": {"leaders": LEADERS}},
        "referee": {"email": "referee@example.org", "name": "Referee"},
        "players": players,
    }
    (setup / "game.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    init_game(root / "game", setup / "game.yaml")
    return TestGame(root / "game", keys, game=GAME, players=PLAYERS)


def play_round(game: TestGame, turn: int, orders: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    for player in PLAYERS:
        body = yaml.safe_dump(orders[player], sort_keys=False) if orders.get(player) else "{}"
        receipt = game.submit(player, turn, body)
        assert receipt.accepted, (turn, player, [str(p) for p in receipt.problems])
    adjudicate(game.dir, expect=f"{turn}/round")
    entry = GameDir(game.dir).log_entry("phase.adjudicated", turn, "round") or {}
    return list(entry["events"])


def report(game: TestGame, turn: int, player: str) -> str:
    (folder,) = sorted(kept_letters.glob(game.dir / "mail", f"{turn:04d}-t{turn}-round*"))[-1:]
    return kept_letters.read_text(folder / f"{player}.report.txt")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[TestGame, dict[int, list[dict[str, Any]]]]:
    game = new_game(tmp_path_factory.mktemp("cockpit"))
    events = {}
    flood = {
        "label": "flood",
        "purpose": "does the flooding end? (1.253, third roll)",
        "table": "flood-ends",
        "modifiers": [{"later-rolls": -2}],
        "then": [
            {"if": {"effect": "flood-ends"}, "pick": {"from": ["Dutch Flood Zone north", "Dutch Flood Zone south"]}},
            {"if": {"total": ">= 4"}, "dice": "1d10z", "purpose": "next turn's check, drawn early"},
        ],
    }
    events[1] = play_round(
        game,
        1,
        {
            "allied": {
                "rolls": [
                    flood,
                    {"label": "artillery", "purpose": "5.55", "table": "dutch-artillery", "modifiers": ["not-defend"]},
                ]
            },
            "french": {"rolls": [{"label": "event", "purpose": "random event (7.01)", "table": "random-event"}]},
        },
    )
    note = {"id": "targets", "text": "\n".join(TARGETS)}
    events[2] = play_round(game, 2, {"french": {"hidden_note": note}})
    strike = {
        "label": "strike",
        "purpose": "where the French strike",
        "dice": "1d6",
        "then": [{"pick": {"from": {"note": "targets", "by": "french"}}}],
    }
    events[3] = play_round(game, 3, {"allied": {"rolls": [strike]}})
    return game, events


def data_of(events: list[dict[str, Any]], label: str) -> dict[str, Any]:
    found: dict[str, Any] = next(e["data"] for e in events if e["data"].get("label") == label)
    return found


def test_the_rulebook_thresholds_are_read(played: tuple[TestGame, dict[int, list[dict[str, Any]]]]) -> None:
    game, events = played
    flood = data_of(events[1], "roll/allied/flood")["lookup"]
    assert flood["modifiers"] == [{"name": "later-rolls", "value": -2}]
    assert flood["modified"] == flood["natural"] - 2
    ends = flood["modified"] <= 3
    assert flood["result"] == ({"text": "the flood ends", "effects": ["flood-ends"]} if ends else "the flood goes on")
    labels = {e["data"].get("label") for e in events[1]}
    assert ("roll/allied/flood/then-1" in labels) == ends and ("roll/allied/flood/then-2" in labels) == (not ends)
    artillery = data_of(events[1], "roll/allied/artillery")["lookup"]
    assert artillery["result"] == ("the artillery arrives" if artillery["natural"] - 3 <= 1 else "no artillery")
    pox = data_of(events[1], "roll/french/event/roll")["lookup"]
    face = pox["natural"]
    assert pox.get("result_text", pox["result"]) == ("recovers" if face <= 2 else "dies" if face >= 8 else "no effect")
    picked = data_of(events[1], "roll/french/event/pick")["picked"]
    assert len(picked) == 1 and picked[0] in LEADERS


def test_the_report_shows_the_chain(played: tuple[TestGame, dict[int, list[dict[str, Any]]]]) -> None:
    game, events = played
    text = " ".join(report(game, 1, "allied").split())
    picked = data_of(events[1], "roll/french/event/pick")["picked"][0]
    assert f"french's event, then (The Pox): picked from the list leaders for “The Pox”: {picked}" in text
    assert "roll/french/event/roll" in text and "follows roll/french/event (result The Pox)" in text
    assert "later-rolls -2" in text
    assert f"picked from the list leaders: {picked}" in text


def test_a_sealed_pick_shows_the_item_to_the_notes_readers_only(
    played: tuple[TestGame, dict[int, list[dict[str, Any]]]],
) -> None:
    game, events = played
    line = data_of(events[3], "roll/allied/strike/then-1")["lines"][0]
    assert f"picked line(s) {line} of 3 of french's sealed note 'targets'" in " ".join(
        report(game, 3, "allied").split()
    )
    assert not any(target in report(game, 3, "allied") for target in TARGETS)
    assert TARGETS[line - 1] in report(game, 3, "french")
    public = json.dumps([e for e in events[3] if e["visible_to"] == "all"])
    assert not any(target in public for target in TARGETS)
    records = "".join(path.read_text() for path in (game.dir / "records").glob("*.json"))
    assert not any(target in records for target in TARGETS)


def test_the_game_verifies_and_audits(played: tuple[TestGame, dict[int, list[dict[str, Any]]]]) -> None:
    game, _ = played
    verified = verify_game_dir(game.dir)
    assert verified.ok, verified.problems
    audited = audit(game.dir)
    assert audited.ok, audited.divergence


def test_a_player_replays_the_finished_game_from_their_letters(
    played: tuple[TestGame, dict[int, list[dict[str, Any]]]], tmp_path: Path
) -> None:
    """After the final reveal, `referee audit --public` resolves every round again from the
    letters the allied player received, the sealed pick included."""
    game = copy_game(played[0], tmp_path / "game")
    reveal(game.dir, final=True)
    verified = verify_game_dir(game.dir, final=True)
    assert verified.ok and verified.final, verified.problems
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "contract"))
    try:
        from test_public_audit import player_folder
    finally:
        sys.path.pop(0)
    report = public_audit(player_folder(game.dir, tmp_path / "allied", "allied"))
    assert report.ok and report.records == 3, report.problems
