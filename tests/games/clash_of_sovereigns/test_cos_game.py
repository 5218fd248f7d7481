"""Whole games by e-mail rules: two players (a year, 1741) and four players (a year) play
through signed order files, the referee adjudicating every phase; the cards come by `referee
supply` after init (the made-up example list, not the book's), the rest in the options. Then
every record is verified, every hand is checked against its shuffle's commitments by code of
its own, and every letter is read for another seat's cards.

Each seat is a bot that reads only the view attached to its notice, as a player would.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

import kept_letters
import pytest
import yaml
from cos_helpers import EXAMPLES

from referee.game.engine import adjudicate, init_game, submit
from referee.game.opened import Game
from referee.game.override import make_supply
from referee.game.status import status
from referee.game.supplies import WaitingOnReferee
from referee.kit import load_text
from referee.letters.kept import read_kept
from referee.protocol.signatures import NAMESPACE_ORDERS, generate_keypair, load_private_key, sign
from referee.protocol.verify import verify_game_dir

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SPACES = ("Prague", "Glatz", "Kolin", "Mons")
NATION = {"france": "french", "prussia": "prussian", "austria": "austrian", "britain": "british"}
BOURBON = ("france", "prussia", "spain")
CARD_ID = re.compile(r"\b(?:fr|ps|au|bp)-[0-9]{2}\b")


def make_game(folder: Path, scenario: str, seats: tuple[str, ...]) -> tuple[Path, dict[str, Path]]:
    setup = folder / "setup"
    (setup / "keys").mkdir(parents=True)
    keys = {}
    for seat in seats:
        keys[seat] = setup / "keys" / seat
        generate_keypair(keys[seat], comment=f"{seat}@example.org")
    supplied = {need: data for need, data in EXAMPLES.items() if need != "cards"}
    config = {
        "game": "cos-test",
        "module": "clash-of-sovereigns",
        "title": "Clash of Sovereigns, a test year",
        "scenario": scenario,
        "options": {"first_year": 1741, "last_year": 1741, "mulligans": True, "supplied": supplied},
        "referee": {"email": "referee@example.org", "name": "The Umpire"},
        "players": [{"name": s, "email": f"{s}@example.org", "key_file": f"keys/{s}.pub"} for s in seats],
    }
    (setup / "game.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    game_dir = folder / "game"
    init_game(game_dir, setup / "game.yaml")
    with pytest.raises(WaitingOnReferee, match="Strategy Cards"):  # the start is held until the cards come
        adjudicate(game_dir, force=True)
    assert any(kept_letters.glob(game_dir / "mail", "*/*.waiting-cards*.txt"))
    cards = load_text("games.clash_of_sovereigns", "examples/cards.yaml").encode("utf-8")
    make_supply(game_dir, cards, "the made-up example cards (not the book's)", "cards.yaml")
    return game_dir, keys


def notice_view(game_dir: Path, seat: str) -> dict[str, Any]:
    phase = Game.open(game_dir).dir.open_phase()
    assert phase is not None
    folder = game_dir / "mail" / getattr(phase, "folder", phase.stem)
    return yaml.load(kept_letters.read_text(folder / f"{seat}.view.yaml"), Loader=LOADER)  # noqa: S506


def bot_orders(view: dict[str, Any], turn: int) -> dict[str, Any]:
    """Orders a plain-minded seat writes from its view alone."""
    step = view["step"]
    hands = {deck: shown.get("your_hand", []) for deck, shown in view["decks"].items()}
    leaders = {item["name"]: item for item in view["leaders"]}
    if step["kind"] == "battle":
        fight = view["battles"][0]
        if not {fight["attacker"], fight["defender"]} & set(view["your_powers"]):
            return {}  # the window opens to every seat; this one does not fight
        power = fight["attacker"] if fight["attacker"] in view["your_powers"] else fight["defender"]
        mine = [name for name, item in leaders.items() if item["power"] == power]
        force = {"commander": mine[0], "nations": [{"nation": NATION[power], "sp": 20 + turn % 7}], "cavalry_sp": 4}
        tac = [c["card"] for hand in hands.values() for c in hand if "tac" in c.get("uses", [])][:1]
        return {"force": force, "tac": tac}
    if step["kind"] != "power":
        return {}
    power = step["power"]
    if power not in view["your_powers"]:
        if (power in BOURBON) == (view["your_powers"][0] in BOURBON):
            return {}  # an ally's turn: nothing to react to
        # The mover enters SPACES[turn % 4], then fights or besieges at SPACES[(turn + 3) % 4]; one
        # kind of reaction a turn is aimed where it is triggered, the others where no one goes.
        aim = {kind: n == turn % 3 for n, kind in enumerate(("withdraw", "intercept", "interrupt"))}
        miss = SPACES[(turn + 1) % 4]
        entered = SPACES[turn % 4]
        fought = SPACES[(turn + 3) % 4]
        reactions: dict[str, Any] = {
            "withdraw": [{"when_battle_at": fought if aim["withdraw"] else miss, "to": "Budweis"}]
        }
        ours = [
            name for name, item in leaders.items() if item["power"] in view["your_powers"] and item["power"] in NATION
        ]
        if ours:
            reactions["intercept"] = [{"when_enters": entered if aim["intercept"] else miss, "leader": ours[0]}]
        interrupts = [c["card"] for hand in hands.values() for c in hand if "interrupt" in c.get("uses", [])]
        if interrupts:
            reactions["interrupt"] = [
                {
                    "card": interrupts[0],
                    "when_enters": entered if aim["interrupt"] else miss,
                    "raid": {"space": "Glatz", "enemy_sp": 1},
                }
            ]
        return {"reactions": reactions}
    deck = {"france": "france", "prussia": "prussia-spain", "austria": "austria", "britain": "britain-piedmont"}[power]
    orders: dict[str, Any] = {}
    if view["season"] in ("winter", "late-winter"):
        orders["attrition"] = [{"force": "main army", "sp": 23, "percent": 10}]
    playable = [c for c in hands[deck] if "operations" in c.get("uses", [])]
    if not playable:
        return {**orders, "pass": True}
    card = playable[0]
    chief = next(
        (name for name, item in leaders.items() if item["power"] == power and item["initiative"] <= card["cp"]), None
    )
    if chief is None:
        return {**orders, "play": {"card": card["card"], "as": "operations", "operations": []}}
    at = SPACES[(turn + 3) % 4]
    enemy = {"france": "austria", "prussia": "austria", "austria": "prussia", "britain": "france"}[power]
    op: dict[str, Any] = {
        "activate": chief,
        "sp": 30,
        "moves": [{"to": SPACES[turn % 4]}, {"to": at, "enemy_command": True}],
    }
    if turn % 2:
        op["battle"] = {"defender": enemy, "at": at}
    else:
        op["siege"] = {"space": at, "rolls": 1}
    return {**orders, "play": {"card": card["card"], "as": "operations", "operations": [op]}}


def order_file(game_dir: Path, seat: str, orders: dict[str, Any]) -> bytes:
    info = status(game_dir)
    header = {"game": "cos-test", "turn": info["turn"], "phase": info["phase"], "player": seat, "seq": 1}
    return yaml.safe_dump({**header, "orders": orders}, sort_keys=False).encode("utf-8")


def _play(folder: Path, scenario: str, seats: tuple[str, ...]) -> tuple[Path, list[dict[str, Any]]]:
    game_dir, keys = make_game(folder, scenario, seats)
    log = []
    for _ in range(80):
        info = status(game_dir)
        if info["over"]:
            break
        for seat in info["active"]:
            raw = order_file(game_dir, seat, bot_orders(notice_view(game_dir, seat), info["turn"]))
            receipt = submit(game_dir, raw, sign(raw, load_private_key(keys[seat]), NAMESPACE_ORDERS))
            assert receipt.accepted, (info["turn"], info["phase"], seat, [str(p) for p in receipt.problems], raw)
        result = adjudicate(game_dir)
        log.append({"turn": info["turn"], "phase": info["phase"], "events": [e.as_dict() for e in result.events]})
    assert status(game_dir)["over"]
    return game_dir, log


GAMES = {
    "two-players": ("bourbon", "pragmatic"),
    "four-players": ("austria", "britain-piedmont", "france", "prussia-spain"),
}


@pytest.fixture(scope="module", params=sorted(GAMES))
def played(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path, list[dict[str, Any]]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fsync", lambda fd: None)  # durability is not under test here
        scenario = request.param
        return (scenario, *_play(tmp_path_factory.mktemp(scenario), scenario, GAMES[scenario]))


def test_a_year_is_played_through_signed_orders(played: tuple[str, Path, list[dict[str, Any]]]) -> None:
    _, game_dir, log = played
    phases = [entry["phase"] for entry in log]
    assert phases[0] == "start"
    seasons = [p.split("-")[0] for p in phases if p not in ("start", "battle")]
    for season in ("late", "spring", "summer", "fall", "winter"):
        assert season in seasons
    kinds = {e["kind"] for entry in log for e in entry["events"]}
    assert {"card.played", "activation", "reactions.sealed", "attrition", "season", "game.over"} <= kinds
    assert {"battle.result", "siege"} & kinds
    assert "reaction.opened" in kinds


def test_every_record_verifies(played: tuple[str, Path, list[dict[str, Any]]]) -> None:
    _, game_dir, log = played
    report = verify_game_dir(game_dir)
    assert report.problems == []
    assert report.records == len(log)


def test_every_card_drawn_matches_its_shuffles_commitment(played: tuple[str, Path, list[dict[str, Any]]]) -> None:
    """Independent of the referee's code: each opening a seat received is sha256(salt || text),
    its text names the card, and the record lists the same commitment under that label."""
    _, game_dir, _ = played
    committed: set[str] = set()
    for record in (game_dir / "records").glob("*.json"):
        text = record.read_text(encoding="utf-8")
        committed |= set(re.findall(r"[0-9a-f]{64}", text))
    checked = 0
    for view_file in kept_letters.glob(game_dir / "mail", "*/*.view.yaml"):
        view = yaml.load(kept_letters.read_text(view_file), Loader=LOADER)  # noqa: S506
        for shown in view["decks"].values():
            for card in shown.get("your_hand", []):
                proof = card["proof"]
                # protocol.md: SHA-256(salt || "pbem-hidden/2 LABEL INDEX JSON" LF), the card id as JSON.
                line = f"pbem-hidden/2 {proof['label']} {proof['index']} {json.dumps(card['card'])}\n"
                digest = hashlib.sha256(bytes.fromhex(proof["salt"]) + line.encode("utf-8")).hexdigest()
                assert digest == proof["commitment"], (view_file, card, proof, line)
                assert proof["commitment"] in committed, (view_file, card)
                checked += 1
    assert checked > 20


def test_no_letter_names_a_card_another_seat_holds_unplayed(played: tuple[str, Path, list[dict[str, Any]]]) -> None:
    """Every letter of a seat is read for the cards of the others' hands that were never shown."""
    scenario, game_dir, log = played
    public = {
        e["data"]["card"] for entry in log for e in entry["events"] if e["visible_to"] == "all" and "card" in e["data"]
    }
    public |= {
        c for entry in log for e in entry["events"] if e["visible_to"] == "all" for c in CARD_ID.findall(e["text"])
    }
    final = json.loads(sorted((game_dir / "states").glob("*.json"), key=lambda p: p.stat().st_mtime)[-1].read_text())
    state = final.get("state", final)
    for seat in GAMES[scenario]:
        others = {
            e["card"]
            for pile in state["cards"]["decks"].values()
            for who, hand in pile["hands"].items()
            if who != seat
            for e in hand
        } - public
        read = 0
        for letter in kept_letters.glob(game_dir / "mail", "*/" + f"{seat}.*"):
            if letter.suffix in (".txt", ".yaml", ".gz", ".html"):  # text, the attached views, HTML (gzipped)
                raw = read_kept(letter)
                text = (gzip.decompress(raw) if letter.suffix == ".gz" else raw).decode("utf-8")
                found = set(CARD_ID.findall(text)) & others
                assert not found, (letter, found)
                read += 1
        assert read > 3 * len(log), (seat, read)


def test_every_report_shows_the_cards_played_with_their_text(played: tuple[str, Path, list[dict[str, Any]]]) -> None:
    scenario, game_dir, log = played
    checked = 0
    for entry in log:
        texts = [e["data"]["card_data"].get("text") for e in entry["events"] if e["kind"] == "card.played"]
        if not texts:
            continue
        folder = next(kept_letters.glob(game_dir / "mail", f"*-t{entry['turn']}-{entry['phase']}"))
        for seat in GAMES[scenario]:
            report = " ".join(kept_letters.read_text(folder / f"{seat}.report.txt").split())
            for text in texts:
                assert " ".join(text.split()) in report, (folder, seat, text)
                checked += 1
    assert checked > 10


def test_a_sealed_reaction_not_triggered_is_in_no_letter(played: tuple[str, Path, list[dict[str, Any]]]) -> None:
    """Budweis is named only by the bots' sealed withdrawals: a phase that opens none names it
    in no report or view of a seat that did not seal it (the sealer's own proofs name it)."""
    _, game_dir, log = played
    checked = 0
    for entry in log:
        opened = [e for e in entry["events"] if e["kind"] == "reaction.opened" and e["data"]["kind"] == "withdraw"]
        sealers = {e["data"]["seat"] for e in entry["events"] if e["kind"] == "reactions.sealed"}
        if opened or not sealers:
            continue
        folder = next(kept_letters.glob(game_dir / "mail", f"*-t{entry['turn']}-{entry['phase']}"))
        for letter in kept_letters.glob(folder.parent, f"{folder.name}/*"):
            seat = letter.name.split(".")[0]
            if seat in sealers or not (".report." in letter.name or ".view-after." in letter.name):
                continue
            if letter.suffix in (".txt", ".yaml", ".gz", ".html"):
                raw = read_kept(letter)
                text = (gzip.decompress(raw) if letter.suffix == ".gz" else raw).decode("utf-8")
                assert "Budweis" not in text, letter
                checked += 1
    assert checked > 10
