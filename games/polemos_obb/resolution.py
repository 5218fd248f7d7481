"""One phase's adjudication in progress: the new state, the dice, the tables and the events so far.

Every die is drawn here, under a label naming its purpose, and each draw adds a small "dice"
event carrying that label: the core uses it to say in the report's dice list what each roll was
for and which table row it gave. Those events are public, as the rolls are in the public record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from games.polemos_obb.model import State
from referee.kit import Dice, Event, Lookup, Tables

Visibility = Literal["all"] | tuple[str, ...]


@dataclass
class Resolution:
    """The state being built by one phase's resolve, with its dice, tables and events."""

    state: State
    dice: Dice
    tables: Tables
    events: list[Event] = field(default_factory=list)

    def read(
        self,
        table_id: str,
        *,
        label: str,
        purpose: str,
        modifiers: Sequence[str] = (),
        column: str | None = None,
    ) -> Lookup:
        """Roll a table's dice under `label` and return the table's reading, recorded for the report."""
        table = self.tables.get(table_id)
        values = self.dice.roll(table.dice.text, label=label)
        lookup = table.lookup(values, modifiers, column)
        text = f"{purpose}: {'+'.join(map(str, values))}"
        text += "".join(f" {name} {value:+d}" for name, value in lookup.modifiers)
        text += f" -> {lookup.result}"
        self.events.append(Event("dice", text, {"label": label, "purpose": purpose, "lookup": lookup.as_dict()}))
        return lookup

    def d6(self, *, label: str, purpose: str) -> int:
        """Roll one D6 under `label` and return it, recorded for the report."""
        value = self.dice.roll("1d6", label=label)[0]
        self.events.append(Event("dice", f"{purpose}: {value}", {"label": label, "purpose": purpose}))
        return value

    def say(self, kind: str, text: str, data: Mapping[str, Any] | None = None, visible_to: Visibility = "all") -> None:
        """Add an event to the phase's report."""
        self.events.append(Event(kind, text, dict(data or {}), visible_to))
