"""`referee audit --public DIR`: replay a finished game from what its players received.

DIR holds what the letters attached: the records (records/), the reveals (reveals/, the final
one with the game secret), the replay file of the final reveal (replay.json, protocol section
16) and the referee's key (referee.pub). No journal, no states: the game is set up from the
published configuration and each record's phase is resolved again by the installed game module,
with the published order files, the dice of the record's seed and transcript, the hidden draws
of the revealed secret, and the referee's published re-rolls, results and state edits, through
the same dice (`OverridingDice`), envelopes (`envelope_of`) and record (`phase_record`) the
referee's adjudication uses. Every state commitment, draw (with each card's position) and
record field must be what the replay gives; a mismatch names the record and the field.

It first runs `verify --final` on DIR: signatures, the chain, every hidden draw.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import RefereeError
from referee.game.journal import OverrideRow
from referee.game.overrides import STATE_KINDS, OverridingDice, state_edit_envelope
from referee.game.registry import find_game
from referee.game.states import envelope_of, state_hash
from referee.kit.contract import GameModule, PhaseSpec
from referee.kit.schema import check
from referee.protocol.dice import phase_key
from referee.protocol.hidden import HiddenDraws, game_commitment, hidden_key, typed_values
from referee.protocol.orders import parse_order_file
from referee.protocol.records import ENTERED_BY_REFEREE, phase_record, public_openings, record_transcript
from referee.protocol.replay import order_bytes, read_replay, revealed_secret
from referee.protocol.signatures import PublicKey, load_public_key_file
from referee.protocol.states import state_commitment
from referee.protocol.verify import RECORD_NAME, verify_game_dir_records


@dataclass
class PublicAuditReport:
    """What the public replay confirmed, and every problem it found (the first divergence ends it)."""

    records: int = 0
    states: int = 0
    rolls: int = 0
    hidden: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the replay agreed with every record."""
        return not self.problems

    def summary(self) -> str:
        """Return one line saying what was replayed and confirmed."""
        return (
            f"{self.records} record(s) replayed from the published orders: {self.states} state commitment(s), "
            f"{self.rolls} roll(s) and {self.hidden} hidden draw(s) confirmed"
        )


class _Divergence(Exception):
    """The replay and a record disagree; the message names the record and the field."""


def public_audit(folder: Path) -> PublicAuditReport:
    """Replay the finished game whose public files are in `folder`; return what was confirmed."""
    folder = Path(folder)
    report = PublicAuditReport()
    checked, read = verify_game_dir_records(folder, final=True)
    report.problems += checked.problems
    key: PublicKey | None = None
    if (folder / "referee.pub").is_file():
        try:
            key = load_public_key_file(folder / "referee.pub")
        except RefereeError:
            pass  # verify has said why
    secret = revealed_secret(folder)
    replay, problems = read_replay(folder, key, secret)
    report.problems += problems
    if replay is None or secret is None or problems:
        return report
    # The records as verify read them: each record file is read and parsed once.
    named = [(name, record) for name, record in read if RECORD_NAME.match(name)]
    records = [(name, record) for name, record in named if record is not None]
    if len(records) != len(named):
        return report  # a record that is not a JSON object: verify's problems say which
    try:
        _Replay(replay, secret, report).run(records)
    except _Divergence as divergence:
        report.problems.append(str(divergence))
    except RefereeError as error:  # the replay could not go on: the files do not make a game
        report.problems.append(f"the replay stopped: {error.message}")
    return report


class _Replay:
    def __init__(self, replay: dict[str, Any], secret: bytes, report: PublicAuditReport) -> None:
        self.replay = replay
        self.secret = secret
        self.report = report
        self.module: GameModule = find_game(replay["module"])
        self.key = bytes.fromhex(replay["state_key"])
        if self.module.version != replay["module_version"]:
            raise _Divergence(
                f"replay.json: the game was played with {replay['module']} version {replay['module_version']}, "
                f"this installation has version {self.module.version}: install that version to replay it"
            )

    def run(self, records: list[tuple[str, dict[str, Any]]]) -> None:
        replay, module = self.replay, self.module
        state = module.setup(replay["scenario"], list(replay["players"]), copy.deepcopy(replay["options"]))
        envelope = envelope_of(replay["game"], module, state, module.phase(state), None)
        for name, record in records:
            envelope = self._edits(name, record, envelope)
            self._same(name, "state_before", self._commit(envelope), record["state_before"])
            spec = module.phase(envelope["state"])
            if spec is None or (spec.turn, spec.name) != (record["turn"], record["phase"]):
                became = f"turn {spec.turn} '{spec.name}'" if spec else "the end of the game"
                raise _Divergence(f"{name}: the replay comes to {became}, not to this record's phase")
            envelope = self._phase(name, record, envelope, spec)
        if records and records[-1][1]["next_commit"] is None and not envelope["over"]:
            raise _Divergence(
                f"{records[-1][0]}: the record ends the game, the replay goes on to '{envelope['phase']}'"
            )

    def _commit(self, envelope: dict[str, Any]) -> str:
        self.report.states += 1
        return state_commitment(self.key, envelope)

    def _edits(self, name: str, record: dict[str, Any], envelope: dict[str, Any]) -> dict[str, Any]:
        """Return the envelope after the referee's state edits the record lists, checking each."""
        for entry in record.get("overrides", []):
            if entry["kind"] not in STATE_KINDS:
                continue
            if entry["kind"] == "supply":  # the record carries the supplied data
                value = {"need": entry["need"], "data": entry["data"]}
            else:
                value = self.replay["state_edits"].get(str(entry["id"]))
            if value is None:
                raise _Divergence(f"{name}: override #{entry['id']} edits the state; replay.json does not give it")
            self._same(name, f"overrides #{entry['id']} state_from", self._commit(envelope), entry["state_from"])
            row = OverrideRow(entry["id"], record["turn"], record["phase"], entry["kind"], value, "")
            envelope = state_edit_envelope(envelope, row, self.module)
            self._same(name, f"overrides #{entry['id']} state_to", self._commit(envelope), entry["state_to"])
        return envelope

    def _phase(self, name: str, record: dict[str, Any], envelope: dict[str, Any], spec: PhaseSpec) -> dict[str, Any]:
        """Resolve the record's phase again; check the record; return the envelope after it."""
        orders = self._orders(name, record, envelope["state"], spec)
        script = record_transcript(record)
        seed = bytes.fromhex(record["server_seed"])
        hidden = HiddenDraws(hidden_key(self.secret, script), record["turn"], record["phase"], typed_values(record))
        rows = [
            OverrideRow(entry["id"], record["turn"], record["phase"], entry["kind"], entry, "")
            for entry in record.get("overrides", [])
            if entry["kind"] in ("reroll", "result")
        ]
        dice = OverridingDice(phase_key(seed, script), rows, hidden)
        state, events = self.module.resolve(envelope["state"], orders, dice)
        after = envelope_of(self.replay["game"], self.module, state, self.module.phase(state), state_hash(envelope))
        opened = public_openings(events)
        has_hidden = bool(hidden.entries or opened or hidden.moves)
        again = phase_record(
            game=record["game"],
            turn=record["turn"],
            phase=record["phase"],
            commit=record["commit"],
            server_seed=seed,
            orders={entry["player"]: entry["sha256"] for entry in record["orders"]},
            rolls=dice.rolls,
            state_before=record["state_before"],  # checked above
            state_after=self._commit(after),
            next_commit=record["next_commit"] if not after["over"] else None,
            overrides=record.get("overrides", []),
            hidden_commit=game_commitment(self.secret) if has_hidden else None,
            hidden=hidden.entries,
            opened=opened,
            card_moves=hidden.moves,
            by_referee=[e["player"] for e in record["orders"] if e.get("by") == ENTERED_BY_REFEREE],
            beacon_proof=record.get("beacon_proof"),
            next_beacon_round=record.get("next_beacon_round"),
            state_scheme=record.get("state_scheme"),
        )
        self._compare(name, again, record)
        self.report.records += 1
        self.report.rolls += len(dice.rolls)
        self.report.hidden += len(hidden.entries)
        return after

    def _orders(self, name: str, record: dict[str, Any], state: Any, spec: PhaseSpec) -> dict[str, Any]:
        """Return the orders executed: the referee's correction, else the file on record, else
        the game's default orders (also for a file that no longer fits the state after an edit)."""
        on_record = {entry["player"]: entry["sha256"] for entry in record["orders"]}
        corrected = {e["player"]: e["sha256"] for e in record.get("overrides", []) if e["kind"] == "order"}
        edited = any(e["kind"] in STATE_KINDS for e in record.get("overrides", []))
        orders = {}
        for player in sorted(spec.active):
            digest = corrected.get(player, on_record.get(player))
            if digest is None:
                orders[player] = copy.deepcopy(spec.default_orders)
                continue
            text = self.replay["orders"].get(digest)
            if text is None:
                raise _Divergence(f"{name}: orders: {player}'s file {digest[:16]}... is not in replay.json")
            content = parse_order_file(order_bytes(text)).orders
            unfit = edited and (check(content, spec.schema) or self.module.validate(state, player, content))
            orders[player] = copy.deepcopy(spec.default_orders) if unfit else content
        return orders

    def _compare(self, name: str, again: dict[str, Any], record: dict[str, Any]) -> None:
        for key in sorted(set(again) | set(record)):
            mine, theirs = again.get(key), record.get(key)
            if key == "rolls":
                self._compare_rolls(name, mine or [], theirs or [])
            if isinstance(mine, list) and isinstance(theirs, list):
                for index, (a, b) in enumerate(zip(mine, theirs)):
                    self._same(name, f"{key}[{index}]", a, b)
            self._same(name, key, mine, theirs)

    def _compare_rolls(self, name: str, again: list[dict[str, Any]], recorded: list[dict[str, Any]]) -> None:
        for index, (mine, theirs) in enumerate(zip(again, recorded)):
            if mine != theirs:
                raise _Divergence(
                    f"{name}: rolls[{index}] ({theirs.get('label')}): the replay gives {_short(mine)}, "
                    f"the record says {_short(theirs)}"
                )
        if len(again) != len(recorded):
            raise _Divergence(f"{name}: rolls: the replay makes {len(again)} roll(s), the record lists {len(recorded)}")

    def _same(self, name: str, what: str, replayed: Any, recorded: Any) -> None:
        if replayed != recorded:
            raise _Divergence(
                f"{name}: {what}: the replay gives {_short(replayed)}, the record says {_short(recorded)}"
            )


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
