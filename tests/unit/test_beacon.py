"""Tests for referee.protocol.beacon against real drand rounds (tests/vectors/beacon/): the
signature checks of both mainnet schemes, the randomness, the round clock, and tampering."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.protocol.beacon import BeaconError, Chain, Round, check_round, parse_proof, proof_data

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "beacon"
CHAINS = json.loads((VECTORS / "chains.json").read_text(encoding="utf-8"))
ROUNDS = sorted(path.stem for path in VECTORS.glob("*-*.json"))
# Public keys of other drand chains (drand-verify's tests: the unchained testnet, fastnet), to
# check that a round verifies under its own chain's key only.
OTHER_KEYS = {
    "pedersen-bls-chained": "8200fc249deb0148eb918d6e213980c5d01acd7fc251900d9260136da3b54836"
    "ce125172399ddc69c4e3e11429b62c11",
    "bls-unchained-g1-rfc9380": "a0b862a7527fee3a731bcb59280ab6abd62d5c0b6ea03dc4ddf6612fdfc9d01f"
    "01c31542541771903475eb1ec6615f8d0df0b8b6dce385811d6dcf8cbefb8759e5e616a3dfd054c928940766d9a5"
    "b9db91e3b697e5d70a975181e007f87fca5e",
}


def chain(name: str) -> Chain:
    return Chain.from_data(CHAINS[name])


def published(stem: str) -> tuple[Chain, Round, str]:
    """Return a vector's chain, its round, and the randomness drand published for it."""
    data = json.loads((VECTORS / f"{stem}.json").read_text(encoding="utf-8"))
    return (
        chain(stem.partition("-")[0]),
        Round(data["round"], data["signature"], data.get("previous_signature")),
        data["randomness"],
    )


def test_there_are_real_rounds_of_both_schemes() -> None:
    assert {stem.partition("-")[0] for stem in ROUNDS} == {"quicknet", "default"}
    assert len(ROUNDS) >= 4


@pytest.mark.parametrize("stem", ROUNDS)
def test_a_published_round_verifies_and_gives_drands_randomness(stem: str) -> None:
    beacon_chain, beacon, randomness = published(stem)
    assert check_round(beacon_chain, beacon) == randomness


def _flip(hex_text: str, at: int = 10) -> str:
    return hex_text[:at] + ("0" if hex_text[at] != "0" else "1") + hex_text[at + 1 :]


@pytest.mark.parametrize("stem", ROUNDS)
def test_a_tampered_round_is_refused(stem: str) -> None:
    beacon_chain, beacon, _ = published(stem)
    other_chain, other, _ = published(next(s for s in ROUNDS if s != stem and s.startswith(stem.partition("-")[0])))
    tampered = [
        Round(beacon.round + 1, beacon.signature, beacon.previous_signature),  # another round
        Round(beacon.round, other.signature, beacon.previous_signature),  # a real signature of another round
        Round(beacon.round, _flip(beacon.signature), beacon.previous_signature),  # not a point of the curve
        Round(beacon.round, beacon.signature[:-2], beacon.previous_signature),  # too short
    ]
    if beacon.previous_signature is not None:
        tampered.append(Round(beacon.round, beacon.signature, other.previous_signature))
    for bad in tampered:
        with pytest.raises(BeaconError):
            check_round(beacon_chain, bad)
    wrong_key = Chain(**{**beacon_chain.as_data(), "public_key": OTHER_KEYS[beacon_chain.scheme]})
    with pytest.raises(BeaconError, match="does not verify"):
        check_round(wrong_key, beacon)
    swapped = Chain(**{**beacon_chain.as_data(), "public_key": other_chain_key(stem)})
    with pytest.raises(BeaconError, match="bytes"):
        check_round(swapped, beacon)


def other_chain_key(stem: str) -> str:
    return str(CHAINS["default" if stem.startswith("quicknet") else "quicknet"]["public_key"])


@pytest.mark.parametrize(
    "signature, previous",
    [("zz" * 48, None), ("B7" * 48, None), ("", None)],
)
def test_a_malformed_signature_is_refused_before_the_library_sees_it(signature: str, previous: Any) -> None:
    # drand_verify panics (an exception outside Exception) on text that is not hex
    with pytest.raises(BeaconError, match="hex"):
        check_round(chain("quicknet"), Round(123, signature, previous))


def test_a_chained_round_needs_its_previous_signature_and_an_unchained_one_has_none() -> None:
    _, quick, _ = published("quicknet-123")
    _, default, _ = published("default-72785")
    with pytest.raises(BeaconError, match="previous"):
        check_round(chain("default"), Round(default.round, default.signature, None))
    with pytest.raises(BeaconError, match="no previous"):
        check_round(chain("quicknet"), Round(quick.round, quick.signature, default.signature))


def test_the_round_clock() -> None:
    quicknet = chain("quicknet")
    genesis = quicknet.genesis_time
    assert quicknet.round_time(1) == genesis
    assert quicknet.round_time(123) == genesis + 122 * 3
    # the first round published strictly after a moment
    assert quicknet.first_round_after(genesis - 100) == 1
    assert quicknet.first_round_after(genesis) == 2
    assert quicknet.first_round_after(genesis + 2.9) == 2
    assert quicknet.first_round_after(genesis + 3) == 3
    for moment in (genesis + 1000, genesis + 1001.5, genesis + 1002):
        number = quicknet.first_round_after(moment)
        assert quicknet.round_time(number) > moment >= quicknet.round_time(number - 1)


def test_a_proof_round_trips_and_a_malformed_one_is_named() -> None:
    beacon_chain, beacon, _ = published("default-3311596")
    proof = proof_data(beacon_chain, beacon)
    assert parse_proof(proof) == (beacon_chain, beacon)
    assert list(proof) == [
        "chain_hash",
        "public_key",
        "scheme",
        "genesis_time",
        "period",
        "round",
        "signature",
        "previous_signature",
    ]
    for change, words in [
        ({"round": "3311596"}, "round"),
        ({"round": 0}, "round"),
        ({"scheme": "bls-made-up"}, "scheme"),
        ({"chain_hash": "ab"}, "chain_hash"),
        ({"period": 0}, "period"),
        ({"signature": beacon.signature.upper()}, "signature"),
        ({"extra": 1}, "exactly"),
    ]:
        with pytest.raises(BeaconError, match=words):
            parse_proof({**proof, **change})
