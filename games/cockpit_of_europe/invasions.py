"""The two French Invasions of England, the Descent (6.25) and the Jacobite Rising (6.26), and
the British Home Garrison that shortens or prolongs them (5.44).

An invasion's length is its base (10 turns for the Descent from the game's first turn, 12 for
the Rising from the turn it occurs) changed by the BHG each time the Allies report it (5.442),
never below 1 turn. When it ends, the French gain its PP (6.253, 6.266), the BHG's minimum
rises by 20 (5.441), and the sides roll the series' attrition and casualty checks for their
forces in England before the French there are interned (6.242-6.243).
"""

from __future__ import annotations

from typing import Any

from games.cockpit_of_europe import arithmetic, calendar
from games.cockpit_of_europe.ledger import prestige
from referee.kit import Event

BASE = {"descent": arithmetic.DESCENT_TURNS, "rising": arithmetic.RISING_TURNS}
TITLE = {"descent": "the Descent on England", "rising": "the Jacobite Rising"}
HEADING = {"descent": "The Descent on England", "rising": "The Jacobite Rising"}


def under_way(state: dict[str, Any]) -> str | None:
    """Return the invasion under way ("descent" or "rising"), or None."""
    for name in ("descent", "rising"):
        invasion = state["invasions"][name]
        if invasion["start"] is not None and not invasion["over"]:
            return name
    return None


def minimum(state: dict[str, Any]) -> int:
    """Return the BHG's current minimum (5.441): 15, +20 after each invasion has ended."""
    return arithmetic.bhg_minimum(state["invasions"]["descent"]["over"], state["invasions"]["rising"]["over"])


def _length(state: dict[str, Any], name: str) -> int:
    bhg = state["bhg"]
    if bhg["allied"] is None:
        return BASE[name]
    net = arithmetic.bhg_net(bhg["allied"], bhg["french"])
    return arithmetic.invasion_turns(BASE[name], net, minimum(state))


def start_descent(state: dict[str, Any], first_turn: int) -> list[Event]:
    """Launch the Descent on England, its turns counted from `first_turn`: the game's first turn
    (6.252), which option descent_counts_from reads as the March-April turn or the next."""
    descent = state["invasions"]["descent"]
    descent["start"] = first_turn
    descent["end"] = first_turn + _length(state, "descent") - 1
    counted = "the game's first turn" if first_turn == calendar.now(state) else "the game's first full turn"
    return [
        Event(
            "invasion.started",
            f"The Descent on England is launched: {BASE['descent']} full turns from {counted}, "
            "changed by the BHG (6.252, 5.443); the Invasion '44 force redeploys to England (6.21)",
            {"invasion": "descent", "start": first_turn, "end": descent["end"]},
        )
    ]


def start_rising(state: dict[str, Any]) -> list[Event]:
    """Start the Jacobite Rising on this turn: at least 12 full turns, changed by the BHG (6.26)."""
    rising = state["invasions"]["rising"]
    now = calendar.now(state)
    rising["start"] = now
    rising["end"] = now + _length(state, "rising") - 1
    state["strategic"]["occurred"].setdefault("jacobite-rising", []).append(now)
    return [
        Event(
            "invasion.started",
            "The Jacobite Rising occurs: at least 12 full turns, changed by the BHG (6.26, 5.443); the French "
            "may ask permission for the Elements of Invasion Corps '45 in later Administrative Phases (6.264)",
            {"invasion": "rising", "start": now, "end": rising["end"]},
        )
    ]


def report_bhg(state: dict[str, Any], allied: int, british_sps: int) -> list[Event]:
    """Take the Allies' BHG strength (5.446 already counted), reassess any invasion (5.442)
    and keep the year's lowest strength (5.444)."""
    bhg = state["bhg"]
    bhg["allied"], bhg["british_sps"] = allied, british_sps
    bhg["lowest"] = allied if bhg["lowest"] is None else min(bhg["lowest"], allied)
    net = arithmetic.bhg_net(allied, bhg["french"])
    events = [
        Event(
            "bhg.reported",
            f"BHG {allied} (net of the French in England: {net}; minimum {minimum(state)}); "
            f"{arithmetic.british_leaders_required(british_sps)} British leader(s) required in England (5.449)",
            {"allied": allied, "net": net, "minimum": minimum(state), "british_sps": british_sps},
        )
    ]
    name = under_way(state)
    if name is not None:
        invasion = state["invasions"][name]
        invasion["end"] = invasion["start"] + _length(state, name) - 1
        lasts = invasion["end"] - invasion["start"] + 1
        events.append(
            Event(
                "invasion.length",
                f"{HEADING[name]} now lasts {lasts} turns (5.443)",
                {"invasion": name, "end": invasion["end"], "turns": lasts},
            )
        )
    return events


def report_french(state: dict[str, Any], worth: int) -> list[Event]:
    """Take the French SPs or equivalents in England (5.447)."""
    state["bhg"]["french"] = worth
    return [Event("bhg.french", f"French in England: worth {worth} SPs against the BHG (5.447)", {"worth": worth})]


def end_of_turn(state: dict[str, Any]) -> list[Event]:
    """End an invasion whose last turn this was: its PP, the BHG's new minimum, and what the
    sides roll for their forces in England (6.242-6.243, 6.253, 6.266)."""
    name = under_way(state)
    if name is None or calendar.now(state) < state["invasions"][name]["end"]:
        return []
    invasion = state["invasions"][name]
    invasion["over"] = True
    invasion["ended_year"] = state["year"]
    lasted = calendar.now(state) - invasion["start"] + 1
    points = arithmetic.descent_pp(lasted) if name == "descent" else arithmetic.rising_pp(lasted)
    reason = f"{TITLE[name]} lasted {lasted} turns ({'6.253' if name == 'descent' else '6.266'})"
    state["bhg"]["lowest"] = state["bhg"]["allied"]
    state["bhg"]["french"] = 0  # the French in England are interned (6.243)
    return [
        Event(
            "invasion.ended",
            f"{HEADING[name]} ends after {lasted} turns. Each side rolls an Attrition Check for its "
            "forces in England and a Casualty Check for its leaders there; then the French forces in England "
            f"surrender and are interned (6.242-6.243). The BHG minimum is now {minimum(state)} (5.441).",
            {"invasion": name, "turns": lasted},
        ),
        *prestige(state, "france", "pp", points, reason),
    ]


def end_of_year(state: dict[str, Any]) -> list[Event]:
    """Award the BHG's Prestige at the year's (or the scenario's) end: the French 1 PP per 5 SPs
    or fraction the lowest BHG fell below its minimum after an invasion (5.444); else the Allies
    1 PP per 5 full SPs over it, outside an invasion (5.445)."""
    bhg = state["bhg"]
    if bhg["allied"] is None or under_way(state) is not None:
        return []
    after = any(state["invasions"][name]["over"] for name in ("descent", "rising"))
    lowest = bhg["lowest"] if bhg["lowest"] is not None else bhg["allied"]
    events: list[Event] = []
    if after and lowest < minimum(state):
        points = arithmetic.bhg_french_pp(lowest, minimum(state))
        events += prestige(state, "france", "pp", points, f"the BHG fell to {lowest}, below {minimum(state)} (5.444)")
    else:
        points = arithmetic.bhg_allied_pp(bhg["allied"], minimum(state))
        events += prestige(
            state, "allies", "pp", points, f"the BHG stands {bhg['allied']} against {minimum(state)} (5.445)"
        )
    bhg["lowest"] = bhg["allied"]
    return events
