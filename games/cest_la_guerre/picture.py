"""The picture of the table in a player's letters: a scene (referee.kit.tabletop.picture) drawn
from that player's view and the events of the phase they see, never from the state.

What it shows is what the view shows: terrain; every placed card at its pose, the opponent's
face-down cards and dummies alike as card backs with their markers (the view gives both as
"face-down card"), face-up cards with what they are; the player's own cards with their markers
and troop, those still face down and their dummies drawn apart; and, in a report, the moves,
falls back, pushes and flights of the phase as arrows (from the events' `path`), shots as
dotted arrows and fights as stars.

Poses are read through one adapter (`pose_of`), the kit's `pose_from`, which takes a facing as
a compass word (north...) or a bearing in degrees, so states of either kind draw the same.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from games.cest_la_guerre.data import TROOPS
from referee.kit.tabletop.picture import arrow_item, marker_item, point, rect_item, scene, unit_item
from referee.kit.tabletop.shapes import Pose, Size, pose_from

CARD = Size(50, 30)  # a card is 5 x 3 cm, its 5 cm the front (L62)
SIDES = {"blue": "#1f5fbf", "red": "#c0392b"}
OTHER_SIDE = "#6d6d6d"
# Terrain drawn bottom first: hills under woods and villages, rivers over them, then roads, fords and bridges.
LAYER = {"hill": 0, "river": 2, "lake": 2, "road": 3, "ford": 4, "bridge": 4, "fortification": 5}
# A card's troop in a few letters, to fit on a 5 cm card drawn a few pixels wide.
SHORT = {
    "general": "Gen",
    "sub_command": "Sub",
    "reg_inf": "Inf",
    "pike": "Pike",
    "coi": "COI",
    "light_inf": "LtI",
    "engineers": "Eng",
    "cavalry": "Cav",
    "heavy_cav": "HvC",
    "light_cav": "LtC",
    "artillery": "Art",
    "heavy_artillery": "HvA",
    "horse_artillery": "HoA",
    "dummy": "dummy",
}
# Events drawn as arrows along their data's `path` ([[x, y], ...], start to end), by the arrow's kind.
ARROWS = {
    "move": "move",
    "charge": "charge",
    "wheel": "wheel",
    "fall-back": "fall-back",
    "pushed": "fall-back",
    "flee": "flee",
}
FACE_DOWN = "face-down card"


def pose_of(card: Mapping[str, Any]) -> Pose:
    """Return a placed card's pose (centre and facing), whatever form the view gives its facing in."""
    return pose_from(card)


def picture(view: Mapping[str, Any], player: str | None, events: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Return the scene of the table as `view` shows it to `player` (None before any terrain or
    card is on the table: a picture of an empty cloth says nothing)."""
    placed = [card for card in view["cards"] if "x" in card and "facing" in card]
    if not view["terrain"] and not placed:
        return None
    width, depth = view["table_mm"]
    own = {card["marker"]: card for card in view.get("your_army", {}).get("cards", []) if card.get("marker")}
    sides = {
        role: {"name": role.capitalize() + (" (you)" if role == player else ""), "colour": SIDES.get(role, OTHER_SIDE)}
        for role in view["sides"]
    }
    where = {card["marker"]: pose_of(card) for card in placed}
    items = [*_terrain(view["terrain"])]
    items += _arrows(events, where)
    items += [_card(card, own.get(card["marker"]), player) for card in placed]
    items += _fights(events, where)
    return scene(_title(view, player), width, depth, sides, items)


def _title(view: Mapping[str, Any], player: str | None) -> str:
    when = f"Round {view['round']}" if view["round"] else "Before the battle"
    stage = view["stage"]
    bound = f", {view['bound_of']}'s bound" if view.get("bound_of") else ""
    who = f"as {player} sees it" if player else "as everyone sees it"
    return f"{when}, {stage}{bound}: the table {who}"


def _terrain(features: Sequence[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    for feature in sorted(features, key=lambda f: LAYER.get(f["kind"], 1)):
        label = f"{feature['kind']} {feature['id']}"
        if feature.get("condition") and feature["condition"] != "unknown":
            label += f" ({feature['condition']})"
        if "rect" in feature:
            yield rect_item(feature["id"], feature["kind"], feature["rect"], label)
        elif "points" in feature:
            points = [point(xy) for xy in feature["points"]]
            yield {"item": "terrain", "kind": feature["kind"], "id": feature["id"], "points": points, "label": label}
        elif "line" in feature:
            line = [point(xy) for xy in feature["line"]]
            item = {"item": "terrain", "kind": feature["kind"], "id": feature["id"], "line": line}
            yield {**item, "width": feature.get("width", 40), "label": label}


def _card(card: Mapping[str, Any], mine: Mapping[str, Any] | None, player: str | None) -> dict[str, Any]:
    """Return a placed card as `player` may see it: an opponent's face-down card and dummy alike."""
    pose = pose_of(card)
    if card["owner"] == player and mine is not None:
        kind = _troop(mine["card"])
        if kind == "dummy":
            return unit_item(pose, CARD, card["owner"], f"{card['marker']} dummy", "own-dummy")
        look = "unit" if mine.get("face_up") else "own-face-down"
        return unit_item(pose, CARD, card["owner"], f"{card['marker']} {SHORT.get(kind, '')}".strip(), look)
    if card.get("card", FACE_DOWN) == FACE_DOWN or "type" not in card:
        return unit_item(pose, CARD, card["owner"], card["marker"], "card-back")
    return unit_item(pose, CARD, card["owner"], f"{card['marker']} {SHORT.get(card['type'], '')}".strip(), "unit")


def _troop(description: str) -> str:
    """Return the troop type a card's description names (the longest troop name in it)."""
    names = sorted(TROOPS, key=lambda kind: -len(TROOPS[kind]["name"]))
    return next((kind for kind in names if TROOPS[kind]["name"] in description), "")


def _arrows(events: Sequence[Mapping[str, Any]], where: Mapping[str, Pose]) -> Iterator[dict[str, Any]]:
    for index, event in enumerate(events):
        data = event["data"]
        if event["kind"] in ARROWS and len(data.get("path", ())) >= 2:
            kind = "charge" if event["kind"] == "move" and " charges " in event["text"] else ARROWS[event["kind"]]
            yield arrow_item(data["path"], kind)
        elif event["kind"] == "combat.shooting":
            later = events[index:]
            shooter, target = (_then(data[who]["marker"], later, where) for who in ("shooter", "target"))
            if shooter is not None and target is not None:
                yield arrow_item([shooter, target], "shot")


def _fights(events: Sequence[Mapping[str, Any]], where: Mapping[str, Pose]) -> Iterator[dict[str, Any]]:
    """Mark each fight of the phase where it was fought: a star between the two cards of a melee,
    a ring on a shot's target (each card where it stood then, before any later move drawn)."""
    for index, event in enumerate(events):
        data = event["data"]
        if event["kind"] == "combat.melee":
            markers = (data["attacker"]["marker"], data["defender"]["marker"])
            here = [xy for xy in (_then(m, events[index:], where) for m in markers) if xy is not None]
            if here:
                yield marker_item((sum(x for x, _ in here) / len(here), sum(y for _, y in here) / len(here)), "combat")
        elif event["kind"] == "combat.shooting":
            target = _then(data["target"]["marker"], events[index:], where)
            if target is not None:
                yield marker_item(target, "shot")


def _then(marker: str, later: Sequence[Mapping[str, Any]], where: Mapping[str, Pose]) -> tuple[float, float] | None:
    """Return where a card stood at the first of `later` events: where its next drawn move began,
    else where it stands now (None: gone from the table)."""
    for event in later:
        if event["kind"] in ARROWS and event["data"].get("marker") == marker and event["data"].get("path"):
            x, y = event["data"]["path"][0]
            return x, y
    pose = where.get(marker)
    return (pose.x, pose.y) if pose is not None else None
