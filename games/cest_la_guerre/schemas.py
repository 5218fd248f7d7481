"""The shape of each phase's orders (referee.kit.schema), with the words a player reads in notices."""

from __future__ import annotations

from typing import Any

from games.cest_la_guerre.data import TROOPS

REF = {"type": "str", "max": 40, "description": "a card: your card's id (e.g. reg-inf-average-2) or its marker (B4)"}
MARKER = {"type": "str", "max": 12, "description": "an enemy card's marker (e.g. R7)"}
FACING = {
    "type": "any",
    "description": "where the card's front faces: a bearing in degrees (0 north, 90 east, clockwise) or a "
    "compass word (north, north-east, east, ...)",
}
MM = {"type": "int", "min": -10000, "max": 10000, "description": "millimetres from the table's south-west corner"}
POSE = {
    "type": "map",
    "required": ["x", "y"],
    "description": "where the card's centre ends: x east, y north, in mm",
    "fields": {"x": MM, "y": MM, "facing": FACING},
}
PLACEMENT = {
    "type": "map",
    "required": ["unit", "x", "y"],
    "fields": {"unit": REF, "x": MM, "y": MM, "facing": FACING},
}
DESTINATION_FIELDS: dict[str, Any] = {
    "to": POSE,
    "via": {
        "type": "list",
        "max": 10,
        "description": "waypoints [x, y] the card's centre passes on its way, in order (not with wheel)",
        "items": {"type": "list", "min": 2, "max": 2, "items": MM},
    },
    "wheel": {
        "type": "map",
        "required": ["pivot", "degrees"],
        "description": "wheel about a front corner, measured along the arc of the corner farthest from it",
        "fields": {
            "pivot": {"type": "str", "enum": ["left", "right"], "description": "the front corner that stays put"},
            "degrees": {"type": "int", "min": -180, "max": 180, "description": "clockwise positive"},
            "about": {
                **REF,
                "description": "wheel about this card's front corner instead (a Line wheels about its end card; "
                "the referee fills this in for a Line)",
            },
        },
    },
    "contact": {
        "type": "map",
        "required": ["target", "edge"],
        "description": "move into lined-up contact with an enemy card's edge (the referee places the card)",
        "fields": {"target": MARKER, "edge": {"type": "str", "enum": ["front", "left", "right", "rear"]}},
    },
    "overlap": {
        "type": "map",
        "required": ["target", "side"],
        "description": "stand beside the enemy's frontal opponent, overlapping its left or right flank",
        "fields": {"target": MARKER, "side": {"type": "str", "enum": ["left", "right"]}},
    },
    "behind": {**REF, "description": "stand directly behind this card of yours (rear support, a Column)"},
}
FORMATION_MOVE = {
    "type": "map",
    "required": ["move"],
    "fields": {"move": REF, **DESTINATION_FIELDS},
}
REFS = {"type": "list", "max": 40, "items": REF}
ACTION = {
    "type": "map",
    "description": "one action: one of move, charge, group, column, line, reorder, rally, reveal, dismount, "
    "remount, square, leave_square, build, demolish; a move also names to, contact, overlap, behind or wheel "
    "(and may go via waypoints)",
    "fields": {
        "move": {**REF, "description": "move this card (1 IP and surcharges)"},
        "charge": {**REF, "description": "a second move into contact by cavalry (1 IP)"},
        "group": {**REF, "description": "move the Command Group of this commander (1 IP); give its moves"},
        "column": {**REFS, "description": "move this Column, front card first (1 IP); give its moves"},
        "line": {**REFS, "description": "move this Line (1 IP); give its moves"},
        "moves": {"type": "list", "max": 40, "items": FORMATION_MOVE, "description": "the cards' moves"},
        "reorder": {**REF, "description": "remove Disorder (1 IP)"},
        "rally": {**REF, "description": "remove one casualty from a card in a Command Group (1 IP)"},
        "reveal": {**REF, "description": "turn a card face up (free), before moving it faster than 15 cm"},
        "dismount": REF,
        "remount": REF,
        "square": {**REFS, "description": "form a Square: two Regular Infantry, front card first (optional rule)"},
        "leave_square": REF,
        "build": {**REF, "description": "Combat Engineers begin (kind, rect) or continue (work) a work (L275)"},
        "demolish": {**REF, "description": "Combat Engineers demolish a road, bridge or fortification (feature)"},
        "kind": {"type": "str", "enum": ["road", "bridge", "fortification"], "description": "a new work's kind"},
        "rect": {
            "type": "list",
            "max": 4,
            "items": {"type": "int", "min": 0, "max": 4000},
            "description": "a new work's rectangle [x1, y1, x2, y2] in mm",
        },
        "work": {"type": "str", "max": 12, "description": "a work under way, by id (W1)"},
        "feature": {"type": "str", "max": 12, "description": "a terrain feature to demolish, by id (T3)"},
        **DESTINATION_FIELDS,
    },
}

ARMY = {
    "type": "map",
    "required": ["list"],
    "fields": {
        "list": {
            "type": "str",
            "max": 40,
            "description": "an army list id (see army_lists in your view) or point-system",
            "example": "gnw_sweden",
        },
        "choices": {
            "type": "any",
            "description": "one pick per alternative of the list, in order: an option number, or for an "
            "alternative that fills several cards a list of option numbers, e.g. [2] or [[1, 2]]",
        },
        "dummies": {"type": "int", "min": 0, "max": 20, "description": "dummy cards to add (0.5 points each)"},
        "reserve": {
            **REFS,
            "description": "cards kept off the table as a secret Reserve Force (a Sub-Command among them)",
        },
        "names": {
            "type": "list",
            "max": 60,
            "description": "your own names for cards; only you ever see them",
            "items": {
                "type": "map",
                "required": ["unit", "name"],
                "fields": {"unit": REF, "name": {"type": "str", "max": 40}},
            },
        },
        "units": {
            "type": "list",
            "max": 60,
            "description": "point-system armies only: the cards bought",
            "items": {
                "type": "map",
                "required": ["type"],
                "fields": {
                    "type": {"type": "str", "enum": [t for t in TROOPS if t != "dummy"]},
                    "grade": {"type": "str", "enum": ["brilliant", "elite", "average", "inferior", "none"]},
                    "count": {"type": "int", "min": 1, "max": 40},
                    "british": {"type": "bool"},
                    "weapon": {"type": "str", "enum": ["musket", "rifle", "pistol"]},
                    "dismount": {"type": "bool"},
                    "label": {"type": "str", "max": 40},
                },
            },
        },
        "swaps": {
            "type": "list",
            "max": 20,
            "description": "French & Indian War optional swaps (option fiw_swaps)",
            "items": {
                "type": "map",
                "required": ["swap"],
                "fields": {"swap": {"type": "str", "max": 30}, "take": {"type": "str", "max": 30}},
            },
        },
    },
}
TERRAIN = {
    "type": "map",
    "fields": {
        "features": {
            "type": "list",
            "max": 40,
            "description": "terrain rectangles in mm from the south-west corner; kinds from the terrain menu",
            "items": {
                "type": "map",
                "required": ["kind", "x1", "y1", "x2", "y2"],
                "fields": {"kind": {"type": "str", "max": 30}, "x1": MM, "y1": MM, "x2": MM, "y2": MM},
            },
        },
        "side_by": {"type": "str", "enum": ["coin", "die"], "description": "how your table side is drawn"},
    },
}
DEPLOY = {
    "type": "map",
    "required": ["place"],
    "fields": {
        "place": {
            "type": "list",
            "max": 80,
            "items": PLACEMENT,
            "description": "every card not in reserve, face down, wholly within 100 mm of your base edge",
        }
    },
}
MOVEMENT = {
    "type": "map",
    "fields": {
        "reserve": {
            "type": "map",
            "required": ["edge", "place"],
            "description": "from Round 2: bring on your Reserve Force (rolled before your actions)",
            "fields": {
                "edge": {"type": "str", "enum": ["own_base", "left_flank", "right_flank", "enemy_base"]},
                "place": {"type": "list", "max": 40, "items": PLACEMENT},
            },
        },
        "actions": {"type": "list", "max": 200, "items": ACTION, "description": "carried out in order"},
    },
}
COMBAT = {
    "type": "map",
    "fields": {
        "shots": {
            "type": "list",
            "max": 80,
            "description": "your cards' shots: every card that can shoot must (L172)",
            "items": {
                "type": "map",
                "required": ["shooter", "target"],
                "fields": {
                    "shooter": REF,
                    "target": MARKER,
                    "aides": {**REFS, "description": "up to two of your cards aiding the shot"},
                },
            },
        },
        "primary": {
            "type": "list",
            "max": 40,
            "description": "Combat Engineers touched by several of your cards: which one fights them (L291)",
            "items": {
                "type": "map",
                "required": ["engineers", "attacker"],
                "fields": {"engineers": MARKER, "attacker": REF},
            },
        },
        "order": {
            "type": "list",
            "max": 160,
            "items": {"type": "str", "max": 12},
            "description": "phasing player only: markers of shooters and fighters, in the order to resolve",
        },
    },
}
