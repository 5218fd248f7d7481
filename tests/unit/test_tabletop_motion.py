"""Moves on the tabletop (referee.kit.tabletop.motion): where they end, what they count, what they sweep."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.kit import tabletop
from referee.kit.tabletop import Pose, Size
from referee.kit.tabletop.motion import _sampled_sweep, _turn_sweep, rotated, shortest_turn

CARD = Size(50, 30)
BOUNDED = settings(max_examples=100, deadline=None)
coordinates = st.floats(min_value=-1000, max_value=1000, allow_nan=False)
facings = st.floats(min_value=0, max_value=360, allow_nan=False, exclude_max=True)
poses = st.builds(Pose, coordinates, coordinates, facings)
sizes = st.builds(Size, st.floats(min_value=5, max_value=200), st.floats(min_value=5, max_value=200))
# Containment is checked with the outline shrunk by a hair: the swept area's own edges are floats.
HAIR = 1e-6


def covers(swept: object, pose: Pose, size: Size) -> bool:
    return bool(swept.contains(tabletop.outline(pose, size).buffer(-HAIR)))  # type: ignore[attr-defined]


def test_a_wheel_of_90_degrees_about_the_left_front_corner() -> None:
    card = Pose(0, 0, 0)
    move = tabletop.wheel(card, CARD, "left", -90)
    assert move.end.x == pytest.approx(-10) and move.end.y == pytest.approx(40)
    assert move.end.facing == 270
    assert tabletop.to_state(move.end) == {"x": -10, "y": 40, "facing": 270}
    assert move.length == pytest.approx(50 * math.pi / 2)
    # The pivot stays put: the front-left corner before and after is the same point.
    before = tabletop.corners(card, CARD).front_left
    after = tabletop.corners(move.end, CARD).front_left
    assert after == pytest.approx(before)
    # The outer front corner sweeps a quarter circle about the pivot: its farthest point ahead is there.
    assert move.swept.contains(tabletop.outline(Pose(-25 + 50 * math.cos(math.radians(45)), 15, 0), Size(0.1, 0.1)))


def test_a_wheel_about_the_right_front_corner_turns_right() -> None:
    move = tabletop.wheel(Pose(0, 0, 90), CARD, "right", 90)
    assert move.end.facing == 180
    assert tabletop.corners(move.end, CARD).front_right == pytest.approx(
        tabletop.corners(Pose(0, 0, 90), CARD).front_right
    )


def test_a_wheel_needs_a_front_corner() -> None:
    with pytest.raises(ValueError, match="'left' or 'right'"):
        tabletop.wheel(Pose(0, 0, 0), CARD, "centre", 10)


def test_a_slide_keeps_its_facing_unless_told_and_counts_the_centre_path() -> None:
    move = tabletop.slide(Pose(0, 0, 0), CARD, (30, 40))
    assert move.end == Pose(30, 40, 0) and move.length == 50
    turned = tabletop.slide(Pose(0, 0, 0), CARD, (30, 40), facing=270)
    assert turned.end == Pose(30, 40, 270) and turned.length == 50
    assert covers(turned.swept, Pose(30, 40, 315), CARD)


def test_a_path_through_waypoints_faces_each_leg() -> None:
    move = tabletop.along_path(Pose(0, 0, 0), CARD, [(0, 100), (0, 100), (100, 100)])
    assert move.end == Pose(100, 100, 90) and move.length == 200
    assert covers(move.swept, Pose(0, 100, 45), CARD)
    kept = tabletop.along_path(Pose(0, 0, 0), CARD, [(0, 100), (100, 100)], face_each_leg=False)
    assert kept.end == Pose(100, 100, 0)
    assert not kept.swept.contains(tabletop.outline(Pose(0, 100, 45), CARD))


def test_a_pivot_about_the_centre() -> None:
    move = tabletop.pivot_about_centre(Pose(10, 10, 0), CARD, 180)
    assert move.end == Pose(10, 10, 180)
    assert move.length == pytest.approx(math.hypot(25, 15) * math.pi)
    assert move.swept.contains(tabletop.outline(Pose(10, 10, 0), Size(2 * math.hypot(25, 15) - 0.01, 0.01)))
    assert tabletop.pivot_about_centre(Pose(10, 10, 0), CARD, 0).length == 0


def test_turns_and_rotation() -> None:
    assert shortest_turn(350, 10) == 20
    assert shortest_turn(10, 350) == -20
    assert shortest_turn(0, 180) == 180
    assert rotated((0, 10), (0, 0), 90) == (10, 0)


@BOUNDED
@given(poses, sizes, coordinates, coordinates)
def test_a_slide_sweeps_its_start_and_end(pose: Pose, size: Size, x: float, y: float) -> None:
    move = tabletop.slide(pose, size, (x, y))
    assert covers(move.swept, pose, size) and covers(move.swept, move.end, size)
    middle = Pose((pose.x + x) / 2, (pose.y + y) / 2, pose.facing)
    assert covers(move.swept, middle, size)
    assert move.swept.area <= tabletop.outline(pose, size).area + move.length * max(size) * 1.5 + 1e-6


@BOUNDED
@given(poses, sizes, st.sampled_from(("left", "right")), st.floats(min_value=-180, max_value=180), st.floats(0, 1))
def test_a_wheel_sweeps_every_position_between(pose: Pose, size: Size, pivot: str, degrees: float, part: float) -> None:
    move = tabletop.wheel(pose, size, pivot, degrees)
    assert covers(move.swept, pose, size) and covers(move.swept, move.end, size)
    between = tabletop.wheel(pose, size, pivot, degrees * part).end
    assert covers(move.swept, between, size)
    assert move.length == pytest.approx(size.width * math.radians(abs(degrees)))
    fixed = "front_left" if pivot == "left" else "front_right"
    start_corner = getattr(tabletop.corners(pose, size), fixed)
    assert getattr(tabletop.corners(move.end, size), fixed) == pytest.approx(start_corner, abs=1e-6)


@BOUNDED
@given(poses, sizes, st.lists(st.tuples(coordinates, coordinates), max_size=4))
def test_a_path_sweeps_each_waypoint_and_counts_each_leg(
    pose: Pose, size: Size, waypoints: list[tuple[float, float]]
) -> None:
    move = tabletop.along_path(pose, size, waypoints)
    legs = zip([(pose.x, pose.y), *waypoints], waypoints)
    assert move.length == pytest.approx(sum(math.dist(a, b) for a, b in legs))
    assert covers(move.swept, pose, size) and covers(move.swept, move.end, size)
    if waypoints:
        assert (move.end.x, move.end.y) == waypoints[-1]


@BOUNDED
@given(poses, sizes, coordinates, coordinates, st.floats(min_value=-400, max_value=400), st.floats(0, 1))
def test_a_turn_about_any_point_sweeps_every_position_between(
    pose: Pose, size: Size, x: float, y: float, degrees: float, part: float
) -> None:
    """The exact sweep (bands of each edge) and its fallback (hulls of positions a degree apart) both cover the turn."""
    exact = _turn_sweep(pose, size, (x, y), degrees)
    sampled = _sampled_sweep(pose, size, (x, y), degrees)
    centre = rotated((pose.x, pose.y), (x, y), degrees * part)
    between = Pose(centre[0], centre[1], tabletop.turned(pose.facing, degrees * part))
    assert covers(exact, between, size) and covers(sampled, between, size)
    # Each draws its arcs a little outside the circle, by at most the reach times 1/cos(half a degree) - 1.
    reach = max(math.dist((x, y), corner) for corner in tabletop.corners(pose, size))
    assert sampled.buffer(2 * reach * (1 / math.cos(math.radians(0.5)) - 1) + 1e-6).contains(exact)


def test_turn_about_a_point_off_the_stand_moves_it_round_the_point() -> None:
    """The second stand of a line wheeling a quarter about the line's front-left corner."""
    from shapely.geometry import Point

    from referee.kit.tabletop import turn_about

    move = turn_about(Pose(75, 15, 0), Size(50, 30), (0, 30), -90)
    assert (round(move.end.x, 6), round(move.end.y, 6), move.end.facing) == (15, 105, 270)
    # its corner farthest from the pivot (rear-right, at (100, 0)) travels a quarter circle
    assert move.length == pytest.approx(math.hypot(100, 30) * math.pi / 2)
    assert move.swept.contains(Point(15, 105))
