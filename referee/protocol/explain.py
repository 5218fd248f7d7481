"""`referee explain`: everything about one roll, laid out so that a player can redo it by hand.

The explanation re-reads the roll from the public record alone (the revealed seed, the
order hashes), block by block and draw by draw, including the draws that were rejected;
then what the adjudication made of it: the table, modifiers and row, and the events, when the
caller has them (the referee's journal keeps them: `referee.game.explain`).
"""

from __future__ import annotations

import hmac
import json
import re
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.protocol.dice import commitment, derive, phase_key
from referee.protocol.errors import RefereeError
from referee.protocol.records import record_transcript

_TWO_64 = 1 << 64
_RECORD_NAME = re.compile(r"^(\d{4})-t(\d+)-(.+)\.json$")
# The public events of an adjudicated phase (TURN, PHASE) as plain data, or None when unknown.
EventsOf = Callable[[int, str], list[dict[str, Any]] | None]


def find_roll(game_dir: Path, label: str, phase: str | None = None) -> tuple[Path, dict[str, Any], int]:
    """Return the record holding the roll `label` (in phase `TURN/PHASE` if given) and its index."""
    found = []
    for path in sorted((Path(game_dir) / "records").glob("*.json")):
        record = json.loads(path.read_bytes())
        if phase is not None and f"{record['turn']}/{record['phase']}" != phase:
            continue
        for index, roll in enumerate(record["rolls"]):
            if roll["label"] == label:
                found.append((path, record, index))
    if not found:
        where = f" in phase {phase}" if phase else ""
        raise RefereeError(
            f"no roll labelled '{label}'{where} in {Path(game_dir) / 'records'}",
            hints=("labels are listed in each report's Dice section, e.g. roll/alice/attack",),
        )
    if len(found) > 1:
        phases = ", ".join(f"{r['turn']}/{r['phase']}" for _, r, _ in found)
        raise RefereeError(
            f"the label '{label}' was used in several phases: {phases}", hints=("name one with --phase TURN/PHASE",)
        )
    return found[0]


def draw_steps(key: bytes, label: str, record_spec: str, count: int) -> tuple[list[str], list[int]]:
    """Return the lines showing each block and draw of a roll, and the values they give."""
    match = re.match(r"^(?:(\d+)d(\d+)|uniform\((\d+)\)|shuffle\((\d+)\))$", record_spec)
    if not match:
        raise RefereeError(f"cannot explain the roll spec {record_spec!r}")
    if match[4] is not None:
        bounds = [i + 1 for i in range(int(match[4]) - 1, 0, -1)]  # Fisher-Yates: uniform(i + 1), i = n-1 .. 1
    elif match[3] is not None:
        bounds = [int(match[3])] * count
    else:
        bounds = [int(match[2])] * int(match[1])
    lines: list[str] = []
    draws: list[int] = []
    block = 0
    words: list[int] = []
    for bound in bounds:
        limit = _TWO_64 - (_TWO_64 % bound)
        while True:
            if not words:
                message = label.encode() + b"\x00" + block.to_bytes(8, "big")
                digest = hmac.digest(key, message, "sha256")
                words = list(struct.unpack(">4Q", digest))
                lines.append(f"  block {block}: HMAC-SHA256(phase_key, {message.hex()}) = {digest.hex()}")
                block += 1
            u = words.pop(0)
            if u < limit:
                draws.append(u % bound)
                face = f", the die shows {u % bound} + 1 = {u % bound + 1}" if match[1] else ""
                lines.append(
                    f"    uniform({bound}): u = {u} < limit {limit}: accepted, u mod {bound} = {u % bound}{face}"
                )
                break
            lines.append(f"    uniform({bound}): u = {u} >= limit {limit}: rejected (it would bias the roll)")
    if match[4] is not None:
        items = list(range(int(match[4])))
        for i, j in zip(range(len(items) - 1, 0, -1), draws, strict=True):
            items[i], items[j] = items[j], items[i]
        values = items
    else:
        values = [d + (1 if match[1] else 0) for d in draws]
    return lines, values


def explain(game_dir: Path, label: str, phase: str | None = None, events_of: EventsOf | None = None) -> str:
    """Return the full explanation of the roll `label` as text; `events_of` gives the events of a
    phase, for what the adjudication made of the roll (without it, the explanation says so)."""
    path, record, index = find_roll(game_dir, label, phase)
    roll = record["rolls"][index]
    seed = bytes.fromhex(record["server_seed"])
    text = record_transcript(record)
    key = phase_key(seed, text)
    steps, values = draw_steps(key, label, roll["spec"], len(roll["values"]))
    assert values == derive(key, label, roll["spec"], len(roll["values"])), "explain and dice disagree"
    seed_ok = "matches" if commitment(seed) == record["commit"] else "DOES NOT MATCH"
    lines = [
        f"Roll '{label}' ({roll['spec']}) of game {record['game']}, turn {record['turn']} '{record['phase']}'",
        f"record: {path}",
        "",
        "1. The commitment, published before any order was accepted, and the seed revealed after:",
        f"  commit      {record['commit']}",
        f"  server_seed {record['server_seed']}",
        f"  SHA-256(server_seed) {commitment(seed)}: {seed_ok} the commit",
        "",
        "2. The transcript (each line ends with LF; one order line per player who signed their own orders):",
        *(f"  | {line}" for line in text.decode().splitlines()),
        "",
        "3. The phase key = HMAC-SHA256(key = server_seed, message = transcript):",
        f"  {key.hex()}",
        "",
        f"4. The stream of '{label}': block i = HMAC-SHA256(phase_key, UTF-8 label || 00 || i as 8 bytes),",
        "   read as four 8-byte big-endian integers; limit = 2^64 - (2^64 mod N):",
        *steps,
        "",
        f"5. Values: {values} (the record says {roll['values']}: "
        + ("they agree)" if values == roll["values"] else "THEY DIFFER)"),
    ]
    lines += _overrides(record, label)
    lines += _adjudication(events_of, record, label)
    return "\n".join(lines) + "\n"


def _overrides(record: dict[str, Any], label: str) -> list[str]:
    """Return what the referee's overrides in the record (version 2) did to this roll."""
    lines = []
    for entry in record.get("overrides", []):
        if entry["kind"] == "reroll" and label in (entry["label"], entry["new_label"]):
            role = "is the re-roll of" if label == entry["new_label"] else "was re-rolled as"
            other = entry["label"] if label == entry["new_label"] else entry["new_label"]
            lines.append(f"  override #{entry['id']}: this roll {role} '{other}' (reason: {entry['reason']})")
        elif entry["kind"] == "result" and label == entry["label"]:
            values = ", ".join(map(str, entry["values"]))
            lines.append(f"  override #{entry['id']}: it counts as {values} (reason: {entry['reason']})")
    if not lines:
        return []
    return ["", "The referee's overrides of this roll (signed in the record's 'overrides'):", *lines]


def _adjudication(events_of: EventsOf | None, record: dict[str, Any], label: str) -> list[str]:
    """Return what the adjudication made of the roll, from the phase's public events."""
    if events_of is None:
        return ["", "6. (This folder has no journal: see the reports for the table read and events.)"]
    phase_events = events_of(record["turn"], record["phase"]) or []
    rerolls = [e for e in record.get("overrides", []) if e["kind"] == "reroll"]
    # The game's events name the label it asked for; the last re-roll of it is what counted.
    asked = next((e["label"] for e in rerolls if e["new_label"] == label), label)
    counted = {e["label"]: e["new_label"] for e in rerolls}.get(asked, asked)
    if counted != label:
        return ["", f"6. The game did not see these values: the re-roll {counted} counted."]
    events = [e for e in phase_events if e["visible_to"] == "all" and e["data"].get("label") == asked]
    lines = ["", "6. What the adjudication made of it:"]
    for event in events:
        lookup = event["data"].get("lookup")
        if lookup:
            modifiers = ", ".join(f"{m['name']} {m['value']:+d}" for m in lookup["modifiers"]) or "none"
            lines += [
                f"  table {lookup['table']} ({lookup['title']}), dice {lookup['dice']}",
                f"  natural total {lookup['natural']}; modifiers: {modifiers}; modified {lookup['modified']}"
                + (f", read as {lookup['clamped']}" if lookup["clamped"] != lookup["modified"] else ""),
                f"  row {lookup['row']}"
                + (f", column {lookup['column']}" if lookup["column"] else "")
                + f": {lookup['result']}",
            ]
        lines.append(f"  event {event['kind']}: {event['text']}")
    if not events:
        lines.append("  no public event names this roll")
    return lines
