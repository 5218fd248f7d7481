"""The tabletop's poses and outlines (referee.kit.tabletop.shapes): worked cases and properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import GameDataError
from referee.kit import tabletop
from referee.kit.tabletop import Pose, Size

CARD = Size(50, 30)
BOUNDED = settings(max_examples=100, deadline=None)
coordinates = st.floats(min_value=-2000, max_value=2000, allow_nan=False)
facings = st.floats(min_value=-720, max_value=720, allow_nan=False)
poses = st.builds(Pose, coordinates, coordinates, facings)


def test_a_card_facing_east_has_its_front_on_the_east() -> None:
    card = Pose(100, 200, 90)
    c = tabletop.corners(card, CARD)
    assert c.front_left == (115, 225)
    assert c.front_right == (115, 175)
    assert c.rear_right == (85, 175)
    assert c.rear_left == (85, 225)
    assert tabletop.outline(card, CARD).area == 1500
    front = tabletop.edge(card, CARD, "front")
    assert list(front.coords) == [(115, 225), (115, 175)]
    assert tabletop.edge(card, CARD, "left").length == 30


def test_a_card_facing_north_has_its_frontage_along_x() -> None:
    c = tabletop.corners(Pose(0, 0, 0), CARD)
    assert c.front_left == (-25, 15) and c.front_right == (25, 15)


def test_an_unknown_side_is_refused() -> None:
    with pytest.raises(ValueError, match="front, right, rear, left"):
        tabletop.edge(Pose(0, 0, 0), CARD, "top")


def test_bearings_and_turns() -> None:
    assert tabletop.heading(90) == (1, 0)
    assert tabletop.heading(-90) == (-1, 0)
    assert tabletop.bearing((0, 0), (10, 10)) == pytest.approx(45)
    assert tabletop.bearing((0, 0), (-10, 0)) == 270
    assert tabletop.turned(350, 20) == 10
    assert tabletop.turned(10, -20) == 350
    assert tabletop.angle_between(350, 10) == 20
    assert tabletop.angle_between(0, 180) == 180
    assert tabletop.moved(Pose(0, 0, 90), 30) == Pose(30, 0, 90)
    assert tabletop.moved(Pose(0, 0, 90), 30, direction=180) == Pose(0, -30, 90)


def test_compass_words_still_read() -> None:
    assert tabletop.pose_from({"x": 1, "y": 2, "facing": "west"}) == Pose(1, 2, 270)
    assert tabletop.pose_from({"x": 1, "y": 2, "facing": "south-east"}).facing == 135
    assert tabletop.pose_from({"x": 1.5, "y": 2, "facing": 400}) == Pose(1.5, 2, 40)


@pytest.mark.parametrize(
    "data, said",
    [
        ({"x": 1, "y": 2}, "needs x, y and facing"),
        ({"x": 1, "y": 2, "facing": "up"}, "compass word"),
        ({"x": True, "y": 2, "facing": 0}, "x is a number"),
        ({"x": 1, "y": float("nan"), "facing": 0}, "y is a number"),
    ],
)
def test_a_bad_pose_is_refused_saying_what_is_wrong(data: dict[str, object], said: str) -> None:
    with pytest.raises(GameDataError, match=said):
        tabletop.pose_from(data)


def test_to_state_rounds_and_writes_whole_values_as_ints() -> None:
    state = tabletop.to_state(Pose(10.04, -0.04, 359.96))
    assert state == {"x": 10, "y": 0, "facing": 0}
    assert all(type(value) is int for value in state.values())
    assert tabletop.to_state(Pose(1.25, 2.37, -90.04)) == {"x": 1.2, "y": 2.4, "facing": 270}


@BOUNDED
@given(poses)
def test_to_state_is_a_fixed_point(pose: Pose) -> None:
    state = tabletop.to_state(pose)
    assert tabletop.to_state(tabletop.pose_from(state)) == state
    assert 0 <= state["facing"] < 360


@BOUNDED
@given(poses, st.floats(min_value=1, max_value=300), st.floats(min_value=1, max_value=300))
def test_an_outline_is_its_size_and_centred_on_its_pose(pose: Pose, width: float, depth: float) -> None:
    shape = tabletop.outline(pose, Size(width, depth))
    assert shape.area == pytest.approx(width * depth, rel=1e-9)
    assert shape.centroid.x == pytest.approx(pose.x, abs=1e-6)
    assert shape.centroid.y == pytest.approx(pose.y, abs=1e-6)
    front = tabletop.edge(pose, Size(width, depth), "front")
    assert front.length == pytest.approx(width, rel=1e-9)
    ahead = tabletop.moved(pose, depth / 2)
    assert front.distance(tabletop.outline(Pose(ahead.x, ahead.y, 0), Size(0.001, 0.001))) < 1e-3


@BOUNDED
@given(facings, facings)
def test_angle_between_is_symmetric_and_bounded(f1: float, f2: float) -> None:
    angle = tabletop.angle_between(f1, f2)
    assert 0 <= angle <= 180
    assert angle == pytest.approx(tabletop.angle_between(f2, f1), abs=1e-9)
    assert math.isclose(tabletop.angle_between(tabletop.turned(f1, angle), f2), 0, abs_tol=1e-6) or math.isclose(
        tabletop.angle_between(tabletop.turned(f1, -angle), f2), 0, abs_tol=1e-6
    )
