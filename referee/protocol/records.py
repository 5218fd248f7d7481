"""The public record of a phase (docs/protocol.md, sections 5, 8 and 11): its versions, its
fields, and the transcript a verifier rebuilds from it.

`phase_record` is the one place a record is assembled; `referee.protocol.verify` checks what it
makes. A record is written as pretty JSON (`referee.protocol.canonical.pretty_json`) and signed
by the referee.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, Literal, Protocol

from referee.protocol.dice import transcript

PROTOCOL = "pbem-referee/1"
# A record carrying the referee's overrides (section 11); others stay version 1.
PROTOCOL_WITH_OVERRIDES = "pbem-referee/2"
# A record with hidden draws or openings of them (section 8); it may list overrides too.
PROTOCOL_WITH_HIDDEN = "pbem-referee/3"
# Version 4: a record whose hidden shuffles say what they shuffled and whose cards name the
# positions they take (section 12), that lists an order the referee entered for a player
# (section 13), whose transcript mixes in a public beacon round (section 14), or whose states
# are named by hiding commitments (section 15); it may hold what a version 2 or 3 record holds too.
PROTOCOL_V4 = "pbem-referee/4"
ENTERED_BY_REFEREE = "referee"


class Opened(Protocol):
    """What gives openings of hidden draws: a game's event (`data["openings"]`, `visible_to`)."""

    @property
    def data(self) -> Mapping[str, Any]: ...

    @property
    def visible_to(self) -> Literal["all"] | tuple[str, ...]: ...


def phase_record(
    *,
    game: str,
    turn: int,
    phase: str,
    commit: str,
    server_seed: bytes,
    orders: Mapping[str, str],
    rolls: list[dict[str, Any]],
    state_before: str,
    state_after: str,
    next_commit: str | None,
    overrides: Sequence[dict[str, Any]] = (),
    hidden_commit: str | None = None,
    hidden: list[dict[str, Any]] | None = None,
    opened: list[dict[str, Any]] | None = None,
    card_moves: list[dict[str, Any]] | None = None,
    by_referee: Collection[str] = (),
    beacon_proof: dict[str, Any] | None = None,
    next_beacon_round: int | None = None,
    state_scheme: str | None = None,
) -> dict[str, Any]:
    """Return the record of an adjudicated phase; its `protocol` is the lowest version that can
    say what it holds (`orders` maps each player to their order file's SHA-256).

    `by_referee` names the players whose orders the referee entered, which stay out of the
    transcript (section 13); `beacon_proof` (section 14) is the chain and the round mixed into
    this phase, and `next_beacon_round` the round the next phase's notice promised.
    `state_scheme` (section 15) says the states are named by hiding commitments, not SHA-256."""
    secrets_part: dict[str, Any] = {}
    if hidden or opened or card_moves:
        secrets_part = {"hidden_commit": hidden_commit, "hidden": hidden or [], "opened": opened or []}
    bound = card_moves or any("source" in entry for entry in hidden or [])
    if bound:
        secrets_part["card_moves"] = card_moves or []
    beacon_part: dict[str, Any] = {}
    if beacon_proof is not None:
        beacon_part = {"beacon_proof": beacon_proof, "next_beacon_round": next_beacon_round}
    scheme_part = {"state_scheme": state_scheme} if state_scheme else {}
    if bound or by_referee or beacon_part or scheme_part:
        version = PROTOCOL_V4
    else:
        version = PROTOCOL_WITH_HIDDEN if secrets_part else PROTOCOL_WITH_OVERRIDES if overrides else PROTOCOL
    return {
        "protocol": version,
        "game": game,
        "turn": turn,
        "phase": phase,
        "commit": commit,
        "server_seed": server_seed.hex(),
        "beacon": beacon_randomness(beacon_proof),
        "orders": [
            {"player": p, "sha256": orders[p], **({"by": ENTERED_BY_REFEREE} if p in by_referee else {})}
            for p in sorted(orders)
        ],
        "rolls": rolls,
        "state_before": state_before,
        "state_after": state_after,
        "next_commit": next_commit,
        **scheme_part,
        **({"overrides": sorted(overrides, key=lambda entry: entry["id"])} if overrides else {}),
        **secrets_part,
        **beacon_part,
    }


def beacon_randomness(beacon_proof: dict[str, Any] | None) -> str | None:
    """Return the randomness a beacon proof gives (SHA-256 of its signature), or None."""
    if beacon_proof is None:
        return None
    return hashlib.sha256(bytes.fromhex(beacon_proof["signature"])).hexdigest()


def public_openings(events: Iterable[Opened]) -> list[dict[str, Any]]:
    """Return the record's `opened` list: each opening an event gave, with its value and salt when
    the event is public (anyone can check it), or only whom it went to."""
    opened = []
    for event in events:
        for opening in event.data.get("openings", ()):
            where = {key: opening[key] for key in ("turn", "phase", "label", "index")}
            if event.visible_to == "all":
                opened.append({**where, "value": opening["value"], "salt": opening["salt"], "to": "all"})
            else:
                opened.append({**where, "to": sorted(event.visible_to)})
    return opened


def holds_hidden(record: Mapping[str, Any]) -> bool:
    """Whether a record has the hidden-draw fields of section 8 (version 3, or 4 with them)."""
    version = record.get("protocol")
    hidden_fields = ("hidden_commit", "hidden", "opened")
    return version == PROTOCOL_WITH_HIDDEN or (version == PROTOCOL_V4 and any(key in record for key in hidden_fields))


def transcript_orders(orders: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Return player -> order hash for the transcript: the players' own orders only, not those
    the referee entered (section 13: the referee knows the seed, so bytes it writes must not
    reach the dice)."""
    return {entry["player"]: entry["sha256"] for entry in orders if entry.get("by") != ENTERED_BY_REFEREE}


def record_transcript(record: dict[str, Any]) -> bytes:
    """Return the rolls transcript of a record (section 4)."""
    orders = transcript_orders(record["orders"])
    return transcript(record["game"], record["turn"], record["phase"], record["commit"], orders, record["beacon"])
