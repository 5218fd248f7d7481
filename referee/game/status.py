"""`referee status` and its clock (`--clock`): read from the journal alone, so that it starts fast
(no YAML, no crypto)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from referee.game.glance import glance, needs_of, status_of, status_text
from referee.game.journal import GameDir, unmade_error, utc_now
from referee.game.supplies import needs_when

__all__ = ["clock", "clock_text", "duration", "status", "status_shown", "status_text"]  # status_text: glance's


def status(path: Path) -> dict[str, Any]:
    """Return the game's status: game, turn, phase, who is awaited, the commitment."""
    game_dir = GameDir(path).require()
    if game_dir.get_meta("game") is None:
        raise unmade_error(game_dir)
    return status_of(game_dir.db)


def status_shown(path: Path) -> dict[str, Any]:
    """Return what `referee status` shows (without --clock): the status and, in an open phase,
    what the referee may supply. Read by `glance` when the journal is as the referee keeps it,
    else through GameDir, which brings an older journal up or says what is wrong."""
    found = glance(str(path), needs_when)
    if found is not None:
        return found
    info = status(path)
    if not info["over"]:
        info.update(needs_of(str(path), GameDir(path).require().db, info, needs_when))
    return info


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
