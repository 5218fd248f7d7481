"""`referee status --clock`: each player's time to answer, per phase and in total, read from the
journal's own times (issue 18, item 8). The journal's clock is set by hand, so the times are known."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import referee.game.journal
from referee.game.engine import adjudicate, submit
from referee.game.status import clock, clock_text, duration

if TYPE_CHECKING:
    from conftest import TestGame

ROLLS = "rolls:\n  - {label: attack, dice: 2d6, purpose: the attack}\n"
HOUR = 3600


def at(hhmm: str) -> str:
    return f"2026-03-01T{hhmm}:00+00:00"


@pytest.fixture
def game_and_clock(
    make_game: Callable[..., TestGame], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[TestGame, Callable[[str], None]]:
    now = {"time": at("00:00")}
    monkeypatch.setattr(referee.game.journal, "utc_now", lambda: now["time"])

    def set_time(hhmm: str) -> None:
        now["time"] = at(hhmm)

    return make_game(tmp_path, rounds=3), set_time


def test_each_players_time_per_phase_and_in_total(game_and_clock: tuple[TestGame, Callable[[str], None]]) -> None:
    game, set_time = game_and_clock
    set_time("00:10")
    assert game.submit("bob", 1, ROLLS).accepted
    set_time("01:00")
    assert game.submit("alice", 1, ROLLS).accepted
    set_time("02:30")
    assert game.submit("alice", 1, ROLLS, seq=2).accepted  # the last accepted orders count
    set_time("05:00")
    assert submit(game.dir, game.order("carol", 1, ROLLS), None, become="carol").accepted  # not carol's answer
    set_time("06:00")
    adjudicate(game.dir)  # and the second phase opens now
    set_time("07:00")
    assert game.submit("alice", 2, ROLLS).accepted

    info = clock(game.dir, now=at("10:00"))
    first, second = info["phases"]
    assert (first["opened_at"], first["closed_at"]) == (at("00:00"), at("06:00"))
    assert {p: (t["seconds"], t["how"]) for p, t in first["players"].items()} == {
        "alice": (150 * 60, "orders"),
        "bob": (10 * 60, "orders"),
        "carol": (6 * HOUR, "none"),
    }
    assert {p: (t["seconds"], t["how"]) for p, t in second["players"].items()} == {
        "alice": (HOUR, "orders"),
        "bob": (4 * HOUR, "waiting"),
        "carol": (4 * HOUR, "waiting"),
    }
    assert info["totals"] == {"alice": 210 * 60, "bob": 250 * 60, "carol": 10 * HOUR}

    assert clock_text(info).splitlines()[:4] == [
        "clock      alice        bob      carol",
        "1/round   2h 30m    10m 00s     6h 00m *",
        "2/round   1h 00m     4h 00m +   4h 00m +",
        "total     3h 30m     4h 10m    10h 00m",
    ]


def test_a_new_game_has_everyone_waiting(game_and_clock: tuple[TestGame, Callable[[str], None]]) -> None:
    game, _ = game_and_clock
    info = clock(game.dir, now=at("00:05"))
    assert info["totals"] == {"alice": 300, "bob": 300, "carol": 300}


def test_durations_read_as_a_person_reads_them() -> None:
    assert [duration(s) for s in (0, 59, 61, HOUR, 25 * HOUR + 61)] == [
        "0m 00s",
        "0m 59s",
        "1m 01s",
        "1h 00m",
        "1d 1h 01m",
    ]


def test_a_rollback_is_not_the_players_time(game_and_clock: tuple[TestGame, Callable[[str], None]]) -> None:
    from referee.game.rollback import rollback

    game, set_time = game_and_clock
    set_time("01:00")
    for player in game.players or ("alice", "bob", "carol"):
        assert game.submit(player, 1, ROLLS).accepted
    set_time("02:00")
    adjudicate(game.dir)
    set_time("09:00")
    rollback(game.dir, "1/round", "a misread table", forward=True)
    first = clock(game.dir, now=at("10:00"))["phases"][0]
    assert (first["opened_at"], first["closed_at"]) == (at("00:00"), at("02:00"))
    assert {t["seconds"] for t in first["players"].values()} == {HOUR}
