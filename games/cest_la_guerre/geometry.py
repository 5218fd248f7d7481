"""Table geometry in whole millimetres: cards, facings, distances, and the poses of contacts.

A card is 50 mm wide and 30 mm deep (5 x 3 cm, L62). Its pose is its centre (x, y) and one of
four facings; x runs east along the table, y runs north. Keeping cards square to the table is
this first geometry's simplification (the rulebook allows any angle): every distance below is
exact integer arithmetic, compared as squares, so no float ever reaches the state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

Vector = tuple[int, int]
Rect = tuple[int, int, int, int]  # x1, y1, x2, y2 with x1 <= x2 and y1 <= y2

CARD_WIDTH = 50
CARD_DEPTH = 30
TOUCH_MM = 2  # how far apart two edges may be and still count as touching or lined up
FACINGS: dict[str, Vector] = {"north": (0, 1), "east": (1, 0), "south": (0, -1), "west": (-1, 0)}
_LEFT = {"north": "west", "west": "south", "south": "east", "east": "north"}
_OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}


def left_of(facing: str) -> str:
    """Return the facing to the left of `facing`."""
    return _LEFT[facing]


def right_of(facing: str) -> str:
    """Return the facing to the right of `facing`."""
    return _OPPOSITE[_LEFT[facing]]


def opposite(facing: str) -> str:
    """Return the facing behind `facing`."""
    return _OPPOSITE[facing]


def step(point: Vector, facing: str, distance: int) -> Vector:
    """Return `point` moved `distance` mm towards `facing`."""
    dx, dy = FACINGS[facing]
    return point[0] + dx * distance, point[1] + dy * distance


def along(vector: Vector, facing: str) -> int:
    """Return the component of `vector` in the direction `facing`."""
    dx, dy = FACINGS[facing]
    return vector[0] * dx + vector[1] * dy


def pose_of(card: Mapping[str, Any]) -> tuple[int, int, str]:
    """Return a placed card's (x, y, facing)."""
    return card["x"], card["y"], card["facing"]


def half_extents(facing: str) -> Vector:
    """Return half the card's size along x and along y for this facing."""
    if facing in ("north", "south"):
        return CARD_WIDTH // 2, CARD_DEPTH // 2
    return CARD_DEPTH // 2, CARD_WIDTH // 2


def card_rect(x: int, y: int, facing: str) -> Rect:
    """Return the rectangle a card covers."""
    hx, hy = half_extents(facing)
    return x - hx, y - hy, x + hx, y + hy


def rect_of(card: Mapping[str, Any]) -> Rect:
    """Return the rectangle a placed card covers."""
    return card_rect(*pose_of(card))


def gap_squared(a: Rect, b: Rect) -> int:
    """Return the square of the shortest distance between two rectangles (0 if they touch)."""
    dx = max(0, a[0] - b[2], b[0] - a[2])
    dy = max(0, a[1] - b[3], b[1] - a[3])
    return dx * dx + dy * dy


def within(a: Rect, b: Rect, distance: int) -> bool:
    """Return whether the two rectangles are at most `distance` mm apart."""
    return gap_squared(a, b) <= distance * distance


def overlaps(a: Rect, b: Rect) -> bool:
    """Return whether two rectangles share area (touching edges do not count)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def contains_point(rect: Rect, point: Vector) -> bool:
    """Return whether `point` lies in `rect`, edges included."""
    return rect[0] <= point[0] <= rect[2] and rect[1] <= point[1] <= rect[3]


def inside(inner: Rect, outer: Rect) -> bool:
    """Return whether `inner` lies wholly within `outer`."""
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def union(a: Rect, b: Rect) -> Rect:
    """Return the smallest rectangle holding both."""
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def corners(x: int, y: int, facing: str) -> dict[str, Vector]:
    """Return the card's four corners by name (front-left, front-right, rear-left, rear-right)."""
    front = step((x, y), facing, CARD_DEPTH // 2)
    rear = step((x, y), facing, -(CARD_DEPTH // 2))
    left = left_of(facing)
    half = CARD_WIDTH // 2
    return {
        "front-left": step(front, left, half),
        "front-right": step(front, left, -half),
        "rear-left": step(rear, left, half),
        "rear-right": step(rear, left, -half),
    }


def travel_squared(start: tuple[int, int, str], end: tuple[int, int, str]) -> int:
    """Return the square of the farthest any corner goes, in a straight line, from start to end pose.

    The rulebook measures a move by the farthest any point of the card travels; until table
    geometry traces wheels along their arcs, each corner is taken straight to where it ends.
    """
    before, after = corners(*start), corners(*end)
    return max((after[k][0] - before[k][0]) ** 2 + (after[k][1] - before[k][1]) ** 2 for k in before)


def lane_rect(x: int, y: int, facing: str, width: int, length: int) -> Rect:
    """Return the shooting lane: `width` wide, straight ahead of the front edge for `length` mm."""
    front = step((x, y), facing, CARD_DEPTH // 2)
    far = step(front, facing, length)
    left = left_of(facing)
    a, b = step(front, left, width // 2), step(far, left, -(width // 2))
    return min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1])


def distance_ahead(shooter: tuple[int, int, str], target: Rect) -> int:
    """Return how far ahead of the shooter's front edge the nearest part of `target` lies (0 if level)."""
    x, y, facing = shooter
    front = along(step((x, y), facing, CARD_DEPTH // 2), facing)
    near = min(along((target[0], target[1]), facing), along((target[2], target[3]), facing))
    return max(0, near - front)


def lateral_overlap(shooter: tuple[int, int, str], width: int, target: Rect) -> int:
    """Return how many mm of `target` lie across the `width`-wide band straight ahead of the shooter."""
    x, y, facing = shooter
    side = left_of(facing)
    centre = along((x, y), side)
    low = min(along((target[0], target[1]), side), along((target[2], target[3]), side))
    high = max(along((target[0], target[1]), side), along((target[2], target[3]), side))
    return min(high, centre + width // 2) - max(low, centre - width // 2)


def contact_pose(target: tuple[int, int, str], edge: str) -> tuple[int, int, str]:
    """Return the pose of a card whose front edge is lined up against `edge` of the target card.

    Front and rear contacts line up corner to corner; a flank contact puts the attacker's front
    edge along the whole flank with its front corner on the target's front corner (L325).
    """
    x, y, facing = target
    if edge == "front":
        cx, cy = step((x, y), facing, CARD_DEPTH)
        return cx, cy, opposite(facing)
    if edge == "rear":
        cx, cy = step((x, y), facing, -CARD_DEPTH)
        return cx, cy, facing
    side = left_of(facing) if edge == "left" else right_of(facing)
    offset = CARD_WIDTH // 2 - CARD_DEPTH // 2
    cx, cy = step(step((x, y), side, CARD_WIDTH // 2 + CARD_DEPTH // 2), facing, -offset)
    return cx, cy, opposite(side)


def overlap_pose(target: tuple[int, int, str], side: str) -> tuple[int, int, str]:
    """Return the pose of an enemy card overlapping the target's `side` flank: beside the target's
    frontal opponent, front corner against the target's front corner."""
    x, y, facing = target
    toward = left_of(facing) if side == "left" else right_of(facing)
    cx, cy = step(step((x, y), facing, CARD_DEPTH), toward, CARD_WIDTH)
    return cx, cy, opposite(facing)


def behind_pose(friend: tuple[int, int, str]) -> tuple[int, int, str]:
    """Return the pose directly behind a card, facing the same way and touching it."""
    x, y, facing = friend
    cx, cy = step((x, y), facing, -CARD_DEPTH)
    return cx, cy, facing


def offset(a: tuple[int, int, str], b: tuple[int, int, str]) -> Vector:
    """Return b's centre minus a's centre."""
    return b[0] - a[0], b[1] - a[1]


def near(value: int, wanted: int) -> bool:
    """Return whether `value` is within the touching tolerance of `wanted`."""
    return abs(value - wanted) <= TOUCH_MM


def segment_hits(start: Vector, end: Vector, rect: Rect) -> bool:
    """Return whether the segment from start to end meets the rectangle (edges included)."""
    low, high = Fraction(0), Fraction(1)
    dx, dy = end[0] - start[0], end[1] - start[1]
    for delta, origin, lo, hi in ((dx, start[0], rect[0], rect[2]), (dy, start[1], rect[1], rect[3])):
        if delta == 0:
            if origin < lo or origin > hi:
                return False
            continue
        t1, t2 = Fraction(lo - origin, delta), Fraction(hi - origin, delta)
        if t1 > t2:
            t1, t2 = t2, t1
        low, high = max(low, t1), min(high, t2)
        if low > high:
            return False
    return True


def sweep_hits(start: tuple[int, int, str], end: tuple[int, int, str], other: Rect) -> bool:
    """Return whether a card going straight from start to end passes through `other` (touching is not).

    The card is taken at its larger size across both facings, so a move that also turns is
    judged generously against the cards it brushes past.
    """
    hx = max(half_extents(start[2])[0], half_extents(end[2])[0])
    hy = max(half_extents(start[2])[1], half_extents(end[2])[1])
    grown = (other[0] - hx + 1, other[1] - hy + 1, other[2] + hx - 1, other[3] + hy - 1)
    return segment_hits(start[:2], end[:2], grown)


def table_rect(table: Iterable[int]) -> Rect:
    """Return the table as a rectangle from its [width, depth] in mm."""
    width, depth = list(table)
    return 0, 0, width, depth
