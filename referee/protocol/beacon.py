"""A public randomness beacon (protocol section 14): a drand chain, its rounds, and checking one.

A game may name a drand chain. Each phase's notice promises a round published after the last
moment orders are taken; adjudication mixes that round's randomness into the rolls transcript
(`beacon <hex>`), and the record keeps the round's signature so that anyone can check it
offline. The signature check is the `drand-verify` package (Python binding of the Rust
`drand-verify` crate); it is imported only when a beacon is checked, so records without a
beacon need nothing beyond the standard library, cryptography and yaml.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

# drand's signature schemes this verifier knows, and whether a round signs the previous one.
CHAINED_SCHEME = "pedersen-bls-chained"
SCHEMES = {CHAINED_SCHEME: True, "bls-unchained-g1-rfc9380": False, "bls-unchained-on-g1": False}
# Bytes of a public key and of a signature (compressed BLS12-381 points): a chained chain keys on
# G1 and signs on G2, the unchained ones the other way round. Checked before the library sees
# them, since it panics on a point of the wrong size.
KEY_BYTES = {CHAINED_SCHEME: 48, "bls-unchained-g1-rfc9380": 96, "bls-unchained-on-g1": 96}
SIGNATURE_BYTES = {CHAINED_SCHEME: 96, "bls-unchained-g1-rfc9380": 48, "bls-unchained-on-g1": 48}
CHAIN_FIELDS = ("chain_hash", "public_key", "scheme", "genesis_time", "period")
PROOF_FIELDS = (*CHAIN_FIELDS, "round", "signature", "previous_signature")
MAX_ROUND = (1 << 64) - 1
_HEX = re.compile(r"^(?:[0-9a-f]{2})+$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class BeaconError(ValueError):
    """A beacon chain or round is malformed, or its signature does not verify."""


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Chain:
    """A drand chain: what identifies it, the key its rounds are signed with, and its clock."""

    chain_hash: str
    public_key: str
    scheme: str
    genesis_time: int  # Unix seconds of round 1
    period: int  # seconds between rounds

    @classmethod
    def from_data(cls, data: Any) -> Chain:
        """Return the chain described by a mapping of CHAIN_FIELDS, or raise BeaconError."""
        if not isinstance(data, dict):
            raise BeaconError(f"a beacon chain is a mapping of {', '.join(CHAIN_FIELDS)}")
        missing = [key for key in CHAIN_FIELDS if key not in data]
        if missing:
            raise BeaconError(f"the beacon chain lacks {', '.join(missing)}")
        chain_hash, public_key, scheme = data["chain_hash"], data["public_key"], data["scheme"]
        if not isinstance(chain_hash, str) or not _HEX64.match(chain_hash):
            raise BeaconError("the beacon chain_hash must be 64 lower-case hex digits")
        if scheme not in SCHEMES:
            raise BeaconError(f"the beacon scheme {scheme!r} is not one of {', '.join(SCHEMES)}")
        if not isinstance(public_key, str) or not _HEX.match(public_key) or len(public_key) != 2 * KEY_BYTES[scheme]:
            raise BeaconError(
                f"the beacon public_key of a {scheme} chain must be {KEY_BYTES[scheme]} bytes in lower-case hex"
            )
        genesis, period = data["genesis_time"], data["period"]
        if not _whole(genesis) or genesis < 0 or not _whole(period) or period < 1:
            raise BeaconError("the beacon genesis_time must be Unix seconds and its period a whole number >= 1")
        return cls(chain_hash, public_key, scheme, genesis, period)

    def as_data(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in CHAIN_FIELDS}

    @property
    def chained(self) -> bool:
        """True when each round's signature covers the previous round's signature too."""
        return SCHEMES[self.scheme]

    def round_time(self, round_number: int) -> int:
        """Return when a round is published (Unix seconds): round 1 at genesis, one per period."""
        return self.genesis_time + (round_number - 1) * self.period

    def first_round_after(self, moment: float) -> int:
        """Return the first round published strictly after `moment` (Unix seconds)."""
        if moment < self.genesis_time:
            return 1
        return int((moment - self.genesis_time) // self.period) + 2


@dataclass(frozen=True)
class Round:
    """One published round: its number and signature (and, chained, the previous signature)."""

    round: int
    signature: str
    previous_signature: str | None

    @property
    def randomness(self) -> str:
        """The round's randomness, as drand defines it: SHA-256 of the signature's bytes."""
        return hashlib.sha256(bytes.fromhex(self.signature)).hexdigest()


def check_round(chain: Chain, beacon: Round) -> str:
    """Return the round's randomness (hex) once its signature verifies under the chain's key;
    raise BeaconError saying why it does not."""
    if not _whole(beacon.round) or not 1 <= beacon.round <= MAX_ROUND:
        raise BeaconError(f"beacon round {beacon.round!r} is not a whole number from 1 to 2^64-1")
    if chain.chained and beacon.previous_signature is None:
        raise BeaconError(f"a {chain.scheme} round needs the previous round's signature")
    if not chain.chained and beacon.previous_signature is not None:
        raise BeaconError(f"a {chain.scheme} round has no previous signature")
    Chain.from_data(chain.as_data())  # the key's size, before the library sees it
    size = SIGNATURE_BYTES[chain.scheme]
    for what, value in (("signature", beacon.signature), ("previous_signature", beacon.previous_signature)):
        if value is not None and (not isinstance(value, str) or not _HEX.match(value)):
            raise BeaconError(f"the beacon {what} is not lower-case hex")
        if value is not None and len(value) != 2 * size:
            raise BeaconError(f"the beacon {what} is not {size} bytes, as a {chain.scheme} signature is")
    # Imported only here, so that a player checking records without a beacon needs no extra package.
    try:
        import drand_verify  # type: ignore[import-untyped]
    except ImportError:
        raise BeaconError(
            "checking a beacon's signature needs the drand-verify package: pip install drand-verify"
        ) from None

    try:
        if chain.scheme == CHAINED_SCHEME:
            drand_verify.verify_pedersen_bls_chained(
                beacon.round, beacon.previous_signature, beacon.signature, chain.public_key
            )
        elif chain.scheme == "bls-unchained-g1-rfc9380":
            drand_verify.verify_bls_unchained_g1_rfc9380(beacon.round, beacon.signature, chain.public_key)
        else:
            drand_verify.verify_bls_unchained_on_g1(beacon.round, beacon.signature, chain.public_key)
    except ValueError as error:
        raise BeaconError(
            f"the signature of beacon round {beacon.round} does not verify under the chain's public key ({error})"
        ) from None
    return beacon.randomness


def proof_data(chain: Chain, beacon: Round) -> dict[str, Any]:
    """Return the record's `beacon_proof`: the chain and the round, all a verifier needs offline."""
    return {
        **chain.as_data(),
        "round": beacon.round,
        "signature": beacon.signature,
        "previous_signature": beacon.previous_signature,
    }


def parse_proof(data: Any) -> tuple[Chain, Round]:
    """Return the chain and round of a record's `beacon_proof`, or raise BeaconError."""
    if not isinstance(data, dict) or set(data) != set(PROOF_FIELDS):
        raise BeaconError(f"beacon_proof must be an object with exactly {', '.join(PROOF_FIELDS)}")
    chain = Chain.from_data({key: data[key] for key in CHAIN_FIELDS})
    number, signature, previous = data["round"], data["signature"], data["previous_signature"]
    if not _whole(number) or not 1 <= number <= MAX_ROUND:
        raise BeaconError(f"beacon_proof round {number!r} is not a whole number from 1 to 2^64-1")
    if not isinstance(signature, str) or not _HEX.match(signature) or signature == "":
        raise BeaconError("beacon_proof signature is not lower-case hex")
    if previous is not None and (not isinstance(previous, str) or not _HEX.match(previous)):
        raise BeaconError("beacon_proof previous_signature is not lower-case hex or null")
    return chain, Round(number, signature, previous)
