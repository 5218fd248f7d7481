"""Adjudication of one phase, and the opening of the next: the computation that `adjudicate`,
the roll forward after a rollback and the audit share, so that a replay runs the very code
the original did.

`phase_outcome` is a function of the state before, the orders on record, the phase key and
the referee's overrides; it writes nothing. `adjudicate_phase` writes what it computed (the
record, the reports, the next phase) with the game's lock held by the caller.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee import PROTOCOL, PROTOCOL_WITH_HIDDEN, PROTOCOL_WITH_OVERRIDES
from referee.api import Event, PhaseSpec
from referee.canonical import canonical_json, pretty_json, sha256_hex
from referee.dice import commitment, phase_key, transcript
from referee.errors import StateError
from referee.files import atomic_write
from referee.hidden import HiddenDraws, game_commitment, hidden_key
from referee.journal import OpenPhase
from referee.orders import parse_order_file
from referee.schema import Problem

if TYPE_CHECKING:
    from referee.engine import Game


@dataclass
class Adjudication:
    """The outcome of adjudicating a phase."""

    phase: OpenPhase
    record: Path
    events: list[Event]
    rolls: int
    defaulted: list[str]
    next_phase: str | None
    reports: list[Path]


def wrap_state(game: Game, state: Any, spec: PhaseSpec | None, previous: str | None) -> dict[str, Any]:
    """Wrap a module's state with what the core keeps: the phase it opens and the hash of the
    state before it, so that the snapshots form a hash chain of their own."""
    envelope = {
        "game": game.config.game,
        "module": game.module.id,
        "module_version": game.module.version,
        "turn": spec.turn if spec else None,
        "phase": spec.name if spec else None,
        "over": spec is None,
        "previous": previous,
        "state": state,
    }
    canonical_json(envelope)  # a module returning non-JSON data fails here, before anything is stored
    return envelope


def state_hash(envelope: dict[str, Any]) -> str:
    """Return the hash that names a state envelope (its file in states/)."""
    return sha256_hex(canonical_json(envelope))


@dataclass
class Opening:
    """The phase about to open: its states (from the one adjudication or set-up left, through
    each of the referee's state edits for it), its spec and its commitment."""

    chain: list[dict[str, Any]]
    spec: PhaseSpec | None
    commit: str | None
    replay: bool = False  # its seed was revealed before a rollback: replayed, no notice

    @property
    def envelope(self) -> dict[str, Any]:
        """The state the phase opens with."""
        return self.chain[-1]


def prepare_opening(game: Game, raw: dict[str, Any], read_only: bool = False) -> Opening:
    """Return how the phase that follows the state `raw` opens.

    Its seed is drawn once and kept (see `GameDir.seed_for`). When a rollback superseded an
    adjudication of this phase under this seed, the seed is public: the phase is replayed if
    its orders on record still fit, and otherwise gets a fresh seed, since players knowing the
    seed could otherwise choose orders to suit the dice. `read_only` (the audit) draws nothing.
    """
    from referee.override import apply_state_edits

    spec = game.module.phase(raw["state"])
    if spec is None:
        return Opening([raw], None, None)
    chain = apply_state_edits(game, raw, spec)
    if read_only:
        seed = game.dir.seed_of(spec.turn, spec.name)
        return Opening(chain, spec, commitment(seed) if seed else None)
    seed = game.dir.seed_for(spec.turn, spec.name)
    before = game.dir.revealed(spec.turn, spec.name, commitment(seed))
    replay = before is not None and _replayable(game, spec, chain[-1], before)
    if before is not None and not replay:
        seed = game.dir.replace_seed(spec.turn, spec.name, "its seed was revealed and its orders must be sent again")
    return Opening(chain, spec, commitment(seed), replay)


def _replayable(game: Game, spec: PhaseSpec, envelope: dict[str, Any], before: OpenPhase) -> bool:
    """Return whether a phase can be adjudicated again as it was: same players, each with
    orders that still fit, or defaulted as they were."""
    if tuple(spec.active) != before.active:
        return False
    row = OpenPhase(0, spec.turn, spec.name, before.commit, state_hash(envelope), "", spec.active, None, None, None)
    try:
        _orders_to_execute(game, row, spec, envelope["state"], bool(before.forced), default_unfit=False)
    except StateError:  # orders that no longer fit, or missing where none were before
        return False
    standing = game.dir.standing_orders(row)
    return all(p in standing or p in before.defaulted for p in spec.active)


def open_phase(game: Game, opening: Opening, seq: int, closing: Callable[[], None] = lambda: None) -> str | None:
    """Store the states, commit to the next phase's seed and announce it; return the commitment.

    `closing` stores the end of the previous phase in the same journal transaction: were it
    committed alone, a crash before this phase's row would leave no phase open, and the game
    would look over.
    """
    game_dir = game.dir
    game_dir.hidden_secret(create=True)  # committed in the first notice, before any order
    for envelope in opening.chain:
        state = game_dir.save_state(envelope)
    spec = opening.spec
    if spec is None:
        with game_dir.transaction():
            closing()
            game_dir.set_meta("state", state)
            game_dir.log("game.over", {"state": state})
        return None
    if any(p.turn == spec.turn and p.phase == spec.name for p in game_dir.phases()):
        raise StateError(
            f"game module {game.module.id} opened turn {spec.turn} phase '{spec.name}' twice: "
            "this is a bug in the game module"
        )
    assert opening.commit is not None
    generation = game_dir.generation()
    phase = OpenPhase(seq, spec.turn, spec.name, opening.commit, state, "", spec.active, None, None, None, generation)
    if not opening.replay:
        from referee.letters import post_notices

        post_notices(game, phase, spec, opening.envelope["state"])
    with game_dir.transaction():
        closing()
        game_dir.insert_phase(seq, spec.turn, spec.name, opening.commit, state, spec.active, generation)
        game_dir.set_meta("state", state)
        game_dir.log(
            "phase.open", {"commit": opening.commit, "seq": seq, "replay": opening.replay}, spec.turn, spec.name
        )
    return opening.commit


# -- adjudicate ---------------------------------------------------------------------------


class UnfitOrdersError(StateError):
    """Orders on record no longer fit the state they would be executed from (after an override)."""


@dataclass
class Outcome:
    """Everything adjudicating a phase computes, before anything is written: adjudication,
    roll forward and the audit share it, so a replay is the same code as the original."""

    phase: OpenPhase
    record: dict[str, Any]
    record_bytes: bytes
    events: list[Event]
    defaulted: list[str]
    envelope: dict[str, Any]  # the state the phase left (before the next phase's state edits)
    opening: Opening
    corrections: dict[str, str] = field(default_factory=dict)  # player -> corrected order file (in orders/)
    hidden_inputs: dict[str, list[Any]] = field(default_factory=dict)  # label -> what the final reveal publishes


def adjudicate_phase(game: Game, phase: OpenPhase, force: bool, default_unfit: bool | None = None) -> Adjudication:
    """Adjudicate the open phase with the game's lock held: record, reports, the next phase."""
    game.dir.check_state_chain(phase.state_before)
    outcome = phase_outcome(game, phase, force, default_unfit=default_unfit)
    state_after = game.dir.save_state(outcome.envelope)
    record_path = game.dir.records / f"{phase.stem}.json"
    atomic_write(record_path, outcome.record_bytes)
    atomic_write(record_path.with_name(record_path.name + ".sig"), game.sign(outcome.record_bytes).encode())
    from referee.letters import post_reports

    reports = post_reports(game, outcome)

    def close() -> None:
        game.dir.close_phase(phase.seq, state_after, record_path.name, force, tuple(outcome.defaulted))
        game.dir.log(
            "phase.adjudicated",
            {
                "record": record_path.name,
                "defaulted": outcome.defaulted,
                "forced": force,
                "events": [event.as_dict() for event in outcome.events],
                "record_sha256": sha256_hex(outcome.record_bytes),
                "hidden_inputs": outcome.hidden_inputs,
            },
            phase.turn,
            phase.phase,
        )

    open_phase(game, outcome.opening, phase.seq + 1, close)
    spec = outcome.opening.spec
    return Adjudication(
        phase,
        record_path,
        outcome.events,
        len(outcome.record["rolls"]),
        outcome.defaulted,
        f"{spec.turn}/{spec.name}" if spec else None,
        reports,
    )


def phase_outcome(
    game: Game, phase: OpenPhase, force: bool, read_only: bool = False, default_unfit: bool | None = None
) -> Outcome:
    """Return what adjudicating `phase` gives: a function of the state before, the orders on
    record, the phase key and the referee's overrides. `read_only` (the audit) draws no seed."""
    from referee.override import OverridingDice, in_force, public_entry, state_edits_of

    envelope = game.envelope(phase.state_before)
    spec = game.module.phase(envelope["state"])
    assert spec is not None
    unfit_ok = force if default_unfit is None else default_unfit
    orders, defaulted, notes, corrected = _orders_to_execute(game, phase, spec, envelope["state"], force, unfit_ok)
    seed = game.dir.seed_of(phase.turn, phase.phase)
    if seed is None or commitment(seed) != phase.commit:
        raise StateError(f"the journal holds no seed for turn {phase.ident} that matches its commitment")
    standing = {p: o for p, o in game.dir.standing_orders(phase).items() if p in spec.active}
    hashes = {p: o.sha256 for p, o in standing.items()}
    script = transcript(game.config.game, phase.turn, phase.phase, phase.commit, hashes)
    key = phase_key(seed, script)
    secret = game.dir.hidden_secret()
    hidden = HiddenDraws(hidden_key(secret, script) if secret else None, phase.turn, phase.phase)
    overrides = game.dir.overrides(phase.turn, phase.phase)
    dice = OverridingDice(key, in_force(overrides), hidden)
    state, events = game.module.resolve(envelope["state"], orders, dice)
    events = [*notes, *events, *_unused(in_force(overrides), dice)]
    next_envelope = wrap_state(game, state, game.module.phase(state), phase.state_before)
    opening = prepare_opening(game, next_envelope, read_only)
    by_id = {row.id: row for row in overrides}
    changes = [
        public_entry(by_id[i], state_hash(a), state_hash(b)) for a, b, i in state_edits_of(game, phase.state_before)
    ]
    changes += [public_entry(row) for row in [*corrected.values(), *dice.applied]]
    changes += [public_entry(row) for row in overrides if row.kind == "withdraw"]
    opened = public_openings(events)
    secrets_part: dict[str, Any] = {}
    if hidden.entries or opened:
        assert secret is not None  # openings come from hidden draws, which need the secret
        secrets_part = {"hidden_commit": game_commitment(secret), "hidden": hidden.entries, "opened": opened}
    record = {
        "protocol": PROTOCOL_WITH_HIDDEN if secrets_part else PROTOCOL_WITH_OVERRIDES if changes else PROTOCOL,
        "game": game.config.game,
        "turn": phase.turn,
        "phase": phase.phase,
        "commit": phase.commit,
        "server_seed": seed.hex(),
        "beacon": None,
        "orders": [{"player": p, "sha256": hashes[p]} for p in sorted(hashes)],
        "rolls": dice.rolls,
        "state_before": phase.state_before,
        "state_after": state_hash(next_envelope),
        "next_commit": opening.commit,
        **({"overrides": sorted(changes, key=lambda entry: entry["id"])} if changes else {}),
        **secrets_part,
    }
    files = {player: row.body["file"] for player, row in corrected.items()}
    return Outcome(
        phase, record, pretty_json(record), events, defaulted, next_envelope, opening, files, dict(hidden.inputs)
    )


def public_openings(events: list[Event]) -> list[dict[str, Any]]:
    """Return the record's `opened` list: each opening an event gave, with its value and salt when
    the event is public (anyone can check it), or only whom it went to."""
    opened = []
    for event in events:
        for opening in event.data.get("openings", ()):
            where = {key: opening[key] for key in ("turn", "phase", "label", "index")}
            if event.visible_to == "all":
                opened.append({**where, "value": opening["value"], "salt": opening["salt"], "to": "all"})
            else:
                opened.append({**where, "to": sorted(event.visible_to)})
    return opened


def _orders_to_execute(
    game: Game, phase: OpenPhase, spec: PhaseSpec, state: Any, force: bool, default_unfit: bool
) -> tuple[dict[str, Any], list[str], list[Event], dict[str, Any]]:
    """Return the orders to execute per player, the players given default orders, the events
    saying how the orders came to be, and the referee's corrections applied (by player).

    Orders checked against another state than this one (the referee changed it since) are
    checked again: those that no longer fit are refused unless `default_unfit` gives them default
    orders; players without orders get default orders only with `force`.
    """
    from referee.override import in_force, order_problems

    standing = {p: o for p, o in game.dir.standing_orders(phase).items() if p in spec.active}
    corrections = {
        row.body["player"]: row for row in in_force(game.dir.overrides(phase.turn, phase.phase)) if row.kind == "order"
    }
    orders: dict[str, Any] = {}
    notes: list[Event] = []
    unfit: dict[str, list[Problem]] = {}
    corrected: dict[str, Any] = {}
    for player in sorted(spec.active):
        order, correction = standing.get(player), corrections.get(player)
        if correction is not None and correction.body["replaces"] == (order.sha256 if order else None):
            content = parse_order_file((game.dir.orders / correction.body["file"]).read_bytes()).orders
            problems = order_problems(game, state, spec, player, content)
            if problems:
                unfit[player] = problems
                continue
            orders[player], corrected[player] = content, correction
            notes.append(
                Event(
                    "orders.corrected",
                    f"The referee corrected {player}'s orders (override #{correction.id}): {correction.body['reason']}",
                    {"player": player, "override": correction.id},
                )
            )
            continue
        if correction is not None:
            notes.append(
                Event(
                    "override.unused",
                    f"The referee's correction of {player}'s orders (override #{correction.id}) no longer "
                    f"applies: {player} sent new orders.",
                    {"player": player, "override": correction.id},
                )
            )
        if order is None:
            continue
        content = parse_order_file((game.dir.orders / order.file).read_bytes()).orders
        if order.state != phase.state_before and (problems := order_problems(game, state, spec, player, content)):
            unfit[player] = problems
            continue
        orders[player] = content
        if order.by_referee:
            notes.append(
                Event(
                    "orders.by-referee",
                    f"The referee entered {player}'s orders (seq {order.seq}) on their behalf.",
                    {"player": player},
                )
            )
    missing = [p for p in spec.active if p not in orders and p not in unfit]
    if unfit and not default_unfit:
        listed = "; ".join(f"{p}: {q.path}: {q.message}" for p, problems in unfit.items() for q in problems)
        raise UnfitOrdersError(
            f"orders on record no longer fit turn {phase.turn} '{phase.phase}' after the referee's change: {listed}",
            hints=(
                "correct them: referee override GAMEDIR order PLAYER FILE --reason ...",
                "or adjudicate with --force to use the game's default orders for them",
            ),
        )
    if missing and not force:
        replay = game.dir.revealed(phase.turn, phase.phase, phase.commit) is not None
        raise StateError(
            f"waiting for orders from {', '.join(missing)} (turn {phase.turn} '{phase.phase}')",
            hints=(
                "this phase is adjudicated again after a rollback: `referee roll-forward GAMEDIR` repeats how it was"
                if replay
                else "to adjudicate now with the game's default orders for them, add --force",
            ),
        )
    for player in unfit:
        notes.append(
            Event(
                "orders.unfit",
                f"{player}'s orders no longer fit the game after the referee's change; the default orders were used.",
                {"player": player, "problems": [q.as_dict() for q in unfit[player]]},
            )
        )
    defaulted = [p for p in spec.active if p in missing or p in unfit]
    orders.update({p: copy.deepcopy(spec.default_orders) for p in defaulted})
    return orders, defaulted, notes, corrected


def _unused(overrides: list[Any], dice: Any) -> list[Event]:
    """Return an event for each re-roll or result the adjudication had no roll for."""
    applied = {row.id for row in dice.applied}
    events = []
    for row in overrides:
        if row.kind in ("reroll", "result") and row.id not in applied:
            why = dice.misfits.get(row.id, f"this adjudication made no roll {row.body['label']}")
            events.append(
                Event(
                    "override.unused",
                    f"The referee's {row.kind} of {row.body['label']} (override #{row.id}) did not apply: {why}.",
                    {"override": row.id, "label": row.body["label"]},
                )
            )
    return events
