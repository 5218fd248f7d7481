"""The core's envelope around a game module's state, and the hash that names it.

Every stored state (GAMEDIR/states/HASH.json) is an envelope: the game, the phase it opens and
the hash of the state before it, so that the snapshots form a hash chain of their own.
"""

from __future__ import annotations

from typing import Any

from referee.game.opened import Game
from referee.kit.contract import PhaseSpec
from referee.protocol.canonical import canonical_json, sha256_hex


def wrap_state(game: Game, state: Any, spec: PhaseSpec | None, previous: str | None) -> dict[str, Any]:
    """Wrap a module's state with what the core keeps: the phase it opens and the hash of the
    state before it, so that the snapshots form a hash chain of their own."""
    envelope = {
        "game": game.config.game,
        "module": game.module.id,
        "module_version": game.module.version,
        "turn": spec.turn if spec else None,
        "phase": spec.name if spec else None,
        "over": spec is None,
        "previous": previous,
        "state": state,
    }
    canonical_json(envelope)  # a module returning non-JSON data fails here, before anything is stored
    return envelope


def state_hash(envelope: dict[str, Any]) -> str:
    """Return the hash that names a state envelope (its file in states/)."""
    return sha256_hex(canonical_json(envelope))
