"""The roll path of the procedure journal: roll requests checked, rolled and read on their tables, with
their follow-ups carried out in the same round:

- the request's own `then:` list: each follow-up rolls (on a table, or plain dice) or picks at
  random from a list when the roll meets its `if:` (a comparison of the total read, the table's
  result text, or an effect the result names);
- a structured result's `pick:` (from a list of the game's options) and `roll:` (on another
  table), made after the roll that read it: first the pick, then the roll.

Every draw has its own label, derived from its parent's: `roll/alice/plague/then-1` for the
first `then:`, `.../pick` and `.../roll` for a structured result's. A chain stops after
MAX_DEPTH follow-ups, and the report says so.

A pick draws a shuffle of the list's items and keeps the first `count`. A list is given in the
orders, named from the game's options (`lists:`), or sealed: a hidden note, one item a line,
written in an earlier round. The sealed pick shows everyone which line was picked; the item itself
only the note's readers, until its writer reveals the note (which proves the list was not changed).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from referee.kit import Dice, Event, GameDataError, Problem, Table, Tables, parse_spec

LABEL = r"[a-z0-9][a-z0-9_.-]{0,47}"
MAX_THEN = 5
MAX_DEPTH = 5
MAX_PICK = 50
MAX_LIST = 500
MAX_ITEM = 300
_COMPARISON = re.compile(r"\s*(>=|<=|==|!=|>|<|=)?\s*(-?[0-9]{1,9})\s*")
_COMPARE = {
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
    "=": lambda a, b: a == b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}

MODIFIERS_SCHEMA = {
    "type": "list",
    "max": 20,
    "items": {"type": "any", "description": "a modifier's name, or {name: value}"},
    "description": "the table's modifiers that apply: names, and {name: value} for a numeric one "
    "(e.g. [elite, {rating-difference: 2}])",
}
PICK_SCHEMA = {
    "type": "map",
    "required": ["from"],
    "description": "a pick at random from a list",
    "fields": {
        "from": {
            "type": "any",
            "description": "a list of items, the name of a list in the game's options, or {note: ID, by: PLAYER}: "
            "a hidden note sealed in an earlier round, one item a line",
        },
        "count": {"type": "int", "min": 1, "max": MAX_PICK, "description": "how many different items (default 1)"},
    },
}
IF_SCHEMA = {
    "type": "map",
    "description": "when the follow-up is made (leave out: always); every condition given must hold",
    "fields": {
        "total": {"type": "any", "description": 'the total read, compared: ">= 12", "<= 3", "!= 7", or a number'},
        "result": {"type": "str", "max": MAX_ITEM, "description": "the table's result, word for word"},
        "effect": {"type": "str", "max": 64, "description": "an effect the table's result names"},
    },
}
THEN_SCHEMA = {
    "type": "map",
    "description": "a roll or a pick made in the same round when the roll meets `if`",
    "fields": {
        "if": IF_SCHEMA,
        "purpose": {"type": "str", "max": 300, "description": "what the follow-up is for (default: the roll's)"},
        "table": {"type": "str", "max": 64, "description": "a table to roll on"},
        "dice": {"type": "str", "max": 16, "description": "dice, when no table is named"},
        "modifiers": MODIFIERS_SCHEMA,
        "column": {"type": "str", "max": 64, "description": "the table column to read"},
        "pick": PICK_SCHEMA,
    },
}
ROLL_SCHEMA: dict[str, Any] = {
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
        "modifiers": MODIFIERS_SCHEMA,
        "column": {"type": "str", "max": 64, "description": "the table column to read, for tables with columns"},
        "then": {
            "type": "list",
            "max": MAX_THEN,
            "items": THEN_SCHEMA,
            "description": "follow-ups in this round, in this order: each rolls or picks if the roll meets its `if`",
        },
    },
}
# A roll request as games begun before follow-ups and numeric modifiers take it (option
# `roll_requests` left out): their notices describe it, and `audit` renders them again word for word.
PLAIN_ROLL_SCHEMA = {
    **ROLL_SCHEMA,
    "fields": {
        **{name: field for name, field in ROLL_SCHEMA["fields"].items() if name != "then"},
        "modifiers": {
            "type": "list",
            "max": 20,
            "items": {"type": "str", "max": 64},
            "description": "names of the table's modifiers that apply",
        },
    },
}


def roll_label(player: str, label: str) -> str:
    """Return the dice label of a player's roll request (unique in the phase)."""
    return f"roll/{player}/{label}"


def possessive(name: str) -> str:
    """Return a player's name as an owner: "france's", but "allies'" (not "allies's")."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def roll_problems(
    tables: Tables,
    lists: Mapping[str, Sequence[str]],
    notes: Sequence[Mapping[str, Any]],
    players: Sequence[str],
    player: str,
    orders: Mapping[str, Any],
) -> list[Problem]:
    """Return the problems with a player's roll requests and their follow-ups."""
    problems: list[Problem] = []
    seen: set[str] = set()
    chains: dict[str, list[tuple[str, str]]] = {}
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
        found, table = _draw_problems(tables, lists, request, path, chains)
        problems += found
        for number, step in enumerate(request.get("then") or []):
            where = f"{path}.then[{number}]"
            problems += _then_problems(tables, lists, notes, players, player, table, step, where, chains)
    return problems


def _draw_problems(
    tables: Tables,
    lists: Mapping[str, Sequence[str]],
    request: Mapping[str, Any],
    path: str,
    chains: dict[str, list[tuple[str, str]]],
) -> tuple[list[Problem], Table | None]:
    """Return the problems of a roll (a request or a follow-up) and the table it reads, if any;
    `chains` keeps each table's follow-up problems, found once per orders."""
    problems: list[Problem] = []
    table = None
    if "table" in request:
        if request["table"] not in tables:
            known = ", ".join(tables.names()) or "none (the configuration has no tables)"
            problems.append(
                Problem(
                    "illegal.unknown-table", f"{path}.table", f"there is no table '{request['table']}'; tables: {known}"
                )
            )
            return problems, None
        table = tables.get(request["table"])
        problems += table_problems(table, request, path)
        if table.id not in chains:
            chains[table.id] = _chain_problems(tables, lists, table)
        problems += [Problem(code, f"{path}.table", message) for code, message in chains[table.id]]
    elif "modifiers" in request or "column" in request:
        problems.append(Problem("illegal.no-table", path, "modifiers and column need a 'table' to read"))
    if "dice" not in request:
        if table is None:
            problems.append(Problem("invalid.missing", f"{path}.dice", "give the dice to roll (e.g. 2d6) or a table"))
        return problems, table
    try:
        spec = parse_spec(request["dice"])
    except ValueError as exc:
        problems.append(Problem("invalid.dice", f"{path}.dice", str(exc)))
        return problems, table
    if table is not None and spec != table.dice:
        problems.append(
            Problem(
                "illegal.dice-mismatch",
                f"{path}.dice",
                f"table '{table.id}' is read with {table.dice.text}, not {spec.text}; leave 'dice' out",
            )
        )
    return problems, table


def table_problems(table: Table, request: Mapping[str, Any], path: str) -> list[Problem]:
    """Return the problems of a roll's modifiers and column for `table`."""
    problems = []
    try:
        if request.get("modifiers"):
            table.modifier_values(request["modifiers"])
    except GameDataError as error:
        code = "illegal.duplicate-modifier" if "named twice" in str(error) else "illegal.modifier"
        if " has no modifier " in str(error):
            code = "illegal.unknown-modifier"
        message = str(error).replace(f"table {table.id} ({table.title})", f"table '{table.id}'", 1)
        message = message.removeprefix(f"table '{table.id}': ")
        problems.append(Problem(code, f"{path}.modifiers", "; ".join([message, *error.hints])))
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


def _chain_problems(tables: Tables, lists: Mapping[str, Sequence[str]], table: Table) -> list[tuple[str, str]]:
    """Return (code, message) of what a structured result of `table`, or of a table it rolls on,
    would miss: a table to roll on (or one with columns, which a follow-up cannot choose), or a
    list to pick from."""
    problems: list[tuple[str, str]] = []
    visited, queue = {table.id}, [table]
    while queue:
        current = queue.pop(0)
        for target in current.follow_up_tables():
            if target not in tables:
                message = f"table '{current.id}' may roll on table '{target}', which the game does not have"
                problems.append(("illegal.follow-up-table", message + "; the referee must supply it"))
            elif tables.get(target).columns:
                message = f"table '{current.id}' may roll on table '{target}', whose columns a follow-up cannot choose"
                problems.append(("illegal.follow-up-table", message))
            elif target not in visited:
                visited.add(target)
                queue.append(tables.get(target))
        for origin in _pick_lists(current):
            if origin not in lists:
                known = ", ".join(sorted(lists)) or "none"
                message = f"table '{current.id}' may pick from the list '{origin}', which the game's options lack"
                problems.append(("illegal.follow-up-list", f"{message} (lists: {known})"))
    return problems


def _pick_lists(table: Table) -> list[str]:
    found: list[str] = []
    for result in _results(table, None):
        if isinstance(result, Mapping) and "pick" in result and result["pick"]["from"] not in found:
            found.append(result["pick"]["from"])
    return found


def _results(table: Table, column: str | None) -> list[Any]:
    """Return every result a lookup of `table` can give (in `column`, or in any column)."""
    if table.columns is None:
        return [row.result for row in table.rows]
    columns = [column] if column in table.columns else list(table.columns)
    return [row.result[name] for row in table.rows for name in columns]


def _text(result: Any) -> str:
    return str(result["text"] if isinstance(result, Mapping) else result)


def _then_problems(
    tables: Tables,
    lists: Mapping[str, Sequence[str]],
    notes: Sequence[Mapping[str, Any]],
    players: Sequence[str],
    player: str,
    table: Table | None,
    step: Mapping[str, Any],
    path: str,
    chains: dict[str, list[tuple[str, str]]],
) -> list[Problem]:
    problems = _condition_problems(table, step.get("if"), step, f"{path}.if")
    rolls = [key for key in ("table", "dice", "modifiers", "column") if key in step]
    if "pick" in step:
        if rolls:
            message = f"a follow-up either rolls or picks: leave out {', '.join(rolls)}, or the pick"
            problems.append(Problem("illegal.then", path, message))
        problems += _pick_problems(lists, notes, players, player, step["pick"], f"{path}.pick")
    elif not rolls:
        problems.append(Problem("invalid.missing", path, "give a table or dice to roll, or a pick"))
    else:
        problems += _draw_problems(tables, lists, step, path, chains)[0]
    return problems


def _condition_problems(
    table: Table | None, condition: Mapping[str, Any] | None, step: Mapping[str, Any], path: str
) -> list[Problem]:
    if condition is None:
        return []
    problems = []
    if not condition:
        problems.append(Problem("invalid.missing", path, "give total, result or effect (or leave `if` out: always)"))
    if "total" in condition and _comparison(condition["total"]) is None:
        message = f'{condition["total"]!r} is not a comparison: write ">= 12", "<= 3", "!= 7" or a number'
        problems.append(Problem("invalid.condition", f"{path}.total", message))
    for key in ("result", "effect"):
        if key not in condition:
            continue
        if table is None:
            problems.append(Problem("illegal.condition", f"{path}.{key}", f"`{key}` needs the roll to name a table"))
            continue
        results = _results(table, None)
        if key == "result":
            texts = sorted({_text(result) for result in results})
            if condition["result"] not in texts:
                message = f"table '{table.id}' never gives {condition['result']!r}; its results: {'; '.join(texts)}"
                problems.append(Problem("illegal.condition", f"{path}.result", message))
        else:
            words = sorted({w for r in results if isinstance(r, Mapping) for w in r.get("effects", ())})
            if condition["effect"] not in words:
                known = ", ".join(words) or "none"
                message = (
                    f"no result of table '{table.id}' names the effect {condition['effect']!r}; its effects: {known}"
                )
                problems.append(Problem("illegal.condition", f"{path}.effect", message))
    return problems


def _comparison(value: Any) -> tuple[str, int] | None:
    """Return (operator, number) of a `total` condition, or None if it is not one."""
    if isinstance(value, int) and not isinstance(value, bool):
        return "=", value
    match = _COMPARISON.fullmatch(value) if isinstance(value, str) else None
    return (match[1] or "=", int(match[2])) if match else None


def _pick_problems(
    lists: Mapping[str, Sequence[str]],
    notes: Sequence[Mapping[str, Any]],
    players: Sequence[str],
    player: str,
    pick: Mapping[str, Any],
    path: str,
) -> list[Problem]:
    origin, count = pick["from"], pick.get("count", 1)
    where = f"{path}.from"
    if isinstance(origin, list):
        if not 1 <= len(origin) <= MAX_LIST or not all(isinstance(i, str) and 0 < len(i) <= MAX_ITEM for i in origin):
            message = f"a list given here holds 1 to {MAX_LIST} texts of at most {MAX_ITEM} characters"
            return [Problem("invalid.pick", where, message)]
        size = len(origin)
    elif isinstance(origin, str):
        if origin not in lists:
            known = ", ".join(sorted(lists)) or "none (the game's options have no lists)"
            return [Problem("illegal.pick.list", where, f"there is no list '{origin}'; lists: {known}")]
        size = len(lists[origin])
    elif isinstance(origin, Mapping) and set(origin) <= {"note", "by"} and isinstance(origin.get("note"), str):
        writer = origin.get("by", player)
        note = _find_note(notes, writer, origin["note"])
        if note is None:
            whose = "you have" if writer == player else f"{writer} has"
            message = f"{whose} no hidden note '{origin['note']}' written in an earlier round"
            return [Problem("illegal.pick.note", where, message)]
        size = len(note_items(note))
    else:
        message = "give a list of items, the name of a list of the game, or {note: ID, by: PLAYER}"
        return [Problem("invalid.pick", where, message)]
    if count > size:
        return [Problem("illegal.pick.count", f"{path}.count", f"picks {count} of a list of {size} item(s)")]
    return []


def _find_note(notes: Sequence[Mapping[str, Any]], writer: Any, note_id: str) -> Mapping[str, Any] | None:
    return next((note for note in notes if note["by"] == writer and note["id"] == note_id), None)


def note_items(note: Mapping[str, Any]) -> list[str]:
    """Return a hidden note's text as a list: one item a non-empty line."""
    return [line.strip() for line in note["text"].splitlines() if line.strip()]


def roll_request(
    player: str,
    request: Mapping[str, Any],
    tables: Tables,
    dice: Dice,
    lists: Mapping[str, Sequence[str]],
    notes: Sequence[Mapping[str, Any]],
) -> list[Event]:
    """Roll a player's request and carry out its follow-ups; return the events in the order drawn."""
    label = roll_label(player, request["label"])
    first = _roll(player, request, label, request["purpose"], tables, dice)
    if "then" not in request and "table" not in request:  # the common plain roll: nothing follows it
        return [first]
    events = [first, *_result_follow_ups(player, first, tables, dice, lists, 1)]
    for number, step in enumerate(request.get("then") or [], start=1):
        reason = _met(step.get("if"), first.data)
        if reason is None:
            continue
        step_label = f"{label}/then-{number}"
        purpose = step.get("purpose") or request["purpose"]
        head = f"{possessive(player)} {request['label']}, then ({reason}):"
        if "pick" in step:
            events += _pick(player, step["pick"], step_label, purpose, head, lists, notes, dice, label, reason)
        else:
            event = _roll(player, step, step_label, purpose, tables, dice, head, label, reason)
            events += [event, *_result_follow_ups(player, event, tables, dice, lists, 2)]
    return events


def _met(condition: Mapping[str, Any] | None, roll: Mapping[str, Any]) -> str | None:
    """Return why the roll meets `condition` in words ("always" without one), or None if it does not."""
    if not condition:
        return "always"
    lookup = roll.get("lookup")
    total = lookup["clamped"] if lookup else roll["total"]
    reasons = []
    if "total" in condition:
        operator, number = _comparison(condition["total"]) or ("=", 0)
        if not _COMPARE[operator](total, number):
            return None
        reasons.append(f"total {total} {'=' if operator == '==' else operator} {number}")
    result = lookup["result"] if lookup else None
    if "result" in condition:
        if lookup is None or _text(result) != condition["result"]:
            return None
        reasons.append(f"result {condition['result']}")
    if "effect" in condition:
        if not (isinstance(result, Mapping) and condition["effect"] in result.get("effects", ())):
            return None
        reasons.append(f"effect {condition['effect']}")
    return ", ".join(reasons)


def _roll(
    player: str,
    step: Mapping[str, Any],
    label: str,
    purpose: str,
    tables: Tables,
    dice: Dice,
    head: str = "",
    after: str | None = None,
    reason: str | None = None,
) -> Event:
    """Roll a request or a follow-up (`head` and `after` say whose follow-up it is) and read it."""
    table = tables.get(step["table"]) if "table" in step else None
    spec = step.get("dice") or table.dice.text  # type: ignore[union-attr]
    values = dice.roll(spec, label=label)
    name = label.removeprefix(f"roll/{player}/")
    total = sum(values)
    data: dict[str, Any] = {
        "label": label,
        "player": player,
        "request": name.partition("/")[0],
        "purpose": purpose,
        "dice": spec,
        "values": values,
        "total": total,
    }
    if after is not None:
        data.update(follows=after, because=reason)
    shown = " + ".join(map(str, values))
    if len(values) > 1:
        shown = f"{shown} = {total}"
    text = f"{head or player} rolled {spec} for “{purpose}” ({name}): {shown}"
    if table is not None:
        lookup = table.lookup(values, step.get("modifiers", ()), step.get("column"))
        data["lookup"] = lookup.as_dict()
        text = f"{text}; {lookup.title}: {lookup.text}"
    return Event("roll", text, data)


def _result_follow_ups(
    player: str,
    parent: Event,
    tables: Tables,
    dice: Dice,
    lists: Mapping[str, Sequence[str]],
    depth: int,
) -> list[Event]:
    """Carry out a structured result's pick, then its roll (and theirs, up to MAX_DEPTH deep)."""
    lookup = parent.data.get("lookup")
    result = lookup["result"] if lookup else None
    if not isinstance(result, dict) or ("pick" not in result and "roll" not in result):  # as_dict's plain data
        return []
    label = parent.data["label"]
    head = f"{possessive(player)} {label.removeprefix(f'roll/{player}/')}, then ({result['text']}):"
    if depth > MAX_DEPTH:
        text = f"{head} no further pick or roll: a chain stops after {MAX_DEPTH} follow-ups"
        return [Event("roll.chain-stopped", text, {"player": player, "follows": label, "depth": MAX_DEPTH})]
    events: list[Event] = []
    reason = f"result {result['text']}"
    if "pick" in result:
        pick = {"from": result["pick"]["from"], "count": result["pick"]["count"]}
        events += _pick(player, pick, f"{label}/pick", result["text"], head, lists, (), dice, label, reason)
    if "roll" in result:
        table = tables.get(result["roll"])
        step = {"table": table.id}
        event = _roll(player, step, f"{label}/roll", result["text"], tables, dice, head, label, reason)
        events += [event, *_result_follow_ups(player, event, tables, dice, lists, depth + 1)]
    return events


def _pick(
    player: str,
    pick: Mapping[str, Any],
    label: str,
    purpose: str,
    head: str,
    lists: Mapping[str, Sequence[str]],
    notes: Sequence[Mapping[str, Any]],
    dice: Dice,
    after: str,
    reason: str,
) -> list[Event]:
    origin, count = pick["from"], pick.get("count", 1)
    note = _find_note(notes, origin.get("by", player), origin["note"]) if isinstance(origin, Mapping) else None
    if note is not None:
        items, name = note_items(note), f"{note['by']}'s sealed note '{note['id']}' ({note['opening']['label']})"
    elif isinstance(origin, list):
        items, name = list(origin), "the list given"
    else:
        items, name = list(lists[origin]), f"the list {origin}"
    order = dice.shuffle(list(range(len(items))), label=label)[: min(count, len(items))]
    data: dict[str, Any] = {
        "label": label,
        "player": player,
        "purpose": purpose,
        "from": name,
        "lines": [index + 1 for index in order],
        "follows": after,
        "because": reason,
    }
    lines = ", ".join(str(index + 1) for index in order)
    if note is None or note["revealed"] is not None:
        data["picked"] = [items[index] for index in order]
        text = f"{head} picked from {name} for “{purpose}”: {'; '.join(data['picked'])}"
        return [Event("pick", text, data)]
    readers = (note["by"], *note["to"])
    hidden = f"{head} picked line(s) {lines} of {len(items)} of {name} for “{purpose}”"
    public = Event("pick", hidden + f"; the item stays sealed until {note['by']} reveals the note", data)
    picked = [items[index] for index in order]
    private = Event(
        "pick.sealed",
        f"{hidden}: {'; '.join(picked)}",
        {**data, "picked": picked},
        readers,
    )
    return [public, private]
