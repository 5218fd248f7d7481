"""`referee supply` (issue 15): data the rulebook leaves out, supplied mid-game; a phase that
waits on its referee is held, its players told once; the supply is signed, in the record and
the reports, withdrawn like any override, replayed by rollback, audit, verify and the public audit.

Played on `supply-test` (tests/supplygame.py): morale is wanted `now` from round 2, the weather
table is found missing only by `resolve` in round 3 (NotSupplied).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kept_letters
import pytest
import supplygame
from played import copy_game

from referee.errors import RefereeError
from referee.game.audit import audit
from referee.game.engine import adjudicate, init_game
from referee.game.journal import GameDir
from referee.game.override import make_override, make_supply
from referee.game.preview import preview
from referee.game.public_audit import public_audit
from referee.game.reveal import reveal
from referee.game.rollback import rollback
from referee.game.status import status_shown
from referee.game.supplies import SupplyRefusedError, WaitingOnReferee, missing, template_text
from referee.protocol.canonical import canonical_json, pretty_json, sha256_hex
from referee.protocol.signatures import NAMESPACE_REFEREE, generate_keypair, load_private_key, sign
from referee.protocol.verify import verify_game_dir

from conftest import TestGame

MORALE = b"supplies: morale\ndata:\n  factors: {alice: 2, bob: 3}\n"
WEATHER = b"supplies: weather\ndata:\n  rows: [0, 0, 1, 1, 2, 3]\n"


@pytest.fixture(autouse=True)
def installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    import games

    monkeypatch.setattr(games, "GAMES", (*games.GAMES, supplygame.GAME))
    yield


def new_supply_game(root: Path) -> TestGame:
    setup = root / "setup"
    setup.mkdir(parents=True)
    keys = {}
    lines = ["game: supply-1", "module: supply-test", "title: Supply test", "referee: {email: ref@example.org}"]
    lines.append("players:")
    for player in supplygame.PLAYERS:
        keys[player] = setup / player
        generate_keypair(keys[player], comment=player)
        lines.append(f"  - {{name: {player}, email: {player}@example.org, key_file: {player}.pub}}")
    (setup / "game.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    init_game(root / "game", setup / "game.yaml")
    return TestGame(root / "game", keys, game="supply-1", players=supplygame.PLAYERS)


def play_round(game: TestGame, turn: int, moves: tuple[int, int] = (3, 4)) -> None:
    for player, move in zip(supplygame.PLAYERS, moves):
        assert game.submit(player, turn, f"move: {move}\n").accepted


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestGame]:
    """Round 1 played, round 2 open with every order in (and nothing supplied)."""
    import games

    saved = games.GAMES
    games.GAMES = (*games.GAMES, supplygame.GAME)
    try:
        game = new_supply_game(tmp_path_factory.mktemp("supply"))
        play_round(game, 1)
        adjudicate(game.dir)
        play_round(game, 2)
        yield game
    finally:
        games.GAMES = saved


@pytest.fixture
def game(base: TestGame, tmp_path: Path) -> TestGame:
    return copy_game(base, tmp_path / "game")


def write(tmp_path: Path, name: str, content: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


def waiting_letters(game: TestGame) -> list[Path]:
    return sorted(kept_letters.glob(game.dir / "mail", "*/*.waiting-*.txt"))


def status_needs(path: Path) -> dict[str, Any]:
    """What `referee status` shows of the needs: the ids missing now and later, and a hold."""
    info = status_shown(path)
    return {key: info[key] for key in ("missing_now", "missing_later", "held") if key in info}


def snapshot(game: TestGame) -> tuple[Any, ...]:
    """What a refused supply must leave as it was: overrides, the open phase, the letters."""
    game_dir = GameDir(game.dir)
    try:
        phase = game_dir.open_phase()
        letters = sorted(
            str(p.relative_to(game.dir)) for p in kept_letters.glob(game.dir / "mail", "*/*") if p.is_file()
        )
        return (len(game_dir.overrides()), phase.state_before if phase else None, letters)
    finally:
        game_dir.close()


def test_a_phase_waiting_on_its_referee_is_held_and_its_players_told_once(game: TestGame) -> None:
    assert status_needs(game.dir) == {"missing_now": ["morale"], "missing_later": ["weather"]}

    with pytest.raises(WaitingOnReferee) as first:
        adjudicate(game.dir)
    with pytest.raises(WaitingOnReferee) as second:
        adjudicate(game.dir)

    assert first.value.first and not second.value.first
    assert "the morale factor of each side (Morale, p. 12)" in first.value.message
    assert any(f"referee supply --template morale {game.dir}" in hint for hint in first.value.hints)
    assert first.value.exit_code == 4
    letters = waiting_letters(game)
    assert [p.name for p in letters] == ["alice.waiting-morale.txt", "bob.waiting-morale.txt"]
    text = kept_letters.read_text(letters[0])
    assert "  - the morale factor of each side (Morale, p. 12),\n    needed by every move from round 2" in text
    assert "factors" not in text  # the need's title and page, never data
    assert status_needs(game.dir)["held"]["needs"] == ["morale"]
    assert not list((game.dir / "records").glob("0002-*"))


def test_a_supply_is_signed_applied_and_shown_in_the_record_and_every_report(game: TestGame, tmp_path: Path) -> None:
    with pytest.raises(WaitingOnReferee):
        adjudicate(game.dir)

    result = make_supply(game.dir, MORALE, "Morale, p. 12 of my copy", "morale.yaml")

    assert result.override.kind == "supply" and result.override.body["need"] == "morale"
    assert "held" not in status_needs(game.dir)  # the state changed: the hold ends
    assert status_needs(game.dir) == {"missing_later": ["weather"]}
    adjudicate(game.dir)
    record = json.loads((game.dir / "records" / "0002-t2-round.json").read_bytes())
    (entry,) = record["overrides"]
    data = {"factors": {"alice": 2, "bob": 3}}
    assert entry["kind"] == "supply" and entry["need"] == "morale" and entry["data"] == data
    assert entry["sha256"] == sha256_hex(canonical_json(data))
    assert entry["reason"] == "Morale, p. 12 of my copy"
    assert entry["state_to"] == record["state_before"]
    for player in supplygame.PLAYERS:
        report = kept_letters.read_text(game.dir / "mail" / "0002-t2-round" / f"{player}.report.txt")
        assert "the referee supplied the morale factor of each side (Morale, p. 12)" in " ".join(report.split())
        assert "Morale, p. 12 of my copy" in report
        assert "alice moves 3 and scores 6." in report  # 3 times alice's factor
    assert verify_game_dir(game.dir).ok
    assert audit(game.dir).ok


def test_a_step_the_module_could_not_foresee_holds_the_phase_too(game: TestGame) -> None:
    make_supply(game.dir, MORALE, "from the book", "morale.yaml")
    adjudicate(game.dir)
    play_round(game, 3)

    with pytest.raises(WaitingOnReferee) as held:
        adjudicate(game.dir)

    assert "the weather table (Weather, p. 14)" in held.value.message
    assert status_needs(game.dir)["missing_now"] == ["weather"]  # the module said later; the step found it
    assert [p.parent.name for p in waiting_letters(game)] == ["0003-t3-round"] * 2
    make_supply(game.dir, WEATHER, "Weather, p. 14", "weather.yaml")
    result = adjudicate(game.dir)
    assert result.next_phase is None
    assert verify_game_dir(game.dir).ok
    assert audit(game.dir).ok
    reveal(game.dir, final=True)  # the public replay takes each supply's data from the records
    replayed = public_audit(game.dir)
    assert replayed.ok and replayed.records == 3, replayed.problems


@pytest.mark.parametrize(
    ("content", "path", "words"),
    [
        (b"supplies: moral\ndata: {factors: {alice: 2, bob: 3}}\n", "supplies", "'moral' is not a need"),
        (b"data: {factors: {alice: 2, bob: 3}}\n", "supplies", "is missing"),
        (b"supplies: morale\n", "data", "is missing"),
        (b"supplies: morale\ndata: {factors: {alice: two, bob: 3}}\n", "data.factors.alice", "whole number"),
        (b"supplies: morale\ndata: {factors: {alice: 2}}\n", "data.factors.bob", "is missing"),
        (b"supplies: morale\ndata: {factors: {alice: 9, bob: 9}}\n", "data.factors", "at most 12"),
        (b"supplies: morale\nnote: hi\ndata: {factors: {alice: 2, bob: 3}}\n", "note", "has no 'note'"),
        (b"supplies: morale\ngame: other\ndata: {factors: {alice: 2, bob: 3}}\n", "game", "not 'supply-1'"),
    ],
)
def test_each_mistake_in_a_supply_file_is_named_and_nothing_changes(
    game: TestGame, content: bytes, path: str, words: str
) -> None:
    before = snapshot(game)

    with pytest.raises(SupplyRefusedError) as refused:
        make_supply(game.dir, content, "a try", "bad.yaml")

    assert "nothing changed" in refused.value.message
    assert any(p.path == path and words in p.message for p in refused.value.problems), refused.value.problems
    assert snapshot(game) == before


def test_every_problem_of_a_file_is_listed_at_once(game: TestGame) -> None:
    with pytest.raises(SupplyRefusedError) as refused:
        make_supply(game.dir, b"supplies: morale\nextra: 1\ndata: {factors: {alice: 0, bob: x}}\n", "x", "bad.yaml")
    assert sorted(p.path for p in refused.value.problems) == ["data.factors.alice", "data.factors.bob", "extra"]


def test_a_withdrawn_supply_holds_the_phase_again_and_a_rollback_across_it_replays_it(game: TestGame) -> None:
    make_supply(game.dir, MORALE, "from the book", "morale.yaml")
    adjudicate(game.dir)
    play_round(game, 3)
    make_supply(game.dir, WEATHER, "Weather, p. 14", "weather.yaml")
    adjudicate(game.dir)
    records = {p.name: p.read_bytes() for p in (game.dir / "records").glob("*.json")}

    _, forward = rollback(game.dir, "2/round", "a rules question")  # across both supplies, then forward again

    assert forward is not None and forward.stopped == "the game is over"
    assert {p.name: p.read_bytes() for p in (game.dir / "records").glob("*.json")} == records
    assert verify_game_dir(game.dir).ok and audit(game.dir).ok

    withdrawn = make_override(game.dir, "withdraw", "1", [], "that was the wrong edition")

    assert withdrawn.forward is not None
    assert "waits on its referee" in withdrawn.forward.stopped
    with pytest.raises(WaitingOnReferee):
        adjudicate(game.dir)
    assert verify_game_dir(game.dir).ok and audit(game.dir).ok


def test_missing_and_the_template(game: TestGame) -> None:
    info = missing(game.dir)
    assert [(n["need"], n["when"]) for n in info.needs] == [("morale", "now"), ("weather", "later")]
    assert info.needs[0]["template"] == f"referee supply --template morale {game.dir} > morale.yaml"
    text = template_text(supplygame.GAME, "morale")
    assert text.startswith("# Supply test: the morale factor of each side\n# From the rulebook: Morale, p. 12.")
    assert "supplies: morale\ndata:\n  # Morale, p. 12" in text
    with pytest.raises(RefereeError, match="declares no need 'moral'"):
        template_text(supplygame.GAME, "moral")


def test_verify_holds_a_supply_entry_to_its_data(game: TestGame) -> None:
    """A record whose supplied data is not the data signed is caught, even re-signed (protocol
    section 11: `sha256` is the SHA-256 of the canonical JSON of `data`, as the example says)."""
    example = {"factors": {"alice": 2, "bob": 3}}
    assert canonical_json(example) == b'{"factors":{"alice":2,"bob":3}}'
    documented = "3769990871f78f53aaaf00738716bf977ea2ae3db79c21b266fc6ea0adf45d8e"
    assert sha256_hex(canonical_json(example)) == documented
    assert documented in (Path(__file__).parents[2] / "docs" / "protocol.md").read_text()
    make_supply(game.dir, MORALE, "from the book", "morale.yaml")
    adjudicate(game.dir)
    path = game.dir / "records" / "0002-t2-round.json"
    record = json.loads(path.read_bytes())
    record["overrides"][0]["data"]["factors"]["bob"] = 9
    forged = pretty_json(record)
    path.write_bytes(forged)
    key = load_private_key(game.dir / "referee.key")
    path.with_name(path.name + ".sig").write_text(sign(forged, key, NAMESPACE_REFEREE))

    problems = verify_game_dir(game.dir).problems

    assert any("overrides[0]: the supplied data's SHA-256 is not 3769990871f78f53" in p for p in problems), problems


def test_preview_says_what_the_phase_waits_for_then_shows_the_supply(game: TestGame) -> None:
    with pytest.raises(WaitingOnReferee) as waiting:
        preview(game.dir)
    assert any(f"referee supply --template morale {game.dir} >" in hint for hint in waiting.value.hints)
    assert waiting_letters(game) == []  # a preview sends nothing, not even from its scratch copy

    make_supply(game.dir, MORALE, "Morale, p. 12", "morale.yaml")
    shown = preview(game.dir)

    report = dict(shown.reports)["alice.report.txt"]
    assert "#1 supply: the referee supplied the morale factor of each side (Morale, p. 12)" in " ".join(report.split())


def test_the_command_line_lists_what_is_missing_as_text_and_json(game: TestGame, tmp_path: Path) -> None:
    def referee(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, supplygame.__file__, *args]
        return subprocess.run(command, capture_output=True, text=True, check=False)

    status = json.loads(referee("status", str(game.dir), "--json").stdout)
    assert status["missing_now"] == ["morale"] and status["missing_later"] == ["weather"]
    assert "supply    now: morale" in referee("status", str(game.dir)).stdout
    needs = json.loads(referee("missing", str(game.dir), "--json").stdout)["needs"]
    assert [(n["need"], n["when"], n["book"]) for n in needs] == [
        ("morale", "now", "Morale, p. 12"),
        ("weather", "later", "Weather, p. 14"),
    ]
    listed = referee("supply", "--list", "--game", "supply-test").stdout
    assert "  weather (table): the weather table (Weather, p. 14), needed by round 3" in listed
    written = referee("supply", "--template", "weather", "--game", "supply-test", "-o", str(tmp_path / "w.yaml"))
    assert written.returncode == 0 and (tmp_path / "w.yaml").read_text().count("supplies: weather\n") == 1
    wrong = referee("supply", str(game.dir), str(tmp_path / "w.yaml"))
    assert wrong.returncode == 2 and "--reason" in wrong.stderr
