"""`referee override`: every change the referee makes is signed, told to every player, listed in
the record and the reports of the phase it changes, and replayed by the audit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import kept_letters
import pytest
from played import copy_game, new_game

from referee.errors import RefereeError, StateError
from referee.game.audit import audit
from referee.game.engine import adjudicate
from referee.game.explain import explain
from referee.game.journal import GameDir
from referee.game.override import make_override
from referee.game.overrides import edit_state, values_problem, view_changes
from referee.game.status import status
from referee.letters.kept import read_kept
from referee.protocol.canonical import canonical_json, sha256_hex
from referee.protocol.dice import derive, phase_key, transcript
from referee.protocol.signatures import NAMESPACE_REFEREE, load_public_key_file, verify
from referee.protocol.states import state_commitment, state_key
from referee.protocol.verify import verify_game_dir

if TYPE_CHECKING:
    from conftest import TestGame

CHARGE = "rolls:\n  - {label: charge, table: morale, modifiers: [elite], purpose: the charge}\n"
VOLLEY = "rolls:\n  - {label: volley, dice: 2d6, purpose: the volley}\n"


def record(game: TestGame, name: str) -> dict[str, Any]:
    return json.loads((game.dir / "records" / name).read_bytes())


def committed(game: TestGame, digest: str) -> str:
    """Return the record's name of the stored state `digest`: its commitment (protocol section 15)."""
    game_dir = GameDir(game.dir)
    secret = game_dir.hidden_secret()
    assert secret is not None
    return state_commitment(state_key(secret), game_dir.load_state(digest))


def rolls_of(data: dict[str, Any]) -> dict[str, list[int]]:
    return {roll["label"]: roll["values"] for roll in data["rolls"]}


def report(game: TestGame, player: str, stem: str) -> str:
    """Return the latest report of the phase `stem` sent to `player`."""
    folders = sorted(
        kept_letters.glob(game.dir / "mail", f"{stem}*"), key=lambda p: int(p.suffix[2:] or 0) if p.suffix else 0
    )
    return kept_letters.read_text(folders[-1] / f"{player}.report.txt")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> TestGame:
    """Three rounds played: alice charges (a table roll) and bob fires, each round; round 4 open."""
    game = new_game(tmp_path_factory.mktemp("played"))
    for turn in (1, 2, 3):
        assert game.submit("alice", turn, CHARGE).accepted
        assert game.submit("bob", turn, VOLLEY).accepted
        assert game.submit("carol", turn, "note: waiting\n").accepted
        adjudicate(game.dir)
    return game


@pytest.fixture
def game(played: TestGame, tmp_path: Path) -> TestGame:
    return copy_game(played, tmp_path / "game")


def test_a_reroll_is_seen_in_every_report_and_in_the_public_record(game: TestGame) -> None:
    first = record(game, "0002-t2-round.json")
    later = record(game, "0003-t3-round.json")

    result = make_override(game.dir, "reroll", "roll/alice/charge", [], "the die fell off the table", phase="2/round")

    assert result.rollback is not None and result.forward is not None
    assert [a.phase.ident for a in result.forward.adjudications] == ["2/round", "3/round"]
    again = record(game, "0002-t2-round.json")
    assert again["protocol"] == "pbem-referee/4"  # its states go by commitments (section 15)
    assert again["overrides"] == [
        {
            "id": 1,
            "kind": "reroll",
            "label": "roll/alice/charge",
            "new_label": "roll/alice/charge/reroll-1",
            "reason": "the die fell off the table",
        }
    ]
    # The original roll stays on record, the re-roll follows it, nothing else changes.
    assert [r["label"] for r in again["rolls"]] == [
        "roll/alice/charge",
        "roll/alice/charge/reroll-1",
        "roll/bob/volley",
    ]
    assert rolls_of(again)["roll/alice/charge"] == rolls_of(first)["roll/alice/charge"]
    assert rolls_of(again)["roll/bob/volley"] == rolls_of(first)["roll/bob/volley"]
    assert {k: v for k, v in again.items() if k not in ("protocol", "overrides", "rolls", "state_after")} == {
        k: v for k, v in first.items() if k not in ("protocol", "rolls", "state_after")
    }
    # The re-roll is drawn from the same phase key, so any player can re-derive it.
    orders = {o["player"]: o["sha256"] for o in again["orders"]}
    text = transcript(again["game"], again["turn"], again["phase"], again["commit"], orders)
    key = phase_key(bytes.fromhex(again["server_seed"]), text)
    assert derive(key, "roll/alice/charge/reroll-1", "2d6") == rolls_of(again)["roll/alice/charge/reroll-1"]
    # Later rounds are adjudicated again with the same seeds and orders: the same rolls.
    assert record(game, "0003-t3-round.json")["rolls"] == later["rolls"]
    for player in game.players:
        text = report(game, player, "0002-t2-round")
        assert "Changed by the referee" in text and "#1 reroll" in text
        assert "reason: the die fell off the table" in text
        assert "replaced: the referee ordered a re-roll, roll/alice/charge/reroll-1" in text
        letter = kept_letters.read_text(game.dir / "mail" / "changes" / f"{player}.override-1.txt")
        assert "Override #1 (reroll, turn 2 'round')" in letter and "rolled the game back to turn 2" in letter
    verified = verify_game_dir(game.dir)
    assert verified.ok and verified.superseded == 2, verified.problems
    assert audit(game.dir).ok
    assert "was re-rolled as 'roll/alice/charge/reroll-1'" in explain(game.dir, "roll/alice/charge", "2/round")
    explained = explain(game.dir, "roll/alice/charge/reroll-1")
    assert "is the re-roll of 'roll/alice/charge'" in explained and "table morale" in explained


def test_a_reroll_of_a_reroll_and_its_withdrawal(game: TestGame) -> None:
    first = record(game, "0003-t3-round.json")
    make_override(game.dir, "reroll", "roll/bob/volley", [], "cocked die", phase="3/round")
    make_override(game.dir, "reroll", "roll/bob/volley/reroll-1", [], "cocked again")
    labels = [r["label"] for r in record(game, "0003-t3-round.json")["rolls"]]
    assert labels == ["roll/alice/charge", "roll/bob/volley", "roll/bob/volley/reroll-1", "roll/bob/volley/reroll-2"]
    assert "the re-roll roll/bob/volley/reroll-2 counted" in explain(game.dir, "roll/bob/volley/reroll-1")
    make_override(game.dir, "withdraw", "2", [], "the second re-roll was a mistake")
    withdrawn = record(game, "0003-t3-round.json")
    assert [r["label"] for r in withdrawn["rolls"]] == labels[:3]
    assert [(o["id"], o["kind"]) for o in withdrawn["overrides"]] == [(1, "reroll"), (3, "withdraw")]
    assert rolls_of(withdrawn)["roll/bob/volley"] == rolls_of(first)["roll/bob/volley"]
    assert "#3 withdraw: override #2 was withdrawn" in report(game, "carol", "0003-t3-round")
    with pytest.raises(RefereeError, match="not in force"):
        make_override(game.dir, "withdraw", "2", [], "again")
    assert verify_game_dir(game.dir).ok and audit(game.dir).ok


def test_a_result_replaced_and_the_table_read_again(game: TestGame) -> None:
    make_override(game.dir, "result", "roll/alice/charge", ["1", "1"], "both agreed it fell 1, 1", phase="3/round")
    again = record(game, "0003-t3-round.json")
    entry = again["overrides"][0]
    assert (entry["kind"], entry["label"], entry["values"]) == ("result", "roll/alice/charge", [1, 1])
    text = report(game, "bob", "0003-t3-round")
    assert "counts as 1, 1, by the referee's ruling" in text
    assert "natural 2, elite +2 = 4" in text and "routs" in text  # the game read the table with 1, 1
    assert "it counts as 1, 1" in explain(game.dir, "roll/alice/charge", "3/round")
    assert audit(game.dir).ok and verify_game_dir(game.dir).ok


def test_a_result_that_cannot_stand_for_the_roll_is_refused(game: TestGame) -> None:
    cases = [(["7", "1"], "between 1 and 6"), (["3"], r"holds 2 value\(s\)"), (["x"], "whole numbers"), ([], "give")]
    for values, words in cases:
        with pytest.raises(RefereeError, match=words):
            make_override(game.dir, "result", "roll/bob/volley", values, "a ruling", phase="1/round")
    assert GameDir(game.dir).overrides() == [] and GameDir(game.dir).generation() == 0


def test_a_corrected_order_changes_no_other_roll(game: TestGame, tmp_path: Path) -> None:
    first = record(game, "0001-t1-round.json")
    fixed = game.order("bob", 1, "rolls:\n  - {label: volley, dice: 3d6, purpose: the volley at close range}\n")
    result = make_override(game.dir, "order", "bob", [], "bob wrote 2d6 for a close-range volley", order_bytes=fixed)
    again = record(game, "0001-t1-round.json")
    bob = next(o["sha256"] for o in first["orders"] if o["player"] == "bob")
    assert again["orders"] == first["orders"]  # the transcript keeps the file bob sent: same phase key
    assert again["overrides"][0] | {"reason": ""} == {
        "id": 1,
        "kind": "order",
        "player": "bob",
        "sha256": sha256_hex(fixed),
        "replaces": bob,
        "reason": "",
    }
    assert rolls_of(again)["roll/alice/charge"] == rolls_of(first)["roll/alice/charge"]
    assert len(rolls_of(again)["roll/bob/volley"]) == 3
    assert "The referee corrected bob's orders (override #1)" in report(game, "alice", "0001-t1-round")
    folder = result.forward.adjudications[0].reports[0].parent  # type: ignore[union-attr]
    assert read_kept(folder / "bob.corrected-orders.yaml") == fixed
    assert not (folder / "alice.corrected-orders.yaml").exists()
    assert audit(game.dir).ok and verify_game_dir(game.dir).ok


def test_a_corrected_order_must_fit_and_be_the_players(game: TestGame) -> None:
    with pytest.raises(RefereeError, match="do not fit"):
        make_override(game.dir, "order", "bob", [], "r", order_bytes=game.order("bob", 1, "rolls: [{label: x}]\n"))
    with pytest.raises(RefereeError, match="for player 'alice'"):
        make_override(game.dir, "order", "bob", [], "r", order_bytes=game.order("alice", 1, VOLLEY))
    with pytest.raises(RefereeError, match="no player 'dave'"):
        make_override(game.dir, "order", "dave", [], "r", order_bytes=game.order("bob", 1, VOLLEY))


def test_a_state_edit_of_the_open_phase_is_told_at_once_and_recorded(game: TestGame) -> None:
    assert game.submit("alice", 4, CHARGE).accepted
    before = GameDir(game.dir).current_state_hash()
    result = make_override(game.dir, "state", "/tables", ["{}"], "the tables were withdrawn by agreement")
    assert result.rollback is None and list(result.unfit) == ["alice"]
    edited = GameDir(game.dir).current_state_hash()
    envelope = json.loads((game.dir / "states" / f"{edited}.json").read_bytes())
    assert envelope["previous"] == before and envelope["override"] == 1 and envelope["state"]["tables"] == {}
    # The body is signed by the referee: a player holding the journal entry can check it.
    row = GameDir(game.dir).overrides()[0]
    assert verify(canonical_json(row.body), row.signature, NAMESPACE_REFEREE) == load_public_key_file(
        game.dir / "referee.pub"
    )
    assert row.body["value"] == {} and row.body["type"] == "pbem-referee-override/1"
    alice = kept_letters.read_text(game.dir / "mail" / "changes" / "alice.override-1.txt")
    assert "Your orders on record no longer fit" in alice and "there is no table 'morale'" in alice
    assert "no longer fit" not in kept_letters.read_text(game.dir / "mail" / "changes" / "bob.override-1.txt")
    with pytest.raises(StateError, match="no longer fit"):
        adjudicate(game.dir, force=False)
    assert game.submit("alice", 4, VOLLEY, seq=2).accepted
    assert game.submit("bob", 4, VOLLEY).accepted and game.submit("carol", 4, VOLLEY).accepted
    adjudicate(game.dir)
    data = record(game, "0004-t4-round.json")
    assert data["state_before"] == committed(game, edited)
    entry = data["overrides"][0]
    assert (entry["kind"], entry["path"], entry["state_from"], entry["state_to"]) == (
        "state",
        "/tables",
        committed(game, before),
        committed(game, edited),
    )
    assert "value" not in entry  # it may be hidden information: each player sees their own view's change
    text = report(game, "carol", "0004-t4-round")
    assert "in your view: tables: " in text and '["fire", "morale"] -> []' in text
    assert verify_game_dir(game.dir).ok and audit(game.dir).ok


def test_a_state_edit_may_not_change_which_phase_is_open(game: TestGame) -> None:
    before = status(game.dir)
    with pytest.raises(StateError, match="would change which phase is open"):
        make_override(game.dir, "state", "/round", ["7"], "skip ahead")
    with pytest.raises(RefereeError, match="nothing at /nowhere"):
        make_override(game.dir, "state", "/nowhere/deep", ["7"], "r")
    with pytest.raises(RefereeError, match="not a path into the game.s state"):
        make_override(game.dir, "state", "round", ["7"], "r")
    assert status(game.dir) == before and GameDir(game.dir).overrides() == []


def test_refusals(game: TestGame) -> None:
    with pytest.raises(RefereeError, match="needs a reason"):
        make_override(game.dir, "reroll", "roll/alice/charge", [], " ", phase="1/round")
    with pytest.raises(RefereeError, match="no roll labelled 'roll/carol/x'"):
        make_override(game.dir, "reroll", "roll/carol/x", [], "r")
    with pytest.raises(RefereeError, match="several phases: 1/round, 2/round, 3/round"):
        make_override(game.dir, "reroll", "roll/alice/charge", [], "r")
    with pytest.raises(RefereeError, match="no override 'cancel'"):
        make_override(game.dir, "cancel", "1", [], "r")
    with pytest.raises(RefereeError, match="no override #4"):
        make_override(game.dir, "withdraw", "4", [], "r")


def test_a_reroll_staged_after_a_rollback_applies_at_the_roll_forward(game: TestGame) -> None:
    from referee.game.rollback import roll_forward, rollback

    rollback(game.dir, "2/round", "a dispute", forward=False)
    result = make_override(game.dir, "reroll", "roll/bob/volley", [], "cocked die", phase="2/round")
    assert result.rollback is None and result.forward is None  # staged: the referee rolls forward
    forward = roll_forward(game.dir)
    assert [a.phase.ident for a in forward.adjudications] == ["2/round", "3/round"]
    assert "roll/bob/volley/reroll-1" in rolls_of(record(game, "0002-t2-round.json"))


def test_helpers() -> None:
    assert edit_state({"a": [1, {"b": 2}]}, "/a/1/b", 3) == ({"a": [1, {"b": 3}]}, 2)
    assert edit_state({"a/b": {}}, "/a~1b/new", 1) == ({"a/b": {"new": 1}}, None)
    assert values_problem("shuffle(3)", 3, [2, 0, 1]) is None
    assert values_problem("uniform(10)", 2, [0, 10]) == "each value of uniform(10) is between 0 and 9"
    assert view_changes({"a": [1, 2], "b": {"c": 1}}, {"a": [1, 3], "b": {"c": 1}}) == ["a[1]: 2 -> 3"]
