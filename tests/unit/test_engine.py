"""Tests for referee.game.engine through the library: a game played, every refusal, seq rules,
adjudication rules, and crash safety."""

from __future__ import annotations

import email
import hashlib
import json
import re
import shutil
from collections.abc import Callable
from email import policy
from pathlib import Path
from typing import TYPE_CHECKING, Any

import kept_letters
import pytest

import referee.game.adjudication
from referee.errors import RefereeError, StateError
from referee.game.engine import adjudicate, submit
from referee.game.journal import GameDir
from referee.game.results import Receipt
from referee.game.status import status
from referee.letters.kept import read_kept
from referee.protocol.canonical import canonical_json, sha256_hex
from referee.protocol.records import record_transcript
from referee.protocol.signatures import generate_keypair, load_private_key, sign
from referee.protocol.states import state_commitment, state_key
from referee.protocol.verify import verify_game_dir

if TYPE_CHECKING:
    from conftest import TestGame

ROLLS = "rolls:\n  - {label: attack, dice: 2d6, purpose: the attack}\n"


# --- helpers -----------------------------------------------------------------------------------


def snapshot(game: TestGame) -> tuple[list[tuple[Any, ...]], str, dict[str, Any], list[str]]:
    """Return what a refusal must not change: the orders table, the state hash, the status, the phases."""
    game_dir = GameDir(game.dir)
    try:
        rows = [
            tuple(row)
            for row in game_dir.db.execute(
                "SELECT phase_seq, player, seq, sha256, file, accepted_at FROM orders ORDER BY id"
            )
        ]
        phases = [json.dumps(p.__dict__, sort_keys=True) for p in game_dir.phases()]
        return rows, game_dir.current_state_hash(), status(game.dir), phases
    finally:
        game_dir.close()


def refused(game: TestGame, raw: bytes, signature: str | bytes | None, code: str, *words: str) -> Receipt:
    """Submit a file that must be refused with `code`; check that nothing changed; return the receipt."""
    before = snapshot(game)
    receipt = submit(game.dir, raw, signature)
    assert not receipt.accepted and not receipt.duplicate
    problems = {p.code: p for p in receipt.problems}
    assert code in problems, receipt.problems
    for word in words:
        assert word in problems[code].message, problems[code]
    assert all(p.message and p.path for p in receipt.problems)
    assert snapshot(game) == before
    kept = game.dir / "refused" / f"{receipt.sha256}.order"
    assert kept.read_bytes() == raw
    assert receipt.sha256 == sha256_hex(raw)
    # The acknowledgement lists the problem for the player.
    assert receipt.letter is not None
    ack = kept_letters.read_text(receipt.letter)
    assert "REFUSED" in ack and f"[{code}]" in ack
    return receipt


def accepted(receipt: Receipt) -> Receipt:
    assert receipt.accepted and not receipt.problems, receipt.problems
    return receipt


def play_round(game: TestGame, turn: int, orders: dict[str, str] | None = None) -> Any:
    """Submit orders for every player (ROLLS unless given) and adjudicate the round."""
    for player in game.players:
        body = (orders or {}).get(player, f"rolls:\n  - {{label: r{turn}, dice: 2d6, purpose: round {turn}}}\n")
        accepted(game.submit(player, turn, body))
    return adjudicate(game.dir, expect=f"{turn}/round")


def message_ids(game_dir: Path) -> list[str]:
    ids = []
    for path in sorted((game_dir / "outbox" / "new").glob("*.eml")):
        message = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        ids.append(message["Message-ID"])
    return ids


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def game(make_game: Callable[..., TestGame], tmp_path: Path) -> TestGame:
    return make_game(tmp_path)


# --- a game played -----------------------------------------------------------------------------


def test_status_of_a_new_game(game: TestGame) -> None:
    info = status(game.dir)
    assert info["game"] == "test-game" and info["module"] == "moderator"
    assert (info["over"], info["turn"], info["phase"]) == (False, 1, "round")
    assert info["awaited"] == ["alice", "bob", "carol"] and info["received"] == []
    assert len(info["commit"]) == 64 and info["adjudicated"] == 0


def test_three_rounds_played(game: TestGame) -> None:
    commits = []
    for turn in (1, 2, 3):
        info = status(game.dir)
        commits.append(info["commit"])
        accepted(game.submit("alice", turn, ROLLS))
        accepted(game.submit("carol", turn, "note: carol waits\n"))
        info = status(game.dir)
        assert info["received"] == ["alice", "carol"] and info["awaited"] == ["bob"]
        accepted(game.submit("bob", turn, "declaration: {bid: 4}\n"))
        assert status(game.dir)["awaited"] == []
        result = adjudicate(game.dir, expect=f"{turn}/round")
        assert result.defaulted == [] and result.rolls == 1
        assert result.next_phase == f"{turn + 1}/round"
        record = json.loads(result.record.read_bytes())
        assert record["commit"] == commits[-1]
        assert hashlib.sha256(bytes.fromhex(record["server_seed"])).hexdigest() == record["commit"]
        assert record["next_commit"] == status(game.dir)["commit"]
        assert [r["label"] for r in record["rolls"]] == ["roll/alice/attack"]
        assert len(result.reports) == 3
    assert len(set(commits)) == 3
    info = status(game.dir)
    assert info["adjudicated"] == 3 and info["turn"] == 4
    report = verify_game_dir(game.dir)
    assert report.ok, report.problems
    assert (report.records, report.rolls, report.orders) == (3, 3, 9)


def test_record_lists_exactly_the_standing_orders(game: TestGame) -> None:
    first = accepted(game.submit("alice", 1, ROLLS))
    second = accepted(game.submit("alice", 1, "note: changed my mind\n", seq=2))
    bob = accepted(game.submit("bob", 1, ROLLS))
    result = adjudicate(game.dir, force=True)
    record = json.loads(result.record.read_bytes())
    assert record["orders"] == [{"player": "alice", "sha256": second.sha256}, {"player": "bob", "sha256": bob.sha256}]
    assert first.sha256 not in result.record.read_text()
    assert [r["label"] for r in record["rolls"]] == ["roll/bob/attack"]  # alice's seq 2 has no rolls
    assert verify_game_dir(game.dir).ok


# --- refusals: each with its code, a message to act on, and no change ------------------------


def test_bad_signature(game: TestGame) -> None:
    raw = game.order("alice", 1, ROLLS)
    signature = game.signed("alice", raw)
    tampered = raw.replace(b"2d6", b"3d6")
    assert len(tampered) == len(raw)
    refused(game, tampered, signature, "refused.signature", "does not match the file")


def test_garbled_signature(game: TestGame) -> None:
    raw = game.order("alice", 1, ROLLS)
    refused(
        game,
        raw,
        "-----BEGIN SSH SIGNATURE-----\nnot base64!\n-----END SSH SIGNATURE-----\n",
        "refused.signature",
        "base64",
    )


@pytest.mark.parametrize("signature", [None, "", b"  \n"])
def test_missing_signature(game: TestGame, signature: str | bytes | None) -> None:
    raw = game.order("alice", 1, ROLLS)
    refused(game, raw, signature, "refused.signature", "no signature", "ssh-keygen -Y sign")


def test_wrong_namespace(game: TestGame) -> None:
    raw = game.order("alice", 1, ROLLS)
    refused(game, raw, game.signed("alice", raw, namespace="git"), "refused.signature", "'git'", "pbem-orders")


def test_key_not_registered(game: TestGame, tmp_path: Path) -> None:
    key = generate_keypair(tmp_path / "stranger")
    raw = game.order("alice", 1, ROLLS)
    signature = sign(raw, load_private_key(tmp_path / "stranger"), "pbem-orders")
    refused(game, raw, signature, "refused.key-unknown", key.fingerprint, "not registered")


def test_key_registered_to_another_player(game: TestGame) -> None:
    raw = game.order("alice", 1, ROLLS)
    receipt = refused(game, raw, game.signed("bob", raw), "refused.key-other-player", "'alice'", "'bob'")
    assert receipt.player == "bob"


def test_unknown_player_without_signature(game: TestGame) -> None:
    receipt = refused(game, game.order("dave", 1, ROLLS), None, "refused.signature", "no signature")
    assert [p.code for p in receipt.problems] == ["refused.signature"]  # the file was not read


@pytest.mark.parametrize("signer", [None, "stranger", "wrong-namespace"])
def test_a_file_no_player_signed_is_refused_before_its_yaml_is_parsed(
    game: TestGame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signer: str | None
) -> None:
    raw = b"[" * 50_000 + b"]" * 50_000  # crashed libyaml before the signature was checked (issue 14)
    if signer == "stranger":
        generate_keypair(tmp_path / "stranger")
        signature: bytes | None = sign(raw, load_private_key(tmp_path / "stranger"), "pbem-orders")
    elif signer == "wrong-namespace":
        signature = game.signed("alice", raw, namespace="git")
    else:
        signature = None

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the YAML of an unsigned file was parsed")

    monkeypatch.setattr("referee.protocol.orders.load_strict", never)
    receipt = refused(game, raw, signature, "refused.key-unknown" if signer == "stranger" else "refused.signature")
    assert len(receipt.problems) == 1 and receipt.turn is None


def test_a_signed_file_nested_too_deep_is_refused_with_the_limit(game: TestGame) -> None:
    raw = game.order("alice", 1, "note: " + "[" * 5000 + "]" * 5000 + "\n")
    receipt = refused(game, raw, game.signed("alice", raw), "invalid.too-deep", "5,00", "at most 64")
    assert receipt.player == "alice"


def test_other_game(game: TestGame) -> None:
    raw = game.order("alice", 1, ROLLS, game="other-game")
    refused(game, raw, game.signed("alice", raw), "refused.game", "'other-game'", "'test-game'")


def test_stale_turn(game: TestGame) -> None:
    raw = game.order("alice", 1, ROLLS)
    signature = game.signed("alice", raw)
    accepted(submit(game.dir, raw, signature))
    accepted(game.submit("bob", 1, ROLLS))
    accepted(game.submit("carol", 1, ROLLS))
    adjudicate(game.dir)
    receipt = refused(game, raw, signature, "refused.stale", "turn 1", "closed", "turn 2")
    assert receipt.turn == 1


def test_future_turn(game: TestGame) -> None:
    raw = game.order("alice", 2, ROLLS)
    refused(game, raw, game.signed("alice", raw), "refused.not-open", "turn 2", "not open", "turn 1 'round'")


def test_wrong_phase_name(game: TestGame) -> None:
    raw = game.order("alice", 1, ROLLS, phase="movement")
    refused(game, raw, game.signed("alice", raw), "refused.not-open", "'movement'", "turn 1 'round'")


@pytest.mark.parametrize(
    "orders, code, path, words",
    [
        (
            "rolls:\n  - {label: Bad Label, dice: 2d6, purpose: x}\n",
            "invalid.pattern",
            "orders.rolls[0].label",
            ["Bad Label"],
        ),
        ("rolls:\n  - {label: a, dice: 2d6}\n", "invalid.missing", "orders.rolls[0].purpose", ["missing"]),
        ("rolls: 3\n", "invalid.type", "orders.rolls", ["a list"]),
        ("rols: []\n", "invalid.unknown-field", "orders.rols", ["did you mean rolls"]),
        ("note: 12\n", "invalid.type", "orders.note", ["quotes"]),
    ],
)
def test_schema_errors_name_the_field(game: TestGame, orders: str, code: str, path: str, words: list[str]) -> None:
    raw = game.order("alice", 1, orders)
    receipt = refused(game, raw, game.signed("alice", raw), code, *words)
    assert any(p.code == code and p.path == path for p in receipt.problems), receipt.problems


@pytest.mark.parametrize(
    "orders, code, path, words",
    [
        (
            "rolls:\n  - {label: a, table: nope, purpose: x}\n",
            "illegal.unknown-table",
            "orders.rolls[0].table",
            ["'nope'", "fire, morale"],
        ),
        (
            "rolls:\n  - {label: a, table: morale, modifiers: [drunk], purpose: x}\n",
            "illegal.unknown-modifier",
            "orders.rolls[0].modifiers",
            ["'drunk'", "elite"],
        ),
        (
            "rolls:\n  - {label: a, dice: 1d6, purpose: x}\n  - {label: a, dice: 1d6, purpose: y}\n",
            "illegal.duplicate-label",
            "orders.rolls[1].label",
            ["'a'"],
        ),
        (
            "rolls:\n  - {label: a, table: morale, dice: 1d6, purpose: x}\n",
            "illegal.dice-mismatch",
            "orders.rolls[0].dice",
            ["2d6", "1d6"],
        ),
        (
            "rolls:\n  - {label: a, table: fire, purpose: x}\n",
            "illegal.column",
            "orders.rolls[0].column",
            ["line, column"],
        ),
        ("rolls:\n  - {label: a, dice: 2d, purpose: x}\n", "invalid.dice", "orders.rolls[0].dice", ["2d6"]),
    ],
)
def test_module_validation_errors(game: TestGame, orders: str, code: str, path: str, words: list[str]) -> None:
    raw = game.order("alice", 1, orders)
    receipt = refused(game, raw, game.signed("alice", raw), code, *words)
    assert any(p.code == code and p.path == path for p in receipt.problems), receipt.problems


GOOD = b"game: test-game\nturn: 1\nphase: round\nplayer: alice\norders:\n  note: hi\n"


@pytest.mark.parametrize(
    "raw, code, words",
    [
        (GOOD + b"#" * (256 * 1024), "invalid.size", ["256 KiB"]),
        (GOOD.replace(b"hi", b"h\xe9"), "invalid.encoding", ["UTF-8"]),
        (b"- game: test-game\n- turn: 1\n", "invalid.not-mapping", ["mapping"]),
        (b"", "invalid.not-mapping", ["empty"]),
        (b"just a line of text\n", "invalid.not-mapping", ["single value"]),
        (GOOD.replace(b"note: hi", b"note: &x hi\n  declaration: *x"), "invalid.yaml", ["anchors"]),
        (GOOD + b"player: bob\n", "invalid.yaml", ["'player' appears twice"]),
        (GOOD + b"colour: blue\n", "invalid.unknown-field", ["'colour'"]),
        (GOOD + b"seq: 99999999999999999999999\n", "invalid.type", ["'seq'"]),
        (GOOD.replace(b"turn: 1", b"turn: '1'"), "invalid.type", ["'turn'"]),
    ],
)
def test_malformed_files(game: TestGame, raw: bytes, code: str, words: list[str]) -> None:
    refused(game, raw, game.signed("alice", raw), code, *words)


def test_game_over(make_game: Callable[..., TestGame], tmp_path: Path) -> None:
    game = make_game(tmp_path, players=("alice", "bob"), rounds=2)
    play_round(game, 1)
    result = play_round(game, 2)
    assert result.next_phase is None
    info = status(game.dir)
    assert info["over"] and info["awaited"] == [] and info["commit"] is None and info["adjudicated"] == 2
    record = json.loads(result.record.read_bytes())
    assert record["next_commit"] is None
    raw = game.order("alice", 3, ROLLS)
    refused(game, raw, game.signed("alice", raw), "refused.game-over", "over")
    with pytest.raises(StateError, match="is over"):
        adjudicate(game.dir)
    assert "over" in kept_letters.read_text(game.dir / "mail" / "0002-t2-round" / "alice.report.txt")
    assert verify_game_dir(game.dir).ok


# --- seq rules ---------------------------------------------------------------------------------


def test_seq_rules(game: TestGame) -> None:
    first = accepted(game.submit("alice", 1, ROLLS))
    assert first.seq == 1
    third = accepted(game.submit("alice", 1, "note: third\n", seq=3))

    # The same file again is an idempotent duplicate: accepted, nothing changes.
    raw = game.order("alice", 1, "note: third\n", seq=3)
    before = snapshot(game)
    again = submit(game.dir, raw, game.signed("alice", raw))
    assert again.accepted and again.duplicate and again.sha256 == third.sha256
    assert snapshot(game) == before
    assert "already been accepted" in kept_letters.read_text(again.letter)  # type: ignore[union-attr]
    # ...but it gets an acknowledgement of its own, mailed anew: the player may have lost the first.
    assert again.letter != third.letter and kept_letters.exists(third.letter)  # type: ignore[union-attr]
    outbox = sorted((game.dir / "outbox" / "new").glob("*ack*"))
    assert len([p for p in outbox if third.sha256[:12] in p.name]) == 2

    # Same seq, other content: refused.
    raw = game.order("alice", 1, "note: other\n", seq=3)
    refused(game, raw, game.signed("alice", raw), "refused.seq-used", "seq 3", "higher seq")
    # Lower seq than the standing one: refused.
    raw = game.order("alice", 1, "note: second\n", seq=2)
    refused(game, raw, game.signed("alice", raw), "refused.seq-superseded", "seq 3", "seq 4")
    # A higher seq replaces.
    fourth = accepted(game.submit("alice", 1, "note: fourth\n", seq=4))
    game_dir = GameDir(game.dir)
    standing = game_dir.standing_orders(1)
    game_dir.close()
    assert standing["alice"].seq == 4 and standing["alice"].sha256 == fourth.sha256


def test_seqs_are_per_player_and_per_phase(game: TestGame) -> None:
    accepted(game.submit("alice", 1, ROLLS, seq=5))
    accepted(game.submit("bob", 1, ROLLS, seq=1))
    accepted(game.submit("carol", 1, ROLLS))
    adjudicate(game.dir)
    accepted(game.submit("alice", 2, ROLLS, seq=1))


# --- adjudication ------------------------------------------------------------------------------


def test_adjudicate_waits_for_everyone(game: TestGame) -> None:
    accepted(game.submit("bob", 1, ROLLS))
    before = snapshot(game)
    with pytest.raises(StateError) as caught:
        adjudicate(game.dir)
    assert "waiting for orders from alice, carol" in caught.value.message
    assert any("--force" in hint for hint in caught.value.hints)
    assert snapshot(game) == before
    assert not (game.dir / "records").exists() or not any((game.dir / "records").iterdir())


def test_force_applies_default_orders(game: TestGame) -> None:
    bob = accepted(game.submit("bob", 1, ROLLS))
    result = adjudicate(game.dir, force=True)
    assert result.defaulted == ["alice", "carol"]
    record = json.loads(result.record.read_bytes())
    assert record["orders"] == [{"player": "bob", "sha256": bob.sha256}]
    report = kept_letters.read_text(game.dir / "mail" / "0001-t1-round" / "carol.report.txt")
    assert "No orders came from alice, carol" in report
    assert status(game.dir)["turn"] == 2
    assert verify_game_dir(game.dir).ok


def test_force_with_no_orders_at_all(game: TestGame) -> None:
    result = adjudicate(game.dir, force=True)
    assert result.defaulted == ["alice", "bob", "carol"] and result.rolls == 0
    assert json.loads(result.record.read_bytes())["orders"] == []
    assert verify_game_dir(game.dir).ok


@pytest.mark.parametrize("expect", ["2/round", "1/movement", "0/round"])
def test_expect_mismatch_changes_nothing(game: TestGame, expect: str) -> None:
    for player in game.players:
        accepted(game.submit(player, 1, ROLLS))
    before = snapshot(game)
    with pytest.raises(StateError, match="the open phase is 1/round"):
        adjudicate(game.dir, expect=expect)
    assert snapshot(game) == before


@pytest.mark.parametrize("expect", ["round", "1", "x/round", "/round"])
def test_expect_malformed(game: TestGame, expect: str) -> None:
    with pytest.raises(RefereeError, match="TURN/PHASE"):
        adjudicate(game.dir, expect=expect, force=True)
    assert status(game.dir)["turn"] == 1


# --- crash safety ------------------------------------------------------------------------------


def _crash_once(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """Make owner.name raise the first time it is called; return the list counting the calls."""
    real = getattr(owner, name)
    calls: list[int] = []

    def crashing(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("simulated crash")
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, crashing)
    return calls


def _ready(game: TestGame) -> None:
    for player in game.players:
        accepted(game.submit(player, 1, ROLLS))


def test_crash_before_the_journal_commits(game: TestGame, monkeypatch: pytest.MonkeyPatch) -> None:
    _ready(game)
    calls = _crash_once(monkeypatch, GameDir, "close_phase")
    with pytest.raises(OSError, match="simulated crash"):
        adjudicate(game.dir)
    assert calls
    record_path = game.dir / "records" / "0001-t1-round.json"
    first_record = record_path.read_bytes()
    first_sig = (game.dir / "records" / "0001-t1-round.json.sig").read_bytes()
    first_mail = folder_bytes(game.dir / "mail" / "0001-t1-round")
    first_ids = message_ids(game.dir)
    assert status(game.dir)["turn"] == 1  # nothing was committed

    result = adjudicate(game.dir, expect="1/round")
    assert result.record == record_path
    assert record_path.read_bytes() == first_record
    assert (game.dir / "records" / "0001-t1-round.json.sig").read_bytes() == first_sig
    assert folder_bytes(game.dir / "mail" / "0001-t1-round") == first_mail
    ids = message_ids(game.dir)
    assert len(ids) == len(set(ids)), "duplicate messages in the outbox"
    assert set(first_ids) <= set(ids)
    assert status(game.dir)["commit"] == json.loads(first_record)["next_commit"]
    report = verify_game_dir(game.dir)
    assert report.ok, report.problems


@pytest.mark.parametrize("owner, name", [(referee.game.adjudication, "post_notices"), (GameDir, "insert_phase")])
def test_crash_while_opening_the_next_phase(
    game: TestGame, monkeypatch: pytest.MonkeyPatch, owner: Any, name: str
) -> None:
    """A crash after the next phase's seed is drawn but before its row is stored: the re-run
    publishes the same commitment, the one the record names. The record and the letters land
    together just before that row (`files.group_commit`): a crash while the notices are written
    leaves none of them, a crash at the row leaves them, and the re-run writes the same bytes."""
    _ready(game)
    _crash_once(monkeypatch, owner, name)
    with pytest.raises(OSError, match="simulated crash"):
        adjudicate(game.dir)
    record_path = game.dir / "records" / "0001-t1-round.json"
    assert record_path.exists() == (name == "insert_phase")
    first_record = record_path.read_bytes() if record_path.exists() else None
    game_dir = GameDir(game.dir)
    seed = game_dir.seed_of(2, "round")
    game_dir.close()
    assert seed is not None
    next_commit = hashlib.sha256(seed).hexdigest()

    result = adjudicate(game.dir, expect="1/round")
    assert result.next_phase == "2/round"
    assert json.loads(record_path.read_bytes())["next_commit"] == next_commit
    assert first_record is None or record_path.read_bytes() == first_record
    info = status(game.dir)
    assert (info["turn"], info["commit"]) == (2, next_commit)
    assert f"commit {next_commit}" in kept_letters.read_text(game.dir / "mail" / "0002-t2-round" / "alice.notice.txt")
    ids = message_ids(game.dir)
    assert len(ids) == len(set(ids))
    assert verify_game_dir(game.dir).ok
    play_round(game, 2)
    assert verify_game_dir(game.dir).ok


def test_a_phase_seed_is_drawn_once_and_kept(game: TestGame) -> None:
    """Asking for a phase's seed again (as a re-run after a crash does) gives the same bytes."""
    game_dir = GameDir(game.dir)
    seed = game_dir.seed_for(1, "round")
    assert game_dir.seed_for(1, "round") == seed
    assert hashlib.sha256(seed).hexdigest() == status(game.dir)["commit"]
    game_dir.close()


# --- letters -----------------------------------------------------------------------------------


def test_kept_view_files_match_their_letters(game: TestGame) -> None:
    """Each notice and report names its view file and that file's SHA-256; the copy kept under
    mail/ must be that file (a report must not overwrite the notice's view in the same folder)."""
    play_round(game, 1)
    letters = sorted(kept_letters.glob(game.dir / "mail", "*/*.notice.txt")) + sorted(
        kept_letters.glob(game.dir / "mail", "*/*.report.txt")
    )
    assert len(letters) == 9
    for letter in letters:
        name, digest = re.search(
            r"attached as\s+(\S+)\s+\(SHA-256 ([0-9a-f]{64})\)", kept_letters.read_text(letter)
        ).groups()  # type: ignore[union-attr]
        # In the mail the file is named after the game and the folder it is kept in.
        kept = name.removeprefix(f"{game.game}-{letter.parent.name}-")
        assert sha256_hex(read_kept(letter.parent / kept)) == digest, letter


def test_the_notice_order_form_is_accepted_as_it_is(game: TestGame) -> None:
    """The order file a notice offers to start from must itself be a valid order file."""
    notice = kept_letters.read_text(game.dir / "mail" / "0001-t1-round" / "alice.notice.txt")
    form = notice.split("An order file filled in for you to start from")[1].split("\n\n", 1)[1].split("Sign it with")[0]
    raw = "".join(line[4:] + "\n" for line in form.splitlines() if line.strip()).encode()
    assert raw.startswith(b"game: test-game\n")
    accepted(submit(game.dir, raw, game.signed("alice", raw)))


def test_state_snapshots_form_a_hash_chain(game: TestGame) -> None:
    play_round(game, 1)
    play_round(game, 2)
    phases = GameDir(game.dir).phases()
    after = json.loads((game.dir / "states" / f"{phases[1].state_after}.json").read_bytes())
    assert after["previous"] == phases[1].state_before
    (game.dir / "states" / f"{phases[1].state_before}.json").unlink()
    problems = verify_game_dir(game.dir).problems
    assert any("chain is broken" in p and phases[1].state_before in p for p in problems)


def test_records_name_states_by_commitments_not_by_their_hash(game: TestGame) -> None:
    """Protocol section 15: a record's state names cannot be matched by hashing a guessed state."""
    play_round(game, 1)
    game_dir = GameDir(game.dir)
    secret = game_dir.hidden_secret()
    assert secret is not None
    row = game_dir.phases()[0]
    record = json.loads((game.dir / "records" / row.record).read_bytes())  # type: ignore[operator]
    assert record["protocol"] == "pbem-referee/4" and record["state_scheme"] == "pbem-referee-state/1"
    for field, digest in (("state_before", row.state_before), ("state_after", row.state_after)):
        envelope = game_dir.load_state(digest)
        assert record[field] != digest and record[field] != sha256_hex(canonical_json(envelope))
        assert record[field] == state_commitment(state_key(secret), envelope)


def test_one_process_at_a_time(game: TestGame) -> None:
    """While another process holds the game's lock, a command waits, then says why it gave up."""
    import subprocess
    import sys
    import textwrap

    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            import sys, time
            from referee.game.journal import GameDir
            with GameDir({str(game.dir)!r}).lock():
                print("locked", flush=True)
                time.sleep(2)
                print("releasing", flush=True)
        """),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        from referee.errors import LockedError

        with pytest.raises(LockedError) as caught, GameDir(game.dir).lock(wait=0.3):
            pass
        assert "another referee process" in caught.value.message
        with GameDir(game.dir).lock(wait=10):  # waits for the holder to let go, then proceeds
            assert holder.stdout.readline().strip() == "releasing"
    finally:
        holder.kill()
        holder.wait()


def test_the_referee_enters_orders_for_an_absent_player(game: TestGame) -> None:
    raw = game.order("carol", 1, ROLLS)
    entered = submit(game.dir, raw, None, become="carol")
    assert entered.accepted and entered.by_referee and entered.player == "carol"
    ack = kept_letters.read_text(entered.letter)  # type: ignore[union-attr]
    assert "entered this file on your behalf" in ack
    assert any("carol@" in p.read_text(errors="replace") for p in (game.dir / "outbox" / "new").glob("*ack*"))
    wrong = submit(game.dir, game.order("bob", 1, ROLLS), None, become="carol")
    assert not wrong.accepted and wrong.problems[0].code == "refused.player"
    with pytest.raises(RefereeError):
        submit(game.dir, raw, None, become="nobody")
    accepted(game.submit("alice", 1, ROLLS))
    accepted(game.submit("bob", 1, ROLLS))
    result = adjudicate(game.dir)
    assert result.events[0].kind == "orders.by-referee" and "carol" in result.events[0].text
    record = json.loads(result.record.read_bytes())
    assert {"player": "carol", "sha256": entered.sha256, "by": "referee"} in record["orders"]
    assert record["protocol"] == "pbem-referee/4"
    assert "order carol " not in record_transcript(record).decode()
    assert "The referee entered carol's orders" in kept_letters.read_text(
        game.dir / "mail" / "0001-t1-round" / "bob.report.txt"
    )
    assert verify_game_dir(game.dir).ok


def test_the_bytes_of_an_order_the_referee_enters_do_not_change_the_dice(game: TestGame, tmp_path: Path) -> None:
    """A referee who knows the seed could otherwise try variants of a `become` file until the
    dice suit them (issue 13): the order it enters stays out of the transcript."""
    accepted(game.submit("alice", 1, ROLLS))
    accepted(game.submit("bob", 1, ROLLS))
    records = []
    for variant in range(3):  # copies of one game: one seed, the same players' orders
        copy = tmp_path / f"variant-{variant}"
        shutil.copytree(game.dir, copy)
        raw = game.order("carol", 1, ROLLS) + f"# variant {variant}\n".encode()
        assert submit(copy, raw, None, become="carol").accepted
        records.append(json.loads(adjudicate(copy).record.read_bytes()))
    assert len({json.dumps(r["orders"]) for r in records}) == 3  # the files differ, and the records say so
    assert all(r["rolls"] == records[0]["rolls"] for r in records)  # but not one roll does


def test_a_game_begun_before_state_commitments_keeps_plain_hashes(game: TestGame) -> None:
    """A game whose first phase opened before section 15 (no `state_scheme` in its journal)
    keeps naming states by their SHA-256, so its chain of records does not break midway."""
    journal = GameDir(game.dir)
    journal.db.execute("DELETE FROM meta WHERE key = 'state_scheme'")
    journal.close()
    play_round(game, 1)
    row = GameDir(game.dir).phases()[0]
    record = json.loads((game.dir / "records" / row.record).read_bytes())  # type: ignore[operator]
    assert "state_scheme" not in record and record["protocol"] != "pbem-referee/4"
    assert (record["state_before"], record["state_after"]) == (row.state_before, row.state_after)
    assert verify_game_dir(game.dir).ok
