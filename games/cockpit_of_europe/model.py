"""Cockpit of Europe's state and its data: the two sides, the scenarios (data/scenarios.yaml),
the book's own d10 checks (data/tables.yaml), the game's options, and the new game's state.

The state is plain JSON data. It holds what the exclusive rules fix and a referee must keep
(the calendar, the Peace Index, Prestige, Le Roi, the Milice, the BHG, the strategic events'
flags and timers, sick leaders and personal enemies); the board itself stays with the players,
who report to the module what the series rules decide on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.cockpit_of_europe import calendar
from referee.kit import GameDataError, Tables, load_data, parse_tables

PACKAGE = "games.cockpit_of_europe"
SIDES = ("allies", "france")
SCENARIOS: dict[str, Any] = load_data(PACKAGE, "scenarios.yaml")["scenarios"]
BOOK_TABLES = Tables(parse_tables(load_data(PACKAGE, "tables.yaml"), "cockpit-of-europe data/tables.yaml"))

# The start-of-administration rolls, whose order the book does not give (option admin_rolls).
ADMIN_ROLLS = ("kings-ennui", "russian-entry", "element-delay")
OPTIONS = {
    "rounds": "how many turns the game lasts at most (a whole number; leave out: the scenario's own end)",
    "admin_rolls": "the order of the rolls at the beginning of the Administrative Phase, which the book "
    "does not give: a list of kings-ennui, russian-entry, element-delay (default in that order, the "
    "order of their cases 3.15, 6.432, 6.265)",
    "duel_ties": "a tied duel, which the book does not settle (7.035): reroll (default) or both-live",
    "milice_rounding": "a Milice emergency share that is not whole (5.264, not stated): down (default, the "
    "series' rule for fractions) or up",
    "descent_in_1744": "the 1744 scenario plays the Descent on England, by both players' agreement (9.1): "
    "true or false (default)",
    "royals_never_die_of_pox": "the book's optional rule (7.02): a Royal's Pox roll of 8-9 is no effect "
    "(default false)",
}
DUEL_TIES = ("reroll", "both-live")
ROUNDINGS = ("down", "up")
# Whether the Descent's ten turns (6.252, "beginning with the first turn of the game") count the
# March-April turn that has only an Administrative Phase (9.139, 9.533): the book does not say.
DESCENT_COUNTS_FROM = ("march-april", "april-may")
MARCH_APRIL = "March-April"  # the label of the Descent's opening turn (9.139, 9.533)


def roles(scenario: str, options: Mapping[str, Any]) -> tuple[str, ...]:
    """Return the two sides: the Allies and France."""
    return SIDES


def other(side: str) -> str:
    """Return the other side."""
    return SIDES[1 - SIDES.index(side)]


def parse_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Return the game's options with their defaults, checked; raise GameDataError naming a mistake."""
    rounds = options.get("rounds")
    if rounds is not None and (isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1):
        raise GameDataError(f"option 'rounds' must be a whole number of at least 1, got {rounds!r}")
    order = options.get("admin_rolls", list(ADMIN_ROLLS))
    if not isinstance(order, list) or sorted(order) != sorted(ADMIN_ROLLS):
        raise GameDataError(
            f"option 'admin_rolls' must list each of {', '.join(ADMIN_ROLLS)} once, in the order to roll them"
        )
    ties = options.get("duel_ties", "reroll")
    if ties not in DUEL_TIES:
        raise GameDataError(f"option 'duel_ties' must be one of {', '.join(DUEL_TIES)}, got {ties!r}")
    rounding = options.get("milice_rounding", "down")
    if rounding not in ROUNDINGS:
        raise GameDataError(f"option 'milice_rounding' must be one of {', '.join(ROUNDINGS)}, got {rounding!r}")
    counted = options.get("descent_counts_from", "march-april")
    if counted not in DESCENT_COUNTS_FROM:
        raise GameDataError(
            f"option 'descent_counts_from' must be one of {', '.join(DESCENT_COUNTS_FROM)}, got {counted!r}"
        )
    flags = {}
    for name in ("descent_in_1744", "royals_never_die_of_pox"):
        value = options.get(name, False)
        if not isinstance(value, bool):
            raise GameDataError(f"option '{name}' must be true or false, got {value!r}")
        flags[name] = value
    return {
        "rounds": rounds,
        "admin_rolls": list(order),
        "duel_ties": ties,
        "milice_rounding": rounding,
        "descent_counts_from": counted,
        **flags,
    }


def new_state(scenario: str, players: Sequence[str], options: Mapping[str, Any]) -> dict[str, Any]:
    """Return the state before the set-up phase: the scenario's Prestige, Peace Index and flags."""
    if scenario not in SCENARIOS:
        raise GameDataError(f"no scenario {scenario!r}; scenarios: {', '.join(SCENARIOS)}")
    if sorted(players) != list(SIDES):
        raise GameDataError(f"Cockpit of Europe is played by {' and '.join(SIDES)}, not {', '.join(players)}")
    data = SCENARIOS[scenario]
    chosen = parse_options(options)
    campaign = bool(data["campaign"])
    descent_possible = campaign or (scenario == "rosbifs-1744" and chosen["descent_in_1744"])
    return {
        "scenario": scenario,
        "campaign": campaign,
        "players": list(SIDES),
        "options": chosen,
        "round": 1,
        "stage": "set-up",
        "year": data["year"],
        "turn": 1,  # placed on the scenario's opening turn once the set-up is adjudicated
        "phase": "set-up",
        "turns_played": 0,
        "peace_index": 0 if campaign else None,
        "prestige": {side: {"level": data["prestige"][side], "pp": data["pp"][side]} for side in SIDES},
        "le_roi": {"where": "hq", "captured_year": None, "whim": None, "whim_battle_turn": None},
        "demonstration": None,  # {"started": turn, "marker": 5}
        "flood": {"active": False, "since": None, "recession_rolls": 0, "next_request": None, "voluntary": 0},
        "milice": {
            "year": None,
            "original": None,
            "pool": None,
            "allowance": None,
            "outside": 0,
            "converted": 0,
            "in_france": 0,
        },
        "milice_deployed": {},  # absolute turn -> SPs deployed that turn
        "allied_units_in_france": False,
        "bhg": {"allied": None, "french": 0, "british_sps": 0, "lowest": None},
        "invasions": {
            "descent": {"possible": descent_possible, "decided": None, "start": None, "end": None, "over": False},
            "rising": {"start": None, "end": None, "over": False, "elements": 0, "permission_rolls": []},
        },
        "dutch": {
            "treaty": None,
            "treaty_invasion": None,
            "recalled": False,
            "recall_rolled_in": None,
            "artillery": False,
        },
        "strategic": {
            "occurred": {},  # event id -> [absolute turns]
            "timers": [],  # {"event", "at", "what"}: checks and releases due on a turn
            "orange_revolution": bool(data.get("orange_revolution", False)),
        },
        "russians": {"received": None, "entered": False, "forfeit": False},
        "cantabres": None,
        "black_watch": False,
        "austrian_penalty": 0,
        "cumberland": campaign and data["year"] >= 1745,
        "random_event": None,
        "captured_orders": None,
        "town_independence": None,
        "sick": [],  # [{"leader", "side", "royal"}]
        "enemies": [],  # [[leader, leader]]
        "dead": [],
        "notes": [],  # hidden notes (referee.kit.procedure.hidden_notes): set-ups, plans, standing orders
        "candidates": {},  # side -> pool -> {"turn", "openings"}: committed candidate lists
        "embarked": [],  # sea movements: {"side", "force", "note", "turn"}
        "standing": [],  # {"side", "kind", "note", "turn"}: standing orders of this turn
        "tables": None,  # the series tables the referee supplies (need series-tables)
        "supplied": {},  # need id -> data
        "last_rolls": [],
        "admin_only_turn": None,  # absolute turn of the March-April turn of the Descent (9.533)
        "ended": None,
    }


def tables_of(state: Mapping[str, Any]) -> Tables:
    """Return every table the game reads: the book's d10 checks, the referee's supplied charts
    (as `chart-<need>`), and the series tables supplied for the players' own procedures."""
    found = {name: BOOK_TABLES.get(name) for name in BOOK_TABLES.names()}
    if state.get("tables"):
        found.update(parse_tables(state["tables"], "the supplied series tables"))
    for need, data in sorted(state["supplied"].items()):
        if isinstance(data, Mapping) and "table" in data:
            table_id = f"chart-{need}"
            # The supply checked the effects against the game's vocabulary: they are the table's own.
            named = sorted({e for row in data["table"]["rows"] for e in _effects(row.get("result"))})
            found[table_id] = parse_tables({"schema_version": 1, "tables": {table_id: data["table"]}}, need, named)[
                table_id
            ]
    return Tables(found)


def _effects(result: Any) -> list[str]:
    if isinstance(result, Mapping):
        return list(result.get("effects", []))
    return []


def labels(state: Mapping[str, Any]) -> list[str] | None:
    """Return the supplied turn labels of a year, or None until the referee supplies them."""
    supplied = state["supplied"].get("calendar")
    return list(supplied["labels"]) if supplied else None


def season(state: Mapping[str, Any]) -> str | None:
    """Return the season of the state's turn from the supplied calendar, or None."""
    supplied = state["supplied"].get("calendar")
    return supplied["seasons"][state["turn"] - 1] if supplied and supplied.get("seasons") else None


def turn_name(state: Mapping[str, Any], year: int | None = None, turn: int | None = None) -> str:
    """Return a turn's name ("April-May 1745", or "turn 4 of 1745" without the calendar)."""
    return calendar.label(
        labels(state), state["year"] if year is None else year, state["turn"] if turn is None else turn
    )


def opening_turn(state: Mapping[str, Any]) -> int:
    """Return the turn of the year the scenario opens on: its label's place in the supplied
    calendar, or turn 1 until the calendar is supplied (the stand-in the README names)."""
    found = calendar.turn_of_label(labels(state), SCENARIOS[state["scenario"]]["opens"])
    return found or 1


def admin_only_turn(state: Mapping[str, Any]) -> int:
    """Return the turn of the year of the March-April turn that opens a game playing the Descent
    (9.139, 9.533): its label in the supplied calendar (which the supply checks stands just before
    the scenario's opening label), or turn 1 until the calendar is supplied (the stand-in the
    README names; the scenario's first full turn is then turn 2)."""
    return calendar.turn_of_label(labels(state), MARCH_APRIL) or 1


def first_full_turn(state: Mapping[str, Any]) -> int:
    """Return the absolute number of the game's first turn of all four phases: the turn after
    the March-April Administrative Phase of the Descent (9.533), else the game's first turn."""
    only = state.get("admin_only_turn")
    return only + 1 if only is not None else int(state["first_turn"])


def closing_turn(state: Mapping[str, Any]) -> int | None:
    """Return the absolute turn the scenario closes on (None: the campaign, open-ended): its
    label in the supplied calendar, or turn 16 of its year until then."""
    data = SCENARIOS[state["scenario"]]
    if data["closes"] is None:
        return None
    found = calendar.turn_of_label(labels(state), data["closes"])
    return calendar.absolute(data["year"], found or calendar.TURNS_A_YEAR)
