"""`referee rollback` and `referee roll-forward`: return to an earlier phase, then adjudicate again.

A rollback takes the game back to a phase already adjudicated. The phases from there on leave
the game's line but stay on record: their journal rows in `superseded_phases`, their records
in records/superseded/<generation>/, their orders and letters where they were. The phase
returned to opens again with its commitment and seed, in a new *generation*, whose letters get
their own folders and Message-IDs.

Its seed was revealed by the record now superseded, so that phase takes no new orders from
players: anyone could compute its dice. It is adjudicated again from the orders on record
(plus the referee's overrides), and so is each later phase, as it was before (with default
orders where they were used), so unchanged inputs give byte-identical records. The roll
forward stops at the first phase that was not adjudicated before, or whose orders no longer
fit the state; such a phase gets a fresh seed (its old one is public) and a notice.
"""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

from referee.errors import StateError
from referee.files import fsync_dir
from referee.game import operations
from referee.game.adjudication import UnfitOrdersError, adjudicate_phase
from referee.game.announce import post_change
from referee.game.journal import OpenPhase
from referee.game.opened import Game, parse_expect
from referee.game.operations import Intent
from referee.game.overrides import apply_state_edits
from referee.game.results import Rollback, RollForward
from referee.game.states import state_hash
from referee.game.supplies import WaitingOnReferee, hold


def rollback(
    path: Path, ident: str, reason: str, forward: bool = True, operation: str | None = None
) -> tuple[Rollback, RollForward | None]:
    """Return the game to the phase `ident` (TURN/PHASE), tell every player, and (with `forward`)
    adjudicate it and the later phases again.

    An operation (referee.game.operations): run again after a crash, it finishes the rollback it
    started; run again after it finished, it raises AlreadyDone."""
    reason = " ".join(reason.split())
    if not reason:
        raise StateError("a rollback needs a reason", hints=("say why, with --reason: every player reads it",))
    turn, name = parse_expect(ident)
    intent = Intent.of(
        "rollback",
        {"phase": f"{turn}/{name}", "reason": reason, "forward": forward},
        [str(path), f"{turn}/{name}", "--reason", reason, *([] if forward else ["--stay"])],
        operation,
    )
    game = Game.open(path)
    with game.dir.lock(guard=False):
        resumed = operations.begin(game.dir, intent)
        if resumed is not None:
            plan = rollback_from_plan(resumed.plan["rollback"])
        else:
            plan = _plan_for(game, turn, name, reason)
            operations.start(game.dir, intent, {"rollback": rollback_plan(plan)})
        post_change(game, f"rollback-g{plan.generation}", plan, [], {})
        execute_rollback(game, plan)
        rolled = roll_forward_locked(game) if forward else None
        operations.finish(game.dir, intent, rollback_text(plan, rolled))
        return plan, rolled


def _plan_for(game: Game, turn: int, name: str, reason: str) -> Rollback:
    phases = game.dir.phases()
    row = next((p for p in phases if (p.turn, p.phase) == (turn, name)), None)
    if row is None or row.record is None:
        done = ", ".join(p.ident for p in phases if p.record) or "none yet"
        what = "is the open phase" if row is not None else "is not a phase of this game"
        hints = [f"phases adjudicated: {done}"]
        if row is not None and game.dir.revealed(row.turn, row.phase, row.commit) is not None:
            hints.insert(
                0,
                f"a rollback returned to it and it waits to be adjudicated again: referee roll-forward {game.dir.path}",
            )
        else:
            hints.append(
                "after `referee rollback --stay` or an interrupted roll forward, "
                "`referee roll-forward GAMEDIR` adjudicates the open phase again as it was"
            )
        raise StateError(f"turn {turn} '{name}' {what}: there is nothing to roll back", hints=tuple(hints))
    return plan_rollback(game, row, reason)


def plan_rollback(game: Game, row: OpenPhase, reason: str) -> Rollback:
    """Return the rollback to the adjudicated phase `row`, to be told and then executed."""
    later = [p for p in game.dir.phases() if p.seq >= row.seq]
    return Rollback(game.dir.generation() + 1, row, later, reason)


def rollback_plan(plan: Rollback) -> dict[str, Any]:
    """Return a rollback as plain values, for an operation's plan in the journal."""
    return {
        "generation": plan.generation,
        "phase": asdict(plan.phase),
        "superseded": [asdict(p) for p in plan.superseded],
        "reason": plan.reason,
    }


def rollback_from_plan(data: dict[str, Any]) -> Rollback:
    """Return the rollback an operation's plan holds (see rollback_plan)."""
    return Rollback(
        data["generation"],
        phase_from_plan(data["phase"]),
        [phase_from_plan(p) for p in data["superseded"]],
        data["reason"],
    )


def phase_from_plan(data: dict[str, Any]) -> OpenPhase:
    """Return the phase row an operation's plan holds (as dataclasses.asdict gave it)."""
    return OpenPhase(**{**data, "active": tuple(data["active"]), "defaulted": tuple(data["defaulted"])})


def execute_rollback(game: Game, plan: Rollback) -> None:
    """Supersede the phases and open the phase returned to again; done again after a crash, it
    carries on where it stopped. The lock is held by the caller.

    The records withdrawn are first linked into records/superseded/<generation>/, then the journal
    supersedes the phases in one transaction, and only then are the records unlinked from
    records/: at every point each record is in one place or both, the journal names files that
    exist, and `verify` and `audit` read a whole game.
    """
    records = game.dir.records
    kept = records / "superseded" / str(plan.generation)
    executed = game.dir.generation() >= plan.generation
    if not executed:
        for name in plan.records:
            for suffix in ("", ".sig"):
                source, copy = records / (name + suffix), kept / (name + suffix)
                if source.exists() and not copy.exists():
                    kept.mkdir(parents=True, exist_ok=True)
                    os.link(source, copy)
        if kept.exists():
            fsync_dir(kept)
        phase = plan.phase
        with game.dir.transaction():
            game.dir.supersede(phase.seq, plan.generation)
            game.dir.insert_phase(
                phase.seq, phase.turn, phase.phase, phase.commit, phase.state_before, phase.active, plan.generation
            )
            game.dir.set_meta("generation", str(plan.generation))
            game.dir.set_meta("state", phase.state_before)
            game.dir.log(
                "game.rollback",
                {"generation": plan.generation, "reason": plan.reason, "superseded": [p.stem for p in plan.superseded]},
                phase.turn,
                phase.phase,
            )
    # A file in records/ that is the very file kept aside is a withdrawn record; one that is not
    # was written again by the roll forward after the journal committed, and stays.
    removed = False
    for name in plan.records:
        for suffix in ("", ".sig"):
            source, copy = records / (name + suffix), kept / (name + suffix)
            if source.exists() and copy.exists() and os.path.samefile(source, copy):
                source.unlink()
                removed = True
    if removed:
        fsync_dir(records)


def refresh_open_state(game: Game) -> None:
    """Make the open phase start from its state with the state edits now in force (after an
    edit, or the withdrawal of one)."""
    phase = game.dir.open_phase()
    if phase is None:
        return
    raw = game.dir.load_state(phase.state_before)
    while "override" in raw:
        raw = game.dir.load_state(raw["previous"])
    spec = game.module.phase(raw["state"])
    assert spec is not None and (spec.turn, spec.name) == (phase.turn, phase.phase)
    chain = apply_state_edits(game, raw, spec)
    for envelope in chain:
        game.dir.save_state(envelope)
    now = state_hash(chain[-1])
    if now != phase.state_before:
        with game.dir.transaction():
            game.dir.set_state_before(phase.seq, now)
            game.dir.set_meta("state", now)
            game.dir.log("phase.state", {"from": phase.state_before, "to": now}, phase.turn, phase.phase)


def roll_forward(path: Path, operation: str | None = None) -> RollForward:
    """Adjudicate again the open phase and each later one that was adjudicated before a rollback.

    An operation (referee.game.operations) keyed by the game's generation and its overrides: run
    again after it finished, with neither changed since, it raises AlreadyDone."""
    game = Game.open(path)
    with game.dir.lock(guard=False):
        arguments = {"generation": game.dir.generation(), "overrides": len(game.dir.overrides())}
        intent = Intent.of("roll-forward", arguments, [str(path)], operation)
        if operations.begin(game.dir, intent) is None:
            operations.start(game.dir, intent, arguments)
        rolled = roll_forward_locked(game)
        operations.finish(game.dir, intent, roll_forward_text(rolled))
        return rolled


def roll_forward_locked(game: Game) -> RollForward:
    """Roll forward with the game's lock held (see roll_forward)."""
    result = RollForward()
    while True:
        phase = game.dir.open_phase()
        if phase is None:
            result.stopped = "the game is over"
            return result
        before = game.dir.revealed(phase.turn, phase.phase, phase.commit)
        if before is None:
            result.stopped = f"turn {phase.turn} '{phase.phase}' is open for orders"
            return result
        try:
            # Default orders again for those who had them, never for orders that no longer fit.
            result.adjudications.append(adjudicate_phase(game, phase, bool(before.forced), default_unfit=False))
        except UnfitOrdersError as error:
            result.stopped = f"turn {phase.turn} '{phase.phase}' cannot be replayed: {error.message}"
            return result
        except WaitingOnReferee as waiting:
            hold(game, phase, waiting)
            result.stopped = f"{waiting.message} (supply it: `referee missing {game.dir.path}`)"
            return result


def roll_forward_text(forward: RollForward) -> str:
    """Return what a roll forward did, as lines for a terminal."""
    lines = [f"adjudicated again: turn {a.phase.ident} (record {a.record.name})" for a in forward.adjudications]
    return "\n".join([*lines, f"stopped: {forward.stopped}"]) + "\n"


def rollback_text(plan: Rollback, forward: RollForward | None) -> str:
    """Return what a rollback (and its roll forward) did, as lines for a terminal."""
    lines = [
        f"rolled back to turn {plan.phase.ident} (generation {plan.generation}); every player was told",
        f"superseded: {', '.join(plan.records) or 'no record'} (kept in records/superseded/{plan.generation}/)",
    ]
    text = "\n".join(lines) + "\n"
    if forward is None:
        return text + f"turn {plan.phase.ident} is open again: `referee roll-forward` adjudicates it as it was\n"
    return text + roll_forward_text(forward)
