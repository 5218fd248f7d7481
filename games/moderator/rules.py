"""Rules of `moderator`: each round, every player may request labelled die rolls (read
against the referee's tables, with named modifiers), seal a declaration, and leave a note.
Everything is revealed to every player when the round is adjudicated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from referee.api import Dice, Event, GameDataError, PhaseSpec, Problem, Tables, parse_spec, parse_tables

PHASE = "round"
MAX_ROLLS = 5000
LABEL = r"[a-z0-9][a-z0-9_.-]{0,47}"
OPTIONS = {
    "rounds": "how many rounds the game lasts (a whole number; leave out for no limit)",
    "tables": "the referee's die-roll tables (a tables file or mapping; see docs)",
}

ROLL_SCHEMA = {
    "type": "map",
    "description": "one roll request",
    "required": ["label", "purpose"],
    "fields": {
        "label": {
            "type": "str",
            "pattern": LABEL,
            "example": "cavalry-charge",
            "description": "your name for the roll, unique in your orders (lower-case, digits, - _ .)",
        },
        "dice": {"type": "str", "max": 16, "description": "dice spec: 2d6, 3d6, 1d10, 1d10z (a d10 read 0-9)"},
        "purpose": {"type": "str", "max": 300, "description": "what the roll is for, in words"},
        "table": {
            "type": "str",
            "max": 64,
            "description": "a table from the game's configuration, to read the roll on",
        },
        "modifiers": {
            "type": "list",
            "max": 20,
            "items": {"type": "str", "max": 64},
            "description": "names of the table's modifiers that apply",
        },
        "column": {"type": "str", "max": 64, "description": "the table column to read, for tables with columns"},
    },
}
ORDER_SCHEMA = {
    "type": "map",
    "fields": {
        "rolls": {"type": "list", "max": MAX_ROLLS, "items": ROLL_SCHEMA, "description": "roll requests"},
        "declaration": {"type": "any", "description": "a sealed declaration (bid, plan...), revealed with the report"},
        "note": {"type": "str", "max": 4000, "description": "a note to every player"},
    },
}
EXAMPLE = {
    "rolls": [{"label": "first-roll", "dice": "2d6", "purpose": "what this roll decides"}],
}


def roles(scenario: str, options: Mapping[str, Any]) -> None:
    """Any names may play: the players' names are the roles."""
    return None


def setup(scenario: str, players: Sequence[str], options: Mapping[str, Any]) -> dict[str, Any]:
    """Return the state before round 1."""
    rounds = options.get("rounds")
    if rounds is not None and (isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1):
        raise GameDataError(f"option 'rounds' must be a whole number of at least 1, got {rounds!r}")
    return {
        "round": 1,
        "rounds": rounds,
        "players": sorted(players),
        "tables": options.get("tables") or {},
        "declarations": [],
        "notes": [],
        "last_rolls": [],
    }


def phase(state: Mapping[str, Any]) -> PhaseSpec | None:
    """Return the open round, or None once the last round is played."""
    if state["rounds"] is not None and state["round"] > state["rounds"]:
        return None
    return PhaseSpec(
        turn=state["round"],
        name=PHASE,
        active=tuple(state["players"]),
        sealed=True,
        schema=ORDER_SCHEMA,
        default_orders={},
        example=EXAMPLE,
        title=f"round {state['round']}",
    )


def _tables(state: Mapping[str, Any]) -> Tables:
    return Tables(parse_tables(state["tables"], "the game's configuration") if state["tables"] else {})


def validate(state: Mapping[str, Any], player: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return the problems with a player's orders: duplicate labels, bad dice, unknown tables."""
    problems: list[Problem] = []
    tables = _tables(state)
    seen: set[str] = set()
    for index, request in enumerate(orders.get("rolls") or []):
        path = f"orders.rolls[{index}]"
        if request["label"] in seen:
            problems.append(
                Problem(
                    "illegal.duplicate-label",
                    f"{path}.label",
                    f"the label '{request['label']}' is used twice; each roll needs its own label",
                )
            )
        seen.add(request["label"])
        table = None
        if "table" in request:
            if request["table"] not in tables:
                known = ", ".join(tables.names()) or "none (the configuration has no tables)"
                problems.append(
                    Problem(
                        "illegal.unknown-table",
                        f"{path}.table",
                        f"there is no table '{request['table']}'; tables: {known}",
                    )
                )
                continue
            table = tables.get(request["table"])
            problems += _table_problems(table, request, path)
        elif "modifiers" in request or "column" in request:
            problems.append(Problem("illegal.no-table", path, "modifiers and column need a 'table' to read"))
        if "dice" not in request:
            if table is None:
                problems.append(
                    Problem("invalid.missing", f"{path}.dice", "give the dice to roll (e.g. 2d6) or a table")
                )
            continue
        try:
            spec = parse_spec(request["dice"])
        except ValueError as exc:
            problems.append(Problem("invalid.dice", f"{path}.dice", str(exc)))
            continue
        if table is not None and spec != table.dice:
            problems.append(
                Problem(
                    "illegal.dice-mismatch",
                    f"{path}.dice",
                    f"table '{table.id}' is read with {table.dice.text}, not {spec.text}; leave 'dice' out",
                )
            )
    return problems


def _table_problems(table: Any, request: Mapping[str, Any], path: str) -> list[Problem]:
    problems = []
    for name in request.get("modifiers", []):
        if name not in table.modifiers:
            known = ", ".join(table.modifiers) or "none"
            problems.append(
                Problem(
                    "illegal.unknown-modifier",
                    f"{path}.modifiers",
                    f"table '{table.id}' has no modifier '{name}'; its modifiers: {known}",
                )
            )
    if len(set(request.get("modifiers", []))) != len(request.get("modifiers", [])):
        problems.append(Problem("illegal.duplicate-modifier", f"{path}.modifiers", "a modifier is named twice"))
    if table.columns and request.get("column") not in table.columns:
        problems.append(
            Problem(
                "illegal.column",
                f"{path}.column",
                f"table '{table.id}' needs a column: one of {', '.join(table.columns)}",
            )
        )
    elif not table.columns and "column" in request:
        problems.append(Problem("illegal.column", f"{path}.column", f"table '{table.id}' has no columns"))
    return problems


def roll_label(player: str, label: str) -> str:
    """Return the dice label of a player's roll request (unique in the phase)."""
    return f"roll/{player}/{label}"


def resolve(
    state: Mapping[str, Any], orders: Mapping[str, Mapping[str, Any]], dice: Dice
) -> tuple[dict[str, Any], list[Event]]:
    """Roll every request in player order, read tables, reveal declarations and notes."""
    tables = _tables(state)
    events: list[Event] = []
    rolled: list[dict[str, Any]] = []
    declarations: dict[str, Any] = {}
    notes: dict[str, str] = {}
    for player in sorted(orders):
        order = orders[player]
        for request in order.get("rolls") or []:
            event = _roll(player, request, tables, dice)
            events.append(event)
            rolled.append(_summary(event.data))
        if order.get("declaration") is not None:
            declarations[player] = order["declaration"]
            events.append(
                Event(
                    "declaration.revealed",
                    f"{player} declared: {_short(order['declaration'])}",
                    {"player": player, "declaration": order["declaration"]},
                )
            )
        if order.get("note"):
            notes[player] = order["note"]
            events.append(Event("note", f"{player} notes: {order['note']}", {"player": player, "note": order["note"]}))
    new_state = {
        **state,
        "round": state["round"] + 1,
        "declarations": [*state["declarations"], {"round": state["round"], "by": declarations}]
        if declarations
        else list(state["declarations"]),
        "notes": [*state["notes"], {"round": state["round"], "by": notes}] if notes else list(state["notes"]),
        "last_rolls": rolled,
    }
    return new_state, events


def _roll(player: str, request: Mapping[str, Any], tables: Tables, dice: Dice) -> Event:
    label = roll_label(player, request["label"])
    table = tables.get(request["table"]) if "table" in request else None
    spec = request.get("dice") or table.dice.text  # type: ignore[union-attr]
    values = dice.roll(spec, label=label)
    data: dict[str, Any] = {
        "label": label,
        "player": player,
        "request": request["label"],
        "purpose": request["purpose"],
        "dice": spec,
        "values": values,
        "total": sum(values),
    }
    text = f"{player} rolled {spec} for “{request['purpose']}” ({request['label']}): {' + '.join(map(str, values))}"
    text += f" = {sum(values)}" if len(values) > 1 else ""
    if table is not None:
        lookup = tables.lookup(table.id, values, request.get("modifiers", ()), request.get("column")).as_dict()
        data["lookup"] = lookup
        text += f"; {lookup['title']}: {lookup['result']}"
    return Event("roll", text, data)


def _summary(roll: Mapping[str, Any]) -> dict[str, Any]:
    """Return the little a state keeps of a roll: the report and the record hold the rest."""
    summary = {"label": roll["label"], "values": roll["values"]}
    if "lookup" in roll:
        summary["result"] = roll["lookup"]["result"]
    return summary


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 200 else text[:197] + "..."


def view(state: Mapping[str, Any], player: str | None) -> dict[str, Any]:
    """Return what a player (or the public) sees: everything, since all is revealed at adjudication."""
    return {
        "game": "moderator",
        "you": player,
        "round": state["round"],
        "rounds": state["rounds"],
        "players": list(state["players"]),
        "tables": sorted(state["tables"].get("tables", {})) if state["tables"] else [],
        "declarations": list(state["declarations"]),
        "notes": list(state["notes"]),
        "last_rolls": list(state["last_rolls"]),
    }


def check(state: Mapping[str, Any]) -> list[str]:
    """Return broken invariants of the state."""
    problems = []
    if state["round"] < 1:
        problems.append("round below 1")
    if state["rounds"] is not None and state["round"] > state["rounds"] + 1:
        problems.append("round past the last round")
    if sorted(state["players"]) != list(state["players"]):
        problems.append("players not sorted")
    return problems
