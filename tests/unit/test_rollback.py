"""`referee rollback` and `referee roll-forward`: back to an earlier phase, everyone told, the later
orders kept, and the same seeds, so that unchanged inputs give byte-identical records."""

from __future__ import annotations

import email
import json
from email import policy
from pathlib import Path
from typing import TYPE_CHECKING

import kept_letters
import pytest
from played import copy_game, new_game

from referee.errors import AlreadyDone, StateError
from referee.game.audit import audit
from referee.game.engine import adjudicate, submit
from referee.game.journal import GameDir
from referee.game.override import make_override
from referee.game.rollback import roll_forward, rollback
from referee.game.status import status
from referee.letters.kept import read_kept
from referee.protocol.verify import verify_game_dir

if TYPE_CHECKING:
    from conftest import MakeGame, TestGame


def orders(turn: int) -> str:
    return (
        f"rolls:\n  - {{label: charge-{turn}, table: morale, modifiers: [elite], purpose: the charge}}\n"
        f"  - {{label: fire-{turn}, dice: 2d6, purpose: the volley}}\ndeclaration: {{turn: {turn}}}\n"
    )


def play(game: TestGame, turns: range, missing: dict[int, str] | None = None) -> None:
    """Play rounds: every player sends orders, except `missing[turn]` (adjudicated by force)."""
    for turn in turns:
        for player in game.players:
            if (missing or {}).get(turn) != player:
                assert game.submit(player, turn, orders(turn)).accepted
        adjudicate(game.dir, expect=f"{turn}/round", force=turn in (missing or {}))


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: read_kept(p) for p in kept_letters.glob(folder.parent, f"{folder.name}/*")}


def message_ids(game_dir: Path) -> list[str]:
    return [
        email.message_from_bytes(p.read_bytes(), policy=policy.default)["Message-ID"]
        for p in sorted((game_dir / "outbox" / "new").glob("*.eml"))
    ]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> TestGame:
    game = new_game(tmp_path_factory.mktemp("played"), players=("alice", "bob"))
    play(game, range(1, 5), missing={3: "bob"})
    return game


@pytest.fixture
def game(played: TestGame, tmp_path: Path) -> TestGame:
    return copy_game(played, tmp_path / "game")


def test_rollback_and_roll_forward_give_byte_identical_records(game: TestGame) -> None:
    records = game.dir / "records"
    before = files(records)
    commit = status(game.dir)["commit"]
    state = GameDir(game.dir).current_state_hash()

    plan, forward = rollback(game.dir, "2/round", "checking the morale table")

    assert forward is not None and [a.phase.ident for a in forward.adjudications] == ["2/round", "3/round", "4/round"]
    assert forward.adjudications[1].defaulted == ["bob"]  # forced as it was
    assert forward.stopped == "turn 5 'round' is open for orders"
    assert files(records) == before  # every record and signature, byte for byte
    assert GameDir(game.dir).current_state_hash() == state
    assert status(game.dir)["commit"] == commit
    # The superseded records are kept, not deleted.
    kept = files(records / "superseded" / "1")
    assert plan.records == ["0002-t2-round.json", "0003-t3-round.json", "0004-t4-round.json"]
    assert kept == {name: data for name, data in before.items() if name[:4] in ("0002", "0003", "0004")}
    report = verify_game_dir(game.dir)
    assert report.ok and report.superseded == 3, report.problems
    assert audit(game.dir).ok


def test_every_player_is_told_and_the_letters_sent_before_are_kept(game: TestGame) -> None:
    mail = game.dir / "mail"
    old_report = kept_letters.read_text(mail / "0003-t3-round" / "alice.report.txt")
    ids_before = message_ids(game.dir)

    rollback(game.dir, "3/round", "a rules question")

    for player in game.players:
        letter = kept_letters.read_text(mail / "changes" / f"{player}.rollback-g1.txt")
        assert "rolled the game back to turn 3 'round'" in letter and "Reason: a rules question" in letter
        assert "0003-t3-round.json, 0004-t4-round.json" in letter
    assert kept_letters.read_text(mail / "0003-t3-round" / "alice.report.txt") == old_report
    new_report = kept_letters.read_text(mail / "0003-t3-round.g1" / "alice.report.txt")
    assert "This report replaces the one sent with the record 0003-t3-round.json" in new_report
    assert "Reason: a rules question" in new_report
    # Apart from that note, the new report says what the old one said; its files are named after
    # its own folder, so that saving them overwrites none of the first report's.
    assert "-0003-t3-round.g1-alice.report.txt" in new_report
    renamed = new_report.replace("-0003-t3-round.g1-", "-0003-t3-round-")
    assert renamed.split("What happened")[1] == old_report.split("What happened")[1]
    ids = message_ids(game.dir)
    assert len(ids) == len(set(ids)) and set(ids_before) < set(ids)
    assert any("round-g1.report" in i for i in ids)


def test_stay_then_roll_forward_and_no_new_orders_meanwhile(game: TestGame) -> None:
    before = files(game.dir / "records")
    plan, forward = rollback(game.dir, "2/round", "pause", forward=False)
    assert forward is None and plan.generation == 1
    assert status(game.dir)["turn"] == 2 and not (game.dir / "records" / "0002-t2-round.json").exists()
    assert verify_game_dir(game.dir).ok  # the chain ends at record 1, whose next_commit is turn 2's
    # Turn 2's seed is public: it takes no new orders.
    receipt = game.submit("alice", 2, orders(9), seq=2)
    assert not receipt.accepted and receipt.problems[0].code == "refused.replay"
    by_referee = submit(game.dir, game.order("bob", 2, orders(9), seq=2), None, become="bob")
    assert not by_referee.accepted
    with pytest.raises(StateError, match="waiting|phase"):
        rollback(game.dir, "2/round", "again")  # the open phase: nothing to roll back
    result = roll_forward(game.dir)
    assert [a.phase.ident for a in result.adjudications] == ["2/round", "3/round", "4/round"]
    assert files(game.dir / "records") == before
    with pytest.raises(AlreadyDone, match="stopped: turn 5 'round' is open for orders"):
        roll_forward(game.dir)  # run again: nothing to do twice, and it says what it did


def test_adjudicate_replays_the_reopened_phase_like_roll_forward(game: TestGame) -> None:
    before = (game.dir / "records" / "0003-t3-round.json").read_bytes()
    rollback(game.dir, "3/round", "look again", forward=False)
    with pytest.raises(StateError, match="waiting for orders from bob") as caught:
        adjudicate(game.dir)
    assert "roll-forward" in caught.value.hints[0]
    adjudicate(game.dir, force=True)
    assert (game.dir / "records" / "0003-t3-round.json").read_bytes() == before


def test_rollback_refusals_change_nothing(game: TestGame) -> None:
    before = files(game.dir / "records")
    with pytest.raises(StateError, match="is the open phase"):
        rollback(game.dir, "5/round", "no")
    with pytest.raises(StateError, match="not a phase of this game") as caught:
        rollback(game.dir, "9/round", "no")
    assert "1/round, 2/round, 3/round, 4/round" in caught.value.hints[0]
    with pytest.raises(StateError, match="needs a reason"):
        rollback(game.dir, "2/round", "  ")
    assert files(game.dir / "records") == before and GameDir(game.dir).generation() == 0


def test_orders_that_no_longer_fit_get_a_fresh_seed_and_a_notice(make_game: MakeGame, tmp_path: Path) -> None:
    """A change that makes later orders illegal stops the roll forward there; that phase's seed was
    revealed, so it gets a fresh one before players send new orders."""
    game = make_game(tmp_path, players=("alice", "bob"))
    for turn, body in ((1, "note: hello\n"), (2, "rolls:\n  - {label: a, dice: 2d6, purpose: p}\n"), (3, orders(3))):
        for player in game.players:
            assert game.submit(player, turn, body).accepted
        adjudicate(game.dir)
    old = json.loads((game.dir / "records" / "0003-t3-round.json").read_bytes())
    result = make_override(game.dir, "state", "/tables", ["{}"], "the tables were a draft", phase="3/round")
    # Turn 3's orders read the morale table, which is gone: the rollback target is not replayed.
    assert result.forward is not None and result.forward.adjudications == []
    assert "no longer fit" in result.forward.stopped and "there is no table 'morale'" in result.forward.stopped
    with pytest.raises(StateError, match="no longer fit"):
        adjudicate(game.dir)
    withdraw = make_override(game.dir, "withdraw", "1", [], "wrong phase")
    assert withdraw.forward is None  # turn 3 was open: its state is simply restored
    # The same change at turn 2: turn 2 is replayed; turn 3 opens again with a fresh seed.
    result = make_override(game.dir, "state", "/tables", ["{}"], "the tables were a draft", phase="2/round")
    assert result.forward is not None and [a.phase.ident for a in result.forward.adjudications] == ["2/round"]
    info = status(game.dir)
    assert info["turn"] == 3 and info["commit"] != old["commit"]
    journal = GameDir(game.dir)
    assert journal.log_entries(("seed.replaced",))[0]["data"]["old"] == old["server_seed"]
    record = json.loads((game.dir / "records" / "0002-t2-round.json").read_bytes())
    assert record["next_commit"] == info["commit"]
    notice = kept_letters.read_text(game.dir / "mail" / f"0003-t3-round.g{journal.generation()}" / "bob.notice.txt")
    assert f"commit {info['commit']}" in notice
    with pytest.raises(StateError, match="no longer fit"):
        adjudicate(game.dir)
    assert game.submit("alice", 3, "note: no tables now\n", seq=2).accepted
    adjudicate(game.dir, force=True)  # bob's orders no longer fit: the default orders stand for them
    record = json.loads((game.dir / "records" / "0003-t3-round.json").read_bytes())
    assert record["commit"] == info["commit"] and record["rolls"] == []
    report = game.dir / "mail" / f"0003-t3-round.g{journal.generation()}" / "alice.report.txt"
    assert "bob's orders no longer fit" in kept_letters.read_text(report)
    assert verify_game_dir(game.dir).ok and audit(game.dir).ok


def test_a_rollback_cut_short_by_a_crash_is_completed_by_running_it_again(
    game: TestGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = game.dir / "records"
    before = files(records)
    real = GameDir.supersede
    calls: list[int] = []

    def crashing(self: GameDir, *args: int) -> object:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("simulated crash")
        return real(self, *args)

    monkeypatch.setattr(GameDir, "supersede", crashing)
    with pytest.raises(OSError, match="simulated crash"):
        rollback(game.dir, "3/round", "a rules question")
    # Linked aside, not yet unlinked: the journal is unchanged and names files that are there.
    assert (records / "0003-t3-round.json").samefile(records / "superseded" / "1" / "0003-t3-round.json")
    assert status(game.dir)["turn"] == 5 and GameDir(game.dir).generation() == 0
    assert verify_game_dir(game.dir).ok
    with pytest.raises(StateError, match="interrupted") as caught:
        adjudicate(game.dir)  # nothing else changes the game meanwhile
    assert caught.value.hints[0].endswith("rollback " + f"{game.dir} 3/round --reason 'a rules question'")
    rollback(game.dir, "3/round", "a rules question")
    assert files(records) == before and GameDir(game.dir).generation() == 1
    ids = message_ids(game.dir)
    assert len(ids) == len(set(ids))
    assert audit(game.dir).ok
