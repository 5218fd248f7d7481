"""Edges and zones of the table: base edges, flanks, the deployment and reserve entry strips."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shapely.geometry import box

from games.cest_la_guerre.geometry import Rect, inside, table_rect

EDGES = ("south", "north", "west", "east")
TOWARDS = {"south": "north", "north": "south", "west": "east", "east": "west"}


def enemy_edge(edge: str) -> str:
    """Return the edge across the table."""
    return TOWARDS[edge]


def flank_edges(base: str) -> dict[str, str]:
    """Return the left and right flank edges of a player whose base edge is `base` (facing the enemy)."""
    if base == "south":
        return {"left_flank": "west", "right_flank": "east"}
    return {"left_flank": "east", "right_flank": "west"}


def entry_edge(state: Mapping[str, Any], role: str, name: str) -> str:
    """Return the table edge a player means by own_base, left_flank, right_flank or enemy_base."""
    base = state["edges"][role]
    if name == "own_base":
        return str(base)
    if name == "enemy_base":
        return enemy_edge(base)
    return flank_edges(base)[name]


def strip(state: Mapping[str, Any], edge: str, depth: int) -> Rect:
    """Return the strip `depth` mm deep along a table edge."""
    x1, y1, x2, y2 = table_rect(state["options"]["table_mm"]).bounds
    if edge == "south":
        return box(x1, y1, x2, y1 + depth)
    if edge == "north":
        return box(x1, y2 - depth, x2, y2)
    if edge == "west":
        return box(x1, y1, x1 + depth, y2)
    return box(x2 - depth, y1, x2, y2)


def in_strip(state: Mapping[str, Any], card: Rect, edge: str, depth: int) -> bool:
    """Return whether a card lies wholly within `depth` mm of a table edge."""
    return inside(card, strip(state, edge, depth))


def on_table(state: Mapping[str, Any], card: Rect) -> bool:
    """Return whether a card lies wholly on the table."""
    return inside(card, table_rect(state["options"]["table_mm"]))
