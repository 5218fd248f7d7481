"""A bound in progress: the working state, whose bound it is, the dice, IP left, and what happened.

The movement rules run twice on the same orders: once without dice when the orders arrive
(`validate`: anything illegal is refused with its reason) and once with dice at adjudication.
Where the dice are needed and absent (a river's condition, a reserve's arrival), the dry run
assumes the outcome that lets the order go on, so a legal order is never refused for a roll.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.cest_la_guerre.events import private
from referee.kit import Dice, Problem


@dataclass
class Bound:
    """The context of one phase's rules run."""

    state: dict[str, Any]
    role: str
    dice: Dice | None
    events: list[dict[str, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    ip_left: int = 0
    start: dict[str, Any] | None = None  # the state at the start of movement: formations are read here
    counter: int = 0
    chosen: dict[str, str] = field(default_factory=dict)  # Combat Engineers' marker -> the card that fights them

    @property
    def dry(self) -> bool:
        """Whether this is validation's run without dice."""
        return self.dice is None

    @property
    def options(self) -> dict[str, Any]:
        """The game's resolved options."""
        return self.state["options"]  # type: ignore[no-any-return]

    def label(self, *parts: str) -> str:
        """Return a dice label unique in the phase: r<round>/<phasing role>/<parts...>."""
        return "/".join([f"r{self.state['round']}", self.role, *parts])

    def next_number(self) -> int:
        """Return a fresh number for labels of repeated steps (combats, casualty rolls)."""
        self.counter += 1
        return self.counter

    def refuse(self, code: str, path: str, message: str) -> None:
        """Record an order that cannot be carried out: refused now, or skipped (told to its owner) later."""
        if self.dry:
            self.problems.append(Problem(code, path, message))
        else:
            self.events.append(private(self.role, "order.skipped", f"Not carried out ({path}): {message}"))
