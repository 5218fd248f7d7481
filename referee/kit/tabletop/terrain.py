"""Terrain on the table: pieces of ground as polygons (or lines with a width), and what a shape crosses.

A piece is read from plain data, so a game's map or a scenario writes it in YAML: a polygon
`{id, kind, points: [[x, y], ...]}`, a rectangle `{id, kind, rect: [x1, y1, x2, y2]}`, or a river
or road `{id, kind, line: [[x, y], ...], width: mm}` (kept as the strip that wide about the line).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from shapely.geometry import LineString, Polygon
from shapely.geometry.base import BaseGeometry


class Piece(NamedTuple):
    """One piece of terrain: its `id`, its `kind` (a game's word: wood, river, hill...) and its area."""

    id: str
    kind: str
    area: Polygon | LineString


def pieces_from(data: Iterable[Mapping[str, Any]]) -> list[Piece]:
    """Read terrain pieces from plain data; refuse a bad item with a GameDataError naming it."""
    raise NotImplementedError


def kinds_under(shape: BaseGeometry, pieces: Iterable[Piece]) -> list[str]:
    """Return the kinds of the pieces whose interiors `shape` overlaps, sorted, each once."""
    raise NotImplementedError


def crossings(path_or_area: BaseGeometry, pieces: Iterable[Piece]) -> list[tuple[Piece, float]]:
    """Return each piece `path_or_area` enters and the length (mm) of the path inside it, in piece order."""
    raise NotImplementedError
