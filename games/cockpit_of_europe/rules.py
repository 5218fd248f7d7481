"""Rules of `cockpit-of-europe`: the exclusive rules of Cockpit of Europe (Lace Wars series, 3rd
edition) adjudicated, the board and the series procedures left to the players.

The game opens with a set-up phase (each side's set-up, campaign plan and the Descent decision
sealed). Then every turn runs four phases: start of turn (duels, the Pox, the first turn of a
year's resets), the Administrative Phase (the start-of-administration rolls in the order the
option admin_rolls gives, the strategic events, the sides' administration), the start of the
Operations Phase (flooding, the Random Event), and the Operations Phase (the series procedures
as labelled rolls, and the interrupts of the enemy's move as sealed standing orders).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from games.cockpit_of_europe import arithmetic, calendar, checks, events, invasions, orders, secrecy, turn_end
from games.cockpit_of_europe.ledger import prestige, roll_on
from games.cockpit_of_europe.model import (
    SCENARIOS,
    SIDES,
    admin_only_turn,
    labels,
    new_state,
    opening_turn,
    tables_of,
)
from games.cockpit_of_europe.model import turn_name as turn_name
from referee.kit import Dice, Event, PhaseSpec, Problem, schema
from referee.kit.procedure.rolls import possessive, roll_request

EXAMPLES: dict[str, dict[str, Any]] = {
    "set-up": {"setup": "my set-up, as the OOB booklet gives it", "plan": "my campaign plan and its HQ"},
    "start-of-turn": {},
    "administration": {},
    "start-of-operations": {},
    "operations": {},
}


def setup(scenario: str, players: Sequence[str], options: Mapping[str, Any]) -> dict[str, Any]:
    """Return the state before the set-up phase."""
    return new_state(scenario, players, options)


def phase(state: Mapping[str, Any]) -> PhaseSpec | None:
    """Return the open phase, or None once the game has ended."""
    if state["ended"] is not None:
        return None
    name = state["phase"]
    example: dict[str, Any] = dict(EXAMPLES.get(name, {}))
    return PhaseSpec(
        turn=state["turns_played"] + 1,
        name=name,
        active=tuple(SIDES),
        sealed=True,
        schema=orders.schema(name),
        default_orders={},
        example=example,
        title=title(state),
    )


def title(state: Mapping[str, Any]) -> str:
    """Return the open phase's title: "set-up" or "April-May 1745 (turn 3): Administrative Phase"."""
    if state["stage"] == "set-up":
        return f"{SCENARIOS[state['scenario']]['title']}: set-up"
    only = " (the turn's only phase: 9.533)" if calendar.now(state) == state.get("admin_only_turn") else ""
    return f"{turn_name(state)} (turn {state['turns_played'] + 1}): {calendar.phase_title(state['phase'])}{only}"


def validate(state: Mapping[str, Any], side: str, given: Mapping[str, Any]) -> list[Problem]:
    """Return the problems with a side's orders."""
    shape = schema.check(given, orders.schema(state["phase"]))
    if shape:
        return shape
    return orders.problems(state, side, given)


def resolve(
    state: Mapping[str, Any], given: Mapping[str, Mapping[str, Any]], dice: Dice
) -> tuple[dict[str, Any], list[Event]]:
    """Adjudicate the open phase; return the new state and what happened."""
    new: dict[str, Any] = copy.deepcopy(_plain(state))
    tables = tables_of(new)
    happened: list[Event] = []
    rolled: list[dict[str, Any]] = []
    step = new["phase"]
    by_side = {side: dict(given.get(side) or {}) for side in SIDES}
    if step == "set-up":
        happened += _set_up(new, by_side, tables, dice)
    elif step == "start-of-turn":
        happened += _start_of_turn(new, by_side, tables, dice)
    elif step == "administration":
        happened += _administration(new, by_side, tables, dice)
    elif step == "start-of-operations":
        happened += _start_of_operations(new, by_side, tables, dice)
    else:
        happened += _operations(new, by_side, tables, dice)
    for side in SIDES:
        order = by_side[side]
        for request in order.get("rolls") or []:
            made = roll_request(side, request, tables, dice, {}, new["notes"])
            happened += made
        if order.get("reveal"):
            new["notes"], opened = secrecy.open_notes(new, side, order["reveal"], f"{side} opens a sealed note")
            happened += opened
        if order.get("note"):
            happened.append(Event("note", f"{side} notes: {order['note']}", {"side": side, "note": order["note"]}))
    for event in happened:
        if event.kind == "roll" and event.is_visible_to(None):
            rolled.append(_summary(event.data))
    new["last_rolls"] = rolled
    if step != "set-up":
        happened += turn_end.advance(new)
    if new["ended"] is not None:
        for side in SIDES:
            new["notes"], opened = secrecy.open_notes(
                new, side, secrecy.sealed_ids(new, side, ""), "The game is over: every sealed note opens"
            )
            happened += opened
    new["round"] += 1
    return new, happened


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _summary(roll: Mapping[str, Any]) -> dict[str, Any]:
    lookup = roll.get("lookup") or {}
    return {"label": roll["label"], "values": list(lookup.get("values", [])), "result": lookup.get("result")}


# -- the phases ---------------------------------------------------------------------------------


def _set_up(state: dict[str, Any], given: Mapping[str, Any], tables: Any, dice: Dice) -> list[Event]:
    """Seal each side's set-up, plan and the Descent decision; roll the Cantabres (5.29); place
    the game on the scenario's opening turn."""
    happened: list[Event] = []
    for side in SIDES:
        order = given[side]
        for key, note_id in (("setup", "set-up"), ("plan", "plan-1"), ("descent", "descent")):
            if key in order:
                state["notes"], sealed = secrecy.seal(state, side, note_id, order[key], dice)
                happened += sealed
        if order.get("candidates"):
            state["candidates"][side], sealed = secrecy.commit_candidates(state, side, order["candidates"], 0, dice)
            happened += sealed
    found, event = roll_on(tables, "cantabres", "check/cantabres", dice, "Volontaires des Cantabres (5.29)")
    state["cantabres"] = "usable" in checks.effects(found)
    happened.append(event)
    state["stage"] = "play"
    state["turn"] = opening_turn(state)
    state["phase"] = calendar.PHASE_NAMES[0]
    if state["invasions"]["descent"]["possible"]:
        happened += _descent_decided(state)
    state["first_turn"] = calendar.now(state)
    if labels(state) is None:
        happened.append(
            Event(
                "calendar.stand-in",
                "The turn record track is not supplied: turns are numbered within the year, and the scenario "
                "opens on turn 1 of its year (turn 2 after the Descent's Administrative Phase on turn 1) "
                "(supply `calendar` to place it on its book turn)",
                {},
            )
        )
    return happened


def _descent_decided(state: dict[str, Any]) -> list[Event]:
    """Open France's pre-game Descent decision (6.25, 6.251): the game's first turn tells it
    anyway, for a game playing the Descent begins with the Administrative Phase of the
    March-April turn, the only phase of that turn (9.139, 9.533)."""
    state["notes"], happened = secrecy.open_notes(
        state, "france", ["descent"], "France's pre-game Descent decision opens (6.25, 6.251)"
    )
    held = secrecy.note(state, "france", "descent")
    if held is None or held["text"] != "launch":
        state["invasions"]["descent"]["decided"] = "decline"
        if held is None:
            happened.append(Event("invasion.declined", "France sealed no Descent decision: it is declined (6.251)", {}))
        return happened
    state["invasions"]["descent"]["decided"] = "launch"
    state["turn"] = admin_only_turn(state)
    state["phase"] = "administration"
    state["admin_only_turn"] = calendar.now(state)
    happened.append(
        Event(
            "descent.opening",
            f"The Descent on England is played: the game begins with the Administrative Phase of "
            f"{turn_name(state)}, the only phase of that turn (9.139, 9.533); the scenario's first full turn "
            f"follows",
            {"turn": calendar.now(state)},
        )
    )
    return happened


def _start_of_turn(state: dict[str, Any], given: Mapping[str, Any], tables: Any, dice: Dice) -> list[Event]:
    """The start of a turn: the first turn of a year's resets (5.265, 3.31), the Pox's recovery
    rolls (7.02), duel challenges (7.035), the 1745 scenario's Jacobite check (9.239)."""
    happened: list[Event] = [Event("turn.started", f"{turn_name(state)} begins", {"turn": calendar.now(state)})]
    state["le_roi"]["whim"] = None  # a Whim binds the turn it is rolled in (3.16)
    if calendar.is_first_of_year(state["turn"]) or calendar.now(state) == state["first_turn"]:
        if state["campaign"] or state["milice"]["original"] is None:
            happened += checks.milice_year(state)
        if state["campaign"] and state["year"] > 1744 and calendar.is_first_of_year(state["turn"]):
            frankfort = state["supplied"].get("convention-of-frankfort")
            rates = f": {frankfort['exchange']}" if frankfort else " (the chart is not supplied)"
            happened.append(
                Event("pow.exchange", f"General POW Exchange by the Convention of Frankfort (3.31){rates}", {})
            )
    rising = state["invasions"]["rising"]["start"]
    if (
        calendar.is_first_of_year(state["turn"])
        and rising is not None
        and calendar.from_absolute(rising)[0] == state["year"] - 1
    ):
        happened.append(
            Event(
                "ecossais-royaux",
                "L'Ecossais Royaux arrives, the year after the Rising, taking 1 Irish SP that becomes Scottish; "
                "d'Irelandois' maximum is now 6 SPs (5.252-5.253)",
                {},
            )
        )
    if state["campaign"] and (state["year"], state["turn"]) == (1745, 1) and not state["cumberland"]:
        state["cumberland"] = True
        happened.append(Event("cumberland", "The Duke of Cumberland arrives as the Allied Captain-General (3.122)", {}))
    happened += events.timers_due(state)
    happened += checks.pox_recovery(state, tables, dice)
    number = 0
    for side in SIDES:
        order = given[side]
        if order.get("candidates"):
            state["candidates"][side], sealed = secrecy.commit_candidates(
                state, side, order["candidates"], calendar.now(state), dice
            )
            happened += sealed
        for challenge in order.get("challenge") or []:
            pair = [challenge["challenger"], challenge["target"]]
            if sorted(pair) not in [sorted(p) for p in state["enemies"]]:
                continue  # the other side's challenge of the same pair was fought first
            number += 1
            sides = [state.get("enemy_sides", {}).get(name, side) for name in pair]
            happened.append(
                Event("duel.challenge", f"{pair[0]} challenges {pair[1]} to a duel (7.035)", {"pair": pair})
            )
            happened += checks.duel(state, pair, sides, dice, number)
    happened += checks.jacobite_1745(state, tables, dice)
    return happened


ADMIN_ROLLS = {
    "kings-ennui": lambda state, tables, dice, given: _ennui_or_recall(state, tables, dice, given),
    "russian-entry": lambda state, tables, dice, given: checks.russian_entry(state, tables, dice),
    "element-delay": lambda state, tables, dice, given: _element_delay(state, tables, dice, given),
}


def _ennui_or_recall(state: dict[str, Any], tables: Any, dice: Dice, given: Mapping[str, Any]) -> list[Event]:
    if not given["france"].get("le_roi_recall"):
        return checks.kings_ennui(state, tables, dice)
    if "chart-kings-presence" not in tables:
        return [
            Event(
                "check.waiting",
                "The King's Presence Is Requested Table is not supplied: the recall is not "
                "rolled, nor the Ennui (3.154)",
                {},
            )
        ]
    found, event = roll_on(
        tables, "chart-kings-presence", "check/kings-presence", dice, "King's Presence Is Requested (3.153)"
    )
    if "success" in checks.effects(found):
        state["le_roi"]["where"] = "hq"
        return [event, Event("le-roi.recalled", "Le Roi joins the Armee du Roi HQ, which must be Formed (3.153)", {})]
    return [event]


def _element_delay(state: dict[str, Any], tables: Any, dice: Dice, given: Mapping[str, Any]) -> list[Event]:
    if not given["france"].get("element_delay"):
        return []
    found, event = roll_on(tables, "element-delay", "check/element-delay", dice, "Element delay (6.265)")
    return [event]


def _administration(state: dict[str, Any], given: Mapping[str, Any], tables: Any, dice: Dice) -> list[Event]:
    """The Administrative Phase: its opening rolls (in the option's order), the Descent opened
    on the first turn, the strategic events, then each side's administration."""
    now = calendar.now(state)
    happened: list[Event] = []
    if now == state.get("admin_only_turn"):
        happened += checks.milice_year(state)  # the year's pools, which no start of turn set (5.265)
    if now == state["first_turn"] and state["invasions"]["descent"]["decided"] == "launch":
        counted = state["options"].get("descent_counts_from", "march-april")
        happened += invasions.start_descent(state, now if counted == "march-april" else now + 1)
    for name in state["options"]["admin_rolls"]:
        happened += ADMIN_ROLLS[name](state, tables, dice, given)
    happened += events.strategic_checks(state, dice)
    hessians = state["strategic"].get("hessians")
    if hessians is not None and hessians == calendar.now(state) - 1:
        happened.append(
            Event(
                "hessians.arrive",
                "The optional Hessian forces arrive, formed at any friendly Depot not besieged or blockaded; the "
                "Hessen-Darmstadt battery adds 1 SP to the Hessian Artillery's allowance (7.08, 5.612)",
                {},
            )
        )
    happened += checks.charles_1746(state, tables, dice)
    if state["strategic"]["orange_revolution"] and state["campaign"] and not state["dutch"]["artillery"]:
        state["dutch"]["artillery"] = True
        happened.append(
            Event(
                "dutch.artillery",
                "The Dutch Artillery Reserves arrive, automatic after the Orange Revolution (5.55)",
                {},
            )
        )
    allies, france = given["allies"], given["france"]
    if "in_england" in france:
        worth = arithmetic.bhg_strength(france["in_england"].get("sps", 0), france["in_england"].get("auxiliaries", 0))
        happened += invasions.report_french(state, worth)
    if "bhg" in allies:
        bhg = allies["bhg"]
        worth = arithmetic.bhg_strength(bhg["sps"], bhg.get("auxiliaries", 0), bhg.get("artillery_sps", 0))
        happened += invasions.report_bhg(state, worth, bhg.get("british_sps", 0))
    if allies.get("dutch_treaty"):
        happened += checks.dutch_treaty(state, dice)
    if allies.get("dutch_artillery"):
        happened += checks.dutch_artillery(state, tables, dice, bool(allies.get("plan_beyond_defend")))
    if allies.get("black_watch"):
        state["black_watch"] = allies["black_watch"] == "create"
        what = "created from 1 British SP" if state["black_watch"] else "disbanded, its SP back to a British unit"
        happened.append(Event("black-watch", f"The Black Watch is {what} (5.43)", {}))
    for key, sign in (("austrian_conversion", 1), ("austrian_reconversion", -1)):
        if allies.get(key):
            sps = allies[key]
            change = (
                arithmetic.austrian_conversion_penalty(sps)
                if sign > 0
                else -arithmetic.austrian_reconversion_credit(sps)
            )
            state["austrian_penalty"] = max(0, state["austrian_penalty"] + change)
            happened.append(
                Event(
                    "austrian.conversion",
                    f"Austrian {'conversion' if sign > 0 else 'reconversion'} of {sps} SPs: replacement rate "
                    f"penalty now {state['austrian_penalty']}% (5.342-5.343)",
                    {"sps": sps, "penalty": state["austrian_penalty"]},
                )
            )
    if france.get("dutch_recall"):
        happened += checks.dutch_recall(state, tables, dice)
    if france.get("element_permission"):
        found, event = roll_on(
            tables, "element-permission", "check/element-permission", dice, "Element permission (6.264)"
        )
        happened.append(event)
        if "permitted" in checks.effects(found):
            state["invasions"]["rising"]["elements"] += 1
    if france.get("channel"):
        happened += _channel(tables, dice)
    if france.get("le_roi_exchanged") and state["le_roi"]["where"] == "captured":
        state["le_roi"].update(where="hub", captured_year=None)
        happened.append(Event("le-roi.exchanged", "Le Roi is exchanged under the Convention of Frankfort (3.134)", {}))
    happened += _milice(state, france.get("milice") or {}, dice)
    happened += _demonstration(state, france.get("demonstration"), tables, dice)
    if "aid_to_provence_in_play" in france:
        happened += events.aid_to_provence(state, france["aid_to_provence_in_play"])
    for side in SIDES:
        happened += _sealed_orders(state, side, given[side], dice)
    return happened


def _channel(tables: Any, dice: Dice) -> list[Event]:
    if "chart-command-of-the-channel" not in tables:
        return [
            Event("check.waiting", "The Command of the Channel Table is not supplied: no crossing roll (6.221)", {})
        ]
    found, event = roll_on(
        tables, "chart-command-of-the-channel", "check/channel", dice, "Command of the Channel (6.221)"
    )
    command = next((e for e in checks.effects(found) if e in ("french", "neither", "royal-navy")), "neither")
    factor = arithmetic.sea_attrition_factor(command)
    abort = "; the French may abort before sailing (6.23)" if command == "royal-navy" else ""
    return [
        event,
        Event(
            "channel",
            f"The French force's losses on its sea Attrition Check are multiplied by {factor} (6.223){abort}",
            {"command": command},
        ),
    ]


def _milice(state: dict[str, Any], order: Mapping[str, Any], dice: Dice) -> list[Event]:
    if not order:
        return []
    milice = state["milice"]
    happened: list[Event] = []
    taken, back = order.get("field_force", 0), order.get("returned", 0)
    if taken or back:
        milice["pool"] += back - taken
        milice["outside"] += taken - back
        happened.append(
            Event(
                "milice.field-force",
                f"Milice Field Force: {milice['outside']} SPs outside France, {milice['pool']} in the pool (5.263)",
                {},
            )
        )
    if order.get("convert"):
        milice["converted"] += order["convert"]
        happened.append(
            Event(
                "milice.converted",
                f"{order['convert']} Milice SPs convert to Line ({milice['converted']} this year, 5.26)",
                {},
            )
        )
    if order.get("deploy"):
        _, made = checks.milice_emergency(state, dice, "check/milice-follow-up")
        happened += made
    return happened


def _demonstration(state: dict[str, Any], order: str | None, tables: Any, dice: Dice) -> list[Event]:
    if order is None:
        return []
    if order == "start":
        state["demonstration"] = {"started": calendar.now(state), "marker": arithmetic.INTIMIDATION_START}
        return [Event("demonstration", "The Demonstration against the UP begins: Intimidation marker on 5 (2.333)", {})]
    if order == "failed":
        return [Event("demonstration", "The Demonstration is assessed unsuccessful: no DIT roll (2.332)", {})]
    if "chart-dutch-intimidation" not in tables:
        return [Event("check.waiting", "The Dutch Intimidation Table is not supplied: no roll (2.332)", {})]
    found, event = roll_on(tables, "chart-dutch-intimidation", "check/dit", dice, "Dutch Intimidation Table (2.332)")
    change = (
        found.result if isinstance(found.result, int) else int(found.result.get("change", 0)) if found.structured else 0
    )
    before = state["demonstration"]["marker"]
    state["demonstration"]["marker"] = arithmetic.intimidation_after(before, change)
    return [
        event,
        Event("demonstration", f"Intimidation marker {before} -> {state['demonstration']['marker']} (2.333)", {}),
    ]


def _sealed_orders(state: dict[str, Any], side: str, order: Mapping[str, Any], dice: Dice) -> list[Event]:
    """Seal a side's new plan, sea destinations, candidates and standing orders; open landings."""
    now = calendar.now(state)
    happened: list[Event] = []
    if "plan" in order:
        number = 1 + len([n for n in state["notes"] if n["by"] == side and n["id"].startswith("plan-")])
        state["notes"], sealed = secrecy.seal(state, side, f"plan-{number}", order["plan"], dice)
        happened += sealed
    for entry in order.get("embark") or []:
        note_id = f"sea-{now}-{len(state['embarked']) + 1}"
        state["notes"], sealed = secrecy.seal(state, side, note_id, entry["destination"], dice)
        state["embarked"].append({"side": side, "force": entry["force"], "note": note_id, "turn": now})
        happened += sealed
        happened.append(
            Event("sea.embarked", f"{side}: {entry['force']} embarks; its destination is sealed (3.523)", {})
        )
    for force in order.get("land") or []:
        entry = next(e for e in state["embarked"] if e["side"] == side and e["force"] == force)
        state["notes"], opened = secrecy.open_notes(state, side, [entry["note"]], f"{force} lands")
        state["embarked"] = [e for e in state["embarked"] if e is not entry]
        happened += opened
    if order.get("candidates"):
        state["candidates"][side], sealed = secrecy.commit_candidates(state, side, order["candidates"], now, dice)
        happened += sealed
    for kind, content in sorted((order.get("standing") or {}).items()):
        note_id = f"standing-{kind.replace('_', '-')}-{now}"
        if secrecy.note(state, side, note_id) is not None:
            continue
        state["notes"], sealed = secrecy.seal(state, side, note_id, content, dice)
        state["standing"] = [s for s in state["standing"] if not (s["side"] == side and s["kind"] == kind)]
        state["standing"].append({"side": side, "kind": kind, "note": note_id, "turn": now})
        happened += sealed
    return happened


def _start_of_operations(state: dict[str, Any], given: Mapping[str, Any], tables: Any, dice: Dice) -> list[Event]:
    """The start of the Operations Phase: a flooding request (1.251), the flood's recession
    (1.253), the Random Event (7.01); standing orders sealed for the phase."""
    happened: list[Event] = []
    state["captured_orders"] = None
    state["random_event"] = None
    if given["allies"].get("flood_request"):
        happened += checks.flood_request(state, tables, dice)
    else:
        happened += checks.flood_recession(state, tables, dice)
    happened += events.random_event(state, tables, dice)
    for side in SIDES:
        happened += _sealed_orders(state, side, {"standing": given[side].get("standing") or {}}, dice)
    return happened


def _operations(state: dict[str, Any], given: Mapping[str, Any], tables: Any, dice: Dice) -> list[Event]:
    """The Operations Phase: what the sides report of their operations, with the interrupts of
    the enemy's move (the Milice, Town Independence) opened from their standing orders."""
    happened: list[Event] = []
    for side in SIDES:  # standing orders given with this phase's orders, sealed before any trigger opens them
        happened += _sealed_orders(state, side, {"standing": given[side].get("standing") or {}}, dice)
    allies, france = given["allies"], given["france"]
    now = calendar.now(state)
    if allies.get("entered_france"):
        state["allied_units_in_france"] = True
        where = ", ".join(allies["entered_france"])
        happened.append(
            Event(
                "france.entered", f"Allied units enter France at {where} (5.264)", {"places": allies["entered_france"]}
            )
        )
        orders_held = secrecy.standing(state, "france", "milice")
        sps, made = checks.milice_emergency(state, dice, "check/milice-emergency")
        happened += made
        if sps and orders_held:
            entry = orders_held[0]
            state["notes"], opened = secrecy.open_notes(
                state, "france", [entry["note"]], "France's standing Milice order is triggered"
            )
            happened += opened
        elif sps:
            happened.append(
                Event(
                    "milice.place", "France had no standing Milice order: they place the SPs in their next orders", {}
                )
            )
    independence = state["town_independence"]
    if independence and independence["turn"] == now and not independence["used"]:
        beneficiary = independence["side"]
        if beneficiary in given and given[beneficiary].get("town_independence_capture"):
            independence["used"] = True
            place = given[beneficiary]["town_independence_capture"]
            happened.append(
                Event("town-independence.capture", f"Town Independence: {beneficiary} captures {place} (7.061)", {})
            )
        enemy = SIDES[1 - SIDES.index(beneficiary)]
        ended = given[enemy].get("ended_on_empty") or []
        held = secrecy.standing(state, beneficiary, "town_independence")
        if ended and held and not independence["used"]:
            wanted = held[0]["orders"]
            places = [p for p in ended if p in wanted.get("places", []) or "any" in wanted.get("places", [])]
            if places:
                independence["used"] = True
                state["notes"], opened = secrecy.open_notes(
                    state,
                    beneficiary,
                    [held[0]["note"]],
                    f"{possessive(beneficiary)} Town Independence order is triggered",
                )
                (roll,) = dice.roll("1d10z", label="check/town-independence")
                sps = arithmetic.town_independence_garrison(roll, wanted.get("garrison_limit"))
                happened += opened
                happened.append(
                    Event(
                        "town-independence.garrison",
                        f"Town Independence: {beneficiary} garrisons {places[0]} with {sps} SPs (rolled {roll}, "
                        "halved; 7.062), taken from the nearest friendly stacks",
                        {"place": places[0], "roll": roll, "sps": sps},
                    )
                )
    if "in_france_at_end" in allies:
        state["allied_units_in_france"] = bool(allies["in_france_at_end"])
        if not state["allied_units_in_france"]:
            happened += checks.milice_return(state)
    if france.get("le_roi") == "killed":
        happened += checks.le_roi_killed(state, tables, dice)
    elif france.get("le_roi") == "captured":
        happened += checks.le_roi_captured(state, tables, dice)
    if france.get("whim_battle"):
        state["le_roi"]["whim_battle_turn"] = now
    if france.get("whim_siege_lifted"):
        happened += checks.whim_siege_lifted(state)
    for side in SIDES:
        for change in given[side].get("prestige") or []:
            happened += prestige(state, side, change["kind"], change["change"], change["reason"])
    return happened


def check(state: Mapping[str, Any]) -> list[str]:
    """Return broken invariants of the state."""
    problems = []
    if state["peace_index"] is not None and not state["peace_index"] >= 0:
        problems.append("Peace Index below 0")
    if not 1 <= state["turn"] <= calendar.TURNS_A_YEAR:
        problems.append("turn of the year out of 1-16")
    if state["demonstration"] is not None and not 0 <= state["demonstration"]["marker"] <= 9:
        problems.append("Intimidation marker off its track")
    if state["phase"] not in (*calendar.PHASE_NAMES, "set-up"):
        problems.append(f"unknown phase {state['phase']}")
    milice = state["milice"]
    if milice["pool"] is not None and milice["pool"] < 0:
        problems.append("Milice pool below 0")
    for side in SIDES:
        if state["prestige"][side]["pp"] < 0 or state["prestige"][side]["level"] < 0:
            problems.append(f"{side} Prestige below 0")
    return problems
