"""`referee status`: read from the journal alone, so that it starts fast (no YAML, no crypto)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee.game.journal import GameDir, unmade_error
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
    phases = game_dir.phases()
    result["adjudicated"] = sum(1 for p in phases if p.adjudicated_at)
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
