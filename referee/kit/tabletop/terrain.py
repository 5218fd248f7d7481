"""Terrain on the table: pieces of ground as polygons (or lines with a width), and what a shape crosses.

A piece is read from plain data, so a game's map or a scenario writes it in YAML: a polygon
`{id, kind, points: [[x, y], ...]}`, a rectangle `{id, kind, rect: [x1, y1, x2, y2]}`, or a river
or road `{id, kind, line: [[x, y], ...], width: mm}`. A line piece keeps its centre line as its
`area` and its `width`; `footprint` gives the strip it covers, which is what the tests below use.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple, NoReturn

from shapely.geometry import LineString, Polygon, box
from shapely.geometry.base import BaseGeometry

from referee.errors import GameDataError

HINT = "docs/tabletop.md describes a terrain item: {id, kind, points | rect | line with width}"
# The DE-9IM pattern "the interiors meet": a shape that only runs along a piece's edge is not in it.
INTERIORS_MEET = "T********"


class Piece(NamedTuple):
    """One piece of terrain: its `id`, its `kind` (a game's word: wood, river, hill...) and its area.

    A river or road is its centre `line` with a `width` (mm); a polygon piece has width 0.
    """

    id: str
    kind: str
    area: Polygon | LineString
    width: float = 0.0


def footprint(piece: Piece) -> Polygon:
    """Return the ground a piece covers: its polygon, or the strip `width` wide about its line."""
    if isinstance(piece.area, LineString):
        return piece.area.buffer(piece.width / 2, cap_style="flat", join_style="mitre")
    return piece.area


def pieces_from(data: Iterable[Mapping[str, Any]]) -> list[Piece]:
    """Read terrain pieces from plain data; refuse a bad item with a GameDataError naming it."""
    if isinstance(data, str | bytes | Mapping) or not isinstance(data, Iterable):
        raise GameDataError(f"terrain is a list of pieces, not {data!r}", hints=(HINT,))
    pieces: list[Piece] = []
    seen: set[str] = set()
    for number, item in enumerate(data, start=1):
        piece = _piece(item, f"terrain item {number}")
        if piece.id in seen:
            _fail(f"terrain item {number}", f"the id {piece.id!r} is used twice; give each piece its own")
        seen.add(piece.id)
        pieces.append(piece)
    return pieces


def _piece(item: Any, where: str) -> Piece:
    if not isinstance(item, Mapping):
        _fail(where, f"a piece is a mapping {{id, kind, ...}}, not {item!r}")
    for key in ("id", "kind"):
        if not isinstance(item.get(key), str) or not item[key]:
            _fail(where, f"{key} is a word, not {item.get(key)!r}")
    where = f"{where} ({item['id']})"
    shapes = [key for key in ("points", "rect", "line") if key in item]
    if len(shapes) != 1:
        _fail(where, "give exactly one of points, rect, or line (with width)")
    unknown = set(item) - {"id", "kind", shapes[0], "width"}
    if unknown or ("width" in item) != (shapes[0] == "line"):
        _fail(where, f"unexpected {', '.join(sorted(unknown)) or 'width'}: only a line piece has a width")
    if shapes[0] == "rect":
        corners = _numbers(item["rect"], 4, where, "rect is [x1, y1, x2, y2]")
        x1, y1, x2, y2 = corners
        if x1 == x2 or y1 == y2:
            _fail(where, "a rect has two different x and two different y")
        return Piece(item["id"], item["kind"], box(min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)))
    points = item[shapes[0]]
    if not isinstance(points, list) or not all(isinstance(point, list) for point in points):
        _fail(where, f"{shapes[0]} is a list of [x, y] points")
    xy = [tuple(_numbers(point, 2, where, "each point is [x, y]")) for point in points]
    if shapes[0] == "line":
        width = item["width"]
        if isinstance(width, bool) or not isinstance(width, int | float) or not math.isfinite(width) or width <= 0:
            _fail(where, f"width is a number of mm above 0, not {width!r}")
        line = LineString(xy) if len(xy) >= 2 else None
        if line is None or line.length == 0:
            _fail(where, "a line runs through at least two different points")
        return Piece(item["id"], item["kind"], line, float(width))
    polygon = Polygon(xy) if len(xy) >= 3 else None
    if polygon is None or not polygon.is_valid or polygon.area == 0:
        _fail(where, "points outline an area: at least three, in order round it, its edges never crossing")
    return Piece(item["id"], item["kind"], polygon)


def _numbers(value: Any, count: int, where: str, shape: str) -> list[float]:
    if not (
        isinstance(value, list)
        and len(value) == count
        and all(not isinstance(v, bool) and isinstance(v, int | float) and math.isfinite(v) for v in value)
    ):
        _fail(where, f"{shape}, not {value!r}")
    return [float(v) for v in value]


def _fail(where: str, message: str) -> NoReturn:
    raise GameDataError(f"{where}: {message}", hints=(HINT,))


def kinds_under(shape: BaseGeometry, pieces: Iterable[Piece], tolerance: float = 0.0) -> list[str]:
    """Return the kinds of the pieces whose insides `shape` enters (by more than `tolerance`), sorted, each once.

    A shape that only touches a piece's edge is not on it; with a tolerance, neither is one that
    reaches no farther in than that (each piece is shrunk by it first).
    """
    return sorted({piece.kind for piece, _ in crossings(shape, pieces, tolerance)})


def crossings(path_or_area: BaseGeometry, pieces: Iterable[Piece], tolerance: float = 0.0) -> list[tuple[Piece, float]]:
    """Return each piece `path_or_area` enters (by more than `tolerance`), in piece order, and how much lies inside.

    For a path (a line) the number is the length of the path inside the piece, in mm; for an
    area (a stand's outline, a swept area) it is the area of the overlap, in square mm. Both are
    measured against the whole piece; the tolerance only decides whether it was entered.
    """
    found = []
    for piece in pieces:
        ground = footprint(piece)
        inner = ground.buffer(-tolerance, join_style="mitre") if tolerance > 0 else ground
        if inner.is_empty or not inner.relate_pattern(path_or_area, INTERIORS_MEET):
            continue
        inside = ground.intersection(path_or_area)
        found.append((piece, float(inside.area if path_or_area.area > 0 else inside.length)))
    return found
