"""A phase of the sequence of play: the procedure journal's rolls, declarations and notes, then
each player's chapter 12.0 orders (policies, combats, fleets, the economy, peace), then what the
phase itself does under the options switched on (the Economic Phase's raiding and manipulation,
the Land Phases counted since a peace, the Reinforcement Phase's forced departures)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from games.empires_in_arms import battles, economy, naval, peace, words
from referee.kit import Dice, Event, NotSupplied, Tables, parse_tables, seal_choice, sealed_box
from referee.kit.procedure import procedure, sequence
from referee.kit.procedure.rolls import roll_request


def date(state: Mapping[str, Any]) -> str:
    """Return the open phase's month: a combat's is the month of the turn it was declared in."""
    if state["combats"]:
        return battles.date_of(state, state["combats"][0]["turn"])
    return battles.date_of(state, sequence.position(state)[0])


def is_phase(state: Mapping[str, Any], kind: str) -> bool:
    """Return whether the open phase of the sequence is the land, naval, economic or reinforcement
    phase (every phase is, in a game without a sequence)."""
    step = sequence.position(state)[1]
    return step is None or step["name"] == state["phase_names"][kind]


def powers_of(state: Mapping[str, Any], player: str) -> list[str]:
    """Return the major powers a player plays."""
    return sorted(power for power, data in state["powers"].items() if data["player"] == player)


def seal_policy(state: dict[str, Any], player: str, policy: Any, dice: Dice) -> tuple[dict[str, Any], list[Event]]:
    """Return the state with `player`'s standing policy sealed (committed in this phase's record,
    shown to them alone) in place of any earlier one."""
    box, events = seal_choice(sealed_box(f"policy-{player}", [player]), player, policy, dice)
    events = [
        replace(e, text=f"You sealed your standing policy: {words.policy(policy)}") if e.kind == "sealed.choice" else e
        for e in events
    ]
    return {
        **state,
        "policies": {**state["policies"], player: {"opening": box["sealed"][player]}},
    }, events


def resolve_step(
    state: dict[str, Any], orders: Mapping[str, Mapping[str, Any]], dice: Dice
) -> tuple[dict[str, Any], list[Event]]:
    """Resolve a phase of the sequence; return the state of the next phase and the events."""
    turn = sequence.position(state)[0]
    tables = Tables(parse_tables(state["tables"], "the game's configuration") if state["tables"] else {})
    events: list[Event] = list(procedure.before_orders(state, tables, dice))
    state, happened = _leaders_back(state)
    events += happened
    for player in sorted(orders):
        order = orders[player]
        for request in order.get("rolls") or []:
            events += roll_request(player, request, tables, dice, state.get("lists", {}), [])
        if order.get("declaration") is not None:
            events.append(
                Event(
                    "declaration.revealed",
                    f"{player} declared: {order['declaration']}",
                    {"player": player, "declaration": order["declaration"]},
                )
            )
        if order.get("note"):
            events.append(Event("note", f"{player} notes: {order['note']}", {"player": player, "note": order["note"]}))
        if order.get("policy") is not None:
            state, happened = seal_policy(state, player, order["policy"], dice)
            events += happened
        for move in order.get("moves") or []:
            unit = state["units"][move["unit"]]
            state = {**state, "units": {**state["units"], move["unit"]: {**unit, "area": move["to"]}}}
            events.append(
                Event("unit.moved", f"{player} moves {move['unit']} from {unit['area']} to {move['to']}", dict(move))
            )
        for attack in order.get("attack") or []:
            state, happened = battles.declare(state, player, attack, turn, dice)
            events += happened
        for move in order.get("fleet_moves") or []:
            state, happened = _move_fleets(state, player, move)
            events += happened
        state, happened = _economy_orders(state, player, order)
        events += happened
        state, happened = _peace_orders(state, player, order)
        events += happened
    state, happened = _phase_effects(state)
    events += happened
    state = {**state, "round": state["round"] + 1}
    state, happened = procedure.after_orders(state, orders, [e for e in events if e.kind.startswith("roll")])
    return state, events + happened


def _move_fleets(state: dict[str, Any], player: str, move: Mapping[str, Any]) -> tuple[dict[str, Any], list[Event]]:
    units = dict(state["units"])
    to = move["path"][-1]
    carrying = list(move.get("carrying") or [])
    for unit_id in [*move["fleets"], *carrying]:
        units[unit_id] = {**units[unit_id], "area": to}
    allowance = ""
    if state["rules"]["large_fleets"]:
        ma = naval.fleet_movement_allowance(state["fleet_movement"], len(move["fleets"]), bool(carrying))
        allowance = f" (movement allowance {ma}, 12.2.3)"
    text = f"{player} moves {', '.join(move['fleets'])} through {', '.join(move['path'])}{allowance}"
    return {**state, "units": units}, [Event("fleets.moved", text, {"player": player, **dict(move)})]


def _economy_orders(state: dict[str, Any], player: str, order: Mapping[str, Any]) -> tuple[dict[str, Any], list[Event]]:
    events: list[Event] = []
    when = date(state)
    for convert in order.get("militia") or []:
        unit = state["units"][convert["unit"]]
        power = unit["power"]
        factors = dict(unit["factors"])
        factors["militia"] -= convert["factors"]
        cost = economy.conversion_cost(convert["factors"])
        due = economy.converted_arrive(when)
        state = {
            **state,
            "units": {**state["units"], convert["unit"]: {**unit, "factors": factors}},
            "powers": {
                **state["powers"],
                power: {**state["powers"][power], "money": state["powers"][power]["money"] - cost},
            },
            "conversions": [
                *state["conversions"],
                {"unit": convert["unit"], "factors": convert["factors"], "due": due},
            ],
        }
        events.append(
            Event(
                "militia.converted",
                f"{power} converts {convert['factors']} militia of {convert['unit']} for {cost} money points; "
                f"regular infantry due {due} (12.1.1)",
                {"power": power, **dict(convert), "due": due},
            )
        )
    for build in order.get("build_ships") or []:
        entry = {"player": player, "ships": build["ships"], "ports": list(build["ports"]), "date": when}
        state = {**state, "building": [*state["building"], entry]}
        events.append(
            Event(
                "ships.building",
                f"{player} builds {build['ships']} ship(s) at {', '.join(build['ports'])} (12.1.2, common knowledge)",
                entry,
            )
        )
    if order.get("manipulation") is not None:
        kept = dict(state["manipulation"])
        for power in powers_of(state, player):
            kept[power] = {**kept[power], "next": order["manipulation"]}
        state = {**state, "manipulation": kept}
        events.append(
            Event(
                "economy.manipulation-set",
                f"{player} sets economic manipulation to {order['manipulation']} for the next Economic Phase (12.5.2)",
                {"player": player, "square": order["manipulation"]},
            )
        )
    return state, events


def _peace_orders(state: dict[str, Any], player: str, order: Mapping[str, Any]) -> tuple[dict[str, Any], list[Event]]:
    events: list[Event] = []
    mine = powers_of(state, player)
    if order.get("peace"):
        other = order["peace"]["with"]
        made = {
            "parties": sorted([mine[0], other]),
            "victor": order["peace"].get("victor"),
            "c5": bool(order["peace"].get("c5")),
            "b6": bool(order["peace"].get("b6")),
            "land_phases": 0,
            "date": date(state),
        }
        powers = dict(state["powers"])
        for a, b in ((mine[0], other), (other, mine[0])):
            if a in powers:
                powers[a] = {**powers[a], "at_war": [p for p in powers[a]["at_war"] if p != b]}
        state = {**state, "powers": powers, "peaces": [*state["peaces"], made]}
        events.append(Event("peace.made", f"peace between {' and '.join(made['parties'])}", made))
    for grantee in order.get("grant_access") or []:
        entry = {"grantor": mine[0], "to": grantee}
        state = {**state, "access": [*state["access"], entry]}
        events.append(Event("access.granted", f"{mine[0]} grants {grantee} voluntary access", entry))
    if order.get("cede"):
        events.append(
            Event(
                "minor.ceded", f"{player} cedes {order['cede']['minor']} to {order['cede']['to']}", dict(order["cede"])
            )
        )
    for entry in order.get("depots") or []:
        events.append(
            Event("depot.supplies", f"depot {entry['depot']} supplies {', '.join(entry['units'])}", dict(entry))
        )
    return state, events


def _phase_effects(state: dict[str, Any]) -> tuple[dict[str, Any], list[Event]]:
    """Return the state after what the open phase does by itself under the options played."""
    events: list[Event] = []
    rules = state["rules"]
    if is_phase(state, "economic"):
        if rules["naval_raiding"] and "britain" in state["powers"] and "colonial_trade" in state["powers"]["britain"]:
            enemies = set(state["powers"]["britain"]["at_war"])
            fleets = [
                (u["power"], u["area"])
                for u in state["units"].values()
                if u["type"] == "fleet" and u.get("ships", 0) > 0
            ]
            raided = naval.raided_areas(fleets, enemies, set(state["sea_areas_next_to_britain"]))
            trade = state["powers"]["britain"]["colonial_trade"]
            after = naval.colonial_trade_after_raiding(trade, raided)
            events.append(
                Event(
                    "economy.raiding",
                    f"naval raiding: enemy fleets in {raided} sea area(s) next to Great Britain; "
                    f"British colonial trade {trade} -> {after} (12.2.2)",
                    {"raided": raided, "trade": trade, "after": after},
                )
            )
        if rules["american_trade"]:
            events += _american_trade(state)
        if rules["economic_manipulation"]:
            state, happened = _manipulate(state)
            events += happened
    if is_phase(state, "land"):
        state = {**state, "peaces": [{**p, "land_phases": p["land_phases"] + 1} for p in state["peaces"]]}
    if is_phase(state, "reinforcement"):
        state, happened = _reinforce(state)
        events += happened
    return state, events


def _manipulate(state: dict[str, Any]) -> tuple[dict[str, Any], list[Event]]:
    """Record each power's economic manipulation (12.5.1), then take the setting for the next."""
    display = state["supplied"].get("economic_display")
    if display is None:
        raise NotSupplied(
            "economic_display",
            "the Manipulation Step needs the Economic Manipulation Display",
            ("referee supply GAMEDIR economic_display.yaml",),
        )
    events = []
    powers = dict(state["powers"])
    kept = dict(state["manipulation"])
    for power, setting in sorted(kept.items()):
        square = display["squares"][setting["square"]]
        powers[power] = {**powers[power], "money": powers[power]["money"] + square.get("money", 0)}
        events.append(
            Event(
                "economy.manipulation",
                f"{power}'s economic manipulation at {setting['square']}: PSA {square.get('psa', 0):+d}, "
                f"money {square.get('money', 0):+d}, manpower {square.get('manpower', 0):+d} (12.5.1)",
                {"power": power, **setting, **square},
            )
        )
        kept[power] = {"square": setting["next"], "next": setting["next"]}
    return {**state, "powers": powers, "manipulation": kept}, events


def _reinforce(state: dict[str, Any]) -> tuple[dict[str, Any], list[Event]]:
    """Converted militia arrives; forces past 12.4's deadlines in a former enemy's territory are
    demobilised or scuttled unless granted voluntary access (12.4.3)."""
    events = []
    when = date(state)
    units = dict(state["units"])
    due = [c for c in state["conversions"] if c["due"] <= when]
    for convert in due:
        unit = units[convert["unit"]]
        factors = {**unit["factors"], "infantry": unit["factors"].get("infantry", 0) + convert["factors"]}
        units[convert["unit"]] = {**unit, "factors": factors}
        events.append(
            Event(
                "militia.arrived",
                f"{convert['factors']} regular infantry from converted militia join {convert['unit']} (12.1.1)",
                dict(convert),
            )
        )
    if state["rules"]["peace_limited_access"]:
        for made in state["peaces"]:
            phases = made["land_phases"] + (1 if state["peace_phase_counts"] else 0)
            for a, b in (made["parties"], made["parties"][::-1]):
                granted = any(g["grantor"] == b and g["to"] == a for g in state["access"])
                home = set(state["powers"].get(b, {}).get("home", []))
                victor_c5 = made["c5"] and made["victor"] == a
                for unit_id, unit in sorted(units.items()):
                    if unit["power"] != a or unit["area"] not in home or unit.get("demobilised"):
                        continue
                    must = peace.must_be_out(phases, unit["type"] == "garrison", victor_c5, False)
                    if peace.fate_of_stayers(must, granted) == "demobilise-or-scuttle":
                        units[unit_id] = {**unit, "demobilised": True}
                        events.append(
                            Event(
                                "peace.demobilised",
                                f"{unit_id} is still in {b}'s territory past 12.4's deadline: "
                                "demobilised or scuttled (12.4.3)",
                                {"unit": unit_id},
                            )
                        )
    return {**state, "units": units, "conversions": [c for c in state["conversions"] if c not in due]}, events


def _american_trade(state: Mapping[str, Any]) -> list[Event]:
    """Return the call for Britain's American trade roll when any power is denied American trade
    (12.9): by Britain (`american_trade: denied` in the situation) or by peace condition B.6."""
    by_britain = sorted(p for p, data in state["powers"].items() if data.get("american_trade") == "denied")
    by_b6 = sorted(p for made in state["peaces"] if made.get("b6") for p in made["parties"] if p != made.get("victor"))
    if not economy.must_roll_american_trade(by_britain, by_b6):
        return []
    denied = ", ".join(sorted({*by_britain, *by_b6}))
    text = f"{denied} denied American trade: Britain makes the core rules' American trade roll this step (12.9)"
    return [Event("economy.american-trade", text, {"by_britain": by_britain, "by_b6": by_b6})]


def _leaders_back(state: dict[str, Any]) -> tuple[dict[str, Any], list[Event]]:
    """Return wounded leaders to the map once their complete months are over (12.7): a leader
    wounded for N months in month M is back in month M+N+1."""
    when = date(state)
    back = sorted(
        n for n, leader in state["leaders"].items() if leader["status"] == "wounded" and leader["back"] <= when
    )
    if not back:
        return state, []
    kept = dict(state["leaders"])
    for name in back:
        kept[name] = {key: value for key, value in kept[name].items() if key != "back"} | {"status": "active"}
    return {**state, "leaders": kept}, [
        Event("leaders.back", f"{', '.join(back)} back from wounds (12.7)", {"leaders": back})
    ]
