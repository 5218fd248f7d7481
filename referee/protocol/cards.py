"""What a hidden shuffle of cards states, and how a card's move is committed (docs/protocol.md,
section 12; `pbem-referee/4`).

A shuffle's inputs are canonical, the ids sorted, and its record entry says what they are: the
deck's definition (`definition_source`) or piles of the deck gathered again (`piles_source`).
A card that moves unseen (a face-down discard, a card put back) is listed with a commitment to
its position, salted from the phase's hidden key. `referee.protocol.piles` checks them.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from referee.protocol.canonical import canonical_json, sha256_hex

MOVE_PREFIX = "pbem-move/1"


def canonical_inputs(items: Iterable[str]) -> list[str]:
    """Return a shuffle's canonical inputs: the ids sorted (copies side by side)."""
    return sorted(items)


def cards_sha256(cards: Mapping[str, int] | Iterable[str]) -> str:
    """Return the SHA-256 of a multiset of card ids: canonical JSON of {id: copies}."""
    counts = Counter(cards) if not isinstance(cards, Mapping) else Counter(dict(cards))
    return sha256_hex(canonical_json({card: counts[card] for card in sorted(counts) if counts[card]}))


def definition_source(
    definition: str, cards: Mapping[str, int], set_aside: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """Return the source of a shuffle of a deck as its definition gives it; `set_aside` names the
    cards (with copies) the definition sets aside, left out of this shuffle."""
    source: dict[str, Any] = {"definition": definition, "cards_sha256": cards_sha256(cards)}
    if set_aside:
        source["set_aside"] = _counts(set_aside)
    return source


def piles_source(piles: Sequence[str], brought_in: Mapping[str, int] | None = None) -> dict[str, Any]:
    """Return the source of a shuffle that gathers a deck's piles (`draw`, `discard`), with the
    set-aside cards `brought_in` (with copies) added to them."""
    source: dict[str, Any] = {"piles": list(piles)}
    if brought_in:
        source["brought_in"] = _counts(brought_in)
    return source


def _counts(cards: Mapping[str, int]) -> dict[str, int]:
    return {card: int(cards[card]) for card in sorted(cards) if cards[card]}


def move_salt(key: bytes, seq: int) -> bytes:
    """Return the salt of the secret move at `seq` in a record's card_moves: from the phase's
    hidden key, so nobody can test a guess before the game secret is out."""
    return hmac.digest(key, MOVE_PREFIX.encode("ascii") + seq.to_bytes(8, "big"), "sha256")


def move_commitment(salt: bytes, deck: str, label: str, index: int) -> str:
    """Return the commitment to the position a secret move took."""
    line = f"{MOVE_PREFIX} {deck} {label} {index}\n"
    return hashlib.sha256(salt + line.encode("utf-8")).hexdigest()
