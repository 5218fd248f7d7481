"""The shape of each phase's orders (referee.kit.schema's language), their examples and defaults.

Examples are what each phase's notice offers as a ready-to-fill order file; they are valid
for every active player in any state, so they give the shape with empty lists.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

ID = r"[A-Za-z0-9][A-Za-z0-9_-]{0,47}"


def _id(description: str, example: str) -> dict[str, Any]:
    return {"type": "str", "pattern": ID, "max": 48, "description": description, "example": example}


def _ids(description: str, example: str, high: int = 100) -> dict[str, Any]:
    return {"type": "list", "max": high, "items": _id("an id", example), "description": description}


STANDING: dict[str, Any] = {
    "type": "map",
    "description": "standing orders for your defending bases, kept until you change them (never shown to others)",
    "fields": {
        "respond": {
            "type": "str",
            "enum": ["fight", "decline"],
            "description": "after 'no effect', does a defending base fight the defender response round?",
        },
        "bases": {
            "type": "list",
            "description": "exceptions for single bases",
            "items": {
                "type": "map",
                "required": ["base", "respond"],
                "fields": {
                    "base": _id("one of your bases", "W"),
                    "respond": {"type": "str", "enum": ["fight", "decline"]},
                },
            },
        },
    },
}

BID: dict[str, Any] = {
    "type": "map",
    "required": ["bid"],
    "fields": {
        "bid": {
            "type": "int",
            "min": 1,
            "max": 1000,
            "description": "your sealed Tempo bid: at least 1, at most your TP",
        },
        "standing": STANDING,
    },
}

COMMAND: dict[str, Any] = {
    "type": "map",
    "fields": {
        "allocate": {
            "type": "list",
            "description": "Tempo points given to your generals for this turn's orders",
            "items": {
                "type": "map",
                "required": ["general", "tp"],
                "fields": {
                    "general": _id("a general commanding one of your divisions, or your C-in-C", "van-gelder"),
                    "tp": {"type": "int", "min": 0, "max": 1000},
                },
            },
        },
        "rally": {
            "type": "list",
            "description": "shaken bases trying to rally (needs the referee's rally table)",
            "items": {
                "type": "map",
                "required": ["base"],
                "fields": {
                    "base": _id("a shaken base", "M"),
                    "modifiers": _ids("rally table modifiers", "general-present", 10),
                },
            },
        },
        "generals": {
            "type": "list",
            "description": "generals joining a base (at risk when it fights) or leaving the troops",
            "items": {
                "type": "map",
                "required": ["general"],
                "fields": {
                    "general": _id("one of your generals", "van-gelder"),
                    "join": _id("a base to join", "X"),
                    "leave": {"type": "bool"},
                },
            },
        },
        "standing": STANDING,
    },
}

BOMBARDMENT: dict[str, Any] = {
    "type": "map",
    "fields": {
        "fire": {
            "type": "list",
            "description": "artillery fire (needs the referee's bombardment table)",
            "items": {
                "type": "map",
                "required": ["battery", "target"],
                "fields": {
                    "battery": _id("one of your artillery bases", "G1"),
                    "target": _id("an enemy base", "V"),
                    "modifiers": _ids("bombardment table modifiers", "long-range", 10),
                },
            },
        },
    },
}

MOVES: dict[str, Any] = {
    "type": "map",
    "fields": {
        "moves": {
            "type": "list",
            "description": "one order per group of brigades of one division acting together",
            "items": {
                "type": "map",
                "required": ["order", "brigades"],
                "fields": {
                    "order": {
                        "type": "str",
                        "enum": ["move", "continue", "dismount", "remount", "limber", "unlimber"],
                        "description": "move (march, advance, wheel, retire), continue (a redeployment's later "
                        "turns), dismount/remount dragoons, limber/unlimber guns",
                    },
                    "brigades": {**_ids("the group's brigades", "X", 20), "min": 1},
                    "by": _id("unlimber only: the division whose move unlimbers the guns (no TP)", "van-gelder"),
                    "note": {"type": "str", "max": 300, "description": "where to, in words, for the other players"},
                },
            },
        },
    },
}

ROUND_ORDERS = {
    "type": "list",
    "max": 3,
    "description": "for each round, your bases in the order they fight; in a continuing round a listed base "
    "out of contact advances back into contact",
    "items": _ids("bases in fighting order", "X", 50),
}
SUPPORT = {
    "type": "list",
    "description": "bases supported by another base of their division beside or behind them",
    "items": {
        "type": "map",
        "required": ["base", "by"],
        "fields": {"base": _id("a base in a pair", "X"), "by": {**_ids("its supporters", "W", 4), "min": 1}},
    },
}

CONTACT: dict[str, Any] = {
    "type": "map",
    "fields": {
        "attacks": {
            "type": "list",
            "description": "new attacks, one per attacking division",
            "items": {
                "type": "map",
                "required": ["division", "target", "pairs"],
                "fields": {
                    "division": _id("your attacking division", "van-gelder"),
                    "target": _id("the enemy division attacked", "de-salon"),
                    "pairs": {
                        "type": "list",
                        "min": 1,
                        "max": 50,
                        "description": "bases in contact once the line has conformed: [your base, enemy base]",
                        "items": {"type": "list", "min": 2, "max": 2, "items": _id("a base", "X")},
                    },
                    "support": SUPPORT,
                    "rounds": ROUND_ORDERS,
                    "column": {"type": "bool", "description": "true if the target is caught in march column (defile)"},
                },
            },
        },
        "engagements": {
            "type": "list",
            "description": "orders for engagements carried over from earlier turns (Tempo side only)",
            "items": {
                "type": "map",
                "required": ["engagement"],
                "fields": {"engagement": _id("an engagement id", "e1"), "rounds": ROUND_ORDERS, "support": SUPPORT},
            },
        },
        "overrun_generals": _ids("enemy generals your advance contacts (they may be captured)", "de-salon", 10),
    },
}

_ATTACK = CONTACT["fields"]["attacks"]
# On the referee's table the pairs may be left out: the referee reads them from the positions.
TABLE_CONTACT: dict[str, Any] = {
    **CONTACT,
    "fields": {
        **CONTACT["fields"],
        "attacks": {
            **_ATTACK,
            "items": {
                **_ATTACK["items"],
                "required": ["division", "target"],
                "fields": {
                    **_ATTACK["items"]["fields"],
                    "pairs": {
                        **_ATTACK["items"]["fields"]["pairs"],
                        "description": "bases in contact once the line has conformed: [your base, enemy base]; "
                        "leave out for the referee to pair them from the table",
                    },
                },
            },
        },
    },
}

NO_ORDERS: dict[str, Any] = {"type": "map", "fields": {}}

SCHEMAS = {
    "muster": NO_ORDERS,
    "bid": BID,
    "command": COMMAND,
    "bombardment": BOMBARDMENT,
    "moves": MOVES,
    "contact": CONTACT,
    "morale": NO_ORDERS,
}
EXAMPLES: dict[str, Any] = {
    "muster": {},
    "bid": {"bid": 1},
    "command": {"allocate": [], "rally": [], "generals": []},
    "bombardment": {"fire": []},
    "moves": {"moves": []},
    "contact": {"attacks": [], "engagements": []},
    "morale": {},
}
DEFAULTS: dict[str, Any] = {**{kind: {} for kind in SCHEMAS}, "bid": {"bid": 1}}

# What new games' orders may also hold, by the option that allows it. A game begun before keeps the
# schemas above, which its notices describe field by field, so that they read as they did.
SUPPORT_IN_STANDING = {
    "type": "list",
    "max": 50,
    "description": "your bases supported when the enemy attacks them: "
    "{base, by: [supporters beside or behind]} (option defenders_support)",
    "items": {
        "type": "map",
        "required": ["base", "by"],
        "fields": {"base": _id("one of your bases", "M"), "by": {**_ids("its supporters", "L", 4), "min": 1}},
    },
}
WITH_COLUMN = _id("move/continue of limbered guns only: the division whose column they move with (no TP)", "van-gelder")


_MM = {"type": "int", "min": 0, "max": 100000}
_XY = {"type": "list", "min": 2, "max": 2, "items": {"type": "int", "min": -100000, "max": 100000}}
STEP = {
    "type": "map",
    "description": "one manoeuvre, all lengths in mm on the referee's table: {advance: MM} straight ahead; "
    "{wheel: left|right, by: MM} the group wheels about its front-left (right) corner, MM measured at the outer "
    "corner; {retire: true} 1BD straight back (alone); {to: [X, Y]} the group slides so its first base's centre "
    "ends there; {march: [[X, Y], ...]} a column in defile follows its head along the waypoints; "
    "{deploy: {wheel: DEGREES, right: MM}} deploy from defile, first turn (L283); {deploy: {option: a|b, "
    "right: MM}} its second turn, a continue order (L289-L295)",
    "fields": {
        "advance": _MM,
        "wheel": {"type": "str", "enum": ["left", "right"]},
        "by": _MM,
        "retire": {"type": "bool"},
        "to": _XY,
        "march": {"type": "list", "min": 1, "max": 20, "items": _XY},
        "deploy": {
            "type": "map",
            "required": ["right"],
            "fields": {
                "wheel": {"type": "int", "min": -45, "max": 45},
                "right": _MM,
                "option": {"type": "str", "enum": ["a", "b"], "description": "the second turn (L289-L295)"},
            },
        },
    },
}
TABLE_MOVE_FIELDS = {
    "steps": {
        "type": "list",
        "max": 10,
        "description": "the manoeuvres of this move, in order (none: the brigades stand where they are)",
        "items": STEP,
    },
    "charge": {"type": "bool", "description": "cavalry launching an attack: +1BW, and the move must end in contact"},
}
GENERAL_TO = {**_XY, "description": "where the general rides to: [X, Y] in mm (3BW; 1BW lethargic; 4BW with a column)"}


@lru_cache(maxsize=16)
def schemas(support: bool, later: bool, with_column: bool, table: bool = False) -> dict[str, Any]:
    """Return each phase kind's schema for a game whose options allow these additions."""
    standing = {**STANDING, "fields": {**STANDING["fields"], "support": SUPPORT_IN_STANDING}} if support else STANDING
    move = MOVES["fields"]["moves"]
    more = {**({"with": WITH_COLUMN} if with_column else {}), **(TABLE_MOVE_FIELDS if table else {})}
    entry = {**move["items"], "fields": {**move["items"]["fields"], **more}} if more else None
    moves = {**MOVES, "fields": {"moves": {**move, "items": entry}}} if entry else MOVES
    command = {**COMMAND, "fields": {**COMMAND["fields"], "standing": standing}}
    if table:
        generals = COMMAND["fields"]["generals"]
        items = {**generals["items"], "fields": {**generals["items"]["fields"], "to": GENERAL_TO}}
        command["fields"]["generals"] = {**generals, "items": items}
    contact = TABLE_CONTACT if table else CONTACT
    if later:
        fields = {**BOMBARDMENT["fields"], **moves["fields"], **contact["fields"]}
        command["fields"]["later"] = {
            "type": "map",
            "description": "orders for the rest of your half-turn, each applied when its step comes (checked "
            "then); a step whose orders you sent ahead costs you no mail",
            "fields": fields,
        }
    bid = {**BID, "fields": {**BID["fields"], "standing": standing}}
    return {**SCHEMAS, "bid": bid, "command": command, "moves": moves, "contact": contact}
