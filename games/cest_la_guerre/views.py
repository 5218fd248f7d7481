"""What each player sees, built field by field (house rule 3).

Everyone sees the table: terrain, every placed card's marker and pose, and what a card is once
it is face up. Only the owner sees a face-down card's identity, its dummies, its Reserve Force
before it arrives, its card ids and names, and the list it chose (unless option
army_list_public). Nothing else leaves the state.

`secrets` names the same hidden leaves for the contract tests' leak test: what the views above
keep from the opponent, and nothing the table shows (a card's marker and pose, the moves and
shots everyone watched, the public Initiative Points).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.cest_la_guerre.armies import catalogue
from games.cest_la_guerre.battle import must_shoot
from games.cest_la_guerre.data import show_points
from games.cest_la_guerre.formations import command_group
from games.cest_la_guerre.geometry import rect_of, within
from games.cest_la_guerre.relations import contacts_on, overlaps_on
from games.cest_la_guerre.units import allowance, describe, is_dummy, marker_order, placed, units_of
from games.cest_la_guerre.victory import lost_statuses, points_lost
from referee.kit import Secret

GAME_ID = "cest-la-guerre"
# What a card is: its owner's, until it turns face up (a removed dummy is known for one).
IDENTITY = ("type", "grade", "label", "british", "british_no_bonus", "weapon", "dismount")
# Its owner's always: what they call it, and its historical condition.
OWNER_ONLY = ("id", "name", "condition")
# What only a face-up card shows of its state (a face-down one is only "face-down card").
FACE_DOWN_STATE = ("casualties", "disordered", "in_square")
# What a side chose: the opponent learns the list only with option army_list_public.
LIST_FIELDS = ("list", "list_name", "period", "special_rules")


def public_card(unit: Mapping[str, Any]) -> dict[str, Any]:
    """Return a placed (or once placed) card as anyone may see it."""
    card: dict[str, Any] = {"marker": unit["marker"], "owner": unit["owner"]}
    if unit["status"] == "removed":
        return {**card, "status": "removed: it was a dummy"}
    if unit["status"] != "table":
        card["status"] = "destroyed" if unit["status"] == "destroyed" else "gone off the table"
    else:
        card.update(x=unit["x"], y=unit["y"], facing=unit["facing"])
    if not unit["face_up"] or is_dummy(unit):
        card["card"] = "face-down card"
        return card
    card.update(
        card=describe(unit),
        type=unit["type"],
        grade=unit["grade"],
        casualties=unit["casualties"],
        disordered=unit["disordered"],
    )
    if unit.get("in_square"):
        card["in_square_with"] = unit["in_square"]
    return card


def own_card(unit: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return one of the player's own cards with everything about it (with `options`: how far it
    may still move this bound)."""
    card: dict[str, Any] = {
        "id": unit["id"],
        "marker": unit["marker"],
        "card": describe(unit),
        "points": show_points(unit["cost"]),
        "status": unit["status"],
    }
    if unit.get("name"):
        card["name"] = unit["name"]
    if unit.get("condition"):
        card["historical_condition"] = unit["condition"]
    if unit["status"] == "table":
        card.update(
            x=unit["x"],
            y=unit["y"],
            facing=unit["facing"],
            face_up=unit["face_up"],
            casualties=unit["casualties"],
            disordered=unit["disordered"],
            moved_this_bound=unit["moved_bound"],
        )
        if options is not None:
            card["move_left_mm"] = move_left(unit, options)
    return card


def view(state: Mapping[str, Any], player: str | None) -> dict[str, Any]:
    """Return what `player` (None: the public) may see of the game."""
    options = state["options"]
    result: dict[str, Any] = {
        "game": GAME_ID,
        "you": player,
        "stage": state["stage"],
        "round": state["round"],
        "bound_of": state["phasing"] if state["stage"] in ("move", "combat", "deploy") else None,
        "high_scorer": state["high"],
        "low_scorer": state["low"],
        "base_edges": dict(state["edges"]),
        "table_mm": list(options["table_mm"]),
        "terrain": [_feature(f) for f in state["terrain"]],
        "works": [dict(w) for w in state.get("works", [])],
        "sides": {role: _side(state, role, player) for role in state["roles"]},
        "cards": [public_card(u) for u in sorted(state["units"], key=marker_order) if u["marker"] is not None],
        "result": state["result"],
    }
    if options["time_scale"]:
        result["time_scale"] = options["time_scale"]
    if state["stage"] == "armies":
        result["army_lists"] = catalogue()
    if player is not None and player in state["roles"]:
        result["your_army"] = _own(state, player)
    return result


def _feature(feature: Mapping[str, Any]) -> dict[str, Any]:
    shown = {key: feature[key] for key in ("id", "kind", "rect", "going", "los_block", "elevation")}
    if feature["kind"] == "river":
        shown["condition"] = feature["condition"]
    if feature.get("demolished_mm"):
        shown["demolished_mm"] = feature["demolished_mm"]
    return shown


def _side(state: Mapping[str, Any], role: str, player: str | None) -> dict[str, Any]:
    side = state["sides"][role]
    shown: dict[str, Any] = {"points_lost": show_points(points_lost(state, role))}
    if side.get("list") and (player == role or state["options"]["army_list_public"]):
        shown["army"] = f"{side['list_name']} ({side['list']})"
    if state["stage"] in ("move", "combat") and state["phasing"] == role:
        shown["initiative_points"] = side["ip"]
    return shown


def _own(state: Mapping[str, Any], role: str) -> dict[str, Any]:
    side = state["sides"][role]
    cards = list(units_of(state, role))
    groups = {
        commander["marker"]: [u["marker"] for u in command_group(state, commander) if u is not commander]
        for commander in cards
        if commander["status"] == "table" and commander["type"] in ("general", "sub_command")
    }
    own = {
        "initiative_points_left": side["ip"] - side["ip_spent"] if state["phasing"] == role else None,
        "command_groups": {marker: members for marker, members in groups.items() if members},
        "list": side.get("list"),
        "points": show_points(side["points"]) if side.get("points") else None,
        "reserve_waiting": [u["id"] for u in cards if u["status"] == "reserve"],
        "cards": [own_card(u, state["options"]) for u in cards],
    }
    if state["stage"] in ("move", "combat"):
        own.update(table_for(state, role))
    return own


def table_for(state: Mapping[str, Any], role: str) -> dict[str, Any]:
    """Return what a player needs to write orders from: the shots their cards must take as the
    table stands (L295), the contacts and overlaps on or by their cards (L325-L327), and, in their
    movement, the enemy cards each of their cards could reach this bound (in good going)."""
    mine = sorted((u for u in placed(state) if u["owner"] == role), key=marker_order)
    shown: dict[str, Any] = {
        "must_shoot": [
            {"shooter": unit["marker"], "targets": [t["marker"] for t in targets]}
            for unit, targets in must_shoot(state, role)
        ],
        "contacts": [
            {"card": unit["marker"], "enemy": enemy["marker"], "edge": edge}
            for unit in mine
            for enemy, edge in contacts_on(state, unit)
        ],
        "overlaps": [
            {"card": unit["marker"], "enemy": enemy["marker"], "flank": side}
            for unit in mine
            for enemy, side in overlaps_on(state, unit)
        ],
    }
    if state["stage"] == "move" and state["phasing"] == role:
        reach = {}
        for unit in mine:
            left = move_left(unit, state["options"])
            if left:
                near = [
                    e["marker"]
                    for e in sorted(placed(state), key=marker_order)
                    if e["owner"] != role and within(rect_of(unit), rect_of(e), left)
                ]
                if near:
                    reach[unit["marker"]] = near
        shown["within_reach"] = reach
    return shown


def move_left(unit: Mapping[str, Any], options: Mapping[str, Any]) -> int:
    """Return how far a card may still move this bound in good going (0 once it moved; L221-L233;
    a face-down card at most the face-down allowance, G-16)."""
    if unit["status"] != "table" or unit["moved_bound"] or unit["type"] == "dummy" and unit["face_up"]:
        return 0
    left = allowance(unit, "good")
    return min(left, int(options["face_down_allowance_mm"])) if not unit["face_up"] else left


def is_known(unit: Mapping[str, Any]) -> bool:
    """Return whether anyone may know what a card is: placed and face up, or removed as a dummy."""
    if unit["marker"] is None:
        return False
    return (bool(unit["face_up"]) and not is_dummy(unit)) or unit["status"] == "removed"


def secrets(state: Mapping[str, Any]) -> list[Secret]:
    """Return every hidden leaf of the state (a JSON pointer) with the one side that may see it."""
    found: list[Secret] = []
    for role in state["roles"]:
        side = state["sides"][role]
        fields = [] if state["options"]["army_list_public"] else [f for f in LIST_FIELDS if f in side]
        fields += [f for f in ("points", "ip_spent") if f in side]
        if not side["reserve_arrived"]:  # once it has come on, everyone saw it arrive
            fields.append("reserve_arrived")
        found += [(f"/sides/{role}/{field}", (role,)) for field in fields]
    lost = lost_statuses(state["options"])
    for index, unit in enumerate(state["units"]):
        fields = list(OWNER_ONLY)
        if unit["status"] not in lost:  # points lost are public, card by card
            fields.append("cost")
        if not is_known(unit):
            fields += IDENTITY
        if unit["marker"] is None:  # not on the table yet: whether it waits in reserve
            fields.append("status")
        elif not unit["face_up"]:
            fields += FACE_DOWN_STATE
        found += [(f"/units/{index}/{field}", (unit["owner"],)) for field in fields if field in unit]
    return found
