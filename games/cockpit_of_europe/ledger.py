"""The ledger every Cockpit of Europe rule writes to: rolls on a table, the Peace Index (2.2),
Prestige (2.1) and the game's end (2.23, 3.132-3.133, the scenarios' last turn).

Functions take the state as a plain dict they may change (the caller hands them a copy) and
return the events.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.cockpit_of_europe import arithmetic, calendar
from referee.kit import Dice, Event, Lookup, Tables


def roll_on(
    tables: Tables,
    table: str,
    label: str,
    dice: Dice,
    purpose: str,
    modifiers: Sequence[Any] = (),
    column: str | None = None,
) -> tuple[Lookup, Event]:
    """Roll a table's dice under `label`, read it; return the lookup and its public event."""
    read = tables.get(table)
    values = dice.roll(read.dice.text, label=label)
    found = read.lookup(values, modifiers, column)
    text = f"{purpose}: rolled {', '.join(map(str, values))}"
    if found.modifiers:
        text += f", modified to {found.modified}"
    return found, Event(
        "roll", f"{text} - {found.text}", {"label": label, "purpose": purpose, "lookup": found.as_dict()}
    )


def effects(found: Lookup) -> list[str]:
    """Return the effects a lookup's structured result names."""
    return list(found.result.get("effects", [])) if found.structured else []


def peace(state: dict[str, Any], change: int, reason: str) -> list[Event]:
    """Move the Peace Index (campaign only) and end the war when it reaches box 14 (2.23)."""
    if state["peace_index"] is None or change == 0:
        return []
    before = state["peace_index"]
    state["peace_index"] = arithmetic.peace_after(before, change)
    events = [
        Event(
            "peace.moved",
            f"Peace Index {before} -> {state['peace_index']} ({reason})",
            {"from": before, "to": state["peace_index"], "reason": reason},
        )
    ]
    if arithmetic.is_peace(state["peace_index"]) and state["ended"] is None:
        events += end(state, "the Peace Index reached box 14: the Final Peace (2.23)")
    return events


def end(state: dict[str, Any], why: str, loser: str | None = None) -> list[Event]:
    """End the game now: the higher Prestige wins (2.11), or `loser` loses outright (3.132)."""
    if state["ended"] is not None:
        return []
    levels = {side: state["prestige"][side]["level"] for side in state["prestige"]}
    if loser is not None:
        winner = "allies" if loser == "france" else "france"
    elif levels["france"] > levels["allies"]:
        winner = "france"
    elif levels["allies"] > levels["france"] or not state["campaign"]:
        winner = "allies"  # a tie in a minor scenario goes to the Allies (9.138)
    else:
        winner = None
    ended = {"why": why, "winner": winner, "prestige": levels, "turn": calendar.now(state)}
    state["ended"] = ended
    held = ", ".join(
        f"{side} Level {state['prestige'][side]['level']}, {state['prestige'][side]['pp']} PP"
        for side in sorted(levels)
    )
    outcome = (
        f"{WINS[winner]} ({held})"
        if winner
        else f"Prestige Levels are tied ({held}): the series rules (KR&Os 9.0) decide a tie (2.11)"
    )
    return [Event("game.ended", f"The game ends: {why}. {outcome}.", dict(ended))]


WINS = {"allies": "The Allies win", "france": "France wins"}


def prestige(state: dict[str, Any], side: str, kind: str, change: int, reason: str) -> list[Event]:
    """Give `side` PP or Prestige Levels (a loss when `change` is negative)."""
    if change == 0:
        return []
    held = state["prestige"][side]
    before = held[kind]
    held[kind] = max(0, before + change)
    what = "PP" if kind == "pp" else "Prestige Level"
    return [
        Event(
            "prestige.changed",
            f"{side} {what} {before} -> {held[kind]} ({reason})",
            {"side": side, "kind": kind, "from": before, "to": held[kind], "reason": reason},
        )
    ]
