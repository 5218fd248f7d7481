"""Deadlines and missed orders: when a phase is due, who to remind, and what to do when orders
are missing. `plan` is a pure function of the schedule, the phase's facts and the time;
`referee.mail.run` carries out what it returns.

A schedule (a game's `schedule:` in game.yaml over the home's `defaults:`):

    timezone: Europe/London      the game's time zone, for weekday deadlines and for messages
    deadline: 72h                a duration from the phase's opening, or "sunday 20:00";
                                 or per phase: {default: 72h, tempo-bid: "friday 18:00"};
                                 a game module's own phase deadlines (GameModule.phase_deadlines,
                                 from the game's options) stand under these named ones, over default
    grace: 1h                    how long after the deadline late orders are still awaited
    reminders: [24h, 2h]         before the deadline, to active players who have sent nothing
    missed_orders: wait          wait: alert the referee and wait for them;
                                 default: adjudicate with the game's default orders;
                                 absent: as default, and after `absent_after` misses in a row
                                 the player is marked absent (not awaited) until they send orders
    absent_after: 2
    hold_if_missing: 0.5         if more than this share of the awaited players is missing at the
                                 deadline, hold the phase and alert the referee (broken mail, usually)
    early: true                  adjudicate as soon as every awaited player's orders are in
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from referee.errors import ConfigError
from referee.protocol.display import shown

POLICIES = ("wait", "default", "absent")
DEFAULTS: dict[str, Any] = {
    "timezone": "UTC",
    "deadline": None,
    "grace": "0h",
    "reminders": [],
    "missed_orders": "wait",
    "absent_after": 2,
    "hold_if_missing": 0.5,
    "early": True,
}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
DURATION = re.compile(r"^\s*(?:(\d+)\s*d)?\s*(?:(\d+)\s*h)?\s*(?:(\d+)\s*m)?\s*$")
WEEKDAY_TIME = re.compile(r"^\s*([a-z]+)\s+(\d{1,2}):(\d{2})\s*$")


@dataclass(frozen=True)
class Schedule:
    """A parsed schedule (see the module docstring)."""

    timezone: ZoneInfo
    deadlines: dict[str, str | None]  # phase name (or "default") -> duration or weekday time, as written
    grace: timedelta
    reminders: tuple[timedelta, ...]
    missed_orders: str
    absent_after: int
    hold_if_missing: float
    early: bool

    def deadline_text(self, phase: str) -> str | None:
        return self.deadlines.get(phase, self.deadlines.get("default"))

    def deadline(self, phase: str, opened_at: datetime) -> datetime | None:
        """Return when the phase is due (UTC), or None if it has no deadline."""
        text = self.deadline_text(phase)
        if text is None:
            return None
        duration = parse_duration(text, None)
        if duration is not None:
            return opened_at + duration
        return _next_weekday_time(text, opened_at, self.timezone)

    def rule(self, phase: str) -> str | None:
        """Return the phase's deadline as a rule players can read in its notice, or None."""
        text = self.deadline_text(phase)
        if text is None:
            return None
        if parse_duration(text, None) is not None:
            due = f"{text.strip()} after this notice was sent"
        else:
            day, hour, minute = _weekday_time(text, "deadline")
            due = f"the next {WEEKDAYS[day].title()} at {hour:02d}:{minute:02d} ({self.timezone.key}) after this notice"
        grace = f"; late orders are still taken for {_duration_text(self.grace)}" if self.grace else ""
        policy = {
            "wait": "the referee decides what stands for missing orders",
            "default": "the game's default orders stand for missing ones",
            "absent": "the game's default orders stand for missing ones, and a player who misses "
            f"{self.absent_after} phases in a row is no longer awaited",
        }[self.missed_orders]
        return f"{due}{grace}; then {policy}"

    def local(self, moment: datetime) -> str:
        """Return a moment as the game's players read it: 'Sunday 2026-11-22 20:00 Europe/London'."""
        here = moment.astimezone(self.timezone)
        return f"{here:%A %Y-%m-%d %H:%M} {self.timezone.key}"


def _duration_text(duration: timedelta) -> str:
    hours, seconds = divmod(int(duration.total_seconds()), 3600)
    return f"{hours}h{seconds // 60:02d}m" if seconds else f"{hours}h"


def parse_duration(text: Any, where: str | None) -> timedelta | None:
    """Parse '72h', '3d', '1d12h', '90m'; return None (or raise, given `where`) if it is not one."""
    match = DURATION.match(text) if isinstance(text, str) else None
    if match is None or not any(match.groups()):
        if where is None:
            return None
        raise ConfigError(f"{where}: {shown(text)} is not a duration such as 72h, 3d, 1d12h or 90m")
    days, hours, minutes = (int(group or 0) for group in match.groups())
    return timedelta(days=days, hours=hours, minutes=minutes)


def _weekday_time(text: str, where: str) -> tuple[int, int, int]:
    match = WEEKDAY_TIME.match(text.lower())
    day = match and next(
        (i for i, name in enumerate(WEEKDAYS) if name.startswith(match[1]) and len(match[1]) >= 3), None
    )
    if not match or day is None or int(match[2]) > 23 or int(match[3]) > 59:
        raise ConfigError(f"{where}: {shown(text)} is neither a duration (72h) nor a weekday and time (sunday 20:00)")
    return day, int(match[2]), int(match[3])


def _next_weekday_time(text: str, after: datetime, zone: ZoneInfo) -> datetime:
    """Return the first moment strictly after `after` that is that weekday and wall-clock time in `zone`."""
    day, hour, minute = _weekday_time(text, "deadline")
    local = after.astimezone(zone)
    candidate = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    candidate += timedelta(days=(day - candidate.weekday()) % 7)
    if candidate <= local:
        candidate += timedelta(days=7)
    # Rebuild from the wall-clock fields so a daylight-saving change in between gives the right offset.
    naive = candidate.replace(tzinfo=None)
    return naive.replace(tzinfo=zone).astimezone(UTC)


def parse_schedule(data: Any, where: str, defaults: dict[str, Any] | None = None) -> Schedule:
    """Return the schedule in `data` over `defaults`, or raise ConfigError naming the field."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where} must be a mapping (deadline:, grace:, reminders:, missed_orders: ...)")
    merged = {**DEFAULTS, **(defaults or {}), **data}
    unknown = sorted(set(merged) - set(DEFAULTS))
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {', '.join(unknown)}", hints=(f"known: {', '.join(DEFAULTS)}",))
    try:
        zone = ZoneInfo(str(merged["timezone"]))
    except (ZoneInfoNotFoundError, ValueError):
        zone_name = shown(merged["timezone"])
        raise ConfigError(f"{where}.timezone {zone_name} is not a time zone such as Europe/London") from None
    raw = merged["deadline"]
    deadlines: dict[str, str | None] = dict(raw) if isinstance(raw, dict) else {"default": raw}
    for phase, text in deadlines.items():
        if text is not None and parse_duration(text, None) is None:
            _weekday_time(str(text), f"{where}.deadline.{phase}")
    reminders = merged["reminders"]
    if not isinstance(reminders, list):
        raise ConfigError(f"{where}.reminders must be a list of durations before the deadline, such as [24h, 2h]")
    policy = merged["missed_orders"]
    if policy not in POLICIES:
        raise ConfigError(f"{where}.missed_orders must be one of {', '.join(POLICIES)}, got {shown(policy)}")
    absent_after = merged["absent_after"]
    if not isinstance(absent_after, int) or absent_after < 1:
        raise ConfigError(f"{where}.absent_after must be a whole number of missed phases, at least 1")
    share = merged["hold_if_missing"]
    if not isinstance(share, int | float) or not 0 <= share <= 1:
        raise ConfigError(f"{where}.hold_if_missing must be a share between 0 and 1, such as 0.5")
    if not isinstance(merged["early"], bool):
        raise ConfigError(f"{where}.early must be true or false")
    return Schedule(
        timezone=zone,
        deadlines=deadlines,
        grace=parse_duration(merged["grace"], f"{where}.grace") or timedelta(),
        reminders=tuple(
            sorted((parse_duration(r, f"{where}.reminders") or timedelta() for r in reminders), reverse=True)
        ),
        missed_orders=policy,
        absent_after=absent_after,
        hold_if_missing=float(share),
        early=merged["early"],
    )


# -- deciding -----------------------------------------------------------------------------


@dataclass(frozen=True)
class PhaseFacts:
    """What the journal knows of the open phase, as `plan` needs it."""

    phase: str
    opened_at: datetime
    active: tuple[str, ...]
    received: frozenset[str]
    absent: frozenset[str] = frozenset()  # declared, or marked after missed phases: not awaited
    reminded: frozenset[tuple[str, int]] = frozenset()  # (player, reminder index) already sent
    alerted: bool = False  # the referee was already alerted for this phase (hold or wait)


@dataclass(frozen=True)
class Remind:
    player: str
    index: int
    deadline: datetime


@dataclass(frozen=True)
class Adjudicate:
    defaulted: tuple[str, ...]
    reason: str  # "complete" or "deadline"


@dataclass(frozen=True)
class AlertReferee:
    missing: tuple[str, ...]
    reason: str  # "hold" (too many missing: check the mail) or "wait" (the policy waits for you)


@dataclass(frozen=True)
class Plan:
    deadline: datetime | None
    actions: list[Remind | Adjudicate | AlertReferee] = field(default_factory=list)


def plan(schedule: Schedule, facts: PhaseFacts, now: datetime) -> Plan:
    """Return what a pass should do for this phase now."""
    deadline = schedule.deadline(facts.phase, facts.opened_at)
    awaited = [p for p in facts.active if p not in facts.absent]
    missing = tuple(p for p in awaited if p not in facts.received)
    absent_missing = tuple(p for p in facts.active if p in facts.absent and p not in facts.received)
    if not missing and schedule.early:
        return Plan(deadline, [Adjudicate(absent_missing, "complete")])
    if deadline is None:
        return Plan(None)
    if now < deadline + schedule.grace:
        reminders: list[Remind | Adjudicate | AlertReferee] = []
        for player in missing:
            due = [i for i, before in enumerate(schedule.reminders) if now >= deadline - before]
            # Only the latest due reminder is sent: a pass after a long outage does not send a burst.
            if due and (player, due[-1]) not in facts.reminded and now < deadline:
                reminders.append(Remind(player, due[-1], deadline))
        return Plan(deadline, reminders)
    if not missing:
        return Plan(deadline, [Adjudicate(absent_missing, "deadline")])
    if awaited and len(missing) / len(awaited) > schedule.hold_if_missing:
        return Plan(deadline, [] if facts.alerted else [AlertReferee(missing, "hold")])
    if schedule.missed_orders == "wait":
        return Plan(deadline, [] if facts.alerted else [AlertReferee(missing, "wait")])
    return Plan(deadline, [Adjudicate(missing + absent_missing, "deadline")])


def next_change(schedule: Schedule, facts: PhaseFacts, now: datetime) -> datetime:
    """Return the first moment after `now` at which `plan` may answer otherwise for the same facts:
    a reminder's time, the deadline, the end of its grace, or the next midnight in the game's time
    zone (the facts' absences are taken by date)."""
    moments = [_next_midnight(now, schedule.timezone)]
    deadline = schedule.deadline(facts.phase, facts.opened_at)
    if deadline is not None:
        moments += [deadline - before for before in schedule.reminders] + [deadline, deadline + schedule.grace]
    return min(moment for moment in moments if moment > now)


def _next_midnight(now: datetime, zone: ZoneInfo) -> datetime:
    """Return the first moment after `now` whose date in `zone` is another (a daylight-saving gap
    at midnight moves it to the end of the gap, so it is looked for minute by minute backwards)."""
    today = now.astimezone(zone).date()
    midnight = datetime.combine(today + timedelta(days=1), datetime.min.time(), zone).astimezone(UTC)
    while (midnight - timedelta(minutes=1)).astimezone(zone).date() != today:
        midnight -= timedelta(minutes=1)
    return midnight


def newly_absent(schedule: Schedule, missed_in_a_row: dict[str, int]) -> list[str]:
    """Return the players the `absent` policy now marks absent (missed `absent_after` phases in a row)."""
    if schedule.missed_orders != "absent":
        return []
    return sorted(p for p, count in missed_in_a_row.items() if count >= schedule.absent_after)


def parse_moment(text: str) -> datetime:
    """Parse a journal timestamp (ISO 8601, UTC)."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
