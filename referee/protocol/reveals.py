"""Proving hidden draws from a reveal (docs/protocol.md, section 8), as a player checks them.

A *reveal* is a signed file in GAMEDIR/reveals/ that gives, for some hidden draws, their draw
keys and inputs (a finished deck: its shuffles can be checked at once), or, once the game is
over, the game secret as well, from which every draw key of every record follows.
`verify_reveals` re-derives each revealed draw and checks every commitment against it; with
the game secret, every hidden draw of the game must be proven. The referee's side, which
publishes reveals, is `referee.game.reveal`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.protocol.canonical import load_json, sha256_hex
from referee.protocol.hidden import (
    commit_values,
    derive_values,
    draw_key,
    game_commitment,
    hidden_key,
    typed_values,
)
from referee.protocol.piles import Final
from referee.protocol.records import holds_hidden, record_transcript
from referee.protocol.signatures import check_signature

REVEAL_TYPE = "pbem-referee-reveal/1"


@dataclass(frozen=True)
class HiddenDraw:
    """One hidden draw as its record lists it."""

    record: str  # the record's path under records/ ("0003-t1-round.json", "superseded/1/...")
    record_sha256: str
    body: dict[str, Any]  # the record
    label: str
    spec: str
    commitments: tuple[str, ...]


def hidden_draws(records_dir: Path) -> list[HiddenDraw]:
    """Return every hidden draw listed by the version 3 records in records/ and its superseded/."""
    paths = sorted(records_dir.glob("*.json")) + sorted(records_dir.glob("superseded/*/*.json"))
    return hidden_draws_of((path.relative_to(records_dir).as_posix(), path.read_bytes(), None) for path in paths)


def hidden_draws_of(files: Iterable[tuple[str, bytes, Any]]) -> list[HiddenDraw]:
    """Return the hidden draws of records given as (name under records/, bytes, parsed record or
    None): a caller that parsed them already (`referee verify`) passes them, not parsing twice."""
    draws = []
    for name, data, parsed in files:
        record = parsed
        if record is None:
            try:
                record = json.loads(data)
            except ValueError:
                continue  # `referee verify` names a broken record
        if not isinstance(record, dict) or not holds_hidden(record):
            continue
        digest = sha256_hex(data)
        for entry in record.get("hidden") or []:
            if isinstance(entry, dict):
                commitments = tuple(entry.get("commitments") or ())
                draws.append(HiddenDraw(name, digest, record, entry["label"], entry["spec"], commitments))
    return draws


def expected_draw_key(game_secret: bytes, draw: HiddenDraw) -> bytes:
    """Return the draw key the game secret gives this draw."""
    return draw_key(hidden_key(game_secret, record_transcript(draw.body)), draw.label)


@dataclass
class RevealCheck:
    """What checking the reveals found."""

    proven: int = 0
    final: bool = False
    problems: list[str] = field(default_factory=list)
    final_proof: Final | None = None  # the game secret and the inputs, for the card moves' check


def verify_reveals(
    game_dir: Path, referee_key: Any, require_final: bool, hidden: list[HiddenDraw] | None = None
) -> RevealCheck:
    """Check every reveal in GAMEDIR/reveals/: its signature, and each draw it reveals against
    the commitments of its record. With `require_final`, a reveal of the game secret must prove
    every hidden draw of every record. `hidden`: the records' hidden draws, when the caller has
    read the records already (otherwise they are read from GAMEDIR/records/)."""
    check = RevealCheck()
    problems = check.problems
    listed = hidden if hidden is not None else hidden_draws(game_dir / "records")
    draws = {(d.record, d.label): d for d in listed}
    proven: set[tuple[str, str]] = set()
    secrets: list[bytes] = []
    inputs: dict[tuple[str, str], Any] = {}
    reveals = sorted((game_dir / "reveals").glob("*.json")) if (game_dir / "reveals").is_dir() else []
    for path in reveals:
        name = f"reveals/{path.name}"
        data = path.read_bytes()
        sig = path.with_name(path.name + ".sig")
        problems += check_signature(data, sig.read_bytes() if sig.is_file() else None, referee_key, name)
        try:
            body = load_json(data)
            entries = body["draws"]
            secret = bytes.fromhex(body["game_secret"]) if body.get("game_secret") else None
        except (KeyError, TypeError, ValueError) as error:
            problems.append(f"{name}: not a reveal of type {REVEAL_TYPE} ({error})")
            continue
        if secret is not None:
            if game_commitment(secret) != body.get("hidden_commit"):
                problems.append(f"{name}: game_secret does not hash to hidden_commit: it is not the committed secret")
            else:
                secrets.append(secret)
        for entry in entries if isinstance(entries, list) else [None]:
            if not isinstance(entry, dict) or not _is_hex64(entry.get("draw_key")):
                problems.append(f"{name}: each draw must be an object with a draw_key of 64 hex digits")
                continue
            key = (str(entry.get("record")), str(entry.get("label")))
            draw = draws.get(key)
            where = f"{name}: {entry.get('label')} ({entry.get('record')})"
            if draw is None:
                problems.append(f"{where}: no such hidden draw in records/")
                continue
            if entry.get("record_sha256") != draw.record_sha256:
                problems.append(f"{where}: the record's SHA-256 is not the one the reveal names")
                continue
            inputs[key] = entry.get("inputs")
            problem = _prove(draw, bytes.fromhex(entry["draw_key"]), entry.get("inputs"))
            if secret is not None and expected_draw_key(secret, draw).hex() != entry["draw_key"]:
                problem = problem or "its draw key is not the one the game secret gives"
            if problem:
                problems.append(f"{where}: {problem}")
            else:
                proven.add(key)
    for secret in secrets:
        for key, draw in draws.items():
            if draw.body.get("hidden_commit") != game_commitment(secret) or key in proven:
                continue
            problem = _prove(draw, expected_draw_key(secret, draw), inputs.get(key))
            if problem:
                problems.append(f"{draw.record}: hidden draw {draw.label}: {problem}")
            else:
                proven.add(key)
    if secrets:
        check.final_proof = Final(secrets[0], dict(inputs))
    check.proven = len(proven)
    check.final = bool(secrets) and len(proven) == len(draws)
    if require_final and not secrets:
        problems.append(
            "no reveal gives the game secret: the referee publishes it with `referee reveal GAMEDIR --final` "
            "once the game is over"
        )
    elif require_final:
        problems += [f"{d.record}: hidden draw {d.label} is not proven" for k, d in draws.items() if k not in proven]
    return check


def _is_hex64(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)


def _prove(draw: HiddenDraw, key_of_draw: bytes, inputs: Any) -> str | None:
    """Return what is wrong with the draw under this draw key and inputs, or None when every
    commitment matches."""
    needs_inputs = draw.spec.startswith(("shuffle(", "sealed("))
    if needs_inputs and not isinstance(inputs, list):
        return f"the reveal does not give the inputs of {draw.spec}"
    try:
        values = derive_values(key_of_draw, draw.label, draw.spec, len(draw.commitments), inputs)
        _, commitments = commit_values(key_of_draw, draw.label, values, typed_values(draw.body))
    except ValueError as error:
        return str(error)
    wrong = [i for i, (a, b) in enumerate(zip(commitments, draw.commitments, strict=False)) if a != b]
    if len(commitments) != len(draw.commitments) or wrong:
        return f"values {', '.join(map(str, wrong[:10]))} do not match their commitments"
    return None
