"""Roll tables the referee supplies mid-game (issue 15): the one need of a moderator game.

A moderator game reads its tables from its configuration and never waits on its referee. The
referee may still add a table, or replace one by its id, at any point with `referee supply`:
it is read from the next round on, and players name it in their roll requests.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.kit import GameDataError, Need, Problem, Supplies, Wanted, load_text, parse_tables, placeholders, thaw

PACKAGE = "games.moderator"
TABLES = Need(
    id="tables",
    title="roll tables (added to the game's, or replacing one of the same id)",
    book="the rules the game is played by: their roll tables",
    needed_by="a roll request naming the table (`table: <id>`)",
    shape={"type": "any", "description": "table id: a table in the shared table format (title, dice, rows...)"},
    template=load_text(PACKAGE, "templates/tables.yaml"),
    example=load_text(PACKAGE, "examples/tables.yaml"),
    kind="table",
)


def wanted(state: Mapping[str, Any]) -> list[Wanted]:
    """Return the one need: the game reads the tables it has, so it never waits for one."""
    names = sorted((state["tables"] or {}).get("tables", {}))
    having = f"the game has {len(names)} table(s): {', '.join(names)}" if names else "the game has no tables"
    return [Wanted("tables", "default", f"{having}; the referee may add or replace one at any point")]


def supply(state: Mapping[str, Any], need_id: str, data: Any) -> tuple[Any, list[Problem]]:
    """Return (the state with the supplied tables added or replacing, []) or (the state, the problems)."""
    if need_id != TABLES.id:
        return thaw(state), [Problem("invalid.supply.need", "supplies", f"moderator needs no {need_id!r} (tables)")]
    data = thaw(data)
    if not isinstance(data, Mapping) or not data:
        return thaw(state), [Problem("invalid.type", "data", "must map each table's id to its table")]
    problems = placeholders(data)
    for table_id, table in data.items():
        try:
            parse_tables({"schema_version": 1, "tables": {table_id: table}}, "data")
        except GameDataError as error:
            problems.append(Problem("invalid.table", f"data.{table_id}", str(error).removeprefix("data: ")))
    if problems:
        return thaw(state), problems
    new = thaw(state)
    tables = dict((new["tables"] or {}).get("tables", {}))
    tables.update(thaw(data))
    new["tables"] = {"schema_version": 1, "tables": tables}
    return new, []


SUPPLIES = Supplies(needs=(TABLES,), wanted=wanted, supply=supply)
