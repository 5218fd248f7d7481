"""Moving a stand: straight slides, paths through waypoints, wheels about a front corner, pivots.

Each move returns where the stand ends, the distance it counts for (the path of its centre, or
for a wheel the arc its outer front corner travels) and the area it swept on the way, so a game
can ask what the move passed over or through. A slide's swept area is exact. A turn's is exact
but for its arcs, drawn in straight pieces at most a degree apart, each on the side that claims
more ground (outer arcs outside their circle, inner arcs inside), so it never misses ground the
stand crossed and claims at most a few thousandths of a millimetre more.
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
# A turn wider than this is swept in two halves (a band of more than a whole turn would cross itself).
HALF_TURN = 180.0
# A hole in a swept area smaller than this (square mm) is a float sliver between its parts.
SLIVER_MM2 = 1e-6
# A fraction of an edge too small to matter: float error, not geometry.
HAIR = 1e-9
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


def turn_about(pose: Pose, size: Size, about: Point, degrees: float) -> Move:
    """Turn the stand about any point by `degrees` (positive clockwise), as one stand of a line
    wheeling about the line's end does. The length is the arc its corner farthest from `about` travels."""
    return _rotation(pose, size, about, degrees)


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
    return Move(end, length, _turn_sweep(pose, size, about, degrees))


def _turn_sweep(pose: Pose, size: Size, about: Point, degrees: float) -> Polygon:
    # A solid turning sweeps where it starts and what its edges sweep. Each edge is cut where it
    # comes nearest the pivot, so along each piece the distance from the pivot only grows; each
    # point of such a piece runs along its own circle, so the piece sweeps a band bounded by the
    # piece where it starts and ends and by the arcs of its two ends.
    if abs(degrees) > HALF_TURN:
        half = degrees / 2
        middle = rotated((pose.x, pose.y), about, half)
        second = _turn_sweep(Pose(middle[0], middle[1], turned(pose.facing, half)), size, about, half)
        return _joined([_turn_sweep(pose, size, about, half), second])
    c = corners(pose, size)
    ring = [c.front_left, c.front_right, c.rear_right, c.rear_left]
    steps = max(1, math.ceil(abs(degrees) / TURN_STEP))
    parts: list[Polygon] = [outline(pose, size)]
    for a, b in zip(ring, ring[1:] + ring[:1]):
        for near, far in _pieces(a, b, about):
            band = [near, far, *_arc(far, about, degrees, steps, outside=True), rotated(far, about, degrees)]
            band += [rotated(near, about, degrees), *reversed(_arc(near, about, degrees, steps, outside=False))]
            parts.append(Polygon(band))
    if not all(part.is_valid for part in parts):
        # A band folded by float error (a sliver from a small turn, its piece tangent to its arc).
        return _sampled_sweep(pose, size, about, degrees)
    swept = union_all(parts)
    if not swept.is_valid or not isinstance(swept, Polygon):
        return _sampled_sweep(pose, size, about, degrees)
    return _polygon(swept)


def _pieces(a: Point, b: Point, about: Point) -> list[tuple[Point, Point]]:
    # The edge from a to b cut at the point nearest the pivot, each piece (nearer end, farther end).
    ex, ey = b[0] - a[0], b[1] - a[1]
    t = ((about[0] - a[0]) * ex + (about[1] - a[1]) * ey) / (ex * ex + ey * ey)
    # A foot within a hair of an end is that end: a piece of no length would fold its band.
    if t <= HAIR:
        return [(a, b)]
    if t >= 1 - HAIR:
        return [(b, a)]
    foot = (a[0] + ex * t, a[1] + ey * t)
    return [(foot, a), (foot, b)]


def _arc(point: Point, about: Point, degrees: float, steps: int, outside: bool) -> list[Point]:
    # The points of `point`'s arc between its start and end (both left out). Outside: where the
    # tangents at each step meet, so the straight pieces lie outside the circle; inside: on the
    # circle, so they lie inside it.
    step = degrees / steps
    if not outside:
        return [rotated(point, about, step * i) for i in range(1, steps)]
    stretch = 1 / math.cos(math.radians(step) / 2)
    found = []
    for i in range(steps):
        x, y = rotated(point, about, step * (i + 0.5))
        found.append((about[0] + (x - about[0]) * stretch, about[1] + (y - about[1]) * stretch))
    return found


def _sampled_sweep(pose: Pose, size: Size, about: Point, degrees: float) -> Polygon:
    # The fallback: positions at most TURN_STEP apart, each pair joined by its convex hull.
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
    reach = max(math.dist(about, corner) for corner in corners(pose, size))
    bulge = reach * (1 - math.cos(math.radians(abs(degrees) / steps) / 2))
    return _polygon(union_all(hulls).buffer(bulge * 1.01 + 1e-9, join_style="mitre"))


def _joined(parts: list[Polygon]) -> Polygon:
    return _polygon(union_all(parts))


def _polygon(shape: Polygon | MultiPolygon) -> Polygon:
    # Each part overlaps the next, so the union is one polygon; float slivers between the parts
    # (a gap, or a hole far thinner than a hair) are closed. A real hole, as a whole turn about
    # a pivot outside the stand leaves, is kept.
    if not isinstance(shape, Polygon):
        shape = shape.buffer(1e-9, join_style="mitre")
    if not isinstance(shape, Polygon):
        raise ValueError(f"a move's parts do not join into one area: {shape.geom_type}")
    holes = [hole for hole in shape.interiors if Polygon(hole).area > SLIVER_MM2]
    return shape if len(holes) == len(shape.interiors) else Polygon(shape.exterior, holes)
