"""Order forms a player fills in: the order file as YAML with a comment on each field saying
what it takes, made from plain values (the header, the player's orders, the phase's schema and
the game's notes on the fields).

The form is the file the player saves, edits and signs, so it must read back as exactly the
data it shows: `order_form` checks that it does and falls back to plain YAML if not.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import yaml

from referee.kit.schema import describe_node
from referee.protocol.yamlsafe import StrictYAMLError, dump, load_strict

# A trailing comment goes on its own line above the field when the line would pass this width;
WIDTH = 74  # the text letter indents the form by 4: 78 columns
INDENT = "  "
_FLOW_MAP_WIDTH = 56
_ANY_INDEX = re.compile(r"\[\d+\]")
_LINE_BREAK = re.compile("[\r\n\x85\u2028\u2029]")


def order_form(
    header: Mapping[str, Any], orders: Any, schema: Mapping[str, Any], notes: Mapping[str, str] | None = None
) -> str:
    """Return the order file: `header`, then `orders` with a comment on each field (from `notes`,
    by path such as "orders.bid", else from the field's node in `schema`)."""
    body, same = _commented_orders(orders, schema, notes or {})
    return dump(dict(header)) + (body if same else dump({"orders": orders}))


_FORMS_KEPT = 64
_forms: dict[str, tuple[str, bool]] = {}  # the repr of (orders, schema, notes) -> their form


def _commented_orders(orders: Any, schema: Mapping[str, Any], notes: Mapping[str, str]) -> tuple[str, bool]:
    """Return the `orders:` part of a form, and whether it reads back as `orders`: made and
    read back once for every player of a phase given the same orders to start from (their
    header alone differs). Keyed by repr, which tells 1 from 1.0 and True, a tuple from a list,
    and keeps the order of a mapping's keys: all that the form's text depends on."""
    key = repr((orders, schema, notes))
    found = _forms.get(key)
    if found is None:
        lines: list[str] = []
        _field(lines, "orders", orders, schema, "orders", _Notes(notes), "", top=True)
        body = "\n".join(lines) + "\n"
        try:
            same = load_strict(body) == {"orders": orders}
        except StrictYAMLError:
            same = False
        found = _forms[key] = (body, same)
        while len(_forms) > _FORMS_KEPT:
            del _forms[next(iter(_forms))]
    return found


def _scalar(value: Any) -> str:
    """Return one value in YAML flow style, on one line ("abc", "'1'", "[a, b]", "{x: 1}")."""
    if isinstance(value, (str, int, float)) or value is None:  # bool is an int
        return _flow_scalar(type(value).__name__, value)
    if isinstance(value, list) and all(_one_line(v) for v in value):
        # Each item is written in flow context already (see _dumped), so a list is its items joined.
        return "[" + ", ".join(_flow_scalar(type(v).__name__, v) for v in value) + "]"
    return _dumped(value)


def _one_line(value: Any) -> bool:
    """Return whether a plain value is written the same whatever it is nested in: not a text
    broken over lines, whose continuation lines are indented by its depth."""
    if isinstance(value, str):
        return not _LINE_BREAK.search(value)
    return isinstance(value, (int, float)) or value is None


@lru_cache(maxsize=4096)
def _flow_scalar(kind: str, value: Any) -> str:
    """`_dumped` of one plain value, remembered: a form writes the same few labels, numbers and
    words over and over, and PyYAML's dumper was most of the time of writing (and auditing) it.
    The type is part of the key: 1, 1.0 and True are equal but are written differently."""
    return _dumped(value)


def _dumped(value: Any) -> str:
    """Return `value` as PyYAML writes it as the item of a one-line flow list."""
    text = yaml.safe_dump([value], default_flow_style=True, allow_unicode=True, sort_keys=False, width=10**6)
    return text.strip()[1:-1]


def _is_flat(value: Any) -> bool:
    """Return whether a value is best written on one line: a scalar, or a list of scalars or of
    short lists, or a short mapping of scalars."""
    if isinstance(value, list):
        return all(not isinstance(v, (dict, list)) or (isinstance(v, list) and _is_flat(v)) for v in value)
    if isinstance(value, dict):
        flat = all(not isinstance(v, (dict, list)) for v in value.values())
        return flat and len(_scalar(value)) <= _FLOW_MAP_WIDTH
    return True


def _child(node: Mapping[str, Any] | None, key: str | None) -> Mapping[str, Any] | None:
    """Return the schema node of a map's field (`key`) or of a list's items (None)."""
    if node is None:
        return None
    if key is None:
        return node.get("items") if node.get("type") == "list" else None
    return node.get("fields", {}).get(key) if node.get("type") == "map" else None


def _has_notes(path: str, notes: Mapping[str, str]) -> bool:
    """Return whether the game has a note on some field inside `path`."""
    general = _ANY_INDEX.sub("[]", path)
    return any(key.startswith((path + ".", path + "[", general + ".", general + "[")) for key in notes)


class _Notes(dict[str, str]):
    """The game's notes by path, and the general paths ("orders.rolls[].label") already
    described: a field repeated in every item of a list is described once, in the first."""

    def __init__(self, notes: Mapping[str, str]) -> None:
        super().__init__(notes)
        self.said: set[str] = set()


def _note(path: str, node: Mapping[str, Any] | None, notes: Mapping[str, str]) -> str:
    """Return what a field's comment says: the game's note on it (by its path, or by the path
    with every list index as [], for the same field in every item), else its schema's words;
    said once for a field repeated in a list's items, unless the note names that item."""
    if path in notes:
        return notes[path]
    general = _ANY_INDEX.sub("[]", path)
    if isinstance(notes, _Notes):
        if general in notes.said:
            return ""
        notes.said.add(general)
    if general in notes:
        return notes[general]
    return describe_node(node) if node is not None else ""


def _emit(lines: list[str], text: str, comment: str, indent: str) -> None:
    if not comment:
        lines.append(text)
    elif len(text) + 4 + len(comment) <= WIDTH and "\n" not in comment:
        lines.append(f"{text}  # {comment}")
    else:
        _comment(lines, comment, indent)
        lines.append(text)


def _comment(lines: list[str], comment: str, indent: str) -> None:
    """Write a comment on lines of its own above a field, wrapped at WIDTH, each of its own lines
    (a game's note may list one thing a line) wrapped on its own."""
    width = max(WIDTH - len(indent) - 2, 30)
    for paragraph in comment.split("\n"):
        hanging = "  " if paragraph.startswith("- ") else ""  # an item of a list: its lines under its text
        parts = textwrap.wrap(paragraph, width, subsequent_indent=hanging, break_on_hyphens=False)
        lines += [f"{indent}# {part}" for part in parts]


def _field(
    lines: list[str],
    key: str,
    value: Any,
    node: Mapping[str, Any] | None,
    path: str,
    notes: Mapping[str, str],
    indent: str,
    top: bool = False,
) -> None:
    """Write `key: value` at `indent`, with its comment; a nested value below it."""
    comment = "" if top else _note(path, node, notes)
    head = f"{indent}{_scalar(key)}:"
    # A list too long for one line goes one item a line.
    too_long = isinstance(value, list) and value and len(f"{head} {_scalar(value)}") > WIDTH
    if (
        _is_flat(value)
        and not too_long
        and not (isinstance(value, dict) and (top or _has_notes(path, notes)) and value)
    ):
        _emit(lines, f"{head} {_scalar(value)}", comment, indent)
        if top and isinstance(value, dict):
            _absent(lines, value, node, indent + INDENT)
    elif isinstance(value, dict):
        _emit(lines, head, comment, indent)
        _mapping(lines, value, node, path, notes, indent + INDENT)
        if top:
            _absent(lines, value, node, indent + INDENT)
    else:
        _emit(lines, head, comment, indent)
        for index, item in enumerate(value):
            _item(lines, item, _child(node, None), f"{path}[{index}]", notes, indent + INDENT)


def _mapping(
    lines: list[str],
    value: Mapping[str, Any],
    node: Mapping[str, Any] | None,
    path: str,
    notes: Mapping[str, str],
    indent: str,
) -> None:
    for key, item in value.items():
        _field(lines, key, item, _child(node, key), f"{path}.{key}", notes, indent)


def _item(
    lines: list[str], value: Any, node: Mapping[str, Any] | None, path: str, notes: Mapping[str, str], indent: str
) -> None:
    """Write one list item (`- ...`); a mapping's first field goes on the dash's line."""
    if not isinstance(value, dict) or not value or (_is_flat(value) and not _has_notes(path, notes)):
        _emit(lines, f"{indent}- {_scalar(value)}", notes.get(path, ""), indent)
        return
    if path in notes:
        _comment(lines, notes[path], indent)
    start = len(lines)
    _mapping(lines, value, node, path, notes, indent + INDENT)
    # The first line written for the item's first field (past any comment line above it) takes the dash.
    first = next(i for i in range(start, len(lines)) if not lines[i].lstrip().startswith("#"))
    for i in range(start, first + 1):
        lines[i] = indent + ("- " if i == first else "") + lines[i][len(indent) + 2 :]


def _absent(lines: list[str], value: Mapping[str, Any], node: Mapping[str, Any] | None, indent: str) -> None:
    """List, as comments, the optional fields the form leaves out, so a player knows they exist."""
    fields = (node or {}).get("fields", {}) if (node or {}).get("type") == "map" else {}
    left_out = [name for name in fields if name not in value]
    if left_out:
        said = "also possible here" if value else "orders you may give, in place of {}"
        _comment(lines, f"{said} (see the reference below): {', '.join(left_out)}", indent)
