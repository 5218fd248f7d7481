"""Tests for referee.protocol.verify: a hand-built game directory, then one tampering per test."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.protocol import dice, draws
from referee.protocol.canonical import canonical_json, pretty_json, sha256_hex
from referee.protocol.records import record_transcript
from referee.protocol.signatures import (
    NAMESPACE_ORDERS,
    NAMESPACE_REFEREE,
    generate_keypair,
    load_private_key,
    load_public_key_file,
    sign,
)
from referee.protocol.verify import VerifyReport, _check_rolls, verify_game_dir, verify_record, verify_records

GAME = "test-game"
# (turn, phase, players): three adjudicated phases in sequence.
PHASES = [
    (1, "bid", ("alice", "bob")),
    (2, "round", ("alice", "bob")),
    (2, "supply", ("bob",)),
]
ROUND = "0002-t2-round.json"


def _seed(n: int) -> bytes:
    return hashlib.sha256(f"seed {n}".encode()).digest()


def _sign_file(path: Path, key_path: Path, namespace: str = NAMESPACE_REFEREE) -> None:
    signature = sign(path.read_bytes(), load_private_key(key_path), namespace)
    path.with_name(path.name + ".sig").write_text(signature)


def _write_state(game_dir: Path, state: dict[str, Any]) -> str:
    data = canonical_json(state)
    digest = sha256_hex(data)
    (game_dir / "states" / f"{digest}.json").write_bytes(data)
    return digest


def _make_record(
    n: int, turn: int, phase: str, players: tuple[str, ...], before: str, after: str, entered: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A record of `players`' orders, those of `entered` entered by the referee (version 4)."""
    seed = _seed(n)
    commit = dice.commitment(seed)
    orders = {p: sha256_hex(f"orders of {p} in {phase}".encode()) for p in players}
    own = {p: digest for p, digest in orders.items() if p not in entered}
    key = dice.phase_key(seed, dice.transcript(GAME, turn, phase, commit, own))
    rolls = draws.Dice(key)
    for player in players:
        rolls.roll("2d6", label=f"roll/{player}/attack")
    rolls.roll("1d10z", label="events/weather")
    rolls.shuffle(["a", "b", "c", "d", "e"], label="deck/shuffle")
    return {
        "protocol": "pbem-referee/4" if entered else "pbem-referee/1",
        "game": GAME,
        "turn": turn,
        "phase": phase,
        "commit": commit,
        "server_seed": seed.hex(),
        "beacon": None,
        "orders": [
            {"player": p, "sha256": orders[p], **({"by": "referee"} if p in entered else {})} for p in sorted(orders)
        ],
        "rolls": rolls.rolls,
        "state_before": before,
        "state_after": after,
        "next_commit": dice.commitment(_seed(n + 1)),
    }


@pytest.fixture
def game(tmp_path: Path) -> tuple[Path, Path]:
    """Return (game directory with three signed records, referee private key path)."""
    key_path = tmp_path / "keys" / "referee"
    key_path.parent.mkdir()
    generate_keypair(key_path, comment="referee@test")
    game_dir = tmp_path / "game"
    (game_dir / "records").mkdir(parents=True)
    (game_dir / "states").mkdir()
    shutil.copy(key_path.with_name("referee.pub"), game_dir / "referee.pub")
    state = _write_state(game_dir, {"turn": 1, "score": 0})
    for n, (turn, phase, players) in enumerate(PHASES, start=1):
        after = _write_state(game_dir, {"turn": turn, "score": n})
        record = _make_record(n, turn, phase, players, state, after)
        _write_record(game_dir, key_path, f"{n:04d}-t{turn}-{phase}.json", record)
        state = after
    return game_dir, key_path


def _write_record(game_dir: Path, key_path: Path | None, name: str, record: dict[str, Any]) -> Path:
    """Write a record; sign it with `key_path`, or leave the old signature when None."""
    path = game_dir / "records" / name
    path.write_bytes(pretty_json(record))
    if key_path is not None:
        _sign_file(path, key_path)
    return path


def _load(game_dir: Path, name: str) -> dict[str, Any]:
    return json.loads((game_dir / "records" / name).read_bytes())


def _rename(game_dir: Path, old: str, new: str) -> None:
    records = game_dir / "records"
    for suffix in ("", ".sig"):
        (records / (old + suffix)).rename(records / (new + suffix))


def _rolls_of(record: dict[str, Any]) -> int:
    return len(record["rolls"])


def test_a_good_game_directory_verifies(game: tuple[Path, Path]) -> None:
    game_dir, _ = game
    report = verify_game_dir(game_dir)
    assert report.problems == []
    assert report.ok
    assert (report.records, report.rolls, report.orders) == (3, 4 + 4 + 3, 5)
    assert report.summary() == "3 record(s), 11 roll(s), 5 order hash(es) checked: all good"


def test_the_record_holds_what_the_dice_recorded(game: tuple[Path, Path]) -> None:
    record = _load(game[0], ROUND)
    specs = {roll["label"]: roll["spec"] for roll in record["rolls"]}
    assert specs == {
        "roll/alice/attack": "2d6",
        "roll/bob/attack": "2d6",
        "events/weather": "uniform(10)",
        "deck/shuffle": "shuffle(5)",
    }


def test_a_changed_roll_value_is_caught_even_when_re_signed(
    game: tuple[Path, Path],
) -> None:
    game_dir, key_path = game
    record = _load(game_dir, ROUND)
    true_values = record["rolls"][0]["values"]
    record["rolls"][0]["values"] = [6, 6] if true_values != [6, 6] else [1, 1]
    _write_record(game_dir, key_path, ROUND, record)
    report = verify_game_dir(game_dir)
    assert report.problems == [
        f"{ROUND}: roll 'roll/alice/attack' (2d6): record says {record['rolls'][0]['values']}, "
        f"the seed gives {true_values}"
    ]
    assert not report.ok


def test_a_changed_roll_value_without_re_signing_also_breaks_the_signature(
    game: tuple[Path, Path],
) -> None:
    game_dir, _ = game
    record = _load(game_dir, ROUND)
    record["rolls"][2]["values"] = [(record["rolls"][2]["values"][0] + 1) % 10]
    _write_record(game_dir, None, ROUND, record)
    problems = verify_game_dir(game_dir).problems
    assert len(problems) == 2
    assert problems[0].startswith(f"{ROUND}: bad signature: the signature does not match the file")
    assert problems[1].startswith(f"{ROUND}: roll 'events/weather' (uniform(10)): record says")


def test_a_changed_seed_is_caught(game: tuple[Path, Path]) -> None:
    game_dir, key_path = game
    record = _load(game_dir, ROUND)
    record["server_seed"] = _seed(99).hex()
    _write_record(game_dir, key_path, ROUND, record)
    assert verify_game_dir(game_dir).problems == [
        f"{ROUND}: server_seed does not hash to commit {record['commit'][:16]}...: the seed is not the committed one"
    ]


def test_a_changed_order_hash_breaks_every_roll_of_the_phase(
    game: tuple[Path, Path],
) -> None:
    game_dir, key_path = game
    record = _load(game_dir, ROUND)
    record["orders"][1]["sha256"] = "0" * 64
    _write_record(game_dir, key_path, ROUND, record)
    problems = verify_game_dir(game_dir).problems
    assert len(problems) == _rolls_of(record)
    for problem, roll in zip(problems, record["rolls"]):
        assert problem.startswith(f"{ROUND}: roll {roll['label']!r} ({roll['spec']}): record says {roll['values']}")


def test_unsorted_orders_are_reported_and_the_rolls_still_checked(
    game: tuple[Path, Path],
) -> None:
    game_dir, key_path = game
    record = _load(game_dir, ROUND)
    record["orders"].reverse()
    _write_record(game_dir, key_path, ROUND, record)
    report = verify_game_dir(game_dir)
    assert report.problems == [f"{ROUND}: orders are not sorted by player (bob, alice)"]
    assert report.rolls == 11


def test_a_dropped_record_breaks_the_sequence_and_the_chain(
    game: tuple[Path, Path],
) -> None:
    game_dir, _ = game
    for suffix in ("", ".sig"):
        (game_dir / "records" / (ROUND + suffix)).unlink()
    problems = verify_game_dir(game_dir).problems
    assert problems[0] == "0003-t2-supply.json: sequence number 3, expected 2 (a record is missing or misnumbered)"
    assert any("0003-t2-supply.json: state_before" in p and "the chain is broken" in p for p in problems)
    assert any("0003-t2-supply.json: commit" in p and "next_commit" in p for p in problems)
    assert len(problems) == 3


def test_reordered_records_break_the_chain(game: tuple[Path, Path]) -> None:
    game_dir, _ = game
    _rename(game_dir, ROUND, "tmp.json")
    _rename(game_dir, "0003-t2-supply.json", "0002-t2-supply.json")
    _rename(game_dir, "tmp.json", "0003-t2-round.json")
    problems = verify_game_dir(game_dir).problems
    assert any(p.startswith("0002-t2-supply.json: state_before") for p in problems)
    assert any(p.startswith("0003-t2-round.json: state_before") for p in problems)
    assert any(p.startswith("0002-t2-supply.json: commit") for p in problems)
    assert all("the chain is broken" in p or "next_commit" in p for p in problems)


def test_a_missing_signature_is_caught(game: tuple[Path, Path]) -> None:
    game_dir, _ = game
    (game_dir / "records" / (ROUND + ".sig")).unlink()
    assert verify_game_dir(game_dir).problems == [f"{ROUND}: no signature ({ROUND}.sig is missing)"]


def test_a_garbled_signature_is_caught(game: tuple[Path, Path]) -> None:
    game_dir, _ = game
    (game_dir / "records" / (ROUND + ".sig")).write_text("not a signature\n")
    problems = verify_game_dir(game_dir).problems
    assert len(problems) == 1
    assert problems[0].startswith(f"{ROUND}: bad signature: this is not an armored SSH signature")


def test_a_signature_in_the_orders_namespace_is_refused(
    game: tuple[Path, Path],
) -> None:
    game_dir, key_path = game
    _sign_file(game_dir / "records" / ROUND, key_path, NAMESPACE_ORDERS)
    problems = verify_game_dir(game_dir).problems
    assert len(problems) == 1
    assert "namespace 'pbem-orders'" in problems[0] and problems[0].startswith(f"{ROUND}: bad signature")


def test_a_record_signed_by_another_key_is_caught(game: tuple[Path, Path], tmp_path: Path) -> None:
    game_dir, _ = game
    other = tmp_path / "keys" / "mallory"
    mallory = generate_keypair(other)
    _sign_file(game_dir / "records" / ROUND, other)
    referee = load_public_key_file(game_dir / "referee.pub")
    assert verify_game_dir(game_dir).problems == [
        f"{ROUND}: signed by {mallory.fingerprint}, which is not the referee key {referee.fingerprint}"
    ]


def test_a_state_file_whose_content_does_not_match_its_name_is_caught(
    game: tuple[Path, Path],
) -> None:
    game_dir, _ = game
    victim = min((game_dir / "states").iterdir())
    victim.write_bytes(canonical_json({"turn": 1, "score": 1000}))
    problems = verify_game_dir(game_dir).problems
    digest = sha256_hex(victim.read_bytes())
    assert problems == [f"states/{victim.name}: content hashes to {digest}, not to its name: the file was changed"]


def test_a_state_file_that_is_not_canonical_is_caught(game: tuple[Path, Path]) -> None:
    game_dir, _ = game
    data = b'{"b": 1, "a": 2}'
    (game_dir / "states" / f"{sha256_hex(data)}.json").write_bytes(data)
    assert verify_game_dir(game_dir).problems == [f"states/{sha256_hex(data)}.json: not canonical JSON"]


def test_malformed_json_is_a_problem_line_not_a_crash(game: tuple[Path, Path]) -> None:
    game_dir, key_path = game
    path = game_dir / "records" / ROUND
    path.write_bytes(b'{"protocol": "pbem-referee/1",\n')
    _sign_file(path, key_path)
    problems = verify_game_dir(game_dir).problems
    assert len(problems) == 1
    assert problems[0].startswith(f"{ROUND}: not valid JSON (")


def test_an_unreadable_record_path_is_a_problem_line(game: tuple[Path, Path]) -> None:
    game_dir, _ = game
    paths = sorted((game_dir / "records").glob("*.json")) + [game_dir / "records" / "0004-t3-bid.json"]
    referee = load_public_key_file(game_dir / "referee.pub")
    report = verify_records(paths, referee)
    assert report.records == 4
    assert len(report.problems) == 1
    assert report.problems[0].startswith("0004-t3-bid.json: cannot read the record:")


def test_a_record_after_the_end_of_the_game_is_caught(game: tuple[Path, Path]) -> None:
    game_dir, key_path = game
    record = _load(game_dir, ROUND)
    record["next_commit"] = None
    _write_record(game_dir, key_path, ROUND, record)
    assert verify_game_dir(game_dir).problems == [
        f"0003-t2-supply.json: follows {ROUND}, which ended the game (next_commit is null)"
    ]


def test_a_file_name_that_disagrees_with_the_record_is_caught(
    game: tuple[Path, Path],
) -> None:
    game_dir, _ = game
    _rename(game_dir, ROUND, "0002-t2-supply.json")
    assert verify_game_dir(game_dir).problems == [
        "0002-t2-supply.json: the name says turn 2 phase 'supply', the record says turn 2 phase 'round'"
    ]


def test_a_missing_referee_key_is_reported_with_where_it_belongs(
    game: tuple[Path, Path],
) -> None:
    game_dir, _ = game
    (game_dir / "referee.pub").unlink()
    problems = verify_game_dir(game_dir).problems
    assert len(problems) == 1
    assert problems[0].startswith(f"{game_dir / 'referee.pub'}: missing: the referee's public key")


def test_a_damaged_referee_key_is_reported(game: tuple[Path, Path]) -> None:
    game_dir, _ = game
    (game_dir / "referee.pub").write_text("ssh-ed25519 not-base64!\n")
    problems = verify_game_dir(game_dir).problems
    assert len(problems) == 1
    assert problems[0].startswith(f"{game_dir / 'referee.pub'}: the public key is damaged")


def test_no_records_is_a_problem_not_a_silent_success(tmp_path: Path) -> None:
    generate_keypair(tmp_path / "referee")
    report = verify_game_dir(tmp_path)
    assert report.records == 0
    assert not report.ok
    assert report.problems == [f"no records found in {tmp_path / 'records'}: nothing has been adjudicated yet"]


def test_verify_record_lists_every_structural_problem(game: tuple[Path, Path]) -> None:
    game_dir, key_path = game
    referee = load_public_key_file(game_dir / "referee.pub")
    record = _load(game_dir, ROUND)
    record["protocol"] = "pbem-referee/9"
    record["orders"].reverse()
    record["rolls"][1]["label"] = record["rolls"][0]["label"]
    record["rolls"][2]["spec"] = "3d6"
    record["turn"] = True
    record["extra"] = 1
    del record["state_after"]
    data = pretty_json(record)
    signature = sign(data, load_private_key(key_path), NAMESPACE_REFEREE)
    parsed, problems = verify_record(data, signature, referee, ROUND)
    assert parsed == record
    assert problems == [
        f"{ROUND}: unknown field 'extra' (a pbem-referee/1 record has a fixed set of fields)",
        f"{ROUND}: field 'turn' must be a whole number, not true",
        f"{ROUND}: field 'state_after' is missing",
        f"{ROUND}: protocol is 'pbem-referee/9', this verifier knows 'pbem-referee/1', 'pbem-referee/2', "
        "'pbem-referee/3', 'pbem-referee/4'",
        f"{ROUND}: orders are not sorted by player (bob, alice)",
        f"{ROUND}: label 'roll/alice/attack' is used by more than one roll",
        f"{ROUND}: roll 'events/weather' (3d6): the spec calls for 3 value(s), the record holds 1",
    ]


def test_each_roll_spec_is_read_for_the_count_it_calls_for() -> None:
    """A record's specs are read once each (kept by their text): the same spec twice is judged
    twice alike, and a spec that is none is refused every time."""
    specs = [("2d6", [1, 2]), ("2d6", [1]), ("uniform(6)", [0, 5, 3]), ("shuffle(3)", [2, 0, 1]), ("shuffle(3)", [0])]
    specs += [("2d6x", [1, 2]), ("2d6x", [1, 2]), ("d6", [1]), ("0d6", [1]), ("2d6", [1, True]), ("1d6", [2.0])]
    rolls = [{"label": f"r/{index}", "spec": spec, "values": values} for index, (spec, values) in enumerate(specs)]
    derived, problems = _check_rolls({"rolls": rolls}, None, "R")
    assert derived == 0  # no key: shapes only
    assert problems == [
        "R: roll 'r/1' (2d6): the spec calls for 2 value(s), the record holds 1",
        "R: roll 'r/4' (shuffle(3)): the spec calls for 3 value(s), the record holds 1",
        "R: roll 'r/5' (2d6x): spec is not kdN, uniform(N) or shuffle(N)",
        "R: roll 'r/6' (2d6x): spec is not kdN, uniform(N) or shuffle(N)",
        "R: roll 'r/7' (d6): spec is not kdN, uniform(N) or shuffle(N)",
        "R: roll 'r/8' (0d6): spec is not kdN, uniform(N) or shuffle(N)",
        "R: roll 'r/9' (2d6): values must be a non-empty list of whole numbers",
        "R: roll 'r/10' (1d6): values must be a non-empty list of whole numbers",
    ]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"[1, 2]", "not a JSON object"),
        (b'{"game": "a", "game": "b"}', "not valid JSON (key 'game' appears twice)"),
        (b'{"turn": NaN}', "not valid JSON (NaN is not JSON)"),
        (b"\xff\xfe", "not valid JSON ("),
    ],
)
def test_verify_record_refuses_what_is_not_a_strict_json_object(data: bytes, expected: str) -> None:
    parsed, problems = verify_record(data, None, None, "x.json")  # type: ignore[arg-type]
    assert parsed is None
    assert problems[0] == "x.json: no signature (x.json.sig is missing)"
    assert problems[1].startswith(f"x.json: {expected}")


def test_text_that_is_not_unicode_is_a_problem_line(game: tuple[Path, Path]) -> None:
    game_dir, key_path = game
    path = game_dir / "records" / ROUND
    # JSON can spell a lone surrogate, which no UTF-8 label or name can hold.
    data = path.read_bytes().replace(b'"roll/alice/attack"', b'"roll/\\ud800"', 1)
    data = data.replace(b'"alice"', b'"\\udfff"', 1)
    path.write_bytes(data)
    _sign_file(path, key_path)
    problems = verify_game_dir(game_dir).problems
    assert any(p.startswith(f"{ROUND}: cannot build the rolls transcript:") for p in problems)
    assert any(p.startswith(f"{ROUND}: rolls[0]:") for p in problems)
    assert all(p.isprintable() for p in problems)
    assert any("\\udfff" in p for p in problems)


def test_the_report_is_ok_only_without_problems() -> None:
    assert VerifyReport(records=1, rolls=0, orders=0, problems=[]).ok
    assert not VerifyReport(records=1, rolls=0, orders=0, problems=["x"]).ok


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")
def test_ssh_keygen_verifies_a_record_with_the_documented_command(
    game: tuple[Path, Path],
) -> None:
    game_dir, _ = game
    allowed = game_dir / "allowed_signers"
    allowed.write_text(f"referee {(game_dir / 'referee.pub').read_text().strip()}\n")
    record = game_dir / "records" / ROUND
    with record.open("rb") as stdin:
        result = subprocess.run(
            [
                "ssh-keygen",
                "-Y",
                "verify",
                "-f",
                str(allowed),
                "-I",
                "referee",
                "-n",
                "pbem-referee",
                "-s",
                f"{record}.sig",
            ],
            stdin=stdin,
            capture_output=True,
            text=True,
            check=False,
        )
    assert result.returncode == 0, result.stderr
    assert 'Good "pbem-referee" signature for referee' in result.stdout


# --- version 2: records with the referee's overrides -------------------------------------------


def _with_overrides(game: tuple[Path, Path]) -> dict[str, Any]:
    """Make record 2 a version 2 record: a re-roll, a result and two state edits before the phase."""
    game_dir, key_path = game
    record = _load(game_dir, ROUND)
    first = _load(game_dir, "0001-t1-bid.json")
    edited = _write_state(game_dir, {"turn": 2, "score": 1, "edited": 1})
    again = _write_state(game_dir, {"turn": 2, "score": 1, "edited": 2})
    seed = _seed(2)
    orders = {o["player"]: o["sha256"] for o in record["orders"]}
    key = dice.phase_key(seed, dice.transcript(GAME, 2, "round", record["commit"], orders))
    rolls = draws.Dice(key)
    rolls.roll("2d6", label="roll/alice/attack")
    rolls.roll("2d6", label="roll/alice/attack/reroll-1")
    rolls.roll("2d6", label="roll/bob/attack")
    record["protocol"] = "pbem-referee/2"
    record["rolls"] = rolls.rolls
    record["state_before"] = again
    record["overrides"] = [
        {
            "id": 1,
            "kind": "state",
            "path": "/edited",
            "reason": "r",
            "state_from": first["state_after"],
            "state_to": edited,
        },
        {"id": 2, "kind": "state", "path": "/edited", "reason": "r", "state_from": edited, "state_to": again},
        {
            "id": 3,
            "kind": "reroll",
            "label": "roll/alice/attack",
            "new_label": "roll/alice/attack/reroll-1",
            "reason": "cocked die",
        },
        {"id": 4, "kind": "result", "label": "roll/bob/attack", "values": [6, 6], "reason": "agreed"},
        {"id": 5, "kind": "order", "player": "bob", "sha256": "c" * 64, "replaces": orders["bob"], "reason": "r"},
        {"id": 6, "kind": "withdraw", "withdraws": 9, "reason": "r"},
    ]
    _write_record(game_dir, key_path, ROUND, record)
    return record


def test_a_version_2_record_verifies_and_chains_through_its_state_edits(game: tuple[Path, Path]) -> None:
    _with_overrides(game)
    report = verify_game_dir(game[0])
    assert report.ok, report.problems


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda r: r["overrides"][0].update(state_from="0" * 64), "is not 0001-t1-bid.json's state_after"),
        (lambda r: r["overrides"][1].update(state_from="0" * 64), "override #2 edits state 0000000000000000..."),
        (lambda r: r.update(state_before="0" * 64), "the state edits lead to"),
        (lambda r: r["overrides"][2].update(new_label="roll/x"), "needs both in rolls"),
        (lambda r: r["overrides"][3].update(label="roll/x"), "'roll/x', which is not in rolls"),
        (lambda r: r["overrides"][4].update(replaces="d" * 64), "which is not bob's order in orders"),
        (lambda r: r["overrides"][5].update(withdraws="9"), 'withdraws "9" is not number'),
        (lambda r: r["overrides"][5].pop("reason"), "must have exactly the fields id, kind, reason, withdraws"),
        (lambda r: r["overrides"].reverse(), "overrides are not in the order made"),
        (lambda r: r.update(overrides=[]), "overrides is empty"),
        (lambda r: r.pop("overrides"), "field 'overrides' is missing"),
        (lambda r: r.update(protocol="pbem-referee/1"), "unknown field 'overrides' (a pbem-referee/1 record"),
    ],
)
def test_version_2_problems(game: tuple[Path, Path], change: Any, problem: str) -> None:
    record = _with_overrides(game)
    change(record)
    _write_record(game[0], game[1], ROUND, record)
    problems = verify_game_dir(game[0]).problems
    assert any(problem in p for p in problems), problems


def _doc_script(tmp_path: Path) -> Path:
    """Save the check script of docs/protocol.md section 7 and return its path."""
    text = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text()
    section = text[text.index("Checking a record by hand") :]
    match = re.search(r"^```python\n(.*?)^```", section, flags=re.MULTILINE | re.DOTALL)
    assert match
    script = tmp_path / "check_record.py"
    script.write_text(match.group(1))
    return script


def test_the_doc_script_checks_a_version_2_record(game: tuple[Path, Path], tmp_path: Path) -> None:
    record = _with_overrides(game)
    script = _doc_script(tmp_path)
    path = tmp_path / ROUND
    path.write_bytes(pretty_json(record))
    result = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("OK: 3 rolls re-derived")
    assert "override #3 reroll: roll/alice/attack" in result.stdout


def test_a_seed_used_in_two_phases_is_caught(game: tuple[Path, Path]) -> None:
    game_dir, key_path = game
    first, second = _load(game_dir, "0001-t1-bid.json"), _load(game_dir, ROUND)
    second["server_seed"], second["commit"] = first["server_seed"], first["commit"]
    _write_record(game_dir, key_path, ROUND, second)
    problems = verify_game_dir(game_dir).problems
    assert f"{ROUND}: its commit {first['commit'][:16]}... was used already by 0001-t1-bid.json: " in "\n".join(
        problems
    )
    assert any(line.startswith(f"{ROUND}: its server_seed ") for line in problems)


def test_a_state_a_record_names_must_be_in_the_folder(game: tuple[Path, Path]) -> None:
    game_dir, _ = game
    digest = _load(game_dir, ROUND)["state_after"]
    (game_dir / "states" / f"{digest}.json").unlink()
    problems = verify_game_dir(game_dir).problems
    assert f"{ROUND}: its state_after, states/{digest}.json, is missing from the game's folder" in problems


def test_a_temporary_file_left_by_a_crash_is_not_a_problem(game: tuple[Path, Path]) -> None:
    game_dir, _ = game
    (game_dir / "states" / f".{'0' * 64}.json.4242.tmp").write_bytes(b'{"half')
    assert verify_game_dir(game_dir).problems == []


def _entered_round(game_dir: Path) -> dict[str, Any]:
    """The round's record made again with bob's orders entered by the referee (version 4)."""
    record = _load(game_dir, ROUND)
    return _make_record(2, 2, "round", ("alice", "bob"), record["state_before"], record["state_after"], ("bob",))


def test_an_order_the_referee_entered_is_listed_but_not_transcribed(game: tuple[Path, Path], tmp_path: Path) -> None:
    game_dir, key_path = game
    record = _entered_round(game_dir)
    _write_record(game_dir, key_path, ROUND, record)
    assert verify_game_dir(game_dir).problems == []
    assert "order bob " not in record_transcript(record).decode()
    script = _doc_script(tmp_path)
    result = subprocess.run(
        [sys.executable, str(script), str(game_dir / "records" / ROUND)], capture_output=True, text=True
    )
    assert result.returncode == 0 and result.stdout.startswith("OK: 4 rolls"), result.stdout + result.stderr


def test_rolls_made_with_the_referees_order_in_the_transcript_are_caught(game: tuple[Path, Path]) -> None:
    game_dir, key_path = game
    record = _load(game_dir, ROUND)  # rolls derived with bob's hash in the transcript
    record["protocol"] = "pbem-referee/4"
    record["orders"][1]["by"] = "referee"
    _write_record(game_dir, key_path, ROUND, record)
    assert any("the seed gives" in line or "do not match" in line for line in verify_game_dir(game_dir).problems)


@pytest.mark.parametrize(
    ("protocol", "by", "expected"),
    [
        ("pbem-referee/1", "referee", "'by' may only say \"referee\", and only in a pbem-referee/4 record"),
        ("pbem-referee/4", "bob", "'by' may only say \"referee\", and only in a pbem-referee/4 record"),
    ],
)
def test_a_by_key_is_only_the_referees_and_only_in_version_4(
    game: tuple[Path, Path], protocol: str, by: str, expected: str
) -> None:
    game_dir, key_path = game
    record = _entered_round(game_dir)
    record["protocol"], record["orders"][1]["by"] = protocol, by
    _write_record(game_dir, key_path, ROUND, record)
    assert f"{ROUND}: orders[1]: {expected}" in verify_game_dir(game_dir).problems
