"""Moving a stand: straight slides, paths through waypoints, wheels about a front corner, pivots.

Each move returns where the stand ends, the distance it counts for (the path's length, or for a
wheel the arc its outer front corner travels) and the area it swept on the way, so a game can
ask what the move passed over or through.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from shapely.geometry import Polygon

from referee.kit.tabletop.shapes import Point, Pose, Size


class Move(NamedTuple):
    """Where a move ends, the length it counts for (mm), and the area the stand swept."""

    end: Pose
    length: float
    swept: Polygon


def slide(pose: Pose, size: Size, to_xy: Point, facing: float | None = None) -> Move:
    """Move the centre straight to `to_xy`, keeping the facing (or turning to `facing` at the end)."""
    raise NotImplementedError


def along_path(pose: Pose, size: Size, waypoints: Sequence[Point], face_each_leg: bool = True) -> Move:
    """Move the centre through each waypoint in turn, facing along each leg when `face_each_leg`."""
    raise NotImplementedError


def wheel(pose: Pose, size: Size, pivot: str, degrees: float) -> Move:
    """Wheel about the front-left (`pivot="left"`) or front-right corner; positive degrees clockwise."""
    raise NotImplementedError


def pivot_about_centre(pose: Pose, size: Size, degrees: float) -> Move:
    """Turn the stand about its centre by `degrees` (positive clockwise)."""
    raise NotImplementedError
