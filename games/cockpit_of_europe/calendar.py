"""Cockpit of Europe's calendar: 16 turns a year, a Quarter of 4 turns (6.261, 6.321, 6.314),
each turn four phases in order (start of turn, administration, start of operations, operations).

A turn is named by its year and its number in the year (1-16); `absolute` counts turns from
turn 1 of 1744, so that timers ("16 full turns", "4 turns later") are plain subtraction. The
labels of a year's turns ("March-April", "May"...) are on the series' turn record track, which
the exclusive rules do not print: the referee supplies them (need `calendar`). Until then a turn
is shown as "turn N of YEAR".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

TURNS_A_YEAR = 16
TURNS_A_QUARTER = 4
FIRST_YEAR = 1744
PHASES: tuple[tuple[str, str], ...] = (
    ("start-of-turn", "Start of turn"),
    ("administration", "Administrative Phase"),
    ("start-of-operations", "Start of the Operations Phase"),
    ("operations", "Operations Phase"),
)
PHASE_NAMES = tuple(name for name, _ in PHASES)


def absolute(year: int, turn: int) -> int:
    """Return the turn's number counted from turn 1 of 1744 (which is 1)."""
    return (year - FIRST_YEAR) * TURNS_A_YEAR + turn


def from_absolute(number: int) -> tuple[int, int]:
    """Return (year, turn of the year) of an absolute turn number."""
    year, index = divmod(number - 1, TURNS_A_YEAR)
    return FIRST_YEAR + year, index + 1


def quarter(turn: int) -> int:
    """Return the Quarter (1-4) a turn of the year falls in."""
    return (turn - 1) // TURNS_A_QUARTER + 1


def is_quarter_start(turn: int) -> bool:
    """Return whether the turn opens a Quarter (1, 5, 9, 13): the strategic checks' turns (6.12)."""
    return (turn - 1) % TURNS_A_QUARTER == 0


def is_first_of_year(turn: int) -> bool:
    """Return whether the turn is the first of its year."""
    return turn == 1


def is_last_of_year(turn: int) -> bool:
    """Return whether the turn is the last of its year (16)."""
    return turn == TURNS_A_YEAR


def label(labels: Sequence[str] | None, year: int, turn: int) -> str:
    """Return a turn's name: "April-May 1745" with the supplied labels, else "turn 4 of 1745"."""
    if labels:
        return f"{labels[turn - 1]} {year}"
    return f"turn {turn} of {year}"


def turn_of_label(labels: Sequence[str] | None, name: str) -> int | None:
    """Return the turn of the year (1-16) the supplied labels give `name`, or None (no labels,
    or no such label); the first such turn where a label repeats."""
    if not labels:
        return None
    for index, text in enumerate(labels):
        if text.casefold() == name.casefold():
            return index + 1
    return None


def between(labels: Sequence[str] | None, turn: int, first: str, last: str) -> bool | None:
    """Return whether a turn of the year lies from label `first` to label `last`, inclusive; None
    when the labels are not supplied (or lack either), so that the caller says it cannot tell."""
    low, high = turn_of_label(labels, first), turn_of_label(labels, last)
    if low is None or high is None:
        return None
    return low <= turn <= high


def next_position(year: int, turn: int, phase: str) -> tuple[int, int, str]:
    """Return the year, turn and phase after the given phase."""
    index = PHASE_NAMES.index(phase)
    if index + 1 < len(PHASE_NAMES):
        return year, turn, PHASE_NAMES[index + 1]
    year, turn = from_absolute(absolute(year, turn) + 1)
    return year, turn, PHASE_NAMES[0]


def phase_title(name: str) -> str:
    """Return a phase's title ("Administrative Phase")."""
    return dict(PHASES).get(name, name)


def now(state: Mapping[str, Any]) -> int:
    """Return the absolute number of the state's turn."""
    return absolute(state["year"], state["turn"])
