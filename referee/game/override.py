"""`referee override`: the referee's signed changes to a game, told to every player and applied;
an override of a phase already adjudicated rolls the game back to it and rolls forward again.

What overrides are and how adjudication applies them is `referee.game.overrides`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import RefereeError, StateError
from referee.files import atomic_write
from referee.game import operations
from referee.game.announce import post_change
from referee.game.journal import OpenPhase, OverrideRow
from referee.game.opened import Game, parse_expect
from referee.game.operations import Intent
from referee.game.order_files import read_order_file
from referee.game.overrides import (
    BODY_TYPE,
    KINDS,
    STATE_KINDS,
    check_same_phase,
    describe,
    edit_state,
    in_force,
    order_problems,
    public_entry,
    state_edit_envelope,
    supplied_state,
    values_problem,
)
from referee.game.results import Rollback, RollForward
from referee.game.rollback import (
    execute_rollback,
    phase_from_plan,
    plan_rollback,
    refresh_open_state,
    roll_forward_locked,
    roll_forward_text,
    rollback_from_plan,
    rollback_plan,
)
from referee.game.supplies import SupplyRefusedError, module_problems, read_supply_file
from referee.protocol.canonical import canonical_json, sha256_hex
from referee.protocol.orders import parse_order_file
from referee.protocol.problems import Problem
from referee.protocol.yamlsafe import StrictYAMLError, load_strict

# -- the command --------------------------------------------------------------------------------


@dataclass
class OverrideResult:
    """What `referee override` did."""

    override: OverrideRow
    phase: str  # TURN/PHASE it applies to
    rollback: Rollback | None
    forward: RollForward | None
    letters: list[Path] = field(default_factory=list)
    unfit: dict[str, list[Problem]] = field(default_factory=dict)


@dataclass
class _Target:
    turn: int
    phase: str
    closed: OpenPhase | None  # the phase's row when it was adjudicated: the game goes back to it
    state_before: str  # the state the override is checked against


def make_override(
    path: Path,
    kind: str,
    target: str,
    values: Sequence[str],
    reason: str,
    phase: str | None = None,
    order_bytes: bytes | None = None,
    operation: str | None = None,
    order_file: str | None = None,
) -> OverrideResult:
    """Sign and record an override; roll back and forward when it concerns an adjudicated phase.

    An operation (referee.game.operations): run again after a crash, it finishes the override
    it started (the same number, body and letters); run again after it finished, it raises
    AlreadyDone. `order_file` names the corrected file in the command line that finishes it.
    """
    if kind not in KINDS or kind == "supply":
        hint = "overrides: " + ", ".join(k for k in KINDS if k != "supply")
        hints = (hint, "data the rulebook leaves out is supplied with `referee supply GAMEDIR FILE`")
        raise RefereeError(f"there is no override '{kind}'", hints=hints if kind == "supply" else hints[:1])
    reason = _reason(reason)
    arguments: dict[str, Any] = {"kind": kind, "target": target, "values": list(values), "phase": phase}
    if order_bytes is not None:
        arguments["order_sha256"] = sha256_hex(order_bytes)
    shown = [order_file or "ORDERFILE"] if kind == "order" else list(values)
    rerun = [str(path), kind, target, *shown, "--reason", reason, *(["--phase", phase] if phase else [])]
    intent = Intent.of("override", {**arguments, "reason": reason}, rerun, operation)
    return _carry_out(
        path, intent, reason, lambda game: _prepare(game, kind, target, values, phase, order_bytes), order_bytes
    )


def make_supply(path: Path, raw: bytes, reason: str, file_name: str, operation: str | None = None) -> OverrideResult:
    """Supply data the rulebook leaves out (a supply file, `referee.game.supplies`) to the open
    phase: checked against the need's shape and by the game module, then signed and recorded
    as an override of kind `supply`. Every problem is raised at once, and then nothing changes.

    An operation like `make_override`: run again after a crash, it finishes the supply it started.
    """
    reason = _reason(reason)
    intent = Intent.of(
        "supply", {"sha256": sha256_hex(raw), "reason": reason}, [str(path), file_name, "--reason", reason], operation
    )
    return _carry_out(path, intent, reason, lambda game: _prepare_supply(game, raw, file_name), None)


def _reason(reason: str) -> str:
    reason = " ".join(reason.split())
    if not reason:
        raise RefereeError("an override needs a reason", hints=("say why, with --reason: every player reads it",))
    return reason


def _carry_out(
    path: Path,
    intent: Intent,
    reason: str,
    prepare: Callable[[Game], tuple[dict[str, Any], _Target]],
    order_bytes: bytes | None,
) -> OverrideResult:
    game = Game.open(path)
    with game.dir.lock(guard=False):
        resumed = operations.begin(game.dir, intent)
        if resumed is not None:
            decided = _Decided.from_plan(resumed.plan)
        else:
            body, where = prepare(game)
            decided = _decide(game, body, where, reason, order_bytes)
            operations.start(game.dir, intent, decided.plan())
        result = _apply(game, decided, order_bytes)
        operations.finish(game.dir, intent, override_text(result))
        return result


def _prepare_supply(game: Game, raw: bytes, file_name: str) -> tuple[dict[str, Any], _Target]:
    """Return a supply's body for the open phase, refusing (SupplyRefusedError) a file with any problem."""
    if game.dir.open_phase() is None:
        raise StateError("the game is over: there is no phase left to supply data to")
    need, data = read_supply_file(game.module, game.config.game, raw, file_name)
    where = _phase_target(game, None)
    state = game.dir.load_state(where.state_before)["state"]
    problems = module_problems(game.module, state, need, data)
    if problems:
        raise SupplyRefusedError(f"{file_name} was refused by game module {game.module.id}: nothing changed", problems)
    edited = supplied_state(game.module, state, need.id, data)
    spec = game.module.phase(state)
    assert spec is not None
    check_same_phase(game, spec, edited, None)
    return {"kind": "supply", "need": need.id, "sha256": sha256_hex(canonical_json(data)), "data": data}, where


def _prepare(
    game: Game, kind: str, target: str, values: Sequence[str], phase: str | None, order_bytes: bytes | None
) -> tuple[dict[str, Any], _Target]:
    """Return the override's body (without id, signature and reason) and the phase it concerns,
    refusing anything that could not apply, before anything changes."""
    if kind in ("reroll", "result"):
        where, roll = _find_roll(game, target, phase)
        base = _base_label(game, where, target)
        if kind == "reroll":
            made = sum(1 for row in game.dir.overrides(where.turn, where.phase) if row.kind == "reroll")
            return {"kind": kind, "label": base, "new_label": f"{base}/reroll-{made + 1}"}, where
        try:
            numbers = [int(value) for value in values]
        except ValueError:
            raise RefereeError(f"the values of a result are whole numbers, not {' '.join(values)!r}") from None
        problem = values_problem(roll["spec"], len(roll["values"]), numbers) if numbers else "give the values"
        if problem:
            raise RefereeError(f"{target} ({roll['spec']}) cannot count as {numbers}: {problem}")
        return {"kind": kind, "label": base, "values": numbers}, where
    if kind == "order":
        return _prepare_order(game, target, values, order_bytes)
    if kind == "state":
        if len(values) != 1:
            raise RefereeError("a state edit takes a PATH and one VALUE (YAML: 3, holds, '[1, 2]', '{a: 1}')")
        try:
            value = load_strict(values[0]) if values[0].strip() else ""
        except StrictYAMLError as error:
            raise RefereeError(f"the value {values[0]!r} is not YAML: {error}") from None
        where = _phase_target(game, phase)
        envelope = game.dir.load_state(where.state_before)
        edited, _ = edit_state(envelope["state"], target, value)
        canonical_json(edited)
        spec = game.module.phase(envelope["state"])
        assert spec is not None
        check_same_phase(game, spec, edited, None)
        return {"kind": kind, "path": target, "value": value}, where
    return _prepare_withdraw(game, target)


def _phase_target(game: Game, phase: str | None) -> _Target:
    """Return the open phase, or the adjudicated phase `phase` (TURN/PHASE) of the game's line."""
    open_phase = game.dir.open_phase()
    if phase is None:
        if open_phase is None:
            raise StateError("the game is over: name the phase to change with --phase TURN/PHASE")
        return _Target(open_phase.turn, open_phase.phase, None, open_phase.state_before)
    turn, name = parse_expect(phase)
    for row in game.dir.phases():
        if (row.turn, row.phase) == (turn, name):
            return _Target(turn, name, row if row.record else None, row.state_before)
    known = ", ".join(row.ident for row in game.dir.phases())
    raise StateError(f"turn {turn} '{name}' is not a phase of this game", hints=(f"phases: {known}",))


def _find_roll(game: Game, label: str, phase: str | None) -> tuple[_Target, dict[str, Any]]:
    """Return the phase of the roll `label` and the roll as its latest record shows it: a record
    of the game's line, or the superseded record of the open phase after a rollback."""
    found: list[tuple[_Target, dict[str, Any]]] = []
    rows = game.dir.phases()
    for row in rows:
        if row.record is None or (phase is not None and row.ident != phase):
            continue
        record = json.loads((game.dir.records / row.record).read_bytes())
        found += [
            (_Target(row.turn, row.phase, row, row.state_before), r) for r in record["rolls"] if r["label"] == label
        ]
    open_phase = game.dir.open_phase()
    if open_phase is not None and (phase is None or open_phase.ident == phase):
        revealed = game.dir.revealed(open_phase.turn, open_phase.phase, open_phase.commit)
        if revealed is not None and revealed.record is not None:
            record = json.loads(superseded_record(game, open_phase, revealed).read_bytes())
            found += [
                (_Target(open_phase.turn, open_phase.phase, None, open_phase.state_before), r)
                for r in record["rolls"]
                if r["label"] == label
            ]
    if not found:
        where = f" in turn {phase}" if phase else ""
        raise RefereeError(
            f"no roll labelled '{label}'{where} in the game's records",
            hints=("re-rolls and results replace rolls already made; the labels are in each report's Dice section",),
        )
    if len(found) > 1:
        phases = ", ".join(f"{t.turn}/{t.phase}" for t, _ in found)
        raise RefereeError(
            f"the label '{label}' was rolled in several phases: {phases}", hints=("name one with --phase",)
        )
    return found[0]


def superseded_record(game: Game, phase: OpenPhase, revealed: OpenPhase) -> Path:
    """Return the path of the superseded record of `phase` (the adjudication `revealed`)."""
    for generation, row in game.dir.superseded_phases(phase.turn, phase.phase):
        if row == revealed:
            return game.dir.records / "superseded" / str(generation) / str(row.record)
    raise StateError(f"the superseded record of turn {phase.ident} is not on record")


def _base_label(game: Game, where: _Target, label: str) -> str:
    """Return the label a re-roll replaces: a re-roll of a re-roll is another re-roll of the first."""
    for row in game.dir.overrides(where.turn, where.phase):
        if row.kind == "reroll" and row.body["new_label"] == label:
            return str(row.body["label"])
    return label


def _prepare_order(
    game: Game, player: str, values: Sequence[str], order_bytes: bytes | None
) -> tuple[dict[str, Any], _Target]:
    if order_bytes is None or values:
        raise RefereeError("an order correction takes a PLAYER and the corrected ORDERFILE")
    if game.config.player(player) is None:
        players = ", ".join(p.name for p in game.config.players)
        raise RefereeError(
            f"there is no player '{player}' in game '{game.config.game}'", hints=(f"players: {players}",)
        )
    order = parse_order_file(order_bytes)
    if order.game != game.config.game or order.player != player:
        raise RefereeError(
            f"the corrected file is for player '{order.player}' of game '{order.game}', "
            f"not for '{player}' of '{game.config.game}'"
        )
    where = _phase_target(game, f"{order.turn}/{order.phase}")
    envelope = game.dir.load_state(where.state_before)
    spec = game.module.phase(envelope["state"])
    assert spec is not None
    if player not in spec.active:
        raise RefereeError(f"player '{player}' gives no orders in turn {order.turn} '{order.phase}'")
    problems = order_problems(game, envelope["state"], spec, player, order.orders)
    if problems:
        listed = "; ".join(f"{p.path}: {p.message}" for p in problems)
        raise RefereeError(f"the corrected orders do not fit turn {order.turn} '{order.phase}': {listed}")
    phase_row = next(row for row in game.dir.phases() if (row.turn, row.phase) == (where.turn, where.phase))
    standing = game.dir.standing_orders(phase_row).get(player)
    return {
        "kind": "order",
        "player": player,
        "sha256": order.sha256,
        "replaces": standing.sha256 if standing else None,
    }, where


def _prepare_withdraw(game: Game, target: str) -> tuple[dict[str, Any], _Target]:
    rows = {row.id: row for row in game.dir.overrides()}
    if not target.isdigit() or int(target) not in rows:
        raise RefereeError(f"there is no override #{target}", hints=("overrides are numbered from 1, in order made",))
    row = rows[int(target)]
    if row.kind == "withdraw" or row not in in_force(list(rows.values())):
        raise RefereeError(f"override #{row.id} is not in force: there is nothing to withdraw")
    where = _phase_target(game, None if _is_open(game, row) else f"{row.turn}/{row.phase}")
    return {"kind": "withdraw", "withdraws": row.id}, where


def _is_open(game: Game, row: OverrideRow) -> bool:
    phase = game.dir.open_phase()
    return phase is not None and (phase.turn, phase.phase) == (row.turn, row.phase)


@dataclass
class _Decided:
    """What an override decided before writing anything: kept as its operation's plan, so that a
    re-run after a crash does the same whatever the first run had changed."""

    row: OverrideRow
    where: _Target
    rollback: Rollback | None
    unfit: dict[str, list[Problem]]

    def plan(self) -> dict[str, Any]:
        row, where = self.row, self.where
        return {
            "override": {
                "id": row.id,
                "turn": row.turn,
                "phase": row.phase,
                "kind": row.kind,
                "body": row.body,
                "signature": row.signature,
            },
            "where": {
                "turn": where.turn,
                "phase": where.phase,
                "state_before": where.state_before,
                "closed": asdict(where.closed) if where.closed else None,
            },
            "rollback": rollback_plan(self.rollback) if self.rollback else None,
            "unfit": {player: [asdict(p) for p in problems] for player, problems in self.unfit.items()},
        }

    @classmethod
    def from_plan(cls, plan: dict[str, Any]) -> _Decided:
        o, w = plan["override"], plan["where"]
        closed = phase_from_plan(w["closed"]) if w["closed"] else None
        return cls(
            OverrideRow(o["id"], o["turn"], o["phase"], o["kind"], o["body"], o["signature"]),
            _Target(w["turn"], w["phase"], closed, w["state_before"]),
            rollback_from_plan(plan["rollback"]) if plan["rollback"] else None,
            {player: [Problem(**p) for p in problems] for player, problems in plan["unfit"].items()},
        )


def _decide(game: Game, prepared: dict[str, Any], where: _Target, reason: str, order_bytes: bytes | None) -> _Decided:
    """Number and sign the override, and plan the rollback it needs; nothing is written."""
    identifier = game.dir.next_override_id()
    body = {
        "type": BODY_TYPE,
        "game": game.config.game,
        "id": identifier,
        "turn": where.turn,
        "phase": where.phase,
        **prepared,
        "reason": reason,
    }
    if body["kind"] == "order":
        assert order_bytes is not None
        body["file"] = (
            f"corrections/t{where.turn}-{where.phase}/{body['player']}-override{identifier}-{body['sha256'][:12]}.yaml"
        )
    row = OverrideRow(identifier, where.turn, where.phase, body["kind"], body, game.sign(canonical_json(body)))
    unfit = _unfit_after_edit(game, row, where)
    plan = plan_rollback(game, where.closed, f"override #{identifier}: {reason}") if where.closed else None
    return _Decided(row, where, plan, unfit)


def _apply(game: Game, decided: _Decided, order_bytes: bytes | None) -> OverrideResult:
    """Tell the players, roll back if needed, store the signed override, roll forward. Each step
    done already by an interrupted run is done again to the same effect, or skipped."""
    row, where, plan, unfit = decided.row, decided.where, decided.rollback, decided.unfit
    if row.kind == "order":
        assert order_bytes is not None
        name = row.body["file"]
        atomic_write(game.dir.orders / name, order_bytes)
        atomic_write(game.dir.orders / (name + ".sig"), game.sign(order_bytes).encode())
    # Players are told first: a crash later leaves a letter about a change the re-run makes.
    letters = post_change(game, f"override-{row.id}", plan, [row], unfit)
    if plan is not None:
        execute_rollback(game, plan)
    if all(made.id != row.id for made in game.dir.overrides()):
        with game.dir.transaction():
            game.dir.insert_override(row)
            game.dir.log(
                "override", {"id": row.id, "kind": row.kind, "reason": row.body["reason"]}, where.turn, where.phase
            )
    refresh_open_state(game)
    forward = roll_forward_locked(game) if plan is not None else None
    return OverrideResult(row, f"{where.turn}/{where.phase}", plan, forward, letters, unfit)


def _unfit_after_edit(game: Game, row: OverrideRow, where: _Target) -> dict[str, list[Problem]]:
    """Return, per player, why their standing orders no longer fit the state a state edit makes
    of a phase that takes orders (a replayed phase does not: the roll forward says what to do)."""
    phase = game.dir.open_phase()
    if row.kind not in STATE_KINDS or where.closed is not None or phase is None:
        return {}
    if game.dir.revealed(phase.turn, phase.phase, phase.commit) is not None:
        return {}
    envelope = game.dir.load_state(where.state_before)
    edited = state_edit_envelope(envelope, row, game.module)["state"]
    spec = game.module.phase(edited)
    if spec is None:
        return {}
    unfit = {}
    for player, order in sorted(game.dir.standing_orders(phase).items()):
        orders = parse_order_file(read_order_file(game.dir, order.file)).orders
        problems = order_problems(game, edited, spec, player, orders)
        if problems:
            unfit[player] = problems
    return unfit


def override_text(result: OverrideResult) -> str:
    """Return what `referee override` did, as lines for a terminal."""
    row = result.override
    entry = public_entry(row)
    lines = [
        f"override #{row.id} ({row.kind}) of turn {result.phase}, signed: {describe(entry)}",
        f"reason: {row.body['reason']}",
        f"every player was told ({len(result.letters)} letter(s) in mail/changes/)",
    ]
    lines += [f"{player}'s orders no longer fit: they were told to send new ones" for player in result.unfit]
    if result.rollback is not None:
        lines.append(f"the game was rolled back to turn {result.phase} (generation {result.rollback.generation})")
    text = "\n".join(lines) + "\n"
    if result.forward is not None:
        return text + roll_forward_text(result.forward)
    if row.kind in ("state", "supply", "withdraw"):
        return text + "the open phase now starts from the state as changed; its record and reports will show it\n"
    return text + "it applies when the phase is adjudicated; its record and reports will show it\n"
