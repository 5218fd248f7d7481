"""Poses and outlines: where a stand sits on the table, which way it faces, and its rectangle.

A pose is the centre of a stand and its facing, a compass bearing in degrees: 0 is north (+y),
90 east (+x), clockwise. A size is a stand's frontage (`width`, across its facing) and `depth`
(along it). Everything is in millimetres. What a game keeps in its state goes through `to_state`,
so a record re-adjudicated on another machine reads the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

from shapely.geometry import LineString, Polygon

from referee.errors import GameDataError

Point = tuple[float, float]

# The compass words states written before free angles keep (C'est la Guerre's four facings, and
# the four between them).
COMPASS: dict[str, float] = {
    "north": 0,
    "north-east": 45,
    "east": 90,
    "south-east": 135,
    "south": 180,
    "south-west": 225,
    "west": 270,
    "north-west": 315,
}
SIDES = ("front", "right", "rear", "left")


class Pose(NamedTuple):
    """A stand's centre (`x` east, `y` north, in mm) and the bearing its front faces."""

    x: float
    y: float
    facing: float


class Size(NamedTuple):
    """A stand's frontage (`width`) and `depth`, in mm."""

    width: float
    depth: float


class Corners(NamedTuple):
    """The four corners of a stand's outline, each (x, y), named as seen from the stand."""

    front_left: Point
    front_right: Point
    rear_right: Point
    rear_left: Point


def normal(facing: float) -> float:
    """Return `facing` as a bearing in [0, 360)."""
    value = math.fmod(float(facing), 360.0)
    if value < 0:
        value += 360.0
    # fmod of a tiny negative plus 360 rounds up to 360 itself; that bearing is north.
    return 0.0 if value >= 360.0 or value == 0 else value


def pose_from(mapping: Mapping[str, Any]) -> Pose:
    """Read a pose from plain data `{"x", "y", "facing"}`; facing a number or a compass word."""
    try:
        x, y, facing = mapping["x"], mapping["y"], mapping["facing"]
    except (KeyError, TypeError) as missing:
        raise GameDataError(
            f"a pose needs x, y and facing, not {mapping!r}", hints=("write a pose as {x: mm, y: mm, facing: degrees}",)
        ) from missing
    return Pose(_number(x, "x"), _number(y, "y"), _facing(facing))


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise GameDataError(f"a pose's {name} is a number of mm, not {value!r}")
    return float(value)


def _facing(value: Any) -> float:
    if isinstance(value, str):
        if value not in COMPASS:
            raise GameDataError(
                f"a facing is a bearing in degrees or a compass word, not {value!r}",
                hints=("compass words: " + ", ".join(COMPASS),),
            )
        return float(COMPASS[value])
    return normal(_number(value, "facing"))


def _quantum(value: float) -> int | float:
    rounded = round(value, 1)
    if rounded == int(rounded):
        return int(rounded)  # a whole value is written as an int (and never as -0)
    return rounded


def to_state(pose: Pose) -> dict[str, int | float]:
    """Return the pose as a game keeps it: x and y to 0.1 mm, facing to 0.1 degree in [0, 360)."""
    facing = round(normal(pose.facing), 1)
    return {"x": _quantum(pose.x), "y": _quantum(pose.y), "facing": _quantum(normal(facing))}


def heading(facing: float) -> Point:
    """Return the unit vector (dx, dy) pointing along the bearing `facing`."""
    bearing = normal(facing)
    quarter, rest = divmod(bearing, 90.0)
    if rest == 0:
        # Exact on the four quarters, so a stand square to the table keeps whole coordinates.
        return ((0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (-1.0, 0.0))[int(quarter)]
    radians = math.radians(bearing)
    return (math.sin(radians), math.cos(radians))


def bearing(from_xy: Point, to_xy: Point) -> float:
    """Return the bearing from one point to another (0 north, clockwise; 0 for the same point)."""
    dx, dy = to_xy[0] - from_xy[0], to_xy[1] - from_xy[1]
    if dx == 0 and dy == 0:
        return 0.0
    return normal(math.degrees(math.atan2(dx, dy)))


def turned(facing: float, degrees: float) -> float:
    """Return the bearing `facing` turned by `degrees` (positive clockwise)."""
    return normal(facing + degrees)


def angle_between(f1: float, f2: float) -> float:
    """Return the smaller angle between two bearings, in [0, 180]."""
    difference = normal(f2 - f1)
    return 360.0 - difference if difference > 180 else difference


def moved(pose: Pose, distance: float, direction: float | None = None) -> Pose:
    """Return the pose moved `distance` mm along `direction` (its facing when None), facing as before."""
    dx, dy = heading(pose.facing if direction is None else direction)
    return Pose(pose.x + dx * distance, pose.y + dy * distance, pose.facing)


def corners(pose: Pose, size: Size) -> Corners:
    """Return the four corners of the stand's outline."""
    hx, hy = heading(pose.facing)
    rx, ry = hy, -hx  # the stand's right hand: its facing turned 90 degrees clockwise
    fx, fy = hx * size.depth / 2, hy * size.depth / 2
    sx, sy = rx * size.width / 2, ry * size.width / 2
    return Corners(
        front_left=(pose.x + fx - sx, pose.y + fy - sy),
        front_right=(pose.x + fx + sx, pose.y + fy + sy),
        rear_right=(pose.x - fx + sx, pose.y - fy + sy),
        rear_left=(pose.x - fx - sx, pose.y - fy - sy),
    )


def outline(pose: Pose, size: Size) -> Polygon:
    """Return the stand's rectangle (the pose is its centre)."""
    return Polygon(corners(pose, size))


def edge(pose: Pose, size: Size, side: str) -> LineString:
    """Return one edge of the stand: `front` and `rear` run left to right, `left` and `right` front to rear."""
    c = corners(pose, size)
    ends = {
        "front": (c.front_left, c.front_right),
        "rear": (c.rear_left, c.rear_right),
        "left": (c.front_left, c.rear_left),
        "right": (c.front_right, c.rear_right),
    }
    if side not in ends:
        raise ValueError(f"a side is one of {', '.join(SIDES)}, not {side!r}")
    return LineString(ends[side])
