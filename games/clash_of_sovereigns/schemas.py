"""The shape of Clash of Sovereigns' orders (one schema; each phase reads its own fields)."""

from __future__ import annotations

from typing import Any

from games.clash_of_sovereigns.seats import POWERS
from games.clash_of_sovereigns.supplies import CARD_ID, USES
from referee.kit.procedure.tracks import ORDER_SCHEMA as TRACK_CHANGES

SPACE = {"type": "str", "max": 40, "description": "a space's name on the map"}
CARD = {"type": "str", "pattern": CARD_ID, "description": "a card's id"}
LEADER = {"type": "str", "max": 40, "description": "a leader's name, as the ratings list it"}
MODIFIERS = {
    "type": "list",
    "max": 10,
    "items": {"type": "str", "max": 40},
    "description": "named DRMs of the table you claim",
}
MOVE = {
    "type": "map",
    "required": ["to"],
    "fields": {
        "to": SPACE,
        "enemy_command": {"type": "bool", "description": "an enemy command is there: a Major Battle may start (+1 AP)"},
        "ch": {"type": "bool", "description": "enemy C/H are in or next to it (+1 AP, 12.3)"},
        "overrun": {"type": "bool", "description": "you overrun a force there (0 AP, 8.9)"},
    },
}
MOVES = {"type": "list", "max": 30, "items": MOVE, "description": "the spaces entered, in order"}
BATTLE = {
    "type": "map",
    "required": ["defender", "at"],
    "description": "a Major Battle this activation starts (13.1)",
    "fields": {
        "defender": {"type": "str", "enum": list(POWERS), "description": "the power whose command is attacked"},
        "at": SPACE,
        "terrain": {
            "type": "str",
            "enum": ["clear", "mountain", "alpine"],
            "description": "the space's terrain (13.4)",
        },
    },
}
OPERATION = {
    "type": "map",
    "description": "one use of the card's CP: activate, admin_march, place_ch, free_leader_move or sea_transport",
    "fields": {
        "activate": {**LEADER, "description": "the commander activated (CP = his Initiative, 8.2)"},
        "sp": {"type": "int", "min": 0, "max": 200, "description": "the SP the command or march moves with"},
        "moves": MOVES,
        "siege": {
            "type": "map",
            "required": ["space", "rolls"],
            "fields": {"space": SPACE, "rolls": {"type": "int", "min": 1, "max": 10}, "modifiers": MODIFIERS},
            "description": "siege rolls at the end of the moves (2 AP each, 15.4)",
        },
        "battle": BATTLE,
        "admin_march": {"type": "bool", "description": "a leaderless march of up to 15 SP (1 CP, 6 AP, 8.8)"},
        "place_ch": {
            "type": "map",
            "required": ["space", "enemy_sp"],
            "fields": {"space": SPACE, "enemy_sp": {"type": "int", "min": 0, "max": 200}},
            "description": "place a C/H (1 CP) and raid the enemy SP there (12.4)",
        },
        "free_leader_move": {**LEADER, "description": "a leader alone moves with his AP (8.6)"},
        "sea_transport": {
            "type": "map",
            "required": ["to"],
            "fields": {
                "to": SPACE,
                "neutral": {"type": "bool", "description": "a neutral port (22.9)"},
                "from_atlantic": {"type": "bool"},
            },
            "description": "carry up to 15 SP by sea (16.3)",
        },
    },
}
PLAY = {
    "type": "map",
    "required": ["card", "as"],
    "description": "the card you play this turn and how",
    "fields": {
        "card": CARD,
        "as": {"type": "str", "enum": [u for u in USES if u not in ("interrupt", "tac")]},
        "power": {"type": "str", "enum": list(POWERS), "description": "whose turn (only in Spring, for a seat of two)"},
        "operations": {"type": "list", "max": 10, "items": OPERATION},
        "colonial": {"type": "str", "enum": ["louisbourg", "india"], "description": "where (22.3)"},
        "bombard": {
            "type": "map",
            "required": ["space", "sections", "depots", "sp"],
            "fields": {
                "space": SPACE,
                "box": {"type": "str", "enum": ["atlantic", "mediterranean"]},
                "sections": {"type": "int", "min": 1, "max": 20},
                "depots": {"type": "int", "min": 0, "max": 20},
                "sp": {"type": "int", "min": 0, "max": 200},
            },
            "description": "a Fleet Bombardment (22.7): the enemy Depots and SP in the space",
        },
        "detail": {"type": "str", "max": 1000, "description": "what the event does, in your words (targets...)"},
    },
}
REACTIONS = {
    "type": "map",
    "description": "standing reactions, sealed: opened only if the turn's moves trigger them",
    "fields": {
        "intercept": {
            "type": "list",
            "max": 10,
            "items": {
                "type": "map",
                "required": ["when_enters", "leader"],
                "fields": {"when_enters": SPACE, "leader": LEADER, "from": SPACE, "modifiers": MODIFIERS},
            },
        },
        "withdraw": {
            "type": "list",
            "max": 10,
            "items": {
                "type": "map",
                "required": ["when_battle_at", "to"],
                "fields": {"when_battle_at": SPACE, "to": SPACE, "modifiers": MODIFIERS},
            },
        },
        "interrupt": {
            "type": "list",
            "max": 10,
            "items": {
                "type": "map",
                "required": ["card"],
                "fields": {
                    "card": CARD,
                    "when_enters": SPACE,
                    "when_admin_march": {"type": "bool"},
                    "raid": {
                        "type": "map",
                        "required": ["space", "enemy_sp"],
                        "fields": {"space": SPACE, "enemy_sp": {"type": "int", "min": 0, "max": 200}},
                    },
                    "detail": {"type": "str", "max": 500},
                },
            },
        },
        "naval_intercept": {"type": "bool", "description": "try to intercept any fleet sortie (16.3, 22.7, 22.9)"},
    },
}
FORCE = {
    "type": "map",
    "required": ["commander", "nations"],
    "description": "your force in the battle",
    "fields": {
        "commander": LEADER,
        "subordinates": {"type": "list", "max": 6, "items": LEADER},
        "nations": {
            "type": "list",
            "min": 1,
            "max": 8,
            "items": {
                "type": "map",
                "required": ["nation", "sp"],
                "fields": {"nation": {"type": "str", "max": 40}, "sp": {"type": "int", "min": 1, "max": 200}},
            },
        },
        "cavalry_sp": {"type": "int", "min": 0, "max": 200},
        "worn": {"type": "int", "min": 0, "max": 3, "description": "your Worn marker (13.9)"},
    },
}
ATTRITION = {
    "type": "list",
    "max": 30,
    "description": "your forces' winter attrition (17.3)",
    "items": {
        "type": "map",
        "required": ["force", "sp", "percent"],
        "fields": {
            "force": {"type": "str", "max": 40},
            "sp": {"type": "int", "min": 0, "max": 200},
            "percent": {"type": "int", "min": 10, "max": 20, "description": "10 or 20, by its region (5.1)"},
            "demoralized": {"type": "bool"},
            "ss": {"type": "int", "min": 0, "max": 3},
        },
    },
}
MULLIGAN = {
    "type": "map",
    "required": ["on", "at_most"],
    "description": "use your side's Mulligan (22.10) if this kind of your own roll comes up at or below",
    "fields": {
        "on": {"type": "str", "enum": ["raid", "siege", "interception", "withdrawal", "colonial-influence"]},
        "at_most": {"type": "int", "min": 1, "max": 6},
    },
}
END_IN_PLAY = {
    "type": "list",
    "max": 10,
    "description": "your cards in play whose event has ended, as its text says",
    "items": {
        "type": "map",
        "required": ["card", "to"],
        "fields": {"card": CARD, "to": {"type": "str", "enum": ["discard", "removed"]}},
    },
}
FREE_MARCH = {
    "type": "map",
    "required": ["power", "sp"],
    "description": "22.6: a free 15 SP admin march before play (1744 and 1746 starts)",
    "fields": {
        "power": {"type": "str", "enum": list(POWERS)},
        "sp": {"type": "int", "min": 1, "max": 15},
        "moves": MOVES,
    },
}
ORDER_SCHEMA: dict[str, Any] = {
    "type": "map",
    "fields": {
        "end_in_play": END_IN_PLAY,
        "free_march": FREE_MARCH,
        "play": PLAY,
        "pass": {"type": "bool", "description": "play no card this turn"},
        "reactions": REACTIONS,
        "force": FORCE,
        "tac": {"type": "list", "max": 5, "items": CARD, "description": "Tac cards you play in the battle (13.5)"},
        "attrition": ATTRITION,
        "track": TRACK_CHANGES,
        "mulligan": MULLIGAN,
    },
}
