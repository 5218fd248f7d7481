"""Check a game's public records (protocol sections 1, 3, 4 and 5) the way a player would.

Every check yields a problem line naming the file it is about; nothing here stops at the
first problem or raises on bad input, so one run lists everything that is wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import Any, TypeGuard

from referee.protocol import beacon, dice, hidden
from referee.protocol.bulk import bulk_work
from referee.protocol.canonical import canonical_json, load_canonical_json, load_pretty_json, sha256_hex
from referee.protocol.errors import RefereeError
from referee.protocol.piles import Final, check_card_moves
from referee.protocol.records import (
    ENTERED_BY_REFEREE,
    PROTOCOL,
    PROTOCOL_V4,
    PROTOCOL_WITH_HIDDEN,
    PROTOCOL_WITH_OVERRIDES,
    holds_hidden,
    transcript_orders,
)
from referee.protocol.reveals import hidden_draws_of, verify_reveals
from referee.protocol.signatures import PublicKey, check_signature, load_public_key_file
from referee.protocol.states import STATE_SCHEME
from referee.protocol.yamlsafe import load_strict

RECORD_NAME = re.compile(r"^(?P<seq>[0-9]{4})-t(?P<turn>[0-9]+)-(?P<phase>.+)\.json$")
STATE_NAME = re.compile(r"^[0-9a-f]{64}\.json$")
TEMPORARY_NAME = re.compile(r"^\..+\.[0-9]+\.tmp$")  # referee.files.atomic_write's
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_HEX = re.compile(r"^(?:[0-9a-f]{2})+$")
_ROLL_SPEC = re.compile(r"^(?:(?P<count>[1-9][0-9]*)d[1-9][0-9]*|uniform\([1-9][0-9]*\)|shuffle\((?P<size>[0-9]+)\))$")

# Field name -> (accepted types, description). bool is refused separately where int is wanted.
_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "protocol": ((str,), "a text"),
    "game": ((str,), "a text"),
    "turn": ((int,), "a whole number"),
    "phase": ((str,), "a text"),
    "commit": ((str,), "64 lower-case hex digits"),
    "server_seed": ((str,), "64 lower-case hex digits"),
    "beacon": ((str, type(None)), "hex or null"),
    "orders": ((list,), "a list"),
    "rolls": ((list,), "a list"),
    "state_before": ((str,), "64 lower-case hex digits"),
    "state_after": ((str,), "64 lower-case hex digits"),
    "next_commit": ((str, type(None)), "64 lower-case hex digits or null"),
}
KNOWN_PROTOCOLS = (PROTOCOL, PROTOCOL_WITH_OVERRIDES, PROTOCOL_WITH_HIDDEN, PROTOCOL_V4)
# Version 3 adds the hidden draws (section 8); its `overrides` appear only when there are some.
_HIDDEN_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "hidden_commit": ((str,), "64 lower-case hex digits"),
    "hidden": ((list,), "a list"),
    "opened": ((list,), "a list"),
}
_HIDDEN_SPEC = re.compile(
    r"^(?:(?P<count>[1-9][0-9]*)d[1-9][0-9]*|uniform\([1-9][0-9]*\)|(?:shuffle|sealed)\((?P<size>[0-9]+)\))$"
)
# Version 4 may add a public beacon round (section 14); its other optional parts are those of
# versions 2 and 3, present only when there are some.
_BEACON_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "beacon_proof": ((dict,), "an object"),
    "next_beacon_round": ((int, type(None)), "a whole number or null"),
}
# Version 2 adds one field: the referee's overrides that changed the phase (section 11).
_OVERRIDE_FIELDS: dict[str, dict[str, str]] = {
    "reroll": {"label": "text", "new_label": "text"},
    "result": {"label": "text", "values": "list"},
    "order": {"player": "text", "sha256": "hex", "replaces": "hex-or-null"},
    "state": {"path": "text", "state_from": "hex", "state_to": "hex"},
    # Data the rulebook leaves out, supplied by the referee (section 11): a link in the chain of states.
    "supply": {"need": "text", "sha256": "hex", "data": "any", "state_from": "hex", "state_to": "hex"},
    "withdraw": {"withdraws": "number"},
}
_STATE_KINDS = ("state", "supply")


@dataclass
class VerifyReport:
    """What a verification run looked at and every problem it found."""

    records: int = 0
    rolls: int = 0
    orders: int = 0
    problems: list[str] = field(default_factory=list)
    superseded: int = 0  # records a rollback withdrew, checked each on its own
    openings: int = 0  # public openings of hidden draws checked against their commitments
    hidden_proven: int = 0  # hidden draws re-derived from a revealed draw key or the game secret
    final: bool = False  # the game secret was revealed and proved every hidden draw
    beacons: int = 0  # beacon rounds whose signature was checked (section 14)
    beacon_chain: str | None = None  # the drand chain they name

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems

    def summary(self) -> str:
        """Return one line saying what was checked and whether it all held."""
        checked = f"{self.records} record(s), {self.rolls} roll(s), {self.orders} order hash(es)"
        if self.openings or self.hidden_proven:
            checked += f", {self.openings} public opening(s), {self.hidden_proven} hidden draw(s)"
        checked += " checked"
        if self.ok:
            return f"{checked}: all good"
        return f"{checked}: {len(self.problems)} problem(s)"


def _one_line(text: str) -> str:
    """Return `text` with line breaks, control characters and lone surrogates escaped.

    Problem lines quote untrusted text; escaping keeps each on one printable line.
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_fields(record: dict[str, Any], name: str) -> list[str]:
    problems: list[str] = []
    version = record.get("protocol")
    fields = dict(_FIELDS)
    if version in (PROTOCOL_WITH_OVERRIDES, PROTOCOL_WITH_HIDDEN, PROTOCOL_V4):
        fields["overrides"] = ((list,), "a list")
    if version in (PROTOCOL_WITH_HIDDEN, PROTOCOL_V4):
        fields.update(_HIDDEN_FIELDS)
    if version == PROTOCOL_V4:
        fields["card_moves"] = ((list,), "a list")
        fields.update(_BEACON_FIELDS)
        fields["state_scheme"] = ((str,), "a text")
    for key in sorted(set(record) - set(fields)):
        shown = version if version in KNOWN_PROTOCOLS else PROTOCOL
        problems.append(f"{name}: unknown field {key!r} (a {shown} record has a fixed set of fields)")
    if version == PROTOCOL_WITH_OVERRIDES and "overrides" not in record:
        problems.append(f"{name}: field 'overrides' is missing (a {version} record lists the referee's overrides)")
    # Version 4 holds the hidden-draw fields all together or not at all.
    hidden_wanted = version == PROTOCOL_WITH_HIDDEN or (version == PROTOCOL_V4 and set(_HIDDEN_FIELDS) & set(record))
    required = {**_FIELDS, **(_HIDDEN_FIELDS if hidden_wanted else {})}
    if version == PROTOCOL_V4 and any(key in record for key in _BEACON_FIELDS):
        required.update(_BEACON_FIELDS)
    for key, (types, wanted) in required.items():
        if key not in record:
            problems.append(f"{name}: field {key!r} is missing")
            continue
        value = record[key]
        if not isinstance(value, types) or isinstance(value, bool):
            problems.append(f"{name}: field {key!r} must be {wanted}, not {json.dumps(value)[:60]}")
    if "protocol" in record and record["protocol"] not in KNOWN_PROTOCOLS:
        known = ", ".join(repr(p) for p in KNOWN_PROTOCOLS)
        problems.append(f"{name}: protocol is {record['protocol']!r}, this verifier knows {known}")
    if _is_int(record.get("turn")) and record["turn"] < 0:
        problems.append(f"{name}: turn {record['turn']} is negative")
    for key in ("commit", "server_seed", "state_before", "state_after", "next_commit", "hidden_commit"):
        value = record.get(key)
        if isinstance(value, str) and not _HEX64.match(value):
            problems.append(f"{name}: {key} {value[:70]!r} is not 64 lower-case hex digits")
    scheme = record.get("state_scheme", STATE_SCHEME)
    if version == PROTOCOL_V4 and scheme != STATE_SCHEME:
        problems.append(f"{name}: state_scheme {str(scheme)[:40]!r} is unknown (this verifier knows {STATE_SCHEME!r})")
    beacon_value = record.get("beacon")
    if isinstance(beacon_value, str) and not _HEX.match(beacon_value):
        problems.append(f"{name}: beacon {beacon_value[:70]!r} is not lower-case hex")
    if version == PROTOCOL_V4 and (beacon_value is None) != ("beacon_proof" not in record):
        problems.append(f"{name}: a {version} record has a beacon value exactly when it has a beacon_proof")
    return problems


def _check_beacon(record: dict[str, Any], name: str) -> list[str]:
    """Return the problems in a version 4 record's beacon: the proof's shape, that its signature
    verifies under the chain's key (offline), and that the randomness in the transcript is the
    round's (section 14)."""
    proof = record.get("beacon_proof")
    if proof is None:
        return []
    try:
        chain, round_ = beacon.parse_proof(proof)
        randomness = beacon.check_round(chain, round_)
    except beacon.BeaconError as error:
        return [f"{name}: {error}"]
    problems = []
    if record.get("beacon") != randomness:
        problems.append(
            f"{name}: beacon {str(record.get('beacon'))[:16]}... is not the randomness of round {round_.round} "
            f"({randomness[:16]}...)"
        )
    promised = record.get("next_beacon_round")
    if _is_int(promised) and promised <= round_.round:
        problems.append(
            f"{name}: next_beacon_round {promised} is not after this phase's round {round_.round}: "
            "a round already published would let the referee choose the dice"
        )
    return problems


def _check_orders(record: dict[str, Any], name: str) -> tuple[dict[str, str] | None, list[str]]:
    """Return the player -> sha256 map for the transcript (None if unusable) and the problems."""
    orders = record.get("orders")
    if not isinstance(orders, list):
        return None, []
    problems: list[str] = []
    by_player: dict[str, str] = {}
    players: list[str] = []
    entered = record.get("protocol") == PROTOCOL_V4  # an order may say it was entered by the referee
    # Every problem found in this loop makes the map unusable for the transcript.
    for index, entry in enumerate(orders):
        where = f"{name}: orders[{index}]"
        if not isinstance(entry, dict) or set(entry) - {"by"} != {"player", "sha256"}:
            problems.append(f"{where} must be an object with exactly 'player' and 'sha256'")
            continue
        if "by" in entry and (not entered or entry["by"] != ENTERED_BY_REFEREE):
            problems.append(
                f"{where}: 'by' may only say {json.dumps(ENTERED_BY_REFEREE)}, and only in a {PROTOCOL_V4} record"
            )
            continue
        player, digest = entry["player"], entry["sha256"]
        if not isinstance(player, str) or not player or any(ch.isspace() for ch in player):
            problems.append(f"{where}: player {json.dumps(player)} must be a non-empty text without spaces")
            continue
        if not isinstance(digest, str) or not _HEX64.match(digest):
            problems.append(f"{where}: sha256 of {player!r} is not 64 lower-case hex digits")
            continue
        if player in by_player:
            problems.append(f"{name}: player {player!r} has more than one order entry")
            continue
        by_player[player] = digest
        players.append(player)
    usable = not problems
    # Unsorted entries are a fault of the record, but the transcript sorts them anyway, so the
    # rolls can still be checked.
    if players != sorted(players):
        problems.append(f"{name}: orders are not sorted by player ({', '.join(players)})")
    return (transcript_orders(orders) if usable else None), problems


def _phase_key(record: dict[str, Any], orders: dict[str, str] | None, name: str) -> tuple[bytes | None, list[str]]:
    seed_hex, commit = record.get("server_seed"), record.get("commit")
    if not (isinstance(seed_hex, str) and _HEX64.match(seed_hex) and isinstance(commit, str)):
        return None, []
    seed = bytes.fromhex(seed_hex)
    if dice.commitment(seed) != commit:
        return None, [
            f"{name}: server_seed does not hash to commit {commit[:16]}...: the seed is not the committed one"
        ]
    game, turn, phase, beacon = (record.get(k) for k in ("game", "turn", "phase", "beacon"))
    # A field of the wrong type has been reported already; no key can be derived without it.
    if orders is None or not (isinstance(game, str) and _is_int(turn) and isinstance(phase, str)):
        return None, []
    try:
        text = dice.transcript(
            game,
            turn,
            phase,
            commit,
            orders,
            beacon if isinstance(beacon, str) else None,
        )
    except ValueError as error:  # DiceError, or UnicodeEncodeError for a lone surrogate
        return None, [f"{name}: cannot build the rolls transcript: {error}"]
    return dice.phase_key(seed, text), []


_ROLL_KEYS = frozenset(("label", "spec", "values"))


_ANY_COUNT = -1  # what `uniform(N)` calls for: any number of values


@lru_cache(maxsize=256)
def _values_called_for(spec: str) -> int | None:
    """Return how many values a record's roll spec calls for (_ANY_COUNT for `uniform(N)`), or
    None if it is no roll spec: read once per spec, as a record's thousands of rolls use a few."""
    match = _ROLL_SPEC.match(spec)
    if match is None:
        return None
    wanted = match["count"] or match["size"]
    return _ANY_COUNT if wanted is None else int(wanted)


def _roll_head(name: str, label: str, spec: Any) -> str:
    """Return how a problem names a roll: "NAME: roll 'LABEL' (SPEC)"."""
    return f"{name}: roll {label!r} ({spec})" if isinstance(spec, str) else f"{name}: roll {label!r}"


def _check_rolls(record: dict[str, Any], key: bytes | None, name: str) -> tuple[int, list[str]]:
    """Return how many rolls were re-derived and the problems found."""
    rolls = record.get("rolls")
    if not isinstance(rolls, list):
        return 0, []
    problems: list[str] = []
    seen: set[str] = set()
    derived = 0
    keyed = dice.Keyed(key) if key is not None else None  # keyed once for every roll of the record
    for index, roll in enumerate(rolls):
        # The messages' texts are made only for a roll with a problem: a record holds thousands.
        if not isinstance(roll, dict) or roll.keys() != _ROLL_KEYS:
            problems.append(f"{name}: rolls[{index}] must be an object with exactly 'label', 'spec' and 'values'")
            continue
        label, spec, values = roll["label"], roll["spec"], roll["values"]
        if not isinstance(label, str):
            problems.append(f"{name}: rolls[{index}]: label must be a text")
            continue
        try:
            dice.check_label(label)
        except ValueError as error:  # DiceError, or UnicodeEncodeError for a lone surrogate
            problems.append(f"{name}: rolls[{index}]: {error}")
            continue
        if label in seen:
            problems.append(f"{name}: label {label!r} is used by more than one roll")
            continue
        seen.add(label)
        wanted = _values_called_for(spec) if isinstance(spec, str) else None
        if wanted is None:
            problems.append(f"{_roll_head(name, label, spec)}: spec is not kdN, uniform(N) or shuffle(N)")
            continue
        # type() first: an int as JSON gives it, without the two isinstance calls of _is_int
        if not isinstance(values, list) or not values or not all(type(v) is int or _is_int(v) for v in values):
            problems.append(f"{_roll_head(name, label, spec)}: values must be a non-empty list of whole numbers")
            continue
        # The count is checked before deriving so a tampered spec like 10**9d6 cannot stall us.
        if wanted != _ANY_COUNT and wanted != len(values):
            head = _roll_head(name, label, spec)
            problems.append(f"{head}: the spec calls for {wanted} value(s), the record holds {len(values)}")
            continue
        if keyed is None:
            continue
        try:
            expected = dice.derive(keyed, label, spec, len(values))
        except ValueError as error:
            problems.append(f"{_roll_head(name, label, spec)}: {error}")
            continue
        derived += 1
        if expected != values:
            problems.append(f"{_roll_head(name, label, spec)}: record says {values}, the seed gives {expected}")
    return derived, problems


def _check_overrides(record: dict[str, Any], name: str) -> list[str]:
    """Return the problems in a version 2 record's `overrides`: each entry's shape, that what it
    names is in the record, and that its state edits lead to `state_before` (section 11)."""
    entries = record.get("overrides")
    if not isinstance(entries, list):
        return []
    if not entries:
        return [f"{name}: overrides is empty (a record without overrides is a {PROTOCOL} record)"]
    problems: list[str] = []
    rolls, listed = record.get("rolls"), record.get("orders")
    labels = [r.get("label") for r in rolls if isinstance(r, dict)] if isinstance(rolls, list) else []
    orders = (
        {o.get("player"): o.get("sha256") for o in listed if isinstance(o, dict)} if isinstance(listed, list) else {}
    )
    edits: list[dict[str, Any]] = []
    ids: list[Any] = []
    for index, entry in enumerate(entries):
        where = f"{name}: overrides[{index}]"
        kind = entry.get("kind") if isinstance(entry, dict) else None
        if kind not in _OVERRIDE_FIELDS:
            problems.append(f"{where} must be an object whose kind is one of {', '.join(_OVERRIDE_FIELDS)}")
            continue
        assert isinstance(entry, dict)
        wanted = {"id", "kind", "reason", *_OVERRIDE_FIELDS[kind]}
        if set(entry) != wanted:
            problems.append(f"{where} ({kind}) must have exactly the fields {', '.join(sorted(wanted))}")
            continue
        if not _is_int(entry["id"]) or not isinstance(entry["reason"], str) or not entry["reason"]:
            problems.append(f"{where}: id must be a whole number and reason a non-empty text")
            continue
        ids.append(entry["id"])
        problems += _override_entry_problems(entry, kind, where, labels, orders)
        if kind in _STATE_KINDS:
            edits.append(entry)
    if ids != sorted(set(ids)):
        problems.append(f"{name}: overrides are not in the order made (by id, each once)")
    for a, b in pairwise(edits):
        if a["state_to"] != b["state_from"]:
            problems.append(
                f"{name}: override #{b['id']} edits state {b['state_from'][:16]}..., not the state "
                f"#{a['id']} made ({a['state_to'][:16]}...)"
            )
    if edits and edits[-1]["state_to"] != record.get("state_before"):
        problems.append(f"{name}: the state edits lead to {edits[-1]['state_to'][:16]}..., not to state_before")
    return problems


def _override_entry_problems(
    entry: dict[str, Any], kind: str, where: str, labels: list[Any], orders: dict[Any, Any]
) -> list[str]:
    for key, wanted in _OVERRIDE_FIELDS[kind].items():
        value = entry[key]
        good = {
            "text": isinstance(value, str) and bool(value),
            "list": isinstance(value, list) and bool(value) and all(_is_int(v) for v in value),
            "hex": isinstance(value, str) and bool(_HEX64.match(value)),
            "hex-or-null": value is None or (isinstance(value, str) and bool(_HEX64.match(value))),
            "number": _is_int(value),
            "any": True,
        }[wanted]
        if not good:
            return [f"{where}: {key} {json.dumps(value)[:70]} is not {wanted.replace('-', ' ')}"]
    if kind == "reroll":
        if entry["label"] not in labels or entry["new_label"] not in labels:
            return [f"{where}: the re-roll of {entry['label']!r} as {entry['new_label']!r} needs both in rolls"]
        if labels.index(entry["new_label"]) < labels.index(entry["label"]):
            return [f"{where}: the re-roll {entry['new_label']!r} comes before the roll it replaces"]
    if kind == "supply" and sha256_hex(canonical_json(entry["data"])) != entry["sha256"]:
        return [f"{where}: the supplied data's SHA-256 is not {entry['sha256'][:16]}... (its canonical JSON)"]
    if kind == "result" and entry["label"] not in labels:
        return [f"{where}: the result names {entry['label']!r}, which is not in rolls"]
    if kind == "order" and entry["replaces"] is not None and orders.get(entry["player"]) != entry["replaces"]:
        return [
            f"{where}: the corrected orders replace {entry['replaces'][:16]}..., which is not "
            f"{entry['player']}'s order in orders"
        ]
    return []


def opened_state(record: dict[str, Any]) -> Any:
    """Return the state a phase opened with: before the referee's state edits, if any."""
    for entry in record.get("overrides") or []:
        if isinstance(entry, dict) and entry.get("kind") in _STATE_KINDS:
            return entry.get("state_from")
    return record.get("state_before")


def verify_record(
    record_bytes: bytes,
    signature: str | bytes | None,
    referee_key: PublicKey | None,
    name: str,
) -> tuple[dict[str, Any] | None, list[str]]:
    """Return the parsed record (None when it is not a JSON object) and every problem in it.

    `name` is how problem lines refer to the record (its file name). A `referee_key` of None
    checks that the signature is valid but not who made it; the caller reports the missing key.
    """
    record, problems, _ = _verify_record(record_bytes, signature, referee_key, name)
    return record, [_one_line(line) for line in problems]


def _verify_record(
    record_bytes: bytes,
    signature: str | bytes | None,
    referee_key: PublicKey | None,
    name: str,
) -> tuple[dict[str, Any] | None, list[str], int]:
    """Return verify_record's answer plus how many rolls were re-derived."""
    problems = check_signature(record_bytes, signature, referee_key, name)
    try:
        record = load_pretty_json(record_bytes)
    except (UnicodeDecodeError, ValueError) as error:
        return None, problems + [f"{name}: not valid JSON ({error})"], 0
    if not isinstance(record, dict):
        return None, problems + [f"{name}: not a JSON object"], 0
    problems += _check_fields(record, name)
    problems += _check_overrides(record, name)
    orders, order_problems = _check_orders(record, name)
    problems += order_problems
    key, key_problems = _phase_key(record, orders, name)
    problems += key_problems
    derived, roll_problems = _check_rolls(record, key, name)
    problems += roll_problems
    if holds_hidden(record):
        problems += _check_hidden_entries(record, name)
    if record.get("protocol") == PROTOCOL_V4:
        problems += _check_beacon(record, name)
    return record, problems, derived


def _check_hidden_entries(record: dict[str, Any], name: str) -> list[str]:
    """Return the problems in a version 3 record's `hidden` and `opened` lists (their shape)."""
    problems: list[str] = []
    entries, opened = record.get("hidden"), record.get("opened")
    bound = record.get("protocol") == PROTOCOL_V4
    if isinstance(entries, list) and isinstance(opened, list) and not entries and not opened and not bound:
        problems.append(f"{name}: hidden and opened are both empty (such a record is not a {PROTOCOL_WITH_HIDDEN} one)")
    rolls = record.get("rolls")
    labels = {r.get("label") for r in rolls if isinstance(r, dict)} if isinstance(rolls, list) else set()
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        where = f"{name}: hidden[{index}]"
        # Version 4 states what each shuffle shuffled (section 12).
        with_source = bound and isinstance(entry, dict) and str(entry.get("spec")).startswith("shuffle(")
        wanted_keys = {"label", "spec", "commitments", *(("source",) if with_source else ())}
        if not isinstance(entry, dict) or set(entry) != wanted_keys:
            fields = (
                "'label', 'spec', 'commitments' and 'source'" if with_source else "'label', 'spec' and 'commitments'"
            )
            problems.append(f"{where} must be an object with exactly {fields}")
            continue
        label, spec, commitments = entry["label"], entry["spec"], entry["commitments"]
        try:
            hidden.check_hidden_label(label)
        except (TypeError, ValueError) as error:
            problems.append(f"{where}: {error}")
            continue
        if label in labels:
            problems.append(f"{name}: label {label!r} is used by more than one draw")
        labels.add(label)
        match = _HIDDEN_SPEC.match(spec) if isinstance(spec, str) else None
        if match is None:
            problems.append(f"{where}: spec is not kdN, uniform(N), shuffle(N) or sealed(N)")
            continue
        if not isinstance(commitments, list) or not all(isinstance(c, str) and _HEX64.match(c) for c in commitments):
            problems.append(f"{where}: commitments must be a list of 64 lower-case hex digits each")
            continue
        wanted = match["count"] or match["size"]
        if (int(wanted) if wanted is not None else max(1, len(commitments))) != len(commitments):
            problems.append(f"{where}: {spec} calls for {wanted} commitment(s), the record holds {len(commitments)}")
    for index, entry in enumerate(opened if isinstance(opened, list) else []):
        problems += _opening_shape(entry, f"{name}: opened[{index}]")
    return problems


def _opening_shape(entry: Any, where: str) -> list[str]:
    if not isinstance(entry, dict):
        return [f"{where} must be an object"]
    public = entry.get("to") == "all"
    wanted = {"turn", "phase", "label", "index", "to", *(("value", "salt") if public else ())}
    if set(entry) != wanted:
        return [f"{where} must have exactly the fields {', '.join(sorted(wanted))}"]
    if not (_is_int(entry["turn"]) and _is_int(entry["index"]) and isinstance(entry["label"], str)):
        return [f"{where}: turn and index must be whole numbers, label a text"]
    if public and not (isinstance(entry["salt"], str) and _HEX64.match(entry["salt"])):
        return [f"{where}: salt must be 64 lower-case hex digits"]
    if not public and not (isinstance(entry["to"], list) and all(isinstance(p, str) for p in entry["to"])):
        return [f'{where}: to must be "all" or a list of players']
    return []


def check_public_openings(entries: list[tuple[str, int | None, dict[str, Any] | None]]) -> tuple[int, list[str]]:
    """Return how many public openings (`opened` entries to "all") were checked against the
    commitment they open, in the record of the phase named, and the problems found."""
    committed: dict[tuple[Any, Any, Any], tuple[list[Any], bool]] = {}
    hidden_commits: set[Any] = set()
    checked, problems = 0, []
    for name, _, record in entries:
        if record is None or not holds_hidden(record):
            continue
        hidden_commits.add(record.get("hidden_commit"))
        for entry in record.get("hidden") or []:
            if isinstance(entry, dict):
                committed[(record.get("turn"), record.get("phase"), entry.get("label"))] = (
                    entry.get("commitments") or [],
                    hidden.typed_values(record),
                )
        for index, opening in enumerate(record.get("opened") or []):
            if not isinstance(opening, dict) or opening.get("to") != "all" or _opening_shape(opening, ""):
                continue
            where = f"{name}: opened[{index}] ({opening['label']} #{opening['index']})"
            commitments, typed = committed.get((opening["turn"], opening["phase"], opening["label"]), (None, False))
            if commitments is None or not 0 <= opening["index"] < len(commitments):
                problems.append(
                    f"{where}: no such hidden draw in the records of turn {opening['turn']} '{opening['phase']}'"
                )
                continue
            checked += 1
            if not hidden.check_opening(opening, commitments[opening["index"]], typed):
                problems.append(
                    f"{where}: value {json.dumps(opening['value'])[:60]} and salt do not match the commitment"
                )
    if len(hidden_commits) > 1:
        problems.append("the records name more than one hidden_commit: a game has one hidden secret")
    return checked, problems


def _sequence(path: Path) -> int | None:
    match = RECORD_NAME.match(path.name)
    return int(match["seq"]) if match else None


def _name_problems(path: Path, record: dict[str, Any] | None) -> list[str]:
    match = RECORD_NAME.match(path.name)
    if match is None:
        return [f"{path.name}: file name is not NNNN-t<turn>-<phase>.json"]
    if record is not None and (record.get("turn") != int(match["turn"]) or record.get("phase") != match["phase"]):
        said = f"the name says turn {int(match['turn'])} phase {match['phase']!r}"
        found = f"the record says turn {record.get('turn')!r} phase {record.get('phase')!r}"
        return [f"{path.name}: {said}, {found}"]
    return []


def _check_chain(
    entries: list[tuple[str, int | None, dict[str, Any] | None]],
) -> list[str]:
    """Return the problems in the chain of (name, sequence number, record), in file-name order.

    A record that could not be read (None) still counts for the sequence numbers, but the
    links on either side of it are not checked: its own problem line says enough.
    """
    problems: list[str] = []
    expected_seq = 1
    first_with: dict[tuple[str, Any], str] = {}
    for name, _, record in entries:
        for key in ("commit", "server_seed"):
            value = record.get(key) if record is not None else None
            if not isinstance(value, str):
                continue
            if (key, value) in first_with:
                problems.append(
                    f"{name}: its {key} {value[:16]}... was used already by {first_with[key, value]}: "
                    "every phase must draw a fresh seed"
                )
            else:
                first_with[key, value] = name
    for name, seq, _ in entries:
        if seq is not None:
            if seq != expected_seq:
                problems.append(
                    f"{name}: sequence number {seq}, expected {expected_seq} (a record is missing or misnumbered)"
                )
            expected_seq = seq + 1
    for (name_a, _, a), (name_b, _, b) in pairwise(entries):
        if a is None or b is None:
            continue
        if a.get("game") != b.get("game"):
            problems.append(f"{name_b}: game {b.get('game')!r} differs from {name_a}'s {a.get('game')!r}")
        if a.get("state_after") != opened_state(b):
            what = "state_before" if opened_state(b) == b.get("state_before") else "the first state edit's state_from"
            problems.append(
                f"{name_b}: {what} {str(opened_state(b))[:16]}... is not {name_a}'s "
                f"state_after {str(a.get('state_after'))[:16]}...: the chain is broken (a record dropped or reordered?)"
            )
        if a.get("next_commit") is None and "next_commit" in a:
            problems.append(f"{name_b}: follows {name_a}, which ended the game (next_commit is null)")
        elif a.get("next_commit") != b.get("commit"):
            problems.append(
                f"{name_b}: commit {str(b.get('commit'))[:16]}... is not {name_a}'s "
                f"next_commit {str(a.get('next_commit'))[:16]}...: the seed was not committed in the previous phase"
            )
        problems += _beacon_link(name_a, a, name_b, b)
    return problems


def _beacon_link(name_a: str, a: dict[str, Any], name_b: str, b: dict[str, Any]) -> list[str]:
    """Return the problems between two records' beacons: one chain for the whole game, and each
    phase's round the one the previous record promised (section 14)."""
    proof_a, proof_b = a.get("beacon_proof"), b.get("beacon_proof")
    if not isinstance(proof_a, dict) and not isinstance(proof_b, dict):
        return []
    if not isinstance(proof_a, dict) or not isinstance(proof_b, dict):
        has, lacks = (name_a, name_b) if isinstance(proof_a, dict) else (name_b, name_a)
        return [f"{lacks}: has no beacon round, but {has} has: a game names its beacon for every phase"]
    problems = []
    chain_a = {key: proof_a.get(key) for key in beacon.CHAIN_FIELDS}
    chain_b = {key: proof_b.get(key) for key in beacon.CHAIN_FIELDS}
    if chain_a != chain_b:
        differ = ", ".join(key for key in beacon.CHAIN_FIELDS if chain_a[key] != chain_b[key])
        problems.append(f"{name_b}: its beacon chain differs from {name_a}'s ({differ}): a game names one beacon")
    if a.get("next_beacon_round") != proof_b.get("round"):
        problems.append(
            f"{name_b}: beacon round {proof_b.get('round')!r} is not the round {a.get('next_beacon_round')!r} "
            f"that {name_a} promised for this phase"
        )
    return problems


def verify_records(paths: Sequence[Path], referee_key: PublicKey | None) -> VerifyReport:
    """Return the report on the record files at `paths` (each with its `.sig`) and their chain."""
    return _verify_record_files(paths, referee_key)[0]


# A record file as one pass read it: its path, its bytes (None: unreadable) and its parsed
# record (None: not a JSON object). The later checks of `verify_game_dir` take these rather than
# reading and parsing each record again.
_ReadRecord = tuple[Path, bytes | None, dict[str, Any] | None]


def _verify_record_files(
    paths: Sequence[Path], referee_key: PublicKey | None
) -> tuple[VerifyReport, list[_ReadRecord]]:
    """Return verify_records' report and each record as it was read, in file-name order."""
    report = VerifyReport()
    entries: list[tuple[str, int | None, dict[str, Any] | None]] = []
    read: list[_ReadRecord] = []
    for path in sorted((Path(p) for p in paths), key=lambda p: p.name):
        report.records += 1
        try:
            record_bytes = path.read_bytes()
        except OSError as error:
            report.problems.append(f"{path.name}: cannot read the record: {error.strerror or error}")
            entries.append((path.name, _sequence(path), None))
            read.append((path, None, None))
            continue
        sig_path = path.with_name(path.name + ".sig")
        try:
            signature: bytes | None = sig_path.read_bytes()
        except FileNotFoundError:
            signature = None
        except OSError as error:
            report.problems.append(f"{sig_path.name}: cannot read the signature: {error.strerror or error}")
            signature = b""
        record, problems, derived = _verify_record(record_bytes, signature, referee_key, path.name)
        report.problems += problems
        report.rolls += derived
        if record is not None and isinstance(record.get("orders"), list):
            report.orders += len(record["orders"])
        if record is not None and isinstance(record.get("beacon_proof"), dict):
            report.beacons += 1
            report.beacon_chain = str(record["beacon_proof"].get("chain_hash"))
        report.problems += _name_problems(path, record)
        entries.append((path.name, _sequence(path), record))
        read.append((path, record_bytes, record))
    report.problems += _check_chain(entries)
    report.openings, opening_problems = check_public_openings(entries)
    report.problems += opening_problems
    report.problems = [_one_line(line) for line in report.problems]
    return report, read


def _check_states(states_dir: Path) -> list[str]:
    problems: list[str] = []
    for path in sorted(states_dir.iterdir()):
        if path.name.startswith("."):  # a write cut short by a crash (.NAME.PID.tmp), never a state
            continue
        shown = f"states/{path.name}"
        if TEMPORARY_NAME.match(path.name):
            continue  # a write cut short by a crash: never part of the chain, removed by the next write
        if not STATE_NAME.match(path.name):
            problems.append(f"{shown}: not named <sha256>.json")
            continue
        try:
            data = path.read_bytes()
        except OSError as error:
            problems.append(f"{shown}: cannot read: {error.strerror or error}")
            continue
        digest = sha256_hex(data)
        if digest != path.name[:-5]:
            problems.append(f"{shown}: content hashes to {digest}, not to its name: the file was changed")
            continue
        try:
            state, canonical = load_canonical_json(data)
        except (UnicodeDecodeError, ValueError) as error:
            problems.append(f"{shown}: not valid JSON ({error})")
            continue
        if not canonical:
            problems.append(f"{shown}: not canonical JSON")
            continue
        previous = state.get("previous") if isinstance(state, dict) else None
        if isinstance(previous, str) and not (states_dir / f"{previous}.json").is_file():
            problems.append(f"{shown}: the state it follows, states/{previous}.json, is missing: the chain is broken")
    return problems


def _missing_states(records: Sequence[_ReadRecord], states_dir: Path) -> list[str]:
    """Return a line for each state a record names that GAMEDIR/states/ does not hold."""
    problems: list[str] = []
    for path, _, record in records:
        if record is None or "state_scheme" in record:
            continue  # unreadable (its own check said why), or states named by commitments (section
            # 15): the audit confirms those, not a file name
        for key in ("state_before", "state_after"):
            digest = record.get(key)
            named = isinstance(digest, str) and STATE_NAME.match(f"{digest}.json")
            if named and not (states_dir / f"{digest}.json").is_file():
                problems.append(f"{path.name}: its {key}, states/{digest}.json, is missing from the game's folder")
    return problems


def _card_move_problems(records: Sequence[_ReadRecord], game_dir: Path, final: Final | None) -> list[str]:
    """Return the problems in the records' card moves (section 12), replayed in chain order,
    with the deck definitions of GAMEDIR/game.yaml when it is there."""
    moves = [(path.name, record) for path, _, record in records if record and record.get("protocol") == PROTOCOL_V4]
    if not moves:
        return []
    return check_card_moves(moves, final, deck_definitions(game_dir / "game.yaml"))


def deck_definitions(config: Path) -> dict[str, dict[str, int]] | None:
    """Return each deck's cards with their copies as a game's configuration defines them
    (`options.decks.ID.cards: [{id, count}]`, count 1 by default), or None without one."""
    try:
        data = load_strict(config.read_text(encoding="utf-8"))
        decks = data["options"]["decks"]
        return {
            str(deck): {str(card["id"]): int(card.get("count", 1)) for card in definition["cards"]}
            for deck, definition in decks.items()
        }
    except (OSError, KeyError, TypeError, ValueError, AttributeError, RefereeError):
        return None


@bulk_work()
def verify_game_dir(game_dir: Path, final: bool = False) -> VerifyReport:
    """Return the report on GAMEDIR: its records against GAMEDIR/referee.pub, GAMEDIR/states/ if
    present, and the hidden draws revealed in GAMEDIR/reveals/. With `final`, the game secret
    must be revealed and prove every hidden draw."""
    return verify_game_dir_records(game_dir, final)[0]


def verify_game_dir_records(
    game_dir: Path, final: bool = False
) -> tuple[VerifyReport, list[tuple[str, dict[str, Any] | None]]]:
    """Return verify_game_dir's report and the records of GAMEDIR/records/ as it read them (file
    name, parsed record or None when unreadable), in file-name order: the public replay takes
    them from here rather than reading and parsing every record again."""
    game_dir = Path(game_dir)
    problems: list[str] = []
    key_path = game_dir / "referee.pub"
    referee_key: PublicKey | None = None
    if not key_path.is_file():
        problems.append(
            f"{key_path}: missing: the referee's public key (one OpenSSH public key line) belongs here; "
            "without it the signatures are checked, but not who made them"
        )
    else:
        try:
            referee_key = load_public_key_file(key_path)
        except RefereeError as error:
            problems.append(error.message)  # it names the file already
    records_dir = game_dir / "records"
    paths = sorted(records_dir.glob("*.json")) if records_dir.is_dir() else []
    for packed in sorted(records_dir.glob("*.json.gz")) if records_dir.is_dir() else []:
        if packed.with_suffix("") not in paths:  # a big record, attached to its reports gzip-compressed
            problems.append(
                f"{packed}: a record still packed, not checked: unpack it (gunzip {packed}, or "
                f"python3 -m gzip -d {packed}) and run verify again"
            )
    # One pass: each record is read and parsed once here, and the later checks take it from `read`.
    read: list[_ReadRecord] = []
    if paths:
        report, read = _verify_record_files(paths, referee_key)
    else:
        report = VerifyReport()
        problems.append(f"no records found in {records_dir}: nothing has been adjudicated yet")
    report.problems[:0] = problems
    hidden_files = [(path.name, data, record) for path, data, record in read if data is not None]
    for path in sorted(records_dir.glob("superseded/*/*.json")) if records_dir.is_dir() else []:
        report.superseded += 1
        shown = f"superseded/{path.parent.name}/{path.name}"
        sig_path = path.with_name(path.name + ".sig")
        signature = sig_path.read_bytes() if sig_path.is_file() else None
        data = path.read_bytes()
        record, record_problems = verify_record(data, signature, referee_key, shown)
        report.problems += record_problems
        hidden_files.append((shown, data, record))
    states_dir = game_dir / "states"
    if states_dir.is_dir():
        report.problems += _check_states(states_dir)
        report.problems += _missing_states(read, states_dir)
    revealed = verify_reveals(game_dir, referee_key, final, hidden_draws_of(hidden_files))
    report.hidden_proven, report.final = revealed.proven, revealed.final
    report.problems += revealed.problems
    report.problems += _card_move_problems(read, game_dir, revealed.final_proof)
    report.problems = [_one_line(line) for line in report.problems]
    return report, [(path.name, record) for path, _, record in read]
