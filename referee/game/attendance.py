"""Who is expected in a phase: declared absences, players marked absent after missed phases,
reminders already sent, alerts already raised. Read from (and written to) the game's journal
log, so that a crash or a second run sees exactly what the first one did.

Log entries (kind: data):
    player.absent    {player, until (YYYY-MM-DD or null), why: "declared" | "missed", source}
    player.back      {player, why}
    schedule.remind  {player, index, deadline}      (turn and phase set)
    schedule.alert   {reason, missing}               (turn and phase set)

What a pass needs of that log (who is away, who missed how many phases in a row, who was
reminded in the open phase) is folded into one small meta value, `attendance`, with the id of
the last log entry folded: each pass reads only the entries written since, so a pass costs the
same at phase 1,000 as at phase 1. A journal without the value (a game begun before it) has it
folded from the whole log once. A phase opened again after a rollback reminds afresh.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import date, datetime
from pathlib import Path
from typing import Any

from referee.errors import ConfigError
from referee.game.config import GameConfig
from referee.game.deadlines import PhaseFacts, Schedule, parse_moment, parse_schedule
from referee.game.journal import GameDir, OpenPhase
from referee.game.registry import find_game
from referee.protocol.yamlsafe import StrictYAMLError, load_strict

ATTENDANCE_KINDS = ("player.absent", "player.back", "order.accepted")
# Every log kind the attendance fold reads (see the module docstring).
FOLDED_KINDS = (*ATTENDANCE_KINDS, "phase.adjudicated", "phase.open", "schedule.remind", "schedule.alert")
ATTENDANCE_META = "attendance"
# A referee home's configuration file (referee.mail.home), whose `defaults:` every game's schedule starts from.
HOME_CONFIG_NAME = "referee.yaml"


def game_schedule(config: GameConfig, defaults: dict[str, Any]) -> Schedule:
    """Return the game's schedule: its game.yaml `schedule:` over the referee home's defaults,
    with the deadlines its game module's options give phases by name (a moderator `sequence:`)
    under the deadlines the schedule itself names."""
    schedule = config.schedule
    module = find_game(config.module)
    by_phase = dict(module.phase_deadlines(config.module_options())) if module.phase_deadlines else {}
    if by_phase:
        written = schedule.get("deadline", defaults.get("deadline"))
        named = dict(written) if isinstance(written, dict) else {"default": written}
        schedule = {**schedule, "deadline": {**by_phase, **named}}
    return parse_schedule(schedule, f"game {config.game}: schedule", defaults)


def attendance(game_dir: GameDir) -> dict[str, Any]:
    """Return the attendance fold brought up to date with the log: {through: last log id read,
    absent: {player: the absence in force, or None}, missed: {player: phases missed in a row},
    phase: [turn, phase] the reminders are of, reminded: [[player, index]], alerted}."""
    stored = game_dir.get_meta(ATTENDANCE_META)
    fold: dict[str, Any] = (
        json.loads(stored)
        if stored
        else {"through": 0, "absent": {}, "missed": {}, "phase": None, "reminded": [], "alerted": False}
    )
    entries = game_dir.log_entries(FOLDED_KINDS, since_id=fold["through"])
    if not entries:
        return fold
    for entry in entries:
        _fold(fold, entry)
    fold["through"] = entries[-1]["id"]
    _keep(game_dir, fold)
    return fold


def _keep(game_dir: GameDir, fold: dict[str, Any]) -> None:
    """Store the fold, unless another process is writing the journal: it is a cache of the log,
    so the pass does not wait for the journal (the next one folds those entries again)."""
    db = game_dir.db
    waits = db.execute("PRAGMA busy_timeout").fetchone()[0]
    db.execute("PRAGMA busy_timeout = 0")
    try:
        game_dir.set_meta(ATTENDANCE_META, json.dumps(fold, sort_keys=True))
    except sqlite3.OperationalError:
        pass
    finally:
        db.execute(f"PRAGMA busy_timeout = {int(waits)}")


def _fold(fold: dict[str, Any], entry: dict[str, Any]) -> None:
    kind, data, player = entry["kind"], entry["data"], entry.get("player")
    if kind == "player.absent":
        fold["absent"][data["player"]] = data
    elif kind == "player.back":
        fold["absent"][data["player"]] = None
    elif kind == "order.accepted" and player:
        current = fold["absent"].get(player)
        if current is not None and current.get("why") == "missed":
            fold["absent"][player] = None
        fold["missed"][player] = 0
    elif kind == "phase.adjudicated":
        for defaulted in data.get("defaulted", []):
            fold["missed"][defaulted] = fold["missed"].get(defaulted, 0) + 1
    elif kind in ("phase.open", "schedule.remind", "schedule.alert"):
        here = [entry["turn"], entry["phase"]]
        if fold["phase"] != here:
            fold.update(phase=here, reminded=[], alerted=False)
        if kind == "schedule.remind":
            fold["reminded"].append([data["player"], int(data["index"])])
        elif kind == "schedule.alert":
            fold["alerted"] = True


def absent_players(game_dir: GameDir, today: date) -> set[str]:
    """Return the players not awaited today: declared away (until a date not yet past), or marked
    absent after missed phases and not heard from since (an accepted order brings them back)."""
    return _away(attendance(game_dir), today)


def _away(fold: dict[str, Any], today: date) -> set[str]:
    absent = set()
    for player, data in fold["absent"].items():
        if data is None:
            continue
        until = data.get("until")
        if until is None or date.fromisoformat(until) >= today:
            absent.add(player)
    return absent


def missed_in_a_row(game_dir: GameDir) -> dict[str, int]:
    """Return, for each player, how many adjudicated phases in a row ended without their orders."""
    return dict(attendance(game_dir)["missed"])


def phase_facts(game_dir: GameDir, phase: OpenPhase, today: date) -> PhaseFacts:
    """Return what `deadlines.plan` needs to know of the open phase."""
    fold = attendance(game_dir)
    here = fold["phase"] == [phase.turn, phase.phase]
    return PhaseFacts(
        phase=phase.phase,
        opened_at=parse_moment(phase.opened_at),
        active=phase.active,
        received=frozenset(game_dir.standing_orders(phase.seq)),
        absent=frozenset(_away(fold, today) & set(phase.active)),
        reminded=frozenset((player, index) for player, index in fold["reminded"]) if here else frozenset(),
        alerted=here and fold["alerted"],
    )


def declare_absence(game_dir: GameDir, player: str, until: date | None, why: str, source: str) -> None:
    """Record that `player` is away (until a date, or until they send orders)."""
    with game_dir.lock(), game_dir.transaction():
        data = {"player": player, "until": until.isoformat() if until else None, "why": why, "source": source}
        game_dir.log("player.absent", data, player=player)


def declare_back(game_dir: GameDir, player: str, why: str) -> None:
    with game_dir.lock(), game_dir.transaction():
        game_dir.log("player.back", {"player": player, "why": why}, player=player)


def open_deadline(game_dir: GameDir, schedule: Schedule) -> datetime | None:
    """Return the open phase's deadline, or None (no deadline, or the game is over)."""
    phase = game_dir.open_phase()
    return schedule.deadline(phase.phase, parse_moment(phase.opened_at)) if phase else None


def home_defaults(game_path: Path) -> dict[str, Any]:
    """Return the schedule defaults (`defaults:` in HOME/referee.yaml) of the referee home that
    holds this game directory (HOME/games/NAME), or {} for a game directory outside a home.

    The home's whole configuration is the mail side's (`referee.mail.home`); a game needs only
    this part of it, checked the same way."""
    path = Path(game_path).parent.parent / HOME_CONFIG_NAME
    if not path.exists():
        return {}
    try:
        data = load_strict(path.read_text(encoding="utf-8"))
    except StrictYAMLError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    defaults = (data.get("defaults") if isinstance(data, dict) else None) or {}
    return check_defaults(defaults, str(path))


def check_defaults(defaults: Any, source: str) -> dict[str, Any]:
    """Return a home's schedule defaults, refused now (naming `source`) rather than at the first deadline."""
    if not isinstance(defaults, dict):
        raise ConfigError(f"{source}: 'defaults' must be a mapping")
    parse_schedule(defaults, f"{source}: defaults")
    return defaults
