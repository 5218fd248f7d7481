"""Every operator command that changes a game is idempotent under a crash (issue 14, items 5 and 10).

For each command: a clean run on a copy of a played game counts its write points (file writes,
renames, links, unlinks, SQL commits; see crashing.py). Then, for N = 1..count, a copy is run
and killed at the N-th write point; `verify` and `audit` must read what it left without a
traceback; the same command is run again to its end; and the game must be the clean run's:
the same records (byte for byte, except `init`, whose key is new each time), the same overrides,
superseded phases and reveals, the same letters in the outbox (by Message-ID), every operation
finished, and `verify` and `audit` passing.

The suite tries about SAMPLED crash points of each command, evenly spread (every 3rd to every
16th write point: the first, the last and those between); `pytest -m faults_long tests/faults`
tries every one of them.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import supplygame
import yaml

import games
from referee.errors import RefereeError
from referee.game.audit import audit
from referee.game.engine import adjudicate, init_game
from referee.game.supplies import WaitingOnReferee
from referee.protocol.signatures import generate_keypair
from referee.protocol.verify import verify_game_dir

from conftest import TABLES, TestGame
from crashing import Run, run

SAMPLED = 10
PLAYERS = ("alice", "bob")
CHARGE = "rolls:\n  - {label: charge, table: morale, modifiers: [elite], purpose: the charge}\n"
VOLLEY = "rolls:\n  - {label: volley, dice: 2d6, purpose: the volley}\n"
DECKS = {"strategy": {"title": "Strategy cards", "cards": [{"id": f"st-{n}"} for n in range(1, 7)], "deal": 1}}
CORRECTED = "rolls:\n  - {label: volley, dice: 3d6, purpose: the volley at close range}\n"


def setup_game(root: Path) -> TestGame:
    """Write the configuration and the players' keys of a two-player game (rolls and a deck)."""
    setup = root / "setup"
    (setup / "keys").mkdir(parents=True)
    keys = {}
    for player in PLAYERS:
        keys[player] = setup / "keys" / player
        generate_keypair(keys[player], comment=f"{player}@example.org")
    config = {
        "game": "crash-game",
        "module": "moderator",
        "title": "Crash test",
        "options": {"rounds": 3, "decks": DECKS},
        "tables": "tables.yaml",
        "referee": {"email": "referee@example.org", "name": "Test Referee"},
        "players": [{"name": p, "email": f"{p}@example.org", "key_file": f"keys/{p}.pub"} for p in PLAYERS],
    }
    (setup / "tables.yaml").write_text(TABLES, encoding="utf-8")
    (setup / "game.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return TestGame(root / "game", keys, game="crash-game", players=PLAYERS)


def play(game: TestGame, turns: range) -> None:
    for turn in turns:
        assert game.submit("alice", turn, CHARGE).accepted
        assert game.submit("bob", turn, VOLLEY).accepted
        adjudicate(game.dir, expect=f"{turn}/round")


@dataclass(frozen=True)
class Case:
    """A command, and the game it starts from (under the bases' folder; None: no game yet)."""

    base: str | None
    args: tuple[str, ...]


CASES = {
    "init": Case(None, ("init", "{game}", "--config", "{setup}/game.yaml")),
    "override-reroll": Case(
        "over", ("override", "{game}", "reroll", "roll/alice/charge", "--phase", "2/round", "--reason", "it fell off")
    ),
    "override-result": Case(
        "open",
        ("override", "{game}", "result", "roll/bob/volley", "1", "1", "--phase", "1/round", "--reason", "agreed"),
    ),
    "override-order": Case("open", ("override", "{game}", "order", "bob", "{setup}/corrected.yaml", "--reason", "3d6")),
    "override-state": Case("open", ("override", "{game}", "state", "/tables", "{{}}", "--reason", "by agreement")),
    "supply": Case("held", ("supply", "{game}", "{setup}/morale.yaml", "--reason", "Morale, p. 12")),
    "rollback": Case("over", ("rollback", "{game}", "2/round", "--reason", "a rules question")),
    "rollback-stay": Case("over", ("rollback", "{game}", "2/round", "--reason", "a pause", "--stay")),
    "roll-forward": Case("stayed", ("roll-forward", "{game}")),
    "reveal-draw": Case("open", ("reveal", "{game}", "--draw", "deck/*", "--force")),
    "reveal-final": Case("over", ("reveal", "{game}", "--final")),
}


@pytest.fixture(scope="module")
def bases(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Played games to copy: `open` (rounds 1 and 2 played, 3 open), `over` (all three played),
    `stayed` (`over` rolled back to 1/round with --stay), `held` (a supply-test game held in
    round 2, waiting on its referee), and `setup` (keys, configurations, files)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(games, "GAMES", (*games.GAMES, supplygame.GAME))  # forked runs inherit it
        yield played_bases(tmp_path_factory.mktemp("bases"))


def played_bases(root: Path) -> Path:
    game = setup_game(root)
    init_game(game.dir, root / "setup" / "game.yaml")
    play(game, range(1, 3))
    copy(game.dir, root / "open")
    (root / "setup" / "corrected.yaml").write_bytes(game.order("bob", 2, CORRECTED, seq=1))
    play(game, range(3, 4))
    copy(game.dir, root / "over")
    copy(game.dir, root / "stayed")
    assert run(["rollback", str(root / "stayed"), "2/round", "--reason", "a pause", "--stay"]).code == 0
    config = yaml.safe_load((root / "setup" / "game.yaml").read_text())
    config.update(game="held-game", module="supply-test", options={})
    del config["tables"]
    (root / "setup" / "supply.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    (root / "setup" / "morale.yaml").write_text("supplies: morale\ndata: {factors: {alice: 2, bob: 3}}\n")
    held = TestGame(root / "held", game.keys, game="held-game", players=PLAYERS)
    init_game(held.dir, root / "setup" / "supply.yaml")
    for turn in (1, 2):
        for player in PLAYERS:
            assert held.submit(player, turn, "move: 3\n").accepted
        if turn == 1:
            adjudicate(held.dir)
    with pytest.raises(WaitingOnReferee):
        adjudicate(held.dir)
    return root


def copy(source: Path, target: Path) -> None:
    """Copy a game directory, its journal through SQLite's backup API."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("journal.sqlite*", ".lock"))
    journal = source / "journal.sqlite"
    if journal.exists():
        with sqlite3.connect(journal) as a, sqlite3.connect(target / "journal.sqlite") as b:
            a.backup(b)


def arguments(case: Case, bases: Path, game: Path) -> list[str]:
    return [a.format(game=game, setup=bases / "setup") for a in case.args]


def prepare(case: Case, bases: Path, game: Path) -> None:
    if case.base is not None:
        copy(bases / case.base, game)


@dataclass(frozen=True)
class Outcome:
    """What a game holds after a command, to compare with the clean run's."""

    records: dict[str, bytes]
    letters: frozenset[str]
    counts: dict[str, int]


def outcome(game: Path, keyed: bool) -> Outcome:
    records = {
        str(p.relative_to(game)): p.read_bytes() if keyed else b""
        for p in sorted((game / "records").rglob("*"))
        if p.is_file() and not p.name.endswith(".tmp")  # a write cut short leaves its temporary file
    }
    reveals = {str(p.relative_to(game)): b"" for p in sorted(game.glob("reveals/*")) if not p.name.endswith(".tmp")}
    letters = frozenset(p.name for p in game.glob("outbox/*/*.eml"))
    with sqlite3.connect(game / "journal.sqlite") as db:
        counts = {
            table: db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for table in ("phases", "superseded_phases", "overrides", "orders", "operations")
        }
        for kind in ("game.rollback", "override", "hidden.revealed", "phase.adjudicated", "game.init"):
            counts[kind] = db.execute("SELECT COUNT(*) FROM log WHERE kind = ?", (kind,)).fetchone()[0]
        counts["unfinished"] = db.execute("SELECT COUNT(*) FROM operations WHERE finished_at IS NULL").fetchone()[0]
    return Outcome({**records, **reveals}, letters, counts)


def readable(game: Path) -> None:
    """`verify` and `audit` read a game left by a crash without a traceback (they may refuse)."""
    if not game.exists():
        return
    verify_game_dir(game)
    try:
        audit(game)
    except RefereeError:
        pass


def checked(game: Path) -> None:
    problems = verify_game_dir(game).problems
    assert all(p.startswith("no records found") for p in problems), problems  # a new game has none yet
    report = audit(game)
    assert report.ok, report.divergence


def crash_points(total: int, every: int | None) -> Iterator[int]:
    """Return the write points to crash at: every `every`-th, or (None) about SAMPLED of them."""
    step = every or max(3, total // SAMPLED)
    yield from sorted({*range(1, total + 1, step), total})


def crash_and_rerun(name: str, bases: Path, tmp_path: Path, every: int | None) -> tuple[int, float]:
    """Run the case clean, then killed at every `every`-th write point and run again; return the
    number of write points and the seconds it took."""
    case = CASES[name]
    began = time.monotonic()
    clean = tmp_path / "clean"
    prepare(case, bases, clean)
    first = run(arguments(case, bases, clean))
    assert first.code == 0 and first.writes > 0, (first.stdout, first.stderr)
    keyed = case.base is not None  # `init` makes a new key: its records and signatures differ
    expected = outcome(clean, keyed)
    assert expected.counts["unfinished"] == 0 and expected.counts["operations"] >= 1
    again = run(arguments(case, bases, clean))
    assert again.code == 0 and again.stdout.startswith("already done"), (again.stdout, again.stderr)
    assert outcome(clean, keyed) == expected
    for point in crash_points(first.writes, every):
        game = tmp_path / f"crash-{point}"
        prepare(case, bases, game)
        killed = run(arguments(case, bases, game), crash_at=point)
        assert killed.crashed, (point, killed.code, killed.stderr)
        readable(game)
        rerun: Run = run(arguments(case, bases, game))
        assert rerun.code == 0, (point, rerun.stdout, rerun.stderr)
        assert "Traceback" not in rerun.stderr
        got = outcome(game, keyed)
        assert got.counts == expected.counts, (point, got.counts, expected.counts)
        assert got.letters == expected.letters, (point, got.letters ^ expected.letters)
        assert got.records == expected.records, (point, set(got.records) ^ set(expected.records))
        checked(game)
        shutil.rmtree(game)
    return first.writes, time.monotonic() - began


@pytest.mark.parametrize("name", list(CASES))
def test_a_command_killed_at_a_write_is_finished_by_running_it_again(
    name: str, bases: Path, tmp_path: Path, record_property: pytest.RecordProperty
) -> None:
    writes, seconds = crash_and_rerun(name, bases, tmp_path, None)
    record_property("write_points", writes)
    record_property("seconds", round(seconds, 1))


@pytest.mark.faults_long
@pytest.mark.parametrize("name", list(CASES))
def test_every_write_point_of_every_command(
    name: str, bases: Path, tmp_path: Path, record_property: pytest.RecordProperty, request: pytest.FixtureRequest
) -> None:
    if "faults_long" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("opt-in (minutes): pytest -m faults_long tests/faults")
    writes, seconds = crash_and_rerun(name, bases, tmp_path, 1)
    record_property("write_points", writes)
    record_property("seconds", round(seconds, 1))
