"""Who is expected in a phase: declared absences, players marked absent after missed phases,
reminders already sent, alerts already raised. Read from (and written to) the game's journal
log, so that a crash or a second run sees exactly what the first one did.

Log entries (kind: data):
    player.absent    {player, until (YYYY-MM-DD or null), why: "declared" | "missed", source}
    player.back      {player, why}
    schedule.remind  {player, index, deadline}      (turn and phase set)
    schedule.alert   {reason, missing}               (turn and phase set)
"""

from __future__ import annotations

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


def absent_players(game_dir: GameDir, today: date) -> set[str]:
    """Return the players not awaited today: declared away (until a date not yet past), or marked
    absent after missed phases and not heard from since (an accepted order brings them back)."""
    state: dict[str, dict[str, Any] | None] = {}
    for entry in game_dir.log_entries(ATTENDANCE_KINDS):
        data = entry["data"]
        if entry["kind"] == "player.absent":
            state[data["player"]] = data
        elif entry["kind"] == "player.back":
            state[data["player"]] = None
        elif entry["kind"] == "order.accepted" and entry.get("player"):
            current = state.get(entry["player"])
            if current is not None and current.get("why") == "missed":
                state[entry["player"]] = None
    absent = set()
    for player, data in state.items():
        if data is None:
            continue
        until = data.get("until")
        if until is None or date.fromisoformat(until) >= today:
            absent.add(player)
    return absent


def missed_in_a_row(game_dir: GameDir) -> dict[str, int]:
    """Return, for each player, how many adjudicated phases in a row ended without their orders."""
    streak: dict[str, int] = {}
    for entry in game_dir.log_entries(("phase.adjudicated", "order.accepted")):
        if entry["kind"] == "order.accepted" and entry.get("player"):
            streak[entry["player"]] = 0
        elif entry["kind"] == "phase.adjudicated":
            for player in entry["data"].get("defaulted", []):
                streak[player] = streak.get(player, 0) + 1
    return streak


def phase_facts(game_dir: GameDir, phase: OpenPhase, today: date) -> PhaseFacts:
    """Return what `deadlines.plan` needs to know of the open phase."""
    reminded = set()
    alerted = False
    for entry in game_dir.log_entries(("schedule.remind", "schedule.alert")):
        if (entry["turn"], entry["phase"]) != (phase.turn, phase.phase):
            continue
        if entry["kind"] == "schedule.remind":
            reminded.add((entry["data"]["player"], int(entry["data"]["index"])))
        else:
            alerted = True
    return PhaseFacts(
        phase=phase.phase,
        opened_at=parse_moment(phase.opened_at),
        active=phase.active,
        received=frozenset(game_dir.standing_orders(phase.seq)),
        absent=frozenset(absent_players(game_dir, today) & set(phase.active)),
        reminded=frozenset(reminded),
        alerted=alerted,
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
