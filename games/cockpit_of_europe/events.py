"""Cockpit of Europe's Strategic Events (6.1-6.4) and Random Events (7.0): when each may be
checked, and what each does once it is known.

The chances are on charts the volume does not print (the Strategic Event Chart, the Random Event
Table): the referee supplies them. What the volume fixes is here: the timers ("once per Quarter
from turn 1 of 1745", "4 turns after a Croats", "16 full turns"), who may be struck, and every
effect. Random picks among leaders, stacks, hubs, depots and sieges are made over the lists each
side committed, sealed, before the pick (secrecy.py); an event whose pick finds no candidate is
No Event (7.012).
"""

from __future__ import annotations

from typing import Any

from games.cockpit_of_europe import arithmetic, calendar, invasions, secrecy
from games.cockpit_of_europe.checks import milice_excess
from games.cockpit_of_europe.ledger import effects, peace, prestige, roll_on
from games.cockpit_of_europe.model import SCENARIOS, SIDES, first_full_turn
from referee.kit import Dice, Event, Tables

QUARTERLY = {
    # event id: (first year, title, case)
    "croats": (1744, "Croats Over the Rhine", "6.31"),
    "bavaria-crushed": (1745, "Bavaria Crushed", "6.32"),
    "ap-treaty": (1745, "Austro-Prussian Treaty", "6.35"),
    "provence": (1745, "Defeat in Provence", "6.42"),
    "jacobite-rising": (1745, "The Jacobite Rising", "6.26"),
    "orange-revolution": (1746, "The Orange Revolution", "6.41"),
    "russians": (1747, "The Russians are Coming!", "6.43"),
}
TIMED = {"lorraine": ("French Defeat in Lorraine", "6.33"), "prussia-attacks": ("Prussia Attacks!", "6.34")}
STRATEGIC = (*QUARTERLY, *TIMED)
RANDOM_EVENTS = (
    "no-event",
    "walcheren-fever",
    "the-pox",
    "the-duellists",
    "lost-orders",
    "captured-orders",
    "supply-surplus",
    "supply-peculation",
    "powder-magazine",
    "keelmen",
    "forces-drafted",
    "forces-detached",
    "desertion",
    "coastal-raids",
    "breakthrough",
    "setback",
    "jealousy",
    "town-independence",
    "greater-hessians",
)
LOCK = 16  # 6.314, 6.341: full turns a force stays in Germany
FOLLOW_UP = 4  # 6.33, 6.34: the single check 4 turns after a Croats; 6.321 a Quarter; 6.432


def title(event: str) -> str:
    """Return a strategic event's title and case."""
    name, case = QUARTERLY[event][1:] if event in QUARTERLY else TIMED[event]
    return f"{name} ({case})"


def occurred(state: dict[str, Any], event: str) -> list[int]:
    """Return the absolute turns an event occurred on."""
    return list(state["strategic"]["occurred"].get(event, []))


def eligible(state: dict[str, Any], event: str) -> tuple[bool, str]:
    """Return whether a quarterly strategic event may be checked this turn, and why not."""
    year = state["year"]
    first = QUARTERLY[event][0]
    if year < first:
        return False, f"not before {first}"
    happened = occurred(state, event)
    years = [calendar.from_absolute(turn)[0] for turn in happened]
    if event == "croats":
        if year in years:
            return False, "once a year at most (6.31)"
        crushed = [calendar.from_absolute(t)[0] for t in occurred(state, "bavaria-crushed")]
        if happened and (len(happened) >= 2 or not crushed or year != crushed[0] + 1):
            return False, "a second Croats only in the year after Bavaria Crushed (6.31, 6.321)"
        return True, ""
    if event == "provence":
        return (year not in years, "once a year at most (6.42)")
    if event == "jacobite-rising":
        descent = state["invasions"]["descent"]
        if state["invasions"]["rising"]["start"] is not None:
            return False, "once a game (6.26)"
        if year == 1745 and state["turn"] < 5:
            return False, "not before the 5th turn of 1745 (6.261)"
        if descent["start"] is not None and not descent["over"]:
            return False, "not while the Descent is under way (6.216)"
        if descent.get("ended_year") == year:
            return False, "not in the year the Descent ended (6.216)"
        return True, ""
    if event == "orange-revolution" and state["strategic"]["orange_revolution"]:
        return False, "it has occurred (6.41)"
    if event == "bavaria-crushed" and "bavaria-crushed" in state["strategic"]["occurred"]:
        return False, "once a game (6.32)"
    if happened:
        return False, "once a game"
    return True, ""


def chance(state: dict[str, Any], event: str) -> int | None:
    """Return the number a d10 must not exceed for the event, from the supplied chart with the
    book's changes (the Intimidation marker for the Orange Revolution, 2.334; the chart's own
    Winter and Spring change for the Rising, 6.261); None until the chart is supplied."""
    chart = state["supplied"].get("strategic-event-chart")
    if chart is None:
        return None
    base = int(chart["events"][event]["on_or_below"])
    if event == "orange-revolution" and state["demonstration"] is not None:
        base += arithmetic.intimidation_modifier(state["demonstration"]["marker"])
    if event == "jacobite-rising" and season_of(state) in ("winter", "spring"):
        base += int(chart.get("jacobite_winter_spring", 0))
    return base


def season_of(state: dict[str, Any]) -> str | None:
    supplied = state["supplied"].get("calendar")
    return supplied["seasons"][state["turn"] - 1] if supplied and supplied.get("seasons") else None


def strategic_checks(state: dict[str, Any], dice: Dice) -> list[Event]:
    """Make this turn's strategic event checks in the Administrative Phase (6.112): the
    quarterly ones on the first turn of a Quarter (campaign; the 1744 scenario's Croats every
    turn from its 2nd, 6.311), and the single checks due 4 turns after a Croats (6.33-6.34)."""
    now = calendar.now(state)
    due: list[str] = []
    if state["campaign"] and calendar.is_quarter_start(state["turn"]):
        due += [event for event in QUARTERLY if eligible(state, event)[0]]
    if state["scenario"] == "rosbifs-1744" and now > first_full_turn(state) and eligible(state, "croats")[0]:
        due.append("croats")
    timers = [t for t in state["strategic"]["timers"] if t["at"] == now and t["what"] == "check"]
    due += [t["event"] for t in timers]
    if not due:
        return []
    if state["supplied"].get("strategic-event-chart") is None:
        return [
            Event(
                "check.waiting",
                f"Strategic Event checks due ({', '.join(due)}) but the Strategic Event Chart is not supplied: "
                "none is made this turn",
                {"due": due},
            )
        ]
    events: list[Event] = []
    for event in due:
        if event == "prussia-attacks" and "ap-treaty" in state["strategic"]["occurred"]:
            events.append(Event("strategic.blocked", "Prussia Attacks! cannot occur after the A-P Treaty (6.35)", {}))
            continue
        needed = chance(state, event)
        assert needed is not None
        (roll,) = dice.roll("1d10z", label=f"strategic/{event}")
        happens = roll <= needed
        text = f"{title(event)}: rolled {roll} against {needed} or less: {'it occurs' if happens else 'no event'}"
        events.append(
            Event("strategic.check", text, {"event": event, "roll": roll, "chance": needed, "occurs": happens})
        )
        if happens:
            events += occur(state, event)
    return events


def occur(state: dict[str, Any], event: str) -> list[Event]:
    """Apply a strategic event that has occurred (its effects as the rules fix them)."""
    now = calendar.now(state)
    strategic = state["strategic"]
    if event != "jacobite-rising":
        strategic["occurred"].setdefault(event, []).append(now)
    shift = int(
        state["supplied"].get("strategic-event-chart", {}).get("events", {}).get(event, {}).get("peace_index", 0)
    )
    text = EFFECTS[event]
    events: list[Event] = []
    if event == "croats":
        force = "German Redeployments '44" if state["year"] == 1744 else "German Redeployments Post '44"
        strategic["germany_lock"] = now + LOCK
        strategic["timers"] += [
            {"event": "lorraine", "at": now + FOLLOW_UP, "what": "check"},
            {"event": "prussia-attacks", "at": now + FOLLOW_UP, "what": "check"},
        ]
        text = text.format(force=force, free=calendar.from_absolute(now + LOCK))
    elif event == "bavaria-crushed":
        due = max(now + FOLLOW_UP, calendar.absolute(1747, 1))
        strategic["bavarians_due"] = due
        text = text.format(due=calendar.from_absolute(due))
    elif event == "prussia-attacks":
        strategic["charles_pinned_until"] = now + LOCK
    elif event == "ap-treaty":
        strategic["charles_pinned_until"] = None
    elif event == "orange-revolution":
        strategic["orange_revolution"] = True
        state["dutch"]["artillery"] = True
    elif event == "provence":
        strategic["provence_until"] = now + 8
        strategic["provence_pending"] = True
    elif event == "russians":
        state["russians"]["received"] = now
    elif event == "jacobite-rising":
        events += invasions.start_rising(state)
    events.insert(0, Event("strategic.occurred", f"{title(event)}: {text}", {"event": event, "turn": now}))
    return events + peace(state, shift, title(event))


EFFECTS = {
    "croats": "the French redeploy {force} to the Germany Box at once, locked there for 16 full turns (free on "
    "turn {free[1]} of {free[0]}), then roll an Attrition Check with losses x2 and a Casualty Check for their "
    "leaders (6.312-6.316); they may switch one plan to Hold All Gains free (6.317). French Defeat in Lorraine and "
    "Prussia Attacks! are each checked once 4 turns from now.",
    "bavaria-crushed": "the Bavarian Expeditionary Corps is received on turn {due[1]} of {due[0]} (6.321, 5.62); a "
    "second Croats may occur next year.",
    "lorraine": "the Allies receive Charles of Lorraine's Army in the Germany Box, to enter through Lorraine; Allied "
    "forces may enter Lorraine and Barrois; the Austrian Secondary Hub may be placed; the French Preparedness "
    "penalty applies (6.331-6.334).",
    "prussia-attacks": "Charles of Lorraine's Army goes to Germany at once, locked for 16 full turns; shortfalls are "
    "filled from the Dutch, Bavarian, Hanoverian or Hessian contingents, any gap costing the Allies a Prestige "
    "Level; the first time, the Emergency Withdrawals are added; then an Attrition Check with losses x2 and a "
    "leaders' Casualty Check (6.341-6.345).",
    "ap-treaty": "Prussia leaves the war: Charles of Lorraine's Army is received, or freed if pinned; the Vienna "
    "Hub enters with 0 Preparedness; Prussia Attacks! can no longer occur (6.351, 3.222).",
    "orange-revolution": "France is at war with the United Provinces; Dutch units' CE +1 grade; the Dutch SRT "
    "modifier changes; the UP and Barrier garrison rules end; Voluntary Flooding may be asked; the Dutch "
    "Artillery Reserves become automatic (6.411-6.414, 5.514, 5.55, 1.25).",
    "provence": "the French send Aid to Provence to the Southern France box at once: in their next Administrative "
    "Phase they report the SPs they have in play (6.423); the forces return after 8 full turns (6.425).",
    "russians": "the Russian Corps is received in the Germany Box; it rolls to enter from 4 turns from now "
    "(6.431-6.432).",
    "jacobite-rising": "the Rising begins (6.26).",
}


def timers_due(state: dict[str, Any]) -> list[Event]:
    """Return what the strategic timers release this turn (Germany and Southern France)."""
    now = calendar.now(state)
    strategic = state["strategic"]
    events = []
    if strategic.get("germany_lock") == now:
        events.append(Event("strategic.released", "The French forces in the Germany Box may return (6.314)", {}))
    if strategic.get("provence_until") == now:
        events.append(Event("strategic.released", "The Aid to Provence forces return (6.425)", {}))
    if strategic.get("bavarians_due") == now:
        events.append(Event("strategic.released", "The Bavarian Expeditionary Corps is received (6.321, 5.62)", {}))
    if strategic.get("charles_pinned_until") == now:
        events.append(Event("strategic.released", "Charles of Lorraine's Army is free of Prussia (6.341)", {}))
    return events


def aid_to_provence(state: dict[str, Any], in_play: int) -> list[Event]:
    """Settle Aid to Provence from the French SPs in play against the force list's requirement (6.423)."""
    required = int(state["supplied"].get("force-lists", {}).get("aid_to_provence_sps", 0))
    state["strategic"]["provence_pending"] = False
    if not required:
        return [
            Event(
                "provence.unknown", "Aid to Provence: the force list is not supplied; the French send it as listed", {}
            )
        ]
    sent, penalty = arithmetic.provence_sent(required, in_play)
    events = [
        Event(
            "provence.sent",
            f"Aid to Provence: {required} SPs required, the French have {in_play}: {sent} SPs go (6.423)",
            {"required": required, "in_play": in_play, "sent": sent},
        )
    ]
    if penalty:
        events += prestige(state, "france", "level", -1, "too few SPs for Aid to Provence (6.423)")
    return events


# -- random events (7.0) -------------------------------------------------------------------------


def random_event(state: dict[str, Any], tables: Tables, dice: Dice) -> list[Event]:
    """Check the Random Event Table at the start of the Operations Phase (7.01) and apply it."""
    if "chart-random-event-table" not in tables:
        return [
            Event(
                "check.waiting",
                "Random Event check (7.01): the Random Event Table is not supplied; no check this turn",
                {},
            )
        ]
    found, event = roll_on(tables, "chart-random-event-table", "random-event", dice, "Random Event (7.01)")
    named = [e for e in effects(found) if e in RANDOM_EVENTS] or ["no-event"]
    state["random_event"] = {"event": named[0], "turn": calendar.now(state)}
    return [event, *apply_random(state, named[0], dice)]


def _side(dice: Dice, label: str) -> str:
    return SIDES[dice.uniform(2, label=label)]


def _opened(state: dict[str, Any], side: str, opening: dict[str, Any]) -> None:
    state["candidates"] = secrecy.mark_opened(state["candidates"], side, opening)


def _no_event(why: str) -> list[Event]:
    return [Event("random.none", f"No Event: {why} (7.012)", {})]


def apply_random(state: dict[str, Any], event: str, dice: Dice) -> list[Event]:
    """Apply a Random Event's effects, picking at random where the book says (7.011)."""
    if event == "no-event":
        return []
    if event == "walcheren-fever":
        for pool in ("grand-army-stacks", "army-stacks", "largest-stacks"):
            found = secrecy.pick(state, [(side, pool) for side in SIDES], "random-event/stack", dice)
            if found is not None:
                side, item, opening = found
                _opened(state, side, opening)
                return [
                    Event(
                        "random.walcheren",
                        f"Walcheren Fever strikes {side}'s stack {item}: an Attrition Check with the Walcheren "
                        "modifier, losses x2 (7.02)",
                        {"side": side, "stack": item, "openings": [opening]},
                    )
                ]
        return _no_event("no stack was committed")
    if event == "the-pox":
        pools = [(side, pool) for side in SIDES for pool in ("leaders", "royals")]
        sick = [entry["leader"] for entry in state["sick"]] + list(state["dead"])
        found = secrecy.pick(state, pools, "random-event/leader", dice, exclude=sick)
        if found is None:
            return _no_event("no leader was committed")
        side, item, opening = found
        _opened(state, side, opening)
        royal = any(o["label"] == opening["label"] for o in secrecy.pool_items(state, side, "royals"))
        state["sick"].append({"leader": item, "side": side, "royal": royal, "since": calendar.now(state)})
        return [
            Event(
                "random.pox",
                f"The Pox: {item} ({side}) is removed as if wounded, and rolls to recover each turn (7.02)",
                {"leader": item, "side": side, "openings": [opening]},
            )
        ]
    if event == "the-duellists":
        first_side = _side(dice, "random-event/duellist-1-side")
        first = secrecy.pick(state, [(first_side, "leaders")], "random-event/duellist-1", dice, exclude=state["dead"])
        second_side = _side(dice, "random-event/duellist-2-side")
        exclude = [*state["dead"], *([first[1]] if first else [])]
        second = secrecy.pick(state, [(second_side, "leaders")], "random-event/duellist-2", dice, exclude=exclude)
        if first is None or second is None:
            return _no_event("too few leaders were committed")
        for side, _, opening in (first, second):
            _opened(state, side, opening)
        state["enemies"].append([first[1], second[1]])
        state.setdefault("enemy_sides", {})[first[1]] = first[0]
        state["enemy_sides"][second[1]] = second[0]
        return [
            Event(
                "random.duellists",
                f"The Duellists: {first[1]} ({first[0]}) and {second[1]} ({second[0]}) become personal enemies "
                "(7.03); either may challenge the other at the start of a turn",
                {"pair": [first[1], second[1]], "openings": [first[2], second[2]]},
            )
        ]
    if event == "lost-orders":
        found = secrecy.pick(state, [(side, "hubs") for side in SIDES], "random-event/hub", dice)
        if found is None:
            return _no_event("no Hub was committed")
        side, item, opening = found
        _opened(state, side, opening)
        return [
            Event(
                "random.lost-orders",
                f"Lost Orders: {side}'s Hub {item} loses 1 Preparedness if it has any (7.04)",
                {"side": side, "hub": item, "openings": [opening]},
            )
        ]
    if event in ("supply-surplus", "supply-peculation"):
        side = _side(dice, "random-event/side")
        pool = "half-depots" if event == "supply-surplus" else "full-depots"
        found = secrecy.pick(state, [(side, pool)], "random-event/depot", dice)
        if found is None:
            return _no_event(f"{side} committed no {pool}")
        _, item, opening = found
        _opened(state, side, opening)
        flip = "Half to Full" if event == "supply-surplus" else "Full to Half"
        return [
            Event(
                f"random.{event}",
                f"{event.replace('-', ' ').capitalize()}: {side}'s Depot {item} turns {flip} (7.04)",
                {"side": side, "depot": item, "openings": [opening]},
            )
        ]
    if event == "powder-magazine":
        found = secrecy.pick(state, [(side, "sieges") for side in SIDES], "random-event/siege", dice)
        if found is None:
            return _no_event("no siege was committed")
        side, item, opening = found
        _opened(state, side, opening)
        place, _, sps = item.rpartition(":")
        garrison = int(sps.strip()) if sps.strip().isdigit() else None
        if garrison is None:
            return [
                Event(
                    "random.powder",
                    f"Powder Magazine Explodes at {item}: the garrison loses 1 SP, and "
                    "surrenders if under 3 SPs (7.04)",
                    {"siege": item, "openings": [opening]},
                )
            ]
        left, surrenders = arithmetic.powder_magazine(garrison)
        outcome = "it surrenders at once" if surrenders else "it holds"
        return [
            Event(
                "random.powder",
                f"Powder Magazine Explodes at {place.strip()}: the garrison falls to {left} SPs: {outcome} (7.04)",
                {"siege": place.strip(), "left": left, "surrenders": surrenders, "openings": [opening]},
            )
        ]
    if event == "desertion":
        return _desertion(state, dice)
    if event == "coastal-raids":
        bhg = state["bhg"]["allied"]
        if bhg is None or bhg < arithmetic.COASTAL_RAID_BHG:
            return [
                Event("random.coastal-raids", "Coastal Raids: the Allies cannot give 2 BHG SPs: no raid (7.05)", {})
            ]
        state["bhg"]["allied"] = bhg - arithmetic.COASTAL_RAID_BHG
        milice = state["milice"]
        if milice["allowance"] is not None:
            milice["allowance"] = max(0, milice["allowance"] - arithmetic.COASTAL_RAID_ALLOWANCE)
        raid = "Coastal Raids: the BHG loses 2 SPs, the French Field Force allowance 5 SPs (7.05)"
        return [Event("random.coastal-raids", raid, {}), *milice_excess(state)]
    if event == "breakthrough":
        if state["peace_index"] is None:
            return []
        return peace(
            state, arithmetic.breakthrough(state["peace_index"]) - state["peace_index"], "Reach a Breakthrough (7.06)"
        ) or [Event("random.breakthrough", "Reach a Breakthrough: no change, it would end the war (7.06)", {})]
    if event == "setback":
        return peace(state, -1, "Diplomatic Setback (7.06)") if state["peace_index"] is not None else []
    if event == "greater-hessians":
        if state["strategic"].get("hessians"):
            return _no_event("the Hessian forces have already come")
        state["strategic"]["hessians"] = calendar.now(state)
        return [
            Event(
                "random.hessians",
                "Greater Hessian Participation: the Allies receive the optional Hessian forces "
                "in the next Administrative Phase (7.08)",
                {},
            )
        ]
    side = _side(dice, "random-event/side")
    if event == "captured-orders":
        state["captured_orders"] = {"side": side, "turn": calendar.now(state)}
    if event == "town-independence":
        state["town_independence"] = {"side": side, "turn": calendar.now(state), "used": False}
    return [Event(f"random.{event}", f"{SIDE_EVENTS[event]} {side} (7.04-7.07)", {"side": side})]


SIDE_EVENTS = {
    "captured-orders": "Captured Orders: one Formation may move a second time in the same Impulse this turn, for",
    "keelmen": "Keelmen Owed Six Months Back Pay: no crossing of Major Rivers and no Riverine Movement this "
    "Operations Phase, for",
    "forces-drafted": "Additional Forces Drafted: +2 SPs to one friendly unit on the map (not Guards, not from the "
    "Milice), for",
    "forces-detached": "Additional Forces Detached: -2 SPs from one friendly unit on the map (not a besieged "
    "garrison; not recorded as losses), for",
    "jealousy": "Jealousy: movement costs x2 for Combined Operations and joining a fight this turn (Grand Armies: "
    "Insubordination Values x2), for",
    "town-independence": "Town Independence: once this Operations Phase, capture a garrisoned fortification "
    "entered (in the Operations orders, `town_independence_capture: PLACE`), or garrison an empty one the enemy "
    "ends a move on (a sealed `standing: {town_independence: {places: [...], garrison_limit: N}}` in the same "
    "orders, opened when the enemy reports `ended_on_empty` on one of them), for",
}


def _desertion(state: dict[str, Any], dice: Dice) -> list[Event]:
    """Desertion (7.04): a contingent at random among those with a leader in the Officers' Mess,
    then one of its leaders; he defects to the other side (a two-side game), which picks his
    contingent."""
    by_contingent: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for side in SIDES:
        for opening in secrecy.pool_items(state, side, "mess"):
            contingent = opening["value"].partition(":")[0].strip()
            by_contingent.setdefault(contingent, []).append((side, opening))
    if not by_contingent:
        return _no_event("no leader in an Officers' Mess was committed")
    names = sorted(by_contingent)
    contingent = names[dice.uniform(len(names), label="random-event/contingent")]
    side, opening = by_contingent[contingent][
        dice.uniform(len(by_contingent[contingent]), label="random-event/deserter")
    ]
    _opened(state, side, opening)
    leader = opening["value"].partition(":")[2].strip() or opening["value"]
    receiver = SIDES[1 - SIDES.index(side)]
    return [
        Event(
            "random.desertion",
            f"Desertion: {leader} ({contingent}, {side}) defects to {receiver}, who chooses his contingent (7.04)",
            {"leader": leader, "from": side, "to": receiver, "openings": [opening]},
        )
    ]


def scenario_end(state: dict[str, Any]) -> list[Event]:
    """The 1745 scenario's end: a Rising still running gives the French +2 PP (9.239)."""
    rule = SCENARIOS[state["scenario"]].get("jacobite_check")
    if rule and invasions.under_way(state) == "rising":
        return prestige(
            state, "france", "pp", rule["pp_if_running_at_end"], "the Rising runs past the scenario's end (9.239)"
        )
    return []
