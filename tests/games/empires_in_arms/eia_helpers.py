"""Helpers for the empires-in-arms tests: scripted dice that can also seal, and a small state."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

from eia_bot import COMBAT_RESULTS, COMPETITIVE, GUARD_TABLE

from games.empires_in_arms import rules
from referee.protocol.hidden import Hidden, HiddenDraws

from scripted_dice import ScriptedDice


class SealingDice(ScriptedDice):
    """Scripted dice whose sealed choices are committed for real (with a fixed key)."""

    def __init__(self, values: Iterable[int]) -> None:
        super().__init__(values)
        self._hidden = HiddenDraws(b"k" * 32, 1, "test")

    def seal(self, values: Sequence[Any], *, label: str) -> Hidden:
        return self._hidden.seal(values, label)


def coalition(**switched_on: bool) -> dict[str, Any]:
    """Return the coalition scenario's state with the test tables and the options named on."""
    options = {
        **switched_on,
        "combat_results": COMBAT_RESULTS,
        "guard_table": GUARD_TABLE,
        "competitive_rolls": COMPETITIVE,
    }
    return copy.deepcopy(rules.setup("coalition", ["britain", "france", "russia"], options))
