"""Fire and sight on the tabletop (referee.kit.tabletop.sight): arcs, lanes, clear lines, sight past a wood."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import LineString, Point, box

from referee.kit import tabletop
from referee.kit.tabletop import Pose, Size

CARD = Size(50, 30)
TOUCH_MM = 2
BOUNDED = settings(max_examples=100, deadline=None)
coordinates = st.floats(min_value=-1000, max_value=1000, allow_nan=False)
facings = st.floats(min_value=0, max_value=360, allow_nan=False, exclude_max=True)
poses = st.builds(Pose, coordinates, coordinates, facings)
sizes = st.builds(Size, st.floats(min_value=5, max_value=200), st.floats(min_value=5, max_value=200))


def test_a_wood_blocks_sight_between_two_cards_and_a_gap_beside_it_does_not() -> None:
    viewer, target = Pose(0, 0, 0), Pose(0, 300, 180)
    wood = box(-60, 120, 60, 180)
    front = tabletop.edge(viewer, CARD, "front")
    assert not tabletop.sight(front, tabletop.outline(target, CARD), [wood], TOUCH_MM)
    # Two woods with a gap between them wider than the tolerance: some line passes through.
    left, right = box(-200, 120, -10, 180), box(10, 120, 200, 180)
    assert tabletop.sight(front, tabletop.outline(target, CARD), [left, right], TOUCH_MM)
    # A card moved off to the side of the wood sees round it.
    assert tabletop.sight(front, tabletop.outline(Pose(90, 300, 180), CARD), [wood], TOUCH_MM)


def test_a_clear_line_may_graze_within_the_tolerance() -> None:
    wood = box(-20, 100, 20, 140)
    assert not tabletop.clear_line((0, 0), (0, 300), [wood], TOUCH_MM)
    assert tabletop.clear_line((19, 0), (19, 300), [wood], TOUCH_MM)  # 1 mm inside its edge
    assert not tabletop.clear_line((17, 0), (17, 300), [wood], TOUCH_MM)
    assert tabletop.clear_line((0, 0), (0, 90), [wood], TOUCH_MM)  # stops short of it
    wall = LineString([(-50, 50), (50, 50)])
    assert not tabletop.clear_line((0, 0), (0, 90), [wall], TOUCH_MM)
    assert tabletop.clear_line((0, 0), (0, 40), [wall], TOUCH_MM)


def test_lanes_and_arcs_of_fire() -> None:
    card = Pose(0, 0, 90)  # facing east: the front edge runs from (15, 25) to (15, -25)
    assert tabletop.lane(card, CARD, 100).bounds == (15, -25, 115, 25)
    arc = tabletop.arc_of_fire(card, CARD, 45, 100)
    assert arc.area == pytest.approx(50 * 100 + math.pi * 100**2 / 4, rel=1e-3)
    assert arc.contains(Point(15 + 70, 25 + 69))  # 45 degrees off the left front corner, within 100
    assert not arc.contains(Point(15 + 60, 25 + 80))  # more than 45 degrees off
    assert not arc.contains(Point(15 + 101, 0))
    assert tabletop.arc_of_fire(card, CARD, 0, 100).equals(tabletop.lane(card, CARD, 100))
    with pytest.raises(ValueError, match="from 0 to 90"):
        tabletop.arc_of_fire(card, CARD, 120, 100)


@BOUNDED
@given(poses, sizes, st.floats(0, 90), st.floats(1, 1000), st.floats(0, 1), st.floats(-1, 1), st.floats(0, 1))
def test_an_arc_holds_every_point_it_should(
    pose: Pose, size: Size, half_angle: float, reach: float, along: float, off: float, out: float
) -> None:
    arc = tabletop.arc_of_fire(pose, size, half_angle, reach)
    assert arc.buffer(1e-6).contains(tabletop.lane(pose, size, reach))
    start = tabletop.edge(pose, size, "front").interpolate(along, normalized=True)
    direction = tabletop.turned(pose.facing, off * half_angle)
    dx, dy = tabletop.heading(direction)
    inside = Point(start.x + dx * reach * out, start.y + dy * reach * out)
    assert arc.buffer(1e-6).contains(inside)
    # Nothing in it lies farther than the reach from the front edge (beyond the drawing's margin).
    assert arc.hausdorff_distance(tabletop.edge(pose, size, "front")) <= reach * 1.001 + 1e-6


@BOUNDED
@given(coordinates, coordinates, coordinates, coordinates, st.floats(-500, 500), st.floats(-500, 500), facings)
def test_a_clear_line_does_not_depend_on_where_or_which_way(
    x1: float, y1: float, x2: float, y2: float, dx: float, dy: float, turn: float
) -> None:
    woods = [box(-100, -100, 100, 100), box(300, 300, 400, 600)]
    assert tabletop.clear_line((x1, y1), (x2, y2), [], TOUCH_MM)
    clear = tabletop.clear_line((x1, y1), (x2, y2), woods, TOUCH_MM)
    # Away from the edge cases, the answer moves with the table.
    line = LineString([(x1, y1), (x2, y2)])
    if any(abs(line.distance(wood.buffer(-TOUCH_MM).exterior)) < 1e-3 for wood in woods):
        return
    moved = [affinity.translate(affinity.rotate(wood, turn, origin=(0, 0)), dx, dy) for wood in woods]
    ends = affinity.translate(affinity.rotate(line, turn, origin=(0, 0)), dx, dy).coords
    assert tabletop.clear_line(ends[0], ends[1], moved, TOUCH_MM) == clear
