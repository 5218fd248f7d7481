"""A side's command and moves steps: Tempo points to generals, rallying, generals' moves, orders' costs.

Command (turn sequence steps 2 and 6): the C-in-C gives Tempo points to his generals, tries
to rally shaken bases (on the referee's rally table: the procedure is missing from the file)
and moves himself and his generals (joining or leaving a base, which puts them at risk).

Moves (steps 4 and 8): each order moves one group of brigades of one division acting on a
single order (those within 1BW of each other: on the referee's table, manoeuvres.py checks it
and the move itself; otherwise the geometry stays on the players' table).
Its commander pays its cost from the points he was given. The file gives two costs (a single
brigade 2 TP, four brigades 5 TP) and the rule for dismounting dragoons; every other cost is
in the referee's order_costs, and an order whose cost nobody supplied is refused, naming it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from games.polemos_obb import manoeuvres
from games.polemos_obb.manoeuvres import poses_now
from games.polemos_obb.model import (
    TROOPS,
    commander_of,
    general_can_move,
    general_can_order,
    is_standing,
)
from games.polemos_obb.options import (
    REFEREE_CAN_SUPPLY,
    SUPPLIED,
    game_tables,
    missing_table_message,
    order_cost,
    setting,
)
from games.polemos_obb.resolution import Resolution
from games.polemos_obb.table import TOUCH_MM, bd, bw, in_bw, on_table, place
from referee.kit import Problem
from referee.kit.tabletop import Pose, moved, pose_from, to_state

MOVING = ("move", "continue")
ORDER_KINDS = ("move", "continue", "dismount", "remount", "limber", "unlimber")


# -- command ------------------------------------------------------------------------------


def command_problems(state: Mapping[str, Any], army: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return what is wrong with an army's command orders."""
    problems: list[Problem] = []
    record = state["armies"][army]
    allocations = orders.get("allocate", [])
    if allocations and not general_can_order(state, record["c_in_c"]):
        problems.append(Problem("illegal.allocate.c-in-c", "orders.allocate", "your C-in-C gives no orders this turn"))
    seen: set[str] = set()
    for index, entry in enumerate(allocations):
        path = f"orders.allocate[{index}].general"
        general = entry["general"]
        if general not in _commanders(state, army):
            known = ", ".join(_commanders(state, army))
            problems.append(
                Problem("illegal.allocate.general", path, f"{general!r} commands none of your divisions ({known})")
            )
        elif not general_can_order(state, general):
            problems.append(Problem("illegal.allocate.no-orders", path, f"{general} gives no orders this turn"))
        if general in seen:
            problems.append(Problem("illegal.allocate.twice", path, f"{general} is given points twice"))
        seen.add(general)
    rally_cost = 0
    rallying = [entry["base"] for entry in orders.get("rally", [])]
    for index, entry in enumerate(orders.get("rally", [])):
        if entry["base"] in rallying[:index]:
            problems.append(Problem("illegal.rally.twice", f"orders.rally[{index}].base", "a base tries to rally once"))
        problems += _rally_problems(state, army, entry, f"orders.rally[{index}]")
        rally_cost += order_cost(state, "rally", 1) or 0
    total = sum(entry["tp"] for entry in allocations) + rally_cost
    if total > record["tp"]:
        problems.append(
            Problem(
                "illegal.allocate.too-many",
                "orders.allocate",
                f"you give out {total} TP (rallying included) but hold {record['tp']}",
            )
        )
    for index, entry in enumerate(orders.get("generals", [])):
        problems += _general_move_problems(state, army, entry, f"orders.generals[{index}]")
    return problems


def _commanders(state: Mapping[str, Any], army: str) -> list[str]:
    """Return the generals of an army who may be given points: the C-in-C and each division's commander."""
    record = state["armies"][army]
    return list(dict.fromkeys([record["c_in_c"], *(commander_of(state, d) for d in record["divisions"])]))


def _rally_problems(state: Mapping[str, Any], army: str, entry: Mapping[str, Any], path: str) -> list[Problem]:
    base = entry["base"]
    record = state["bases"].get(base)
    if record is None or state["divisions"][record["division"]]["army"] != army or not is_standing(state, base):
        return [Problem("illegal.rally.base", f"{path}.base", f"{base!r} is not one of your bases on the field")]
    if record["state"] != "shaken":
        return [Problem("illegal.rally.not-shaken", f"{path}.base", f"{base} is not shaken")]
    tables = game_tables(state)
    if "rally" not in tables:
        return [
            Problem("illegal.table-missing.rally", path, missing_table_message("rally") + "; " + REFEREE_CAN_SUPPLY)
        ]
    table = tables.get("rally")
    strays = [m for m in entry.get("modifiers", []) if m not in table.modifiers or m in TROOPS["classes"]]
    if strays:
        known = ", ".join(m for m in table.modifiers if m not in TROOPS["classes"]) or "none"
        return [
            Problem(
                "illegal.rally.modifier", f"{path}.modifiers", f"unknown modifier(s) {strays}; you may name: {known}"
            )
        ]
    return []


def _general_move_problems(state: Mapping[str, Any], army: str, entry: Mapping[str, Any], path: str) -> list[Problem]:
    general = entry["general"]
    record = state["generals"].get(general)
    if record is None or record["army"] != army:
        return [Problem("illegal.general.unknown", f"{path}.general", f"{general!r} is not one of your generals")]
    if not general_can_move(state, general):
        return [Problem("illegal.general.no-move", f"{path}.general", f"{general} may not move this turn")]
    join = entry.get("join")
    if join is not None and (
        join not in state["bases"]
        or state["divisions"][state["bases"][join]["division"]]["army"] != army
        or not is_standing(state, join)
    ):
        return [Problem("illegal.general.join", f"{path}.join", f"{join!r} is not one of your bases on the field")]
    if join is None and not entry.get("leave") and "to" not in entry:
        return [Problem("illegal.general.where", path, "give join: <base>, leave: true or to: [X, Y]")]
    if "to" in entry and (join is not None or entry.get("leave")):
        return [Problem("illegal.general.where", path, "give one of join, leave and to")]
    if on_table(state) and "pose" in record:
        return _general_ride_problems(state, entry, path)
    return []


def _general_ride_problems(state: Mapping[str, Any], entry: Mapping[str, Any], path: str) -> list[Problem]:
    """A general rides 3BW a turn, 1BW if lethargic, 4BW with troops in march formation (L263)."""
    general = entry["general"]
    end = general_destination(state, entry)
    if end is None:
        return []
    start = pose_from(state["generals"][general]["pose"])
    distance = math.dist((start.x, start.y), (end.x, end.y))
    rate, why = general_rate(state, general)
    problems = []
    if distance > rate + TOUCH_MM:
        problems.append(
            Problem(
                "illegal.general.too-far",
                f"{path}.{'to' if 'to' in entry else 'join'}",
                f"{general} would ride {distance:.0f} mm ({in_bw(state, distance)}), but {why}: at most {rate:.0f} mm",
            )
        )
    table = state["table"]
    if not (0 <= end.x <= table["width_mm"] and 0 <= end.y <= table["depth_mm"]):
        problems.append(Problem("illegal.general.off-table", f"{path}.to", f"{general} would ride off the table"))
    return problems


def general_rate(state: Mapping[str, Any], general: str) -> tuple[float, str]:
    """Return how far a general rides this turn (mm) and the rule that says so (L263)."""
    record = state["generals"][general]
    division = record.get("division")
    if division is not None and state["divisions"][division].get("formation") == "defile":
        return 4 * bw(state), "a general with troops in march formation rides 4BW (L263)"
    if record["grade"] == "lethargic":
        return bw(state), "a lethargic general rides 1BW (L263)"
    return 3 * bw(state), "a general rides 3BW (L263)"


def general_destination(state: Mapping[str, Any], entry: Mapping[str, Any]) -> Pose | None:
    """Return where a general's order takes him on the table: a point, or just behind the base he joins."""
    if "to" in entry:
        here = pose_from(state["generals"][entry["general"]]["pose"])
        return Pose(float(entry["to"][0]), float(entry["to"][1]), here.facing)
    join = entry.get("join")
    if join is None or "pose" not in state["bases"][join]:
        return None
    base = pose_from(state["bases"][join]["pose"])
    return moved(base, -bd(state))  # his 1BD-deep base touching the rear of the one he joins


def resolve_command(r: Resolution, army: str, orders: Mapping[str, Any]) -> None:
    """Apply an army's command orders: allocations, rally attempts, generals joining or leaving bases."""
    state = r.state
    record = state["armies"][army]
    given = {entry["general"]: entry["tp"] for entry in orders.get("allocate", [])}
    state["allocations"][army] = given
    record["tp"] -= sum(given.values())
    names = state["generals"]
    if given:
        shares = ", ".join(f"{names[g]['name']} {tp}" for g, tp in given.items())
        text = f"{record['title']}: Tempo points given out: {shares}; {record['tp']} TP kept."
    else:
        text = f"{record['title']} gives out no Tempo points ({record['tp']} TP kept)."
    r.say("command.allocation", text, {"army": army, "allocations": given, "kept": record["tp"]})
    for entry in orders.get("rally", []):
        _rally(r, army, entry)
    for entry in orders.get("generals", []):
        general = names[entry["general"]]
        general["with_base"] = entry.get("join")
        end = general_destination(state, entry) if "pose" in general else None
        if end is not None:
            general["pose"] = to_state(end)
        where = f"joins {entry['join']}" if entry.get("join") else "leaves the troops"
        if "to" in entry:
            where = f"rides to ({entry['to'][0]}, {entry['to'][1]}) mm"
        r.say(
            "command.general",
            f"{general['name']} {where}.",
            {"general": entry["general"], "with_base": entry.get("join")},
        )


def _rally(r: Resolution, army: str, entry: Mapping[str, Any]) -> None:
    state = r.state
    base = entry["base"]
    cost = order_cost(state, "rally", 1) or 0
    state["armies"][army]["tp"] -= cost
    table = r.tables.get("rally")
    grade = state["bases"][base]["class"]
    modifiers = [*entry.get("modifiers", []), *([grade] if grade in table.modifiers else [])]
    lookup = r.read("rally", label=f"rally/{base}", purpose=f"{base} tries to rally", modifiers=modifiers)
    if lookup.result == "rallied":
        state["bases"][base]["state"] = "fresh"
    r.say(
        "command.rally",
        f"{base} tries to rally ({cost} TP): {lookup.natural}"
        + "".join(f" {n} {v:+d}" for n, v in lookup.modifiers)
        + f" = {lookup.modified}: {'rallied' if lookup.result == 'rallied' else 'still shaken'}.",
        {"base": base, "cost": cost, "roll": lookup.natural, "total": lookup.modified, "result": lookup.result},
    )


# -- moves --------------------------------------------------------------------------------


def priced_moves(
    state: Mapping[str, Any], army: str, orders: Mapping[str, Any]
) -> tuple[list[dict[str, Any]], list[Problem]]:
    """Return each move order with its division, payer and TP cost, and the problems found on the way."""
    problems: list[Problem] = []
    priced: list[dict[str, Any]] = []
    moving: set[str] = set(state["moved"])
    ordered: set[str] = set()
    table = on_table(state)
    where = poses_now(state) if table else {}
    for index, entry in enumerate(orders.get("moves", [])):
        path = f"orders.moves[{index}]"
        found = _group_problems(state, army, entry, path, ordered)
        if not found and not table and ("steps" in entry or "charge" in entry):
            found = [_not_on_table(path)]
        if found:
            problems += found
            continue
        brigades = entry["brigades"]
        division = state["brigades"][brigades[0]]["division"]
        kind = entry["order"]
        cost, problem = _cost(state, army, entry, kind, brigades, moving, path)
        if problem:
            problems.append(problem)
            continue
        geometry: dict[str, Any] = {}
        bases = [b for b in _bases_of(state, brigades) if b in where]
        if bases and kind in MOVING:  # on the table, once the armies are deployed
            planned, found = manoeuvres.plan(state, where, entry, bases, path)
            if planned is None:
                problems += found
                continue
            where.update({b: pose_from(p) for b, p in planned["ends"].items()})
            geometry = {"ends": planned["ends"], "paths": planned["paths"], "length": planned["length"],
                        "allowance": planned["allowance"]}  # fmt: skip
            if "deploying" in planned:
                if kind != "continue" and state["divisions"][division].get("formation") == "deploying":
                    text = "a deployment's later turns are continuation moves (L278): order continue"
                    problems.append(Problem("illegal.moves.deploy", f"{path}.order", text))
                    continue
                geometry["deploying"] = planned["deploying"]
        elif table and entry.get("steps"):
            problems.append(Problem("illegal.moves.steps", f"{path}.steps", f"a {kind} order takes no steps"))
            continue
        payer = commander_of(state, entry.get("by") or entry.get("with") or division)
        if kind in MOVING:
            moving.update(brigades)
            ordered.update(brigades)
        priced.append({"order": kind, "brigades": list(brigades), "division": division, "payer": payer, "tp": cost,
                       "note": entry.get("note", ""), **_label(state, entry), **geometry})  # fmt: skip
    for payer in dict.fromkeys(p["payer"] for p in priced):
        spend = sum(p["tp"] for p in priced if p["payer"] == payer)
        left = state["allocations"].get(army, {}).get(payer, 0) - state["tp_spent"].get(payer, 0)
        if spend > left:
            name = state["generals"][payer]["name"]
            problems.append(
                Problem(
                    "illegal.moves.tp",
                    "orders.moves",
                    f"these orders cost {name} {spend} TP but he has {left} (give him more in your command orders)",
                )
            )
    return priced, problems


ORDER_LABELS = {
    "move": "move",
    "continue": "continuation move",
    "dismount": "dismount",
    "remount": "remount",
    "limber": "limber",
    "unlimber": "unlimber",
}


def _label(state: Mapping[str, Any], entry: Mapping[str, Any]) -> dict[str, str]:
    """Return how the reports name an order (option letters: army-board; older games' reports name the kind)."""
    if setting(state, "letters") != "army-board":
        return {}
    label = ORDER_LABELS[entry["order"]]
    if entry.get("with"):
        label += f" with {entry['with']}'s column"
    elif entry.get("by"):
        label += f" by {entry['by']}'s move"
    return {"label": label}


def _group_problems(
    state: Mapping[str, Any], army: str, entry: Mapping[str, Any], path: str, ordered: set[str]
) -> list[Problem]:
    brigades = entry["brigades"]
    unknown = [b for b in brigades if b not in state["brigades"]]
    if unknown:
        return [Problem("illegal.moves.brigade", f"{path}.brigades", f"no brigade {', '.join(unknown)}")]
    divisions = {state["brigades"][b]["division"] for b in brigades}
    division = state["divisions"][next(iter(divisions))]
    if len(divisions) > 1:
        return [Problem("illegal.moves.divisions", f"{path}.brigades", "one order moves brigades of one division")]
    if division["army"] != army or division["spent"]:
        return [Problem("illegal.moves.not-yours", f"{path}.brigades", f"{division['title']} is not yours to move")]
    if len(set(brigades)) != len(brigades):
        return [Problem("illegal.moves.twice", f"{path}.brigades", "a brigade is named twice")]
    gone = [b for b in brigades if not any(is_standing(state, x) for x in state["brigades"][b]["bases"])]
    if gone:
        return [Problem("illegal.moves.gone", f"{path}.brigades", f"{', '.join(gone)} no longer on the field")]
    if entry["order"] in MOVING:
        again = [b for b in brigades if b in ordered or b in state["moved"]]
        if again:
            return [Problem("illegal.moves.again", f"{path}.brigades", f"{', '.join(again)} already moved this turn")]
    return _kind_problems(state, army, entry, path)


def _kind_problems(state: Mapping[str, Any], army: str, entry: Mapping[str, Any], path: str) -> list[Problem]:
    kind = entry["order"]
    bases = [state["bases"][x] for b in entry["brigades"] for x in state["brigades"][b]["bases"]]
    types = {base["type"] for base in bases}
    if kind in ("dismount", "remount"):
        if types != {"dragoons"}:
            return [Problem(f"illegal.{kind}.not-dragoons", f"{path}.brigades", "only dragoons dismount and remount")]
        if any(base["dismounted"] == (kind == "dismount") for base in bases):
            return [Problem(f"illegal.{kind}.already", f"{path}.brigades", f"already {kind}ed")]
    if kind in ("limber", "unlimber"):
        if any(TROOPS["types"][t]["arm"] != "artillery" for t in types):
            return [
                Problem(f"illegal.{kind}.not-artillery", f"{path}.brigades", "only artillery limbers and unlimbers")
            ]
        if any(base["limbered"] == (kind == "limber") for base in bases):
            return [Problem(f"illegal.{kind}.already", f"{path}.brigades", f"already {kind}ed")]
    fixed = any(base["type"] == "field-artillery" and not base["limbered"] for base in bases)
    if fixed and kind in (*MOVING, "limber"):
        return [
            Problem(
                "illegal.moves.field-artillery",
                f"{path}.brigades",
                "unlimbered field artillery may not move for the rest of the game",
            )
        ]
    by = entry.get("by")
    if by is not None and (kind != "unlimber" or by not in state["armies"][army]["divisions"]):
        return [Problem("illegal.moves.by", f"{path}.by", "by names one of your divisions, only for unlimber")]
    return _with_problems(state, army, entry, path, bases)


def _with_problems(
    state: Mapping[str, Any], army: str, entry: Mapping[str, Any], path: str, bases: list[Mapping[str, Any]]
) -> list[Problem]:
    """Limbered guns attached to an infantry column move with it, at no TP cost (option guns_move_with_column)."""
    column = entry.get("with")
    if column is None:
        return []
    if not setting(state, "guns_move_with_column"):
        return [
            Problem(
                "illegal.moves.with",
                f"{path}.with",
                "this game was begun before guns could move with a column (option guns_move_with_column is "
                "false): order the guns' move by their own commander",
            )
        ]
    if entry["order"] not in MOVING or any(
        TROOPS["types"][b["type"]]["arm"] != "artillery" or not b.get("limbered") for b in bases
    ):
        return [Problem("illegal.moves.with", f"{path}.with", "with is for a move of limbered guns only")]
    if column not in state["armies"][army]["divisions"] or state["divisions"][column]["spent"]:
        return [Problem("illegal.moves.with", f"{path}.with", f"{column!r} is not one of your divisions on the field")]
    return []


def _cost(
    state: Mapping[str, Any],
    army: str,
    entry: Mapping[str, Any],
    kind: str,
    brigades: list[str],
    moving: set[str],
    path: str,
) -> tuple[int, Problem | None]:
    """Return an order's TP cost, or a problem naming the cost nobody supplied."""
    size = len(brigades)
    if kind == "dismount" and all(b in moving for b in brigades):
        return 0, None  # dragoons dismount at the end of their move for nothing
    if entry.get("with"):
        if not any(b in moving for b in state["divisions"][entry["with"]]["brigades"]):
            return 0, Problem(
                "illegal.moves.with",
                f"{path}.with",
                f"{entry['with']} has no move before this order this turn: order its column's move first, "
                "then the guns' move with it",
            )
        return 0, None  # limbered guns attached to the column move with it at no cost
    if kind == "unlimber" and entry.get("by"):
        if not any(b in moving for b in state["divisions"][entry["by"]]["brigades"]):
            return 0, Problem(
                "illegal.unlimber.by",
                f"{path}.by",
                f"{entry['by']} has no move this turn, so it cannot unlimber guns as part of it",
            )
        return 0, None  # unlimbered by the infantry general as part of his redeploy move
    priced_as = "move" if kind == "dismount" else kind  # dismounting costs what moving would
    cost = order_cost(state, priced_as, size)
    if cost is not None:
        return cost, None
    what = f"a {priced_as} order for {size} brigade{'s' * (size != 1)}"
    hint = " (the rulebook gives a single brigade, 2 TP, and four brigades, 5 TP: order the group in such parts)"
    return 0, Problem(
        "illegal.cost-not-supplied",
        path,
        f"the cost of {what} is in the tempo-cost table ({SUPPLIED['options']['order_costs']['book']}), which this "
        f"game's referee has not supplied (order_costs.{priced_as}); {REFEREE_CAN_SUPPLY}"
        f"{hint if priced_as == 'move' else ''}",
    )


def _deploying(division: dict[str, Any], outcome: Mapping[str, Any]) -> None:
    """Keep how far a division has deployed from defile: deployed, or deploying with its line so far."""
    if outcome["column"]:
        division["formation"] = "deploying"
        division["deploying"] = {"line": list(outcome["line"])}
    else:
        division["formation"] = "deployed"
        division.pop("deploying", None)


def _not_on_table(path: str) -> Problem:
    return Problem(
        "illegal.moves.steps",
        path,
        "this game keeps no battlefield (option battlefield: players): positions are on your own table, "
        "so give no steps or charge",
    )


def resolve_moves(r: Resolution, army: str, orders: Mapping[str, Any]) -> None:
    """Pay for and apply an army's moves: brigades moved, dragoons dismounted, guns limbered, bases placed."""
    state = r.state
    priced, _ = priced_moves(state, army, orders)
    for order in priced:
        for base, pose in order.get("ends", {}).items():
            place(state, base, pose_from(pose))
        if "deploying" in order:
            _deploying(state["divisions"][order["division"]], order["deploying"])
        state["tp_spent"][order["payer"]] = state["tp_spent"].get(order["payer"], 0) + order["tp"]
        if order["order"] in MOVING:
            state["moved"] += [b for b in order["brigades"] if b not in state["moved"]]
        for base in _bases_of(state, order["brigades"]):
            if order["order"] in ("dismount", "remount"):
                state["bases"][base]["dismounted"] = order["order"] == "dismount"
            elif order["order"] in ("limber", "unlimber"):
                state["bases"][base]["limbered"] = order["order"] == "limber"
    spent = {p: state["tp_spent"][p] for p in dict.fromkeys(o["payer"] for o in priced)}
    left = {p: state["allocations"].get(army, {}).get(p, 0) - s for p, s in spent.items()}
    title = state["armies"][army]["title"]
    total = sum(o["tp"] for o in priced)
    text = f"{title}: {len(priced)} move order(s) for {total} TP." if priced else f"{title} gives no move orders."
    moved = [o for o in priced if "length" in o]
    if moved:  # on the referee's table: how far each group went, of how far it might
        text += (
            " " + "; ".join(f"{', '.join(o['brigades'])} {o['length']:g} mm of {o['allowance']:g}" for o in moved) + "."
        )
    r.say("moves.orders", text, {"army": army, "title": title, "orders": priced, "left": left})


def _bases_of(state: Mapping[str, Any], brigades: list[str]) -> list[str]:
    return [b for brigade in brigades for b in state["brigades"][brigade]["bases"]]
