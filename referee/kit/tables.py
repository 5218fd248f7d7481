"""Die-roll tables as data: one engine reads every game's YAML tables (house rule 10).

A table names its dice, its modifiers and its rows, so a lookup reports which table, which
modifiers and which row gave a result. Tables are checked at load: rows in increasing
order, no overlaps, and every total the dice and modifiers can make is covered.

A modifier is fixed (`elite: 2`) or numeric (`rating-difference: {min: -6, max: 6}`): a numeric
one takes its value from whoever asks for the lookup, within its range. A row's result is a
text, a number, or a structured result `{text, effects, track, roll, pick}` (only `text` is
required) whose effects are words the table declares (`effects: [leader-dies, ...]`) or the
game module allows.
"""

from __future__ import annotations

import difflib
import functools
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from referee.errors import GameDataError
from referee.protocol.dice import DiceSpec, parse_spec

SCHEMA_VERSION = 1
MAX_NUMBER = 1_000_000_000
_ID = re.compile(r"[a-z0-9][a-z0-9_-]*")
_FILE_KEYS = ("schema_version", "tables")
_TABLE_KEYS = ("title", "dice", "modifiers", "clamp", "columns", "effects", "rows")
_ROW_KEYS = ("range", "result")
_RANGE_KEYS = ("min", "max")
_RESULT_KEYS = ("text", "effects", "track", "roll", "pick")
_PICK_KEYS = ("from", "count")
MAX_PICK = 50
_RESULT_HINT = (
    "write a structured result as {text: ..., effects: [...], track: {TRACK: 1}, roll: TABLE, pick: {from: LIST}}"
)
_RANGE_TEXT = re.compile(r"(-?[0-9]{1,9})(?:-(-?[0-9]{1,9})|(\+)|(-))?")
_ID_HINT = "use lower-case letters, digits, '-' and '_', starting with a letter or digit (e.g. morale, crt-1)"
_RANGE_HINT = 'write a range as [low, high], a number, or text such as "7-9", "12+" (and above) or "2-" (and below)'
_ROW_HINT = "write a row as {range: [2, 6], result: ...}"
_QUOTE_HINT = "put the value in quotes: unquoted, YAML reads yes/no as true/false and 1:1 as a number"


@dataclass(frozen=True)
class Row:
    """One row of a table: totals `low` to `high` inclusive (None = open-ended) give `result`."""

    low: int | None
    high: int | None
    result: Any

    @property
    def label(self) -> str:
        """The row's range as a report shows it: "2-6", "10+", "2-" or "7"."""
        if self.low is None:
            return "any" if self.high is None else f"{self.high}-"
        if self.high is None:
            return f"{self.low}+"
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"

    def covers(self, total: int) -> bool:
        """Return whether `total` falls in this row."""
        return (self.low is None or self.low <= total) and (self.high is None or total <= self.high)


@dataclass(frozen=True)
class Lookup:
    """The outcome of reading a table, with everything a report needs to show how it was read."""

    table: str
    title: str
    dice: str
    values: tuple[int, ...]
    natural: int
    modifiers: tuple[tuple[str, int], ...]
    modified: int
    clamped: int
    row: str
    column: str | None
    result: Any

    @property
    def structured(self) -> bool:
        """Return whether the result is a structured result (a mapping with `text`)."""
        return not isinstance(self.result, (str, int, float)) and isinstance(self.result, Mapping)

    @property
    def text(self) -> str:
        """Return the result as a report shows it: a structured result's text, else the result."""
        return str(self.result["text"] if self.structured else self.result)

    def as_dict(self) -> dict[str, Any]:
        """Return the lookup as plain JSON data for events and reports; a structured result
        stays a mapping under `result`, its text also under `result_text` (only then)."""
        data = {  # Lookup's fields in their order, written out: this runs for every table roll
            "table": self.table,
            "title": self.title,
            "dice": self.dice,
            "values": list(self.values),
            "natural": self.natural,
            "modifiers": [{"name": n, "value": v} for n, v in self.modifiers],
            "modified": self.modified,
            "clamped": self.clamped,
            "row": self.row,
            "column": self.column,
            "result": self.result,
        }
        if self.structured:
            data["result"] = _plain(self.result)
            data["result_text"] = self.text
        return data


@dataclass(frozen=True)
class Table:
    """A parsed, checked table; `columns` is None unless each row's result is a column mapping.

    `modifiers` holds the fixed modifiers by name, `ranges` the numeric ones (name -> (min, max)),
    `effects` the words a structured result of this table may name."""

    id: str
    title: str
    dice: DiceSpec
    modifiers: dict[str, int]
    clamp: tuple[int, int] | None
    columns: tuple[str, ...] | None
    rows: tuple[Row, ...]
    ranges: dict[str, tuple[int, int]] = field(default_factory=dict)
    effects: tuple[str, ...] = ()

    @property
    def modifier_names(self) -> tuple[str, ...]:
        """Return the names of every modifier, fixed and numeric, as the table declares them."""
        return (*self.modifiers, *self.ranges)

    def describe_modifier(self, name: str) -> str:
        """Return a modifier as a player reads it: "elite +2" or "rating-difference -6 to +6"."""
        if name in self.ranges:
            low, high = self.ranges[name]
            return f"{name} {low:+d} to {high:+d}"
        return f"{name} {self.modifiers[name]:+d}"

    @property
    def reachable(self) -> tuple[int, int]:
        """Return the lowest and highest totals a lookup can read, after modifiers and clamp."""
        low = self.dice.lowest + sum(v for v in self.modifiers.values() if v < 0)
        high = self.dice.highest + sum(v for v in self.modifiers.values() if v > 0)
        low += sum(min(least, 0) for least, _ in self.ranges.values())
        high += sum(max(most, 0) for _, most in self.ranges.values())
        if self.clamp is not None:
            low, high = _clamp(low, self.clamp), _clamp(high, self.clamp)
        return low, high

    def follow_up_tables(self) -> tuple[str, ...]:
        """Return the ids of the tables this table's structured results roll on (`roll:`)."""
        found: list[str] = []
        for row in self.rows:
            results = row.result.values() if self.columns is not None else (row.result,)
            for result in results:
                if isinstance(result, Mapping) and "roll" in result and result["roll"] not in found:
                    found.append(result["roll"])
        return tuple(found)

    @property
    def _where(self) -> str:
        """The table as an error names it (made only for an error: a lookup runs for every roll)."""
        return f"table {self.id} ({self.title})"

    def modifier_values(self, modifiers: Any) -> list[tuple[str, int]]:
        """Return each modifier asked for, in order, as (name, value); raise GameDataError naming
        the first that is unknown, out of its range, without its value, or given twice.

        `modifiers` lists names (a fixed modifier) and one-item mappings {name: value} (a numeric
        modifier, or a fixed one given its own value)."""
        if type(modifiers) in (list, tuple) and not modifiers:
            return []  # the common roll: no modifier asked for
        where = self._where
        if type(modifiers) not in (list, tuple) and (
            isinstance(modifiers, (str, Mapping)) or not isinstance(modifiers, Sequence)
        ):
            raise GameDataError(
                f"{where}: modifiers must be a list of names and {{name: value}} items, got {_show(modifiers)}"
            )
        applied: list[tuple[str, int]] = []
        for item in modifiers:
            name, value = _modifier_item(item, where)
            if not isinstance(name, str) or (name not in self.modifiers and name not in self.ranges):
                known = ", ".join(self.modifier_names) or "none"
                raise GameDataError(f"{where} has no modifier {_show(name)}; its modifiers: {known}")
            if any(name == seen for seen, _ in applied):
                raise GameDataError(
                    f"{where}: modifier {name} was named twice; each modifier applies once",
                    hints=("give a numeric modifier once, with the sum of its parts as its value",),
                )
            if name in self.ranges:
                low, high = self.ranges[name]
                if value is None:
                    raise GameDataError(
                        f"{where}: modifier {name} needs a value from {low} to {high}",
                        hints=(f"write {{{name}: N}} instead of the bare name",),
                    )
                if not low <= value <= high:
                    raise GameDataError(f"{where}: modifier {name} is {value}, outside its range {low} to {high}")
            elif value is not None and value != self.modifiers[name]:
                raise GameDataError(
                    f"{where}: modifier {name} is fixed at {self.modifiers[name]:+d}, not {value:+d}",
                    hints=(f"name it without a value: {name}",),
                )
            applied.append((name, self.modifiers[name] if value is None else value))
        return applied

    def lookup(self, values: Sequence[int], modifiers: Sequence[Any] = (), column: str | None = None) -> Lookup:
        """Return the Lookup for rolled `values` with the modifiers asked for (names, and
        {name: value} items for numeric ones: see `modifier_values`), read in `column`.

        A lookup is read once for each key (`_lookup_key`) and kept: a table's data is fixed
        when it is parsed, so the same key gives the same Lookup (frozen) every time. A phase of
        thousands of rolls reads a few dozen different ones."""
        key = _lookup_key(values, modifiers, column)
        if key is None:
            return self._read(values, modifiers, column)
        read = self._lookups
        found = read.get(key)
        if found is None:
            found = self._read(values, modifiers, column)  # raises for a bad key: errors are not kept
            if len(read) >= LOOKUPS_KEPT:
                read.clear()
            read[key] = found
        return found

    @functools.cached_property
    def _lookups(self) -> dict[tuple[Any, ...], Lookup]:
        """The lookups read so far, by `_lookup_key` (not a field: no part of what a table is)."""
        return {}

    def _read(self, values: Sequence[int], modifiers: Sequence[Any], column: str | None) -> Lookup:
        if (
            isinstance(values, (str, bytes))
            or not isinstance(values, Sequence)
            or len(values) != self.dice.count
            or not all(_is_int(v) and _face_ok(self.dice, v) for v in values)
        ):
            raise GameDataError(
                f"{self._where} rolls {self.dice.text}, but was given the values {_show(values)}",
                hints=(f"pass the {self.dice.count} value(s) of dice.roll(table.dice, label=...)",),
            )
        applied = self.modifier_values(modifiers)
        natural = sum(values)
        modified = natural + sum(value for _, value in applied)
        clamped = modified if self.clamp is None else _clamp(modified, self.clamp)
        row = next((r for r in self.rows if r.covers(clamped)), None)
        if row is None:  # cannot happen for a table that passed parse_table's coverage check
            raise GameDataError(f"{self._where} has no row for total {clamped}")
        if self.columns is None:
            if column is not None:
                raise GameDataError(f"{self._where} has no columns, but column {_show(column)} was asked for")
            result = row.result
        else:
            if column not in self.columns:
                raise GameDataError(
                    f"{self._where} has no column {_show(column)}; its columns: {', '.join(self.columns)}",
                    hints=("pass column= with one of the table's columns",),
                )
            result = row.result[column]
        return Lookup(
            self.id,
            self.title,
            self.dice.text,
            tuple(values),
            natural,
            tuple(applied),
            modified,
            clamped,
            row.label,
            column,
            result,
        )


LOOKUPS_KEPT = 4096  # different lookups kept a table (all of them for 2d6 to 4d6 with a few modifiers)


def _lookup_key(values: Any, modifiers: Any, column: Any) -> tuple[Any, ...] | None:
    """Return what a lookup is kept by: the values, the modifiers asked for (a name, or (name,
    value) for a {name: value} item) and the column, each of its exact type (True and 1, 1.0
    and 1 are equal keys of a dict, but not the same lookup); None for anything else, which is
    read every time (and refused there, if it is not a lookup)."""
    if type(values) not in (list, tuple) or type(modifiers) not in (list, tuple):
        return None
    if column is not None and type(column) is not str:
        return None
    for value in values:
        if type(value) is not int:
            return None
    if not modifiers:
        return (tuple(values), (), column)
    asked: list[Any] = []
    for item in modifiers:
        if type(item) is str:
            asked.append(item)
        elif type(item) is dict and len(item) == 1:
            ((name, value),) = item.items()
            if type(name) is not str or type(value) is not int:
                return None
            asked.append((name, value))
        else:
            return None
    return (tuple(values), tuple(asked), column)


class MissingTableError(GameDataError):
    """A table the game's referee must supply (from their own rulebook) is not supplied."""


class Tables:
    """A set of tables by id, e.g. a game's own data plus the tables its configuration supplies."""

    def __init__(self, tables: Mapping[str, Table]) -> None:
        for key, table in tables.items():
            if key != table.id:
                raise GameDataError(f"table {table.id} is filed under the different id {_show(key)}")
        self._tables = dict(tables)

    def __contains__(self, table_id: object) -> bool:
        return table_id in self._tables

    def names(self) -> tuple[str, ...]:
        """Return the ids of the tables held, sorted."""
        return tuple(sorted(self._tables))

    def get(self, table_id: str) -> Table:
        """Return the table with this id, or raise GameDataError listing the known ids."""
        table = self._tables.get(table_id) if isinstance(table_id, str) else None
        if table is None:
            known = ", ".join(self.names()) or "none"
            raise GameDataError(f"there is no table {_show(table_id)}; known tables: {known}")
        return table

    def lookup(
        self, table_id: str, values: Sequence[int], modifiers: Sequence[Any] = (), column: str | None = None
    ) -> Lookup:
        """Read table `table_id` for rolled `values` with the modifiers asked for; return the Lookup."""
        return self.get(table_id).lookup(values, modifiers, column)


def require(tables: Tables, table_id: str, supply_hint: str) -> Table:
    """Return table `table_id`, or raise MissingTableError whose hint says how to supply it."""
    if table_id not in tables:
        raise MissingTableError(
            f"table {table_id} is not supplied: the game's rules need it and the game's data does not include it",
            hints=(supply_hint,),
        )
    return tables.get(table_id)


def parse_tables(data: Any, source: str, effects: Sequence[str] = ()) -> dict[str, Table]:
    """Return the tables of a whole tables file's mapping, checked; `source` names it in errors.
    `effects` are words every table's structured results may name besides its own `effects:`."""
    if not isinstance(data, Mapping):
        _fail(source, "the file", f"must be a mapping with schema_version: 1 and tables:, got {_show(data)}")
    _refuse_unknown(data, _FILE_KEYS, source, "the file")
    version = data.get("schema_version")
    if not _is_int(version) or version != SCHEMA_VERSION:
        _fail(
            source,
            "schema_version",
            f"must be {SCHEMA_VERSION}, got {_show(version)}",
            f"add schema_version: {SCHEMA_VERSION} at the top (it is the only version this referee reads)",
        )
    tables = data.get("tables")
    if not isinstance(tables, Mapping):
        _fail(source, "tables", f"must be a mapping of table id to table, got {_show(tables)}")
    return {table_id: parse_table(table_id, table, source, effects) for table_id, table in tables.items()}


def parse_table(table_id: str, data: Any, source: str, effects: Sequence[str] = ()) -> Table:
    """Return one table parsed from its mapping, checked; raise GameDataError naming what to fix.
    `effects` are words its structured results may name besides the table's own `effects:`."""
    if not isinstance(table_id, str) or not _ID.fullmatch(table_id):
        _fail(source, f"table {_show(table_id)}", "is not a valid table id", _ID_HINT)
    where = f"table {table_id}"
    if not isinstance(data, Mapping):
        _fail(source, where, f"must be a mapping with title, dice and rows, got {_show(data)}")
    _refuse_unknown(data, _TABLE_KEYS, source, where)
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        _fail(
            source,
            f"{where}, title",
            f"must be a non-empty text, got {_show(title)}",
            "add title: <its name in the rulebook>",
        )
    if "dice" not in data:
        _fail(source, f"{where}, dice", "is missing", "add dice: 2d6 (or 1d10, or 1d10z for a d10 read 0-9)")
    try:
        dice = parse_spec(data["dice"])
    except ValueError as exc:  # DiceError, or int() refusing a thousand-digit number
        _fail(source, f"{where}, dice", str(exc), "write the dice as 2d6, 1d10 or 1d10z (a d10 read 0-9)")
    modifiers, ranges = _parse_modifiers(data.get("modifiers", {}), source, where)
    own_effects = _parse_effects(data["effects"], source, where) if data.get("effects") is not None else ()
    vocabulary = (*own_effects, *(word for word in effects if word not in own_effects))
    clamp = _parse_clamp(data["clamp"], source, f"{where}, clamp") if data.get("clamp") is not None else None
    columns = _parse_columns(data["columns"], source, where) if data.get("columns") is not None else None
    raw_rows = data.get("rows")
    if not isinstance(raw_rows, list) or not raw_rows:
        _fail(source, f"{where}, rows", f"must be a non-empty list of rows, got {_show(raw_rows)}", _ROW_HINT)
    rows = tuple(_parse_row(row, source, f"{where}, rows[{i}]", columns, vocabulary) for i, row in enumerate(raw_rows))
    table = Table(table_id, title, dice, modifiers, clamp, columns, rows, ranges, own_effects)
    _check_rows(table, source, where)
    return table


@functools.cache
def _unique_key_loader() -> Any:
    """Return a safe YAML loader refusing a key given twice in one mapping, which YAML would
    silently drop: made on first use, so that a game's module loads no YAML parser it does not use."""
    import yaml  # deferred: `referee status` loads this module but parses no tables file

    class UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:  # unhashable key: the base class reports it
                    continue
                if duplicate:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"key {key!r} appears twice in one mapping", key_node.start_mark
                    )
            mapping: dict[Any, Any] = super().construct_mapping(node, deep)
            return mapping

    return UniqueKeyLoader


def load_tables_file(path: str | os.PathLike[str]) -> dict[str, Table]:
    """Return the checked tables of a YAML tables file; errors name the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        hints = ("check the path and its permissions",)
        raise GameDataError(f"cannot read tables file {path}: {exc.strerror or exc}", hints) from exc
    except UnicodeDecodeError as exc:
        raise GameDataError(f"{path}: is not UTF-8 text", hints=("save the file as UTF-8",)) from exc
    import yaml  # deferred, as in _unique_key_loader

    try:
        data = yaml.load(text, Loader=_unique_key_loader())
    except yaml.YAMLError as exc:
        raise GameDataError(f"{path}: is not valid YAML: {exc}", hints=("fix the YAML at the line shown",)) from exc
    return parse_tables(data, str(path))


def _parse_modifiers(value: Any, source: str, where: str) -> tuple[dict[str, int], dict[str, tuple[int, int]]]:
    if value is None:
        return {}, {}
    hint = "write modifiers: {shaken: -1, elite: 2, rating-difference: {min: -6, max: 6}}"
    if not isinstance(value, Mapping):
        _fail(source, f"{where}, modifiers", f"must be a mapping of name to number, got {_show(value)}", hint)
    modifiers: dict[str, int] = {}
    ranges: dict[str, tuple[int, int]] = {}
    for name, amount in value.items():
        if not isinstance(name, str) or not _ID.fullmatch(name):
            _fail(source, f"{where}, modifiers", f"{_show(name)} is not a valid modifier name", _ID_HINT)
        key = f"{where}, modifiers.{name}"
        if isinstance(amount, Mapping):
            _refuse_unknown(amount, _RANGE_KEYS, source, key)
            low: Any = amount.get("min")
            high: Any = amount.get("max")
            if not (_is_number(low) and _is_number(high)):
                _fail(source, key, f"needs whole numbers min and max, got {_show(low)} and {_show(high)}", hint)
            if low > high:
                _fail(source, key, f"min {low} is above max {high}", "put the lower bound under min")
            ranges[name] = (low, high)
        elif _is_number(amount):
            modifiers[name] = amount
        else:
            message = f"must be a whole number such as -1 or 2, or a range {{min: -6, max: 6}}, not {_show(amount)}"
            _fail(source, key, message)
    return modifiers, ranges


def _modifier_item(item: Any, where: str) -> tuple[Any, int | None]:
    """Return (name, value) of one modifier asked for: a name gives no value."""
    if isinstance(item, str):
        return item, None
    if isinstance(item, Mapping):
        if len(item) != 1:
            raise GameDataError(f"{where}: a modifier with a value is one {{name: value}} item, got {_show(item)}")
        ((name, value),) = item.items()
        if not _is_number(value):
            raise GameDataError(f"{where}: modifier {_show(name)} must be given a whole number, got {_show(value)}")
        return name, value
    return item, None


def _parse_effects(value: Any, source: str, where: str) -> tuple[str, ...]:
    key = f"{where}, effects"
    if not isinstance(value, list) or not value:
        _fail(source, key, f"must be a non-empty list of words, got {_show(value)}", "write effects: [leader-dies]")
    for word in value:
        if not isinstance(word, str) or not _ID.fullmatch(word):
            _fail(source, key, f"{_show(word)} is not a valid effect word", _ID_HINT)
    if len(set(value)) != len(value):
        twice = sorted({word for word in value if value.count(word) > 1})
        _fail(source, key, f"names {', '.join(twice)} more than once")
    return tuple(value)


def _parse_columns(value: Any, source: str, where: str) -> tuple[str, ...]:
    key = f"{where}, columns"
    if not isinstance(value, list) or not value:
        hint = 'write columns: ["1:2", "1:1", "2:1"]'
        _fail(source, key, f"must be a non-empty list of column names, got {_show(value)}", hint)
    for name in value:
        if not isinstance(name, str) or not name.strip():
            _fail(source, key, f"column {_show(name)} must be a non-empty text", _QUOTE_HINT)
    if len(set(value)) != len(value):
        twice = sorted({name for name in value if value.count(name) > 1})
        _fail(source, key, f"names column(s) {', '.join(twice)} more than once")
    return tuple(value)


def _parse_row(
    value: Any, source: str, where: str, columns: tuple[str, ...] | None, vocabulary: tuple[str, ...]
) -> Row:
    if not isinstance(value, Mapping):
        _fail(source, where, f"must be a mapping with range and result, got {_show(value)}", _ROW_HINT)
    _refuse_unknown(value, _ROW_KEYS, source, where)
    if "range" not in value or "result" not in value:
        missing = " and ".join(key for key in _ROW_KEYS if key not in value)
        _fail(source, where, f"lacks {missing}", _ROW_HINT)
    low, high = _parse_range(value["range"], source, f"{where}.range")
    result = value["result"]
    if columns is None:
        result = _parse_result(result, source, f"{where}.result", vocabulary)
    else:
        if not isinstance(result, Mapping):
            _fail(source, f"{where}.result", f"must map each of {', '.join(columns)} to a result, got {_show(result)}")
        absent = [c for c in columns if c not in result]
        extra = [_show(k) for k in result if k not in columns]
        if absent or extra:
            parts = [f"lacks column(s) {', '.join(absent)}"] * bool(absent)
            parts += [f"has undeclared column(s) {', '.join(extra)}"] * bool(extra)
            hint = f"give exactly the declared columns: {', '.join(columns)}"
            _fail(source, f"{where}.result", "; ".join(parts), hint, _QUOTE_HINT)
        result = {
            column: _parse_result(result[column], source, f"{where}.result.{column}", vocabulary) for column in columns
        }
    return Row(low, high, result)


def _parse_range(value: Any, source: str, key: str) -> tuple[int | None, int | None]:
    if _is_number(value):
        return value, value
    if isinstance(value, list):
        if len(value) == 2 and all(v is None or _is_number(v) for v in value) and value != [None, None]:
            low, high = value
            if low is None or high is None or low <= high:
                return low, high
            _fail(source, key, f"[{low}, {high}] runs backwards", "put the lower total first")
    elif isinstance(value, str):
        match = _RANGE_TEXT.fullmatch(re.sub(r"\s+", "", value).replace("\u2013", "-").replace("\u2014", "-"))
        if match:
            first, second, plus, minus = match.groups()
            low = int(first)
            if plus:
                return low, None
            if minus:
                return None, low
            high = low if second is None else int(second)
            if low <= high:
                return low, high
            _fail(source, key, f"{value!r} runs backwards", "put the lower total first")
    _fail(source, key, f"{_show(value)} is not a range", _RANGE_HINT)


def _parse_result(value: Any, source: str, key: str, vocabulary: tuple[str, ...]) -> Any:
    """Return a row's result checked: a text, a number, or a structured result (a mapping)."""
    if isinstance(value, Mapping):
        return _parse_structured(value, source, key, vocabulary)
    is_number = _is_int(value) or (isinstance(value, float) and math.isfinite(value))
    if not (is_number or (isinstance(value, str) and value.strip())):
        _fail(source, key, f"must be a text, a number or a structured result, got {_show(value)}", _QUOTE_HINT)
    return value


def _parse_structured(value: Mapping[Any, Any], source: str, key: str, vocabulary: tuple[str, ...]) -> dict[str, Any]:
    _refuse_unknown(value, _RESULT_KEYS, source, key)
    text = value.get("text")
    if not isinstance(text, str) or not text.strip():
        _fail(source, f"{key}.text", f"must be a non-empty text, got {_show(text)}", _RESULT_HINT)
    result: dict[str, Any] = {"text": text}
    if "effects" in value:
        effects = value["effects"]
        if not isinstance(effects, list) or not all(isinstance(word, str) for word in effects):
            _fail(source, f"{key}.effects", f"must be a list of effect words, got {_show(effects)}")
        for index, word in enumerate(effects):
            if word not in vocabulary:
                known = ", ".join(vocabulary) or "none (declare them in the table: effects: [leader-dies, ...])"
                close = difflib.get_close_matches(word, vocabulary, 1)
                hints = (f"did you mean {close[0]}?",) if close else ()
                _fail(
                    source,
                    f"{key}.effects[{index}]",
                    f"{_show(word)} is not a declared effect; effects: {known}",
                    *hints,
                )
        result["effects"] = list(effects)
    if "track" in value:
        track = value["track"]
        if not isinstance(track, Mapping) or not track:
            _fail(
                source,
                f"{key}.track",
                f"must map each track to a change, got {_show(track)}",
                "write track: {peace: 1}",
            )
        for name, change in track.items():
            if not isinstance(name, str) or not _ID.fullmatch(name):
                _fail(source, f"{key}.track", f"{_show(name)} is not a valid track name", _ID_HINT)
            if not _is_number(change):
                _fail(source, f"{key}.track.{name}", f"must be a whole number such as 1 or -2, got {_show(change)}")
        result["track"] = dict(track)
    if "roll" in value:
        if not isinstance(value["roll"], str) or not _ID.fullmatch(value["roll"]):
            _fail(
                source,
                f"{key}.roll",
                f"must be the id of a table to roll on next, got {_show(value['roll'])}",
                _ID_HINT,
            )
        result["roll"] = value["roll"]
    if "pick" in value:
        result["pick"] = _parse_pick(value["pick"], source, f"{key}.pick")
    return result


def _parse_pick(value: Any, source: str, key: str) -> dict[str, Any]:
    hint = "write pick: {from: LIST, count: 1}, LIST the name of a list the game declares"
    if not isinstance(value, Mapping):
        _fail(source, key, f"must be a mapping {{from: LIST, count: N}}, got {_show(value)}", hint)
    _refuse_unknown(value, _PICK_KEYS, source, key)
    origin = value.get("from")
    if not isinstance(origin, str) or not _ID.fullmatch(origin):
        _fail(source, f"{key}.from", f"must name a list, got {_show(origin)}", hint)
    count = value.get("count", 1)
    if not _is_int(count) or not 1 <= count <= MAX_PICK:
        _fail(source, f"{key}.count", f"must be a whole number from 1 to {MAX_PICK}, got {_show(count)}")
    return {"from": origin, "count": count}


def _plain(value: Any) -> Any:
    """Return a structured result as plain JSON data (lists, not tuples; dicts, not mappings)."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _parse_clamp(value: Any, source: str, key: str) -> tuple[int, int]:
    if not (isinstance(value, list) and len(value) == 2 and all(_is_number(v) for v in value)):
        _fail(source, key, f"must be [low, high] whole numbers, got {_show(value)}", "write clamp: [low, high]")
    if value[0] > value[1]:
        _fail(source, key, f"[{value[0]}, {value[1]}] runs backwards", "put the lower total first")
    return value[0], value[1]


def _check_rows(table: Table, source: str, where: str) -> None:
    key = f"{where}, rows"
    for before, after in zip(table.rows, table.rows[1:]):
        (low_before, high_before), (low_after, high_after) = _ends(before), _ends(after)
        if low_after > high_before:
            continue
        if high_after >= low_before:
            shared = _span(max(low_before, low_after), min(high_before, high_after))
            message = f"rows {before.label} and {after.label} overlap (totals {shared})"
            _fail(source, key, message, "give each total to exactly one row")
        _fail(
            source, key, f"row {after.label} comes after row {before.label}", "list rows in increasing order of total"
        )
    low, high = table.reachable
    gaps: list[str] = []
    needed: float = low
    for row_low, row_high in map(_ends, table.rows):
        if row_high < needed:
            continue
        if row_low > needed:
            gaps.append(_span(needed, min(row_low - 1, high)))
        needed = row_high + 1
        if needed > high:
            break
    if needed <= high:
        gaps.append(_span(needed, high))
    if gaps:
        _fail(
            source,
            key,
            f"no row for total(s) {', '.join(gaps)}; {table.dice.text}"
            f"{' with its modifiers' if table.modifier_names else ''}{' after clamp' if table.clamp else ''}"
            f" can make any total from {low} to {high}",
            'add rows for those totals, or open the first and last rows with "N-" and "N+"',
            "or add clamp: [low, high] to keep modified totals within the rows",
        )


def _span(low: float, high: float) -> str:
    """Name the totals low..high (either may be infinite) the way a row label does."""
    if low == -math.inf:
        return "all" if high == math.inf else f"{int(high)}-"
    if high == math.inf:
        return f"{int(low)}+"
    return str(int(low)) if low == high else f"{int(low)}-{int(high)}"


def _ends(row: Row) -> tuple[float, float]:
    return -math.inf if row.low is None else row.low, math.inf if row.high is None else row.high


def _clamp(total: int, bounds: tuple[int, int]) -> int:
    return max(bounds[0], min(bounds[1], total))


def _face_ok(dice: DiceSpec, value: int) -> bool:
    first = 0 if dice.zero_based else 1
    return first <= value < first + dice.sides


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    """A whole number small enough to print and add up (bool is not a number here)."""
    return _is_int(value) and -MAX_NUMBER <= value <= MAX_NUMBER


def _show(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if _is_number(value) or isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "...")
    if isinstance(value, int):
        return "a very large number"
    if isinstance(value, (list, tuple)):
        shown = [_show(item) for item in value[:6]]
        return "[" + ", ".join(shown + (["..."] if len(value) > 6 else [])) + "]"
    return "a mapping" if isinstance(value, Mapping) else type(value).__name__


def _refuse_unknown(data: Mapping[Any, Any], allowed: tuple[str, ...], source: str, where: str) -> None:
    unknown = [key for key in data if key not in allowed]
    if unknown:
        names = ", ".join(_show(key) for key in unknown)
        close = [m for key in unknown if isinstance(key, str) for m in difflib.get_close_matches(key, allowed, 1)]
        guess = f"did you mean {', '.join(close)}? " if close else ""
        _fail(source, where, f"has unknown key(s) {names}", f"{guess}the keys allowed here are: {', '.join(allowed)}")


def _fail(source: str, where: str, message: str, *hints: str) -> NoReturn:
    raise GameDataError(f"{source}: {where}: {message}", hints=hints)
