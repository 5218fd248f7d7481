"""Contact between stands: touching, overlapping, which side is touched, where a point lies.

Every test takes the game's tolerance (mm): stands pushed together by hand touch within it, and
overlap only when they cut into each other by more than it.
"""

from __future__ import annotations

from shapely.geometry.base import BaseGeometry

from referee.kit.tabletop.shapes import Point, Pose, Size


def touching(a: BaseGeometry, b: BaseGeometry, tolerance: float) -> bool:
    """Return whether two shapes touch: no farther apart than `tolerance`, overlapping by no more than it."""
    raise NotImplementedError


def overlapping(a: BaseGeometry, b: BaseGeometry, tolerance: float) -> bool:
    """Return whether the interiors of two shapes overlap by more than `tolerance`."""
    raise NotImplementedError


def side_touched(target_pose: Pose, target_size: Size, other_shape: BaseGeometry, tolerance: float) -> str | None:
    """Return which edge of the target (`front`, `left`, `right`, `rear`) the other shape touches, if any."""
    raise NotImplementedError


def zone_of(pose: Pose, size: Size, point: Point) -> str:
    """Return where `point` lies relative to the stand: `front`, `left`, `right` or `rear`."""
    raise NotImplementedError


def in_front_of(pose: Pose, size: Size, shape: BaseGeometry) -> bool:
    """Return whether some of `shape` lies ahead of the stand's front edge (the half-plane it faces)."""
    raise NotImplementedError


def behind(pose: Pose, size: Size, shape: BaseGeometry) -> bool:
    """Return whether some of `shape` lies behind the stand's rear edge."""
    raise NotImplementedError


def snap_to(
    mover_pose: Pose, mover_size: Size, target_pose: Pose, target_size: Size, side: str, align: str = "centre"
) -> Pose:
    """Return the mover's pose with its front edge flush against the target's `side`, facing it.

    `align` is `centre` (the mover's front centred on that edge), `left` or `right` (the mover's
    front corner on that side level with the target's corner on the same side, as the target sees it).
    """
    raise NotImplementedError
