"""The referee's overrides as data, and how adjudication applies them (see `referee.game.override`
for the command that makes them).

An override is data, signed by the referee and kept in the journal: a re-roll (the roll is
drawn again under a new label, so the first stays on record), a result (a roll counts as the
values the referee gives), a corrected order (the executed orders of one player; the file the
player sent stays in the transcript, so no other roll changes), a state edit (one value of
the game's state) or the withdrawal of an earlier override. Overrides belong to a phase and
apply every time that phase is adjudicated: adjudication stays a function of the state
before, the accepted orders, the phase key and the overrides, so a roll forward and the audit
replay them.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from referee.errors import RefereeError, StateError
from referee.game.journal import OverrideRow
from referee.game.opened import Game
from referee.kit.contract import GameModule, PhaseSpec
from referee.kit.schema import check
from referee.protocol.canonical import canonical_json, sha256_hex
from referee.protocol.dice import DiceSpec, parse_spec
from referee.protocol.draws import Dice
from referee.protocol.hidden import HiddenDraws
from referee.protocol.problems import Problem

KINDS = ("reroll", "result", "order", "state", "supply", "withdraw")
# Overrides that make a new state for the phase to start from (a link in the chain of states).
STATE_KINDS = ("state", "supply")
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
    elif row.kind == "supply":
        # Rules data from the referee's copy of the book, not a secret: the record carries it.
        entry.update(need=body["need"], sha256=body["sha256"], data=body["data"])
        entry.update(state_from=state_from, state_to=state_to)
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
    if kind == "supply":
        return f"the referee supplied '{entry['need']}' (data SHA-256 {entry['sha256'][:16]}...)"
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
        if label not in self._rerolls and label not in self._results:  # the common case: no override
            return Dice.roll(self, spec, label=label)
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


def supplied_state(module: GameModule, state: Any, need: str, data: Any) -> Any:
    """Return the state the game module makes of `state` with the referee's `data` for `need`;
    raise RefereeError naming every problem when the module refuses it."""
    supplies = module.supplies
    if supplies is None or need not in supplies.by_id:
        raise RefereeError(f"game module {module.id} declares no need '{need}'")
    new, problems = supplies.supply(copy.deepcopy(state), need, copy.deepcopy(data))
    if problems:
        listed = "; ".join(f"{p.path}: {p.message}" for p in problems)
        raise RefereeError(f"game module {module.id} refuses the data for '{need}': {listed}")
    return new


def state_edit_envelope(envelope: dict[str, Any], row: OverrideRow, module: GameModule | None = None) -> dict[str, Any]:
    """Return the envelope that a state edit (or a supply, given the game `module`) makes of
    `envelope`: it names the edit and, as `previous`, the state it was made from, so the chain
    of states stays whole."""
    if row.kind == "supply":
        assert module is not None, "a supply is applied by its game module"
        state = supplied_state(module, envelope["state"], row.body["need"], row.body["data"])
    else:
        state, _ = edit_state(envelope["state"], row.body["path"], row.body["value"])
    previous = sha256_hex(canonical_json(envelope))
    return {**envelope, "state": state, "previous": previous, "override": row.id}


def apply_state_edits(game: Game, raw: dict[str, Any], spec: PhaseSpec) -> list[dict[str, Any]]:
    """Return the envelopes from `raw` (first) through each state edit in force for the phase
    `spec` opens; raise StateError when an edit no longer applies or would change the phase."""
    chain = [raw]
    for row in in_force(game.dir.overrides(spec.turn, spec.name)):
        if row.kind not in STATE_KINDS:
            continue
        try:
            chain.append(state_edit_envelope(chain[-1], row, game.module))
        except RefereeError as error:
            raise StateError(
                f"override #{row.id} (turn {spec.turn} '{spec.name}') no longer applies: {error.message}",
                hints=(f"withdraw it: referee override GAMEDIR withdraw {row.id} --reason ...",),
            ) from None
        check_same_phase(game, spec, chain[-1]["state"], row.id)
    return chain


def check_same_phase(game: Game, spec: PhaseSpec, state: Any, override: int | None) -> None:
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
