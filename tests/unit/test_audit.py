"""`referee audit`: a long game replayed from its set-up, then altered one file at a time; the audit
names the first divergence precisely and changes nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import kept_letters
import pytest

import referee.letters.post
from referee.game.audit import audit, phases_to_replay
from referee.game.engine import adjudicate, init_game, submit
from referee.game.journal import GameDir
from referee.game.override import make_override
from referee.protocol.canonical import canonical_json, sha256_hex
from referee.protocol.signatures import NAMESPACE_ORDERS, generate_keypair, load_private_key, sign

ROUNDS = 60
PLAYERS = ("alice", "bob")
TABLES = """\
schema_version: 1
tables:
  morale:
    title: Morale check
    dice: 2d6
    modifiers: {elite: 2}
    rows:
      - {range: "2-6", result: routs}
      - {range: "7+", result: holds}
"""


def _orders(player: str, turn: int) -> bytes:
    return (
        f"game: long\nturn: {turn}\nphase: round\nplayer: {player}\norders:\n"
        f"  rolls:\n    - {{label: charge-{turn}, table: morale, modifiers: [elite], purpose: charge {turn}}}\n"
        f"    - {{label: fire-{turn}, dice: 3d6, purpose: fire {turn}}}\n"
        f"  note: {player} in round {turn}\n"
    ).encode()


def build_long_game(root: Path, rounds: int) -> Path:
    """Play `rounds` rounds: alice sends orders every round, bob every third (the others are
    adjudicated by force); then a re-roll and a state edit make the referee roll back twice."""
    keys = {}
    lines = ["game: long", "module: moderator", "title: A long game", "options: {}", "tables: tables.yaml"]
    lines += ["referee: {email: referee@example.org, name: R}", "players:"]
    for player in PLAYERS:
        generate_keypair(root / player, player)
        keys[player] = load_private_key(root / player)
        lines.append(f"  - {{name: {player}, email: {player}@example.org, key_file: {player}.pub}}")
    (root / "tables.yaml").write_text(TABLES)
    (root / "game.yaml").write_text("\n".join(lines) + "\n")
    game = root / "game"
    init_game(game, root / "game.yaml")
    for turn in range(1, rounds + 1):
        for player in PLAYERS if turn % 3 == 0 else PLAYERS[:1]:
            raw = _orders(player, turn)
            assert submit(game, raw, sign(raw, keys[player], NAMESPACE_ORDERS)).accepted
        adjudicate(game, force=True)
    make_override(game, "reroll", f"roll/alice/charge-{rounds - 8}", [], "the die fell off the table")
    make_override(
        game, "state", "/notes/0/by/alice", ["alice in round 3 (corrected)"], "a typo", phase=f"{rounds}/round"
    )
    return game


@pytest.fixture(scope="module")
def long_game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    # Neither the outbox nor durability is under test here: skip building mail and syncing disks.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(referee.letters.post, "post", lambda *args, **kwargs: None)
        patch.setattr(os, "fsync", lambda fd: None)
        yield build_long_game(tmp_path_factory.mktemp("long"), ROUNDS)


@pytest.fixture
def copy(long_game: Path, tmp_path: Path) -> Path:
    """A copy of the long game to alter (files hard-linked: `alter` replaces a file, never edits it)."""
    target = tmp_path / "game"
    ignore = shutil.ignore_patterns("journal.sqlite*", ".lock")
    shutil.copytree(long_game, target, ignore=ignore, copy_function=os.link)
    GameDir(long_game).db.backup(GameDir(target).allow_create().db)
    return target


def listing(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_audit_of_a_long_game_confirms_everything_and_changes_nothing(long_game: Path) -> None:
    journal = GameDir(long_game)
    assert journal.generation() == 2 and len(journal.overrides()) == 2
    before = {k: v for k, v in listing(long_game).items() if "journal.sqlite" not in k}
    steps: list[int] = []
    report = audit(long_game, steps.append)
    assert report.ok, report.divergence
    assert len(steps) == phases_to_replay(long_game) == ROUNDS + 1
    assert (report.phases, report.records, report.overrides) == (ROUNDS + 1, ROUNDS, 2)
    # Every report; and the notices, except of the 9 phases replayed after the rollbacks, which send none.
    assert report.letters == 2 * ROUNDS + 2 * (ROUNDS + 1 - 9)
    assert report.states > 2 * ROUNDS and report.orders == ROUNDS + ROUNDS // 3
    assert {k: v for k, v in listing(long_game).items() if "journal.sqlite" not in k} == before


def alter(path: Path, data: bytes) -> None:
    """Replace a file of the copy (unlinked first: the original game shares it)."""
    path.unlink()
    path.write_bytes(data)


def _rewrite(path: Path, old: str, new: str) -> None:
    """Change a kept letter or order file of the copy (a file, or a member of its pack)."""
    text = kept_letters.read_text(path)
    assert old in text, (path, old)
    kept_letters.rewrite(path, text.replace(old, new, 1).encode())


def test_an_altered_record_is_the_first_divergence(copy: Path) -> None:
    record = copy / "records" / "0030-t30-round.json"
    values = json.loads(record.read_bytes())["rolls"][1]["values"]
    changed = [7 - v for v in values]
    data = json.loads(record.read_bytes())
    data["rolls"][1]["values"] = changed
    alter(record, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())
    _rewrite(copy / "mail" / "0045-t45-round" / "bob.report.txt", "round 45", "round 46")
    report = audit(copy)
    assert not report.ok and report.records == 29
    assert report.divergence == (
        f"turn 30/round (phase 30): records/0030-t30-round.json: roll 'roll/alice/fire-30' (rolls[1].values[0]): "
        f"the replay gives {values[0]}, the record says {changed[0]}"
    )


def test_an_altered_report_is_named_with_its_line(copy: Path) -> None:
    report_path = copy / "mail" / "0045-t45-round" / "bob.report.txt"
    number = kept_letters.read_text(report_path).splitlines().index("  * alice notes: alice in round 45") + 1
    _rewrite(report_path, "alice notes: alice in round 45", "alice notes: alice surrenders")
    report = audit(copy)
    assert report.divergence == (
        f"turn 45/round (phase 45): mail/0045-t45-round/bob.report.txt, line {number}: the replay gives "
        "'* alice notes: alice in round 45', the letter says '* alice notes: alice surrenders'"
    )


def test_a_state_file_edited_by_hand_is_named_with_the_field(copy: Path) -> None:
    journal = GameDir(copy)
    phase = journal.phases()[19]
    path = copy / "states" / f"{phase.state_after}.json"
    envelope = json.loads(path.read_bytes())
    envelope["state"]["round"] = 99
    alter(path, canonical_json(envelope))
    report = audit(copy)
    assert report.divergence is not None
    assert report.divergence.startswith(
        f"turn 20/round (phase 20): states/{phase.state_after}.json was changed by hand"
    )
    assert report.divergence.endswith("first difference: state.round: the replay gives 21, the file says 99")


def test_an_order_file_edited_by_hand_is_caught(copy: Path) -> None:
    journal = GameDir(copy)
    order = journal.standing_orders(12)["alice"]
    _rewrite(copy / "orders" / order.file, "alice in round 12", "alice in round 13")
    digest = sha256_hex(kept_letters.read_bytes(copy / "orders" / order.file))
    assert audit(copy).divergence == (
        f"turn 12/round (phase 12): orders/{order.file} was changed: it hashes to {digest[:16]}..., "
        f"the journal accepted {order.sha256[:16]}..."
    )


def test_an_override_edited_in_the_journal_is_caught(copy: Path) -> None:
    journal = GameDir(copy)
    row = journal.overrides()[0]
    body = {**row.body, "reason": "no reason"}
    journal.db.execute("UPDATE overrides SET body = ? WHERE id = ?", (json.dumps(body), row.id))
    assert "override #1 (reroll, turn 52 'round') in the journal: the referee's signature does not match" in str(
        audit(copy).divergence
    )


def test_the_command_is_quiet_without_a_terminal_and_exits_3_on_a_divergence(long_game: Path, copy: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    run = [sys.executable, "-m", "referee", "audit"]
    ok = subprocess.run([*run, str(long_game)], capture_output=True, text=True, env=env, check=False, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert ok.stderr == "" and ok.stdout.startswith(f"ok: {ROUNDS + 1} phase(s) replayed")
    _rewrite(copy / "mail" / "0060-t60-round.g2" / "alice.report.txt", "alice", "alicia")
    bad = subprocess.run([*run, str(copy)], capture_output=True, text=True, env=env, check=False, timeout=120)
    assert bad.returncode == 3 and bad.stdout == ""
    assert bad.stderr.startswith(f"referee: error: the audit of {copy} found a divergence\nreferee:   - turn 60/round")
