"""A player's movement phase: step 2 (the Reserve Force) and step 3 (spending IP), then the
end-of-movement turn to face (L169-L170, L182-L283, L325).

Actions are carried out in the order written. Each names one verb: move, group, column, line,
charge, reorder, rally, reveal, dismount, remount, square or leave_square.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from games.cest_la_guerre import engineering
from games.cest_la_guerre.bound import Bound
from games.cest_la_guerre.events import private, public
from games.cest_la_guerre.formations import column_problem, command_group, in_any_group, line_problem
from games.cest_la_guerre.geometry import (
    CARD_DEPTH,
    card_rect,
    describe_facing,
    is_facing,
    opposite,
    overlaps,
    pose_of,
    pose_state,
    quantized,
    rect_of,
    same_facing,
    step,
)
from games.cest_la_guerre.hidden import assign_markers, public_name, reveal, reveal_check
from games.cest_la_guerre.initiative import move_cost
from games.cest_la_guerre.movement import destination, line_wheel_about_its_end, move_card
from games.cest_la_guerre.placing import place, placement_problems
from games.cest_la_guerre.relations import contacts_on, directly_behind, front_enemy
from games.cest_la_guerre.terrain import LIVE_RIVER, rivers_crossed
from games.cest_la_guerre.units import find, is_commander, marker_order, placed, units_of
from games.cest_la_guerre.zones import entry_edge
from referee.kit import Dice, thaw

Unit = dict[str, Any]
VERBS = (
    "move",
    "group",
    "column",
    "line",
    "charge",
    "reorder",
    "rally",
    "reveal",
    "dismount",
    "remount",
    "square",
    "leave_square",
    "build",
    "demolish",
)
FORMATIONS = ("group", "column", "line")


def run_movement(state: Mapping[str, Any], role: str, orders: Mapping[str, Any], dice: Dice | None) -> Bound:
    """Carry out a movement phase's orders on a copy of `state`; return the finished Bound."""
    work: dict[str, Any] = thaw(state)
    side = work["sides"][role]
    b = Bound(work, role, dice, ip_left=side["ip"] - side["ip_spent"])
    reserve_step(b, orders.get("reserve"))
    b.start = copy.deepcopy(b.state)
    for index, action in enumerate(orders.get("actions") or []):
        run_action(b, action, f"orders.actions[{index}]")
    side["ip_spent"] = side["ip"] - b.ip_left
    turn_to_face(b)
    return b


# -- step 2: the Reserve Force -------------------------------------------------------------


def reserve_step(b: Bound, request: Mapping[str, Any] | None) -> None:
    """Roll for the reserve (every bound from Round 2, so the record never says who has one) and
    bring it on if its owner asked and the roll is high enough."""
    values: list[int] = []
    if b.dice and b.state["round"] >= 2:
        label = b.label("reserve")
        values = b.dice.roll(b.options["reserve_dice"], label=label)
        b.events.append(
            public(
                "roll",
                "the reserve die",
                label=label,
                purpose=f"{b.role}'s reserve die: rolled in every bound from Round 2, needed or not; "
                "only its owner learns whether it was used",
            )
        )
    if request is None:
        return
    waiting = [u for u in units_of(b.state, b.role) if u["status"] == "reserve"]
    path = "orders.reserve"
    if b.state["round"] < 2:
        b.refuse("illegal.reserve.round", path, "a Reserve Force may come on only after the first Round (L169)")
        return
    if not waiting:
        b.refuse("illegal.reserve.none", path, "you have no Reserve Force waiting off the table")
        return
    edge = entry_edge(b.state, b.role, request["edge"])
    depth = b.options["reserve_entry_depth_mm"]
    problems = placement_problems(b.state, b.role, request.get("place") or [], waiting, edge, depth, f"{path}.place")
    if problems:
        if b.dry:
            b.problems += problems
        else:
            b.refuse("illegal.reserve.place", path, "; ".join(p.message for p in problems))
        return
    if b.options["reserve_attempt_ip"]:
        if b.ip_left < b.options["reserve_attempt_ip"]:
            b.refuse("illegal.reserve.ip", path, "not enough IP left for the arrival attempt")
            return
        b.ip_left -= b.options["reserve_attempt_ip"]
    kind = "flank" if "flank" in request["edge"] else request["edge"]
    needs = b.options["reserve_needs"][kind]
    if not b.dry:
        total = sum(values)
        if total < needs:
            b.events.append(
                private(
                    b.role,
                    "reserve.failed",
                    f"Your Reserve Force tried to come on at the {request['edge'].replace('_', ' ')} "
                    f"({edge} edge): the reserve roll was {total}, it needed {needs}. It may try again next Round.",
                    total=total,
                    needs=needs,
                )
            )
            return
        b.events.append(
            private(b.role, "reserve.roll", f"Your reserve roll was {total} (needed {needs}): it arrives.", total=total)
        )
    cards = place(b.state, b.role, request["place"], edge)
    assign_markers(b.state, cards)
    b.state["sides"][b.role]["reserve_arrived"] = True
    if not b.options["reserve_moves_on_arrival"]:
        for card in cards:
            card["moved_bound"] = True
    markers = ", ".join(c["marker"] for c in sorted(cards, key=lambda c: c["marker"]))
    b.events.append(
        public(
            "reserve.arrived",
            f"{b.role}'s Reserve Force comes on at the {edge} edge: {len(cards)} face-down cards ({markers}).",
            role=b.role,
            edge=edge,
            markers=[c["marker"] for c in cards],
        )
    )
    reveal_check(b.state, b.events)


# -- step 3: actions -----------------------------------------------------------------------


def run_action(b: Bound, action: Mapping[str, Any], path: str) -> None:
    """Carry out one action, or refuse it with the reason."""
    verbs = [verb for verb in VERBS if verb in action]
    if len(verbs) != 1:
        b.refuse("illegal.action", path, f"each action names exactly one of: {', '.join(VERBS)}")
        return
    verb = verbs[0]
    if verb in ("move", "charge"):
        single_move(b, action, path, verb == "charge")
    elif verb in FORMATIONS:
        formation_move(b, action, verb, path)
    else:
        HANDLERS[verb](b, action, path)


def _own(b: Bound, ref: Any, path: str, on_table: bool = True) -> dict[str, Any] | None:
    card = find(b.state, b.role, ref) if isinstance(ref, str) else None
    if card is None:
        b.refuse("illegal.unit", path, f"you have no card {ref!r} (name yours by id or marker; see your view)")
        return None
    if on_table and card["status"] != "table":
        b.refuse("illegal.unit.absent", path, f"{card['id']} is not on the table")
        return None
    return card


def _pay(b: Bound, cost: int, why: Sequence[str], path: str) -> bool:
    """Spend IP on an action; the cost and its reasons are told to the player alone.

    The opponent sees the moves but not what each cost: a surcharge would tell that a face-down
    card is artillery, or how far it stands from the General.
    """
    if cost > b.ip_left:
        b.refuse("illegal.ip", path, f"this needs {cost} IP ({', '.join(why)}) but only {b.ip_left} are left")
        return False
    b.ip_left -= cost
    if cost and not b.dry:
        b.events.append(
            private(b.role, "ip.spent", f"{path}: {cost} IP ({', '.join(why)}); {b.ip_left} left.", cost=cost)
        )
    return True


def single_move(b: Bound, action: Mapping[str, Any], path: str, charge: bool) -> None:
    """One card's move (1 IP and surcharges) or charge (a second move that must reach contact)."""
    unit = _own(b, action["charge" if charge else "move"], f"{path}.{'charge' if charge else 'move'}")
    if unit is None:
        return
    pose = destination(b, unit, action, path)
    if pose is None:
        return
    if charge:
        cost, why = b.options["charge_ip"], ["charge move"]
    else:
        cost, why = move_cost(b.state, b.start or b.state, b.role, [unit])
    if not _pay(b, cost, why, path):
        return
    declared = next((k for k in ("to", "contact", "overlap", "behind") if k in action), None)
    move_card(b, unit, pose, path, charge=charge, declared=declared)


def formation_move(b: Bound, action: Mapping[str, Any], verb: str, path: str) -> None:
    """A Command Group, Column or Line moving for one IP (plus surcharges), each card on its own order."""
    start = b.start or b.state
    items = action.get("moves") or []
    members = _formation_members(b, start, action[verb], verb, path)
    if members is None:
        return
    cards = []
    for index, item in enumerate(items):
        where = f"{path}.moves[{index}]"
        unit = _own(b, item.get("move"), f"{where}.move")
        if unit is None:
            return
        if unit["id"] not in members:
            b.refuse("illegal.formation.member", f"{where}.move", f"{unit['id']} is not part of this {verb}")
            return
        cards.append(unit)
    if not cards:
        b.refuse("illegal.formation.empty", f"{path}.moves", f"give the moves of the {verb}'s cards")
        return
    if verb == "line" and not (_line_keeps_together(b, cards, items, path) and _line_may_cross(b, cards, items, path)):
        return
    cost, why = move_cost(b.state, start, b.role, cards)
    if not _pay(b, cost, why, path):
        return
    if verb == "line":
        items = line_wheel_about_its_end(cards, items)
    for index, (unit, item) in enumerate(zip(cards, items, strict=True)):
        where = f"{path}.moves[{index}]"
        pose = destination(b, unit, item, where)
        if pose is not None:
            declared = next((k for k in ("to", "contact", "overlap", "behind") if k in item), None)
            move_card(b, unit, pose, where, declared=declared)


def _name(verb: str) -> str:
    return {"group": "Command Group", "column": "Column", "line": "Line"}[verb]


def _formation_members(b: Bound, start: Mapping[str, Any], refs: Any, verb: str, path: str) -> set[str] | None:
    """Return the ids of the cards that form the named group, column or line at the start of movement."""
    where = f"{path}.{verb}"
    if verb == "group":
        commander = find(start, b.role, refs) if isinstance(refs, str) else None
        if commander is None or not is_commander(commander) or commander["status"] != "table":
            b.refuse(
                "illegal.formation.commander", where, f"{refs!r} is not a General or Sub-Command of yours on the table"
            )
            return None
        group = command_group(start, commander)
        if not group:
            b.refuse("illegal.formation.commander", where, f"{commander['id']} commands no group now (face-down?)")
            return None
        return {u["id"] for u in group}
    if not isinstance(refs, list):
        b.refuse("illegal.formation.cards", where, f"name the {verb}'s cards in a list")
        return None
    cards = []
    for ref in refs:
        card = find(start, b.role, ref) if isinstance(ref, str) else None
        if card is None or card["status"] != "table":
            b.refuse("illegal.formation.cards", where, f"{ref!r} is not a card of yours on the table")
            return None
        cards.append(card)
    problem = column_problem(start, cards) if verb == "column" else line_problem(start, cards)
    if problem:
        b.refuse(f"illegal.formation.{verb}", where, f"these cards are not a {_name(verb)} now: {problem}")
        return None
    return {c["id"] for c in cards}


def _line_keeps_together(b: Bound, cards: Sequence[Mapping[str, Any]], items: Sequence[Any], path: str) -> bool:
    """A Line's cards move the same distance the same way (checked when none turns), or wheel through
    the same angle (L206)."""
    wheels = {(w.get("degrees"), w.get("pivot")) for w in (item.get("wheel") for item in items) if isinstance(w, dict)}
    if len(wheels) > 1 or (wheels and any("wheel" not in item for item in items)):
        b.refuse("illegal.formation.line", f"{path}.moves", "a Line's cards all wheel through the same angle")
        return False
    shifts = set()
    for unit, item in zip(cards, items, strict=True):
        facing = item["to"].get("facing", unit["facing"]) if "to" in item else None
        if facing is None or "via" in item or not is_facing(facing) or not same_facing(facing, unit["facing"]):
            return True
        shifts.add((item["to"]["x"] - unit["x"], item["to"]["y"] - unit["y"]))
    if len(shifts) > 1:
        b.refuse("illegal.formation.line", f"{path}.moves", "a Line's cards all move the same distance the same way")
        return False
    return True


def _line_may_cross(b: Bound, cards: Sequence[Mapping[str, Any]], items: Sequence[Any], path: str) -> bool:
    """A Line crosses a river card by card, each on its own move, unless it is in a Command Group
    (L206; gaps G-23: "Command Unit" read as Command Group)."""
    start = b.start or b.state
    if all(in_any_group(start, find(start, b.role, c["id"]) or c) for c in cards):
        return True
    for unit, item in zip(cards, items, strict=True):
        end = item.get("to")
        if end and any(
            r.get("condition") in LIVE_RIVER
            for r in rivers_crossed(b.state, (unit["x"], unit["y"]), (end["x"], end["y"]))
        ):
            b.refuse(
                "illegal.formation.river",
                f"{path}.moves",
                "a Line outside any Command Group crosses a river one card at a time (L206): move them singly",
            )
            return False
    return True


def reorder(b: Bound, action: Mapping[str, Any], path: str) -> None:
    """Remove a card's Disorder for 1 IP; it moves no more this Round (L247)."""
    unit = _own(b, action["reorder"], f"{path}.reorder")
    if unit is None:
        return
    if not unit.get("disordered"):
        b.refuse("illegal.reorder", path, f"{unit['id']} is not in disorder")
        return
    if _pay(b, 1, ["reorder"], path):
        unit.update(disordered=False, moved_bound=True)
        b.events.append(public("reorder", f"{public_name(unit)} reorders (1 IP)."))


def rally(b: Bound, action: Mapping[str, Any], path: str) -> None:
    """Remove one casualty for 1 IP from a card in a Command Group, once a bound (L251)."""
    unit = _own(b, action["rally"], f"{path}.rally")
    if unit is None:
        return
    then = find(b.start or b.state, b.role, unit["id"])
    if not unit["casualties"]:
        b.refuse("illegal.rally", path, f"{unit['id']} has no casualties")
    elif unit["rallied"]:
        b.refuse("illegal.rally", path, f"{unit['id']} has already removed a casualty this bound")
    elif then is None or then["status"] != "table" or not in_any_group(b.start or b.state, then):
        b.refuse("illegal.rally", path, f"{unit['id']} is in no Command Group: only those remove casualties")
    elif _pay(b, 1, ["remove a casualty"], path):
        unit["casualties"] -= 1
        unit["rallied"] = True
        b.events.append(public("rally", f"{public_name(unit)} removes a casualty (1 IP); {unit['casualties']} left."))


def reveal_card(b: Bound, action: Mapping[str, Any], path: str) -> None:
    """Turn one of your face-down cards face up (a dummy turned up is removed; G-17)."""
    unit = _own(b, action["reveal"], f"{path}.reveal")
    if unit is None:
        return
    if unit["face_up"]:
        b.refuse("illegal.reveal", path, f"{unit['id']} is already face up")
    elif _pay(b, b.options["reveal_ip"], ["turn face up"], path):
        reveal(b.state, unit, "turned up by its owner", b.events)


def dismount(b: Bound, action: Mapping[str, Any], path: str) -> None:
    """Swap a cavalry card that may dismount for its infantry card, or back (L90, L241; G-29)."""
    key = "dismount" if "dismount" in action else "remount"
    unit = _own(b, action[key], f"{path}.{key}")
    if unit is None:
        return
    if not unit.get("dismount"):
        b.refuse("illegal.dismount", path, f"{unit['id']}'s card does not allow dismounting")
        return
    if (key == "dismount") == bool(unit.get("dismounted")) or unit["moved_bound"]:
        b.refuse(
            "illegal.dismount",
            path,
            f"{unit['id']} cannot {key} now (it is {'dis' if unit.get('dismounted') else ''}mounted or has moved)",
        )
        return
    if not _pay(b, b.options["dismount_ip"], [key], path):
        return
    if key == "dismount":
        unit.update(mounted=[unit["type"], unit["weapon"]], type="reg_inf", weapon="musket", dismounted=True)
    else:
        kind, weapon = unit.pop("mounted")
        unit.update(type=kind, weapon=weapon, dismounted=False)
    unit["moved_bound"] = True
    b.events.append(public(key, f"{public_name(unit)} {key}s."))


def square(b: Bound, action: Mapping[str, Any], path: str) -> None:
    """Two Regular Infantry, one behind the other, form a Square (optional rule, L863-L871)."""
    if not b.options["square"]:
        b.refuse("illegal.square", path, "this game does not use the optional Square rule")
        return
    refs = action["square"]
    cards = [_own(b, ref, f"{path}.square") for ref in refs] if isinstance(refs, list) and len(refs) == 2 else None
    if not cards or any(c is None for c in cards):
        b.refuse("illegal.square", path, "name the two cards of the Square, front one first")
        return
    front, rear = cards[0], cards[1]
    assert front is not None and rear is not None
    if front["type"] != "reg_inf" or rear["type"] != "reg_inf" or directly_behind(b.state, front) is not rear:
        b.refuse("illegal.square", path, "a Square is two Regular Infantry, the second directly behind the first")
        return
    if front["moved_bound"] or rear["moved_bound"]:
        b.refuse("illegal.square", path, "forming a Square is the cards' move: they must not have moved")
        return
    if _pay(b, b.options["square_ip"], ["form a Square"], path):
        front.update(in_square=rear["marker"], moved_bound=True)
        rear.update(in_square=front["marker"], moved_bound=True)
        b.events.append(public("square", f"{public_name(front)} and {public_name(rear)} form a Square."))


def leave_square(b: Bound, action: Mapping[str, Any], path: str) -> None:
    """Break up a Square: the move of both its cards."""
    unit = _own(b, action["leave_square"], f"{path}.leave_square")
    if unit is None:
        return
    partner = next((u for u in placed(b.state) if u["marker"] == unit.get("in_square")), None)
    if partner is None:
        b.refuse("illegal.square", path, f"{unit['id']} is not in a Square")
    elif _pay(b, b.options["square_ip"], ["leave the Square"], path):
        for card in (unit, partner):
            card.update(in_square=None, moved_bound=True)
        b.events.append(public("square.left", f"{public_name(unit)} and {public_name(partner)} leave their Square."))


HANDLERS = {
    "reorder": reorder,
    "rally": rally,
    "reveal": reveal_card,
    "dismount": dismount,
    "remount": dismount,
    "square": square,
    "leave_square": leave_square,
    "build": engineering.build,
    "demolish": engineering.demolish,
}


# -- step 3a: turning to face --------------------------------------------------------------


def turn_to_face(b: Bound) -> None:
    """A card contacted on a flank or rear, with no enemy to its front, turns to face (L325).

    When one enemy contacts the flanks of two such cards, both turn: the first (option
    `two_flanks_first`) in front of the enemy, the second behind the first.
    """
    turning: dict[str, list[Unit]] = {}
    attackers: dict[str, Unit] = {}
    for unit in list(placed(b.state)):
        if unit["status"] != "table" or front_enemy(b.state, unit) is not None or unit["type"] == "engineers":
            continue
        found = [e for e, edge in contacts_on(b.state, unit) if edge != "front"]
        if not found or unit.get("in_square"):
            continue
        turning.setdefault(found[0]["marker"], []).append(unit)
        attackers[found[0]["marker"]] = found[0]
    for marker, cards in turning.items():
        attacker = attackers[marker]
        cards = [u for u in cards if u["face_up"] or reveal(b.state, u, "in contact", b.events)]
        ahead: Unit | None = None
        for unit in _turning_order(b.state, attacker, cards)[:2]:
            if _turn_to_face(b, unit, attacker, ahead, cards):
                ahead = unit


def _turning_order(state: Mapping[str, Any], attacker: Mapping[str, Any], cards: list[Unit]) -> list[Unit]:
    """Return the cards one enemy turns, the one to stand in front first (option two_flanks_first)."""
    if state["options"].get("two_flanks_first", "nearer") == "lowest_marker":
        return sorted(cards, key=marker_order)
    front = step((attacker["x"], attacker["y"]), attacker["facing"], CARD_DEPTH // 2)
    return sorted(cards, key=lambda u: ((u["x"] - front[0]) ** 2 + (u["y"] - front[1]) ** 2, marker_order(u)))


def _turn_to_face(b: Bound, unit: Unit, attacker: Unit, ahead: Unit | None, moving: list[Unit]) -> bool:
    """Turn one card to face `attacker`, front to front, or behind `ahead`; return whether it turned.

    The cards turning together (`moving`) do not block each other where they stood."""
    depth = CARD_DEPTH if ahead is None else 2 * CARD_DEPTH
    x, y = step((attacker["x"], attacker["y"]), attacker["facing"], depth)
    facing = opposite(attacker["facing"])
    rect = card_rect(x, y, facing)
    still = [o for o in placed(b.state) if o is not attacker and (o is ahead or all(o is not m for m in moving))]
    if any(overlaps(rect, rect_of(o)) for o in still):
        b.events.append(
            public(
                "turn.blocked",
                f"{public_name(unit)} has no room to turn to face {attacker['marker']}: it stays as it is "
                "(option no_room_to_turn).",
            )
        )
        return False
    before = pose_of(unit)
    unit.update(pose_state(x, y, facing))
    behind = f", behind {ahead['marker']}" if ahead is not None else ""
    b.events.append(
        public(
            "turn",
            f"{public_name(unit)} turns to face {public_name(attacker)}{behind} "
            f"(from {quantized(before[0])}, {quantized(before[1])} facing {describe_facing(before[2])}).",
        )
    )
    return True
