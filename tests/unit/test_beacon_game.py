"""A game with a public beacon, played through the engine against real drand rounds served by a
loopback HTTP server (tests/vectors/beacon/), then checked offline by `referee verify`: the
notice's promise, waiting for the round, refusing late orders and a round that does not verify,
and a cheating referee's records caught."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kept_letters
import pytest

import referee.game.beacons
from referee.errors import ConfigError, StateError
from referee.game.audit import audit
from referee.game.beacons import BeaconPendingError
from referee.game.config import parse_config
from referee.game.engine import adjudicate, init_game
from referee.game.journal import GameDir
from referee.game.opened import Game
from referee.game.status import status, status_text
from referee.protocol import dice
from referee.protocol.canonical import pretty_json
from referee.protocol.records import record_transcript
from referee.protocol.signatures import generate_keypair
from referee.protocol.verify import verify_game_dir

from beaconserver import CHAINS, BeaconServer, Clock, beacon_yaml, round_time, vector
from conftest import GAME_ID, TABLES, TestGame

# Per chain, two real rounds: the first phase is promised the first, the second the other.
GAMES = {"quicknet": (123, 657413), "default": (72785, 3311596)}
PLAYER_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGhy5cIYwd+n/bdx6zzXobAUB5ax2d0fgYL7FCPIVFF5 alice"
ORDERS = "rolls:\n  - {label: attack, dice: 2d6, purpose: the attack}\n"


@pytest.fixture
def beacon() -> Iterator[BeaconServer]:
    server = BeaconServer()
    yield server
    server.stop()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    moment = Clock()
    monkeypatch.setattr(referee.game.beacons, "now", lambda: moment.now)
    return moment


def beacon_game(root: Path, chain: str, url: str, players: tuple[str, ...] = ("alice", "bob")) -> TestGame:
    """Create a two-round moderator game naming the chain; orders close a minute after each notice."""
    setup = root / "setup"
    (setup / "keys").mkdir(parents=True)
    keys = {}
    lines = [f"game: {GAME_ID}", "module: moderator", "title: Beacon game", "options: {rounds: 2}"]
    lines += ["referee: {email: referee@example.org, name: Test Referee}", "tables: tables.yaml", "players:"]
    for player in players:
        keys[player] = setup / "keys" / player
        generate_keypair(keys[player], comment=f"{player}@example.org")
        lines.append(f"  - {{name: {player}, email: {player}@example.org, key_file: keys/{player}.pub}}")
    lines += beacon_yaml(chain, url)
    (setup / "tables.yaml").write_text(TABLES, encoding="utf-8")
    (setup / "game.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    init_game(root / "game", setup / "game.yaml")
    return TestGame(root / "game", keys, players=players)


def snapshot(game: TestGame) -> tuple[Any, ...]:
    game_dir = GameDir(game.dir)
    try:
        phases = [json.dumps(p.__dict__, sort_keys=True) for p in game_dir.phases()]
        records = sorted(p.name for p in (game.dir / "records").glob("*"))
        return phases, records, game_dir.current_state_hash(), status(game.dir)
    finally:
        game_dir.close()


def notice(game: TestGame, turn: int, player: str = "alice") -> str:
    return kept_letters.read_text(game.dir / "mail" / f"0{turn}-t{turn}-round" / f"{player}.notice.txt")


def play(tmp_path: Path, chain: str, beacon: BeaconServer, clock: Clock) -> TestGame:
    """Play both rounds, checking each step of the beacon's life; return the finished game."""
    first, second = GAMES[chain]
    clock.at(round_time(chain, first) - 61)  # orders close 60 s later: `first` is the next round
    game = beacon_game(tmp_path, chain, beacon.url)
    assert "drand round" in notice_text(game) and f"round {first} of chain" in notice_text(game)
    assert status(game.dir)["beacon_round"] == first
    assert f"beacon    round {first}, the first after orders close" in status_text(status(game.dir))
    for player in game.players:
        assert game.submit(player, 1, ORDERS).accepted

    # Before the round is published, adjudication waits and changes nothing.
    before = snapshot(game)
    with pytest.raises(BeaconPendingError, match=f"the beacon round {first} is due at"):
        adjudicate(game.dir, force=True)
    assert snapshot(game) == before and beacon.requests == []

    # Once it is due, orders are refused: the beacon may be public.
    clock.at(round_time(chain, first))
    late = game.submit("alice", 1, ORDERS, seq=2)
    assert not late.accepted and [p.code for p in late.problems] == ["refused.beacon"]

    # A round that is missing, or does not verify, is refused and changes nothing.
    with pytest.raises(StateError, match=f"cannot have beacon round {first}.*HTTP 404"):
        adjudicate(game.dir)
    bad = dict(vector(chain, first), signature=vector(chain, second)["signature"])
    beacon.serve(chain, first, bad)
    with pytest.raises(StateError, match="does not verify"):
        adjudicate(game.dir)
    assert snapshot(game)[1:3] == before[1:3]

    # The real round: adjudicated, and the next phase promised the round after its orders close.
    beacon.serve(chain, first)
    clock.at(round_time(chain, second) - 61)
    adjudicate(game.dir)
    assert f"round {second} of chain" in notice_text(game, 2)
    for player in game.players:
        assert game.submit(player, 2, ORDERS).accepted
    clock.at(round_time(chain, second) + 5)
    beacon.serve(chain, second)
    adjudicate(game.dir)
    return game


def notice_text(game: TestGame, turn: int = 1) -> str:
    folders = sorted(kept_letters.glob(game.dir / "mail", f"*t{turn}-round"))
    return kept_letters.read_text(folders[-1] / "alice.notice.txt")


def records(game: TestGame) -> list[Path]:
    return sorted((game.dir / "records").glob("*.json"))


@pytest.mark.parametrize("chain", sorted(GAMES))
def test_a_beacon_game_is_played_and_verified_offline(
    tmp_path: Path, chain: str, beacon: BeaconServer, clock: Clock
) -> None:
    game = play(tmp_path, chain, beacon, clock)
    first, second = GAMES[chain]
    one, two = (json.loads(path.read_bytes()) for path in records(game))
    for record, number, promised in ((one, first, second), (two, second, None)):
        assert record["protocol"] == "pbem-referee/4"
        assert record["beacon"] == vector(chain, number)["randomness"]
        assert record["beacon_proof"]["round"] == number
        assert record["beacon_proof"]["chain_hash"] == CHAINS[chain]["chain_hash"]
        assert record["next_beacon_round"] == promised
        assert record_transcript(record).endswith(f"beacon {record['beacon']}\n".encode())
    beacon.stop()  # offline from here on
    replayed = audit(game.dir)  # the referee's replay reads the kept rounds, fetches nothing
    assert replayed.ok and replayed.records == 2, replayed.divergence
    result = subprocess.run(
        [sys.executable, "-m", "referee", "verify", str(game.dir)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("ok: 2 record(s)")
    assert f"beacon: 2 round(s) of drand chain {CHAINS[chain]['chain_hash']} verified offline" in result.stdout


def resign(game: TestGame, path: Path, record: dict[str, Any], rederive: bool = False) -> None:
    """Write a changed record and sign it with the referee's key, as a cheating referee would;
    with `rederive`, make its rolls agree with its (changed) beacon."""
    if rederive:
        key = dice.phase_key(bytes.fromhex(record["server_seed"]), record_transcript(record))
        for roll in record["rolls"]:
            roll["values"] = dice.derive(key, roll["label"], roll["spec"], len(roll["values"]))
    data = pretty_json(record)
    path.write_bytes(data)
    path.with_name(path.name + ".sig").write_bytes(Game.open(game.dir).sign(data).encode())


def test_a_cheating_referee_is_caught(tmp_path: Path, beacon: BeaconServer, clock: Clock) -> None:
    chain = "quicknet"
    game = play(tmp_path, chain, beacon, clock)
    beacon.stop()
    first, second = GAMES[chain]
    path_one, path_two = records(game)
    original = {path: path.read_bytes() for path in (path_one, path_two)}
    assert verify_game_dir(game.dir).ok

    def problems_after(path: Path, change: Any, rederive: bool = False) -> list[str]:
        record = json.loads(original[path])
        change(record)
        resign(game, path, record, rederive)
        found = verify_game_dir(game.dir).problems
        for kept, data in original.items():
            kept.write_bytes(data)
            kept.with_name(kept.name + ".sig").write_bytes(Game.open(game.dir).sign(data).encode())
        return found

    def other_randomness(record: dict[str, Any]) -> None:
        record["beacon"] = hashlib.sha256(b"chosen").hexdigest()

    found = problems_after(path_two, other_randomness, rederive=True)
    assert any("is not the randomness of round" in line for line in found), found

    def other_signature(record: dict[str, Any]) -> None:
        record["beacon_proof"]["signature"] = vector(chain, first)["signature"]
        record["beacon"] = vector(chain, first)["randomness"]

    found = problems_after(path_two, other_signature, rederive=True)
    assert any("does not verify" in line for line in found), found

    def other_round(record: dict[str, Any]) -> None:
        record["beacon_proof"]["round"] = second + 1

    found = problems_after(path_two, other_round)
    assert any("does not verify" in line for line in found), found

    # A real, valid round of the past, with rolls made to agree: only the promise catches it.
    def past_round(record: dict[str, Any]) -> None:
        record["beacon_proof"].update(round=first, signature=vector(chain, first)["signature"])
        record["beacon"] = vector(chain, first)["randomness"]

    found = problems_after(path_two, past_round, rederive=True)
    assert found == [
        f"{path_two.name}: beacon round {first} is not the round {second} that {path_one.name} promised for this phase"
    ], found

    def promise_the_past(record: dict[str, Any]) -> None:
        record["next_beacon_round"] = first

    found = problems_after(path_one, promise_the_past)
    assert any("is not after this phase's round" in line for line in found), found

    def drop_beacon(record: dict[str, Any]) -> None:
        del record["beacon_proof"], record["next_beacon_round"]
        record["beacon"] = None

    found = problems_after(path_two, drop_beacon, rederive=True)
    assert any("has no beacon round" in line for line in found), found
    assert verify_game_dir(game.dir).ok


@pytest.mark.parametrize(
    "change, words",
    [
        ({"colour": "blue"}, "must be a mapping with only chain_hash"),
        ({"scheme": "bls-made-up"}, "scheme 'bls-made-up' is not one of"),
        ({"public_key": CHAINS["default"]["public_key"]}, "must be 96 bytes"),
        ({"chain_hash": "52db"}, "chain_hash must be 64 lower-case hex digits"),
        ({"period": 0}, "period a whole number >= 1"),
        ({"urls": []}, "'urls' must list"),
        ({"urls": ["ftp://example.org"]}, "'urls' must list"),
        ({"window": "soon"}, "is not a duration"),
        ({"timeout": 0}, "'timeout' must be a number of seconds"),
    ],
)
def test_a_bad_beacon_is_refused_when_the_game_is_made(tmp_path: Path, change: dict[str, Any], words: str) -> None:
    beacon = {**CHAINS["quicknet"], "urls": ["https://api.drand.sh"], **change}
    data = {
        "game": "g",
        "module": "moderator",
        "players": [{"name": "alice", "email": "alice@example.org", "key": PLAYER_KEY}],
        "beacon": beacon,
    }
    with pytest.raises(ConfigError, match=re.escape(words)) as refused:
        parse_config(data, tmp_path, "game.yaml")
    assert refused.value.message.startswith("game.yaml: beacon")


def test_a_game_without_a_beacon_keeps_its_configuration_and_records() -> None:
    data = {
        "game": "g",
        "module": "moderator",
        "players": [{"name": "alice", "email": "alice@example.org", "key": PLAYER_KEY}],
    }
    config = parse_config(data, Path("."), "game.yaml")
    assert config.beacon is None and "beacon" not in config.as_data()
