"""Adjudication of one phase, and the opening of the next: the computation that `adjudicate`,
the roll forward after a rollback and the audit share, so that a replay runs the very code
the original did.

`phase_outcome` is a function of the state before, the orders on record, the phase key and
the referee's overrides; it writes nothing. `adjudicate_phase` writes what it computed (the
record, the reports, the next phase) with the game's lock held by the caller.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from referee.errors import StateError
from referee.files import atomic_write, flush_group, group_commit
from referee.game.announce import post_notices, post_reports
from referee.game.beacons import fetch_promised_round, phase_proof, promise_round
from referee.game.journal import OpenPhase
from referee.game.letter_format import adopt_from
from referee.game.opened import Game
from referee.game.order_files import read_order_file
from referee.game.overrides import (
    OverridingDice,
    apply_state_edits,
    in_force,
    order_problems,
    public_entry,
    state_edits_of,
)
from referee.game.results import Adjudication, Opening, Outcome
from referee.game.states import (
    STATE_SCHEME_META,
    envelope_bytes,
    public_state,
    state_hash,
    state_scheme,
    wrap_state,
)
from referee.game.supplies import waiting_error, wanted_now
from referee.kit.contract import Event, PhaseSpec
from referee.kit.needs import NotSupplied
from referee.letters.content import views_dumped_once
from referee.protocol.canonical import pretty_json
from referee.protocol.dice import commitment, phase_key, transcript
from referee.protocol.hidden import HiddenDraws, game_commitment, hidden_key
from referee.protocol.orders import parse_order_file
from referee.protocol.problems import Problem
from referee.protocol.records import beacon_randomness, phase_record, public_openings
from referee.protocol.states import STATE_SCHEME


def prepare_opening(game: Game, raw: dict[str, Any], read_only: bool = False) -> Opening:
    """Return how the phase that follows the state `raw` opens.

    Its seed is drawn once and kept (see `GameDir.seed_for`). When a rollback superseded an
    adjudication of this phase under this seed, the seed is public: the phase is replayed if
    its orders on record still fit, and otherwise gets a fresh seed, since players knowing the
    seed could otherwise choose orders to suit the dice. `read_only` (the audit) draws nothing.
    """
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
    promise_round(game.dir, game.config.beacon, game.schedule, spec.name, commitment(seed))
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


def open_phase(
    game: Game,
    opening: Opening,
    seq: int,
    closing: Callable[[], None] = lambda: None,
    saved: tuple[dict[str, Any], str] | None = None,
) -> str | None:
    """Store the states, commit to the next phase's seed and announce it; return the commitment.

    `closing` stores the end of the previous phase in the same journal transaction: were it
    committed alone, a crash before this phase's row would leave no phase open, and the game
    would look over. `saved` is an envelope stored already and its hash (the state the phase
    adjudicated just now left: a long phase's state is not made canonical JSON again).
    """
    game_dir = game.dir
    game_dir.hidden_secret(create=True)  # committed in the first notice, before any order
    if not game_dir.has_phase() and game_dir.get_meta(STATE_SCHEME_META) is None:
        # A new game names its states by commitments (protocol section 15) from its first record;
        # a game begun before keeps plain hashes, or its chain of records would break midway.
        game_dir.set_meta(STATE_SCHEME_META, STATE_SCHEME)
    if not game_dir.phases():
        adopt_from(game_dir, seq)  # a new game's letters are in the newest format from the first
    for envelope in opening.chain:
        state = (
            saved[1]
            if saved is not None and envelope is saved[0]
            else game_dir.save_state(envelope, envelope_bytes(envelope))
        )
    spec = opening.spec
    if spec is None:
        flush_group()
        with game_dir.transaction():
            closing()
            game_dir.set_meta("state", state)
            game_dir.log("game.over", {"state": state})
        return None
    if game_dir.has_phase(spec.turn, spec.name):
        raise StateError(
            f"game module {game.module.id} opened turn {spec.turn} phase '{spec.name}' twice: "
            "this is a bug in the game module"
        )
    assert opening.commit is not None
    generation = game_dir.generation()
    phase = OpenPhase(seq, spec.turn, spec.name, opening.commit, state, "", spec.active, None, None, None, generation)
    if not opening.replay:
        post_notices(game, phase, spec, opening.envelope["state"])
    flush_group()  # the files written in a group (an adjudication's) land before the journal names them
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


def adjudicate_phase(game: Game, phase: OpenPhase, force: bool, default_unfit: bool | None = None) -> Adjudication:
    """Adjudicate the open phase with the game's lock held: record, reports, the next phase."""
    game.dir.check_state_chain(phase.state_before)
    fetch_promised_round(game, phase)  # waits for the round, or refuses, before anything is written
    # A game begun before letter format 2 writes it from the next phase on: this phase's notice
    # went out in the old format, and its report keeps to it.
    adopt_from(game.dir, phase.seq + 1)
    # The record and every letter land together, with two disk syncs, before the journal names
    # them (`open_phase`); a crash before leaves the phase open, adjudicated again the same way.
    with views_dumped_once(), group_commit():
        return _adjudicate_phase(game, phase, force, default_unfit)


def _adjudicate_phase(game: Game, phase: OpenPhase, force: bool, default_unfit: bool | None) -> Adjudication:
    outcome = phase_outcome(game, phase, force, default_unfit=default_unfit)
    state_after = game.dir.save_state(outcome.envelope, envelope_bytes(outcome.envelope))
    record_path = game.dir.records / f"{phase.stem}.json"
    atomic_write(record_path, outcome.record_bytes)
    record_sig = game.sign(outcome.record_bytes).encode()
    atomic_write(record_path.with_name(record_path.name + ".sig"), record_sig)
    reports = post_reports(game, outcome, record_sig)

    def close() -> None:
        game.dir.close_phase(phase.seq, state_after, record_path.name, force, tuple(outcome.defaulted))
        game.dir.log(
            "phase.adjudicated",
            {
                "record": record_path.name,
                "defaulted": outcome.defaulted,
                "forced": force,
                "events": outcome.events,  # written as Event.as_dict writes them, by stored_json
                "record_sha256": outcome.record_sha256,
                "hidden_inputs": outcome.hidden_inputs,
            },
            phase.turn,
            phase.phase,
        )

    open_phase(game, outcome.opening, phase.seq + 1, close, saved=(outcome.envelope, state_after))
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
    envelope = game.envelope(phase.state_before)
    spec = game.module.phase(envelope["state"])
    assert spec is not None
    unfit_ok = force if default_unfit is None else default_unfit
    orders, defaulted, notes, corrected = _orders_to_execute(game, phase, spec, envelope["state"], force, unfit_ok)
    if now := wanted_now(game.module, envelope["state"]):
        raise waiting_error(game, phase, [w.need for w in now], "; ".join(w.why for w in now if w.why) or "needed now")
    seed = game.dir.seed_of(phase.turn, phase.phase)
    if seed is None or commitment(seed) != phase.commit:
        raise StateError(f"the journal holds no seed for turn {phase.ident} that matches its commitment")
    standing = {p: o for p, o in game.dir.standing_orders(phase).items() if p in spec.active}
    hashes = {p: o.sha256 for p, o in standing.items()}
    entered = sorted(p for p, o in standing.items() if o.by_referee)
    own = {p: digest for p, digest in hashes.items() if p not in entered}
    proof = phase_proof(game, phase.commit)
    script = transcript(game.config.game, phase.turn, phase.phase, phase.commit, own, beacon_randomness(proof))
    key = phase_key(seed, script)
    secret = game.dir.hidden_secret()
    typed = state_scheme(game) is not None  # values committed with their type (protocol section 15)
    hidden = HiddenDraws(hidden_key(secret, script) if secret else None, phase.turn, phase.phase, typed)
    overrides = game.dir.overrides(phase.turn, phase.phase)
    dice = OverridingDice(key, in_force(overrides), hidden)
    try:
        state, events = game.module.resolve(envelope["state"], orders, dice)
    except NotSupplied as missing:  # a step the module could not foresee: the phase waits, nothing is written
        raise waiting_error(game, phase, [missing.need], missing.message) from None
    events = [*notes, *events, *_unused(in_force(overrides), dice)]
    next_envelope = wrap_state(game, state, game.module.phase(state), phase.state_before)
    opening = prepare_opening(game, next_envelope, read_only)
    by_id = {row.id: row for row in overrides}
    changes = [
        public_entry(by_id[i], public_state(game, a), public_state(game, b))
        for a, b, i in state_edits_of(game, phase.state_before)
    ]
    changes += [public_entry(row) for row in [*corrected.values(), *dice.applied]]
    changes += [public_entry(row) for row in overrides if row.kind == "withdraw"]
    promised = game.dir.beacon_round(opening.commit) if opening.commit and proof else None
    opened = public_openings(events)
    hidden_commit = None
    if hidden.entries or opened or hidden.moves:
        assert secret is not None  # openings and card moves come from hidden draws, which need the secret
        hidden_commit = game_commitment(secret)
    record = phase_record(
        game=game.config.game,
        turn=phase.turn,
        phase=phase.phase,
        commit=phase.commit,
        server_seed=seed,
        orders=hashes,
        rolls=dice.rolls,
        state_before=public_state(game, envelope),
        state_after=public_state(game, next_envelope),
        next_commit=opening.commit,
        overrides=changes,
        hidden_commit=hidden_commit,
        hidden=hidden.entries,
        opened=opened,
        card_moves=hidden.moves,
        by_referee=entered,
        beacon_proof=proof,
        next_beacon_round=promised.round if promised else None,
        state_scheme=state_scheme(game),
    )
    files = {player: row.body["file"] for player, row in corrected.items()}
    return Outcome(
        phase, record, pretty_json(record), events, defaulted, next_envelope, opening, files, dict(hidden.inputs)
    )


def _orders_of(game: Game, file: str, sha256: str | None = None) -> Any:
    """Return an order file's orders: as kept when the file was accepted, else read from the file."""
    kept = game.dir.order_content(sha256) if sha256 is not None else None
    if kept is not None:
        return json.loads(kept)
    return parse_order_file(read_order_file(game.dir, file)).orders


def _orders_to_execute(
    game: Game, phase: OpenPhase, spec: PhaseSpec, state: Any, force: bool, default_unfit: bool
) -> tuple[dict[str, Any], list[str], list[Event], dict[str, Any]]:
    """Return the orders to execute per player, the players given default orders, the events
    saying how the orders came to be, and the referee's corrections applied (by player).

    Orders checked against another state than this one (the referee changed it since) are
    checked again: those that no longer fit are refused unless `default_unfit` gives them default
    orders; players without orders get default orders only with `force`.
    """
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
            content = _orders_of(game, correction.body["file"])
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
        content = _orders_of(game, order.file, order.sha256)
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
