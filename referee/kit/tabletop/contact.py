"""Contact between stands: touching, overlapping, which side is touched, where a point lies.

Every test takes the game's tolerance (mm): stands pushed together by hand touch within it, and
overlap only when they cut into each other by more than it. Pass a tolerance above 0: shapes
placed edge to edge by arithmetic on floats may meet or part by a hair.
"""

from __future__ import annotations

from shapely.geometry.base import BaseGeometry

from referee.kit.tabletop.measure import gap
from referee.kit.tabletop.shapes import SIDES, Point, Pose, Size, corners, edge, heading, outline, turned

# The DE-9IM pattern "the interiors meet".
INTERIORS_MEET = "T********"
# Which way each side faces, turned from the stand's facing.
SIDE_TURNS = {"front": 0, "right": 90, "rear": 180, "left": 270}
ALIGNS = ("centre", "nearest", "left", "right", "front_left", "front_right", "rear_left", "rear_right")
# Shared lengths closer than this are a tie, settled in the order of SIDES (front first).
TIE_MM = 1e-6


def overlapping(a: BaseGeometry, b: BaseGeometry, tolerance: float) -> bool:
    """Return whether two shapes cut into each other by more than `tolerance`.

    Each area is shrunk by half the tolerance (an area against a line or point, by all of it) and
    the two overlap when what is left still overlaps: two stands pushed into each other overlap
    when their edges cross by more than the tolerance. A shape thinner than the tolerance
    overlaps nothing. Two lines or points have no area to overlap.
    """
    if a.area == 0 and b.area == 0:
        return False
    # Shrinking first keeps GEOS away from the near-coincident edges of stands placed flush,
    # where an overlay of the two shapes can come out wrong.
    share = tolerance / 2 if a.area > 0 and b.area > 0 else tolerance
    a, b = _shrunk(a, share), _shrunk(b, share)
    return bool(not a.is_empty and not b.is_empty and a.relate_pattern(b, INTERIORS_MEET))


def _shrunk(shape: BaseGeometry, by: float) -> BaseGeometry:
    return shape.buffer(-by, join_style="mitre") if shape.area > 0 and by > 0 else shape


def touching(a: BaseGeometry, b: BaseGeometry, tolerance: float) -> bool:
    """Return whether two shapes touch: no farther apart than `tolerance`, overlapping by no more than it."""
    return gap(a, b) <= tolerance and not overlapping(a, b, tolerance)


def contact_lengths(
    target_pose: Pose, target_size: Size, other_shape: BaseGeometry, tolerance: float
) -> dict[str, float]:
    """Return, for each side of the target, how long a stretch of it lies within `tolerance` of the other shape."""
    near = other_shape.buffer(tolerance, join_style="mitre") if tolerance > 0 else other_shape
    return {side: float(edge(target_pose, target_size, side).intersection(near).length) for side in SIDES}


def side_touched(target_pose: Pose, target_size: Size, other_shape: BaseGeometry, tolerance: float) -> str | None:
    """Return which edge of the target (`front`, `left`, `right`, `rear`) the other shape touches, if any.

    The edge sharing the longest stretch with the other shape (within the tolerance); a tie, as
    when only a corner meets a corner, goes to the first of front, right, rear, left. None when
    the shapes do not touch (they are apart, or cut into each other by more than the tolerance).
    """
    if not touching(outline(target_pose, target_size), other_shape, tolerance):
        return None
    lengths = contact_lengths(target_pose, target_size, other_shape, tolerance)
    longest = max(lengths.values())
    if longest <= 0:
        return None
    return next(side for side in SIDES if lengths[side] >= longest - TIE_MM)


def local(pose: Pose, point: Point) -> tuple[float, float]:
    """Return `point` in the stand's own terms: (to its right, ahead of its centre), in mm."""
    hx, hy = heading(pose.facing)
    dx, dy = point[0] - pose.x, point[1] - pose.y
    return (dx * hy - dy * hx, dx * hx + dy * hy)


def zone_of(pose: Pose, size: Size, point: Point) -> str:
    """Return where `point` lies relative to the stand: `front`, `left`, `right` or `rear`.

    The stand's two diagonals, carried on past its corners, cut the table into four zones: the
    front zone lies ahead between the diagonals through the front corners, the rear zone behind,
    the left and right zones to either side. So the strip straight ahead of the front edge is all
    front, the strip beside a flank is all that flank, and a point off a corner belongs to the
    side whose edge it lies more squarely beyond. A point on a diagonal goes to front or rear.
    """
    right, ahead = local(pose, point)
    across = abs(right) / (size.width / 2)
    along = ahead / (size.depth / 2)
    if along >= across:
        return "front"
    if -along >= across:
        return "rear"
    return "right" if right > 0 else "left"


def _extent_ahead(pose: Pose, shape: BaseGeometry) -> tuple[float, float]:
    # The nearest and farthest reach of a shape along the stand's facing, from its centre; the
    # reach is linear, so the convex hull's corners bound it.
    hull = shape.convex_hull
    points = hull.exterior.coords if hull.geom_type == "Polygon" else hull.coords
    aheads = [local(pose, (x, y))[1] for x, y in points]
    return min(aheads), max(aheads)


def in_front_of(pose: Pose, size: Size, shape: BaseGeometry, tolerance: float = 0.0) -> bool:
    """Return whether some of `shape` lies beyond the line of the stand's front edge (by more than `tolerance`)."""
    return _extent_ahead(pose, shape)[1] > size.depth / 2 + tolerance


def behind(pose: Pose, size: Size, shape: BaseGeometry, tolerance: float = 0.0) -> bool:
    """Return whether some of `shape` lies beyond the line of the stand's rear edge (by more than `tolerance`)."""
    return _extent_ahead(pose, shape)[0] < -size.depth / 2 - tolerance


def snap_to(
    mover_pose: Pose, mover_size: Size, target_pose: Pose, target_size: Size, side: str, align: str = "centre"
) -> Pose:
    """Return the mover's pose with its front edge flush against the target's `side`, facing it.

    `align` places the mover along that edge:
    - `centre`: the mover's front centred on the edge;
    - `nearest`: as near the mover's centre as it is now, the way a player pushes a stand straight
      in, kept so the shorter of the two edges lies wholly along the longer;
    - `left`, `right`: the mover's own front-left (or front-right) corner on the end of the edge
      at the mover's left (right);
    - `front_left`, `front_right`, `rear_left`, `rear_right`: the mover's front corner at that
      corner of the target (which must be an end of the edge).
    """
    if side not in SIDE_TURNS:
        raise ValueError(f"a side is one of {', '.join(SIDES)}, not {side!r}")
    if align not in ALIGNS:
        raise ValueError(f"align is one of {', '.join(ALIGNS)}, not {align!r}")
    outward = turned(target_pose.facing, SIDE_TURNS[side])
    facing = turned(outward, 180)
    line = edge(target_pose, target_size, side)
    (ax, ay), (bx, by) = line.coords
    mid = ((ax + bx) / 2, (ay + by) / 2)
    # Along the edge, measured to the mover's right as it faces the target.
    rx, ry = heading(turned(facing, 90))
    half_edge, half_front = line.length / 2, mover_size.width / 2
    if align == "centre":
        offset = 0.0
    elif align == "nearest":
        wanted = (mover_pose.x - mid[0]) * rx + (mover_pose.y - mid[1]) * ry
        room = abs(half_edge - half_front)
        offset = max(-room, min(room, wanted))
    elif align in ("left", "right"):
        offset = (half_edge - half_front) * (1 if align == "right" else -1)
    else:
        corner = getattr(corners(target_pose, target_size), align)
        if corner not in list(line.coords):
            raise ValueError(f"the target's {align.replace('_', '-')} corner is not an end of its {side} edge")
        end = (corner[0] - mid[0]) * rx + (corner[1] - mid[1]) * ry
        offset = end - half_front if end > 0 else end + half_front
    ox, oy = heading(outward)
    depth = mover_size.depth / 2
    return Pose(mid[0] + ox * depth + rx * offset, mid[1] + oy * depth + ry * offset, facing)
