"""What the referee supplies (docs/supply.md): the parts of Clash of Sovereigns our copy of the
book lacks. The card texts and values, hand sizes and draw timing, the power order, the combat,
siege, interception, withdrawal and leader-casualty tables, the army and leader ratings and
the Day of Battle cards are on components or pages that did not reach us; the game never
invents them. Until the cards, hands, power order and track starts are supplied the game is held
at its start.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.clash_of_sovereigns.seats import DECKS, POWERS
from referee.kit import (
    GameDataError,
    Need,
    Problem,
    Supplies,
    Wanted,
    packaged_need,
    parse_tables,
    placeholders,
    thaw,
)

PACKAGE = "games.clash_of_sovereigns"
SEASONS = ("late-winter", "spring", "summer", "fall", "winter")  # 4.0
USES = ("operations", "event", "interrupt", "tac", "spring", "depot", "leader", "winter", "colonial-influence")
CARD_ID = r"[a-z0-9][a-z0-9_.-]{0,47}"
SOVEREIGNS = ("louis-xv", "george-ii")  # 22.5
TABLE_EFFECTS: dict[str, tuple[str, ...]] = {
    "crt": (),
    "siege": ("advance", "hold", "breach", "besieger-loses-1", "garrison-loses-1"),
    "interception": ("succeeds", "fails"),
    "withdrawal": ("succeeds", "fails"),
    "leader-casualty": ("leader-lost", "leader-safe"),
    "naval-interception": ("succeeds", "fails"),
}
TABLE_BOOK = {
    "crt": "the Combat/Siege Table card: the CRT (13.6)",
    "siege": "the Combat/Siege Table card: the siege table (15.4.3)",
    "interception": "Interception, 9.2 (illegible in our copy)",
    "withdrawal": "Withdrawal, 10.2 (illegible in our copy)",
    "leader-casualty": "Leader casualties, 13.6.2 (illegible in our copy)",
    "naval-interception": "Naval Interception, 16.3 (illegible in our copy)",
}
TABLE_TITLES = {
    "crt": "the combat results table (CRT)",
    "siege": "the siege table",
    "interception": "the interception table",
    "withdrawal": "the withdrawal table",
    "leader-casualty": "the leader casualty table",
    "naval-interception": "the naval interception table",
}
TABLE_USE = {
    "crt": "every Major Battle",
    "siege": "every siege roll",
    "interception": "a sealed interception that is triggered",
    "withdrawal": "a sealed withdrawal that is triggered",
    "leader-casualty": "every Major Battle (one 2d6 roll a side)",
    "naval-interception": "a sealed naval interception of a fleet sortie",
}

_CARD_SHAPE = {
    "type": "map",
    "required": ["id", "name", "cp", "uses"],
    "fields": {
        "id": {"type": "str", "pattern": CARD_ID, "description": "the card's id, lower case (f29, b33)"},
        "name": {"type": "str", "max": 100},
        "cp": {"type": "int", "min": 0, "max": 9, "description": "its Command Points (6.4)"},
        "uses": {"type": "list", "max": len(USES), "items": {"type": "str", "enum": list(USES)}},
        "period": {"type": "str", "enum": ["early", "mid", "late"], "description": "its war period (default early)"},
        "one_time": {"type": "bool", "description": "removed once played as an event (6.5.2)"},
        "stays_in_play": {"type": "bool", "description": "its event stays on the table until ended"},
        "sovereign": {"type": "str", "enum": list(SOVEREIGNS), "description": "the sovereign it sends to the field"},
        "colonial_event": {"type": "str", "enum": ["louisbourg", "india"], "description": "its Colonial Event's area"},
        "fleet_sortie": {"type": "bool", "description": "a Fleet Sortie card (16.1, 22.7)"},
        "text": {"type": "str", "max": 2000, "description": "the card's text"},
        "tac": {
            "type": "map",
            "description": "as a Tac card (13.5): its DRMs and what it needs",
            "fields": {
                "own": {"type": "int", "min": -9, "max": 9, "description": "DRM to its player's roll"},
                "enemy": {"type": "int", "min": -9, "max": 9, "description": "DRM to the enemy's roll"},
                "cavalry_sp": {"type": "int", "min": 0, "max": 99, "description": "cavalry SP its side needs"},
                "power": {"type": "str", "enum": list(POWERS), "description": "a power its side must field"},
            },
        },
    },
}
CARDS_SHAPE = {
    "type": "map",
    "required": ["decks"],
    "fields": {
        "decks": {
            "type": "list",
            "min": 1,
            "max": len(DECKS),
            "items": {
                "type": "map",
                "required": ["deck", "cards"],
                "fields": {
                    "deck": {"type": "str", "enum": list(DECKS)},
                    "cards": {"type": "list", "min": 1, "max": 100, "items": _CARD_SHAPE},
                },
            },
        },
        "periods": {
            "type": "list",
            "max": 2,
            "description": "when the mid and late war cards come in",
            "items": {
                "type": "map",
                "required": ["period", "year"],
                "fields": {
                    "period": {"type": "str", "enum": ["mid", "late"]},
                    "year": {"type": "int", "min": 1740, "max": 1748},
                    "season": {"type": "str", "enum": list(SEASONS)},
                },
            },
        },
    },
}
_SOURCE = {"type": "str", "max": 200, "description": "where in your rulebook you read it"}
HANDS_SHAPE = {
    "type": "map",
    "required": ["sizes", "draw_in"],
    "fields": {
        "source": _SOURCE,
        "sizes": {
            "type": "list",
            "min": len(DECKS),
            "max": len(DECKS),
            "items": {
                "type": "map",
                "required": ["deck", "size"],
                "fields": {"deck": {"type": "str", "enum": list(DECKS)}, "size": {"type": "int", "min": 1, "max": 20}},
            },
        },
        "draw_in": {
            "type": "list",
            "min": 1,
            "max": len(SEASONS),
            "items": {"type": "str", "enum": list(SEASONS)},
            "description": "the seasons at whose start every deck draws up to its hand size",
        },
    },
}
ORDER_SHAPE = {
    "type": "map",
    "required": ["order"],
    "fields": {
        "source": _SOURCE,
        "order": {
            "type": "list",
            "min": 1,
            "max": len(POWERS),
            "items": {"type": "str", "enum": list(POWERS)},
            "description": "the powers in the order they take their turns each season",
        },
    },
}
# Every power's VP, Event VP and MW tracks (20.1, 20.1.1, 19.0): their starting values are in
# the absent Play Book's set-ups, so the referee supplies them.
TRACK_IDS = tuple(f"{kind}-{power}" for power in POWERS for kind in ("vp", "event-vp", "mw"))
TRACK_STARTS_SHAPE = {
    "type": "map",
    "required": ["starts"],
    "fields": {
        "source": _SOURCE,
        "starts": {
            "type": "list",
            "min": 1,
            "max": len(TRACK_IDS),
            "items": {
                "type": "map",
                "required": ["track", "start"],
                "fields": {
                    "track": {"type": "str", "enum": list(TRACK_IDS)},
                    "start": {"type": "int", "min": -99, "max": 999, "description": "its value at the start"},
                },
            },
            "description": "every track's starting value, each track once",
        },
    },
}
RATINGS_SHAPE = {
    "type": "map",
    "required": ["armies", "leaders"],
    "fields": {
        "armies": {
            "type": "list",
            "min": 1,
            "max": 200,
            "items": {
                "type": "map",
                "required": ["nation", "rating"],
                "fields": {
                    "nation": {"type": "str", "max": 40},
                    "rating": {"type": "int", "min": 0, "max": 9},
                    "from_year": {"type": "int", "min": 1740, "max": 1748},
                },
            },
        },
        "leaders": {
            "type": "list",
            "min": 1,
            "max": 200,
            "items": {
                "type": "map",
                "required": ["name", "power", "initiative", "ap", "rating"],
                "fields": {
                    "name": {"type": "str", "max": 40},
                    "power": {"type": "str", "enum": list(POWERS)},
                    "initiative": {"type": "int", "min": 0, "max": 9, "description": "CP to activate (8.2)"},
                    "ap": {"type": "int", "min": 1, "max": 20, "description": "AP rating (8.4)"},
                    "rating": {"type": "int", "min": 0, "max": 9, "description": "commander rating (13.3.2)"},
                },
            },
        },
    },
}
DB_SHAPE = {
    "type": "map",
    "required": ["cards"],
    "fields": {
        "cards": {
            "type": "list",
            "min": 1,
            "max": 10,
            "items": {
                "type": "map",
                "required": ["id", "land", "large"],
                "fields": {
                    "id": {"type": "str", "pattern": CARD_ID},
                    "land": {"type": "str", "max": 500, "description": "its land battles (10-89 SP) text"},
                    "large": {"type": "str", "max": 500, "description": "its Large Battles (90 SP+) text"},
                    "large_halves_losses": {"type": "bool", "description": "halve each side's losses, up"},
                },
            },
        }
    },
}


def _need(need_id: str, file: str, title: str, book: str, needed_by: str, shape: Any, kind: str = "data") -> Need:
    return packaged_need(PACKAGE, need_id, title, book, needed_by, shape, kind, file=file)  # type: ignore[arg-type]


NEEDS = (
    _need(
        "cards",
        "cards",
        "the Strategy Cards: each deck's cards, CP, uses and texts",
        "the 153 Strategy Cards (2.0, 6.1)",
        "the game's start (the decks are dealt)",
        CARDS_SHAPE,
    ),
    _need(
        "hands",
        "hands",
        "each deck's hand size and when hands are drawn",
        "Strategy Cards, 6.2 (illegible in our copy)",
        "the game's start",
        HANDS_SHAPE,
    ),
    _need(
        "power_order",
        "power_order",
        "the order in which the powers take their turns",
        "Sequence of Play, 4.0.1 (absent from our copy)",
        "the game's start",
        ORDER_SHAPE,
    ),
    _need(
        "track_starts",
        "track_starts",
        "the starting values of the VP, Event VP and MW tracks",
        "the scenario set-ups of the Play Book (absent from our copy; 19.0, 20.1)",
        "the game's start",
        TRACK_STARTS_SHAPE,
    ),
    _need(
        "ratings",
        "ratings",
        "the army ratings by nation and the leaders' initiative, AP and battle ratings",
        "the counters and the Army Ratings track (3.0, 13.3)",
        "an activation or a Major Battle",
        RATINGS_SHAPE,
    ),
    _need(
        "day_of_battle",
        "day_of_battle",
        "the ten Day of Battle cards",
        "the Day of Battle cards (22.1)",
        "a Major Battle with option day_of_battle",
        DB_SHAPE,
    ),
    *(
        _need(
            f"tables/{table}",
            f"tables-{table}",
            TABLE_TITLES[table],
            TABLE_BOOK[table],
            TABLE_USE[table],
            {"type": "any", "description": "a table in the shared table format"},
            "table",
        )
        for table in TABLE_EFFECTS
    ),
)
AT_START = ("cards", "hands", "power_order", "track_starts")
START_WHY = {
    "cards": "the decks are made of them and dealt at the start",
    "hands": "the first hands are drawn to these sizes at the start",
    "power_order": "the first power turn goes to the first power in it",
    "track_starts": "the tracks are set to them when the decks are dealt",
}


def supplied(state: Mapping[str, Any], need: str) -> Any:
    """Return what the referee supplied for a need, or None."""
    return state["supplied"].get(need)


def wanted(state: Mapping[str, Any]) -> list[Wanted]:
    """Return when each need matters: the start's three now until supplied, the rest later."""
    found = []
    for need in NEEDS:
        if supplied(state, need.id) is not None:
            found.append(Wanted(need.id, "supplied"))
        elif need.id == "day_of_battle" and not state["options"]["day_of_battle"]:
            found.append(Wanted(need.id, "never", "option day_of_battle (22.1) is off"))
        elif need.id in AT_START and state["step"]["kind"] == "start":
            # Blocking: the start is held (docs/supply.md) and every seat told it waits on its referee.
            found.append(Wanted(need.id, "now", START_WHY[need.id]))
        else:
            found.append(Wanted(need.id, "later", f"read by {need.needed_by}"))
    return found


def supply(state: Mapping[str, Any], need_id: str, data: Any) -> tuple[Any, list[Problem]]:
    """Return (the state with the need supplied, []) or (the state, the problems)."""
    data = thaw(data)
    problems = placeholders(data)
    if need_id == "cards":
        problems += _card_problems(data)
    elif need_id == "hands":
        problems += _hand_problems(data)
    elif need_id == "track_starts":
        problems += _track_start_problems(data)
    elif need_id.startswith("tables/"):
        problems += _table_problems(need_id.removeprefix("tables/"), data)
    elif need_id not in {need.id for need in NEEDS}:
        problems.append(Problem("invalid.supply.need", "supplies", f"clash-of-sovereigns needs no {need_id!r}"))
    if problems:
        return thaw(state), problems
    new = thaw(state)
    new["supplied"][need_id] = data
    return new, []


def _card_problems(data: Mapping[str, Any]) -> list[Problem]:
    problems = []
    seen_decks = set()
    for d, entry in enumerate(data["decks"]):
        if entry["deck"] in seen_decks:
            problems.append(Problem("invalid.supply.duplicate", f"data.decks[{d}].deck", "each deck once"))
        seen_decks.add(entry["deck"])
        ids = set()
        for c, card in enumerate(entry["cards"]):
            where = f"data.decks[{d}].cards[{c}]"
            if card["id"] in ids:
                problems.append(
                    Problem("invalid.supply.duplicate", f"{where}.id", f"card {card['id']} is listed twice")
                )
            ids.add(card["id"])
            if "tac" in card["uses"] and "tac" not in card:
                problems.append(
                    Problem(
                        "invalid.supply.tac",
                        f"{where}.tac",
                        "a card used as a Tac card gives its DRMs: tac: {own, enemy}",
                    )
                )
    missing = sorted(set(DECKS) - seen_decks)
    if missing:
        problems.append(
            Problem("invalid.supply.decks", "data.decks", f"every deck is needed; missing: {', '.join(missing)}")
        )
    return problems


def _hand_problems(data: Mapping[str, Any]) -> list[Problem]:
    decks = [entry["deck"] for entry in data["sizes"]]
    if sorted(decks) != sorted(DECKS):
        return [Problem("invalid.supply.decks", "data.sizes", f"give each deck once: {', '.join(DECKS)}")]
    return []


def _track_start_problems(data: Mapping[str, Any]) -> list[Problem]:
    given = [entry["track"] for entry in data["starts"]]
    twice = sorted({track for track in given if given.count(track) > 1})
    missing = [track for track in TRACK_IDS if track not in given]
    problems = []
    if twice:
        problems.append(
            Problem("invalid.supply.duplicate", "data.starts", f"each track once; twice: {', '.join(twice)}")
        )
    if missing:
        problems.append(
            Problem(
                "invalid.supply.tracks", "data.starts", f"every track's start is needed; missing: {', '.join(missing)}"
            )
        )
    return problems


def _table_problems(table: str, data: Any) -> list[Problem]:
    try:
        parsed = parse_tables({"schema_version": 1, "tables": {table: data}}, "data", TABLE_EFFECTS[table])[table]
    except GameDataError as error:
        return [Problem("invalid.table", "data", str(error))]
    if table == "crt":
        if parsed.columns is None or not all(
            column.startswith("sp-") and column[3:].isdigit() for column in parsed.columns
        ):
            return [
                Problem("invalid.table", "data.columns", "the CRT's columns are named by their least SP: [sp-1, sp-35]")
            ]
        if "drm" not in parsed.ranges:
            return [
                Problem(
                    "invalid.table",
                    "data.modifiers",
                    "the CRT takes the battle's net DRM: modifiers: {drm: {min: -9, max: 9}}",
                )
            ]
    if table == "leader-casualty" and parsed.dice.text != "2d6":
        return [Problem("invalid.table", "data.dice", "leader casualties roll 2d6 (13.6.2: 2-11 and 12)")]
    return []


SUPPLIES = Supplies(needs=NEEDS, wanted=wanted, supply=supply)
