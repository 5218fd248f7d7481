"""Distances on the table: between shapes, between fronts, between centres."""

from __future__ import annotations

import math

from shapely.geometry.base import BaseGeometry

from referee.kit.tabletop.shapes import Pose, Size, edge


def gap(a: BaseGeometry, b: BaseGeometry) -> float:
    """Return the nearest distance between two shapes (0 when they touch or overlap)."""
    return float(a.distance(b))


def front_to_front(pose_a: Pose, size_a: Size, pose_b: Pose, size_b: Size) -> float:
    """Return the nearest distance between the front edges of two stands."""
    return gap(edge(pose_a, size_a, "front"), edge(pose_b, size_b, "front"))


def centre_distance(pose_a: Pose, pose_b: Pose) -> float:
    """Return the distance between the centres of two stands."""
    return math.hypot(pose_b.x - pose_a.x, pose_b.y - pose_a.y)


def within(a: BaseGeometry, b: BaseGeometry, distance: float, tolerance: float) -> bool:
    """Return whether two shapes are no farther apart than `distance`, give or take `tolerance`."""
    return gap(a, b) <= distance + tolerance
