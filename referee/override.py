"""`referee override`: the referee's signed changes to a game, and how adjudication applies them.

An override is data, signed by the referee and kept in the journal: a re-roll (the roll is
drawn again under a new label, so the first stays on record), a result (a roll counts as the
values the referee gives), a corrected order (the executed orders of one player; the file the
player sent stays in the transcript, so no other roll changes), a state edit (one value of
the game's state) or the withdrawal of an earlier override. Overrides belong to a phase and
apply every time that phase is adjudicated: adjudication stays a function of the state
before, the accepted orders, the phase key and the overrides, so a roll forward and the audit
replay them. An override of a phase already adjudicated rolls the game back to it and rolls
forward again.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from referee.api import PhaseSpec
from referee.canonical import canonical_json, sha256_hex
from referee.dice import Dice, DiceSpec, parse_spec
from referee.errors import RefereeError, StateError
from referee.files import atomic_write
from referee.hidden import HiddenDraws
from referee.journal import OpenPhase, OverrideRow
from referee.orders import parse_order_file
from referee.schema import Problem, check
from referee.yamlsafe import StrictYAMLError, load_strict

if TYPE_CHECKING:
    from referee.engine import Game
    from referee.rollback import Rollback, RollForward

KINDS = ("reroll", "result", "order", "state", "withdraw")
BODY_TYPE = "pbem-referee-override/1"  # in every signed body, so it can pass for nothing else the referee signs
REROLL = re.compile(r"^(?P<label>.+)/reroll-(?P<n>[1-9][0-9]*)$")
T = TypeVar("T")


# -- which overrides apply ----------------------------------------------------------------------


def in_force(rows: Sequence[OverrideRow]) -> list[OverrideRow]:
    """Return the overrides among `rows` that apply: not withdrawals, and not withdrawn."""
    withdrawn = {row.body["withdraws"] for row in rows if row.kind == "withdraw"}
    return [row for row in rows if row.kind != "withdraw" and row.id not in withdrawn]


def public_entry(row: OverrideRow, state_from: str | None = None, state_to: str | None = None) -> dict[str, Any]:
    """Return what the public record shows of an override (a state edit's value stays private:
    it may be hidden information; each player's report shows what changed in their own view)."""
    body = row.body
    entry: dict[str, Any] = {"id": row.id, "kind": row.kind, "reason": body["reason"]}
    if row.kind == "reroll":
        entry.update(label=body["label"], new_label=body["new_label"])
    elif row.kind == "result":
        entry.update(label=body["label"], values=body["values"])
    elif row.kind == "order":
        entry.update(player=body["player"], sha256=body["sha256"], replaces=body["replaces"])
    elif row.kind == "state":
        entry.update(path=body["path"], state_from=state_from, state_to=state_to)
    else:
        entry.update(withdraws=body["withdraws"])
    return entry


def describe(entry: dict[str, Any]) -> str:
    """Return one sentence saying what a record's override entry did."""
    kind = entry["kind"]
    if kind == "reroll":
        return f"the roll {entry['label']} was rolled again as {entry['new_label']}; the re-roll counts"
    if kind == "result":
        return f"the roll {entry['label']} counts as {', '.join(map(str, entry['values']))}"
    if kind == "order":
        was = f" (the file sent, SHA-256 {entry['replaces'][:16]}..., stays on record)" if entry["replaces"] else ""
        return (
            f"{entry['player']}'s orders were corrected: the referee's file has SHA-256 {entry['sha256'][:16]}...{was}"
        )
    if kind == "state":
        return f"the value at {entry['path']} in the game's state was changed"
    return f"override #{entry['withdraws']} was withdrawn"


# -- dice ---------------------------------------------------------------------------------------


class OverridingDice(Dice):
    """Dice that apply the referee's re-rolls and results for the phase being adjudicated.

    A re-rolled label is drawn as usual (the record keeps it), then drawn again under each new
    label; the last draw is what the game sees. A result draws the label as usual and gives
    the game the referee's values instead. `applied` lists the overrides that took effect.
    """

    def __init__(self, key: bytes, overrides: Sequence[OverrideRow], hidden: HiddenDraws | None = None) -> None:
        super().__init__(key, hidden)
        self._rerolls: dict[str, list[OverrideRow]] = {}
        self._results: dict[str, OverrideRow] = {}
        for row in overrides:
            if row.kind == "reroll":
                self._rerolls.setdefault(row.body["label"], []).append(row)
            elif row.kind == "result":
                self._results[row.body["label"]] = row
        self.applied: list[OverrideRow] = []
        self.misfits: dict[int, str] = {}  # result overrides whose values did not fit the draw

    def _draw(self, label: str, draw: Callable[[str], T], impose: Callable[[list[int]], T | None]) -> T:
        value = draw(label)
        for row in self._rerolls.get(label, []):
            value = draw(row.body["new_label"])
            self.applied.append(row)
        result = self._results.get(label)
        if result is not None:
            imposed = impose(result.body["values"])
            if imposed is None:
                self.misfits[result.id] = f"the values {result.body['values']} do not fit this draw"
            else:
                value = imposed
                self.applied.append(result)
        return value

    def roll(self, spec: str | DiceSpec, *, label: str) -> list[int]:
        """Roll as Dice does, applying the referee's overrides of this label."""
        parsed = spec if isinstance(spec, DiceSpec) else parse_spec(spec)
        low = 0 if parsed.zero_based else 1
        high = parsed.sides - 1 if parsed.zero_based else parsed.sides

        def impose(values: list[int]) -> list[int] | None:
            fits = len(values) == parsed.count and all(low <= v <= high for v in values)
            return list(values) if fits else None

        return self._draw(label, lambda name: Dice.roll(self, parsed, label=name), impose)

    def uniform(self, n: int, *, label: str) -> int:
        """Draw as Dice does, applying the referee's overrides of this label."""

        def impose(values: list[int]) -> int | None:
            return values[0] if len(values) == 1 and 0 <= values[0] < n else None

        return self._draw(label, lambda name: Dice.uniform(self, n, label=name), impose)

    def shuffle(self, items: Sequence[T], *, label: str) -> list[T]:
        """Shuffle as Dice does, applying the referee's overrides of this label."""

        def impose(values: list[int]) -> list[T] | None:
            return [items[i] for i in values] if sorted(values) == list(range(len(items))) else None

        return self._draw(label, lambda name: Dice.shuffle(self, items, label=name), impose)


def values_problem(record_spec: str, count: int, values: Sequence[int]) -> str | None:
    """Return why `values` cannot stand for a recorded roll (spec as the record writes it), or None."""
    if match := re.fullmatch(r"([0-9]+)d([0-9]+)", record_spec):
        wanted, low, high = int(match[1]), 1, int(match[2])
    elif match := re.fullmatch(r"uniform\(([0-9]+)\)", record_spec):
        wanted, low, high = count, 0, int(match[1]) - 1
    elif match := re.fullmatch(r"shuffle\(([0-9]+)\)", record_spec):
        if sorted(values) != list(range(int(match[1]))):
            return f"a shuffle of {match[1]} needs each of 0..{int(match[1]) - 1} once"
        return None
    else:
        return f"cannot read the roll spec {record_spec!r}"
    if len(values) != wanted:
        return f"{record_spec} holds {wanted} value(s), not {len(values)}"
    if not all(low <= v <= high for v in values):
        return f"each value of {record_spec} is between {low} and {high}"
    return None


# -- state edits --------------------------------------------------------------------------------


def parse_pointer(path: str) -> list[str]:
    """Return the parts of a JSON pointer (RFC 6901) such as `/units/3/strength`."""
    if not path.startswith("/") or path == "/":
        raise RefereeError(
            f"{path!r} is not a path into the game's state",
            hints=("write it as a JSON pointer: /last_rolls/0/result (keys and list positions, from the top)",),
        )
    return [part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/")]


def edit_state(state: Any, path: str, value: Any) -> tuple[Any, Any]:
    """Return a copy of `state` with the value at `path` set, and the value it replaces (None when
    the path names a new key of an existing mapping)."""
    parts = parse_pointer(path)
    edited = copy.deepcopy(state)
    node = edited
    for depth, part in enumerate(parts):
        where = "/" + "/".join(parts[: depth + 1])
        last = depth == len(parts) - 1
        if isinstance(node, dict):
            if last:
                old = node.get(part)
                node[part] = value
                return edited, old
            if part not in node:
                raise RefereeError(f"the game's state has nothing at {where}")
            node = node[part]
        elif isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise RefereeError(f"{where}: the list there has {len(node)} item(s); give a position from 0")
            if last:
                old = node[int(part)]
                node[int(part)] = value
                return edited, old
            node = node[int(part)]
        else:
            raise RefereeError(f"{where}: the value above it is not a mapping or a list")
    raise AssertionError("unreachable")


def state_edit_envelope(envelope: dict[str, Any], row: OverrideRow) -> dict[str, Any]:
    """Return the envelope that a state edit makes of `envelope`: it names the edit and, as
    `previous`, the state it was made from, so the chain of states stays whole."""
    state, _ = edit_state(envelope["state"], row.body["path"], row.body["value"])
    previous = sha256_hex(canonical_json(envelope))
    return {**envelope, "state": state, "previous": previous, "override": row.id}


def apply_state_edits(game: Game, raw: dict[str, Any], spec: PhaseSpec) -> list[dict[str, Any]]:
    """Return the envelopes from `raw` (first) through each state edit in force for the phase
    `spec` opens; raise StateError when an edit no longer applies or would change the phase."""
    chain = [raw]
    for row in in_force(game.dir.overrides(spec.turn, spec.name)):
        if row.kind != "state":
            continue
        try:
            chain.append(state_edit_envelope(chain[-1], row))
        except RefereeError as error:
            raise StateError(
                f"override #{row.id} (turn {spec.turn} '{spec.name}') no longer applies: {error.message}",
                hints=(f"withdraw it: referee override GAMEDIR withdraw {row.id} --reason ...",),
            ) from None
        _same_phase(game, spec, chain[-1]["state"], row.id)
    return chain


def _same_phase(game: Game, spec: PhaseSpec, state: Any, override: int | None) -> None:
    edited = game.module.phase(state)
    if edited is None or (edited.turn, edited.name, tuple(edited.active)) != (spec.turn, spec.name, spec.active):
        became = f"turn {edited.turn} '{edited.name}' for {', '.join(edited.active)}" if edited else "the end"
        what = f"override #{override}" if override is not None else "this edit"
        raise StateError(
            f"{what} would change which phase is open (turn {spec.turn} '{spec.name}' for "
            f"{', '.join(spec.active)} would become {became})",
            hints=("a state edit may change the game, not which phase is open or who gives orders in it",),
        )


def state_edits_of(game: Game, state_before: str) -> list[tuple[dict[str, Any], dict[str, Any], int]]:
    """Return (envelope before, envelope after, override id) for each state edit that made
    `state_before`, oldest first, by walking the chain of states back."""
    edits = []
    digest = state_before
    envelope = game.dir.load_state(digest)
    while "override" in envelope:
        before = game.dir.load_state(envelope["previous"])
        edits.append((before, envelope, envelope["override"]))
        envelope = before
    return list(reversed(edits))


def view_changes(before: Any, after: Any, where: str = "", limit: int = 20) -> list[str]:
    """Return lines `where: old -> new` for each leaf that differs between two views."""
    if isinstance(before, dict) and isinstance(after, dict):
        lines = []
        for key in sorted(set(before) | set(after), key=str):
            lines += view_changes(before.get(key), after.get(key), f"{where}.{key}" if where else str(key), limit)
        return lines[:limit]
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        lines = []
        for index, (a, b) in enumerate(zip(before, after)):
            lines += view_changes(a, b, f"{where}[{index}]", limit)
        return lines[:limit]
    if before == after:
        return []
    return [f"{where or '(the whole view)'}: {_shown(before)} -> {_shown(after)}"]


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)[:200]


# -- orders -------------------------------------------------------------------------------------


def order_problems(game: Game, state: Any, spec: PhaseSpec, player: str, orders: Any) -> list[Problem]:
    """Return why `orders` cannot be executed for `player` in the phase `spec` from `state`."""
    return check(orders, spec.schema) or game.module.validate(state, player, orders)


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
) -> OverrideResult:
    """Sign and record an override; roll back and forward when it concerns an adjudicated phase."""
    from referee.engine import Game

    if kind not in KINDS:
        raise RefereeError(f"there is no override '{kind}'", hints=(f"overrides: {', '.join(KINDS)}",))
    reason = " ".join(reason.split())
    if not reason:
        raise RefereeError("an override needs a reason", hints=("say why, with --reason: every player reads it",))
    game = Game.open(path)
    with game.dir.lock():
        body, where = _prepare(game, kind, target, values, phase, order_bytes)
        return _apply(game, body, where, reason, order_bytes)


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
        _same_phase(game, spec, edited, None)
        return {"kind": kind, "path": target, "value": value}, where
    return _prepare_withdraw(game, target)


def _phase_target(game: Game, phase: str | None) -> _Target:
    """Return the open phase, or the adjudicated phase `phase` (TURN/PHASE) of the game's line."""
    from referee.engine import parse_expect

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


def _apply(
    game: Game, prepared: dict[str, Any], where: _Target, reason: str, order_bytes: bytes | None
) -> OverrideResult:
    """Tell the players, roll back if needed, store the signed override, roll forward."""
    from referee.letters import post_change
    from referee.rollback import execute_rollback, plan_rollback, refresh_open_state, roll_forward_locked

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
        name = (
            f"corrections/t{where.turn}-{where.phase}/{body['player']}-override{identifier}-{body['sha256'][:12]}.yaml"
        )
        atomic_write(game.dir.orders / name, order_bytes)
        atomic_write(game.dir.orders / (name + ".sig"), game.sign(order_bytes).encode())
        body["file"] = name
    row = OverrideRow(identifier, where.turn, where.phase, body["kind"], body, game.sign(canonical_json(body)))
    unfit = _unfit_after_edit(game, row, where)
    plan = plan_rollback(game, where.closed, f"override #{identifier}: {reason}") if where.closed else None
    # Players are told first: a crash later leaves a letter about a change the re-run makes.
    letters = post_change(game, f"override-{identifier}", plan, [row], unfit)
    if plan is not None:
        execute_rollback(game, plan)
    with game.dir.transaction():
        game.dir.insert_override(row)
        game.dir.log("override", {"id": identifier, "kind": row.kind, "reason": reason}, where.turn, where.phase)
    refresh_open_state(game)
    forward = roll_forward_locked(game) if plan is not None else None
    return OverrideResult(row, f"{where.turn}/{where.phase}", plan, forward, letters, unfit)


def _unfit_after_edit(game: Game, row: OverrideRow, where: _Target) -> dict[str, list[Problem]]:
    """Return, per player, why their standing orders no longer fit the state a state edit makes
    of a phase that takes orders (a replayed phase does not: the roll forward says what to do)."""
    phase = game.dir.open_phase()
    if row.kind != "state" or where.closed is not None or phase is None:
        return {}
    if game.dir.revealed(phase.turn, phase.phase, phase.commit) is not None:
        return {}
    envelope = game.dir.load_state(where.state_before)
    edited = state_edit_envelope(envelope, row)["state"]
    spec = game.module.phase(edited)
    if spec is None:
        return {}
    unfit = {}
    for player, order in sorted(game.dir.standing_orders(phase).items()):
        orders = parse_order_file((game.dir.orders / order.file).read_bytes()).orders
        problems = order_problems(game, edited, spec, player, orders)
        if problems:
            unfit[player] = problems
    return unfit


def override_text(result: OverrideResult) -> str:
    """Return what `referee override` did, as lines for a terminal."""
    from referee.rollback import roll_forward_text

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
    if row.kind in ("state", "withdraw"):
        return text + "the open phase now starts from the state as changed; its record and reports will show it\n"
    return text + "it applies when the phase is adjudicated; its record and reports will show it\n"
