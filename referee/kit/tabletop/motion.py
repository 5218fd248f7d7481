"""Moving a stand: straight slides, paths through waypoints, wheels about a front corner, pivots.

Each move returns where the stand ends, the distance it counts for (the path of its centre, or
for a wheel the arc its outer front corner travels) and the area it swept on the way, so a game
can ask what the move passed over or through. A slide's swept area is exact; a turn's is built
from the stand's positions at most one degree apart, each pair joined by their convex hull and
the whole grown by the most an arc can bulge beyond its chord, so it never misses ground the
stand crossed (it may claim a hundredth of a millimetre more).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy
import shapely
from shapely import union_all
from shapely.geometry import MultiPolygon, Polygon

from referee.kit.tabletop.shapes import Point, Pose, Size, bearing, corners, heading, normal, outline, turned

# The largest step between the sampled positions of a turn, in degrees.
TURN_STEP = 1.0
PIVOTS = ("left", "right")


class Move(NamedTuple):
    """Where a move ends, the length it counts for (mm), and the area the stand swept."""

    end: Pose
    length: float
    swept: Polygon


def rotated(point: Point, about: Point, degrees: float) -> Point:
    """Return `point` turned about `about` by `degrees` (positive clockwise)."""
    sin, cos = heading(degrees)
    dx, dy = point[0] - about[0], point[1] - about[1]
    return (about[0] + dx * cos + dy * sin, about[1] - dx * sin + dy * cos)


def shortest_turn(from_facing: float, to_facing: float) -> float:
    """Return the turn from one bearing to another the shorter way round, in (-180, 180]."""
    turn = normal(to_facing - from_facing)
    return turn - 360.0 if turn > 180 else turn


def slide(pose: Pose, size: Size, to_xy: Point, facing: float | None = None) -> Move:
    """Move the centre straight to `to_xy`, keeping the facing, then turn about the centre to `facing`.

    The turn, when one is asked for, goes the shorter way round and adds nothing to the length.
    """
    arrived = Pose(float(to_xy[0]), float(to_xy[1]), pose.facing)
    parts = [_translation(pose, arrived, size)]
    end = arrived
    if facing is not None:
        turn = _rotation(arrived, size, (arrived.x, arrived.y), shortest_turn(pose.facing, facing))
        parts.append(turn.swept)
        end = Pose(arrived.x, arrived.y, normal(facing))
    return Move(end, math.hypot(arrived.x - pose.x, arrived.y - pose.y), _joined(parts))


def along_path(pose: Pose, size: Size, waypoints: Sequence[Point], face_each_leg: bool = True) -> Move:
    """Move the centre through each waypoint in turn; the length is the path's.

    With `face_each_leg` the stand first turns about its centre (the shorter way) to face along
    each leg, and ends facing along the last; without it, it keeps its facing throughout.
    """
    here = pose
    parts = [outline(pose, size)]
    length = 0.0
    for waypoint in waypoints:
        leg = math.hypot(waypoint[0] - here.x, waypoint[1] - here.y)
        if leg == 0:
            continue
        if face_each_leg:
            turn = _rotation(
                here, size, (here.x, here.y), shortest_turn(here.facing, bearing((here.x, here.y), waypoint))
            )
            parts.append(turn.swept)
            here = turn.end
        there = Pose(float(waypoint[0]), float(waypoint[1]), here.facing)
        parts.append(_translation(here, there, size))
        here, length = there, length + leg
    return Move(here, length, _joined(parts))


def wheel(pose: Pose, size: Size, pivot: str, degrees: float) -> Move:
    """Wheel about the front-left (`pivot="left"`) or front-right corner; positive degrees clockwise.

    A forward wheel turns towards the pivot: negative degrees about the left corner, positive
    about the right. The other sign swings the stand back; the kit computes either and leaves
    to the game whether it is allowed. The length is the arc the outer front corner travels.
    """
    if pivot not in PIVOTS:
        raise ValueError(f"a wheel pivots on its front 'left' or 'right' corner, not {pivot!r}")
    c = corners(pose, size)
    move = _rotation(pose, size, c.front_left if pivot == "left" else c.front_right, degrees)
    return move._replace(length=size.width * math.radians(abs(degrees)))


def pivot_about_centre(pose: Pose, size: Size, degrees: float) -> Move:
    """Turn the stand about its centre by `degrees` (positive clockwise).

    The length is the arc each corner travels (half the diagonal times the angle).
    """
    return _rotation(pose, size, (pose.x, pose.y), degrees)


def _translation(start: Pose, end: Pose, size: Size) -> Polygon:
    # A convex shape moved in a straight line sweeps the convex hull of where it starts and ends.
    return union_all([outline(start, size), outline(end, size)]).convex_hull


def _rotation(pose: Pose, size: Size, about: Point, degrees: float) -> Move:
    centre = rotated((pose.x, pose.y), about, degrees)
    end = Pose(centre[0], centre[1], turned(pose.facing, degrees))
    reach = max(math.dist(about, corner) for corner in corners(pose, size))
    length = reach * math.radians(abs(degrees))
    if degrees == 0:
        return Move(end, 0.0, outline(pose, size))
    steps = max(1, math.ceil(abs(degrees) / TURN_STEP))
    # Every sampled position's corners at once: each corner turned about the pivot, clockwise.
    angles = numpy.radians(numpy.linspace(0.0, degrees, steps + 1))[:, None]
    start = numpy.array(corners(pose, size)) - about
    xs = about[0] + start[:, 0] * numpy.cos(angles) + start[:, 1] * numpy.sin(angles)
    ys = about[1] - start[:, 0] * numpy.sin(angles) + start[:, 1] * numpy.cos(angles)
    positions = numpy.stack([xs, ys], axis=-1)
    pairs = numpy.concatenate([positions[:-1], positions[1:]], axis=1)
    hulls = shapely.convex_hull(shapely.multipoints(pairs))
    # Between two sampled positions each corner runs on an arc, which bulges beyond its chord by
    # at most reach * (1 - cos(step / 2)).
    bulge = reach * (1 - math.cos(math.radians(abs(degrees) / steps) / 2))
    swept = union_all(hulls).buffer(bulge * 1.01 + 1e-9, join_style="mitre")
    return Move(end, length, _polygon(swept))


def _joined(parts: list[Polygon]) -> Polygon:
    return _polygon(union_all(parts))


def _polygon(shape: Polygon | MultiPolygon) -> Polygon:
    # Each part overlaps the next, so the union is one polygon; a float sliver between them is closed.
    if isinstance(shape, Polygon):
        return shape
    return shape.buffer(1e-9, join_style="mitre")
