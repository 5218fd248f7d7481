"""Table geometry: cards at any position and facing, distances, swept areas and the poses of contacts.

A card is 50 mm wide and 30 mm deep (5 x 3 cm, L62). Its pose is its centre (x, y) and its
facing, a compass bearing in degrees (0 north, 90 east; x runs east along the table, y north).
Shapes are shapely polygons (the tabletop kit's representation). What the state keeps is
quantized (`pose_state`: 0.1 mm, 0.1 degree, whole values as ints) so that every machine
re-adjudicating a record computes the same; every comparison goes through TOUCH_MM or
FACING_TOLERANCE, never float equality.

The names of the first, square-to-the-table geometry are kept (`rect_of`, `card_rect`,
`overlaps`, `within` ...) so the rule modules read the same; they now take and return shapes
(a 4-tuple (x1, y1, x2, y2) is still accepted wherever a shape is).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias

import shapely
from shapely.geometry import LineString, Point, Polygon, box
from shapely.geometry.base import BaseGeometry

from referee.kit import tabletop

Vector = tuple[float, float]
Pose = tuple[float, float, float]
AnyPose = tuple[float, float, Any]  # a facing in degrees or a compass word
Area: TypeAlias = BaseGeometry | tuple[float, float, float, float]
Rect: TypeAlias = Area  # any shape (or x1, y1, x2, y2); the name stays from the square geometry

CARD_WIDTH = 50
CARD_DEPTH = 30
TOUCH_MM = 2  # how far apart two edges may be and still count as touching or lined up
FACING_TOLERANCE = 1.0  # degrees apart two facings may be and still count as the same
QUANTUM = 10  # positions and facings are kept to 1/QUANTUM mm and degree
CARD = tabletop.Size(CARD_WIDTH, CARD_DEPTH)
COMPASS = tabletop.COMPASS
FACINGS = COMPASS  # the words a facing may be written with
WHEEL_STEP = 1.0  # degrees between the sampled positions of a turning card's swept area


def quantized(value: float) -> int | float:
    """Return `value` rounded to the kept precision, as an int when whole."""
    rounded = round(value * QUANTUM) / QUANTUM
    return int(rounded) if rounded == int(rounded) else rounded


def facing_of(value: Any) -> float:
    """Return a facing in degrees [0, 360) from a number or a compass word; ValueError if neither."""
    if isinstance(value, str):
        if value.strip().lower() in COMPASS:
            return float(COMPASS[value.strip().lower()])
        raise ValueError(f"{value!r} is not a facing: give degrees (0 north, 90 east) or {', '.join(COMPASS)}")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{value!r} is not a facing: give degrees (0 north, 90 east) or {', '.join(COMPASS)}")
    return tabletop.normal(value)


def is_facing(value: Any) -> bool:
    """Return whether `value` reads as a facing."""
    try:
        facing_of(value)
    except ValueError:
        return False
    return True


def kept_facing(value: Any) -> int | float:
    """Return a facing as the state keeps it: degrees in [0, 360), quantized."""
    return tabletop.to_state(tabletop.Pose(0, 0, facing_of(value)))["facing"]


def pose_state(x: float, y: float, facing: Any) -> dict[str, Any]:
    """Return the quantized {x, y, facing} a state keeps for a pose (the kit's to_state)."""
    return dict(tabletop.to_state(tabletop.Pose(x, y, facing_of(facing))))


def describe_facing(value: Any) -> str:
    """Return a facing in words: a compass word when it is one, else its bearing in degrees."""
    degrees = facing_of(value)
    for word, bearing in COMPASS.items():
        if angle_between(degrees, bearing) < 0.05:
            return word
    return f"{quantized(degrees)} degrees"


def turned(facing: Any, degrees: float) -> float:
    """Return `facing` turned clockwise by `degrees`."""
    return tabletop.turned(facing_of(facing), degrees)


def left_of(facing: Any) -> float:
    """Return the facing to the left of `facing`."""
    return turned(facing, -90)


def right_of(facing: Any) -> float:
    """Return the facing to the right of `facing`."""
    return turned(facing, 90)


def opposite(facing: Any) -> float:
    """Return the facing behind `facing`."""
    return turned(facing, 180)


def angle_between(a: Any, b: Any) -> float:
    """Return how far apart two facings are, in degrees [0, 180]."""
    return tabletop.angle_between(facing_of(a), facing_of(b))


def same_facing(a: Any, b: Any) -> bool:
    """Return whether two facings are the same within FACING_TOLERANCE."""
    return angle_between(a, b) <= FACING_TOLERANCE


def heading(facing: Any) -> Vector:
    """Return the unit vector a facing points along."""
    return tabletop.heading(facing_of(facing))


def bearing(start: Vector, end: Vector) -> float:
    """Return the compass bearing from `start` to `end`."""
    return tabletop.bearing(start, end)


def step(point: Vector, facing: Any, distance: float) -> Vector:
    """Return `point` moved `distance` mm towards `facing`."""
    dx, dy = heading(facing)
    return point[0] + dx * distance, point[1] + dy * distance


def along(vector: Vector, facing: Any) -> float:
    """Return the component of `vector` in the direction `facing`."""
    dx, dy = heading(facing)
    return vector[0] * dx + vector[1] * dy


def pose_of(card: Mapping[str, Any]) -> Pose:
    """Return a placed card's (x, y, facing in degrees)."""
    return float(card["x"]), float(card["y"]), facing_of(card["facing"])


def corners(x: float, y: float, facing: Any) -> dict[str, Vector]:
    """Return the card's four corners by name (front-left, front-right, rear-left, rear-right)."""
    c = tabletop.corners(tabletop.Pose(x, y, facing_of(facing)), CARD)
    return {
        "front-left": c.front_left,
        "front-right": c.front_right,
        "rear-left": c.rear_left,
        "rear-right": c.rear_right,
    }


def card_shape(x: float, y: float, facing: Any) -> Polygon:
    """Return the area a card covers at this pose (the kit's outline)."""
    return _outline(float(x), float(y), facing_of(facing))


@functools.lru_cache(maxsize=4096)
def _outline(x: float, y: float, facing: float) -> Polygon:
    # Shapes are immutable, and the same cards are measured against each other many times a bound.
    return tabletop.outline(tabletop.Pose(x, y, facing), CARD)


def shape_of(card: Mapping[str, Any]) -> Polygon:
    """Return the area a placed card covers."""
    return card_shape(*pose_of(card))


card_rect = card_shape
rect_of = shape_of


def as_shape(area: Area) -> BaseGeometry:
    """Return a shape for a shape or an (x1, y1, x2, y2) rectangle."""
    if isinstance(area, BaseGeometry):
        return area
    x1, y1, x2, y2 = area
    return box(min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))


def edge_of(x: float, y: float, facing: Any, side: str) -> LineString:
    """Return one edge of a card: front, rear, left or right."""
    return tabletop.edge(tabletop.Pose(x, y, facing_of(facing)), CARD, side)


def gap(a: Area, b: Area) -> float:
    """Return the shortest distance between two shapes (0 when they touch or overlap)."""
    return float(tabletop.gap(as_shape(a), as_shape(b)))


def gap_squared(a: Area, b: Area) -> float:
    """Return the square of the shortest distance between two shapes."""
    return gap(a, b) ** 2


def within(a: Area, b: Area, distance: float) -> bool:
    """Return whether the two shapes are at most `distance` mm apart (to the kept precision)."""
    return gap(a, b) <= distance + 1 / QUANTUM


def overlaps(a: Area, b: Area) -> bool:
    """Return whether two shapes share area beyond the touching tolerance (touching does not count)."""
    first, second = as_shape(a), as_shape(b)
    return _boxes_meet(first, second) and tabletop.overlapping(first, second, TOUCH_MM)


def _boxes_meet(a: BaseGeometry, b: BaseGeometry) -> bool:
    """Return whether the two shapes' bounding boxes meet (a quick test before the exact one)."""
    ax1, ay1, ax2, ay2 = a.bounds
    bx1, by1, bx2, by2 = b.bounds
    return ax1 <= bx2 and bx1 <= ax2 and ay1 <= by2 and by1 <= ay2


def contains_point(area: Area, point: Vector) -> bool:
    """Return whether `point` lies in the shape, edges included."""
    return bool(as_shape(area).buffer(1 / QUANTUM).covers(Point(point)))


def inside(inner: Area, outer: Area) -> bool:
    """Return whether `inner` lies wholly within `outer` (to the kept precision)."""
    return bool(as_shape(outer).buffer(1 / QUANTUM, join_style="mitre").covers(as_shape(inner)))


def union(a: Area, b: Area) -> BaseGeometry:
    """Return the area swept going straight from one shape to the other (their convex hull)."""
    return shapely.union(as_shape(a), as_shape(b)).convex_hull


def extent(area: Area, facing: Any) -> tuple[float, float]:
    """Return the nearest and farthest reach of a shape in the direction `facing`."""
    values = [along(p, facing) for p in _points(as_shape(area))]
    return min(values), max(values)


def _points(shape: BaseGeometry) -> list[Vector]:
    return [(float(x), float(y)) for x, y in shapely.get_coordinates(shape)]


def travel(start: AnyPose, end: AnyPose) -> float:
    """Return the farthest any corner goes, in a straight line, from start to end pose."""
    before, after = corners(*start), corners(*end)
    return max(math.dist(before[k], after[k]) for k in before)


def travel_squared(start: Pose, end: Pose) -> float:
    """Return the square of `travel` (kept for the rules that compare squares)."""
    return travel(start, end) ** 2


def lane_rect(x: float, y: float, facing: Any, width: float, length: float) -> Polygon:
    """Return the shooting lane: `width` wide, straight ahead of the front edge for `length` mm."""
    front = step((x, y), facing, CARD_DEPTH / 2)
    far = step(front, facing, length)
    left = left_of(facing)
    return Polygon(
        [
            step(front, left, width / 2),
            step(far, left, width / 2),
            step(far, left, -width / 2),
            step(front, left, -width / 2),
        ]
    )


def distance_ahead(shooter: AnyPose, target: Area) -> float:
    """Return how far ahead of the shooter's front edge the nearest part of `target` lies (0 if level)."""
    x, y, facing = shooter
    front = along(step((x, y), facing, CARD_DEPTH / 2), facing)
    near_edge, _ = extent(target, facing)
    return max(0.0, near_edge - front)


def lateral_overlap(shooter: AnyPose, width: float, target: Area) -> float:
    """Return how many mm of `target` lie across the `width`-wide band straight ahead of the shooter."""
    x, y, facing = shooter
    side = left_of(facing)
    centre = along((x, y), side)
    low, high = extent(target, side)
    return min(high, centre + width / 2) - max(low, centre - width / 2)


CONTACT_ALIGN = {"front": "centre", "rear": "centre", "left": "front_left", "right": "front_right"}


def contact_pose(target: AnyPose, edge: str) -> Pose:
    """Return the pose of a card whose front edge is lined up against `edge` of the target card,
    snapped by the kit the way players push a card into contact.

    Front and rear contacts line up corner to corner; a flank contact puts the attacker's front
    edge along the whole flank with its front corner on the target's front corner (L325).
    """
    at = tabletop.Pose(float(target[0]), float(target[1]), facing_of(target[2]))
    snapped = tabletop.snap_to(at, CARD, at, CARD, edge, CONTACT_ALIGN[edge])
    return snapped.x, snapped.y, snapped.facing


def overlap_pose(target: AnyPose, side: str) -> Pose:
    """Return the pose of an enemy card overlapping the target's `side` flank: beside the target's
    frontal opponent, front corner against the target's front corner."""
    x, y, facing = target
    toward = left_of(facing) if side == "left" else right_of(facing)
    cx, cy = step(step((x, y), facing, CARD_DEPTH), toward, CARD_WIDTH)
    return cx, cy, opposite(facing)


def behind_pose(friend: AnyPose) -> Pose:
    """Return the pose directly behind a card, facing the same way and touching it."""
    x, y, facing = friend
    cx, cy = step((x, y), facing, -CARD_DEPTH)
    return cx, cy, facing_of(facing)


def kept(pose: Pose) -> Pose:
    """Return a pose as the state will keep it (quantized), so checks judge what is stored."""
    stored = pose_state(*pose)
    return float(stored["x"]), float(stored["y"]), float(stored["facing"])


def offset(a: AnyPose | Vector, b: AnyPose | Vector) -> Vector:
    """Return b's centre minus a's centre."""
    return b[0] - a[0], b[1] - a[1]


def near(value: float, wanted: float) -> bool:
    """Return whether `value` is within the touching tolerance of `wanted`."""
    return abs(value - wanted) <= TOUCH_MM


def segment_hits(start: Vector, end: Vector, area: Area) -> bool:
    """Return whether the segment from start to end meets the shape (edges included)."""
    shape = as_shape(area)
    if start[0] == end[0] and start[1] == end[1]:
        return bool(shape.covers(Point(start)))
    return bool(LineString([start, end]).intersects(shape))


def path_hits(points: Sequence[Vector], area: Area) -> bool:
    """Return whether the path through `points` meets the shape."""
    return any(segment_hits(a, b, area) for a, b in zip(points, points[1:], strict=False)) or (
        len(points) == 1 and segment_hits(points[0], points[0], area)
    )


def _leg_poses(start: Pose, end: Pose) -> list[Pose]:
    """Return the poses a card passes going straight from one pose to the other, turning evenly (the
    shorter way) on the way, at most WHEEL_STEP degrees apart."""
    turn = ((end[2] - start[2] + 180) % 360) - 180
    steps = max(1, math.ceil(abs(turn) / WHEEL_STEP))
    return [
        (
            start[0] + (end[0] - start[0]) * k / steps,
            start[1] + (end[1] - start[1]) * k / steps,
            start[2] + turn * k / steps,
        )
        for k in range(steps + 1)
    ]


def swept(start: Pose, end: Pose) -> BaseGeometry:
    """Return the area a card covers going straight from one pose to the other, turning evenly on the way.

    A pure slide sweeps the hull of both ends exactly; a turn is sampled every WHEEL_STEP degrees,
    each step's hull taken whole.
    """
    return _hull_chain(_leg_poses(start, end))


def leg_travel(start: Pose, end: Pose) -> float:
    """Return how far the farthest-going corner travels going from one pose to the other as `swept`
    moves it: a straight slide's length, a turn's arcs added in (L208: no part of the card may
    move farther than its allowance)."""
    poses = _leg_poses(start, end)
    paths = [list(corners(*p).values()) for p in poses]
    return max(sum(math.dist(a[k], b[k]) for a, b in zip(paths, paths[1:], strict=False)) for k in range(len(paths[0])))


def _hull_chain(poses: Sequence[Pose]) -> BaseGeometry:
    shapes = [card_shape(*p) for p in poses]
    if len(shapes) == 1:
        return shapes[0]
    return shapely.union_all([shapely.union(a, b).convex_hull for a, b in zip(shapes, shapes[1:], strict=False)])


def wheel_pose(pose: Pose, pivot: str, degrees: float, about: Vector | None = None) -> Pose:
    """Return where a card ends wheeling `degrees` clockwise about its front-left or front-right corner
    (or about the point `about`: the end corner of the Line it wheels with)."""
    x, y, facing = pose
    centre = about or corners(x, y, facing)["front-left" if pivot == "left" else "front-right"]
    return (*_rotated((x, y), centre, degrees), turned(facing, degrees))


def wheel_sweep(pose: Pose, pivot: str, degrees: float, about: Vector | None = None) -> tuple[BaseGeometry, float]:
    """Return the area a wheel sweeps and the farthest any point of the card travels (along its arc).

    The point farthest from the pivot (for a card alone, its rear outer corner) is the one
    measured (L208: no part of the base may move more than the allowance).
    """
    x, y, facing = pose
    centre = about or corners(x, y, facing)["front-left" if pivot == "left" else "front-right"]
    radius = max(math.dist(corner, centre) for corner in corners(x, y, facing).values())
    length = radius * math.radians(abs(degrees))
    if about is None:
        return tabletop.wheel(tabletop.Pose(x, y, facing_of(facing)), CARD, pivot, degrees).swept, length
    steps = max(1, math.ceil(abs(degrees) / WHEEL_STEP))
    poses = [wheel_pose(pose, pivot, degrees * k / steps, centre) for k in range(steps + 1)]
    return _hull_chain(poses), length


def _rotated(point: Vector, centre: Vector, degrees: float) -> Vector:
    """Return `point` turned clockwise about `centre` (compass sense)."""
    radians = math.radians(degrees)
    dx, dy = point[0] - centre[0], point[1] - centre[1]
    return (
        centre[0] + dx * math.cos(radians) + dy * math.sin(radians),
        centre[1] - dx * math.sin(radians) + dy * math.cos(radians),
    )


def sweep_hits(start: Pose, end: Pose, other: Area) -> bool:
    """Return whether a card going straight from start to end passes through `other` (touching is not)."""
    return overlaps(swept(start, end), other)


def table_rect(table: Iterable[float]) -> Polygon:
    """Return the table as a shape from its [width, depth] in mm."""
    width, depth = list(table)
    return box(0, 0, width, depth)
