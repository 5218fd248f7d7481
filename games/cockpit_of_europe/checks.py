"""The d10 checks Cockpit of Europe's exclusive rules print, made on the game's own tables
(data/tables.yaml) and applied to the state: Le Roi's Ennui, death and capture (3.13-3.16),
flooding (1.25), the Milice emergency (5.264), the Dutch (5.52-5.55), the Jacobite Elements
(6.264-6.265), the Russians (6.432), the Pox (7.02), duels (7.035) and the 1745 and 1746
scenarios' own checks (9.239, 9.339).

Each function takes the state (a plain dict it may change: the caller hands it a copy) and
returns the events; every die is labelled `check/<what>` or `check/<what>/<who>`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.cockpit_of_europe import arithmetic, calendar
from games.cockpit_of_europe.invasions import start_rising
from games.cockpit_of_europe.ledger import effects, end, peace, prestige, roll_on
from games.cockpit_of_europe.model import SCENARIOS, labels
from referee.kit import Dice, Event, Tables

# -- Le Roi ---------------------------------------------------------------------------------------


def kings_ennui(state: dict[str, Any], tables: Tables, dice: Dice) -> list[Event]:
    """Roll the King's Ennui (3.15): 9 Bored (HQ <-> Hub, 3.151-3.152); 0-1 a Royal Whim while
    he is with the Armee du Roi HQ (3.16)."""
    where = state["le_roi"]["where"]
    if where not in ("hq", "hub"):
        return []
    found, event = roll_on(tables, "kings-ennui", "check/kings-ennui", dice, "King's Ennui (3.15)")
    events = [event]
    if "bored" in effects(found):
        state["le_roi"]["where"] = "hub" if where == "hq" else "hq"
        destination = "the French Hub" if where == "hq" else "the Armee du Roi HQ"
        events.append(Event("le-roi.bored", f"Le Roi is bored: he goes to {destination} (3.151-3.152)", {}))
    elif "whim" in effects(found) and where == "hq":
        events += royal_whim(state)
    return events


def royal_whim(state: dict[str, Any]) -> list[Event]:
    """Lay a Royal Whim on the Armee du Roi HQ for this turn (3.16), unless the turn after a Whim
    Battle, when it may be ignored (3.162)."""
    now = calendar.now(state)
    if state["le_roi"]["whim_battle_turn"] == now - 1:
        return [Event("le-roi.whim-ignored", "A Royal Whim the turn after a Whim Battle: ignored (3.162)", {})]
    state["le_roi"]["whim"] = {"turn": now}
    return [
        Event(
            "le-roi.whim",
            "Royal Whim (3.16): this turn the Armee du Roi HQ must besiege an enemy Fortified City, or else "
            "give battle to an enemy Grand Army HQ, Army HQ, Column, or stack of 3 or more Formations, in that "
            "preference; if neither is possible the Whim is ignored (3.161). The board is the players': France "
            "says in a `note` what the Armee du Roi HQ does, or why neither is possible, and reports "
            "`whim_battle: true` in the Operations orders of a turn the Whim Battle is fought, "
            "`whim_siege_lifted: true` when a Whim siege is forced to lift (3.162-3.163)",
            {"turn": now},
        )
    ]


def whim_possible(can_besiege: bool, battle_targets: Sequence[str]) -> str | None:
    """Return what a Royal Whim demands: a siege if one is possible, else a battle against the
    first kind of target in the book's preference, else None (ignored, 3.161)."""
    if can_besiege:
        return "siege"
    for kind in ("grand-army", "army", "column", "stack-of-3"):
        if kind in battle_targets:
            return f"battle:{kind}"
    return None


def whim_siege_lifted(state: dict[str, Any]) -> list[Event]:
    """A Whim siege forced to lift (3.163): the French lose a PP chit if they hold one, and then
    the Allies gain one; with none, nobody gains or loses."""
    if state["prestige"]["france"]["pp"] < 1:
        return [Event("le-roi.whim-lifted", "A Whim siege was lifted; the French hold no PP: no change (3.163)", {})]
    reason = "a Whim siege lifted (3.163)"
    return prestige(state, "france", "pp", -1, reason) + prestige(state, "allies", "pp", 1, reason)


def le_roi_killed(state: dict[str, Any], tables: Tables, dice: Dice) -> list[Event]:
    """Roll for Le Roi "killed" (3.132): 8-9 he dies (a minor scenario: the French lose; the
    campaign: Peace Index +4), else he is wounded."""
    found, event = roll_on(tables, "le-roi-killed", "check/le-roi-killed", dice, "Le Roi killed? (3.132)")
    if "dies" not in effects(found):
        state["le_roi"]["where"] = "wounded"
        return [event]
    state["le_roi"]["where"] = "dead"
    if not state["campaign"]:
        return [event, *end(state, "Le Roi is dead (3.132)", loser="france")]
    return [event, *peace(state, 4, "Le Roi is dead (3.132)")]


def le_roi_captured(state: dict[str, Any], tables: Tables, dice: Dice) -> list[Event]:
    """Roll for Le Roi captured (3.133): 0-7 he escapes at once (the French place him in Paris
    or at the French Hub); 8-9 he stays captive (a minor scenario: the French lose; the
    campaign: Peace Index +3 now, +2 at each year's end after the year of capture)."""
    found, event = roll_on(tables, "le-roi-captured", "check/le-roi-captured", dice, "Le Roi captured (3.133)")
    if "held" not in effects(found):
        state["le_roi"]["where"] = "hub"
        return [
            event,
            Event("le-roi.escaped", "Le Roi escapes: the French place him in Paris or at the French Hub", {}),
        ]
    state["le_roi"]["where"] = "captured"
    state["le_roi"]["captured_year"] = state["year"]
    if not state["campaign"]:
        return [event, *end(state, "Le Roi is captured (3.133)", loser="france")]
    return [event, *peace(state, 3, "Le Roi captured (3.133)")]


# -- flooding (1.25) -------------------------------------------------------------------------------


def flood_request(state: dict[str, Any], tables: Tables, dice: Dice) -> list[Event]:
    """Roll a Voluntary Flooding request (1.251): 0-3 approved (the campaign's Peace Index +1,
    1.254); refused, no new request until three full turns have passed."""
    now = calendar.now(state)
    found, event = roll_on(tables, "flood-request", "check/flood-request", dice, "Voluntary Flooding (1.251)")
    if "approved" not in effects(found):
        state["flood"]["next_request"] = arithmetic.flood_next_request(now)
        return [event]
    state["flood"].update(active=True, since=now, recession_rolls=0)
    state["flood"]["voluntary"] += 1
    return [event, *peace(state, 1, "Voluntary Flooding (1.254)")]


def flood_recession(state: dict[str, Any], tables: Tables, dice: Dice) -> list[Event]:
    """Roll for a flood's recession once it has lasted its minimum turn (1.253): 0-3 ends it,
    each roll after the first at -1 more (the extraction's cumulative reading)."""
    flood = state["flood"]
    if not flood["active"] or calendar.now(state) <= flood["since"]:
        return []
    modifier = [{"rolls-before": -flood["recession_rolls"]}] if flood["recession_rolls"] else []
    found, event = roll_on(
        tables, "flood-recession", "check/flood-recession", dice, "Flood recession (1.253)", modifier
    )
    flood["recession_rolls"] += 1
    if "ends" in effects(found):
        flood.update(active=False, since=None, recession_rolls=0)
    return [event]


# -- the Milice (5.26) ----------------------------------------------------------------------------


def milice_emergency(state: dict[str, Any], dice: Dice, label: str) -> tuple[int, list[Event]]:
    """Roll the Milice emergency deployment (5.264): the die x 10% (at least 20%) of the pool's
    original strength for the year, no more than the pool holds. Return (SPs deployed, events)."""
    milice = state["milice"]
    now = str(calendar.now(state))
    if milice["original"] is None:
        return 0, [Event("milice.no-pool", "The Milice pool for the year is not supplied: no deployment", {})]
    if now in state["milice_deployed"]:
        return 0, []  # one deployment roll a turn: the percentage is "per turn"
    (roll,) = dice.roll("1d10z", label=label)
    sps = arithmetic.milice_emergency(roll, milice["original"], milice["pool"], state["options"]["milice_rounding"])
    milice["pool"] -= sps
    milice["in_france"] = milice.get("in_france", 0) + sps
    state["milice_deployed"][now] = sps
    text = (
        f"Milice emergency deployment (5.264): rolled {roll}, {arithmetic.milice_percent(roll)}% of the "
        f"year's {milice['original']} SPs: {sps} SPs may deploy in France ({milice['pool']} left in the pool)"
    )
    return sps, [Event("milice.deployed", text, {"roll": roll, "sps": sps, "pool": milice["pool"], "label": label})]


def milice_year(state: dict[str, Any]) -> list[Event]:
    """Reset the Emergency pool and the Field Force allowance to the year's amounts (5.265)."""
    pools = state["supplied"].get("milice-pools", {}).get("years", {})
    year = pools.get(str(state["year"]))
    if year is None:
        return []
    state["milice"].update(
        year=state["year"], original=year["pool"], pool=year["pool"], allowance=year["field_force"], converted=0
    )
    return [
        Event(
            "milice.year",
            f"Milice for {state['year']}: Emergency pool {year['pool']} SPs, Field Force allowance "
            f"{year['field_force']} SPs (5.265)",
            {"year": state["year"], **year},
        )
    ]


# -- the Dutch (5.52-5.55) ------------------------------------------------------------------------


def dutch_treaty(state: dict[str, Any], dice: Dice) -> list[Event]:
    """Invoke the Dutch Treaty Obligations (5.521): 20 less a die Dutch SPs and a Dutch leader
    may join the BHG; once a game."""
    (roll,) = dice.roll("1d10z", label="check/dutch-treaty")
    sps = arithmetic.dutch_treaty_sps(roll)
    state["dutch"]["treaty"] = sps
    state["dutch"]["treaty_invasion"] = _invasion_under_way(state)
    text = f"Dutch Treaty Obligations (5.521): rolled {roll}: {sps} Dutch SPs and one Dutch leader may join the BHG"
    return [Event("dutch.treaty", text, {"roll": roll, "sps": sps})]


def dutch_recall(state: dict[str, Any], tables: Tables, dice: Dice) -> list[Event]:
    """Roll the French recall of the Dutch Treaty force (5.523): 0-6 it returns by sea at once."""
    found, event = roll_on(tables, "dutch-treaty-recall", "check/dutch-recall", dice, "Dutch Treaty recall (5.523)")
    state["dutch"]["recall_rolled_in"] = _invasion_under_way(state)
    if "recalled" in effects(found):
        state["dutch"]["recalled"] = True
    return [event]


def dutch_artillery(state: dict[str, Any], tables: Tables, dice: Dice, plan_beyond_defend: bool) -> list[Event]:
    """Roll for the Dutch Artillery Reserves (5.55): 1 or less, -3 with an Allied plan other than Defend."""
    modifiers = ["plan-other-than-defend"] if plan_beyond_defend else []
    found, event = roll_on(
        tables, "dutch-artillery", "check/dutch-artillery", dice, "Dutch Artillery Reserves (5.55)", modifiers
    )
    if "arrive" in effects(found):
        state["dutch"]["artillery"] = True
    return [event]


def _invasion_under_way(state: dict[str, Any]) -> str | None:
    for name in ("descent", "rising"):
        invasion = state["invasions"][name]
        if invasion["start"] is not None and not invasion["over"]:
            return name
    return None


# -- the Russians, the Pox, duels ------------------------------------------------------------------


def russian_entry(state: dict[str, Any], tables: Tables, dice: Dice) -> list[Event]:
    """Roll the Russian Corps' entry (6.432): from 4 turns after it was received, 0-2 enters."""
    russians = state["russians"]
    if russians["received"] is None or russians["entered"] or russians["forfeit"]:
        return []
    if calendar.now(state) < russians["received"] + 4:
        return []
    found, event = roll_on(tables, "russian-entry", "check/russian-entry", dice, "Russian Corps entry (6.432)")
    if "enters" in effects(found):
        russians["entered"] = True
    return [event]


def pox_recovery(state: dict[str, Any], tables: Tables, dice: Dice) -> list[Event]:
    """Roll each sick leader's recovery (7.02): 0-2 recovers, 3-7 no effect, 8-9 dies (a Royal
    lives on with the option royals_never_die_of_pox)."""
    events: list[Event] = []
    still = []
    for index, sick in enumerate(state["sick"]):
        if sick.get("since") == calendar.now(state):
            still.append(sick)
            continue
        found, event = roll_on(
            tables, "pox-recovery", f"check/pox/{index + 1}", dice, f"The Pox: {sick['leader']} ({sick['side']}, 7.02)"
        )
        events.append(event)
        if "recovers" in effects(found):
            events.append(Event("pox.recovered", f"{sick['leader']} recovers from the Pox", dict(sick)))
        elif "dies" in effects(found) and not (sick["royal"] and state["options"]["royals_never_die_of_pox"]):
            state["dead"].append(sick["leader"])
            events.append(Event("pox.died", f"{sick['leader']} dies of the Pox: removed for good", dict(sick)))
        else:
            still.append(sick)
    state["sick"] = still
    return events


def duel(state: dict[str, Any], pair: Sequence[str], sides: Sequence[str], dice: Dice, number: int) -> list[Event]:
    """Fight a duel between personal enemies (7.035): each rolls a die, the higher wins and the
    loser is killed; a winner on the same side as the loser goes to the Officers' Mess. A tie is
    rolled again (option duel_ties: reroll) or leaves both alive (both-live)."""
    first, second = pair
    events: list[Event] = []
    for attempt in range(1, 11):
        label = f"check/duel/{number}" + (f"/again-{attempt - 1}" if attempt > 1 else "")
        a, b = dice.roll("1d10z", label=f"{label}/{first}")[0], dice.roll("1d10z", label=f"{label}/{second}")[0]
        text = f"Duel (7.035): {first} rolls {a}, {second} rolls {b}"
        if a != b:
            winner, loser = (first, second) if a > b else (second, first)
            state["dead"].append(loser)
            state["enemies"] = [p for p in state["enemies"] if sorted(p) != sorted(pair)]
            mess = " and goes to the Officers' Mess" if sides[0] == sides[1] else ""
            events.append(
                Event(
                    "duel.fought", f"{text}: {loser} is killed; {winner} wins{mess}", {"winner": winner, "loser": loser}
                )
            )
            return events
        events.append(Event("duel.tie", f"{text}: a tie", {"pair": list(pair)}))
        if state["options"]["duel_ties"] == "both-live":
            return events
    return events


# -- the scenarios' own checks (9.239, 9.339) -----------------------------------------------------


def jacobite_1745(state: dict[str, Any], tables: Tables, dice: Dice) -> list[Event]:
    """The 1745 scenario's Jacobite check at the start of each turn from June-July to
    September-October (9.239): 0-2 the Rising occurs."""
    rule = SCENARIOS[state["scenario"]].get("jacobite_check")
    if rule is None or state["invasions"]["rising"]["start"] is not None:
        return []
    inside = calendar.between(labels(state), state["turn"], rule["from"], rule["to"])
    if inside is None:
        return [
            Event(
                "check.waiting",
                "Jacobite check (9.239): the calendar is not supplied, so the turn's "
                "label is unknown; no check is made",
                {},
            )
        ]
    if not inside:
        return []
    found, event = roll_on(tables, "jacobite-1745", "check/jacobite-1745", dice, "Jacobite Rising (9.239)")
    if "occurs" not in effects(found):
        return [event]
    return [event, *start_rising(state)]


def charles_1746(state: dict[str, Any], tables: Tables, dice: Dice) -> list[Event]:
    """The 1746 scenario's check for Charles of Lorraine's Army (9.339), from the May turn's
    Administrative Phase: 0-3 in May, 0-6 in June-July, 0-8 later."""
    if SCENARIOS[state["scenario"]].get("charles_check") is None or state["strategic"].get("charles"):
        return []
    found_labels = labels(state)
    may = calendar.turn_of_label(found_labels, "May")
    june = calendar.turn_of_label(found_labels, "June-July")
    if may is None or june is None:
        return [
            Event(
                "check.waiting",
                "Charles of Lorraine's Army (9.339): the calendar is not supplied, so the "
                "May turn is unknown; no check is made",
                {},
            )
        ]
    if state["turn"] < may:
        return []
    column = "may" if state["turn"] == may else "june-july" if state["turn"] == june else "later"
    found, event = roll_on(
        tables, "charles-1746", "check/charles-1746", dice, "Charles of Lorraine's Army (9.339)", column=column
    )
    if "arrives" in effects(found):
        state["strategic"]["charles"] = calendar.now(state)
    return [event]


def milice_return(state: dict[str, Any]) -> list[Event]:
    """No Allied unit remains in France: the Milice deployed in an emergency go back to the pool
    (5.264); SPs outside France beyond the Field Force allowance go back at once (5.263)."""
    milice = state["milice"]
    happened: list[Event] = []
    if milice.get("in_france"):
        back = milice["in_france"]
        milice["pool"] += back
        milice["in_france"] = 0
        happened.append(
            Event(
                "milice.returned",
                f"No Allied unit remains in France: {back} Milice SPs go back to the pool (5.264)",
                {"sps": back},
            )
        )
    return happened + milice_excess(state)


def milice_excess(state: dict[str, Any]) -> list[Event]:
    """Return Milice SPs outside France beyond the allowance to the pool at once (5.263)."""
    milice = state["milice"]
    if milice["allowance"] is None:
        return []
    excess = arithmetic.milice_excess(milice["outside"], milice["allowance"])
    if not excess:
        return []
    milice["outside"] -= excess
    milice["pool"] = (milice["pool"] or 0) + excess
    return [
        Event(
            "milice.excess",
            f"{excess} Milice SPs outside France beyond the allowance of {milice['allowance']} "
            "go back to the pool (5.263)",
            {"sps": excess},
        )
    ]
