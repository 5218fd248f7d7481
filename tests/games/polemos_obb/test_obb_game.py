"""A whole game by e-mail rules: three players (the Dutch and Imperial allies against the
Bavarians) play the danube-demo scenario through signed order files, the referee adjudicating
every phase; then every record is verified and every letter read for leaks.

Each player is a small bot that reads only the view attached to its phase notice, as a player
would, and writes orders from it.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import kept_letters
import pytest
import yaml
from obb_helpers import TEST_TABLES

from referee.game.engine import adjudicate, init_game, submit
from referee.game.opened import Game
from referee.game.results import Receipt
from referee.game.status import status
from referee.letters.post import read_kept_html
from referee.protocol.signatures import NAMESPACE_ORDERS, generate_keypair, load_private_key, sign
from referee.protocol.verify import verify_game_dir

PLAYERS = ("dutch", "imperial", "bavarian")
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
GAME_ID = "danube-test"
OPTIONS = {
    "rounds": 4,
    "army_morale": {"cmf": {"dutch": 8, "imperial": 8, "bavarian": 10}},  # test values: the book's are missing
    "attack_needs_move": True,
    # Its bots declare contacts as on the players' own table; test_obb_table.py plays on the referee's.
    "battlefield": "players",
}
DUTCH_STANDING = {"respond": "fight", "bases": [{"base": "W", "respond": "decline"}]}


def load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=LOADER)  # noqa: S506 - a safe loader


def make_game(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    setup = tmp_path / "setup"
    (setup / "keys").mkdir(parents=True)
    keys = {}
    for player in PLAYERS:
        keys[player] = setup / "keys" / player
        generate_keypair(keys[player], comment=f"{player}@example.org")
    (setup / "tables.yaml").write_text(yaml.safe_dump(TEST_TABLES), encoding="utf-8")
    config = {
        "game": GAME_ID,
        "module": "polemos-obb",
        "title": "On the Danube",
        "scenario": "danube-demo",
        "options": OPTIONS,
        "tables": "tables.yaml",
        "referee": {"email": "referee@example.org", "name": "The Umpire"},
        "players": [{"name": p, "email": f"{p}@example.org", "key_file": f"keys/{p}.pub"} for p in PLAYERS],
    }
    (setup / "game.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    game_dir = tmp_path / "game"
    init_game(game_dir, setup / "game.yaml")
    return game_dir, keys


def notice_view(game_dir: Path, player: str) -> dict[str, Any]:
    """Return the view attached to `player`'s notice of the open phase."""
    phase = Game.open(game_dir).dir.open_phase()
    assert phase is not None
    folder = game_dir / "mail" / getattr(phase, "folder", phase.stem)
    return load_yaml(kept_letters.read_text(folder / f"{player}.view.yaml"))


def bot_orders(view: dict[str, Any]) -> dict[str, Any]:
    """Orders a plain-minded player writes from their view alone."""
    me = view["your_army"]
    army = next(a for a in view["armies"] if a["id"] == me)
    mine = [d for d in view["divisions"] if d["army"] == me and not d["spent"]]
    phase = view["phase"]
    if phase == "bid":
        orders: dict[str, Any] = {"bid": min(army["tp"], {"dutch": 2, "imperial": 1, "bavarian": 3}[me])}
        if me == "dutch" and view["turn"] == 1:
            orders["standing"] = DUTCH_STANDING
        return orders
    if phase.endswith("command"):
        division = _leading(mine, view)
        orders = {"allocate": [{"general": division["commander"], "tp": army["tp"]}] if division else []}
        orders["rally"] = [
            {"base": b["id"]} for d in mine for br in d["brigades"] for b in br["bases"] if b["state"] == "shaken"
        ]
        if me == "bavarian" and view["turn"] == 1:
            orders["generals"] = [{"general": "de-salon", "join": "M"}]
        return orders
    if phase.endswith("bombardment"):
        guns = [
            b["id"]
            for d in mine
            for br in d["brigades"]
            for b in br["bases"]
            if b["type"].endswith("artillery") and _stands(b)
        ]
        target = next((b for b in _enemy_bases(view, me)), None)
        return {"fire": [{"battery": guns[0], "target": target}]} if guns and target else {}
    if phase.endswith("moves"):
        division = _leading(mine, view)
        if division is None:
            return {}
        budget = army["allocated"].get(division["commander"], {"given": 0})["given"]
        brigades = [br["id"] for br in division["brigades"] if any(_stands(b) for b in br["bases"])]
        return {"moves": [{"order": "move", "brigades": [b]} for b in brigades[: budget // 2]]}
    if phase.endswith("contact"):
        return _attack(view, me, mine)
    return {}


def _stands(base: dict[str, Any]) -> bool:
    return base["state"] in ("fresh", "shaken")


def _leading(divisions: list[dict[str, Any]], view: dict[str, Any]) -> dict[str, Any] | None:
    """The first division on the field whose general can give orders this turn."""
    generals = {g["id"]: g for g in view["generals"]}

    def ready(division: dict[str, Any]) -> bool:
        general = generals[division["commander"]]
        return general["status"] == "active" and general["no_orders_until"] < view["turn"]

    fighting = [
        d
        for d in divisions
        if not d["title"].endswith("train")
        and ready(d)
        and any(_stands(b) for br in d["brigades"] for b in br["bases"])
    ]
    return fighting[0] if fighting else None


def _engaged(view: dict[str, Any]) -> set[str]:
    return {b for e in view["engagements"] for p in e["pairs"] for b in p["bases"]}


def _enemy_bases(view: dict[str, Any], me: str) -> list[str]:
    my_side = next(a["side"] for a in view["armies"] if a["id"] == me)
    enemies = {a["id"] for a in view["armies"] if a["side"] != my_side}
    return [
        b["id"]
        for d in view["divisions"]
        if d["army"] in enemies and not d["spent"] and not d["title"].endswith("train")
        for br in d["brigades"]
        for b in br["bases"]
        if _stands(b) and b["id"] not in _engaged(view)
    ]


def _attack(view: dict[str, Any], me: str, mine: list[dict[str, Any]]) -> dict[str, Any]:
    division = _leading(mine, view)
    engaged = _engaged(view)
    if division is None or division["id"] in {d for e in view["engagements"] for d in e["divisions"]}:
        return {}
    ready = [
        b["id"]
        for br in division["brigades"]
        if br["id"] in view["moved_this_turn"]
        for b in br["bases"]
        if _stands(b) and b["id"] not in engaged
    ]
    my_side = next(a["side"] for a in view["armies"] if a["id"] == me)
    enemies = {a["id"] for a in view["armies"] if a["side"] != my_side}
    targets = [
        d for d in view["divisions"] if d["army"] in enemies and not d["spent"] and not d["title"].endswith("train")
    ]
    for target in targets:
        free = [b["id"] for br in target["brigades"] for b in br["bases"] if _stands(b) and b["id"] not in engaged]
        pairs = [[own, enemy] for own, enemy in zip(ready, free)]
        if pairs:
            return {"attacks": [{"division": division["id"], "target": target["id"], "pairs": pairs}]}
    return {}


def order_file(game_dir: Path, player: str, orders: dict[str, Any], seq: int = 1) -> bytes:
    info = status(game_dir)
    header = {"game": GAME_ID, "turn": info["turn"], "phase": info["phase"], "player": player, "seq": seq}
    return yaml.safe_dump({**header, "orders": orders}, sort_keys=False).encode("utf-8")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """Play the whole game once for every test of this module; return the game folder and each phase's log."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fsync", lambda fd: None)  # durability is not under test here; fsync is most of the time
        return _play(tmp_path_factory.mktemp("obb"))


def _play(folder: Path, orders_for: Any = None, phases: int = 80) -> tuple[Path, list[dict[str, Any]]]:
    """Play the game to its end (at most `phases` phases), the bots writing `orders_for(view)`
    (default `bot_orders`); return folder and log."""
    orders_for = orders_for or bot_orders
    game_dir, keys = make_game(folder)
    log = []
    for _ in range(phases):
        info = status(game_dir)
        if info["over"]:
            break
        for player in info["active"]:
            receipt = _send(game_dir, player, keys[player], orders_for(notice_view(game_dir, player)))
            assert receipt.accepted, (info["turn"], info["phase"], player, [str(p) for p in receipt.problems])
        result = adjudicate(game_dir)
        log.append({"turn": info["turn"], "phase": info["phase"], "kinds": [e.kind for e in result.events]})
    assert status(game_dir)["over"]
    return game_dir, log


def _send(game_dir: Path, player: str, key: Path, orders: Any) -> Receipt:
    """Sign and submit a bot's orders: one file; a list, tried in turn until one stands; or a
    generator, sent each refusal's problems (path, message) to yield the corrected file."""
    tries = orders if isinstance(orders, Generator) else iter(orders if isinstance(orders, list) else [orders])
    tried = next(tries)
    for seq in itertools.count(1):
        raw = order_file(game_dir, player, tried, seq)
        receipt = submit(game_dir, raw, sign(raw, load_private_key(key), NAMESPACE_ORDERS))
        if receipt.accepted:
            break
        problems = [(p.path, p.message) for p in receipt.problems]
        try:
            tried = tries.send(problems) if isinstance(tries, Generator) else next(tries)
        except StopIteration:
            break
    return receipt


def test_the_game_is_played_to_its_end_through_signed_orders(played: tuple[Path, list[dict[str, Any]]]) -> None:
    game_dir, log = played
    assert log[0]["phase"] == "muster"
    # A new game takes pace skip-idle: the morale phase, where nobody gives orders, is adjudicated
    # within the last contact phase of the turn, and costs no letters of its own.
    assert [entry["phase"] for entry in log[1:11]] == [
        "bid",
        "tempo-command",
        "tempo-bombardment",
        "tempo-moves",
        "tempo-contact",
        "other-command",
        "other-bombardment",
        "other-moves",
        "other-contact",
        "bid",
    ]
    assert "morale" not in {entry["phase"] for entry in log}
    assert "turn.end" in log[9]["kinds"] and "pace.at-once" not in log[9]["kinds"]
    kinds = {kind for entry in log for kind in entry["kinds"]}
    assert {"army.generated", "tempo.auction", "combat.encounter", "bombardment.fire", "moves.orders"} <= kinds
    assert max(entry["turn"] for entry in log) >= 2


def test_every_record_verifies(played: tuple[Path, list[dict[str, Any]]]) -> None:
    game_dir, log = played
    report = verify_game_dir(game_dir)
    assert report.problems == []
    assert report.records == len(log)


def test_no_bid_is_seen_before_the_auction_is_adjudicated(played: tuple[Path, list[dict[str, Any]]]) -> None:
    game_dir, _ = played
    bid_folders = sorted(p for p in (game_dir / "mail").iterdir() if p.name.endswith("-bid"))
    assert bid_folders
    mail = game_dir / "mail"
    for folder in bid_folders:
        turn = int(folder.name.split("-t")[1].split("-")[0])
        views = list(kept_letters.glob(mail, f"{folder.name}/*.view.yaml"))  # sent with the notices, before any bid
        reports = list(kept_letters.glob(mail, f"{folder.name}/*.report.txt"))
        assert views and reports, folder  # read through the packs of letters: an empty loop would check nothing
        for view_file in views:
            auction = load_yaml(kept_letters.read_text(view_file))["last_auction"]
            assert auction is None or auction["turn"] < turn, view_file
        for ack in kept_letters.glob(mail, f"{folder.name}/*.ack-*.txt"):
            assert "bid" not in kept_letters.read_text(ack).split("For: turn")[0]
        for report in reports:
            text = kept_letters.read_text(report)
            assert "every sealed bid, revealed together" in text
            assert all(name in text for name in ("Dutch army", "Imperial army", "Bavarian army"))
            assert f"Tempo bidding, turn {turn}" in text
        view_after = load_yaml(kept_letters.read_text(folder / "bavarian.view-after.yaml"))
        assert view_after["last_auction"]["turn"] == turn


def test_standing_orders_stay_with_their_player(played: tuple[Path, list[dict[str, Any]]]) -> None:
    game_dir, _ = played
    for path in kept_letters.glob(game_dir / "mail", "*/*"):
        if not path.is_file() or path.name.startswith("dutch."):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        assert "Your standing orders" not in text, path
        if path.suffix == ".yaml" and "view" in path.name:
            assert load_yaml(text)["your_standing_orders"] in ({}, None), path
    dutch_view = load_yaml(
        kept_letters.read_text(next(kept_letters.glob(game_dir / "mail", "*-t1-tempo-command/dutch.view.yaml")))
    )
    assert dutch_view["your_standing_orders"] == {"respond": "fight", "bases": {"W": "decline"}}


def test_reports_show_each_phase_in_the_games_terms(played: tuple[Path, list[dict[str, Any]]]) -> None:
    game_dir, _ = played
    reports = {p: kept_letters.read_text(p) for p in kept_letters.glob(game_dir / "mail", "*/*.report.txt")}
    html = {p: read_kept_html(p) for p in kept_letters.glob(game_dir / "mail", "*/*.report.html")}
    assert len(reports) == len(html) > 0
    text = "\n".join(reports.values())
    assert "Tempo points for turn 1:" in text
    assert "is rolled on the Imperialist generator" in text
    assert "Outcome round:" in text and "advance to contact round" in text
    assert "<th>bid</th>" in "\n".join(html.values())
    states = json.loads(
        (game_dir / "records" / sorted(p.name for p in (game_dir / "records").glob("*.json"))[-1]).read_text()
    )
    assert states["state_after"]
