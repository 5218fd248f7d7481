"""`referee audit`: replay the whole game and confirm every state, record and report.

The replay starts from the state the game's configuration sets up, and goes through each
phase of the game's line with the orders on record, the seeds the records revealed (kept in
the journal) and the referee's overrides, using the very functions adjudication uses. Every
state snapshot, record (byte for byte, and its signature) and letter (reports and notices,
and their signatures) must be what the replay gives. The first divergence is reported
precisely: the phase, the file, the field or roll label, what the replay gives and what the
file says. Nothing is written: the replay runs in memory, under the game's lock.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import RefereeError, StateError
from referee.game.adjudication import phase_outcome, prepare_opening
from referee.game.announce import notice_context, report_context
from referee.game.journal import GameDir, OpenPhase
from referee.game.opened import Game
from referee.game.order_files import read_order_file, read_order_signature
from referee.game.results import Opening, Outcome
from referee.game.states import state_hash, wrap_state
from referee.letters.kept import read_kept
from referee.letters.render import render
from referee.protocol.bulk import bulk_work
from referee.protocol.canonical import canonical_json, sha256_hex
from referee.protocol.signatures import NAMESPACE_ORDERS, NAMESPACE_REFEREE, PublicKey, load_public_key_file, verify


class _Divergence(Exception):
    """The replay and the game directory disagree; the message says where and how."""


@dataclass
class AuditReport:
    """What the audit replayed and confirmed, and the first divergence it found (if any)."""

    phases: int = 0
    states: int = 0
    records: int = 0
    letters: int = 0
    orders: int = 0
    overrides: int = 0
    divergence: str | None = None

    @property
    def ok(self) -> bool:
        """True when the replay agreed with everything in the game directory."""
        return self.divergence is None

    def summary(self) -> str:
        """Return one line saying what was replayed and confirmed."""
        return (
            f"{self.phases} phase(s) replayed: {self.states} state(s), {self.records} record(s), "
            f"{self.letters} letter(s), {self.orders} order file(s) and {self.overrides} override(s) confirmed"
        )


def phases_to_replay(path: Path) -> int:
    """Return how many phases an audit of the game replays (for a progress bar)."""
    game_dir = GameDir(path).require()
    try:
        return len(game_dir.phases())
    finally:
        game_dir.close()


@bulk_work()
def audit(path: Path, progress: Callable[[int], None] = lambda done: None) -> AuditReport:
    """Replay the game in `path` and return what was confirmed, or where it first diverged.

    `progress(1)` is called after each phase replayed.
    """
    game = Game.open(path)
    report = AuditReport()
    with game.dir.lock():
        try:
            _Replay(game, report, progress).run()
        except _Divergence as divergence:
            report.divergence = str(divergence)
        except RefereeError as error:  # the replay could not go on: that is a divergence too
            report.divergence = error.message
    return report


class _Replay:
    def __init__(self, game: Game, report: AuditReport, progress: Callable[[int], None]) -> None:
        self.game = game
        self.report = report
        self.progress = progress
        self.key: PublicKey = load_public_key_file(game.dir.public_key)
        self.confirmed_states: set[str] = set()  # read, and hashing to their names

    def run(self) -> None:
        game = self.game
        self._check_overrides()
        names = [player.name for player in game.config.players]
        scenario = game.config.scenario
        assert scenario is not None  # `referee init` writes the scenario it chose into game.yaml
        state = game.module.setup(scenario, names, game.config.module_options())
        opening = prepare_opening(game, wrap_state(game, state, game.module.phase(state), None), read_only=True)
        for phase in game.dir.phases():
            where = f"turn {phase.ident} (phase {phase.seq})"
            self._check_opening(where, phase, opening)
            if phase.record is None:
                self.progress(1)
                self.report.phases += 1
                return
            self._check_orders(where, phase)
            outcome = phase_outcome(game, phase, bool(phase.forced), read_only=True)
            if outcome.defaulted != list(phase.defaulted):
                raise _Divergence(
                    f"{where}: the replay gives default orders to {outcome.defaulted or 'nobody'}, "
                    f"the journal says {list(phase.defaulted) or 'nobody'}"
                )
            self._check_record(where, phase, outcome.record, outcome.record_bytes)
            self._check_state(where, "the state after it", phase.state_after, outcome.envelope)
            self._check_reports(where, phase, outcome)
            opening = outcome.opening
            self.report.phases += 1
            self.progress(1)
        final = opening.envelope
        if opening.spec is None:
            self._check_state("the end of the game", "the final state", game.dir.current_state_hash(), final)

    # -- what is checked ----------------------------------------------------------------------

    def _check_overrides(self) -> None:
        for row in self.game.dir.overrides():
            where = f"override #{row.id} ({row.kind}, turn {row.turn} '{row.phase}') in the journal"
            try:
                signer = verify(canonical_json(row.body), row.signature, NAMESPACE_REFEREE)
            except RefereeError as error:
                raise _Divergence(f"{where}: the referee's signature does not match: {error.message}") from None
            if signer != self.key:
                raise _Divergence(f"{where}: signed by {signer.fingerprint}, not by the referee's key")
            said = (row.body.get("id"), row.body.get("turn"), row.body.get("phase"), row.body.get("kind"))
            if said != (row.id, row.turn, row.phase, row.kind):
                raise _Divergence(f"{where}: the signed body says {said}, the journal's row another")
            self.report.overrides += 1

    def _check_opening(self, where: str, phase: OpenPhase, opening: Opening) -> None:
        for envelope in opening.chain[1:]:  # the states the referee's edits made
            made = f"the state after override #{envelope['override']}"
            self._check_state(where, made, state_hash(envelope), envelope)
        self._check_state(where, "the state it opened with", phase.state_before, opening.envelope)
        if opening.spec is None or (opening.spec.turn, opening.spec.name) != (phase.turn, phase.phase):
            became = f"turn {opening.spec.turn}/{opening.spec.name}" if opening.spec else "the end of the game"
            raise _Divergence(f"{where}: the replay comes to {became} instead")
        if opening.commit != phase.commit:
            raise _Divergence(
                f"{where}: the commitment is {phase.commit[:16]}... in the journal, but the journal's seed "
                f"for it hashes to {str(opening.commit)[:16]}..."
            )
        for player in self.game.config.players:
            letter = self.game.dir.mail / phase.folder / f"{player.name}.notice.txt"
            try:
                found = read_kept(letter)
            except FileNotFoundError:  # a phase replayed after a rollback sends no notice
                continue
            # The notice shows the state the phase had when it opened: the referee may have
            # edited the state of the open phase since (each edit was told in a letter of its own).
            texts: list[str] = []
            for envelope in reversed(opening.chain):  # the newest first: rendered until one matches
                context = notice_context(self.game, phase, opening.spec, envelope["state"], player.name)[0]
                texts.append(render("notice", context, self.game.module)[0])
                if texts[-1].encode() == found:
                    break
            self._check_letter(where, letter, next((t for t in texts if t.encode() == found), texts[0]))

    def _check_state(self, where: str, what: str, digest: str | None, envelope: dict[str, Any]) -> None:
        replayed = state_hash(envelope)
        if replayed == digest and digest in self.confirmed_states:
            # The file was read and hashed to its name already (a phase's state after is the
            # next one's state before): one read per state, the replay still checked each time.
            self.report.states += 1
            return
        path = self.game.dir.states / f"{digest}.json"
        shown = f"states/{path.name}"
        try:
            data = self.game.dir.state_bytes(str(digest))  # read once, shared with the replay
        except StateError:  # missing, or changed: read as it is, to show how
            try:
                data = path.read_bytes()
            except OSError:
                raise _Divergence(
                    f"{where}: {what} is {shown}, which is missing (the replay gives states/{replayed}.json)"
                ) from None
        if sha256_hex(data) != digest:
            field, expected, found = _first_difference(envelope, _parsed(data))
            raise _Divergence(
                f"{where}: {shown} was changed by hand (its content hashes to {sha256_hex(data)[:16]}..., not to "
                f"its name); first difference: {field}: the replay gives {expected}, the file says {found}"
            )
        if replayed != digest:
            field, expected, found = _first_difference(envelope, _parsed(data))
            raise _Divergence(
                f"{where}: {what} should be states/{replayed}.json, the journal says {shown}; "
                f"first difference: {field}: the replay gives {expected}, the file says {found}"
            )
        self.confirmed_states.add(digest)
        self.report.states += 1

    def _check_orders(self, where: str, phase: OpenPhase) -> None:
        game = self.game
        files = [(p, o.file, o.sha256, o.by_referee) for p, o in game.dir.standing_orders(phase).items()]
        files += [
            (row.body["player"], row.body["file"], row.body["sha256"], True)
            for row in game.dir.overrides(phase.turn, phase.phase)
            if row.kind == "order"
        ]
        for player, name, digest, by_referee in files:
            shown = f"orders/{name}"
            try:
                raw, signature = read_order_file(game.dir, name), read_order_signature(game.dir, name)
            except OSError:
                raise _Divergence(f"{where}: {shown} (or its .sig) is missing") from None
            if sha256_hex(raw) != digest:
                raise _Divergence(
                    f"{where}: {shown} was changed: it hashes to {sha256_hex(raw)[:16]}..., "
                    f"the journal accepted {digest[:16]}..."
                )
            namespace = NAMESPACE_REFEREE if by_referee else NAMESPACE_ORDERS
            try:
                signer = verify(raw, signature, namespace)
            except RefereeError as error:
                raise _Divergence(f"{where}: {shown}: bad signature: {error.message}") from None
            entry = game.config.player(player)
            registered = self.key if by_referee else entry.key if entry is not None else None
            if signer != registered:
                who = "the referee" if by_referee else player
                raise _Divergence(f"{where}: {shown} is signed by {signer.fingerprint}, not by {who}")
            self.report.orders += 1

    def _check_record(self, where: str, phase: OpenPhase, record: dict[str, Any], replayed: bytes) -> None:
        path = self.game.dir.records / str(phase.record)
        shown = f"records/{path.name}"
        try:
            found = path.read_bytes()
        except OSError:
            raise _Divergence(f"{where}: {shown} is missing") from None
        if found != replayed:
            try:
                field, expected, said = _first_difference(record, json.loads(found))
            except ValueError:
                raise _Divergence(f"{where}: {shown} is not the JSON the replay gives (it does not parse)") from None
            if field == "(the bytes)":
                raise _Divergence(f"{where}: {shown} holds the replayed data, but not byte for byte")
            raise _Divergence(
                f"{where}: {shown}: {_roll_field(record, field)}: the replay gives {expected}, the record says {said}"
            )
        self._check_signature(where, path, found)
        self.report.records += 1

    def _check_reports(self, where: str, phase: OpenPhase, outcome: Outcome) -> None:
        for player in self.game.config.players:
            context, _ = report_context(self.game, outcome, player.name)
            letter = self.game.dir.mail / phase.folder / f"{player.name}.report.txt"
            self._check_letter(where, letter, render("report", context, self.game.module)[0])

    def _check_letter(self, where: str, path: Path, replayed: str) -> None:
        shown = str(path.relative_to(self.game.dir.path))
        try:
            found = read_kept(path)
        except OSError:
            raise _Divergence(f"{where}: {shown} is missing") from None
        if found != replayed.encode("utf-8"):
            lines, said = replayed.splitlines(), found.decode("utf-8", "replace").splitlines()
            number = next((i for i, (a, b) in enumerate(zip(lines, said)) if a != b), min(len(lines), len(said)))
            expected = lines[number] if number < len(lines) else "(the end of the letter)"
            text = said[number] if number < len(said) else "(the end of the letter)"
            raise _Divergence(
                f"{where}: {shown}, line {number + 1}: the replay gives {expected.strip()!r}, the letter says "
                f"{text.strip()!r}"
            )
        self._check_signature(where, path, found)
        self.report.letters += 1

    def _check_signature(self, where: str, path: Path, data: bytes) -> None:
        shown = str(path.relative_to(self.game.dir.path))
        try:
            signer = verify(data, _signature_of(path), NAMESPACE_REFEREE)
        except (OSError, RefereeError) as error:
            reason = error.message if isinstance(error, RefereeError) else "it is missing"
            raise _Divergence(f"{where}: the signature of {shown}: {reason}") from None
        if signer != self.key:
            raise _Divergence(f"{where}: {shown} is signed by {signer.fingerprint}, not by the referee's key")


def _signature_of(path: Path) -> bytes:
    """Return the signature kept beside a record or letter (a letter's may be in a pack)."""
    return read_kept(path.with_name(path.name + ".sig"))


def _parsed(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return "(not JSON)"


def _first_difference(expected: Any, found: Any, where: str = "") -> tuple[str, str, str]:
    """Return the first place (as `a.b[2].c`) where two JSON values differ, and both values there."""
    if isinstance(expected, dict) and isinstance(found, dict):
        for key in sorted(set(expected) | set(found)):
            if expected.get(key, _MISSING) != found.get(key, _MISSING):
                return _first_difference(
                    expected.get(key, _MISSING), found.get(key, _MISSING), f"{where}.{key}".lstrip(".")
                )
    elif isinstance(expected, list) and isinstance(found, list):
        for index, (a, b) in enumerate(zip(expected, found)):
            if a != b:
                return _first_difference(a, b, f"{where}[{index}]")
        if len(expected) != len(found):
            return f"{where} (length)", str(len(expected)), str(len(found))
    elif expected == found:
        return "(the bytes)", "", ""
    return where or "(the whole value)", _show(expected), _show(found)


class _Missing:
    def __repr__(self) -> str:
        return "nothing"


_MISSING: Any = _Missing()


def _show(value: Any) -> str:
    if value is _MISSING:
        return "nothing"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)[:120]


def _roll_field(record: dict[str, Any], field: str) -> str:
    """Name a field of a record, with the roll's label when it is inside `rolls`."""
    if field.startswith("rolls[") and "]" in field:
        index = int(field[6 : field.index("]")])
        if index < len(record["rolls"]):
            return f"roll {record['rolls'][index]['label']!r} ({field})"
    return f"field {field}"
