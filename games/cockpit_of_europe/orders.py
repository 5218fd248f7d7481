"""The orders Cockpit of Europe takes in each phase: their shapes (referee.kit.schema) and the
checks the rules make of them (`problems`), kept apart from what the orders do (rules.py).

Every phase takes the procedure journal's roll requests (`rolls`: the series procedures,
attrition, leader, casualty, battle and siege checks, on the tables the referee supplies), a
note to the other side, and the opening of a side's own sealed notes (`reveal`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.cockpit_of_europe import arithmetic, calendar, invasions, secrecy
from games.cockpit_of_europe.model import tables_of
from referee.kit import Problem
from referee.kit.procedure.hidden_notes import REVEAL_SCHEMA
from referee.kit.procedure.rolls import ROLL_SCHEMA, roll_problems

TEXT = {"type": "str", "max": 20000}
NAME = {"type": "str", "max": 100}
COUNT = {"type": "int", "min": 0, "max": 1000}
FLAG = {"type": "bool"}
CANDIDATES = {
    "type": "map",
    "description": "your candidate lists for random picks, sealed item by item: "
    + "; ".join(f"{pool}: {what}" for pool, what in secrecy.POOLS.items()),
    "fields": {
        pool: {"type": "list", "max": 200, "items": NAME, "description": what} for pool, what in secrecy.POOLS.items()
    },
}
STANDING = {
    "type": "map",
    "description": "standing orders for this turn's Operations Phase, sealed, opened only if triggered",
    "fields": {
        "milice": {
            "type": "map",
            "description": "France: where the Milice deploy when an Allied unit enters France (5.264)",
            "required": ["deploy"],
            "fields": {"deploy": {"type": "str", "max": 2000, "description": "where and how, in words"}},
        },
        "town_independence": {
            "type": "map",
            "description": "the beneficiary of Town Independence: the empty fortifications to garrison when the "
            "enemy ends a move on one (7.062)",
            "required": ["places"],
            "fields": {
                "places": {"type": "list", "max": 100, "items": NAME, "description": "fortifications, or [any]"},
                "garrison_limit": {"type": "int", "min": 0, "max": 50, "description": "the garrison limit there"},
            },
        },
    },
}
COMMON = {
    "rolls": {"type": "list", "max": 200, "items": ROLL_SCHEMA, "description": "series procedures: labelled rolls"},
    "note": {"type": "str", "max": 4000, "description": "a note to the other side"},
    "reveal": REVEAL_SCHEMA,
}
FIELDS: dict[str, dict[str, Any]] = {
    "set-up": {
        "setup": {**TEXT, "description": "your side's set-up (8.1x), sealed until the game ends"},
        "plan": {**TEXT, "description": "your campaign plan(s) and HQ (2.32, KR&Os 9.4), sealed"},
        "descent": {
            "type": "str",
            "enum": ["launch", "decline"],
            "description": "France: the Descent on England (6.25), sealed until both set-ups are in; "
            "launched, the game begins with the March-April Administrative Phase (9.533)",
        },
        "candidates": CANDIDATES,
    },
    "start-of-turn": {
        "challenge": {
            "type": "list",
            "max": 10,
            "description": "duel challenges between personal enemies (7.035)",
            "items": {
                "type": "map",
                "required": ["challenger", "target"],
                "fields": {"challenger": NAME, "target": NAME},
            },
        },
        "candidates": CANDIDATES,
    },
    "administration": {
        "le_roi_recall": {**FLAG, "description": "France: ask the King's Presence instead of the Ennui roll (3.153)"},
        "le_roi_exchanged": {**FLAG, "description": "France: Le Roi ransomed by the Convention of Frankfort (3.134)"},
        "milice": {
            "type": "map",
            "description": "France: the Milice (5.26)",
            "fields": {
                "field_force": {**COUNT, "description": "SPs taken from the pool into the Field Force"},
                "returned": {**COUNT, "description": "Field Force SPs returned to the pool"},
                "convert": {**COUNT, "description": "Milice SPs converted to Line this year"},
                "deploy": {**FLAG, "description": "a further emergency deployment while Allied units are in France"},
            },
        },
        "dutch_treaty": {**FLAG, "description": "Allies: invoke the Dutch Treaty Obligations (5.52)"},
        "dutch_recall": {**FLAG, "description": "France: roll to recall the Dutch Treaty force (5.523)"},
        "dutch_artillery": {**FLAG, "description": "Allies: roll for the Dutch Artillery Reserves (5.55)"},
        "plan_beyond_defend": {**FLAG, "description": "Allies: a current plan other than Defend (5.55's -3)"},
        "element_permission": {**FLAG, "description": "France: ask permission for an Element (6.264)"},
        "element_delay": {**FLAG, "description": "France: roll to delay an Element's redeployment (6.265)"},
        "channel": {**FLAG, "description": "France: a force is ready to cross: roll Command of the Channel (6.221)"},
        "black_watch": {"type": "str", "enum": ["create", "disband"], "description": "Allies: the Black Watch (5.43)"},
        "austrian_conversion": {**COUNT, "description": "Allies: Garrison SPs converted to Line (5.342)"},
        "austrian_reconversion": {**COUNT, "description": "Allies: SPs converted back (5.343)"},
        "bhg": {
            "type": "map",
            "description": "Allies: the British Home Garrison (5.44)",
            "required": ["sps"],
            "fields": {
                "sps": COUNT,
                "auxiliaries": COUNT,
                "artillery_sps": COUNT,
                "british_sps": {**COUNT, "description": "of which British SPs (5.449)"},
            },
        },
        "in_england": {
            "type": "map",
            "description": "France: your forces in the England Box (5.447)",
            "fields": {"sps": COUNT, "auxiliaries": COUNT},
        },
        "demonstration": {
            "type": "str",
            "enum": ["start", "successful", "failed"],
            "description": "France: start the Demonstration, or its assessment (2.33)",
        },
        "aid_to_provence_in_play": {**COUNT, "description": "France: SPs in play for Aid to Provence (6.423)"},
        "plan": {**TEXT, "description": "a new campaign plan, sealed"},
        "embark": {
            "type": "list",
            "max": 20,
            "description": "sea movement: each force and its destination, sealed until it lands (3.523)",
            "items": {
                "type": "map",
                "required": ["force", "destination"],
                "fields": {"force": NAME, "destination": NAME},
            },
        },
        "land": {"type": "list", "max": 20, "items": NAME, "description": "forces at sea that land now"},
        "candidates": CANDIDATES,
        "standing": STANDING,
    },
    "start-of-operations": {
        "flood_request": {**FLAG, "description": "Allies: ask for Voluntary Flooding (1.251)"},
        "standing": STANDING,
    },
    "operations": {
        "entered_france": {
            "type": "list",
            "max": 50,
            "items": NAME,
            "description": "Allies: where units entered France",
        },
        "in_france_at_end": {**FLAG, "description": "Allies: Allied units remain in France"},
        "ended_on_empty": {
            "type": "list",
            "max": 50,
            "items": NAME,
            "description": "empty fortifications your moves ended on (Town Independence, 7.062)",
        },
        "town_independence_capture": {**NAME, "description": "the beneficiary: a fortification captured (7.061)"},
        "standing": STANDING,
        "le_roi": {"type": "str", "enum": ["killed", "captured"], "description": "France: a Casualty Check's result"},
        "whim_battle": {**FLAG, "description": "France: a Whim Battle was fought this turn (3.162)"},
        "whim_siege_lifted": {**FLAG, "description": "France: a Whim siege was forced to lift (3.163)"},
        "prestige": {
            "type": "list",
            "max": 20,
            "description": "your side's PP or Prestige Level changes by the series rules, each with its reason",
            "items": {
                "type": "map",
                "required": ["kind", "change", "reason"],
                "fields": {
                    "kind": {"type": "str", "enum": ["pp", "level"]},
                    "change": {"type": "int", "min": -20, "max": 20},
                    "reason": {"type": "str", "max": 300},
                },
            },
        },
    },
}


def schema(phase: str) -> dict[str, Any]:
    """Return the orders' schema of a phase."""
    return {"type": "map", "fields": {**FIELDS[phase], **COMMON}}


FRANCE_ONLY = {
    "descent",
    "le_roi_recall",
    "le_roi_exchanged",
    "milice",
    "dutch_recall",
    "element_permission",
    "element_delay",
    "channel",
    "in_england",
    "demonstration",
    "aid_to_provence_in_play",
    "le_roi",
    "whim_battle",
    "whim_siege_lifted",
}
ALLIES_ONLY = {
    "dutch_treaty",
    "dutch_artillery",
    "plan_beyond_defend",
    "black_watch",
    "austrian_conversion",
    "austrian_reconversion",
    "bhg",
    "flood_request",
    "entered_france",
    "in_france_at_end",
}


def problems(state: Mapping[str, Any], side: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return what the rules refuse in a side's orders (their shape is already checked)."""
    found: list[Problem] = []

    def refuse(key: str, code: str, message: str) -> None:
        found.append(Problem(f"illegal.{code}", f"orders.{key}", message))

    for key in orders:
        if key in FRANCE_ONLY and side != "france":
            refuse(key, "side", f"'{key}' is France's to give")
        if key in ALLIES_ONLY and side != "allies":
            refuse(key, "side", f"'{key}' is the Allies' to give")
    now = calendar.now(state) if state["stage"] == "play" else 0
    year = state["year"]
    if orders.get("descent") and not state["invasions"]["descent"]["possible"]:
        refuse(
            "descent",
            "descent",
            "the Descent on England is played only in the campaign, or in 1744 by agreement (6.25)",
        )
    for index, challenge in enumerate(orders.get("challenge") or []):
        pair = sorted([challenge["challenger"], challenge["target"]])
        if pair not in [sorted(p) for p in state["enemies"]]:
            found.append(
                Problem(
                    "illegal.duel.not-enemies",
                    f"orders.challenge[{index}]",
                    f"{pair[0]} and {pair[1]} are not personal enemies (7.03)",
                )
            )
        if "Cumberland" in pair or any("captain-general" in name.casefold() for name in pair):
            found.append(
                Problem(
                    "illegal.duel.captain-general",
                    f"orders.challenge[{index}]",
                    "a Captain-General may not duel (7.036)",
                )
            )
    if orders.get("le_roi_recall") and state["le_roi"]["where"] != "hub":
        refuse("le_roi_recall", "le-roi", "Le Roi may be asked for only while he is at the French Hub (3.153)")
    milice = orders.get("milice") or {}
    held = state["milice"]
    if milice and held["original"] is None:
        refuse("milice", "milice", "the Milice pool for this year is not supplied yet (need milice-pools)")
    elif milice:
        outside = held["outside"] + milice.get("field_force", 0) - milice.get("returned", 0)
        if milice.get("field_force", 0) > held["pool"]:
            refuse("milice.field_force", "milice", f"the pool holds {held['pool']} SPs")
        if outside > held["allowance"]:
            refuse("milice.field_force", "milice", f"the Field Force allowance is {held['allowance']} SPs (5.263)")
        if milice.get("returned", 0) > held["outside"]:
            refuse("milice.returned", "milice", f"only {held['outside']} Milice SPs are outside France")
        if not arithmetic.can_convert_milice(held["converted"], milice.get("convert", 0), held["allowance"]):
            refuse(
                "milice.convert",
                "milice",
                f"conversions are capped at the allowance, {held['allowance']} SPs a year (5.26)",
            )
        if milice.get("deploy") and not state["allied_units_in_france"]:
            refuse("milice.deploy", "milice", "no Allied units are in France (5.264)")
    under_way = invasions.under_way(dict(state))
    if orders.get("dutch_treaty"):
        if state["dutch"]["treaty"] is not None:
            refuse("dutch_treaty", "dutch", "the Dutch Treaty Obligations are invoked once a game (5.52)")
        elif under_way is None:
            refuse("dutch_treaty", "dutch", "only while the Descent or the Rising is under way (5.52)")
    if orders.get("dutch_recall"):
        if state["dutch"]["treaty"] is None or state["dutch"]["recalled"] or under_way is None:
            refuse("dutch_recall", "dutch", "no Dutch Treaty force is in England during an invasion (5.523)")
        elif state["dutch"]["recall_rolled_in"] == under_way:
            refuse("dutch_recall", "dutch", "one recall roll an invasion (5.523)")
    if orders.get("dutch_artillery"):
        if not state["campaign"]:
            refuse("dutch_artillery", "dutch", "the Dutch Artillery Reserves are a campaign rule (5.55)")
        elif state["strategic"]["orange_revolution"] or state["dutch"]["artillery"]:
            refuse(
                "dutch_artillery", "dutch", "they are already in play, or automatic after the Orange Revolution (5.55)"
            )
    if orders.get("element_permission") or orders.get("element_delay"):
        rising = state["invasions"]["rising"]
        if under_way != "rising":
            refuse("element_permission", "rising", "only during the Jacobite Rising (6.264)")
        elif orders.get("element_permission") and rising["start"] == now:
            refuse(
                "element_permission", "rising", "no permission roll in the Rising's first Administrative Phase (6.264)"
            )
        elif orders.get("element_permission") and rising["elements"] >= 3:
            refuse("element_permission", "rising", "all three Elements have permission (6.264)")
        elif orders.get("element_delay") and rising["elements"] < 1:
            refuse("element_delay", "rising", "no Element is in position yet (6.265)")
    if orders.get("black_watch") and year < 1745:
        refuse("black_watch", "black-watch", "the Black Watch may be created from 1745 (5.43)")
    if orders.get("black_watch") == "create" and state["black_watch"]:
        refuse("black_watch", "black-watch", "the Black Watch is already in play")
    if orders.get("black_watch") == "disband" and not state["black_watch"]:
        refuse("black_watch", "black-watch", "there is no Black Watch to disband")
    demonstration = orders.get("demonstration")
    if demonstration == "start":
        if year < 1745:
            refuse("demonstration", "demonstration", "the Demonstration may not begin before 1745 (2.336)")
        elif state["demonstration"] is not None:
            refuse("demonstration", "demonstration", "the Demonstration has begun")
    elif demonstration and state["demonstration"] is None:
        refuse("demonstration", "demonstration", "no Demonstration is under way (2.33)")
    elif demonstration and (now - state["demonstration"]["started"]) % 4:
        refuse("demonstration", "demonstration", "the Demonstration is assessed once every four turns (2.332)")
    if "aid_to_provence_in_play" in orders and not state["strategic"].get("provence_pending"):
        refuse("aid_to_provence_in_play", "provence", "no Defeat in Provence awaits its forces (6.42)")
    if orders.get("flood_request"):
        flood = state["flood"]
        if not state["strategic"]["orange_revolution"]:
            refuse("flood_request", "flood", "Voluntary Flooding only after the Orange Revolution (1.25)")
        elif flood["active"]:
            refuse("flood_request", "flood", "the Flood Zone is already flooded")
        elif flood["next_request"] is not None and now < flood["next_request"]:
            refuse("flood_request", "flood", "three full turns must pass after a refusal (1.251)")
    sea = {entry["force"] for entry in state["embarked"] if entry["side"] == side}
    for index, force in enumerate(orders.get("land") or []):
        if force not in sea:
            found.append(Problem("illegal.sea", f"orders.land[{index}]", f"you have no force '{force}' at sea"))
    for index, entry in enumerate(orders.get("embark") or []):
        if entry["force"] in sea:
            found.append(Problem("illegal.sea", f"orders.embark[{index}]", f"'{entry['force']}' is already at sea"))
    independence = state["town_independence"]
    if "town_independence_capture" in orders and (
        independence is None or independence["side"] != side or independence["used"] or independence["turn"] != now
    ):
        refuse(
            "town_independence_capture", "town-independence", "you have no Town Independence to use this turn (7.07)"
        )
    if orders.get("standing", {}).get("milice") and side != "france":
        refuse("standing.milice", "side", "the Milice are France's")
    not_mine = independence is None or independence["side"] != side
    if orders.get("standing", {}).get("town_independence") and not_mine and state["phase"] == "operations":
        refuse("standing.town_independence", "town-independence", "Town Independence is not yours this turn (7.07)")
    if orders.get("le_roi") and state["le_roi"]["where"] not in ("hq", "hub"):
        refuse("le_roi", "le-roi", f"Le Roi is {state['le_roi']['where']}")
    mine = {n["id"]: n for n in state["notes"] if n["by"] == side}
    for index, name in enumerate(orders.get("reveal") or []):
        if name not in mine or mine[name]["revealed"] is not None:
            found.append(
                Problem("illegal.note.unknown", f"orders.reveal[{index}]", f"you have no sealed note '{name}'")
            )
    found += roll_problems(tables_of(state), {}, state["notes"], state["players"], side, orders)
    return found
