"""What the game's referee supplies from their own copy of the book, mid-game (issue 15).

`data/supplied.yaml` names each part the rulebook file lacks; here each becomes a `Need` with
the shape its data must have, the results the game can apply, a commented template and an
example (never the book's values). `wanted(state)` says, from the state alone, when each part
matters; `supply(state, need, data)` checks the referee's data as the set-up checks an option
and returns a new state whose `overlays` carry it, read from the next step that needs it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from games.polemos_obb.model import (
    PACKAGE,
    acting_side,
    arm_of,
    army_order,
    is_standing,
    side_of_base,
    step_kind,
)
from games.polemos_obb.options import (
    SUPPLIED,
    Refused,
    _check_army_morale,
    _check_cost_kind,
    _check_modifier,
    order_cost,
    parse_chart,
)
from referee.kit import (
    GameDataError,
    Need,
    Problem,
    Supplies,
    Wanted,
    load_text,
    parse_tables,
    placeholders,
    schema,
    thaw,
)

TABLE_SHAPE: dict[str, Any] = {
    "type": "map",
    "fields": {
        "title": {"type": "str", "max": 200, "description": "the table's name in the rulebook"},
        "dice": {"type": "str", "max": 20, "pattern": "[0-9]{1,2}d[0-9]{1,3}z?", "example": "1d6"},
        "modifiers": {"type": "any", "description": "name: value, e.g. {long-range: -1}"},
        "clamp": {"type": "any", "description": "[low, high]: totals beyond are read as these"},
        "columns": {"type": "list", "items": {"type": "str", "max": 60}, "max": 20},
        "rows": {
            "type": "list",
            "min": 1,
            "max": 100,
            "items": {
                "type": "map",
                "fields": {"range": {"type": "any"}, "result": {"type": "any"}},
                "required": ["range", "result"],
            },
        },
    },
    "required": ["title", "dice", "rows"],
}
_COST_ENTRY: dict[str, Any] = {
    "type": "list",
    "max": 20,
    "items": {
        "type": "map",
        "fields": {"brigades": {"type": "int", "min": 1, "max": 99}, "tp": {"type": "int", "min": 0, "max": 99}},
        "required": ["brigades", "tp"],
    },
}
SHAPES: dict[str, dict[str, Any]] = {
    "order_costs": {
        "type": "map",
        "fields": {kind: _COST_ENTRY for kind in ("move", "continue", "remount", "limber", "unlimber", "rally")},
    },
    "army_morale": {
        "type": "map",
        "fields": {
            "cmf": {"type": "any", "description": "each army id: its starting critical morale factor"},
            "when_exhausted": {"type": "str", "enum": ["game-ends", "army-leaves"]},
        },
        "required": ["cmf"],
    },
    "combat_results": {
        "type": "list",
        "min": 1,
        "max": 50,
        "items": {
            "type": "map",
            "fields": {
                "difference": {"type": "any", "description": "a number or a range such as '2-3' or '6+'"},
                "result": {"type": "str", "enum": ["no-effect", "recoil", "recoil-shaken", "broken"]},
            },
            "required": ["difference", "result"],
        },
    },
    "combat_modifiers": {
        "type": "list",
        "min": 1,
        "max": 50,
        "items": {
            "type": "map",
            "fields": {"name": {"type": "str", "max": 60}, "value": {"type": "int"}, "when": {"type": "any"}},
            "required": ["name", "value"],
        },
    },
    "generators": {"type": "any", "description": "nation id: a generator in the shape of the imperialist one"},
    "scenarios": {"type": "any", "description": "scenario id: a scenario in the shape of data/scenarios/*.yaml"},
}
TITLES = {
    "tables/bombardment": "the bombardment table",
    "tables/rally": "the rally table",
    "tables/officer-grade": "the officer-grade table (ranks and grades of officers)",
    "tables/follow-up": "the follow-up test after the enemy recoils",
    "order_costs": "the Tempo-point cost of each order (the tempo-cost table)",
    "army_morale": "the critical morale factor of each army",
    "combat_results": "the combat results chart",
    "combat_modifiers": "the combat modifiers",
    "generators": "the army generators other than the Imperialist one",
    "scenarios": "a scenario not built into the game (Blenheim 1704)",
}
SET_UP_ONLY = ("generators", "scenarios")


def _file(need_id: str) -> str:
    return need_id.replace("/", "-") + ".yaml"


def _need(need_id: str, part: Mapping[str, Any], kind: str, shape: Mapping[str, Any]) -> Need:
    return Need(
        id=need_id,
        title=TITLES[need_id],
        book=part["book"],
        needed_by=part["needed_by"],
        shape=shape,
        template=load_text(PACKAGE, f"templates/{_file(need_id)}"),
        example=load_text(PACKAGE, f"examples/{_file(need_id)}"),
        kind="table" if kind == "table" else ("option" if kind == "option" else "data"),
        results=tuple(part.get("results", ())),
    )


# A table of the game's own, reconstructed where the file lacks the book's: in use until supplied.
RECONSTRUCTED_TABLES = {
    "follow-up": {
        "book": "The follow-up test, combat, pp. 23-28 (the file shows it only in the combat example)",
        "needed_by": "nothing; the game uses a follow-up test reconstructed from the combat example until supplied",
        "results": ["stays", "follows-up"],
    },
}
NEEDS: tuple[Need, ...] = (
    *(_need(f"tables/{t}", part, "table", TABLE_SHAPE) for t, part in SUPPLIED["tables"].items()),
    *(_need(f"tables/{t}", part, "table", TABLE_SHAPE) for t, part in RECONSTRUCTED_TABLES.items()),
    *(
        _need(name, part, "data" if name in SET_UP_ONLY else "option", SHAPES[name])
        for name, part in SUPPLIED["options"].items()
    ),
)


# -- when each part matters ------------------------------------------------------------------


def wanted(state: Mapping[str, Any]) -> list[Wanted]:
    """Return when each part the referee may supply matters for this state, and why."""
    return [
        _tables_wanted(state, "bombardment", _bombardment_when),
        _tables_wanted(state, "rally", _rally_when),
        _tables_wanted(state, "officer-grade", _officer_grade_when),
        *(_tables_wanted(state, table_id, _reconstructed_when) for table_id in RECONSTRUCTED_TABLES),
        _order_costs_wanted(state),
        _army_morale_wanted(state),
        *(
            Wanted(name, "supplied" if name in state["overlays"] else "default", _reconstructed(name))
            for name in ("combat_results", "combat_modifiers")
        ),
        *(
            Wanted(name, "supplied" if name in state["overlays"] else "never", "read when the game is set up only")
            for name in SET_UP_ONLY
        ),
    ]


def _reconstructed(name: str) -> str:
    return f"the game uses its own {name.replace('_', ' ')}, reconstructed from the book's combat example"


def _tables_wanted(state: Mapping[str, Any], table_id: str, when: Any) -> Wanted:
    need = f"tables/{table_id}"
    if table_id in state["overlays"].get("tables", {}).get("tables", {}):
        return Wanted(need, "supplied", "")
    result: tuple[Any, ...] = when(state)
    return Wanted(need, *result)


def _reconstructed_when(state: Mapping[str, Any]) -> tuple[Any, ...]:
    return "default", "the game uses its own, reconstructed from the book's combat example"


def _bombardment_when(state: Mapping[str, Any]) -> tuple[Any, ...]:
    guns = [b for b in state["bases"] if is_standing(state, b) and arm_of(state, b) == "artillery"]
    if not guns:
        return "never", "no artillery base is left on the field"
    kind = step_kind(state["step"])
    side = acting_side(state) if kind == "bombardment" else None
    if side is not None and any(side_of_base(state, b) == side for b in guns):
        return "now", "this bombardment phase: a fire order is refused until the table is supplied", False
    return "later", "each bombardment phase: artillery fire reads it"


def _rally_when(state: Mapping[str, Any]) -> tuple[Any, ...]:
    shaken = [b for b in state["bases"] if is_standing(state, b) and state["bases"][b]["state"] == "shaken"]
    side = acting_side(state) if step_kind(state["step"]) == "command" else None
    if side is not None and any(side_of_base(state, b) == side for b in shaken):
        return "now", "this command phase: a rally order for a shaken base is refused until it is supplied", False
    return "later", "a command phase where a shaken base tries to rally"


def _officer_grade_when(state: Mapping[str, Any]) -> tuple[Any, ...]:
    generals = state["generals"]
    if state["step"] == "muster" and any(g["grade"] == "random" for g in generals.values()):
        return "now", "a general's scenario grade is random: the muster rolls it"
    due = [g for g in generals.values() if g["successor_due"] is not None]
    if state["step"] == "morale" and any(g["successor_due"] == state["turn"] + 1 for g in due):
        return "now", "a lost general's successor is appointed at the end of this turn"
    if due:
        return "later", "a lost general's successor is appointed at the end of a turn"
    return "later", "a general hit or captured gets a successor whose grade it gives"


def _order_costs_wanted(state: Mapping[str, Any]) -> Wanted:
    if "order_costs" in state["overlays"]:
        return Wanted("order_costs", "supplied", "")
    unknown = [kind for kind in ("continue", "remount", "limber", "unlimber") if order_cost(state, kind, 1) is None]
    why = "a move of 2, 3 or 5+ brigades on one order" + (f", and {', '.join(unknown)} orders" if unknown else "")
    if step_kind(state["step"]) == "moves":
        return Wanted("order_costs", "now", f"this moves phase: {why} is refused until the costs are supplied", False)
    return Wanted("order_costs", "later", f"each moves phase: {why} needs them")


def _army_morale_wanted(state: Mapping[str, Any]) -> Wanted:
    lacking = [a for a in army_order(state) if state["armies"][a].get("cmf") is None]
    if not lacking:
        return Wanted("army_morale", "supplied", "")
    names = ", ".join(lacking)
    if state["step"] == "morale" and any(
        state["divisions"][state["bases"][b]["division"]]["army"] in lacking for b in state["broken_this_turn"]
    ):
        return Wanted("army_morale", "now", f"a division of {names} may be spent in this morale phase")
    return Wanted("army_morale", "later", f"a division of {names} becoming spent (it takes 1D6 off the factor)")


# -- taking the referee's data ---------------------------------------------------------------


def supply(state: Mapping[str, Any], need_id: str, data: Any) -> tuple[Any, list[Problem]]:
    """Return (the state with the referee's data applied, []) or (the state unchanged, the problems)."""
    need = SUPPLIES.by_id.get(need_id)
    if need is None:
        known = ", ".join(n.id for n in NEEDS)
        return thaw(state), [Problem("invalid.supply.need", "supplies", f"polemos-obb needs no {need_id!r} ({known})")]
    data = thaw(data)
    problems = schema.check(data, need.shape, "data")  # the core checks it too; a direct caller may not
    if problems:
        return thaw(state), problems
    new = thaw(state)
    problems = placeholders(data)
    if need_id.startswith("tables/"):
        problems += _supply_table(new, need_id.removeprefix("tables/"), data)
    elif need_id == "order_costs":
        problems += _supply_costs(new, data)
    elif need_id == "army_morale":
        problems += _supply_army_morale(new, data)
    elif need_id == "combat_results":
        problems += _refusals(parse_chart, data, "data")
        new["overlays"]["combat_results"] = data
    elif need_id == "combat_modifiers":
        problems += _supply_modifiers(new, data)
    elif need_id in SET_UP_ONLY:
        problems.append(
            Problem(
                "illegal.supply.set-up-only",
                "supplies",
                f"{TITLES[need_id]} are read when a game is set up, so this game cannot take them now: give them "
                f"under options: {need_id}: in game.yaml and start a new game with `referee init`",
            )
        )
    else:
        known = ", ".join(n.id for n in NEEDS)
        problems.append(
            Problem("invalid.supply.need", "supplies", f"polemos-obb needs no {need_id!r} (it needs: {known})")
        )
    if problems:
        return thaw(state), problems
    return new, []


def _refusals(check: Callable[..., Any], *args: Any) -> list[Problem]:
    """Run one of the set-up's checks; return what it refuses as a problem naming the field."""
    try:
        check(*args)
    except Refused as refused:
        return [Problem("illegal.supply", refused.path, refused.detail)]
    except GameDataError as error:
        return [Problem("illegal.supply", "data", str(error))]
    return []


def _supply_table(new: dict[str, Any], table_id: str, data: Any) -> list[Problem]:
    file = {"schema_version": 1, "tables": {table_id: data}}
    try:
        table = parse_tables(file, "the supplied file")[table_id]
    except GameDataError as error:
        return [Problem("invalid.table", "data", str(error).removeprefix("the supplied file: "))]
    problems = []
    allowed = {**SUPPLIED["tables"], **RECONSTRUCTED_TABLES}[table_id]["results"]
    for index, row in enumerate(table.rows):
        results = row.result.values() if table.columns else [row.result]
        strays = [str(r) for r in results if r not in allowed]
        if strays:
            problems.append(
                Problem(
                    "illegal.table.result",
                    f"data.rows[{index}].result",
                    f"gives {', '.join(strays)}, which the game cannot apply: a {table_id} result is one of "
                    f"{', '.join(allowed)}",
                )
            )
    if table_id == "bombardment" and table.columns:
        odd = [c for c in table.columns if c not in ("light-artillery", "field-artillery")]
        if odd:
            problems.append(
                Problem(
                    "illegal.table.column",
                    "data.columns",
                    f"names {', '.join(odd)}: a bombardment column is the firing base's type, "
                    "light-artillery or field-artillery",
                )
            )
    if not problems:
        tables = dict(new["overlays"].get("tables", {}).get("tables", {}))
        tables[table_id] = thaw(data)
        new["overlays"]["tables"] = {"schema_version": 1, "tables": tables}
    return problems


def _supply_costs(new: dict[str, Any], data: Any) -> list[Problem]:
    if not isinstance(data, Mapping) or not data:
        return [Problem("illegal.supply", "data", "must give the cost of at least one order kind")]
    problems = [p for kind, entries in data.items() for p in _refusals(_check_cost_kind, kind, entries, f"data.{kind}")]
    if not problems:
        costs = {kind: list(entries) for kind, entries in new["overlays"].get("order_costs", {}).items()}
        for kind, entries in data.items():
            given = {entry["brigades"] for entry in entries}
            costs[kind] = [e for e in costs.get(kind, []) if e["brigades"] not in given] + thaw(entries)
            costs[kind].sort(key=lambda entry: entry["brigades"])
        new["overlays"]["order_costs"] = costs
    return problems


def _supply_army_morale(new: dict[str, Any], data: Any) -> list[Problem]:
    problems = _refusals(_check_army_morale, data, "data")
    if problems:
        return problems
    armies = new["armies"]
    for army in data["cmf"]:
        if army not in armies:
            problems.append(
                Problem(
                    "illegal.supply.army",
                    f"data.cmf.{army}",
                    f"is not an army of this battle (its armies: {', '.join(army_order(new))})",
                )
            )
        elif armies[army]["exhausted"]:
            problems.append(
                Problem("illegal.supply.army", f"data.cmf.{army}", f"the {armies[army]['title']} is already exhausted")
            )
    if problems:
        return problems
    overlay = thaw(new["overlays"].get("army_morale", {"cmf": {}}))
    overlay["cmf"] = {**overlay.get("cmf", {}), **thaw(data["cmf"])}
    if "when_exhausted" in data:
        overlay["when_exhausted"] = data["when_exhausted"]
    new["overlays"]["army_morale"] = overlay
    for army, cmf in data["cmf"].items():
        # A factor given anew counts the dice already taken off it.
        armies[army]["cmf"] = cmf - armies[army]["cmf_lost"]
    return []


def _supply_modifiers(new: dict[str, Any], data: Any) -> list[Problem]:
    problems = [p for i, entry in enumerate(data) for p in _refusals(_check_modifier, entry, f"data[{i}]")]
    if not problems:
        given = {entry["name"] for entry in data}
        kept = [m for m in new["overlays"].get("combat_modifiers", []) if m["name"] not in given]
        new["overlays"]["combat_modifiers"] = kept + thaw(data)
    return problems


SUPPLIES = Supplies(needs=NEEDS, wanted=wanted, supply=supply)


def outstanding(state: Mapping[str, Any]) -> list[dict[str, str]]:
    """Return each part the game still lacks (needed now or later) or reconstructs, as plain data for views."""
    by_id = SUPPLIES.by_id
    return [
        {
            "need": item.need,
            "title": by_id[item.need].title,
            "book": by_id[item.need].book,
            "when": item.when,
            "why": item.why,
        }
        for item in wanted(state)
        if item.when in ("now", "later", "default")
    ]


def supplied(state: Mapping[str, Any]) -> list[str]:
    """Return the id of each part the referee has supplied to this game, at set-up or since."""
    return [item.need for item in wanted(state) if item.when == "supplied"]
