"""Fire and sight: arcs and lanes of fire, clear lines, and whether a stand can see a target.

A blocker is any shape that hides what lies beyond it: a wood's polygon, a town, another stand's
outline, a wall drawn as a line. A line of sight is blocked when it runs through a blocker's
inside by more than the game's tolerance (so a line grazing a wood's edge or a stand's corner is
clear), or, for a blocker drawn as a line, when it crosses it. Which blockers count is the
game's: leave out the viewer's and the target's own outlines, and a wood the viewer stands in
when its rules let a stand see out of one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import cast

import numpy
import shapely
from shapely.geometry import LineString, Polygon
from shapely.geometry.base import BaseGeometry

from referee.kit.tabletop.shapes import Point, Pose, Size, corners, heading, turned

# The largest step between the points of an arc's curved edge, in degrees.
ARC_STEP = 1.0


def lane(pose: Pose, size: Size, reach: float) -> Polygon:
    """Return the stand's frontage carried straight ahead `reach` mm from its front edge."""
    c = corners(pose, size)
    dx, dy = heading(pose.facing)
    far_left = (c.front_left[0] + dx * reach, c.front_left[1] + dy * reach)
    far_right = (c.front_right[0] + dx * reach, c.front_right[1] + dy * reach)
    return Polygon([c.front_left, far_left, far_right, c.front_right])


def arc_of_fire(pose: Pose, size: Size, half_angle: float, reach: float) -> Polygon:
    """Return the area from the front edge, `half_angle` degrees either side of ahead, out to `reach` mm.

    Every point within `reach` of some point of the front edge, in a direction no more than
    `half_angle` from straight ahead: the lane with a sector at each front corner, the curved
    edge drawn just outside the true circle (by a hundredth of a percent at one-degree steps) so
    the arc never falls short. `half_angle` is from 0 (the lane) to 90.
    """
    if not 0 <= half_angle <= 90:
        raise ValueError(f"an arc of fire's half angle is from 0 to 90 degrees, not {half_angle!r}")
    if half_angle == 0:
        return lane(pose, size, reach)
    c = corners(pose, size)
    steps = max(1, math.ceil(2 * half_angle / ARC_STEP))
    step = 2 * half_angle / steps
    # The curved edge as a circumscribed polygon: its ends on the circle, the points between where
    # the tangents at each step meet, so each straight piece lies outside the circle of `reach`.
    directions = [(-half_angle, reach)]
    directions += [(-half_angle + step * (i + 0.5), reach / math.cos(math.radians(step / 2))) for i in range(steps)]
    directions += [(half_angle, reach)]
    points = [c.front_left, c.front_right]
    for corner in (c.front_left, c.front_right):
        for offset, radius in directions:
            dx, dy = heading(turned(pose.facing, offset))
            points.append((corner[0] + dx * radius, corner[1] + dy * radius))
    return cast(Polygon, shapely.multipoints(points).convex_hull)


def clear_line(start_xy: Point, end_xy: Point, blockers: Iterable[BaseGeometry], tolerance: float) -> bool:
    """Return whether the segment runs through no blocker's inside by more than `tolerance`.

    Each area blocker is shrunk by the tolerance first; a line blocker blocks when the segment
    crosses it.
    """
    return bool(_clear(numpy.array([[start_xy, end_xy]], dtype=float), list(blockers), tolerance)[0])


def sight(
    viewer_edge: LineString,
    target_shape: BaseGeometry,
    blockers: Iterable[BaseGeometry],
    tolerance: float,
    samples: int = 5,
) -> bool:
    """Return whether any of the sampled lines from the viewer's edge to the target is clear.

    `samples` points spread evenly along the viewer's edge, ends included, each looking at
    `samples` points spread along each side of the target's convex hull (or along the target,
    when it is a line; or at it, when it is a point).
    """
    if samples < 2:
        raise ValueError(f"sight samples at least the two ends of the viewer's edge, not {samples!r}")
    looking_from = _spread(viewer_edge, samples)
    looking_at = _targets(target_shape, samples)
    segments = numpy.array([[start, end] for start in looking_from for end in looking_at], dtype=float)
    return bool(_clear(segments, list(blockers), tolerance).any())


def _spread(line: LineString, samples: int) -> list[Point]:
    return [
        (point.x, point.y) for point in (line.interpolate(i / (samples - 1), normalized=True) for i in range(samples))
    ]


def _targets(shape: BaseGeometry, samples: int) -> list[Point]:
    if shape.geom_type == "Point":
        return [(shape.x, shape.y)]
    if shape.geom_type == "LineString":
        return _spread(shape, samples)
    ring = shape.convex_hull.exterior if shape.area > 0 else shape.convex_hull
    coords = list(ring.coords)
    found: list[Point] = []
    for a, b in zip(coords, coords[1:]):
        side = LineString([a, b])
        found += _spread(side, samples)[:-1]
    return found or [(shape.centroid.x, shape.centroid.y)]


def _clear(segments: numpy.ndarray, blockers: list[BaseGeometry], tolerance: float) -> numpy.ndarray:
    lines = shapely.linestrings(segments)
    clear = numpy.ones(len(segments), dtype=bool)
    for blocker in blockers:
        if blocker.area > 0:
            inside = blocker.buffer(-tolerance, join_style="mitre") if tolerance > 0 else blocker
            if inside.is_empty:
                continue
            shapely.prepare(inside)
            # A segment running only along the shrunk edge is not inside it: the interiors must meet.
            clear &= ~shapely.relate_pattern(inside, lines, "T********")
        else:
            clear &= ~shapely.crosses(lines, blocker)
    return clear
