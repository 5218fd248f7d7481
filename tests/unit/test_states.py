"""Tests for referee.protocol.states (protocol section 15): the vectors, computed here with
nothing but hmac and hashlib as a player's checker would."""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

import pytest

from referee.protocol.canonical import canonical_json, load_json, pretty_json
from referee.protocol.states import state_commitment, state_key
from referee.protocol.verify import verify_record

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "states"


def _read(path: Path) -> tuple[dict[str, str], bytes]:
    head, _, body = path.read_text(encoding="utf-8").partition("\n\n")
    headers = dict(line.split(": ", 1) for line in head.splitlines())
    return headers, body.rstrip("\n").encode("utf-8")  # the file ends its one-line body with LF


@pytest.mark.parametrize("path", sorted(VECTORS.glob("*.txt")), ids=lambda p: p.stem)
def test_state_commitment_vector(path: Path) -> None:
    headers, body = _read(path)
    assert headers["expect"] == "success"
    secret = bytes.fromhex(headers["game_secret"])
    key = hmac.digest(secret, b"pbem-referee-state/1", "sha256")
    assert key.hex() == headers["state_key"] == state_key(secret).hex()
    assert hmac.digest(key, body, "sha256").hex() == headers["state_commitment"]
    assert hashlib.sha256(body).hexdigest() == headers["sha256"] != headers["state_commitment"]
    envelope = load_json(body)
    assert canonical_json(envelope) == body and state_commitment(key, envelope) == headers["state_commitment"]


def test_the_vectors_differ_in_one_hidden_leaf_only() -> None:
    (a, body_a), (b, body_b) = (_read(p) for p in sorted(VECTORS.glob("*.txt")))
    one, other = load_json(body_a), load_json(body_b)
    other["state"]["red"]["reserve"] = one["state"]["red"]["reserve"]
    assert one == other and a["state_commitment"] != b["state_commitment"]


def _record(**fields: object) -> bytes:
    record = {
        "protocol": "pbem-referee/4",
        "game": "g",
        "turn": 1,
        "phase": "round",
        "commit": hashlib.sha256(bytes(32)).hexdigest(),
        "server_seed": bytes(32).hex(),
        "beacon": None,
        "orders": [],
        "rolls": [],
        "state_before": "a" * 64,
        "state_after": "b" * 64,
        "next_commit": None,
        "state_scheme": "pbem-referee-state/1",
    }
    record.update(fields)
    return pretty_json(record)


def test_verify_knows_the_state_scheme_of_version_4_only() -> None:
    assert verify_record(_record(), None, None, "r.json")[1] == ["r.json: no signature (r.json.sig is missing)"]
    problems = verify_record(_record(state_scheme="pbem-referee-state/9"), None, None, "r.json")[1]
    assert (
        "r.json: state_scheme 'pbem-referee-state/9' is unknown (this verifier knows 'pbem-referee-state/1')"
        in problems
    )
    problems = verify_record(_record(protocol="pbem-referee/3"), None, None, "r.json")[1]
    assert any("unknown field 'state_scheme'" in p for p in problems)
