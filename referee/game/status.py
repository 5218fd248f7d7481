"""`referee status` and its clock (`--clock`): read from the journal alone, so that it starts fast
(no YAML, no crypto)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from referee.game.journal import GameDir, unmade_error, utc_now
from referee.game.unreachable import unreachable_players


def status(path: Path) -> dict[str, Any]:
    """Return the game's status: game, turn, phase, who is awaited, the commitment."""
    game_dir = GameDir(path).require()
    if game_dir.get_meta("game") is None:
        raise unmade_error(game_dir)
    unfinished = game_dir.unfinished_operations()
    result: dict[str, Any] = json.loads(game_dir.get_meta("game") or "{}")
    if unfinished:
        result["interrupted"] = [{"operation": r.id, "command": r.command, "finish": r.rerun} for r in unfinished]
    result["adjudicated"] = game_dir.adjudicated_count()
    unreachable = unreachable_players(game_dir)
    if unreachable:  # only when there is one: the usual status stays as it was
        result["unreachable"] = unreachable
    phase = game_dir.open_phase()
    if phase is None:
        return {
            **result,
            "over": True,
            "turn": None,
            "phase": None,
            "active": [],
            "awaited": [],
            "received": [],
            "commit": None,
        }
    standing = game_dir.standing_orders(phase.seq)
    promised = game_dir.beacon_round(phase.commit)
    beacon = {"beacon_round": promised.round, "orders_close": promised.orders_close} if promised else {}
    return {
        **result,
        "over": False,
        "turn": phase.turn,
        "phase": phase.phase,
        "opened_at": phase.opened_at,
        "active": list(phase.active),
        "awaited": [p for p in phase.active if p not in standing],
        "received": sorted(standing),
        "commit": phase.commit,
        **beacon,
    }


def status_text(info: dict[str, Any]) -> str:
    """Return the status as lines for a terminal."""
    lines = [
        f"game      {info['game']} ({info['module']}): {info['title']}",
        f"players   {', '.join(info['players'])}",
        f"phases    {info['adjudicated']} adjudicated",
    ]
    for player, why in sorted(info.get("unreachable", {}).items()):
        lines.append(f"unreachable {player} since {why['since'][:16]}: {why['reason']} (mail from them clears it)")
    lines += [
        f"INTERRUPTED `referee {o['command']}` (operation {o['operation']}): finish it with: {o['finish']}"
        for o in info.get("interrupted", [])
    ]
    if info["over"]:
        return "\n".join(lines + ["state     the game is over"]) + "\n"
    lines += [
        f"open      turn {info['turn']} '{info['phase']}' since {info['opened_at']}",
        f"commit    {info['commit']}",
        *(
            [f"beacon    round {info['beacon_round']}, the first after orders close at {info['orders_close']}"]
            if "beacon_round" in info
            else []
        ),
        f"received  {', '.join(info['received']) or 'nothing yet'}",
        f"awaited   {', '.join(info['awaited']) or 'nobody: ready to adjudicate'}",
    ]
    # What the referee supplies (referee.game.supplies.status_needs), when there is any.
    if "held" in info:
        lines.append(f"HELD      waits on the referee for: {', '.join(info['held']['needs'])} (`referee missing`)")
    if info.get("missing_now"):
        lines.append(f"supply    now: {', '.join(info['missing_now'])} (`referee missing GAMEDIR`)")
    if info.get("missing_later"):
        lines.append(f"supply    later: {', '.join(info['missing_later'])}")
    return "\n".join(lines) + "\n"


# -- the clock: how long each player took to answer -------------------------------------------


def clock(path: Path, now: str | None = None) -> dict[str, Any]:
    """Return how long each player took to answer in each phase, and in total (seconds).

    A phase's time runs from its opening (its notice) to the player's last accepted orders; for
    a player who sent none (absent, defaulted, or entered by the referee) to the adjudication;
    in the open phase, for one not answered yet, to `now` (the phase's entry says `waiting`).
    A phase adjudicated again after a rollback counts from its first opening to its first
    adjudication: the rollback is not the players' time. Everything comes from the journal.
    """
    game_dir = GameDir(path).require()
    now = now or utc_now()
    first: dict[tuple[int, str], tuple[str, str | None]] = {}
    for _, row in game_dir.superseded_phases():
        _first_times(first, row.turn, row.phase, row.opened_at, row.adjudicated_at)
    answered = game_dir.answered_at()
    phases: list[dict[str, Any]] = []
    totals: dict[str, int] = {}
    for row in game_dir.phases():
        _first_times(first, row.turn, row.phase, row.opened_at, row.adjudicated_at)
        opened, closed = first[(row.turn, row.phase)]
        times: dict[str, dict[str, Any]] = {}
        for player in row.active:
            sent = answered.get((row.turn, row.phase, player))
            if sent is not None and closed is not None and sent > closed:
                sent = None  # accepted after the first adjudication: not an answer in time
            end = sent or closed or now
            how = "orders" if sent else "none" if closed else "waiting"
            times[player] = {"seconds": _seconds(opened, end), "until": end, "how": how}
            totals[player] = totals.get(player, 0) + times[player]["seconds"]
        phases.append(
            {"turn": row.turn, "phase": row.phase, "opened_at": opened, "closed_at": closed, "players": times}
        )
    return {"now": now, "phases": phases, "totals": totals}


def _first_times(
    first: dict[tuple[int, str], tuple[str, str | None]], turn: int, phase: str, opened: str, closed: str | None
) -> None:
    """Keep the earliest opening and the earliest adjudication seen of (turn, phase)."""
    known_open, known_closed = first.get((turn, phase), (opened, closed))
    closings = [c for c in (known_closed, closed) if c is not None]
    first[(turn, phase)] = (min(known_open, opened), min(closings) if closings else None)


def _seconds(start: str, end: str) -> int:
    return max(0, int((datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()))


def clock_text(info: dict[str, Any]) -> str:
    """Return the clock as a table for a terminal: a row per phase, a column per player, the totals."""
    players = sorted(info["totals"])
    if not players:
        return "clock     no phase has opened yet\n"
    rows = [["clock", *(f"{player}  " for player in players)]]
    for phase in info["phases"]:
        cells = [f"{phase['turn']}/{phase['phase']}"]
        for player in players:
            entry = phase["players"].get(player)
            mark = {"orders": "  ", "none": " *", "waiting": " +"}[entry["how"]] if entry else "  "
            cells.append((duration(entry["seconds"]) if entry else "-") + mark)
        rows.append(cells)
    rows.append(["total", *(duration(info["totals"][p]) + "  " for p in players)])
    widths = [max(8, *(len(row[i]) for row in rows)) for i in range(len(rows[0]))]
    lines = [
        "  ".join([row[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True))]).rstrip()
        for row in rows
    ]
    lines += [
        "          from each phase's notice to the player's last accepted orders",
        "          * sent none: counted to the adjudication  + not answered yet: counted to now",
    ]
    return "\n".join(lines) + "\n"


def duration(seconds: int) -> str:
    """Return a duration as a person reads it: 2d 3h 05m, 3h 05m, 4m 10s."""
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h {minutes:02d}m"
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s"
