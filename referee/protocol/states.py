"""Hiding state commitments (docs/protocol.md, section 15): what a record publishes of a state.

A record of version 4 with `state_scheme` names each state it mentions (`state_before`,
`state_after`, a state edit's `state_from` and `state_to`) by a commitment keyed with the game
secret, not by the state's plain SHA-256: where the hidden states are few, a player who could
hash each candidate state would find the opponent's by matching the record. The key is
revealed with the game secret (`referee reveal --final`), and the public audit then confirms
every commitment by replaying the game.
"""

from __future__ import annotations

import hmac
from typing import Any

from referee.protocol.canonical import canonical_json

STATE_SCHEME = "pbem-referee-state/1"
_STATE_KEY_LABEL = STATE_SCHEME.encode()


def state_key(game_secret: bytes) -> bytes:
    """Return the key of a game's state commitments: HMAC-SHA256(game_secret, "pbem-referee-state/1")."""
    return hmac.digest(game_secret, _STATE_KEY_LABEL, "sha256")


def state_commitment(key: bytes, envelope: Any, canonical: bytes | None = None) -> str:
    """Return the public commitment to a state envelope: hex HMAC-SHA256(state_key, canonical JSON);
    `canonical`: the envelope's canonical JSON, when the caller has it already."""
    return hmac.digest(key, canonical_json(envelope) if canonical is None else canonical, "sha256").hex()
