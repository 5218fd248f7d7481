"""A game's public beacon on the referee's side (docs/protocol.md section 14): the round each
phase is promised when it opens, closing orders once that round is due, and fetching and
verifying the round before adjudication.

The round follows the last moment orders are taken (the deadline plus its grace; for a phase
without a deadline, the beacon's `window` after the notice), and orders are refused once it is
due. So when its randomness becomes known, the orders are fixed already, and the referee, who
knows the seed, can no longer choose which orders to accept, nor when to adjudicate, to suit
the dice.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from referee.errors import StateError
from referee.game.config import BeaconConfig
from referee.game.deadlines import Schedule, parse_duration
from referee.game.journal import BeaconRound, GameDir, OpenPhase
from referee.game.opened import Game
from referee.protocol.beacon import BeaconError, Chain, Round, check_round, proof_data
from referee.protocol.problems import Problem

MAX_ANSWER_BYTES = 64 * 1024


class BeaconPendingError(StateError):
    """The phase's beacon round is not published yet: adjudication waits for it."""


def now() -> datetime:
    """Return the time the beacon rules read (one place, so that tests can set the clock)."""
    return datetime.now(UTC)


def promise_round(
    game_dir: GameDir, beacon: BeaconConfig | None, schedule: Schedule, phase: str, commit: str
) -> BeaconRound | None:
    """Return the round promised to the phase opening under `commit` (None: the game has no
    beacon), fixing it first from the time orders close if it has none."""
    if beacon is None:
        return None
    opened = now()
    deadline = schedule.deadline(phase, opened)
    if deadline is not None:
        close = deadline + schedule.grace
    else:
        window = parse_duration(beacon.window, "beacon window")
        assert window is not None
        close = opened + window
    close = close.astimezone(UTC).replace(microsecond=0)
    return game_dir.promise_beacon_round(commit, beacon.chain.first_round_after(close.timestamp()), close.isoformat())


def round_due(chain: Chain, round_number: int) -> datetime:
    """Return when a round is published."""
    return datetime.fromtimestamp(chain.round_time(round_number), UTC)


def promise_text(game: Game, promised: BeaconRound) -> dict[str, Any]:
    """Return what a notice says of its beacon round."""
    assert game.config.beacon is not None
    chain = game.config.beacon.chain
    return {
        "round": promised.round,
        "chain_hash": chain.chain_hash,
        "due": f"{round_due(chain, promised.round):%Y-%m-%d %H:%M:%S} UTC",
        "orders_close": f"{datetime.fromisoformat(promised.orders_close):%Y-%m-%d %H:%M:%S} UTC",
    }


def orders_closed(game: Game, phase: OpenPhase) -> Problem | None:
    """Return why orders are refused when the phase's beacon round is due, else None."""
    beacon = game.config.beacon
    promised = game.dir.beacon_round(phase.commit)
    if beacon is None or promised is None:
        return None
    due = round_due(beacon.chain, promised.round)
    if now() < due:
        return None
    return Problem(
        "refused.beacon",
        "turn",
        f"orders for turn {phase.turn} '{phase.phase}' closed when its beacon round {promised.round} was due "
        f"({due:%Y-%m-%d %H:%M:%S} UTC): once the beacon is public, a late order could be chosen to suit the dice",
    )


def fetch_promised_round(game: Game, phase: OpenPhase) -> None:
    """Fetch and verify the phase's beacon round and keep it in the journal, unless it is kept
    already; raise BeaconPendingError before it is due, StateError if it cannot be had."""
    beacon = game.config.beacon
    promised = game.dir.beacon_round(phase.commit)
    if beacon is None or promised is None or promised.signature is not None:
        return
    due = round_due(beacon.chain, promised.round)
    if now() < due:
        raise BeaconPendingError(
            f"the beacon round {promised.round} is due at {due:%Y-%m-%d %H:%M:%S} UTC: "
            f"turn {phase.turn} '{phase.phase}' is adjudicated with it, so it waits",
            hints=("`referee run` tries again on its next pass; by hand, run `referee adjudicate` after that time",),
        )
    fetched = fetch_round(beacon, promised.round)
    game.dir.store_beacon_round(phase.commit, fetched.signature, fetched.previous_signature)
    game.dir.log("beacon.fetched", {"round": fetched.round, "randomness": fetched.randomness}, phase.turn, phase.phase)


def fetch_round(beacon: BeaconConfig, round_number: int) -> Round:
    """Return the round from the first of the beacon's URLs that gives one that verifies;
    raise StateError naming what each URL answered."""
    import http.client  # deferred for start-up speed, like urllib below: only fetching a round needs HTTP

    failures = []
    for base in beacon.urls:
        url = f"{base}/{beacon.chain.chain_hash}/public/{round_number}"
        try:
            fetched = _parse_answer(_get(url, beacon.timeout), beacon.chain, round_number)
            check_round(beacon.chain, fetched)
            return fetched
        except (BeaconError, OSError, ValueError, http.client.HTTPException) as error:
            failures.append(f"{url}: {_reason(error)}")
    raise StateError(
        f"cannot have beacon round {round_number}, so nothing was adjudicated: " + "; ".join(failures),
        hints=(
            "`referee run` tries again on its next pass; check the game's beacon urls in game.yaml",
            "a round that does not verify under the chain's public key is refused, never used",
        ),
    )


def _get(url: str, timeout: int) -> bytes:
    import urllib.request  # deferred for start-up speed: `referee status` never fetches a round

    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as answer:  # noqa: S310 (http(s) only, checked in config)
        return bytes(answer.read(MAX_ANSWER_BYTES + 1))


def _reason(error: Exception) -> str:
    import urllib.error  # loaded by _get already

    if isinstance(error, urllib.error.HTTPError):
        return f"HTTP {error.code} {error.reason}"
    if isinstance(error, urllib.error.URLError):
        return f"cannot connect ({error.reason})"
    return str(error)


def _parse_answer(body: bytes, chain: Chain, round_number: int) -> Round:
    """Return the round in drand's answer (`round`, `signature`, `previous_signature` in hex)."""
    if len(body) > MAX_ANSWER_BYTES:
        raise BeaconError("the answer is too long to be a drand round")
    data = json.loads(body)
    if not isinstance(data, dict) or data.get("round") != round_number:
        raise BeaconError(f"the answer is not round {round_number}")
    signature = data.get("signature")
    previous = data.get("previous_signature") if chain.chained else None
    if not isinstance(signature, str) or not (previous is None or isinstance(previous, str)):
        raise BeaconError("the answer has no signature in hex")
    return Round(round_number, signature, previous)


def phase_proof(game: Game, commit: str) -> dict[str, Any] | None:
    """Return the record's `beacon_proof` of the phase opened under `commit` (None: no beacon);
    raise StateError if its round was promised but not fetched yet."""
    promised = game.dir.beacon_round(commit)
    if promised is None:
        return None
    if promised.signature is None or game.config.beacon is None:
        raise StateError(f"the beacon round {promised.round} of this phase has not been fetched yet")
    return proof_data(game.config.beacon.chain, Round(promised.round, promised.signature, promised.previous_signature))
