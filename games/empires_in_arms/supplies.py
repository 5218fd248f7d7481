"""What the game's referee supplies from their own copy of Empires in Arms: the core tables
chapter 12.0 reads but does not print (the Combat Resolution Table, the Guard Commitment Table,
the Economic Manipulation Display) and the competitive-roll procedure the chapter leaves open.

Each may be given in the game's options at `referee init` or supplied later with `referee
supply`; a step that reaches one not yet supplied raises NotSupplied and the phase waits. The
templates hold placeholders and the examples made-up values, never the book's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from games.empires_in_arms.chapter import PACKAGE
from referee.kit import (
    GameDataError,
    Problem,
    Supplies,
    Wanted,
    packaged_need,
    placeholders,
    schema,
    thaw,
)

_DICE = re.compile(r"([1-9])d([1-9][0-9]?)\Z")
_NUMBER = {"type": "any", "description": "a number"}
SHAPES: dict[str, dict[str, Any]] = {
    "combat_results": {
        "type": "map",
        "fields": {
            "dice": {"type": "str", "max": 5, "pattern": "[1-9]d[1-9][0-9]?", "example": "1d6"},
            "default_table": {
                "type": "str",
                "max": 80,
                "description": "the table a commander who sends no orders fights on",
            },
            "breaks_at_morale": _NUMBER,
            "rounds": {
                "type": "any",
                "description": "kind of combat: its most rounds, e.g. {field: 3, trivial: 1, naval: 1}",
            },
            "columns": {"type": "any", "description": 'table "N-M": {die total: {losses: factors, morale: loss}}'},
        },
        "required": ["dice", "default_table", "breaks_at_morale", "rounds", "columns"],
    },
    "guard_table": {
        "type": "map",
        "fields": {
            "dice": {"type": "str", "max": 5, "pattern": "[1-9]d[1-9][0-9]?", "example": "1d6"},
            "columns": {"type": "any", "description": '"+1" and "+2": {die total: guard factors lost}'},
        },
        "required": ["dice", "columns"],
    },
    "economic_display": {
        "type": "map",
        "fields": {"squares": {"type": "any", "description": "square: {psa, money, manpower}"}},
        "required": ["squares"],
    },
    "competitive_rolls": {
        "type": "map",
        "fields": {
            "dice": {"type": "str", "max": 80, "description": "the dice each party rolls, e.g. 1d6"},
            "higher_wins": {"type": "bool"},
            "odd_loss_to": {"type": "str", "enum": ["loser", "winner"]},
        },
        "required": ["dice", "higher_wins", "odd_loss_to"],
    },
}
NEEDS = (
    packaged_need(
        PACKAGE,
        id="combat_results",
        title="the Combat Resolution Table: each combat table's losses and morale loss by die roll",
        book="the core rules' Combat Resolution Table (chapter 12.0 names its tables, e.g. 3-2 and 5-5)",
        needed_by="a combat round (and the artillery corps' bombardment on the 5-5 table, 12.3.5)",
        shape=SHAPES["combat_results"],
        kind="table",
    ),
    packaged_need(
        PACKAGE,
        id="guard_table",
        title="the Guard Commitment Table: guard factors lost by die roll, in the +1 and +2 columns",
        book="the Game Card's GUARD COMMITMENT TABLE (12.3.4)",
        needed_by="a side committing its guard (12.3.4)",
        shape=SHAPES["guard_table"],
        kind="table",
    ),
    packaged_need(
        PACKAGE,
        id="economic_display",
        title="the Economic Manipulation Display: each square's PSA, money and manpower",
        book="the National Card's ECONOMIC MANIPULATION DISPLAY (12.5)",
        needed_by="the Manipulation Step of an Economic Phase, and a player setting the marker (12.5)",
        shape=SHAPES["economic_display"],
    ),
    packaged_need(
        PACKAGE,
        id="competitive_rolls",
        title="how competitive die rolls are made: the dice, whether high wins, and who takes an odd loss",
        book="chapter 12.0 names competitive die rolls (12.1.2, 12.2.5, 12.3.6) but not how they are made",
        needed_by="allied loss proposals that differ or are missing (12.2.5, 12.3.6)",
        shape=SHAPES["competitive_rolls"],
        kind="option",
    ),
)


def _totals(dice: str) -> list[str]:
    match = _DICE.match(dice)
    assert match is not None
    count, faces = int(match.group(1)), int(match.group(2))
    return [str(total) for total in range(count, count * faces + 1)]


def check_supplied(need: str, data: Any) -> tuple[Any, list[str]]:
    """Return the supplied data made canonical (numbers as written, die totals as text keys) and
    what is wrong with it, each problem naming where."""
    problems = [f"{p.path}: {p.message}" for p in schema.check(data, SHAPES[need], "data")]
    if problems:
        return data, problems
    data = thaw(data)
    if "dice" in SHAPES[need]["fields"] and not _DICE.match(str(data.get("dice", ""))):
        return data, [f"data.dice: {data.get('dice')!r} is not dice such as 1d6 or 2d6"]
    if need in ("combat_results", "guard_table"):
        totals = _totals(data["dice"])
        columns = data["columns"]
        if not isinstance(columns, Mapping) or not columns:
            return data, ["data.columns: give each column's rows"]
        fixed: dict[str, Any] = {}
        for column, rows in columns.items():
            where = f"data.columns.{column}"
            if not isinstance(rows, Mapping):
                problems.append(f"{where}: give each die total's result")
                continue
            rows = {str(total): value for total, value in rows.items()}
            missing = [t for t in totals if t not in rows]
            if missing:
                problems.append(f"{where}: no result for die total(s) {', '.join(missing)}")
            for total, value in rows.items():
                if need == "guard_table" and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
                    problems.append(f"{where}.{total}: give the guard factors lost, a whole number")
                if need == "combat_results" and (
                    not isinstance(value, Mapping)
                    or not isinstance(value.get("losses"), int)
                    or not isinstance(value.get("morale", 0), (int, float))
                ):
                    problems.append(f"{where}.{total}: give {{losses: factors, morale: loss}}")
            fixed[str(column)] = rows
        data["columns"] = fixed
        if need == "guard_table" and sorted(fixed) != ["+1", "+2"]:
            problems.append('data.columns: give the "+1" and "+2" columns')
        if need == "combat_results":
            if data["default_table"] not in fixed:
                problems.append(f"data.default_table: {data['default_table']!r} is not one of the columns")
            rounds = data["rounds"]
            if not isinstance(rounds, Mapping) or not all(isinstance(v, int) and v >= 1 for v in rounds.values()):
                problems.append("data.rounds: give each kind of combat's most rounds, e.g. {field: 3, trivial: 1}")
            if not isinstance(data["breaks_at_morale"], (int, float)):
                problems.append("data.breaks_at_morale: give a morale level, e.g. 0")
    if need == "economic_display":
        squares = data["squares"]
        if not isinstance(squares, Mapping) or "0" not in {str(k) for k in squares}:
            problems.append(
                'data.squares: give every square, the "0" square among them (12.5: every power starts there)'
            )
        else:
            data["squares"] = {str(k): {key: int(v) for key, v in dict(value).items()} for k, value in squares.items()}
    return data, problems


def parse_given(options: Mapping[str, Any]) -> dict[str, Any]:
    """Return the needs the game's options supply at `referee init`, checked; raise GameDataError."""
    found = {}
    for need in SHAPES:
        if options.get(need) is None:
            continue
        data, problems = check_supplied(need, options[need])
        if problems:
            raise GameDataError(
                f"option {need}: " + "; ".join(problems), hints=(f"referee supply --template GAMEDIR {need}",)
            )
        found[need] = data
    return found


def wanted(state: Mapping[str, Any]) -> list[Wanted]:
    """Return when each need matters: now when the open step reads it, later when a rule played
    will, never when no rule played reads it."""
    rules = state["rules"]
    supplied = state["supplied"]
    combat_now = bool(state["combats"])
    uses = {
        "combat_results": (True, combat_now, "every combat round reads it"),
        "guard_table": (rules["guard_commitment"], False, "a side committing its guard (12.3.4) reads it"),
        "economic_display": (rules["economic_manipulation"], False, "each Economic Phase's Manipulation Step (12.5)"),
        "competitive_rolls": (
            rules["proportional_land_losses"] or rules["proportional_naval_losses"],
            False,
            "allied loss proposals that differ or are missing (12.2.5, 12.3.6)",
        ),
    }
    found = []
    for need, (played, now, why) in uses.items():
        if need in supplied:
            found.append(Wanted(need, "supplied", ""))
        elif now:
            found.append(Wanted(need, "now", f"combat {state['combats'][0]['id']} is being fought"))
        else:
            found.append(Wanted(need, "later" if played else "never", why))
    return found


def supply(state: Mapping[str, Any], need_id: str, data: Any) -> tuple[Any, list[Problem]]:
    """Return (the state with the need supplied, []) or (the state, the problems)."""
    if need_id not in SHAPES:
        return thaw(state), [
            Problem(
                "invalid.supply.need", "supplies", f"empires-in-arms needs no {need_id!r}; needs: {', '.join(SHAPES)}"
            )
        ]
    problems = placeholders(data)
    if problems:
        return thaw(state), problems
    checked, found = check_supplied(need_id, data)
    if found:
        return thaw(state), [
            Problem("invalid.supply", text.split(":", 1)[0], text.split(": ", 1)[-1]) for text in found
        ]
    new = thaw(state)
    new["supplied"] = {**new["supplied"], need_id: checked}
    return new, []


SUPPLIES = Supplies(needs=NEEDS, wanted=wanted, supply=supply)
