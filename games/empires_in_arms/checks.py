"""Checking a player's orders against the rules of chapter 12.0 played: combats declared
(each unit where the combat is, and in one at a time), fleet moves (12.2.3, 12.2.4), the
economy (12.1.1, 12.1.2, 12.5), peace and access (12.3.9, 12.8, 12.3.1), a combat round's
guard commitment (12.3.4) and a loss proposal (12.2.5, 12.3.6). Each refusal cites its rule."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.empires_in_arms import economy, guard, land, naval, peace
from games.empires_in_arms.chapter import RULES, rule_of
from games.empires_in_arms.combat import SIDES, contingents
from games.empires_in_arms.losses import split_problems
from games.empires_in_arms.turn import is_phase, powers_of
from referee.kit import Problem


def side_powers(state: Mapping[str, Any], player: str) -> set[str]:
    """Return the powers on `player`'s side: their own and their allies."""
    mine = set(powers_of(state, player))
    return mine | {ally for power in mine for ally in state["powers"][power]["allies"]}


def option(state: Mapping[str, Any], key: str, path: str) -> list[Problem]:
    """Return a problem naming the rule when option `key` is not played, else none."""
    if state["rules"][key]:
        return []
    return [
        Problem("illegal.option-off", path, f"rule {rule_of(key)} ({RULES[key]['title']}) is not played in this game")
    ]


def attack_problems(
    state: Mapping[str, Any],
    player: str,
    attack: Mapping[str, Any],
    path: str,
    areas: Mapping[str, str],
    engaged: set[str],
) -> list[Problem]:
    """Return the problems of one declared combat; `areas` are the units' areas after the order's
    moves, and `engaged` the units in combats so far (this order's earlier ones added)."""
    problems = []
    mine = side_powers(state, player)
    naval = attack["kind"] == "naval"
    first = state["units"].get(attack["attackers"][0])
    where_fought = attack.get("area") or (areas.get(attack["attackers"][0]) if first else None)
    enemies = {e for power in powers_of(state, player) for e in state["powers"][power]["at_war"]}
    for key, own in (("attackers", True), ("defenders", False)):
        for index, unit_id in enumerate(attack[key]):
            where = f"{path}.{key}[{index}]"
            unit = state["units"].get(unit_id)
            if unit is None:
                problems.append(Problem("illegal.unknown-unit", where, f"there is no unit {unit_id!r}"))
                continue
            if own and unit["power"] not in mine:
                problems.append(
                    Problem("illegal.not-yours", where, f"{unit_id} belongs to {unit['power']}, not your side")
                )
            if not own and unit["power"] not in enemies:
                problems.append(
                    Problem(
                        "illegal.not-enemy",
                        where,
                        f"{unit_id} belongs to {unit['power']}, not a power you are at war with",
                    )
                )
            if (unit["type"] == "fleet") != naval:
                problems.append(
                    Problem(
                        "illegal.unit-kind",
                        where,
                        f"{unit_id} is a {unit['type']}: "
                        f"{'only fleets' if naval else 'no fleets'} in a {attack['kind']} combat",
                    )
                )
            if unit_id in engaged or unit.get("demobilised"):
                problems.append(Problem("illegal.engaged", where, f"{unit_id} is already in a combat, or gone"))
            elif areas[unit_id] != where_fought:
                problems.append(Problem("illegal.area", where, f"{unit_id} is at {areas[unit_id]}, not {where_fought}"))
            engaged.add(unit_id)
    return problems


def fleet_problems(state: Mapping[str, Any], player: str, move: Mapping[str, Any], path: str) -> list[Problem]:
    """Return the problems of a fleet stack's move: its fleets, its allowance (12.2.3), its load (12.2.4)."""
    problems = []
    mine = set(powers_of(state, player))
    for unit_id in move["fleets"]:
        unit = state["units"].get(unit_id)
        if unit is None or unit["type"] != "fleet" or unit["power"] not in mine:
            problems.append(Problem("illegal.not-your-fleet", f"{path}.fleets", f"{unit_id} is not a fleet of yours"))
    if problems:
        return problems
    carrying = list(move.get("carrying") or [])
    if state["rules"]["large_fleets"]:
        allowance = naval.fleet_movement_allowance(state["fleet_movement"], len(move["fleets"]), bool(carrying))
        if len(move["path"]) > allowance:
            problems.append(
                Problem(
                    "illegal.fleet-allowance",
                    f"{path}.path",
                    f"a stack of {len(move['fleets'])} fleet(s){' transporting' if carrying else ''} moves {allowance} "
                    f"sea areas at most (12.2.3); this path enters {len(move['path'])}",
                )
            )
    if state["rules"]["reduced_transport"] and carrying:
        factors = sum(sum(state["units"][u].get("factors", {}).values()) for u in carrying if u in state["units"])
        if factors > naval.transport_capacity(len(move["fleets"])):
            problems.append(
                Problem(
                    "illegal.transport",
                    f"{path}.carrying",
                    f"{len(move['fleets'])} fleet(s) carry {naval.transport_capacity(len(move['fleets']))} army "
                    f"factors at most (12.2.4); these corps hold {factors}",
                )
            )
    return problems


def economy_problems(state: Mapping[str, Any], player: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return the problems of the Economic Phase's orders (12.1.1, 12.1.2, 12.5)."""
    problems: list[Problem] = []
    economic = is_phase(state, "economic")
    for key, rule in (
        ("militia", "militia_conversion"),
        ("build_ships", "ship_building_locations"),
        ("manipulation", "economic_manipulation"),
    ):
        if orders.get(key) is not None:
            problems += option(state, rule, f"orders.{key}")
            if not economic:
                problems.append(Problem("illegal.phase", f"orders.{key}", "only in the Economic Phase"))
    if problems:
        return problems
    mine = powers_of(state, player)
    for index, order in enumerate(orders.get("militia") or []):
        unit = state["units"].get(order["unit"])
        where = f"orders.militia[{index}]"
        if unit is None or unit["power"] not in mine:
            problems.append(Problem("illegal.not-yours", where, f"{order['unit']} is not a unit of yours"))
            continue
        power = state["powers"][unit["power"]]
        majors = [p for p in power["at_war"] if p in state["powers"]]
        if unit.get("factors", {}).get("militia", 0) < order["factors"]:
            problems.append(
                Problem(
                    "illegal.militia",
                    where,
                    f"{order['unit']} has {unit.get('factors', {}).get('militia', 0)} militia factor(s)",
                )
            )
            continue
        why = economy.conversion_problem(majors, unit["area"] in power["home"], order["factors"], power["money"])
        if why:
            problems.append(Problem("illegal.militia", where, f"{why} (12.1.1)"))
    if orders.get("manipulation") is not None:
        display = state["supplied"].get("economic_display")
        if display is not None and orders["manipulation"] not in display["squares"]:
            problems.append(
                Problem(
                    "illegal.square",
                    "orders.manipulation",
                    f"no square {orders['manipulation']!r}; squares: {', '.join(display['squares'])}",
                )
            )
    return problems


def peace_problems(state: Mapping[str, Any], player: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return the problems of access, ceding, peace and depot orders (12.8, 12.3.9, 12.4, 12.3.1)."""
    problems: list[Problem] = []
    mine = powers_of(state, player)
    for index, grantee in enumerate(orders.get("grant_access") or []):
        allies = sorted({a for p in mine for a in state["powers"][p]["allies"]})
        why = peace.access_problem(", ".join(mine), grantee, allies, state["rules"]["allied_access"])
        if why:
            problems.append(Problem("illegal.access", f"orders.grant_access[{index}]", why))
    if orders.get("cede"):
        why = peace.ceding_problem(bool(orders["cede"].get("peace_term")), state["rules"]["no_ceding"])
        if why:
            problems.append(Problem("illegal.cede", "orders.cede", why))
    if orders.get("peace"):
        other = orders["peace"]["with"]
        if not any(other in state["powers"][p]["at_war"] for p in mine):
            problems.append(Problem("illegal.peace", "orders.peace.with", f"you are not at war with {other}"))
    for index, entry in enumerate(orders.get("depots") or []):
        if state["rules"]["depot_limit"] and not land.depot_can_supply(len(entry["units"]) - 1):
            problems.append(
                Problem(
                    "illegal.depot",
                    f"orders.depots[{index}].units",
                    f"a depot supplies four corps or besieged garrisons at most (12.3.1); {len(entry['units'])} named",
                )
            )
    return problems


def round_problems(state: Mapping[str, Any], player: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return the problems of a commander's round orders: the table, and the guard commitment (12.3.4)."""
    combat = state["combats"][0]
    side = next(s for s in SIDES if combat["sides"][s]["commander"] == player)
    problems: list[Problem] = []
    results = state["supplied"].get("combat_results")
    if results is not None and orders.get("table") not in results["columns"]:
        problems.append(
            Problem(
                "illegal.table",
                "orders.table",
                f"no combat table {orders.get('table')!r}; tables: {', '.join(results['columns'])}",
            )
        )
    pledge = orders.get("guard")
    if pledge:
        if not state["rules"]["guard_commitment"]:
            return [
                *problems,
                Problem("illegal.option-off", "orders.guard", "guard commitment (12.3.4) is not played in this game"),
            ]
        if combat["guard_used"][side]:
            problems.append(
                Problem(
                    "illegal.guard",
                    "orders.guard",
                    "your side has committed its guard already in this combat (12.3.4: once a day of combat)",
                )
            )
        why = guard.commitment_problem(contingents(combat, state["units"], side), pledge["nation"], pledge["shift"])
        if why:
            problems.append(Problem("illegal.guard", "orders.guard", f"{why} (12.3.4)"))
        elif results is not None and orders.get("table") in results["columns"]:
            shifted = guard.shifted_table(orders["table"], pledge["shift"])
            if shifted not in results["columns"]:
                problems.append(
                    Problem(
                        "illegal.guard",
                        "orders.guard",
                        f"the shifted table {shifted} is not in the Combat Resolution Table supplied",
                    )
                )
    return problems


def loss_problems(state: Mapping[str, Any], player: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return the problems of a loss proposal: the split (12.2.5, 12.3.6) and the types chosen."""
    combat = state["combats"][0]
    split = orders.get("split")
    side = next((s for s, share in combat["pending"].items() if player in share["proposers"]), None)
    if side is None:
        return [Problem("illegal.not-yours", "orders.split", "you have no losses to share in this combat")]
    share = combat["pending"][side]
    if not isinstance(split, Mapping) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in split.values()
    ):
        return [Problem("invalid.type", "orders.split", "give each nationality's losses as a whole number")]
    naval_ = combat["kind"] == "naval"
    proportional = state["rules"]["proportional_naval_losses" if naval_ else "proportional_land_losses"]
    types = orders.get("types") or {}
    if not isinstance(types, Mapping) or not all(
        nation in share["strengths"] and isinstance(kinds, Mapping) and all(isinstance(v, int) for v in kinds.values())
        for nation, kinds in types.items()
    ):
        return [
            Problem("invalid.type", "orders.types", "give {nationality: {factor type: count}} for your contingents")
        ]
    return [
        Problem("illegal.split", "orders.split", why)
        for why in split_problems(split, share["strengths"], share["count"], proportional)
    ]
