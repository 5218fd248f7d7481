"""Where a Cockpit of Europe side stands, and its own order form for the open phase: drawn from
its view alone (the turn, the Peace Index and Prestige, Le Roi, the Milice, the BHG, the events
in force, its own sealed notes and candidate lists)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.cockpit_of_europe import secrecy
from games.cockpit_of_europe.rules import phase
from games.cockpit_of_europe.views import view
from referee.kit import Example, Fact

# Where Le Roi is, in words (3.13-3.15).
LE_ROI_WHERE = {
    "hq": "with the Armee du Roi HQ",
    "hub": "at the French Hub",
    "captured": "a captive of the Allies (3.133)",
    "wounded": "wounded (3.132)",
    "dead": "dead (3.132)",
}


def standing(state: Mapping[str, Any], side: str) -> list[Fact]:
    """Return where `side` stands."""
    seen = view(state, side)
    facts = [Fact("Turn", seen["calendar"] or "set-up", ())]
    if not seen["calendar_supplied"]:
        facts.append(Fact("Calendar", "the turn record track is not supplied: turns are numbered within the year"))
    if seen["peace_index"] is not None:
        facts.append(Fact("Peace Index", f"{seen['peace_index']} (the war ends at 14)"))
    prestige = seen["prestige"]
    facts.append(
        Fact("Prestige", "; ".join(f"{s}: Level {p['level']}, {p['pp']} PP" for s, p in sorted(prestige.items())))
    )
    where = LE_ROI_WHERE.get(seen["le_roi"]["where"], seen["le_roi"]["where"])
    facts.append(Fact("Le Roi", where + (" - a Royal Whim this turn (3.16)" if seen["le_roi"]["whim"] else "")))
    milice = seen["milice"]
    if milice["original"] is not None:
        facts.append(
            Fact(
                "Milice",
                f"pool {milice['pool']} of {milice['original']}; "
                f"Field Force {milice['outside']} of {milice['allowance']}",
            )
        )
    bhg = seen["bhg"]
    if bhg["allied"] is not None:
        facts.append(Fact("BHG", f"{bhg['allied']} (minimum {bhg['minimum']}; French in England {bhg['french']})"))
    drawn = seen["random_event"]
    if drawn and drawn["turn"] == seen["absolute_turn"]:  # a Random Event is the turn's it was rolled in
        facts.append(Fact("Random Event this turn", drawn["event"].replace("-", " ").capitalize() + " (7.01)"))
    if seen["sick"]:
        facts.append(Fact("Sick with the Pox", "", tuple(f"{s['leader']} ({s['side']})" for s in seen["sick"])))
    if seen["enemies"]:
        facts.append(Fact("Personal enemies", "", tuple(" and ".join(pair) for pair in seen["enemies"])))
    live = {entry["kind"].replace("_", "-") for entry in seen["standing"]}
    mine = [
        n
        for n in seen["notes"]
        if n["by"] == side
        and n["revealed"] is None
        and (not n["id"].startswith("standing-") or n["id"].rsplit("-", 1)[0].removeprefix("standing-") in live)
    ]
    if mine:
        facts.append(Fact("Your sealed notes", str(len(mine)), tuple(n["id"] for n in mine)))
    pools = seen["candidates"].get(side, {})
    if pools:
        facts.append(
            Fact("Your candidate lists", "", tuple(f"{pool}: {len(items)}" for pool, items in sorted(pools.items())))
        )
    if seen["ended"]:
        facts.append(Fact("Game over", seen["ended"]["why"]))
    spec = phase(state)
    if spec is not None and side in spec.active:
        facts.append(Fact("Awaited from you", f"your orders for {spec.title}"))
    return facts


def example(state: Mapping[str, Any], side: str) -> Example | None:
    """Return `side`'s order form for the open phase: nothing to decide, with notes naming what
    each field takes (a form sent unchanged is accepted and changes nothing)."""
    spec = phase(state)
    if spec is None or side not in spec.active:
        return None
    orders: dict[str, Any] = {}
    notes = {"orders.rolls": "series procedures: [{label, table, purpose, modifiers}] on the supplied series tables"}
    seen = view(state, side)
    if spec.name == "set-up":
        orders["setup"] = "your set-up, sealed until the game's end"
        notes["orders.plan"] = "your campaign plan(s), sealed"
        notes["orders.candidates"] = "; ".join(secrecy.POOLS)
        if side == "france" and seen["invasions"]["descent"]["possible"]:
            orders["descent"] = "decline"
            notes["orders.descent"] = (
                "launch or decline: the Descent on England (6.25), sealed until the set-up's report; "
                "launch begins the game with the March-April Administrative Phase (9.533)"
            )
    elif spec.name == "start-of-turn" and seen["enemies"]:
        notes["orders.challenge"] = "[{challenger, target}] among: " + "; ".join(
            " and ".join(p) for p in seen["enemies"]
        )
    elif spec.name == "administration":
        notes["orders.candidates"] = "your lists for this turn's random picks: " + ", ".join(secrecy.POOLS)
        notes["orders.standing"] = "standing orders for the Operations Phase (milice, town_independence)"
    elif spec.name == "operations":
        notes["orders.prestige"] = "[{kind: pp or level, change, reason}] by the series rules"
    return Example(orders, notes)
