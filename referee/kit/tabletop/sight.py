"""Fire and sight: arcs and lanes of fire, clear lines, and whether a stand can see a target."""

from __future__ import annotations

from collections.abc import Iterable

from shapely.geometry import LineString, Polygon
from shapely.geometry.base import BaseGeometry

from referee.kit.tabletop.shapes import Point, Pose, Size


def arc_of_fire(pose: Pose, size: Size, half_angle: float, reach: float) -> Polygon:
    """Return the area from the front edge, `half_angle` degrees either side of ahead, out to `reach` mm."""
    raise NotImplementedError


def lane(pose: Pose, size: Size, reach: float) -> Polygon:
    """Return the stand's frontage carried straight ahead `reach` mm from its front edge."""
    raise NotImplementedError


def clear_line(start_xy: Point, end_xy: Point, blockers: Iterable[BaseGeometry], tolerance: float) -> bool:
    """Return whether the segment crosses no blocker's interior (grazing within `tolerance` is clear)."""
    raise NotImplementedError


def sight(
    viewer_edge: LineString,
    target_shape: BaseGeometry,
    blockers: Iterable[BaseGeometry],
    tolerance: float,
    samples: int = 5,
) -> bool:
    """Return whether any of the sampled lines from the viewer's edge to the target is clear."""
    raise NotImplementedError
