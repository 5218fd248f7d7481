"""Where a Polemos player stands, and their own order form, drawn from their view: their army's
Tempo points and morale, their generals and divisions with the state of every base, their
engagements and standing orders; the form names their own generals, bases and brigades.

Everything here is public but the standing orders, which the player's own view shows them.
A form sent unchanged is accepted: it bids 1, gives no general any points, and fires, moves
and attacks with nothing; the comments name what the player may put in its place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.polemos_obb.board import board, enemy_bases, engagement_lines, spent_note
from games.polemos_obb.board_view import board_table, has_table_board
from games.polemos_obb.bombardment import gun_range, targets_in_range
from games.polemos_obb.model import STANDING, arm_of, army_of_player, general_can_move, general_can_order, step_kind
from games.polemos_obb.options import order_cost, setting
from games.polemos_obb.rules import phase
from games.polemos_obb.table import in_bw
from games.polemos_obb.table_form import with_table_notes
from games.polemos_obb.tempo import MINIMUM_BID
from games.polemos_obb.views import view
from referee.kit import Example, Fact

AWAITED = {
    "bid": "your sealed Tempo bid",
    "command": "your command orders: Tempo points to your generals, rallies, generals joining bases",
    "bombardment": "your artillery's fire",
    "moves": "your moves",
    "contact": "your attacks and your orders for engagements",
}


def standing(state: Mapping[str, Any], player: str) -> list[Fact]:
    """Return where `player` stands: Tempo, morale, generals, divisions, engagements, orders."""
    seen = view(state, player)
    army_id = seen["your_army"]
    if army_id is None:
        return []
    army = next(a for a in seen["armies"] if a["id"] == army_id)
    side = next(s for s in seen["sides"] if s["id"] == army["side"])
    generals = [g for g in seen["generals"] if g["army"] == army_id]
    divisions = [d for d in seen["divisions"] if d["army"] == army_id]
    facts = [Fact("Your army", f"{army['title']} ({army_id}), {side['title']}")]
    facts.append(Fact("Tempo points", f"{army['tp']} TP" + _tempo(seen, army["side"])))
    if army["allocated"]:
        given = tuple(
            f"{general}: given {tp['given']}, spent {tp['spent']}" for general, tp in sorted(army["allocated"].items())
        )
        facts.append(Fact("Tempo points given out this turn", "", given))
    morale = f"CMF {army['cmf']}, lost {army['cmf_lost']}" + (", EXHAUSTED" if army["exhausted"] else "")
    facts.append(Fact("Army morale", morale))
    facts.append(Fact("Your generals", "", tuple(_general(g, army) for g in generals)))
    facts.append(Fact("Your divisions", "", tuple(_division(d) for d in divisions)))
    mine = {d["id"] for d in divisions}
    engaged = [e for e in seen["engagements"] if mine & set(e["divisions"])]
    if engaged:
        facts.append(Fact("Your engagements", "", tuple(_engagement(e) for e in engaged)))
    orders = seen["your_standing_orders"]
    if orders:
        exceptions = ", ".join(f"{base} {respond}" for base, respond in sorted(orders["bases"].items()))
        said = f"defending bases {orders['respond'] or seen['settings'].get('default_response', 'as the game sets')}"
        facts.append(Fact("Your standing orders", said + (f"; {exceptions}" if exceptions else "")))
    ahead = seen.get("your_orders_ahead")
    if ahead:
        facts.append(
            Fact("Your orders sent ahead", f"turn {ahead['turn']}: {', '.join(ahead['orders']) or 'all used'}")
        )
    spec = phase(state)
    if spec is not None and player in spec.active:
        facts.append(Fact("Awaited from you", AWAITED.get(step_kind(spec.name), "your orders")))
    if setting(state, "letters") == "army-board":
        if seen["over"] and seen["result"]:
            facts.insert(0, Fact("The battle is over", str(seen["result"])))
        facts += board_table(seen) if has_table_board(seen) else board(seen)
    return facts


def _tempo(seen: Mapping[str, Any], side: str) -> str:
    if seen["tempo_side"] is None:
        return "; the Tempo is not yet bid for"
    return "; your side holds the Tempo" if seen["tempo_side"] == side else "; the other side holds the Tempo"


def _general(general: Mapping[str, Any], army: Mapping[str, Any]) -> str:
    role = "C-in-C" if general["id"] == army["c_in_c"] else f"commands {general['division'] or 'no division'}"
    where = f", with base {general['with_base']}" if general["with_base"] else ""
    status = "" if general["status"] == "active" else f", {general['status']}"
    return f"{general['id']}: {general['name']}, {role}, grade {general['grade']}{status}{where}"


def _division(division: Mapping[str, Any]) -> str:
    by_state: dict[str, list[str]] = {}
    for brigade in division["brigades"]:
        for base in brigade["bases"]:
            by_state.setdefault(base["state"], []).append(base["id"])
    states = "; ".join(f"{state} {', '.join(ids)}" for state, ids in by_state.items()) or "not yet generated"
    spent = f" {spent_note(division, short=False)}" if division["spent"] else ""
    return f"{division['id']} ({division['title']}, {division['commander']}){spent}: {states}"


def _engagement(engagement: Mapping[str, Any]) -> str:
    pairs = ", ".join("-".join(p["bases"]) for p in engagement["pairs"] if p["in_contact"])
    return f"{engagement['id']}: {' vs '.join(engagement['divisions'])}; in contact: {pairs or 'none'}"


def example(state: Mapping[str, Any], player: str) -> Example | None:
    """Return `player`'s order form for the open phase, with their own ids and limits."""
    spec = phase(state)
    army_id = army_of_player(state, player)
    if spec is None or army_id is None or player not in spec.active:
        return None
    seen = view(state, player)
    army = next(a for a in seen["armies"] if a["id"] == army_id)
    kind = step_kind(spec.name)
    divisions = [d for d in seen["divisions"] if d["army"] == army_id and not d["spent"]]
    on_field = [b for d in divisions for brigade in d["brigades"] for b in brigade["bases"] if b["state"] in STANDING]
    if kind == "bid":
        limit = f"{MINIMUM_BID} to {army['tp']}: your TP" if army["tp"] >= MINIMUM_BID else "you hold no TP"
        return Example({"bid": MINIMUM_BID}, {"orders.bid": f"your sealed bid, {limit}"})
    if kind == "command":
        return _command(state, seen, army, on_field)
    if setting(state, "letters") == "army-board" and kind in ("moves", "contact"):
        return with_table_notes(_board_form(state, seen, army, divisions, kind), state, seen, army_id, kind)
    if kind == "bombardment":
        guns = [b["id"] for b in on_field if arm_of(state, b["id"]) == "artillery"]
        enemies = [
            b["id"]
            for d in seen["divisions"]
            if d["army"] not in _allies(seen, army["side"]) and not d["spent"]
            for brigade in d["brigades"]
            for b in brigade["bases"]
            if b["state"] in STANDING
        ]
        note = f"your guns: {', '.join(guns) or 'none'}; enemy bases: {', '.join(enemies) or 'none'}"
        if gun_range(state) is not None:
            note = _guns_in_range(state, guns)
        return Example({"fire": []}, {"orders.fire": note + "; e.g. {battery: GUN, target: BASE}"})
    if kind == "moves":
        brigades = "; ".join(f"{d['id']}: {', '.join(b['id'] for b in d['brigades'])}" for d in divisions)
        note = f"your brigades by division: {brigades or 'none'}; e.g. {{order: move, brigades: [ID], note: where}}"
        return Example({"moves": []}, {"orders.moves": note})
    if kind == "contact":
        enemy = [d["id"] for d in seen["divisions"] if d["army"] not in _allies(seen, army["side"]) and not d["spent"]]
        mine = {d["id"] for d in divisions}
        engaged = [e["id"] for e in seen["engagements"] if mine & set(e["divisions"])]
        notes = {
            "orders.attacks": f"your divisions: {', '.join(sorted(mine)) or 'none'}; enemy divisions: "
            f"{', '.join(enemy) or 'none'}; e.g. {{division: YOURS, target: THEIRS, pairs: [[YOUR-BASE, ENEMY-BASE]]}}",
            "orders.engagements": f"your engagements: {', '.join(engaged) or 'none'}",
        }
        return Example({"attacks": [], "engagements": []}, notes)
    return None


def _guns_in_range(state: Mapping[str, Any], guns: list[str]) -> str:
    """Return each gun's targets in range (option bombardment_range), nearest first, with distances."""
    reach = gun_range(state)
    assert reach is not None
    lines = [
        f"{gun}: " + (", ".join(f"{e} ({in_bw(state, d)})" for e, d in targets_in_range(state, gun)) or "none")
        for gun in guns
    ]
    return f"your guns' targets within {in_bw(state, reach)} before their front: " + ("; ".join(lines) or "no gun")


def _allies(seen: Mapping[str, Any], side: str) -> set[str]:
    return {a for s in seen["sides"] if s["id"] == side for a in s["armies"]}


def _command(
    state: Mapping[str, Any], seen: Mapping[str, Any], army: Mapping[str, Any], on_field: list[dict[str, Any]]
) -> Example:
    """Return the command form: each of the player's generals who may give orders, given 0 TP."""
    c_in_c = army["c_in_c"]
    commanders = list(dict.fromkeys([c_in_c, *(d["commander"] for d in seen["divisions"] if d["army"] == army["id"])]))
    allocate = []
    if general_can_order(state, c_in_c):
        allocate = [{"general": g, "tp": 0} for g in commanders if general_can_order(state, g)]
    shaken = [b["id"] for b in on_field if b["state"] == "shaken"]
    movers = [g["id"] for g in seen["generals"] if g["army"] == army["id"] and general_can_move(state, g["id"])]
    notes = {
        "orders.allocate": f"your {army['tp']} TP, shared among your generals (rallying costs too)"
        if allocate
        else "your C-in-C gives no orders this turn: leave this empty",
        "orders.allocate[0].tp": f"0 to {army['tp']}: all together at most your {army['tp']} TP",
        "orders.allocate[0].general": "one of your generals who may give orders",
        "orders.allocate[].tp": "",
        "orders.allocate[].general": "",
        "orders.rally": f"your shaken bases: {', '.join(shaken)}; e.g. {{base: ID}}"
        if shaken
        else "none of your bases is shaken",
        "orders.generals": f"your generals who may move: {', '.join(movers) or 'none'}; "
        "e.g. {general: ID, join: BASE} or {general: ID, leave: true}",
    }
    return Example({"allocate": allocate, "rally": [], "generals": []}, notes)


def _board_form(
    state: Mapping[str, Any],
    seen: Mapping[str, Any],
    army: Mapping[str, Any],
    divisions: list[dict[str, Any]],
    kind: str,
) -> Example:
    """Return the moves or contact form of a game with the army board: what moved, costs, engagements, targets."""
    moved = set(seen["moved_this_turn"])
    mine = {d["id"] for d in divisions}
    engagements = engagement_lines(seen, mine)
    targets = enemy_bases(seen, army["side"])
    enemy = "; ".join(f"{d}: {' '.join(b) or 'none standing'}" for d, b in targets.items()) or "none"
    if kind == "moves":
        left = "; ".join(f"{g}: {t['given'] - t['spent']} TP left" for g, t in sorted(army["allocated"].items()))
        costs = ", ".join(
            f"{n} brigade{'s' * (n != 1)} {tp} TP"
            for n in range(1, 7)
            if (tp := order_cost(state, "move", n)) is not None
        )
        brigades = "; ".join(
            f"{d['id']}: " + " ".join(b["id"] + ("*" if b["id"] in moved else "") for b in d["brigades"])
            for d in divisions
        )
        notes = {
            "orders.moves": f"your brigades by division (* moved this turn, may not move again): {brigades or 'none'}; "
            f"a move costs {costs or 'what the referee supplies'} (a continuation of a redeployment: order "
            f"continue); {left or 'no TP given out this turn'}; e.g. {{order: move, brigades: [ID], note: where}}",
        }
        return Example({"moves": []}, notes)
    movers = " ".join(b for b in sorted(moved) if state["brigades"][b]["division"] in mine) or "none"
    notes = {
        "orders.attacks": f"brigades that moved this turn (they may attack): {movers}; enemy bases on the field by "
        f"division (legal targets): {enemy}; "
        "e.g. {division: YOURS, target: THEIRS, pairs: [[YOUR-BASE, ENEMY-BASE]]}",
        "orders.engagements": "your open engagements: "
        + (" | ".join(engagements) or "none")
        + "; fought in the contact phase of the side holding the Tempo",
    }
    return Example({"attacks": [], "engagements": []}, notes)
