"""Where a C'est la Guerre player stands, and their own order form, drawn from their view: the
stage and whose bound it is, their Initiative Points, their army and points lost, every card of
theirs with its marker, place and state, their Command Groups and the Reserve Force waiting.

The form is the phase's own example, made for the active side (a deployment of their cards, a
step forward, no shots), with comments that name their cards and their limits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.cest_la_guerre import examples
from games.cest_la_guerre.geometry import describe_facing
from games.cest_la_guerre.pace import choices
from games.cest_la_guerre.pregame import DEPLOY_DEPTH
from games.cest_la_guerre.rules import phase
from games.cest_la_guerre.views import view
from referee.kit import Example, Fact

CARDS_IN_A_NOTE = 12  # a form's comment names at most this many cards, then "..."
PLACES = {"army": "not yet deployed", "reserve": "in your Reserve Force"}
AWAITED = {
    "armies": "your army: a list (or the point system), dummies and your secret Reserve Force",
    "terrain": "the terrain, as the Low scorer, and how the table sides are drawn",
    "deploy": "your deployment, face down along your base edge",
    "move": "your bound's movement: the Reserve Force (from Round 2) and actions paid in IP",
    "combat": "your choices in this combat step: shots, and as the moving player the order of combats",
}


def standing(state: Mapping[str, Any], player: str) -> list[Fact]:
    """Return where `player` stands: the stage, IP, army, points lost, cards and Command Groups."""
    seen = view(state, player)
    own = seen.get("your_army")
    if own is None:
        return []
    facts = [Fact("Stage", _stage(seen))]
    if seen["base_edges"].get(player):
        facts.append(Fact("Your base edge", seen["base_edges"][player]))
    rolled = seen["sides"][player].get("initiative_points")
    if own["initiative_points_left"] is not None and rolled is not None:
        facts.append(Fact("Initiative Points left", f"{own['initiative_points_left']} of {rolled} rolled"))
    if own["list"]:
        army = seen["sides"][player].get("army", own["list"])
        facts.append(Fact("Your army", f"{army}, {own['points']} points"))
    lost = ", ".join(f"{role} {side['points_lost']}" for role, side in seen["sides"].items())
    facts.append(Fact("Points lost", lost))
    if own["cards"]:
        facts.append(Fact("Your cards", f"{len(own['cards'])}", tuple(_card(c) for c in own["cards"])))
    facts += _table_facts(seen["stage"], own)
    if own["command_groups"]:
        groups = tuple(f"{leader}: {', '.join(members)}" for leader, members in own["command_groups"].items())
        facts.append(Fact("Your Command Groups", "", groups))
    if own["reserve_waiting"]:
        facts.append(Fact("Your Reserve Force, waiting", ", ".join(own["reserve_waiting"])))
    spec = phase(state)
    if spec is not None and player in spec.active:
        facts.append(Fact("Awaited from you", AWAITED.get(state["stage"], "your orders")))
        if state["stage"] == "combat":
            facts.append(Fact("Your choices (as far as both sides can see)", "", tuple(choices(state)[player])))
    return facts


def _table_facts(stage: str, own: Mapping[str, Any]) -> list[Fact]:
    """Return the shots a player's cards must take, their contacts and overlaps, and what each card
    could reach this bound: what a player needs to write orders without redrawing the table."""
    facts = []
    shots = own.get("must_shoot") or []
    if shots:
        when = "now" if stage == "combat" else "if the table stays as it is"
        items = tuple(
            f"{s['shooter']} at {s['targets'][0]}"
            + (f" (or {', '.join(s['targets'][1:])}: your choice)" if len(s["targets"]) > 1 else "")
            for s in shots
        )
        facts.append(Fact("Shots your cards must take (L295)", when, items))
    contacts = tuple(f"{c['enemy']} against {c['card']}'s {_edge(c['edge'])}" for c in own.get("contacts") or [])
    contacts += tuple(f"{o['enemy']} overlaps {o['card']}'s {o['flank']} flank" for o in own.get("overlaps") or [])
    if contacts:
        facts.append(Fact("Contacts and overlaps on your cards", "", contacts))
    reach = own.get("within_reach") or {}
    if reach:
        moves = {c["marker"]: c.get("move_left_mm") for c in own["cards"]}
        items = tuple(f"{m} ({moves.get(m)} mm): {', '.join(enemies)}" for m, enemies in reach.items())
        facts.append(Fact("Enemy cards your cards could reach this bound (good going)", "", items))
    return facts


def _edge(edge: str) -> str:
    return {"front": "front", "rear": "rear"}.get(edge, f"{edge} flank")


def _stage(seen: Mapping[str, Any]) -> str:
    if seen["result"]:
        return "the battle is over"
    if seen["stage"] in ("move", "combat"):
        what = "movement" if seen["stage"] == "move" else "shooting and melee"
        return f"Round {seen['round']}, {seen['bound_of']}'s bound: {what}"
    return {"armies": "choosing armies", "terrain": "laying terrain", "deploy": "deployment"}.get(
        seen["stage"], seen["stage"]
    )


def _card(card: Mapping[str, Any]) -> str:
    name = f" “{card['name']}”" if card.get("name") else ""
    head = f"{card['marker'] + ' ' if card.get('marker') else ''}{card['id']}{name}: {card['card']}"
    if card["status"] != "table":
        return f"{head}, {PLACES.get(card['status'], card['status'])}"
    state = [
        f"at ({card['x']}, {card['y']}) facing {describe_facing(card['facing'])}",
        "face up" if card["face_up"] else "face down",
    ]
    if card["casualties"]:
        state.append(f"{card['casualties']} casualt{'y' if card['casualties'] == 1 else 'ies'}")
    if card["disordered"]:
        state.append("disordered")
    if card["moved_this_bound"]:
        state.append("moved this bound")
    elif card.get("move_left_mm"):
        state.append(f"may move {card['move_left_mm']} mm")
    return f"{head}, {', '.join(state)}"


def example(state: Mapping[str, Any], player: str) -> Example | None:
    """Return `player`'s order form: the phase's example for them, with notes naming their cards."""
    spec = phase(state)
    if spec is None or player not in spec.active:
        return None
    seen = view(state, player)
    own = seen.get("your_army") or {"cards": [], "initiative_points_left": None, "reserve_waiting": []}
    on_table = [c["marker"] for c in own["cards"] if c["status"] == "table"]
    stage = state["stage"]
    if stage == "armies":
        return Example(spec.example, {"orders.list": "an army list id (army_lists in your view) or point-system"})
    if stage == "terrain":
        return Example(spec.example, {"orders.features": f"rectangles in mm; kinds: {_kinds(state)}"})
    if stage == "deploy":
        cards = [c["id"] for c in own["cards"] if c["status"] != "reserve"]
        edge = seen["base_edges"][player]
        note = f"each of your cards not in reserve ({_some(cards)}), within {DEPLOY_DEPTH} mm of your {edge} edge"
        return Example(examples.deploy_example(state, player), {"orders.place": note})
    if stage == "move":
        ip = own["initiative_points_left"]
        groups = "; ".join(f"{k}: {', '.join(v)}" for k, v in (own.get("command_groups") or {}).items())
        note = f"{ip} IP left; your cards on the table: {_some(on_table)}"
        note += f"; Command Groups: {groups}" if groups else ""
        notes = {"orders.actions": note + "; e.g. {move: B4, to: {x: 470, y: 165, facing: north}}"}
        if own["reserve_waiting"]:
            notes["orders.reserve"] = f"from Round 2, your Reserve Force: {', '.join(own['reserve_waiting'])}"
        return Example(examples.movement_example(state, player), notes)
    enemy = [c["marker"] for c in seen["cards"] if c["owner"] != player and "x" in c]
    due = [f"{s['shooter']} at {' or '.join(s['targets'])}" for s in own.get("must_shoot") or []]
    note = f"your cards on the table: {_some(on_table)}; enemy cards: {_some(enemy)}; "
    note += f"must shoot: {_some(due)}; " if due else ""
    rule = state["options"].get("unnamed_shot_target", "nearest")
    note += f"every card that can shoot must: one you do not name shoots anyway (unnamed_shot_target: {rule})"
    notes = {"orders.shots": note + "; e.g. {shooter: B4, target: R7, aides: [B5]}"}
    if player == state["phasing"]:
        notes["orders.order"] = "markers of shooters and fighters in the order to resolve (you are the moving player)"
    notes["orders.primary"] = "Combat Engineers touched by several of your cards: {engineers: R9, attacker: B3}"
    return Example(spec.example, notes)


def _some(items: list[str]) -> str:
    shown = items[:CARDS_IN_A_NOTE]
    return ", ".join(shown) + (f" and {len(items) - len(shown)} more" if len(items) > len(shown) else "") or "none"


def _kinds(state: Mapping[str, Any]) -> str:
    return ", ".join(sorted(state["options"]["terrain_menu"]))
