"""A phase costs the same late in a game as early (issue 23): adjudicating reads the states made
since the last check, not the game's history; `verify` and `audit` read each record and each
state once. The tests count work (file reads, parses), never time."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import referee.letters.post
import referee.protocol.verify
from referee.game.audit import audit
from referee.game.engine import adjudicate, init_game, submit
from referee.game.journal import CHAIN_CHECKED_META, GameDir
from referee.protocol.signatures import NAMESPACE_ORDERS, generate_keypair, load_private_key, sign
from referee.protocol.verify import verify_game_dir

PLAYERS = ("alice", "bob")
TABLES = """\
schema_version: 1
tables:
  morale:
    title: Morale check
    dice: 2d6
    rows:
      - {range: "2-6", result: routs}
      - {range: "7+", result: holds}
"""


class Played:
    """A moderator game played a round at a time: alice sends orders, bob is defaulted."""

    def __init__(self, root: Path) -> None:
        lines = ["game: cost", "module: moderator", "title: Cost", "options: {}", "tables: tables.yaml"]
        lines += ["referee: {email: referee@example.org, name: R}", "players:"]
        for player in PLAYERS:
            generate_keypair(root / player, player)
            lines.append(f"  - {{name: {player}, email: {player}@example.org, key_file: {player}.pub}}")
        (root / "tables.yaml").write_text(TABLES)
        (root / "game.yaml").write_text("\n".join(lines) + "\n")
        self.dir = root / "game"
        self.key = load_private_key(root / "alice")
        self.turn = 1
        init_game(self.dir, root / "game.yaml")

    def send(self) -> None:
        raw = (
            f"game: cost\nturn: {self.turn}\nphase: round\nplayer: alice\norders:\n"
            f"  rolls:\n    - {{label: r{self.turn}, table: morale, purpose: check {self.turn}}}\n"
        ).encode()
        assert submit(self.dir, raw, sign(raw, self.key, NAMESPACE_ORDERS)).accepted

    def play(self, rounds: int) -> None:
        for _ in range(rounds):
            self.send()
            adjudicate(self.dir, force=True)
            self.turn += 1


@pytest.fixture(autouse=True)
def no_mail_no_sync(monkeypatch: pytest.MonkeyPatch) -> None:
    # Neither the outbox nor durability is under test here: skip building mail and syncing disks.
    monkeypatch.setattr(referee.letters.post, "post", lambda *args, **kwargs: None)
    monkeypatch.setattr(os, "fsync", lambda fd: None)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Count the reads of each file (by path) through Path.read_bytes."""
    counted: Counter[str] = Counter()
    read_bytes = Path.read_bytes

    def counting(path: Path) -> bytes:
        counted[str(path)] += 1
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", counting)
    yield counted


def _state_reads(counted: Counter[str], game: Path) -> int:
    return sum(n for path, n in counted.items() if Path(path).parent == game / "states")


def _adjudication_reads(played: Played, counted: Counter[str]) -> int:
    played.send()
    counted.clear()
    adjudicate(played.dir, force=True)
    played.turn += 1
    return _state_reads(counted, played.dir)


def test_adjudicating_reads_the_same_states_at_round_4_and_at_round_16(tmp_path: Path, reads: Counter[str]) -> None:
    played = Played(tmp_path)
    played.play(3)
    early = _adjudication_reads(played, reads)
    played.play(11)
    late = _adjudication_reads(played, reads)
    assert early == late <= 2  # the state before the phase, once; the whole chain would be 16 here


def test_a_journal_without_the_mark_checks_the_whole_chain_once(tmp_path: Path, reads: Counter[str]) -> None:
    played = Played(tmp_path)
    played.play(6)
    with GameDir(played.dir).db as db:  # a journal of an older version: no state marked checked
        db.execute("DELETE FROM meta WHERE key = ?", (CHAIN_CHECKED_META,))
    first = _adjudication_reads(played, reads)
    second = _adjudication_reads(played, reads)
    assert first > 6 and second <= 2


def test_an_edited_state_before_the_phase_is_refused_an_old_one_is_left_to_verify_and_audit(tmp_path: Path) -> None:
    from referee.errors import StateError

    played = Played(tmp_path)
    played.play(4)
    game = GameDir(played.dir)
    first = game.phases()[0]
    old = played.dir / "states" / f"{first.state_before}.json"
    old.write_bytes(old.read_bytes().replace(b'"round":1', b'"round":7'))
    played.send()
    adjudicate(played.dir, force=True)  # the old state was checked already: the referee plays on
    played.turn += 1
    assert any(f"states/{old.name}: content hashes to" in line for line in verify_game_dir(played.dir).problems)
    assert f"states/{old.name} was changed by hand" in str(audit(played.dir).divergence)
    current = played.dir / "states" / f"{GameDir(played.dir).open_phase().state_before}.json"  # type: ignore[union-attr]
    current.write_bytes(current.read_bytes().replace(b'"round":', b'"round":1'))
    with pytest.raises(StateError, match="was changed"):
        adjudicate(played.dir, force=True)
    with pytest.raises(StateError, match="was changed"):
        played.send()


def _verify_work(played: Played, counted: Counter[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, int]:
    parses = Counter[str]()
    readers = {name: getattr(referee.protocol.verify, name) for name in ("load_pretty_json", "load_canonical_json")}
    for name, load in readers.items():  # a record's reader, a state's

        def counting(data: bytes, load: Any = load) -> object:
            parses["json"] += 1
            return load(data)

        monkeypatch.setattr(referee.protocol.verify, name, counting)
    counted.clear()
    report = verify_game_dir(played.dir)
    for name, load in readers.items():
        monkeypatch.setattr(referee.protocol.verify, name, load)
    assert report.ok, report.problems
    records = [p for p in counted if Path(p).parent == played.dir / "records" and p.endswith(".json")]
    states = [p for p in counted if Path(p).parent == played.dir / "states"]
    assert all(counted[p] == 1 for p in records + states), "a record or a state was read twice"
    return len(records), len(states), parses["json"]


def test_verify_reads_and_parses_each_record_and_state_once(
    tmp_path: Path, reads: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    played = Played(tmp_path)
    played.play(5)
    records, states, parses = _verify_work(played, reads, monkeypatch)
    assert records == 5 and parses == records + states
    played.play(5)
    records, states, parses = _verify_work(played, reads, monkeypatch)
    assert records == 10 and parses == records + states


def test_audit_reads_each_record_and_state_once(tmp_path: Path, reads: Counter[str]) -> None:
    played = Played(tmp_path)
    played.play(4)
    counts = []
    for _ in range(2):
        reads.clear()
        report = audit(played.dir)
        assert report.ok, report.divergence
        records = [p for p in reads if Path(p).parent == played.dir / "records" and p.endswith(".json")]
        states = [p for p in reads if Path(p).parent == played.dir / "states"]
        assert all(reads[p] == 1 for p in records + states), "a record or a state was read twice"
        counts.append((len(records), len(states), sum(reads.values())))
        played.play(4)
    (records_4, states_4, all_4), (records_8, states_8, all_8) = counts
    assert (records_4, records_8) == (4, 8) and states_8 > states_4
    # Every file read grows with the phases, by the same amount for each 4 phases more.
    assert all_8 - all_4 <= all_4


def test_a_preview_copies_the_same_files_at_round_4_and_at_round_16(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from referee.game.preview import preview

    copied: list[str] = []
    copytree = shutil.copytree

    def copy(a: str, b: str) -> object:
        copied.append(a)
        return shutil.copy2(a, b)

    def counting(source: Path, target: Path, *args: object, **kwargs: object) -> object:
        if not args:  # the first call: its folders are copied by calls with every argument given
            kwargs["copy_function"] = copy
        return copytree(source, target, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(shutil, "copytree", counting)
    played = Played(tmp_path)
    counts = []
    for rounds in (3, 12):
        played.play(rounds)
        played.send()
        copied.clear()
        assert preview(played.dir, force=True).record
        counts.append(len(copied))
    assert counts[0] == counts[1]
