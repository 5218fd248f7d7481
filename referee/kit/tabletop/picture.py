"""A picture of the table as one player may see it: a scene, plain data, nothing drawn here.

A game builds a scene from a player's view (`GameModule.picture`); the letters draw it as SVG
and PNG (`referee.letters.pictures`). A scene says what is where, never how it looks in pixels:

    {"picture": 1, "title": "...", "table": {"width": mm, "depth": mm},
     "sides": {key: {"name": "...", "colour": "#rrggbb"}},
     "items": [item, ...]}

and optionally "piece": what a unit is called in the legend, one lower-case word ("base"; cards
when absent).

Items, each a mapping with "item" naming its kind (drawn in this order: terrain first, then
units, arrows over them, markers, and every text on top; within a kind, in the scene's order):

- terrain: `kind` (wood, river, village...), `points` (a polygon), or `line` and `width` (a river
  or road drawn as a band), optional `label`;
- unit: `points` (its four corners: front-left, front-right, rear-right, rear-left), `side`,
  `label`, `look`: `unit` (shown face up), `card-back` (a card whose face the viewer may not
  see: a face-down card and a dummy both look so, and give identical items), `own-face-down`
  (the viewer's own card still face down), `own-dummy` (the viewer's own dummy);
- arrow: `points` (a path, at least two points), `kind` (move, charge, wheel, fall-back, flee,
  shot), optional `side`;
- marker: `at` (a point), `kind` (combat, shot, destroyed, reveal...), optional `label`;
- label: `at`, `text`.

Millimetres, x east and y north, as the rest of the tabletop kit. Coordinates are rounded to
0.1 mm by the builders, so the same view always gives the same scene, byte for byte.
docs/pictures.md describes the format for players and game writers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from referee.errors import GameDataError
from referee.kit.scene_checks import SceneCheck
from referee.kit.tabletop.shapes import Pose, Size, corners

VERSION = 1
ITEMS = ("terrain", "unit", "arrow", "marker", "label")  # also the order they are drawn in
LOOKS = ("unit", "card-back", "own-face-down", "own-dummy")
ARROWS = ("move", "charge", "wheel", "fall-back", "flee", "shot")
MAX_ITEMS = 2000  # a picture is a table of a few dozen cards: more is a mistake, not a battle

Point = tuple[float, float]


def rounded(value: float) -> float | int:
    """Return `value` rounded to 0.1 mm, a whole number as an int (as the kit's `to_state` does)."""
    tenth = round(float(value), 1) + 0.0  # + 0.0: no negative zero
    return int(tenth) if tenth.is_integer() else tenth


def point(xy: Sequence[float]) -> list[float | int]:
    """Return a point as a scene holds it."""
    return [rounded(xy[0]), rounded(xy[1])]


def scene(
    title: str,
    width: float,
    depth: float,
    sides: Mapping[str, Mapping[str, str]],
    items: Iterable[Mapping[str, Any]],
    piece: str | None = None,
) -> dict[str, Any]:
    """Return a checked scene of a `width` x `depth` mm table (see the module docstring); `piece`
    names its units in the legend (a base; cards when None)."""
    made: dict[str, Any] = {
        "picture": VERSION,
        "title": title,
        "table": {"width": rounded(width), "depth": rounded(depth)},
        "sides": {key: {"name": side["name"], "colour": side["colour"]} for key, side in sides.items()},
        "items": [dict(item) for item in items],
    }
    if piece is not None:
        made["piece"] = piece
    check_scene(made)
    return made


def unit_item(pose: Pose, size: Size, side: str, label: str, look: str = "unit") -> dict[str, Any]:
    """Return a unit (a card, a base) at `pose`: its four corners, front edge first."""
    return {
        "item": "unit",
        "points": [point(c) for c in corners(pose, size)],
        "side": side,
        "label": label,
        "look": look,
    }


def terrain_item(
    piece_id: str, kind: str, area: Any, label: str | None = None, width: float | None = None
) -> dict[str, Any]:
    """Return a terrain item for a piece of terrain: `area` is a shapely Polygon (drawn filled) or
    a LineString drawn as a band `width` mm wide (a river, a road)."""
    item: dict[str, Any] = {"item": "terrain", "kind": kind, "id": piece_id}
    if area.geom_type == "Polygon":
        item["points"] = [point(xy) for xy in list(area.exterior.coords)[:-1]]
    elif area.geom_type == "LineString":
        item["line"] = [point(xy) for xy in area.coords]
        item["width"] = rounded(width if width is not None else 20)
    else:
        raise GameDataError(f"terrain {piece_id!r} is a {area.geom_type}: a picture draws a Polygon or a LineString")
    if label:
        item["label"] = label
    return item


def rect_item(piece_id: str, kind: str, rect: Sequence[float], label: str | None = None) -> dict[str, Any]:
    """Return a terrain item for a rectangle [x1, y1, x2, y2] square to the table."""
    x1, y1, x2, y2 = rect
    item: dict[str, Any] = {"item": "terrain", "kind": kind, "id": piece_id}
    item["points"] = [point(xy) for xy in ((x1, y1), (x2, y1), (x2, y2), (x1, y2))]
    if label:
        item["label"] = label
    return item


def feature_item(feature: Mapping[str, Any], label: str | None = None) -> dict[str, Any]:
    """Return a terrain item for a piece as a map's plain data gives it (`terrain.pieces_from`'s
    shape: `id`, `kind` and one of `rect`, `points`, or `line` with `width`)."""
    if "rect" in feature:
        return rect_item(feature["id"], feature["kind"], feature["rect"], label)
    item: dict[str, Any] = {"item": "terrain", "kind": feature["kind"], "id": feature["id"]}
    if "points" in feature:
        item["points"] = [point(xy) for xy in feature["points"]]
    else:
        item["line"] = [point(xy) for xy in feature["line"]]
        item["width"] = rounded(feature.get("width", 20))
    if label:
        item["label"] = label
    return item


def arrow_item(points: Iterable[Sequence[float]], kind: str = "move", side: str | None = None) -> dict[str, Any]:
    """Return an arrow along `points` (a move's path, a wheel's arc, a shot's line)."""
    item: dict[str, Any] = {"item": "arrow", "points": [point(xy) for xy in points], "kind": kind}
    if side is not None:
        item["side"] = side
    return item


def marker_item(at: Sequence[float], kind: str, label: str | None = None) -> dict[str, Any]:
    """Return a marker at a point (a combat, a shot's target, a card destroyed)."""
    item: dict[str, Any] = {"item": "marker", "at": point(at), "kind": kind}
    if label:
        item["label"] = label
    return item


def label_item(at: Sequence[float], text: str) -> dict[str, Any]:
    """Return a free text on the table."""
    return {"item": "label", "at": point(at), "text": text}


# -- checking ---------------------------------------------------------------------------------------


def check_scene(made: Any) -> None:
    """Raise GameDataError, naming the first fault, unless `made` is a scene of this format."""
    where = "picture"
    _require(isinstance(made, dict), where, "is not a mapping")
    _require(made.get("picture") == VERSION, where, f"has picture: {made.get('picture')!r}, not {VERSION}")
    _text(made.get("title"), f"{where}.title")
    table = made.get("table")
    _require(isinstance(table, dict), f"{where}.table", "is not a mapping of width and depth")
    for key in ("width", "depth"):
        _require(_is_number(table.get(key)) and table[key] > 0, f"{where}.table.{key}", "is not a positive number")
    if "piece" in made:
        piece = made["piece"]
        _require(
            isinstance(piece, str) and piece.isascii() and piece.isalpha() and piece.islower() and len(piece) <= 20,
            f"{where}.piece",
            "is not one lower-case word naming the units (base)",
        )
    sides = made.get("sides")
    _require(isinstance(sides, dict), f"{where}.sides", "is not a mapping")
    _CHECK.named_colours(sides, f"{where}.sides")
    items = made.get("items")
    _require(isinstance(items, list), f"{where}.items", "is not a list")
    _require(len(items) <= MAX_ITEMS, f"{where}.items", f"holds {len(items)} items, more than {MAX_ITEMS}")
    for index, item in enumerate(items):
        _check_item(item, f"{where}.items[{index}]", sides)


def _check_item(item: Any, at: str, sides: Mapping[str, Any]) -> None:
    _require(isinstance(item, dict) and item.get("item") in ITEMS, at, f"is not an item of {', '.join(ITEMS)}")
    kind = item["item"]
    if kind == "terrain":
        _text(item.get("kind"), f"{at}.kind")
        if "line" in item:
            _points(item["line"], f"{at}.line", 2)
            _require(_is_number(item.get("width")) and item["width"] > 0, f"{at}.width", "is not a positive number")
        else:
            _points(item.get("points"), f"{at}.points", 3)
        if "label" in item:
            _text(item["label"], f"{at}.label")
    elif kind == "unit":
        _points(item.get("points"), f"{at}.points", 4)
        _require(len(item["points"]) == 4, f"{at}.points", "is not four corners")
        _require(item.get("side") in sides, f"{at}.side", f"is not one of the scene's sides ({', '.join(sides)})")
        _text(item.get("label"), f"{at}.label", empty=True)
        _require(item.get("look") in LOOKS, f"{at}.look", f"is not one of {', '.join(LOOKS)}")
    elif kind == "arrow":
        _points(item.get("points"), f"{at}.points", 2)
        _require(item.get("kind") in ARROWS, f"{at}.kind", f"is not one of {', '.join(ARROWS)}")
        if "side" in item:
            _require(item["side"] in sides, f"{at}.side", "is not one of the scene's sides")
    elif kind == "marker":
        _points([item.get("at")], f"{at}.at", 1)
        _text(item.get("kind"), f"{at}.kind")
        if "label" in item:
            _text(item["label"], f"{at}.label")
    else:
        _points([item.get("at")], f"{at}.at", 1)
        _text(item.get("text"), f"{at}.text")


def _points(points: Any, at: str, least: int) -> None:
    _require(isinstance(points, list) and len(points) >= least, at, f"is not a list of at least {least} point(s)")
    for xy in points:
        ok = isinstance(xy, list) and len(xy) == 2 and all(_is_number(v) for v in xy)
        _require(ok, at, f"holds {xy!r}, not a point [x, y] in mm")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value and abs(value) < 1e7


_CHECK = SceneCheck("see docs/pictures.md for the picture format")
_require, _text = _CHECK.require, _CHECK.text
