"""Rules of `empires-in-arms`: a game of Empires in Arms run as a procedure journal, with the
optional rules of chapter 12.0 adjudicated by the module.

The core game's sequence of play, tables and procedures come from the referee's own copy of the
book: the sequence and roll tables as the procedure journal's options (players request rolls on
the tables, declare and note), the Combat Resolution Table, the Guard Commitment Table, the
Economic Manipulation Display and the competitive-roll procedure as data the referee supplies.
Each of chapter 12.0's options is a named option, off by default as in the book; switched on,
the module applies it wherever it acts: combats declared in a phase are fought round by round
in phases of their own (or at once, with standing policies), losses shared between
nationalities, leader casualties rolled in the adjudication that ends a combat.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.empires_in_arms import battles, checks, guard, schemas
from games.empires_in_arms.chapter import PACKAGE, RULES, parse_rules, rule_of
from games.empires_in_arms.combat import SIDES
from games.empires_in_arms.supplies import parse_given
from games.empires_in_arms.turn import date, powers_of, resolve_step
from referee.kit import (
    Dice,
    Event,
    GameDataError,
    PhaseSpec,
    Problem,
    Secret,
    Tables,
    load_data,
    parse_tables,
)
from referee.kit.procedure import procedure, sequence
from referee.kit.procedure.rolls import roll_problems

SCENARIOS = ("open", "coalition")
OPTIONS = {
    **{
        key: f"rule {info['rule']}, {info['title']}: true to play with it (off by default, as in the book)"
        for key, info in RULES.items()
    },
    "rounds": "how many turns (months) the game lasts (leave out for no limit)",
    "tables": "the referee's roll tables for the core game's procedures (a tables file or mapping)",
    "sequence": "the phases of a turn, from the referee's copy of the core rules: [{name, title, active, deadline}]",
    "calendar": "turn labels {start, per_year} (the game's own dates are kept by `start`)",
    "tracks": "public counters {ID: {title, start, min, max, ends_game_at}}",
    "lists": "public lists {ID: [NAME, ...]}",
    "start": "the first turn's month, YYYY-MM (one turn a month)",
    "powers": "{power: {player, home: [areas], allies: [powers], at_war: [powers], money, colonial_trade}}",
    "minors": "{minor: {controller, british_since: YYYY-MM or null}}",
    "units": "{id: {power, nation, type: corps|fleet|garrison, area, factors or ships, morale, movement, strategic}}",
    "leaders": "{id: {power, with: unit id, strategic, tactical, tactical_max}}",
    "phase_names": "which of the sequence's phases are the land, naval, economic and reinforcement phases "
    "(default: phases of those names)",
    "fleet_movement": "a stack's movement allowance before 12.2.3's reductions "
    "(default 7, as the chapter's example reads)",
    "withdrawal_die": "the die an outnumbered defender rolls against its strategic rating (12.3.10; default 1d6)",
    "peace_phase_counts": "whether the Land Phase in which peace is made counts toward 12.4's three and six "
    "(default false)",
    "side_morale": "a side's morale level: lowest (its lowest unit's, the default) or weighted (its units' "
    "mean weighted by factors, rounded down to the tenth)",
    "sea_areas_next_to_britain": "the sea areas adjacent to Great Britain, for naval raiding (12.2.2)",
    "combat_results": "the Combat Resolution Table, as `referee supply` takes it (or supply it later)",
    "guard_table": "the Guard Commitment Table, as `referee supply` takes it (or supply it later)",
    "economic_display": "the Economic Manipulation Display, as `referee supply` takes it (or supply it later)",
    "competitive_rolls": "the competitive-roll procedure, as `referee supply` takes it (or supply it later)",
}
PHASE_KINDS = ("land", "naval", "economic", "reinforcement")
EXAMPLE = {"rolls": [{"label": "first-roll", "dice": "2d6", "purpose": "what this roll decides"}]}


def roles(scenario: str, options: Mapping[str, Any]) -> tuple[str, ...] | None:
    """Return the players: the coalition scenario's three powers, or any names in an open game."""
    if scenario == "coalition":
        return ("britain", "france", "russia")
    return None


def setup(scenario: str, players: Sequence[str], options: Mapping[str, Any]) -> dict[str, Any]:
    """Return the state before turn 1, every option and situation checked."""
    if scenario not in SCENARIOS:
        raise GameDataError(f"unknown scenario {scenario!r}; scenarios: {', '.join(SCENARIOS)}")
    base = load_data(PACKAGE, f"scenarios/{scenario}.yaml") if scenario != "open" else {}
    situation = {key: options.get(key, base.get(key)) for key in ("start", "powers", "minors", "units", "leaders")}
    rounds = options.get("rounds")
    if rounds is not None and (isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1):
        raise GameDataError(f"option 'rounds' must be a whole number of at least 1, got {rounds!r}")
    tables = options.get("tables") or {}
    steps = procedure.setup(
        options, players, Tables(parse_tables(tables, "the game's configuration") if tables else {})
    )
    state: dict[str, Any] = {
        "round": 1,
        "rounds": rounds,
        "players": sorted(players),
        "tables": tables,
        "rules": parse_rules(options),
        "start": _month(situation["start"] or "1805-01", "start"),
        "powers": _powers(situation["powers"] or {}, players),
        "minors": dict(situation["minors"] or {}),
        "units": _units(situation["units"] or {}),
        "leaders": {
            name: {**leader, "status": "active"} for name, leader in sorted((situation["leaders"] or {}).items())
        },
        "phase_names": {kind: (options.get("phase_names") or {}).get(kind, kind) for kind in PHASE_KINDS},
        "fleet_movement": int(options.get("fleet_movement", 7)),
        "withdrawal_die": str(options.get("withdrawal_die", "1d6")),
        "peace_phase_counts": bool(options.get("peace_phase_counts", False)),
        "side_morale": _side_morale(options.get("side_morale", "lowest")),
        "sea_areas_next_to_britain": sorted(options.get("sea_areas_next_to_britain") or []),
        "supplied": parse_given(options),
        "combats": [],
        "serial": 0,
        "policies": {},
        "peaces": [],
        "access": [],
        "building": [],
        "manipulation": {power: {"square": "0", "next": "0"} for power in sorted(situation["powers"] or {})},
        "conversions": [],
        "last": [],
        **steps,
    }
    for unit_id, unit in state["units"].items():
        if unit["power"] not in state["powers"]:
            raise GameDataError(f"units.{unit_id}.power: {unit['power']!r} is not a power of the game")
    for name, leader in state["leaders"].items():
        if leader.get("with") not in state["units"]:
            raise GameDataError(f"leaders.{name}.with: {leader.get('with')!r} is not a unit of the game")
    return state


def _month(value: Any, where: str) -> str:
    text = str(value)
    parts = text.split("-")
    if len(parts) != 2 or not all(p.isdigit() for p in parts) or not 1 <= int(parts[1]) <= 12:
        raise GameDataError(f"option {where!r} must be a month YYYY-MM, got {value!r}")
    return f"{int(parts[0]):04d}-{int(parts[1]):02d}"


def _powers(raw: Mapping[str, Any], players: Sequence[str]) -> dict[str, Any]:
    found = {}
    for power, data in sorted(raw.items()):
        if data.get("player") not in players:
            raise GameDataError(
                f"powers.{power}.player: {data.get('player')!r} does not play; players: {', '.join(players)}"
            )
        found[power] = {
            "player": data["player"],
            "home": sorted(data.get("home") or []),
            "allies": sorted(data.get("allies") or []),
            "at_war": sorted(data.get("at_war") or []),
            "money": int(data.get("money", 0)),
            **({"american_trade": data["american_trade"]} if "american_trade" in data else {}),
            **({"colonial_trade": int(data["colonial_trade"])} if "colonial_trade" in data else {}),
        }
    return found


def _units(raw: Mapping[str, Any]) -> dict[str, Any]:
    found = {}
    for unit_id, data in sorted(raw.items()):
        unit = {key: data[key] for key in ("power", "nation", "type", "area") if key in data}
        missing = [key for key in ("power", "nation", "type", "area") if key not in unit]
        if missing:
            raise GameDataError(f"units.{unit_id}: give its {', '.join(missing)}")
        if unit["type"] == "fleet":
            unit["ships"] = int(data.get("ships", 0))
        else:
            unit["factors"] = {kind: int(count) for kind, count in sorted((data.get("factors") or {}).items())}
        for key in ("morale", "movement", "strategic"):
            if key in data:
                unit[key] = data[key]
        found[unit_id] = unit
    return found


def _side_morale(value: Any) -> str:
    if value not in ("lowest", "weighted"):
        raise GameDataError(
            f"option 'side_morale' must be lowest or weighted, got {value!r}",
            hints=("leave it out for a side's lowest unit's morale",),
        )
    return str(value)


def phase(state: Mapping[str, Any]) -> PhaseSpec | None:
    """Return the open phase: a combat's round or loss proposals while a combat waits, else the
    sequence's phase; None once the last turn is played."""
    turn, step = sequence.position(state)
    waiting = battles.awaited(state)
    if waiting is not None:
        name, active = waiting
        combat = state["combats"][0]
        is_round = name.startswith("combat-")
        return PhaseSpec(
            turn=combat["turn"],
            name=name,
            active=tuple(active),
            sealed=True,
            schema=(schemas.NAVAL_ROUND if combat["kind"] == "naval" else schemas.ROUND)
            if is_round
            else schemas.LOSSES,
            default_orders={},
            example=None,
            title=f"combat {combat['id']} at {combat['area']}, "
            + (f"round {combat['round']}" if is_round else f"losses of round {combat['round'] - 1}"),
        )
    if (state["rounds"] is not None and turn > state["rounds"]) or procedure.is_over(state):
        return None
    added = procedure.order_fields(state)
    return PhaseSpec(
        turn=turn,
        name="round" if step is None else step["name"],
        active=tuple(state["players"] if step is None else step["active"]),
        sealed=True,
        schema={**schemas.SEQUENCE, "fields": {**schemas.SEQUENCE_FIELDS, **added}},
        default_orders={},
        example=EXAMPLE,
        title=procedure.spec_title(state) + f" ({date(state)})",
    )


def _tables(state: Mapping[str, Any]) -> Tables:
    return Tables(parse_tables(state["tables"], "the game's configuration") if state["tables"] else {})


def validate(state: Mapping[str, Any], player: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return the problems with a player's orders, each rule's refusals citing it."""
    waiting = battles.awaited(state)
    if waiting is not None:
        if waiting[0].startswith("combat-"):
            return checks.round_problems(state, player, orders)
        return checks.loss_problems(state, player, orders)
    problems = roll_problems(_tables(state), state.get("lists", {}), [], state["players"], player, orders)
    problems += procedure.order_problems(state, orders)
    areas = {unit_id: unit["area"] for unit_id, unit in state["units"].items()}
    for index, move in enumerate(orders.get("moves") or []):
        unit = state["units"].get(move["unit"])
        if unit is None or unit["power"] not in powers_of(state, player) or unit.get("demobilised"):
            problems.append(
                Problem("illegal.not-yours", f"orders.moves[{index}].unit", f"{move['unit']} is not a unit of yours")
            )
        elif unit["type"] == "fleet":
            problems.append(Problem("illegal.unit-kind", f"orders.moves[{index}].unit", "move fleets with fleet_moves"))
        else:
            areas[move["unit"]] = move["to"]
    engaged = {u for c in state["combats"] for s in SIDES for u in c["sides"][s]["units"]}
    for index, attack in enumerate(orders.get("attack") or []):
        problems += checks.attack_problems(state, player, attack, f"orders.attack[{index}]", areas, engaged)
    for index, move in enumerate(orders.get("fleet_moves") or []):
        problems += checks.fleet_problems(state, player, move, f"orders.fleet_moves[{index}]")
    problems += checks.economy_problems(state, player, orders)
    problems += checks.peace_problems(state, player, orders)
    if orders.get("policy", {}).get("guard"):
        pledge = orders["policy"]["guard"]
        if not state["rules"]["guard_commitment"]:
            problems.append(
                Problem(
                    "illegal.option-off", "orders.policy.guard", "guard commitment (12.3.4) is not played in this game"
                )
            )
        elif not guard.shifts_allowed(pledge["nation"], 99) or pledge["shift"] not in guard.shifts_allowed(
            pledge["nation"], 99
        ):
            problems.append(
                Problem(
                    "illegal.guard",
                    "orders.policy.guard",
                    f"{pledge['nation']} guard may not be committed for +{pledge['shift']} (12.3.4)",
                )
            )
    return problems


def resolve(
    state: Mapping[str, Any], orders: Mapping[str, Mapping[str, Any]], dice: Dice
) -> tuple[dict[str, Any], list[Event]]:
    """Resolve the open phase: a combat's round or loss proposals, or the sequence's phase (the
    journal's rolls, declarations and notes, then the chapter 12.0 orders in name order); then
    fight every round standing policies settle without mail."""
    new: dict[str, Any] = _thaw(state)
    waiting = battles.awaited(new)
    if waiting is not None:
        if waiting[0].startswith("combat-"):
            new, events = battles.run_round(new, orders, dice)
        else:
            new, events = battles.settle_losses(new, orders, dice)
    else:
        new, events = resolve_step(new, orders, dice)
    new, more = battles.advance(new, dice)
    events += more
    new["last"] = [{"kind": e.kind, "text": e.text} for e in events if e.visible_to == "all"][-40:]
    return new, events


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_thaw(v) for v in value]
    return value


def view(state: Mapping[str, Any], player: str | None) -> dict[str, Any]:
    """Return what a player (None: the public) sees: everything on the map is public in Empires in
    Arms; a standing policy only to its writer until used."""
    policies = {}
    for who, kept in sorted(state["policies"].items()):
        if kept.get("revealed") or who == player:
            policies[who] = {"policy": kept["opening"]["value"], "revealed": bool(kept.get("revealed"))}
            if kept.get("revealed"):
                policies[who]["opening"] = kept["opening"]
        else:
            policies[who] = {"sealed": True}
    return {
        "game": "empires-in-arms",
        "you": player,
        "your_powers": powers_of(state, player) if player else [],
        "date": date(state),
        "options_in_play": sorted(f"{rule_of(k)} {k}" for k, on in state["rules"].items() if on),
        "powers": state["powers"],
        "minors": state["minors"],
        "units": state["units"],
        "leaders": state["leaders"],
        "combats": [_combat_view(c) for c in state["combats"]],
        "policies": policies,
        "peaces": state["peaces"],
        "access": state["access"],
        "building": state["building"],
        "manipulation": state["manipulation"],
        "conversions": state["conversions"],
        "supplied": sorted(state["supplied"]),
        "last": state["last"],
        **procedure.view(state),
    }


def _combat_view(combat: Mapping[str, Any]) -> dict[str, Any]:
    keys = (
        "id",
        "turn",
        "kind",
        "area",
        "terrain",
        "sides",
        "round",
        "morale",
        "morale_loss",
        "broken",
        "guard_used",
        "stage",
        "leaders",
    )
    shown = {key: combat[key] for key in keys}
    if combat.get("pending"):
        shown["losses_to_share"] = combat["pending"]
    return shown


def secrets(state: Mapping[str, Any]) -> list[Secret]:
    """Return the hidden leaves: each standing policy not yet used, seen by its writer alone."""
    found: list[Secret] = []
    for who, kept in state["policies"].items():
        if not kept.get("revealed"):
            for key in ("value", "salt"):
                found.append((f"/policies/{who}/opening/{key}", (who,)))
    return found


def check(state: Mapping[str, Any]) -> list[str]:
    """Return broken invariants: negative factors or ships, a combat naming a unit that is gone."""
    problems = []
    for unit_id, unit in state["units"].items():
        if unit.get("ships", 0) < 0 or any(v < 0 for v in unit.get("factors", {}).values()):
            problems.append(f"unit {unit_id} has fewer than no factors")
    for combat in state["combats"]:
        for side in SIDES:
            problems += [
                f"combat {combat['id']} names unknown unit {u}"
                for u in combat["sides"][side]["units"]
                if u not in state["units"]
            ]
    return problems + procedure.check(state)
