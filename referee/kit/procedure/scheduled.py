"""Rolls the configuration schedules at a phase of the sequence (README.md, "Scheduled rolls").

    sequence:
      - name: admin
        active: [france]
        scheduled:
          - {label: kings-ennui, table: kings-ennui, purpose: King's Ennui (3.15)}
          - {label: pox, table: pox-recovery, purpose: recovery of a sick leader (7.02), per: sick-leaders}

They are made when the phase is adjudicated, before any player's orders, without anyone asking:
each on its own dice stream `scheduled/PHASE/LABEL` (`scheduled/PHASE/LABEL/NAME` for each name
of `per`), so a player's roll request never shifts them, nor they a player's. `per` is a list of
names fixed in the configuration, or the id of one of the game's public lists (its members when
the phase is adjudicated; README.md, "Public lists").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from referee.kit import Dice, Event, GameDataError, Tables, parse_spec

LABEL = re.compile(r"[a-z0-9][a-z0-9_.-]{0,47}\Z")
NAME = re.compile(r"[^\s,](?:[^\n\r\t,]{0,46}[^\s,])?\Z")  # one name: no line break, no comma
KEYS = ("label", "table", "dice", "purpose", "per", "modifiers", "column")
MAX_SCHEDULED = 20


def parse_scheduled(raw: Any, where: str, tables: Tables, lists: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return a phase's scheduled rolls, checked against the game's tables and public lists, or
    raise GameDataError naming the mistake's path (`options.sequence[0].scheduled[1].table`)."""
    if not isinstance(raw, list) or len(raw) > MAX_SCHEDULED:
        raise GameDataError(f"{where}: give a list of up to {MAX_SCHEDULED} rolls {{label, table or dice, purpose}}")
    rolls: list[dict[str, Any]] = []
    for index, entry in enumerate(raw):
        path = f"{where}[{index}]"
        if not isinstance(entry, dict) or set(entry) - set(KEYS):
            raise GameDataError(f"{path}: a scheduled roll is a mapping with {', '.join(KEYS)}")
        label = entry.get("label")
        if not isinstance(label, str) or not LABEL.match(label):
            raise GameDataError(f"{path}.label: give a label of lower-case letters, digits, - _ .")
        if any(roll["label"] == label for roll in rolls):
            raise GameDataError(f"{path}.label: the label '{label}' is used twice in this phase")
        purpose = entry.get("purpose")
        if not isinstance(purpose, str) or not purpose.strip() or len(purpose) > 300:
            raise GameDataError(f"{path}.purpose: say in words what the roll decides")
        roll: dict[str, Any] = {"label": label, "purpose": purpose}
        if "table" in entry:
            if entry["table"] not in tables:
                known = ", ".join(tables.names()) or "none"
                raise GameDataError(f"{path}.table: there is no table {entry['table']!r}; tables: {known}")
            table = tables.get(entry["table"])
            roll["table"] = table.id
            if _has_follow_ups(table):
                raise GameDataError(
                    f"{path}.table: table '{table.id}' has results that roll again or pick (roll:, pick:), "
                    "which a scheduled roll does not carry out",
                    hints=("schedule a table without them, and let a player (or an umpire player) ask for the roll",),
                )
            if "dice" in entry:
                raise GameDataError(f"{path}.dice: table '{table.id}' is read with {table.dice.text}; leave 'dice' out")
            modifiers, column = _reading(entry)
            try:  # names, and {name: value} for a numeric modifier, as in a player's roll
                table.modifier_values(modifiers)
            except GameDataError as error:
                raise GameDataError(f"{path}.modifiers: {error}", hints=error.hints) from None
            if (column is None) != (table.columns is None) or (
                column is not None and column not in (table.columns or ())
            ):
                raise GameDataError(
                    f"{path}.column: table '{table.id}' columns: {', '.join(table.columns or ()) or 'none'}"
                )
            roll.update({key: entry[key] for key in ("modifiers", "column") if key in entry})
        elif "dice" in entry:
            try:
                roll["dice"] = parse_spec(entry["dice"]).text
            except ValueError as exc:
                raise GameDataError(f"{path}.dice: {exc}") from None
            if "modifiers" in entry or "column" in entry:
                raise GameDataError(f"{path}: modifiers and column need a 'table' to read")
        else:
            raise GameDataError(f"{path}: give the table to read, or the dice to roll (1d10z)")
        if "per" in entry:
            roll["per"] = _per(entry["per"], f"{path}.per", lists)
        rolls.append(roll)
    return rolls


def _reading(entry: Mapping[str, Any]) -> tuple[Sequence[Any], str | None]:
    return entry.get("modifiers", ()), entry.get("column")


def _per(value: Any, where: str, lists: Mapping[str, Any]) -> list[str] | str:
    if isinstance(value, str):
        if value not in lists:
            known = ", ".join(lists) or "none (the game has no lists)"
            raise GameDataError(f"{where}: there is no public list '{value}'; lists: {known}")
        return value
    if not isinstance(value, list) or not value or not all(isinstance(n, str) and NAME.match(n) for n in value):
        raise GameDataError(f"{where}: give the names to roll for (a roll each), or a public list's id")
    if len(set(value)) != len(value):
        raise GameDataError(f"{where}: a name is given twice")
    return list(value)


def names(roll: Mapping[str, Any], lists: Mapping[str, Sequence[str]]) -> list[str | None]:
    """Return whom the roll is made for: each name of `per` (a public list's members now), or
    [None] for a roll made once."""
    per = roll.get("per")
    if per is None:
        return [None]
    return list(lists.get(per, [])) if isinstance(per, str) else list(per)


def label(phase: str, roll: Mapping[str, Any], name: str | None) -> str:
    """Return the dice label of a scheduled roll (unique in the phase: players' rolls are roll/...)."""
    base = f"scheduled/{phase}/{roll['label']}"
    return base if name is None else f"{base}/{_slug(name)}"


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9_.-]+", "-", name.lower()).strip("-") or "x"


def make(
    phase: str, rolls: Sequence[Mapping[str, Any]], tables: Tables, lists: Mapping[str, Sequence[str]], dice: Dice
) -> list[Event]:
    """Make the phase's scheduled rolls, in the configuration's order, and return their events
    (kind `roll.scheduled`: the same data as a player's roll, with `scheduled` and `for`)."""
    events = []
    used: set[str] = set()
    for roll in rolls:
        for name in names(roll, lists):
            dice_label = _unique(label(phase, roll, name), used)
            used.add(dice_label)
            events.append(_roll(roll, name, dice_label, tables, dice))
    return events


def _has_follow_ups(table: Any) -> bool:
    """Return whether any result of `table` is structured with a `roll:` or a `pick:`."""
    for row in table.rows:
        for result in row.result.values() if table.columns is not None else (row.result,):
            if isinstance(result, Mapping) and ("roll" in result or "pick" in result):
                return True
    return False


def _unique(wanted: str, used: set[str]) -> str:
    """Return `wanted`, or, when two names read alike in a label (Saxe!, Saxe?), it numbered."""
    found, number = wanted, 1
    while found in used:
        number += 1
        found = f"{wanted}-{number}"
    return found


def _roll(roll: Mapping[str, Any], name: str | None, dice_label: str, tables: Tables, dice: Dice) -> Event:
    table = tables.get(roll["table"]) if "table" in roll else None
    spec = roll["dice"] if table is None else table.dice.text
    values = dice.roll(spec, label=dice_label)
    purpose = roll["purpose"] if name is None else f"{roll['purpose']}: {name}"
    data: dict[str, Any] = {
        "label": dice_label,
        "scheduled": roll["label"],
        "for": name,
        "purpose": purpose,
        "dice": spec,
        "values": values,
        "total": sum(values),
    }
    text = f"Scheduled roll, {spec} for “{purpose}” ({dice_label}): {' + '.join(map(str, values))}"
    text += f" = {sum(values)}" if len(values) > 1 else ""
    if table is not None:
        lookup = table.lookup(values, *_reading(roll)).as_dict()
        data["lookup"] = lookup
        text += f"; {lookup['title']}: {_shown(lookup['result'])}"
    return Event("roll.scheduled", text, data)


def _shown(result: Any) -> str:
    """Return a result as a report line shows it: a structured result by its text."""
    if isinstance(result, Mapping) and "text" in result:
        return str(result["text"])
    return str(result)
