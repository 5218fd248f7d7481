"""The recording dice: every draw a game makes in a phase, taken from its labelled stream and
listed as the public record lists it (docs/protocol.md, section 4), or committed without its
value when it is hidden (section 8).

A verifier needs none of this (it re-derives values with `referee.protocol.dice.derive`); the
referee's adjudication hands `Dice` to the game module, and the record is made from `rolls`
and `hidden.entries`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from referee.protocol.dice import (
    DiceError,
    DiceSpec,
    Keyed,
    Stream,
    first_uniform,
    first_uniforms,
    parse_spec,
    uniform_limit,
)
from referee.protocol.hidden import Hidden, HiddenDraws, check_hidden_label

T = TypeVar("T")


class Dice:
    """The only source of randomness a game module gets: every draw is labelled and recorded.

    `rolls` is the public record's list (label, spec, values) in the order drawn. Labels are
    unique within a phase, so adding a roll never shifts another. Hidden draws (section 8) go
    to `hidden`, whose entries the record lists as commitments only.
    """

    def __init__(self, key: bytes, hidden: HiddenDraws | None = None) -> None:
        self._key = key
        self._keyed = Keyed(key)  # keyed once for the phase's thousands of streams
        self._used: set[str] = set()
        self.rolls: list[dict[str, Any]] = []
        self.hidden = hidden if hidden is not None else HiddenDraws(None, 0, "")

    def _claim(self, label: str) -> None:
        used = self._used
        before = len(used)
        used.add(label)
        if len(used) == before:
            raise DiceError(f"dice label {label!r} was already used in this phase")

    def _stream(self, label: str) -> Stream:
        stream = Stream(self._keyed, label)  # checks the label before it is claimed
        self._claim(label)
        return stream

    def roll(self, spec: str | DiceSpec, *, label: str) -> list[int]:
        """Roll a dice spec such as `2d6` or `1d10z`; return each die's value in order."""
        parsed = spec if isinstance(spec, DiceSpec) else parse_spec(spec)
        sides = parsed.sides
        offset = 0 if parsed.zero_based else 1
        if parsed.count == 1:  # the common case: the stream's first value, without a Stream object
            values = [first_uniform(self._keyed, label, sides) + offset]  # checks the label first
            self._claim(label)
        elif parsed.count <= 4:  # a few dice: the stream's first block, without a Stream object
            values = first_uniforms(self._keyed, label, sides, parsed.count, offset)  # checks the label first
            self._claim(label)
        else:
            uniform = self._stream(label).uniform
            values = [uniform(sides) + offset for _ in range(parsed.count)]
        self.rolls.append({"label": label, "spec": parsed.record_spec, "values": values})
        return values

    def uniform(self, n: int, *, label: str) -> int:
        """Return one unbiased integer in 0..n-1."""
        value = self._stream(label).uniform(n)
        self.rolls.append({"label": label, "spec": f"uniform({n})", "values": [value]})
        return value

    def shuffle(self, items: Sequence[T], *, label: str) -> list[T]:
        """Return `items` shuffled; the record holds the permutation of their indices."""
        order = self._stream(label).shuffle(range(len(items)))
        self.rolls.append({"label": label, "spec": f"shuffle({len(items)})", "values": order})
        return [items[i] for i in order]

    def hidden_roll(self, spec: str | DiceSpec, *, label: str) -> Hidden:
        """Roll dice in secret: the record holds a commitment to each die, not its value."""
        parsed = spec if isinstance(spec, DiceSpec) else parse_spec(spec)
        self._claim_hidden(label)
        return self.hidden.roll(parsed, label)

    def hidden_uniform(self, n: int, *, label: str) -> Hidden:
        """Draw one integer in 0..n-1 in secret (a secret random pick)."""
        uniform_limit(n)
        self._claim_hidden(label)
        return self.hidden.uniform(n, label)

    def hidden_shuffle(self, items: Sequence[str], *, label: str, source: Mapping[str, Any] | None = None) -> Hidden:
        """Shuffle ids (cards) in secret, taken sorted: the record commits to the id at each
        position and states what was shuffled (`source`, section 12)."""
        self._claim_hidden(label)
        return self.hidden.shuffle(items, label, source)

    def move_card(
        self,
        deck: str,
        position: tuple[str, int],
        source: str,
        to: str,
        *,
        secret: bool = False,
        pick: str | None = None,
    ) -> None:
        """List in the record a card of `deck` at a committed position moving from `source` to `to`
        (section 12); `secret` lists a commitment to the position instead of the position; `pick`
        the roll of this phase that chose the card among its hand's (a random take)."""
        self.hidden.move(deck, position, source, to, secret, pick)

    def seal(self, values: Sequence[Any], *, label: str) -> Hidden:
        """Commit to values the game chose (a sealed choice), to be opened when a rule says."""
        self._claim_hidden(label)
        return self.hidden.seal(values, label)

    def _claim_hidden(self, label: str) -> None:
        check_hidden_label(label)
        self._claim(label)
