"""The core's envelope around a game module's state, the hash that names it in the referee's
own folder, and the commitment that names it in public.

Every stored state (GAMEDIR/states/HASH.json) is an envelope: the game, the phase it opens and
the hash of the state before it, so that the snapshots form a hash chain of their own. The
plain hash stays private; records name a state by its hiding commitment (protocol section 15).
"""

from __future__ import annotations

from typing import Any

from referee.game.opened import Game
from referee.kit.contract import GameModule, PhaseSpec
from referee.protocol.canonical import canonical_json, sha256_hex
from referee.protocol.states import STATE_SCHEME, state_commitment, state_key


def wrap_state(game: Game, state: Any, spec: PhaseSpec | None, previous: str | None) -> dict[str, Any]:
    """Wrap a module's state with what the core keeps: the phase it opens and the hash of the
    state before it, so that the snapshots form a hash chain of their own."""
    return envelope_of(game.config.game, game.module, state, spec, previous)


def envelope_of(
    game_name: str, module: GameModule, state: Any, spec: PhaseSpec | None, previous: str | None
) -> dict[str, Any]:
    """Return the envelope `wrap_state` makes, from the game's name and module alone (the public
    audit has no game directory)."""
    envelope = {
        "game": game_name,
        "module": module.id,
        "module_version": module.version,
        "turn": spec.turn if spec else None,
        "phase": spec.name if spec else None,
        "over": spec is None,
        "previous": previous,
        "state": state,
    }
    envelope_bytes(envelope)  # a module returning non-JSON data fails here, before anything is stored
    return envelope


_MADE_LATELY = 4
_made: list[tuple[dict[str, Any], bytes]] = []  # envelopes serialised lately, newest last


def envelope_bytes(envelope: dict[str, Any]) -> bytes:
    """Return an envelope's canonical JSON, made once for the envelopes made lately: adjudicating
    a phase checks, commits to, hashes and stores the state it leaves (a long phase's is large),
    and an envelope is never changed once made."""
    for made, data in _made:
        if made is envelope:
            return data
    data = canonical_json(envelope)
    _made.append((envelope, data))
    del _made[:-_MADE_LATELY]
    return data


def state_hash(envelope: dict[str, Any]) -> str:
    """Return the hash that names a state envelope (its file in states/)."""
    return sha256_hex(envelope_bytes(envelope))


STATE_SCHEME_META = "state_scheme"  # the journal's meta key: set when a game's first phase opens


def public_state(game: Game, envelope: dict[str, Any]) -> str:
    """Return what a record names a state by: its commitment under the game secret, or, for a
    game begun before (protocol section 15), its plain hash as records of versions 1 to 3 did."""
    secret = game.dir.hidden_secret()
    if secret is None or state_scheme(game) is None:
        return state_hash(envelope)
    return state_commitment(state_key(secret), envelope, envelope_bytes(envelope))


def state_scheme(game: Game) -> str | None:
    """Return the record's `state_scheme` (section 15), or None when states go by plain hash."""
    scheme = game.dir.get_meta(STATE_SCHEME_META)
    return STATE_SCHEME if scheme == STATE_SCHEME and game.dir.hidden_secret() else None
