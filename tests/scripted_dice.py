"""Dice that give the values a test feeds in, in order: for replaying a rulebook's worked example.

    dice = ScriptedDice([4, 2, 6])            # every die, in the order the rules roll them
    rules.resolve(state, orders, dice)
    dice.assert_used_up()                     # the example rolled exactly as many dice as it gave

`rolls` records what was drawn with the same shape as the real recorder, so a test can also
check which labels the rules used.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from referee.protocol.dice import parse_spec

T = TypeVar("T")


class ScriptedDice:
    """A `referee.kit.Dice` fed from a list; each die takes the next value, checked against its faces."""

    def __init__(self, values: Iterable[int]) -> None:
        self._values = list(values)
        self._next = 0
        self._labels: set[str] = set()
        self.rolls: list[dict[str, Any]] = []

    def _take(self, label: str, lowest: int, highest: int) -> int:
        if self._next >= len(self._values):
            raise AssertionError(f"the rules rolled {label!r} after the {len(self._values)} scripted dice ran out")
        value = self._values[self._next]
        if not lowest <= value <= highest:
            raise AssertionError(f"scripted value {value} for {label!r} is outside {lowest}..{highest}")
        self._next += 1
        return value

    def _label(self, label: str) -> None:
        if label in self._labels:
            raise AssertionError(f"dice label {label!r} was used twice in one phase")
        self._labels.add(label)

    def roll(self, spec: str, *, label: str) -> list[int]:
        parsed = parse_spec(spec)
        self._label(label)
        low = 0 if parsed.zero_based else 1
        values = [self._take(label, low, low + parsed.sides - 1) for _ in range(parsed.count)]
        self.rolls.append({"label": label, "spec": parsed.record_spec, "values": values})
        return values

    def uniform(self, n: int, *, label: str) -> int:
        self._label(label)
        value = self._take(label, 0, n - 1)
        self.rolls.append({"label": label, "spec": f"uniform({n})", "values": [value]})
        return value

    def shuffle(self, items: Sequence[T], *, label: str) -> list[T]:
        """Scripted shuffles keep the given order (feed the example's order as the items)."""
        self._label(label)
        self.rolls.append({"label": label, "spec": f"shuffle({len(items)})", "values": list(range(len(items)))})
        return list(items)

    @property
    def remaining(self) -> list[int]:
        return self._values[self._next :]

    def assert_used_up(self) -> None:
        assert not self.remaining, f"{len(self.remaining)} scripted dice were never rolled: {self.remaining}"
