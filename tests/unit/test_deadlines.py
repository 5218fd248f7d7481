"""Deadlines and missed orders: the pure plan, and schedules parsed from configuration."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from referee.errors import ConfigError
from referee.game.deadlines import (
    Adjudicate,
    AlertReferee,
    PhaseFacts,
    Remind,
    newly_absent,
    next_change,
    parse_duration,
    parse_schedule,
    plan,
)

OPENED = datetime(2026, 11, 16, 9, 0, tzinfo=UTC)  # a Monday
PLAYERS = ("alice", "bob", "carol", "dave")


def facts(received: tuple[str, ...] = (), **kwargs: object) -> PhaseFacts:
    return PhaseFacts("round", OPENED, PLAYERS, frozenset(received), **kwargs)  # type: ignore[arg-type]


def schedule(**fields: object) -> object:
    return parse_schedule({"deadline": "72h", "grace": "1h", "reminders": ["24h", "2h"], **fields}, "test")


def test_durations() -> None:
    assert parse_duration("72h", None) == timedelta(hours=72)
    assert parse_duration("1d12h", None) == timedelta(days=1, hours=12)
    assert parse_duration("90m", None) == timedelta(minutes=90)
    assert parse_duration("sunday 20:00", None) is None
    with pytest.raises(ConfigError, match="not a duration"):
        parse_duration("soon", "x.grace")


def test_weekday_deadline_in_the_games_time_zone_across_a_clock_change() -> None:
    london = parse_schedule({"deadline": "sunday 20:00", "timezone": "Europe/London"}, "test")
    # Opened on Wednesday 2026-10-21; British Summer Time ends on Sunday 2026-10-25.
    due = london.deadline("round", datetime(2026, 10, 21, 12, 0, tzinfo=UTC))
    assert due == datetime(2026, 10, 25, 20, 0, tzinfo=UTC)  # 20:00 GMT
    summer = london.deadline("round", datetime(2026, 7, 1, 12, 0, tzinfo=UTC))
    assert summer == datetime(2026, 7, 5, 19, 0, tzinfo=UTC)  # 20:00 BST
    assert london.local(due) == "Sunday 2026-10-25 20:00 Europe/London"


def test_a_weekday_deadline_is_always_after_the_opening() -> None:
    paris = parse_schedule({"deadline": "mon 10:00", "timezone": "Europe/Paris"}, "test")
    assert paris.deadline("round", OPENED) == datetime(2026, 11, 23, 9, 0, tzinfo=UTC)  # next week's Monday


def test_per_phase_deadlines() -> None:
    per_phase = parse_schedule({"deadline": {"default": "72h", "tempo-bid": "24h"}}, "test")
    assert per_phase.deadline("tempo-bid", OPENED) == OPENED + timedelta(hours=24)
    assert per_phase.deadline("moves", OPENED) == OPENED + timedelta(hours=72)


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"deadline": "someday"}, "neither a duration"),
        ({"timezone": "Mars/Olympus"}, "not a time zone"),
        ({"missed_orders": "guess"}, "must be one of"),
        ({"hold_if_missing": 2}, "share between 0 and 1"),
        ({"absent_after": 0}, "at least 1"),
        ({"deadlines": "72h"}, "unknown field"),
    ],
)
def test_bad_schedules_are_refused_with_the_field_named(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_schedule(fields, "game.yaml: schedule")


def test_complete_orders_adjudicate_at_once_unless_the_game_waits_for_the_deadline() -> None:
    assert plan(schedule(), facts(PLAYERS), OPENED).actions == [Adjudicate((), "complete")]
    assert plan(schedule(early=False), facts(PLAYERS), OPENED + timedelta(hours=1)).actions == []
    late = plan(schedule(early=False), facts(PLAYERS), OPENED + timedelta(hours=74))
    assert late.actions == [Adjudicate((), "deadline")]


def test_reminders_go_to_the_missing_players_once_each() -> None:
    day_before = OPENED + timedelta(hours=49)
    actions = plan(schedule(), facts(("alice",)), day_before).actions
    assert actions == [Remind(p, 0, OPENED + timedelta(hours=72)) for p in ("bob", "carol", "dave")]
    sent = frozenset({("bob", 0), ("carol", 0), ("dave", 0)})
    assert plan(schedule(), facts(("alice",), reminded=sent), day_before).actions == []
    hours_before = OPENED + timedelta(hours=71)
    assert [a.index for a in plan(schedule(), facts(("alice",), reminded=sent), hours_before).actions] == [1, 1, 1]


def test_after_a_long_outage_only_the_latest_reminder_is_sent() -> None:
    actions = plan(schedule(), facts(("alice",)), OPENED + timedelta(hours=71, minutes=30)).actions
    assert {a.index for a in actions if isinstance(a, Remind)} == {1}


def test_nothing_happens_during_the_grace() -> None:
    assert (
        plan(
            schedule(missed_orders="default"),
            facts(("alice", "bob", "carol")),
            OPENED + timedelta(hours=72, minutes=30),
        ).actions
        == []
    )


def test_missed_orders_policies_at_the_deadline() -> None:
    after = OPENED + timedelta(hours=74)
    three_in = facts(("alice", "bob", "carol"))
    assert plan(schedule(missed_orders="wait"), three_in, after).actions == [AlertReferee(("dave",), "wait")]
    assert plan(schedule(missed_orders="wait"), facts(("alice", "bob", "carol"), alerted=True), after).actions == []
    assert plan(schedule(missed_orders="default"), three_in, after).actions == [Adjudicate(("dave",), "deadline")]
    assert plan(schedule(missed_orders="absent"), three_in, after).actions == [Adjudicate(("dave",), "deadline")]


def test_too_many_missing_holds_the_phase_and_alerts_once() -> None:
    after = OPENED + timedelta(hours=74)
    one_in = facts(("alice",))
    assert plan(schedule(missed_orders="default"), one_in, after).actions == [
        AlertReferee(("bob", "carol", "dave"), "hold")
    ]
    assert plan(schedule(missed_orders="default"), facts(("alice",), alerted=True), after).actions == []
    half_in = facts(("alice", "bob"))
    assert plan(schedule(missed_orders="default"), half_in, after).actions == [
        Adjudicate(("carol", "dave"), "deadline")
    ]


def test_absent_players_are_not_awaited_and_do_not_count_towards_the_hold() -> None:
    away = frozenset({"carol", "dave"})
    assert plan(schedule(), facts(("alice", "bob"), absent=away), OPENED).actions == [
        Adjudicate(("carol", "dave"), "complete")
    ]
    after = OPENED + timedelta(hours=74)
    actions = plan(schedule(missed_orders="default"), facts(("alice",), absent=away), after).actions
    assert actions == [Adjudicate(("bob", "carol", "dave"), "deadline")]
    assert plan(schedule(), facts(("alice",), absent=away), OPENED + timedelta(hours=49)).actions == [
        Remind("bob", 0, OPENED + timedelta(hours=72))
    ]


def test_newly_absent_after_missed_phases_in_a_row() -> None:
    absent_policy = schedule(missed_orders="absent", absent_after=2)
    assert newly_absent(absent_policy, {"alice": 0, "bob": 1, "carol": 2}) == ["carol"]
    assert newly_absent(schedule(missed_orders="default"), {"carol": 5}) == []


def test_no_deadline_means_only_complete_orders_adjudicate() -> None:
    none = parse_schedule({}, "test")
    assert plan(none, facts(("alice",)), OPENED + timedelta(days=300)).actions == []


def test_the_plan_holds_until_the_next_change() -> None:
    sched = schedule()
    deadline = OPENED + timedelta(hours=72)
    at = OPENED + timedelta(hours=1)
    assert next_change(sched, facts(), at) == datetime(2026, 11, 17, tzinfo=UTC)  # absences end by date
    late = OPENED + timedelta(hours=60)  # between the 24h and the 2h reminders
    assert next_change(sched, facts(), deadline - timedelta(hours=3)) == deadline - timedelta(hours=2)  # a reminder
    assert next_change(sched, facts(), deadline + timedelta(minutes=1)) == deadline + timedelta(hours=1)  # grace ends
    for moment in (at, late, deadline - timedelta(hours=3), deadline + timedelta(minutes=30)):
        change = next_change(sched, facts(), moment)
        # the plan is the same from the moment until just before the change
        assert plan(sched, facts(), moment) == plan(sched, facts(), change - timedelta(microseconds=1))


def test_the_next_midnight_of_a_zone_whose_clocks_skip_it() -> None:
    # Santiago's clocks went from 23:59:59 to 01:00 on 2022-09-11 (local): that day began at 04:00 UTC.
    sched = schedule(timezone="America/Santiago", deadline=None)
    change = next_change(sched, facts(), datetime(2022, 9, 10, 12, 0, tzinfo=UTC))
    assert change == datetime(2022, 9, 11, 4, 0, tzinfo=UTC)
    assert (change - timedelta(seconds=1)).astimezone(sched.timezone).date().isoformat() == "2022-09-10"
