"""The battlefield picture in a player's letters (option battlefield: table): a scene drawn from
that player's view and the events of the phase they see, never from the state.

Everything on the table is public in Polemos (the README says why), so every player's picture
shows the same table: terrain, every base on the field at its pose (shaken bases marked), the
mounts of dismounted dragoons behind them ("D mts"), each general on the field; and, in a report,
the phase's moves as arrows (from the events' paths: moves, conforming, following up, recoils,
breaks, falls back) and a star on each pair that fought.
A game without the table (battlefield: players) has no picture.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from games.polemos_obb.board import moment
from referee.kit.tabletop import Pose, Size, pose_from
from referee.kit.tabletop.picture import arrow_item, feature_item, marker_item, scene, unit_item

LABEL_FITS = 5  # characters of an id written whole on a base: a half-width gun base holds about five
COLOURS = ("#1f5fbf", "#c0392b")  # the scenario's first side, its second
SHORT = {
    "musketeers": "Ft",
    "horse": "Hs",
    "cuirassiers": "Cu",
    "german-horse": "GH",
    "dragoons": "Dr",
    "hussars": "Hu",
    "light-artillery": "LA",
    "field-artillery": "FA",
}
ARTILLERY = ("light-artillery", "field-artillery")
STANDING = ("fresh", "shaken")
# How each kind of move in the events is drawn.
ARROWS = {
    "move": "move",
    "conforms": "charge",
    "follows up": "charge",
    "advances into contact": "charge",
    "recoils": "fall-back",
    "falls back": "fall-back",
    "broken": "flee",
}


def picture(view: Mapping[str, Any], player: str | None, events: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Return the scene of the table as `view` shows it (None without the referee's table, or before
    the muster has laid the armies out on it)."""
    table = view.get("table")
    if table is None:
        return None
    army = view.get("your_army")
    my_side = next((a["side"] for a in view["armies"] if a["id"] == army), None)
    sides = {
        side["id"]: {"name": side["title"] + (" (you)" if side["id"] == my_side else ""), "colour": COLOURS[index % 2]}
        for index, side in enumerate(view["sides"])
    }
    side_of_army = {a["id"]: a["side"] for a in view["armies"]}
    width, depth = table["bw_mm"], table["bw_mm"] / 2
    items = [feature_item(piece, f"{piece['kind']} {piece['id']}") for piece in table["terrain"]]
    where: dict[str, Pose] = {}
    for division in view["divisions"]:
        if division["spent"]:
            continue
        for brigade in division["brigades"]:
            for base in brigade["bases"]:
                if base["state"] not in STANDING or "pose" not in base:
                    continue
                pose = pose_from(base["pose"])
                where[base["id"]] = pose
                size = Size(width / 2, depth) if base["type"] in ARTILLERY else Size(width, depth)
                label = f"{short_label(base['id'])} {SHORT.get(base['type'], '')}".strip() + (
                    " sh" if base["state"] == "shaken" else ""
                )
                items.append(unit_item(pose, size, side_of_army[division["army"]], label))
                if "mounts" in base:  # a dismounted dragoon base's horse-holders, immediately behind (L266)
                    mounts = f"{short_label(base['id'])} mts"
                    items.append(unit_item(pose_from(base["mounts"]), size, side_of_army[division["army"]], mounts))
    for general in view["generals"]:
        if general["status"] == "active" and "pose" in general and not _gone(view, general):
            pose = pose_from(general["pose"])
            items.append(unit_item(pose, Size(width / 2, depth), side_of_army[general["army"]], _initials(general)))
    if not where:
        return None  # before the muster lays the armies out: an empty cloth says nothing
    items += _arrows(events, where)
    items += _fights(events, where)
    return scene(_title(view, player), table["width_mm"], table["depth_mm"], sides, items, piece="base")


def _gone(view: Mapping[str, Any], general: Mapping[str, Any]) -> bool:
    """Return whether a general left the field with his troops: his army exhausted, or (below
    the C-in-C) every division he commands spent, as its bases are no longer drawn."""
    army = next(a for a in view["armies"] if a["id"] == general["army"])
    if army["exhausted"]:
        return True
    commands = [d for d in view["divisions"] if d["commander"] == general["id"]]
    return army["c_in_c"] != general["id"] and bool(commands) and all(d["spent"] for d in commands)


def short_label(base: str) -> str:
    """Return a base's label: its id, or a long id's initials and number (imperial-horse-3: ih3),
    which fit on its base where the whole id runs over its neighbours'."""
    words = base.split("-")
    if len(base) <= LABEL_FITS or len(words) < 2:
        return base
    return "".join(word if word.isdigit() else word[0] for word in words)


def _initials(general: Mapping[str, Any]) -> str:
    """Return a general's short label: his id, shortened to fit a 0.5BW base."""
    return "Gen " + "".join(word[0] for word in general["id"].split("-")).upper()


def _title(view: Mapping[str, Any], player: str | None) -> str:
    who = f"as {player} sees it" if player else "as everyone sees it"
    return f"{moment(view)}: the battlefield {who}"


def _arrows(events: Sequence[Mapping[str, Any]], where: Mapping[str, Pose]) -> Iterator[dict[str, Any]]:
    for event in events:
        data = event["data"]
        if event["kind"] == "bombardment.fire" and data["battery"] in where:
            battery = where[data["battery"]]
            start = data["move"]["path"][0] if "move" in data else None
            target = start or ([where[data["target"]].x, where[data["target"]].y] if data["target"] in where else None)
            if target is not None:
                yield arrow_item([[battery.x, battery.y], target], "shot")
            if "move" in data:
                yield arrow_item(data["move"]["path"], "flee" if data["outcome"] == "broken" else "fall-back")
        elif event["kind"] == "moves.orders":
            for order in data.get("orders", []):
                for path in order.get("paths", {}).values():
                    if len(path) >= 2:
                        yield arrow_item(path, "move")
        elif event["kind"] == "combat.encounter":
            moves = [m for e in data["engagements"] for m in e.get("moves", [])]
            moves += [m for f in data["outcome"]["fall_backs"] for m in f.get("moves", [])]
            for move in moves:
                if len(move["path"]) >= 2:
                    yield arrow_item(move["path"], ARROWS.get(move["why"], "move"))


def _fights(events: Sequence[Mapping[str, Any]], where: Mapping[str, Pose]) -> Iterator[dict[str, Any]]:
    """A star between the two bases of each pair that fought this phase (where they stand now)."""
    seen: set[tuple[str, ...]] = set()
    for event in events:
        if event["kind"] != "combat.encounter":
            continue
        for played in event["data"]["rounds"]:
            for combat in played["combats"]:
                pair = tuple(combat["pair"])
                here = [where[b] for b in pair if b in where]
                if pair in seen or not here:
                    continue
                seen.add(pair)
                yield marker_item((sum(p.x for p in here) / len(here), sum(p.y for p in here) / len(here)), "combat")
