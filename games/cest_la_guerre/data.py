"""The game's data files, read and cross-checked once at import (house rule 10).

Point costs are kept as whole half-points (2.5 points = 5) so that no float reaches a state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.kit import GameDataError, Tables, load_data, parse_tables

PACKAGE = "games.cest_la_guerre"
GRADES = ("brilliant", "elite", "average", "inferior")
NO_GRADE = "none"


def _load(name: str) -> Any:
    data = load_data(PACKAGE, name)
    if not isinstance(data, dict) or data.get("schema_version") != 1:
        raise GameDataError(f"{PACKAGE}/data/{name}: schema_version must be 1")
    return data


def half_points(value: Any, where: str) -> int:
    """Return a cost in points (a multiple of 0.5) as whole half-points."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (value * 2) != int(value * 2):
        raise GameDataError(f"{where}: {value!r} is not a number of points in steps of 0.5")
    return int(value * 2)


def show_points(halves: int) -> str:
    """Return half-points as the rulebook prints points: 2.5, 40.0."""
    return f"{halves // 2}.{5 if halves % 2 else 0}"


POINTS = _load("points.yaml")
TROOPS: dict[str, dict[str, Any]] = _load("troops.yaml")["troops"]
WEAPONS: dict[str, int] = _load("troops.yaml")["weapons"]
ROAD_ALLOWANCE: int = _load("troops.yaml")["road_allowance"]
CHARTS = _load("charts.yaml")
TERRAIN_MENU: dict[str, dict[str, Any]] = _load("terrain.yaml")["menu"]
TABLES = Tables(parse_tables(load_data(PACKAGE, "tables.yaml"), f"{PACKAGE}/data/tables.yaml"))
ARMIES = _load("armies.yaml")
BRITISH_SURCHARGE = half_points(POINTS["british_reg_inf_surcharge"], "points.yaml british_reg_inf_surcharge")
COSTS: dict[str, dict[str, int]] = {
    kind: {grade: half_points(cost, f"points.yaml costs.{kind}.{grade}") for grade, cost in grades.items()}
    for kind, grades in POINTS["costs"].items()
}


def unit_cost(entry: Mapping[str, Any]) -> int:
    """Return the cost in half-points of one card described by a list entry."""
    grades = COSTS.get(entry["type"])
    if grades is None:
        raise GameDataError(f"unknown troop type {entry['type']!r}")
    grade = entry.get("grade", NO_GRADE)
    if grade not in grades:
        raise GameDataError(f"{entry['type']} cannot be {grade}; allowed: {', '.join(grades)}")
    surcharge = BRITISH_SURCHARGE if entry.get("british") and entry["type"] == "reg_inf" else 0
    return grades[grade] + surcharge


def _check_lists() -> dict[str, dict[str, Any]]:
    """Return the army lists by id, each entry's printed cost checked against the point table."""
    lists: dict[str, dict[str, Any]] = {}
    for period in ARMIES["periods"]:
        for army in period["lists"]:
            where = f"armies.yaml {army['id']}"
            if army["id"] in lists:
                raise GameDataError(f"{where}: the id is used twice")
            for entry in _all_entries(army["entries"]):
                if half_points(entry["each"], where) != unit_cost(entry):
                    raise GameDataError(
                        f"{where}: {entry['type']} {entry.get('grade', '')} is printed at {entry['each']} "
                        f"but points.yaml makes it {show_points(unit_cost(entry))}"
                    )
            lists[army["id"]] = {**army, "period": period["id"], "period_name": period["name"]}
    return lists


def _all_entries(entries: list[Any]) -> list[Mapping[str, Any]]:
    found: list[Mapping[str, Any]] = []
    for entry in entries:
        if "choose_one" in entry:
            found += [item for option in entry["choose_one"] for item in option]
        elif "choose_mix" in entry:
            found += list(entry["choose_mix"]["options"])
        else:
            found.append(entry)
    return found


LISTS = _check_lists()
SWAPS: dict[str, dict[str, Any]] = {swap["id"]: swap for swap in ARMIES["optional_swaps"]}
for _swap in SWAPS.values():
    for _option in _swap["take"].values():
        for _entry in _option:
            if half_points(_entry["each"], f"armies.yaml swap {_swap['id']}") != unit_cost(_entry):
                raise GameDataError(f"armies.yaml swap {_swap['id']}: a printed cost disagrees with points.yaml")
