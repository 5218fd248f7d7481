"""The order forms of an Empires in Arms game: a phase of the sequence (the journal's rolls,
declaration and note, and the chapter 12.0 orders), a combat round, and a loss proposal."""

from __future__ import annotations

from typing import Any

from referee.kit.procedure.rolls import ROLL_SCHEMA

ID = {"type": "str", "max": 40, "pattern": "[a-z0-9][a-z0-9_-]*", "example": "fr-guard"}
IDS = {"type": "list", "min": 1, "max": 40, "items": ID}
GUARD: dict[str, Any] = {
    "type": "map",
    "fields": {
        "nation": {**ID, "description": "whose guard is committed (one nationality only, 12.3.4)"},
        "shift": {"type": "int", "min": 1, "max": 2, "description": "the morale levels shifted: 1 or 2"},
    },
    "required": ["nation", "shift"],
}
TABLE = {
    "type": "str",
    "max": 10,
    "pattern": "[0-9]+-[0-9]+",
    "example": "3-2",
    "description": "the combat table fought on",
}
POLICY = {
    "type": "map",
    "description": "a sealed standing policy for your combats: fights rounds without waiting for your mail",
    "fields": {
        "table": TABLE,
        "bombard": {"type": "bool", "description": "your artillery corps bombards each round it may (12.3.5)"},
        "guard": {
            "type": "map",
            "fields": {
                **GUARD["fields"],
                "rounds": {"type": "list", "max": 10, "items": {"type": "int", "min": 1, "max": 50}},
            },
            "required": ["nation", "shift", "rounds"],
        },
        "withdraw_if_outnumbered": {
            "type": "bool",
            "description": "try to withdraw before a 5:1 trivial combat (12.3.10)",
        },
    },
    "required": ["table"],
}
ATTACK = {
    "type": "map",
    "fields": {
        "kind": {"type": "str", "enum": ["field", "limited-field", "trivial", "naval"]},
        "attackers": IDS,
        "defenders": IDS,
        "area": ID,
        "terrain": {"type": "str", "max": 20, "enum": ["clear", "marsh", "forest", "hills", "mountain", "sea"]},
    },
    "required": ["kind", "attackers", "defenders"],
}
FLEET_MOVE = {
    "type": "map",
    "fields": {
        "fleets": IDS,
        "path": {"type": "list", "min": 1, "max": 20, "items": ID},
        "carrying": {"type": "list", "max": 20, "items": ID},
    },
    "required": ["fleets", "path"],
}
SEQUENCE_FIELDS: dict[str, Any] = {
    "rolls": {"type": "list", "max": 50, "items": ROLL_SCHEMA, "description": "roll requests on the referee's tables"},
    "declaration": {"type": "any", "description": "a sealed declaration, revealed with the report"},
    "note": {"type": "str", "max": 4000, "description": "a note to every player"},
    "attack": {"type": "list", "max": 10, "items": ATTACK, "description": "combats you start"},
    "policy": POLICY,
    "moves": {
        "type": "list",
        "max": 40,
        "items": {"type": "map", "fields": {"unit": ID, "to": ID}, "required": ["unit", "to"]},
        "description": "corps and garrisons moved, by the core game's movement rules (recorded)",
    },
    "fleet_moves": {
        "type": "list",
        "max": 20,
        "items": FLEET_MOVE,
        "description": "fleet stacks moved (12.2.3, 12.2.4)",
    },
    "militia": {
        "type": "list",
        "max": 20,
        "items": {
            "type": "map",
            "fields": {"unit": ID, "factors": {"type": "int", "min": 1, "max": 99}},
            "required": ["unit", "factors"],
        },
        "description": "militia converted to regular infantry (12.1.1)",
    },
    "build_ships": {
        "type": "list",
        "max": 10,
        "items": {
            "type": "map",
            "fields": {
                "ships": {"type": "int", "min": 1, "max": 99},
                "ports": {"type": "list", "min": 1, "max": 5, "items": ID},
            },
            "required": ["ships", "ports"],
        },
        "description": "ships bought and the ports building them, announced to all (12.1.2)",
    },
    "manipulation": {
        "type": "str",
        "max": 10,
        "description": "the economic manipulation square for the next Economic Phase (12.5)",
    },
    "peace": {
        "type": "map",
        "fields": {
            "with": ID,
            "victor": ID,
            "c5": {"type": "bool", "description": "the victor chose peace condition C.5 (12.4.1, 12.4.2)"},
            "b6": {"type": "bool", "description": "peace condition B.6 stops the loser's American trade (12.9)"},
        },
        "required": ["with"],
        "description": "a peace made with a power (12.4)",
    },
    "grant_access": {"type": "list", "max": 10, "items": ID, "description": "powers granted voluntary access (12.8)"},
    "cede": {
        "type": "map",
        "fields": {"minor": ID, "to": ID, "peace_term": {"type": "bool"}},
        "required": ["minor", "to"],
        "description": "a minor country ceded (12.3.9)",
    },
    "depots": {
        "type": "list",
        "max": 20,
        "items": {"type": "map", "fields": {"depot": ID, "units": IDS}, "required": ["depot", "units"]},
        "description": "units tracing supply to a depot (12.3.1)",
    },
}
SEQUENCE = {"type": "map", "fields": SEQUENCE_FIELDS}
ROUND = {
    "type": "map",
    "fields": {
        "table": TABLE,
        "guard": GUARD,
        "bombard": {"type": "bool", "description": "your artillery corps bombards first (12.3.5); true unless you say"},
    },
    "required": ["table"],
}
# A naval round has no guard nor artillery (12.3.4, 12.3.5 are land rules): the table alone.
NAVAL_ROUND = {"type": "map", "fields": {"table": TABLE}, "required": ["table"]}
LOSSES = {
    "type": "map",
    "fields": {
        "split": {"type": "any", "description": "each nationality's losses: {britain: 5, sweden: 3, portugal: 2}"},
        "types": {
            "type": "any",
            "description": "the factor types your own nationalities lose: {russia: {infantry: 1, cavalry: 1}} (12.3.6)",
        },
    },
    "required": ["split"],
}
