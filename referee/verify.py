"""Check a game's public records (protocol sections 1, 3, 4 and 5) the way a player would.

Every check yields a problem line naming the file it is about; nothing here stops at the
first problem or raises on bad input, so one run lists everything that is wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any, TypeGuard

from referee import PROTOCOL, dice
from referee.canonical import canonical_json, sha256_hex
from referee.errors import RefereeError
from referee.signatures import (
    NAMESPACE_REFEREE,
    PublicKey,
    load_public_key_file,
    verify,
)

RECORD_NAME = re.compile(r"^(?P<seq>[0-9]{4})-t(?P<turn>[0-9]+)-(?P<phase>.+)\.json$")
STATE_NAME = re.compile(r"^[0-9a-f]{64}\.json$")
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


@dataclass
class VerifyReport:
    """What a verification run looked at and every problem it found."""

    records: int = 0
    rolls: int = 0
    orders: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems

    def summary(self) -> str:
        """Return one line saying what was checked and whether it all held."""
        checked = f"{self.records} record(s), {self.rolls} roll(s), {self.orders} order hash(es) checked"
        if self.ok:
            return f"{checked}: all good"
        return f"{checked}: {len(self.problems)} problem(s)"


class _DuplicateKeyError(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # A signed text with a key twice means whatever the reader's JSON library picks.
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKeyError(f"key {key!r} appears twice")
        result[key] = value
    return result


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _load_json(data: bytes) -> Any:
    """Return the parsed JSON value of `data`; raises ValueError on anything but strict JSON."""
    return json.loads(
        data.decode("utf-8"),
        object_pairs_hook=_no_duplicates,
        parse_constant=_refuse_constant,
    )


def _one_line(text: str) -> str:
    """Return `text` with line breaks, control characters and lone surrogates escaped.

    Problem lines quote untrusted text; escaping keeps each on one printable line.
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_signature(
    record_bytes: bytes,
    signature: str | bytes | None,
    referee_key: PublicKey | None,
    name: str,
) -> list[str]:
    if signature is None:
        return [f"{name}: no signature ({name}.sig is missing)"]
    try:
        signer = verify(record_bytes, signature, NAMESPACE_REFEREE)
    except RefereeError as error:
        return [f"{name}: bad signature: {error.message}"]
    except ValueError as error:  # a malformed armor the signature module did not wrap
        return [f"{name}: bad signature: {error}"]
    if referee_key is not None and signer != referee_key:
        return [f"{name}: signed by {signer.fingerprint}, which is not the referee key {referee_key.fingerprint}"]
    return []


def _check_fields(record: dict[str, Any], name: str) -> list[str]:
    problems: list[str] = []
    for key in sorted(set(record) - set(_FIELDS)):
        problems.append(f"{name}: unknown field {key!r} (a {PROTOCOL} record has a fixed set of fields)")
    for key, (types, wanted) in _FIELDS.items():
        if key not in record:
            problems.append(f"{name}: field {key!r} is missing")
            continue
        value = record[key]
        if not isinstance(value, types) or isinstance(value, bool):
            problems.append(f"{name}: field {key!r} must be {wanted}, not {json.dumps(value)[:60]}")
    if "protocol" in record and record["protocol"] != PROTOCOL:
        problems.append(f"{name}: protocol is {record['protocol']!r}, this verifier knows {PROTOCOL!r}")
    if _is_int(record.get("turn")) and record["turn"] < 0:
        problems.append(f"{name}: turn {record['turn']} is negative")
    for key in ("commit", "server_seed", "state_before", "state_after", "next_commit"):
        value = record.get(key)
        if isinstance(value, str) and not _HEX64.match(value):
            problems.append(f"{name}: {key} {value[:70]!r} is not 64 lower-case hex digits")
    beacon = record.get("beacon")
    if isinstance(beacon, str) and not _HEX.match(beacon):
        problems.append(f"{name}: beacon {beacon[:70]!r} is not lower-case hex")
    return problems


def _check_orders(record: dict[str, Any], name: str) -> tuple[dict[str, str] | None, list[str]]:
    """Return the player -> sha256 map for the transcript (None if unusable) and the problems."""
    orders = record.get("orders")
    if not isinstance(orders, list):
        return None, []
    problems: list[str] = []
    by_player: dict[str, str] = {}
    players: list[str] = []
    # Every problem found in this loop makes the map unusable for the transcript.
    for index, entry in enumerate(orders):
        where = f"{name}: orders[{index}]"
        if not isinstance(entry, dict) or set(entry) != {"player", "sha256"}:
            problems.append(f"{where} must be an object with exactly 'player' and 'sha256'")
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
    return (by_player if usable else None), problems


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


def _check_rolls(record: dict[str, Any], key: bytes | None, name: str) -> tuple[int, list[str]]:
    """Return how many rolls were re-derived and the problems found."""
    rolls = record.get("rolls")
    if not isinstance(rolls, list):
        return 0, []
    problems: list[str] = []
    seen: set[str] = set()
    derived = 0
    for index, roll in enumerate(rolls):
        where = f"{name}: rolls[{index}]"
        if not isinstance(roll, dict) or set(roll) != {"label", "spec", "values"}:
            problems.append(f"{where} must be an object with exactly 'label', 'spec' and 'values'")
            continue
        label, spec, values = roll["label"], roll["spec"], roll["values"]
        if not isinstance(label, str):
            problems.append(f"{where}: label must be a text")
            continue
        try:
            dice.check_label(label)
        except ValueError as error:  # DiceError, or UnicodeEncodeError for a lone surrogate
            problems.append(f"{where}: {error}")
            continue
        if label in seen:
            problems.append(f"{name}: label {label!r} is used by more than one roll")
            continue
        seen.add(label)
        head = f"{name}: roll {label!r} ({spec})" if isinstance(spec, str) else f"{name}: roll {label!r}"
        match = _ROLL_SPEC.match(spec) if isinstance(spec, str) else None
        if match is None:
            problems.append(f"{head}: spec is not kdN, uniform(N) or shuffle(N)")
            continue
        if not isinstance(values, list) or not values or not all(_is_int(v) for v in values):
            problems.append(f"{head}: values must be a non-empty list of whole numbers")
            continue
        # The count is checked before deriving so a tampered spec like 10**9d6 cannot stall us.
        wanted = match["count"] or match["size"]
        if wanted is not None and int(wanted) != len(values):
            problems.append(f"{head}: the spec calls for {int(wanted)} value(s), the record holds {len(values)}")
            continue
        if key is None:
            continue
        try:
            expected = dice.derive(key, label, spec, len(values))
        except ValueError as error:
            problems.append(f"{head}: {error}")
            continue
        derived += 1
        if expected != values:
            problems.append(f"{head}: record says {values}, the seed gives {expected}")
    return derived, problems


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
    problems = _check_signature(record_bytes, signature, referee_key, name)
    try:
        record = _load_json(record_bytes)
    except (UnicodeDecodeError, ValueError) as error:
        return None, problems + [f"{name}: not valid JSON ({error})"], 0
    if not isinstance(record, dict):
        return None, problems + [f"{name}: not a JSON object"], 0
    problems += _check_fields(record, name)
    orders, order_problems = _check_orders(record, name)
    problems += order_problems
    key, key_problems = _phase_key(record, orders, name)
    problems += key_problems
    derived, roll_problems = _check_rolls(record, key, name)
    return record, problems + roll_problems, derived


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
        if a.get("state_after") != b.get("state_before"):
            problems.append(
                f"{name_b}: state_before {str(b.get('state_before'))[:16]}... is not {name_a}'s "
                f"state_after {str(a.get('state_after'))[:16]}...: the chain is broken (a record dropped or reordered?)"
            )
        if a.get("next_commit") is None and "next_commit" in a:
            problems.append(f"{name_b}: follows {name_a}, which ended the game (next_commit is null)")
        elif a.get("next_commit") != b.get("commit"):
            problems.append(
                f"{name_b}: commit {str(b.get('commit'))[:16]}... is not {name_a}'s "
                f"next_commit {str(a.get('next_commit'))[:16]}...: the seed was not committed in the previous phase"
            )
    return problems


def verify_records(paths: Sequence[Path], referee_key: PublicKey | None) -> VerifyReport:
    """Return the report on the record files at `paths` (each with its `.sig`) and their chain."""
    report = VerifyReport()
    entries: list[tuple[str, int | None, dict[str, Any] | None]] = []
    for path in sorted((Path(p) for p in paths), key=lambda p: p.name):
        report.records += 1
        try:
            record_bytes = path.read_bytes()
        except OSError as error:
            report.problems.append(f"{path.name}: cannot read the record: {error.strerror or error}")
            entries.append((path.name, _sequence(path), None))
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
        report.problems += _name_problems(path, record)
        entries.append((path.name, _sequence(path), record))
    report.problems += _check_chain(entries)
    report.problems = [_one_line(line) for line in report.problems]
    return report


def _check_states(states_dir: Path) -> list[str]:
    problems: list[str] = []
    for path in sorted(states_dir.iterdir()):
        shown = f"states/{path.name}"
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
            canonical = canonical_json(_load_json(data))
        except (UnicodeDecodeError, ValueError) as error:
            problems.append(f"{shown}: not valid JSON ({error})")
            continue
        if canonical != data:
            problems.append(f"{shown}: not canonical JSON")
            continue
        previous = _load_json(data).get("previous") if data.startswith(b"{") else None
        if isinstance(previous, str) and not (states_dir / f"{previous}.json").is_file():
            problems.append(f"{shown}: the state it follows, states/{previous}.json, is missing: the chain is broken")
    return problems


def verify_game_dir(game_dir: Path) -> VerifyReport:
    """Return the report on GAMEDIR: its records against GAMEDIR/referee.pub, and GAMEDIR/states/ if present."""
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
    if paths:
        report = verify_records(paths, referee_key)
    else:
        report = VerifyReport()
        problems.append(f"no records found in {records_dir}: nothing has been adjudicated yet")
    report.problems[:0] = problems
    states_dir = game_dir / "states"
    if states_dir.is_dir():
        report.problems += _check_states(states_dir)
    report.problems = [_one_line(line) for line in report.problems]
    return report
