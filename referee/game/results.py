"""The plain values a game's steps produce: what became of an order file (`Receipt`), how the next
phase opens (`Opening`), what adjudicating a phase computes (`Outcome`) and did (`Adjudication`),
and a rollback with its roll forward. They are data only, so the letters and the command line
can be handed them without reaching into the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from referee.game.journal import OpenPhase
from referee.kit.contract import Event, PhaseSpec
from referee.protocol.canonical import sha256_hex
from referee.protocol.problems import Problem


@dataclass
class Receipt:
    """What became of a submitted order file."""

    accepted: bool
    sha256: str
    player: str | None
    turn: int | None
    phase: str | None
    seq: int | None
    problems: list[Problem] = field(default_factory=list)
    duplicate: bool = False
    copy: int = 1
    by_referee: bool = False
    letter: Path | None = None
    already_handled: bool = False
    filled: tuple[str, ...] = ()  # header fields the referee's `become` filled in


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
    # What the letters compute once for every player's report (`announce.phase_letters`).
    letters: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def record_sha256(self) -> str:
        """Return the SHA-256 of the record's bytes (hex), hashed once: every report names it."""
        return sha256_hex(self.record_bytes)


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


@dataclass
class Rollback:
    """A return to an earlier phase: where to, why, and what it supersedes."""

    generation: int
    phase: OpenPhase  # the phase returned to, as it was adjudicated
    superseded: list[OpenPhase]
    reason: str

    @property
    def records(self) -> list[str]:
        """The record files the rollback withdraws (kept under records/superseded/<generation>/)."""
        return [p.record for p in self.superseded if p.record]


@dataclass
class RollForward:
    """The phases adjudicated again, and where and why the roll forward stopped."""

    adjudications: list[Adjudication] = field(default_factory=list)
    stopped: str = ""
