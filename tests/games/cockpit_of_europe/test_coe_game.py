"""A campaign year of Cockpit of Europe by e-mail rules: the Allies and France play the Grand
Campaign from its set-up through the 16 turns of 1744 (option rounds: 16) through signed order
files, the referee supplying the charts the volume does not print (the supplies' own examples,
NOT the book's values) with `referee supply`; then every record is verified, the sealed set-ups
and plans are checked against their commitments, and every letter is read for what the other
side should not see.

Each side is a small bot that reads only the view attached to its phase notice.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Any

import kept_letters
import pytest
import yaml
from counter_random import counter_urandom

from games.cockpit_of_europe import GAME
from referee.game.engine import adjudicate, init_game, submit
from referee.game.opened import Game
from referee.game.override import make_supply
from referee.game.status import status
from referee.protocol.hidden import check_opening
from referee.protocol.signatures import NAMESPACE_ORDERS, generate_keypair, load_private_key, sign
from referee.protocol.verify import verify_game_dir

SIDES = ("allies", "france")
GAME_ID = "coe-test"
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SECRETS = {
    "allies": ["ALLIED-SET-UP-Waldeck-at-Tournai", "ALLIED-PLAN-reconquer-flanders"],
    "france": ["FRENCH-SET-UP-Saxe-at-Lille", "FRENCH-PLAN-conquer-flanders", "FRENCH-DEST-Harwich"],
}
SUPPLIED_AT_START = ("calendar",)
SUPPLIED_IN_PLAY = (
    "random-event-table",
    "strategic-event-chart",
    "milice-pools",
    "peace-index-chart",
    "command-of-the-channel",
    "series-tables",
)


def load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=LOADER)  # noqa: S506 - a safe loader


def make_game(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    setup = tmp_path / "setup"
    (setup / "keys").mkdir(parents=True)
    keys = {}
    for side in SIDES:
        keys[side] = setup / "keys" / side
        generate_keypair(keys[side], comment=f"{side}@example.org")
    config = {
        "game": GAME_ID,
        "module": "cockpit-of-europe",
        "title": "Bargaining Chip",
        "scenario": "campaign",
        "options": {"rounds": 16},
        "referee": {"email": "referee@example.org", "name": "The Referee"},
        "players": [{"name": s, "email": f"{s}@example.org", "key_file": f"keys/{s}.pub"} for s in SIDES],
    }
    (setup / "game.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    game_dir = tmp_path / "game"
    init_game(game_dir, setup / "game.yaml")
    return game_dir, keys


def supply(game_dir: Path, need: str, tmp: Path) -> None:
    example = next(n.example for n in GAME.supplies.needs if n.id == need)  # type: ignore[union-attr]
    make_supply(game_dir, example.encode(), f"{need}: test values, not the book's", f"{need}.yaml")


def notice_view(game_dir: Path, side: str) -> dict[str, Any]:
    phase = Game.open(game_dir).dir.open_phase()
    assert phase is not None
    folder = game_dir / "mail" / getattr(phase, "folder", phase.stem)
    return load_yaml(kept_letters.read_text(folder / f"{side}.view.yaml"))


def bot_orders(view: dict[str, Any], side: str) -> dict[str, Any]:
    """What a plain-minded side orders, from its own view."""
    phase, turn = view["phase"], view["turn"]
    if phase == "set-up":
        orders: dict[str, Any] = {"setup": SECRETS[side][0], "plan": SECRETS[side][1]}
        leaders = {"allies": ["Waldeck", "Ligonier"], "france": ["Saxe", "Lowendal"]}[side]
        orders["candidates"] = {"leaders": leaders, "hubs": [f"{side}-hub"], "grand-army-stacks": [f"{side}-army"]}
        if side == "france":
            orders["descent"] = "launch"
        return orders
    if phase == "start-of-turn":
        return {"challenge": [{"challenger": p[0], "target": p[1]} for p in view["enemies"][:1]]}
    if phase == "administration":
        orders = {"rolls": [{"label": f"leader-{turn}", "table": "leader-check", "purpose": "a leader check"}]}
        if side == "allies":
            orders["bhg"] = {"sps": 18, "artillery_sps": 1, "british_sps": 16}
            if turn == 2:
                orders["dutch_treaty"] = True
        else:
            if turn == 1:
                orders["channel"] = True
                orders["in_england"] = {"sps": 4}
            if turn == 3:
                orders["dutch_recall"] = True
            if turn == 2:
                orders["embark"] = [{"force": "Irish brigade", "destination": SECRETS["france"][2]}]
            if turn == 4:
                orders["land"] = ["Irish brigade"]
        return orders
    if phase == "start-of-operations":
        return {}
    orders = {"rolls": [{"label": f"attrition-{turn}", "table": "attrition", "purpose": "attrition of the army"}]}
    independence = view["town_independence"]
    if independence and independence["side"] == side and independence["turn"] == view["absolute_turn"]:
        orders["standing"] = {"town_independence": {"places": ["any"], "garrison_limit": 4}}
    elif side == "france":
        orders["standing"] = {"milice": {"deploy": "every SP to the fortress the Allies entered"}}
    if side == "france":
        orders["ended_on_empty"] = ["Oudenaarde"]
    if side == "allies" and turn in (6, 7):
        orders["entered_france"] = ["Maubeuge"]
    if side == "allies":
        orders["ended_on_empty"] = ["Ath"]
    if side == "allies" and turn == 7:
        orders["in_france_at_end"] = False
    return orders


def order_file(game_dir: Path, side: str, orders: dict[str, Any]) -> bytes:
    info = status(game_dir)
    header = {"game": GAME_ID, "turn": info["turn"], "phase": info["phase"], "player": side, "seq": 1}
    return yaml.safe_dump({**header, "orders": orders}, sort_keys=False).encode("utf-8")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """Play the campaign year once for every test of this module, with the same dice every run
    (the year's lowest BHG, which a test reads, follows the dice)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fsync", lambda fd: None)  # durability is not under test here
        patch.setattr(os, "urandom", counter_urandom("coe-year/3"))
        return _play(tmp_path_factory.mktemp("coe"))


def _play(folder: Path) -> tuple[Path, list[dict[str, Any]]]:
    game_dir, keys = make_game(folder)
    for need in SUPPLIED_AT_START:
        supply(game_dir, need, folder)
    log = []
    for step in range(100):
        info = status(game_dir)
        if info["over"]:
            break
        if step == 1:
            for need in SUPPLIED_IN_PLAY:
                supply(game_dir, need, folder)
        for side in info["active"]:
            raw = order_file(game_dir, side, bot_orders(notice_view(game_dir, side), side))
            receipt = submit(game_dir, raw, sign(raw, load_private_key(keys[side]), NAMESPACE_ORDERS))
            assert receipt.accepted, (info["turn"], info["phase"], side, [str(p) for p in receipt.problems])
        result = adjudicate(game_dir)
        log.append({"turn": info["turn"], "phase": info["phase"], "events": [e.as_dict() for e in result.events]})
    assert status(game_dir)["over"]
    return game_dir, log


def test_a_campaign_year_is_played_through_signed_orders(played: tuple[Path, list[dict[str, Any]]]) -> None:
    _, log = played
    assert log[0]["phase"] == "set-up"
    # France launched the Descent: the game begins with the Administrative Phase of March-April 1744,
    # that turn's only phase (9.139, 9.533); the 16 turns of option rounds count it.
    assert log[1]["phase"] == "administration"
    assert any(e["kind"] == "descent.opening" and "March-April 1744" in e["text"] for e in log[0]["events"])
    assert [entry["phase"] for entry in log[2:6]] == [
        "start-of-turn",
        "administration",
        "start-of-operations",
        "operations",
    ]
    assert len(log) == 1 + 1 + 15 * 4
    kinds = {event["kind"] for entry in log for event in entry["events"]}
    assert {"roll", "strategic.check", "milice.year", "milice.deployed", "year.ended", "game.ended"} <= kinds
    texts = "\n".join(event["text"] for entry in log for event in entry["events"])
    assert "King's Ennui (3.15)" in texts and "Random Event (7.01)" in texts
    assert "April-May 1744" in texts  # the supplied calendar places the campaign on its book turn
    # The Descent (6.25): BHG 18 + 2 x 1 artillery = 20, less the French 4 = 16, one over the minimum
    # of 15: no change (5.443); 10 turns from the first turn, ending on the 10th: 1 PP (6.253).
    assert {"invasion.started", "invasion.ended", "dutch.treaty", "channel"} <= kinds
    ended = next(e for entry in log for e in entry["events"] if e["kind"] == "invasion.ended")
    assert ended["data"]["turns"] == 10
    assert "the Descent on England lasted 10 turns (6.253)" in texts
    # The year's end after the Descent: the lowest BHG, 20, is 15 below the new minimum of 35: 3 PP (5.444).
    assert "the BHG fell to 20, below 35 (5.444)" in texts


def test_every_record_verifies(played: tuple[Path, list[dict[str, Any]]]) -> None:
    game_dir, log = played
    report = verify_game_dir(game_dir)
    assert report.problems == []


def test_sealed_set_ups_plans_and_destinations_open_and_match_their_commitments(
    played: tuple[Path, list[dict[str, Any]]],
) -> None:
    _, log = played
    sealed = {
        event["data"]["label"]: event["data"]
        for entry in log
        for event in entry["events"]
        if event["kind"] == "note.sealed"
    }
    opened = [event for entry in log for event in entry["events"] if event["kind"] == "note.revealed"]
    assert {*SECRETS["allies"], *SECRETS["france"]} <= {event["data"]["text"] for event in opened}
    assert "The game is over" in opened[-1]["text"]
    for event in opened:
        for opening in event["data"]["openings"]:
            assert opening["label"] in sealed  # committed, publicly, when it was sealed
            assert any(check_opening(opening, opening["commitment"], typed) for typed in (True, False)), opening


def test_no_letter_tells_a_side_the_others_sealed_notes_before_they_open(
    played: tuple[Path, list[dict[str, Any]]],
) -> None:
    game_dir, _ = played
    numbered = [p for p in (game_dir / "mail").iterdir() if p.name[:4].isdigit()]
    folders = sorted(numbered, key=lambda p: int(p.name.split("-", 1)[0]))
    landed = next(i for i, f in enumerate(folders) if f.name.endswith("-t4-administration"))
    read = 0
    for index, folder in enumerate(folders):
        for side, secrets in SECRETS.items():
            reader = "france" if side == "allies" else "allies"
            for path in kept_letters.glob(game_dir / "mail", f"{folder.name}/{reader}.*"):
                read += 1
                raw = kept_letters.read_bytes(path)
                text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("utf-8", errors="replace")
                after = "report" in path.name or "after" in path.name
                for secret in secrets:
                    opens_at = landed if secret == SECRETS["france"][2] else len(folders) - 1
                    if index < opens_at or (index == opens_at and not after):
                        assert secret not in text, (path, secret)
    assert read > len(folders), "the letters were not read (kept in packs: read them through kept_letters)"
