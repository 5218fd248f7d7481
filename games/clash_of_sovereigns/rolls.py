"""Rolls on the referee's tables and plain d6 rolls, with a side's Mulligan (22.10) standing by."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.clash_of_sovereigns import labels
from games.clash_of_sovereigns.seats import side_of_seat
from games.clash_of_sovereigns.supplies import supplied
from referee.kit import Dice, Event, Lookup, NotSupplied, Table, parse_tables


def table(state: Mapping[str, Any], table_id: str) -> Table:
    """Return a table the referee supplied, or raise NotSupplied naming it."""
    data = supplied(state, f"tables/{table_id}")
    if data is None:
        raise NotSupplied(
            f"tables/{table_id}",
            f"the {table_id} table is not supplied: it is on a component our copy of the book lacks",
            hints=(
                f"referee supply --template tables/{table_id} GAMEDIR > {table_id}.yaml, fill it in, then supply it",
            ),
        )
    from games.clash_of_sovereigns.supplies import TABLE_EFFECTS

    return parse_tables({"schema_version": 1, "tables": {table_id: data}}, "supplied", TABLE_EFFECTS[table_id])[
        table_id
    ]


class Roller:
    """Rolls of one phase: each seat's Mulligan order (22.10) is used on its first own roll of
    the kind named that comes up at or below its number; the reroll stands."""

    def __init__(self, state: dict[str, Any], orders: Mapping[str, Mapping[str, Any]], dice: Dice) -> None:
        self.state, self.dice = state, dice
        self.standing = {seat: order.get("mulligan") for seat, order in orders.items() if order.get("mulligan")}

    def d6(self, seat: str | None, kind: str, label: str, events: list[Event], what: str) -> int:
        """Roll 1d6 for `seat` (None: no one's own roll), offering it to their Mulligan."""
        value = self.dice.roll("1d6", label=label)[0]
        return self._mulligan(
            seat, kind, label, value, events, what, lambda again: self.dice.roll("1d6", label=again)[0]
        )

    def on_table(
        self,
        seat: str | None,
        kind: str,
        table_id: str,
        label: str,
        modifiers: Sequence[Any],
        events: list[Event],
        what: str,
        column: str | None = None,
    ) -> Lookup:
        """Roll on a supplied table for `seat`, offering the natural roll to their Mulligan."""
        found = table(self.state, table_id)
        values = self.dice.roll(found.dice.text, label=label)
        natural = sum(values)

        def again(relabel: str) -> int:
            values[:] = self.dice.roll(found.dice.text, label=relabel)
            return sum(values)

        self._mulligan(seat, kind, label, natural, events, what, again)
        return found.lookup(values, list(modifiers), column)

    def _mulligan(
        self, seat: str | None, kind: str, label: str, value: int, events: list[Event], what: str, again: Any
    ) -> int:
        order = self.standing.get(seat) if seat else None
        mulligans = self.state.get("mulligans") or {}
        if not order or order["on"] != kind or value > order["at_most"]:
            return value
        side = side_of_seat(self.state, seat)  # type: ignore[arg-type]
        if not mulligans.get(side):
            return value
        mulligans[side] = False
        self.standing.pop(seat, None)  # type: ignore[arg-type]
        rerolled = again(labels.mulligan(label))
        events.append(
            Event(
                "mulligan",
                f"{seat} plays the {side.title()} Mulligan (22.10) on {what}: {value} is rolled again, "
                f"{rerolled}; the reroll stands",
                {"seat": seat, "side": side, "label": label, "first": value, "reroll": rerolled},
            )
        )
        return rerolled
