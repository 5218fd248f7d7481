"""A tiny checker for the shape of orders, declared by game modules as plain data.

A schema node is a mapping with a `type` (map, list, str, int, bool, any) and that type's
limits. `check` reports every problem (up to MAX_PROBLEMS) as a `Problem` whose path points
into the order file, in words a player understands; `describe` turns a schema into lines
for phase notices; `check_schema` catches a module author's mistakes in the schema itself.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping
from typing import Any, NoReturn

from referee.errors import GameDataError
from referee.protocol.display import printable
from referee.protocol.problems import Problem

MAX_PROBLEMS = 50
DEFAULT_MAX_TEXT = 2000
DEFAULT_MAX_ITEMS = 100
_COMMON_KEYS = ("type", "description", "example")
_TYPE_KEYS: dict[str, tuple[str, ...]] = {
    "map": ("fields", "required"),
    "list": ("items", "min", "max"),
    "str": ("max", "pattern", "enum"),
    "int": ("min", "max"),
    "bool": (),
    "any": (),
}
_EXPECTED = {
    "map": "a mapping (key: value lines)",
    "list": "a list",
    "str": "a text",
    "int": "a whole number",
    "bool": "true or false",
}
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


class _Enough(Exception):
    """Raised internally once MAX_PROBLEMS problems are found, to stop walking."""


def check(value: Any, schema: Mapping[str, Any], path: str = "orders") -> list[Problem]:
    """Return every way `value` departs from `schema` (at most MAX_PROBLEMS); empty means it conforms."""
    problems: list[Problem] = []
    try:
        _check(value, schema, path, problems)
    except _Enough:
        pass
    return problems


def _add(problems: list[Problem], code: str, path: str, message: str) -> None:
    problems.append(Problem(code, path, message))
    if len(problems) >= MAX_PROBLEMS:
        raise _Enough


def _check(value: Any, node: Mapping[str, Any], path: str, out: list[Problem]) -> None:
    kind = node["type"]
    if kind == "any":
        _check_plain(value, path, out)
        return
    if not _is_kind(value, kind):
        message = f"must be {_EXPECTED[kind]}, got {_found(value)}"
        if kind == "str" and isinstance(value, (int, float)):
            message += "; put it in quotes to make it a text"
        elif kind == "int" and isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            message += "; write it without quotes"
        _add(out, "invalid.type", path, message)
    elif kind == "map":
        _check_map(value, node, path, out)
    elif kind == "list":
        _check_list(value, node, path, out)
    elif kind == "str":
        _check_text(value, node, path, out)
    elif kind == "int":
        low, high = node.get("min"), node.get("max")
        if (low is not None and value < low) or (high is not None and value > high):
            _add(
                out, "invalid.range", path, f"is {_found_number(value)}; it must be a whole number {_bounds(low, high)}"
            )


def _check_map(value: Mapping[Any, Any], node: Mapping[str, Any], path: str, out: list[Problem]) -> None:
    fields: Mapping[str, Any] = node.get("fields", {})
    for key, item in value.items():
        if not isinstance(key, str):
            _add(out, "invalid.type", path, f"has a field named {_found(key)}; field names must be text")
        elif key in fields:
            _check(item, fields[key], _join(path, key), out)
        else:
            close = difflib.get_close_matches(key, list(fields), 1)
            guess = f"; did you mean {close[0]}?" if close else ""
            known = ", ".join(fields) if fields else "none"
            _add(out, "invalid.unknown-field", _join(path, key), f"is not a known field{guess} (known fields: {known})")
    for name in node.get("required", ()):
        if name not in value:
            _add(out, "invalid.missing", _join(path, name), f"is missing: give {_shape(fields[name])}")


def _check_list(value: list[Any] | tuple[Any, ...], node: Mapping[str, Any], path: str, out: list[Problem]) -> None:
    low, high = node.get("min", 0), node.get("max", DEFAULT_MAX_ITEMS)
    if len(value) > high:
        _add(out, "invalid.too-many", path, f"has {_entries(len(value))}; at most {high} are allowed")
    elif len(value) < low:
        _add(out, "invalid.too-few", path, f"has {_entries(len(value))}; at least {low} are needed")
    # Entries past the limit are refused anyway; checking only the allowed ones bounds the work.
    for index, item in enumerate(value[:high]):
        _check(item, node["items"], f"{path}[{index}]", out)


def _check_text(value: str, node: Mapping[str, Any], path: str, out: list[Problem]) -> None:
    high = node.get("max", DEFAULT_MAX_TEXT)
    if len(value) > high:
        _add(out, "invalid.too-long", path, f"is {len(value)} characters long; at most {high} are allowed")
        return
    enum = node.get("enum")
    if enum is not None and value not in enum:
        close = difflib.get_close_matches(value, enum, 1)
        guess = f"; did you mean {close[0]}?" if close else ""
        _add(out, "invalid.enum", path, f"is {_found(value)}; it must be one of: {_list(enum)}{guess}")
    elif node.get("pattern") is not None and not re.fullmatch(node["pattern"], value):
        wanted = f"e.g. {_example(node['example'])}" if "example" in node else f"matching the pattern {node['pattern']}"
        _add(out, "invalid.pattern", path, f"is {_found(value)}, which is not in the expected form ({wanted})")


def _check_plain(value: Any, path: str, out: list[Problem]) -> None:
    """Check that `value` is plain data, without recursion (order files may nest deeply)."""
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if item is None or isinstance(item, (bool, int, str)):
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                _add(out, "invalid.type", where, f"must be plain data, got {_found(item)}")
        elif isinstance(item, Mapping):
            for key in item:
                if not isinstance(key, str):
                    _add(out, "invalid.type", where, f"has a field named {_found(key)}; field names must be text")
            children = [(child, _join(where, key)) for key, child in item.items() if isinstance(key, str)]
            stack.extend(reversed(children))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed([(child, f"{where}[{i}]") for i, child in enumerate(item)]))
        else:
            _add(out, "invalid.type", where, "must be plain data (text, numbers, true/false, lists, mappings)")


def _is_kind(value: Any, kind: str) -> bool:
    if kind == "map":
        return isinstance(value, Mapping)
    if kind == "list":
        return isinstance(value, (list, tuple))  # a tuple is a list frozen by the engine
    if kind == "str":
        return isinstance(value, str)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, bool)


def _found(value: Any) -> str:
    """Describe a value in a player's words: never a Python type name."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return f"{'true' if value else 'false'} (a yes/no value)"
    if isinstance(value, int):
        return f"the whole number {value}" if value.bit_length() <= 64 else _found_number(value)
    if isinstance(value, float):
        return f"the number {value!r}" if math.isfinite(value) else "a number that is not finite"
    if isinstance(value, str):
        return "an empty text" if not value else f"the text {_quote(value)}"
    if isinstance(value, Mapping):
        return "a mapping (key: value lines)"
    if isinstance(value, (list, tuple)):
        return "a list"
    return "a value that is not plain data"


def _found_number(value: int) -> str:
    return str(value) if value.bit_length() <= 64 else "a whole number with more than 19 digits"


def _quote(text: str) -> str:
    return printable(json.dumps(text if len(text) <= 40 else text[:40] + "...", ensure_ascii=False))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if _PLAIN_NAME.fullmatch(key) else f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _entries(count: int) -> str:
    return f"{count} {'entry' if count == 1 else 'entries'}"


def _bounds(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"from {low} to {high}"
    return f"of at least {low}" if low is not None else f"of at most {high}"


def _list(items: Any) -> str:
    shown = [str(item) for item in list(items)[:20]]
    return ", ".join(shown + (["..."] if len(items) > 20 else []))


def _example(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def describe(schema: Mapping[str, Any], path: str = "orders", examples: bool = True) -> list[str]:
    """Return lines describing the expected shape, one per node, e.g. for a phase notice.

    `examples=False` leaves out the schema's examples: a notice whose form is filled in for its
    reader has better ones, and a schema's example may name another player's piece.
    """
    lines: list[str] = []
    _describe(schema, path, None, lines, examples)
    return lines


def _describe(node: Mapping[str, Any], path: str, marker: str | None, lines: list[str], examples: bool) -> None:
    line = f"{path}: {_shape(node, examples)}"
    if marker:
        line += f" ({marker})"
    if node.get("description"):
        line += f" - {node['description']}"
    lines.append(line)
    if node["type"] == "map":
        required = set(node.get("required", ()))
        for name, child in node.get("fields", {}).items():
            _describe(child, _join(path, name), "required" if name in required else "optional", lines, examples)
    elif node["type"] == "list":
        _describe(node["items"], f"{path}[]", None, lines, examples)


def describe_node(node: Mapping[str, Any]) -> str:
    """Return what one field takes, in a few words for an order form's comment: its description
    and, for a choice, a number or a flag, the values allowed (never the schema's example)."""
    kind = node["type"]
    limits = ""
    if kind == "str" and node.get("enum") is not None:
        limits = f"one of: {_list(node['enum'])}"
    elif kind == "int" and (node.get("min") is not None or node.get("max") is not None):
        limits = f"a whole number {_bounds(node.get('min'), node.get('max'))}"
    elif kind == "bool":
        limits = "true or false"
    return "; ".join(part for part in (node.get("description", ""), limits) if part)


def _shape(node: Mapping[str, Any], examples: bool = True) -> str:
    """Say in words what a node expects, e.g. "list of up to 50" or "whole number from 0 to 99"."""
    kind = node["type"]
    if kind == "map":
        text = "mapping (key: value lines)"
    elif kind == "list":
        low, high = node.get("min", 0), node.get("max", DEFAULT_MAX_ITEMS)
        text = (
            f"list of up to {high}"
            if low == 0
            else f"list of exactly {low}"
            if low == high
            else f"list of {low} to {high}"
        )
    elif kind == "str" and node.get("enum") is not None:
        text = f"one of: {_list(node['enum'])}"
    elif kind == "str":
        text = "text" + (f" of up to {node['max']} characters" if "max" in node else "")
        if node.get("pattern") is not None and "example" not in node:
            text += f" matching {node['pattern']}"
    elif kind == "int":
        low, high = node.get("min"), node.get("max")
        text = "whole number" + ("" if low is None and high is None else " " + _bounds(low, high))
    else:
        text = "true or false" if kind == "bool" else "any value"
    if "example" in node and examples:
        text += f", e.g. {_example(node['example'])}"
    return text


def check_schema(schema: Mapping[str, Any]) -> None:
    """Raise GameDataError naming the first malformed node of `schema`; return None if it is sound."""
    _check_node(schema, "schema", set())


def _check_node(node: Any, where: str, ancestors: set[int]) -> None:
    if not isinstance(node, Mapping):
        _schema_fail(where, f"must be a mapping with a type, got {_found(node)}")
    if id(node) in ancestors:
        _schema_fail(where, "contains itself; a schema must be a tree")
    kind = node.get("type")
    if not isinstance(kind, str) or kind not in _TYPE_KEYS:
        _schema_fail(where, f"type must be one of {', '.join(_TYPE_KEYS)}, got {_found(kind)}")
    allowed = _COMMON_KEYS + _TYPE_KEYS[kind]
    unknown = [str(key) for key in node if key not in allowed]
    if unknown:
        _schema_fail(where, f"has unknown key(s) {', '.join(unknown)}; a {kind} node allows {', '.join(allowed)}")
    if "description" in node and not isinstance(node["description"], str):
        _schema_fail(f"{where}.description", "must be a text")
    inner = ancestors | {id(node)}
    if kind == "map":
        fields = node.get("fields")
        if not isinstance(fields, Mapping) or not all(isinstance(k, str) and k for k in fields):
            _schema_fail(f"{where}.fields", "must be a mapping of non-empty field names to nodes")
        for name, child in fields.items():
            _check_node(child, _join(f"{where}.fields", name), inner)
        required = node.get("required", [])
        if not isinstance(required, (list, tuple)) or len(set(map(str, required))) != len(required):
            _schema_fail(f"{where}.required", "must be a list of field names, each named once")
        strays = [str(name) for name in required if name not in fields]
        if strays:
            _schema_fail(f"{where}.required", f"names {', '.join(strays)}, which are not in fields")
    elif kind == "list":
        _check_node(node.get("items"), f"{where}.items", inner)
        _check_limits(node, where, minimum=0)
    elif kind == "int":
        _check_limits(node, where, minimum=None)
    elif kind == "str":
        _check_limits(node, where, minimum=1)
        pattern = node.get("pattern")
        if pattern is not None:
            try:
                re.compile(pattern)
            except (re.error, TypeError) as exc:
                _schema_fail(f"{where}.pattern", f"is not a regular expression: {exc}")
        enum = node.get("enum")
        if enum is not None and (
            not isinstance(enum, (list, tuple)) or not enum or not all(isinstance(e, str) for e in enum)
        ):
            _schema_fail(f"{where}.enum", "must be a non-empty list of texts")
        if enum is not None and len(set(enum)) != len(enum):
            _schema_fail(f"{where}.enum", "names a value twice")
        for choice in enum or ():
            if check(choice, {k: v for k, v in node.items() if k not in ("enum", "example")}):
                _schema_fail(f"{where}.enum", f"value {_quote(choice)} does not fit the node's max or pattern")
    if "example" in node:
        problems = check(node["example"], node)
        if problems:
            _schema_fail(f"{where}.example", f"does not fit its own node: {problems[0]}")


def _check_limits(node: Mapping[str, Any], where: str, minimum: int | None) -> None:
    limits = {key: node[key] for key in ("min", "max") if key in node}
    for key, limit in limits.items():
        if not isinstance(limit, int) or isinstance(limit, bool) or (minimum is not None and limit < minimum):
            floor = "" if minimum is None else f" of at least {minimum}"
            _schema_fail(f"{where}.{key}", f"must be a whole number{floor}, got {_found(limit)}")
    if len(limits) == 2 and limits["min"] > limits["max"]:
        _schema_fail(where, f"min {limits['min']} is above max {limits['max']}")


def _schema_fail(where: str, message: str) -> NoReturn:
    raise GameDataError(
        f"order schema: {where}: {message}",
        hints=("fix the game module's phase schema (see referee/schema.py for the node types)",),
    )
