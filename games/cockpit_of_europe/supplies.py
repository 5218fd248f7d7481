"""What the referee of a Cockpit of Europe game supplies: the charts and lists the exclusive
rules name but do not print.

The volume prints its own d10 checks, which the game reads from its data; it only names the
Random Event Table, the Strategic Event Chart, Command of the Channel, the Dutch Intimidation
Table, the King's Presence Is Requested Table, the Convention of Frankfort, the Peace Index
Chart, the turn record track, the Milice's yearly pools and the OOB booklets' force lists. Each
is a part the referee supplies from their own copy. Until then the step that reads it is not
made, and the notice says so; the game never makes up a value. The series tables (attrition,
leader, casualty, battle, siege) the players roll on are supplied the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.cockpit_of_europe import events
from games.cockpit_of_europe.model import MARCH_APRIL, PACKAGE, SCENARIOS
from referee.kit import (
    GameDataError,
    Need,
    Problem,
    Supplies,
    Wanted,
    packaged_need,
    parse_tables,
    placeholders,
    thaw,
)

TABLE: dict[str, Any] = {
    "type": "map",
    "required": ["table"],
    "fields": {"table": {"type": "any", "description": "the table"}},
}
COUNT = {"type": "int", "min": -20, "max": 20}
SEASONS = ["winter", "spring", "summer", "autumn"]


def _need(need_id: str, title: str, book: str, needed_by: str, shape: Mapping[str, Any], kind: Any = "data") -> Need:
    return packaged_need(PACKAGE, need_id, title, book, needed_by, shape, kind)


NEEDS = (
    _need(
        "calendar",
        "the turn record track: the 16 turns' labels and seasons",
        "the series rules' turn record track (not in the exclusive rules)",
        "the turn names, the scenarios' first and last turns, the checks tied to a label (9.239, 9.339) "
        "and seasons (6.261)",
        {
            "type": "map",
            "required": ["labels"],
            "fields": {
                "labels": {"type": "list", "min": 16, "max": 16, "items": {"type": "str", "max": 40}},
                "seasons": {"type": "list", "min": 16, "max": 16, "items": {"type": "str", "enum": SEASONS}},
            },
        },
    ),
    _need(
        "random-event-table",
        "the Random Event Table",
        "Random Event Table (7.01), not printed in the exclusive rules",
        "the Random Event check at the start of every Operations Phase (7.01)",
        TABLE,
        "table",
    ),
    _need(
        "strategic-event-chart",
        "the Strategic Event Chart: each event's chance and Peace Index shift",
        "Strategic Event Chart (6.1), not printed in the exclusive rules",
        "the Strategic Event checks of the Administrative Phase (6.112)",
        {
            "type": "map",
            "required": ["events"],
            "fields": {
                "events": {
                    "type": "map",
                    "required": list(events.STRATEGIC),
                    "fields": {
                        event: {
                            "type": "map",
                            "required": ["on_or_below"],
                            "fields": {"on_or_below": {"type": "int", "min": -1, "max": 9}, "peace_index": COUNT},
                        }
                        for event in events.STRATEGIC
                    },
                },
                "jacobite_winter_spring": COUNT,
                "source": {"type": "str", "max": 200},
            },
        },
    ),
    _need(
        "command-of-the-channel",
        "the Command of The Channel Table",
        "Command of The Channel Table (6.221), not printed",
        "a French force ready to cross to England (6.221)",
        TABLE,
        "table",
    ),
    _need(
        "dutch-intimidation",
        "the Dutch Intimidation Table (DIT)",
        "Dutch Intimidation Table (2.332), not printed",
        "a successful Demonstration's assessment (2.332)",
        {**TABLE, "fields": {**TABLE["fields"], "note": {"type": "str", "max": 200}}},
        "table",
    ),
    _need(
        "kings-presence",
        "the King's Presence Is Requested Table",
        "King's Presence Is Requested Table (3.153), not printed",
        "the French asking for Le Roi while he is at the French Hub (3.153)",
        TABLE,
        "table",
    ),
    _need(
        "convention-of-frankfort",
        "the Convention of Frankfort Chart: exchange rates and Le Roi's ransom",
        "Convention of Frankfort Chart (3.31, 3.134), not printed",
        "the General POW Exchange on the first turn of each year of the campaign (3.31)",
        {
            "type": "map",
            "required": ["exchange"],
            "fields": {"exchange": {"type": "str", "max": 2000}, "le_roi_ransom": {"type": "str", "max": 500}},
        },
    ),
    _need(
        "peace-index-chart",
        "the Peace Index Chart's yearly advance",
        "Peace Index Chart (2.222), not printed",
        "the end of each year of the campaign (2.222)",
        {
            "type": "map",
            "required": ["yearly"],
            "fields": {"yearly": {"type": "any", "description": "YEAR: boxes"}, "source": {"type": "str", "max": 200}},
        },
    ),
    _need(
        "milice-pools",
        "the Milice's Emergency pool and Field Force allowance, year by year",
        "French OOB booklet, 8.231 (not printed in the exclusive rules)",
        "the first turn of each year (5.265) and every Milice order",
        {
            "type": "map",
            "required": ["years"],
            "fields": {
                "years": {"type": "any", "description": "YEAR: {pool, field_force}"},
                "source": {"type": "str", "max": 200},
            },
        },
    ),
    _need(
        "force-lists",
        "the force lists the events name (Invasion '44, Aid to Provence...)",
        "OOB booklets 8.2 and 8.3 (not printed in the exclusive rules)",
        "the Strategic Events that send forces (6.21, 6.31, 6.42) and Aid to Provence's requirement (6.423)",
        {
            "type": "map",
            "fields": {
                "lists": {"type": "any", "description": "list id: the force, in words"},
                "aid_to_provence_sps": {"type": "int", "min": 0, "max": 500},
            },
        },
    ),
    _need(
        "series-tables",
        "the series rules' tables the players roll on (attrition, leader, casualty, battle, siege)",
        "the series rules (KR&Os), not in the exclusive rules",
        "a roll request naming the table (`table: <id>`)",
        {"type": "any", "description": "table id: a table in the shared table format"},
        "table",
    ),
)
TABLE_EFFECTS = {
    "random-event-table": events.RANDOM_EVENTS,
    "command-of-the-channel": ("french", "neither", "royal-navy"),
    "kings-presence": ("success",),
    "dutch-intimidation": (),
}


def wanted(state: Mapping[str, Any]) -> list[Wanted]:
    """Return when each part matters for this game as it stands."""
    supplied = state["supplied"]
    campaign = state["campaign"]
    found = []
    for need in NEEDS:
        if need.id in supplied or (need.id == "series-tables" and state["tables"]):
            found.append(Wanted(need.id, "supplied"))
            continue
        when, why = _when(state, need.id, campaign)
        found.append(Wanted(need.id, when, why, False))
    return found


def _when(state: Mapping[str, Any], need: str, campaign: bool) -> tuple[Any, str]:
    phase = state["phase"]
    if need == "calendar":
        if state["stage"] == "set-up":
            return "now", "the scenario is placed on its first turn when the set-up is adjudicated"
        return "default", "turns are numbered within the year (the scenario opened on turn 1 of its year)"
    if need == "series-tables":
        return "default", "players may roll plain dice until the series tables are supplied"
    if need == "random-event-table":
        return ("now" if phase == "start-of-operations" else "later"), "the Random Event check (7.01)"
    if need == "strategic-event-chart":
        if not campaign and state["scenario"] != "rosbifs-1744":
            return "never", "minor scenarios use no strategic events but their own (8.122)"
        return ("now" if phase == "administration" else "later"), "the Strategic Event checks (6.112)"
    if need in ("dutch-intimidation", "convention-of-frankfort", "peace-index-chart", "force-lists"):
        if not campaign:
            return "never", "a campaign rule"
        return "later", ""
    if need == "command-of-the-channel":
        possible = state["invasions"]["descent"]["possible"] or campaign or state["scenario"] == "conquering-hero-1745"
        return ("later", "an invasion of England") if possible else ("never", "no invasion in this scenario")
    if need == "milice-pools":
        return (
            "now" if state["milice"]["original"] is None and state["stage"] == "play" else "later"
        ), "the Milice (5.26)"
    return "later", ""


def supply(state: Mapping[str, Any], need_id: str, data: Any) -> tuple[Any, list[Problem]]:
    """Return (the state with the part supplied, []) or (the state, the problems)."""
    new = thaw(state)
    data = thaw(data)
    if need_id not in {need.id for need in NEEDS}:
        return new, [Problem("invalid.supply.need", "supplies", f"cockpit-of-europe needs no {need_id!r}")]
    problems = placeholders(data)
    if need_id == "series-tables":
        if not isinstance(data, Mapping) or not data:
            return new, [Problem("invalid.type", "data", "must map each table's id to its table")]
        for table_id, table in data.items():
            problems += _table_problems(table_id, table, (), f"data.{table_id}")
        if problems:
            return new, problems
        tables = dict((new["tables"] or {}).get("tables", {}))
        tables.update(data)
        new["tables"] = {"schema_version": 1, "tables": tables}
        return new, []
    if need_id in TABLE_EFFECTS:
        problems += _table_problems(f"chart-{need_id}", data["table"], TABLE_EFFECTS[need_id], "data.table")
    if need_id == "calendar":
        problems += _calendar_problems(new, data)
    if need_id == "milice-pools":
        problems += _years_problems(data["years"], ("pool", "field_force"))
    if need_id == "peace-index-chart" and not _is_year_map(data["yearly"]):
        problems.append(Problem("invalid.supply", "data.yearly", 'give each year\'s advance: {"1744": 1, ...}'))
    if problems:
        return new, problems
    for key in ("years", "yearly"):
        if key in data:
            data[key] = {str(year): value for year, value in data[key].items()}
    new["supplied"] = {**new["supplied"], need_id: data}
    if need_id == "milice-pools" and new["stage"] == "play" and new["milice"]["original"] is None:
        year = data["years"].get(str(new["year"]))
        if year is not None:
            new["milice"].update(
                year=new["year"], original=year["pool"], pool=year["pool"], allowance=year["field_force"]
            )
    return new, []


def _table_problems(table_id: str, table: Any, vocabulary: tuple[str, ...], where: str) -> list[Problem]:
    try:
        parse_tables({"schema_version": 1, "tables": {table_id: table}}, "data", vocabulary)
    except GameDataError as error:
        return [Problem("invalid.table", where, str(error).removeprefix("data: "))]
    return []


def _calendar_problems(state: Mapping[str, Any], data: Mapping[str, Any]) -> list[Problem]:
    if state["stage"] != "set-up":
        return [
            Problem(
                "illegal.supply.calendar",
                "data",
                "the turn record track places the game on its first turn: supply it before the set-up is adjudicated",
            )
        ]
    found = []
    scenario = SCENARIOS[state["scenario"]]
    names = [label.casefold() for label in data["labels"]]
    for key in ("opens", "closes"):
        if scenario[key] is not None and scenario[key].casefold() not in names:
            found.append(
                Problem(
                    "invalid.supply.calendar",
                    "data.labels",
                    f"the scenario {key} on '{scenario[key]}', not a label given",
                )
            )
    if state["invasions"]["descent"]["possible"] and not found:
        opens = names.index(scenario["opens"].casefold())
        if opens == 0 or names[opens - 1] != MARCH_APRIL.casefold():
            found.append(
                Problem(
                    "invalid.supply.calendar",
                    "data.labels",
                    f"a game playing the Descent begins on the {MARCH_APRIL} turn, just before "
                    f"'{scenario['opens']}' (9.533): give '{MARCH_APRIL}' as the label before it",
                )
            )
    return found


def _is_year_map(value: Any) -> bool:
    return isinstance(value, Mapping) and all(
        str(key).isdigit() and isinstance(item, int) and not isinstance(item, bool) for key, item in value.items()
    )


def _years_problems(value: Any, keys: tuple[str, ...]) -> list[Problem]:
    if not isinstance(value, Mapping) or not value:
        return [Problem("invalid.supply", "data.years", 'give each year: {"1744": {pool: N, field_force: N}}')]
    found = []
    for year, entry in value.items():
        if not str(year).isdigit() or not isinstance(entry, Mapping) or set(entry) != set(keys):
            found.append(Problem("invalid.supply", f"data.years.{year}", f"give {', '.join(keys)} as whole numbers"))
        elif not all(isinstance(entry[k], int) and not isinstance(entry[k], bool) and entry[k] >= 0 for k in keys):
            found.append(Problem("invalid.supply", f"data.years.{year}", "whole numbers of 0 or more"))
    return found


SUPPLIES = Supplies(needs=NEEDS, wanted=wanted, supply=supply)
