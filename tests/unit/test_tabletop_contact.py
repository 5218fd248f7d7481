"""Contact on the tabletop (referee.kit.tabletop.contact and measure): distances, touching, sides, zones, snapping."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import LineString, Point

from referee.kit import tabletop
from referee.kit.tabletop import SIDES, Pose, Size

CARD = Size(50, 30)
TOUCH_MM = 2
BOUNDED = settings(max_examples=100, deadline=None)
coordinates = st.floats(min_value=-1000, max_value=1000, allow_nan=False)
facings = st.floats(min_value=0, max_value=360, allow_nan=False, exclude_max=True)
poses = st.builds(Pose, coordinates, coordinates, facings)
sizes = st.builds(Size, st.floats(min_value=5, max_value=200), st.floats(min_value=5, max_value=200))
aligns = st.sampled_from(("centre", "nearest", "left", "right"))


def test_distances_between_cards() -> None:
    a, b = Pose(0, 0, 0), Pose(0, 100, 180)
    assert tabletop.front_to_front(a, CARD, b, CARD) == 70
    assert tabletop.centre_distance(a, b) == 100
    assert tabletop.gap(tabletop.outline(a, CARD), tabletop.outline(b, CARD)) == 70
    assert tabletop.within(tabletop.outline(a, CARD), tabletop.outline(b, CARD), 69, tolerance=1)
    assert not tabletop.within(tabletop.outline(a, CARD), tabletop.outline(b, CARD), 68, tolerance=1)


def test_touching_and_overlapping_within_the_tolerance() -> None:
    card = tabletop.outline(Pose(0, 0, 0), CARD)
    assert tabletop.touching(card, tabletop.outline(Pose(0, 31.5, 0), CARD), TOUCH_MM)  # 1.5 mm apart
    assert not tabletop.touching(card, tabletop.outline(Pose(0, 32.5, 0), CARD), TOUCH_MM)  # 2.5 mm apart
    assert tabletop.touching(card, tabletop.outline(Pose(0, 28.5, 0), CARD), TOUCH_MM)  # 1.5 mm into it
    assert not tabletop.overlapping(card, tabletop.outline(Pose(0, 28.5, 0), CARD), TOUCH_MM)
    assert tabletop.overlapping(card, tabletop.outline(Pose(0, 27.5, 0), CARD), TOUCH_MM)  # 2.5 mm into it
    assert not tabletop.touching(card, tabletop.outline(Pose(0, 27.5, 0), CARD), TOUCH_MM)
    # A line (a path, a river's bank) cuts into a card only when it runs deeper than the tolerance.
    assert not tabletop.overlapping(card, LineString([(-100, 14), (100, 14)]), TOUCH_MM)
    assert tabletop.overlapping(LineString([(-100, 12), (100, 12)]), card, TOUCH_MM)


def test_snapping_to_a_flank_touches_that_flank() -> None:
    target = Pose(0, 0, 0)
    mover = tabletop.snap_to(Pose(-200, 40, 90), CARD, target, CARD, "left")
    assert mover == Pose(-40, 0, 90)
    shape = tabletop.outline(mover, CARD)
    assert tabletop.touching(shape, tabletop.outline(target, CARD), TOUCH_MM)
    assert tabletop.side_touched(target, CARD, shape, TOUCH_MM) == "left"
    # The target's left flank is 30 mm long, the mover's front 50: pushed straight in, it keeps the flank covered.
    pushed = tabletop.snap_to(Pose(-200, 40, 90), CARD, target, CARD, "left", align="nearest")
    assert pushed == Pose(-40, 10, 90)
    assert tabletop.snap_to(Pose(-200, 40, 90), CARD, target, CARD, "left", align="rear_left") == Pose(-40, 10, 90)
    assert tabletop.snap_to(Pose(-200, 40, 90), CARD, target, CARD, "front", align="front_left") == Pose(0, 30, 180)


def test_snapping_refuses_what_it_cannot_do() -> None:
    with pytest.raises(ValueError, match="not an end of its front edge"):
        tabletop.snap_to(Pose(0, 0, 0), CARD, Pose(0, 0, 0), CARD, "front", align="rear_left")
    with pytest.raises(ValueError, match="a side is one of"):
        tabletop.snap_to(Pose(0, 0, 0), CARD, Pose(0, 0, 0), CARD, "top")
    with pytest.raises(ValueError, match="align is one of"):
        tabletop.snap_to(Pose(0, 0, 0), CARD, Pose(0, 0, 0), CARD, "front", align="middle")


def test_which_side_is_touched() -> None:
    target = Pose(100, 100, 90)  # facing east: its front edge is at x = 115
    assert tabletop.side_touched(target, CARD, tabletop.outline(Pose(131, 100, 270), CARD), TOUCH_MM) == "front"
    assert tabletop.side_touched(target, CARD, tabletop.outline(Pose(100, 140, 180), CARD), TOUCH_MM) == "left"
    assert tabletop.side_touched(target, CARD, tabletop.outline(Pose(70, 100, 90), CARD), TOUCH_MM) == "rear"
    assert tabletop.side_touched(target, CARD, tabletop.outline(Pose(100, 40, 0), CARD), TOUCH_MM) is None
    assert tabletop.side_touched(target, CARD, tabletop.outline(Pose(100, 100, 0), CARD), TOUCH_MM) is None
    # Corner to corner: a tie between front and left goes to the front.
    assert tabletop.side_touched(target, CARD, tabletop.outline(Pose(130, 150, 90), CARD), TOUCH_MM) == "front"


def test_zones_about_a_card() -> None:
    card = Pose(0, 0, 0)  # 50 wide, 30 deep: its diagonals run at 25 across for 15 ahead
    assert tabletop.zone_of(card, CARD, (0, 100)) == "front"
    assert tabletop.zone_of(card, CARD, (24, 16)) == "front"
    assert tabletop.zone_of(card, CARD, (100, 16)) == "right"
    assert tabletop.zone_of(card, CARD, (-50, 30)) == "front"  # on the diagonal
    assert tabletop.zone_of(card, CARD, (-51, 30)) == "left"
    assert tabletop.zone_of(card, CARD, (0, -16)) == "rear"
    assert tabletop.in_front_of(card, CARD, Point(100, 16))
    assert not tabletop.in_front_of(card, CARD, Point(100, 16), tolerance=TOUCH_MM)
    assert tabletop.behind(card, CARD, LineString([(0, 0), (0, -20)]))
    assert not tabletop.behind(card, CARD, tabletop.outline(card, CARD))


def _pair(pose: Pose, size: Size, other: Size, side: str, shift: float, twist: float) -> tuple[object, object]:
    snapped = tabletop.snap_to(pose, other, pose, size, side)
    nudged = tabletop.moved(Pose(snapped.x, snapped.y, snapped.facing + twist), shift, direction=snapped.facing + 30)
    return tabletop.outline(pose, size), tabletop.outline(nudged, other)


@BOUNDED
@given(
    poses,
    sizes,
    sizes,
    st.sampled_from(SIDES),
    st.floats(-4, 4),
    st.floats(-3, 3),
    st.floats(-500, 500),
    st.floats(-500, 500),
    facings,
)
def test_gap_and_touching_do_not_depend_on_where_or_which_way(
    pose: Pose, size: Size, other: Size, side: str, shift: float, twist: float, dx: float, dy: float, turn: float
) -> None:
    a, b = _pair(pose, size, other, side, shift, twist)
    stable = tabletop.touching(a, b, TOUCH_MM - 1e-6) == tabletop.touching(a, b, TOUCH_MM + 1e-6)
    assume(stable)

    def moved(shape: object) -> object:
        return affinity.translate(affinity.rotate(shape, turn, origin=(0, 0)), dx, dy)

    assert tabletop.gap(moved(a), moved(b)) == pytest.approx(tabletop.gap(a, b), abs=1e-6)
    assert tabletop.touching(moved(a), moved(b), TOUCH_MM) == tabletop.touching(a, b, TOUCH_MM)
    assert tabletop.touching(a, b, TOUCH_MM) == tabletop.touching(b, a, TOUCH_MM)


@BOUNDED
@given(poses, sizes, poses, sizes, st.sampled_from(SIDES), aligns)
def test_a_snapped_stand_touches_without_overlapping(
    target: Pose, target_size: Size, mover: Pose, mover_size: Size, side: str, align: str
) -> None:
    snapped = tabletop.snap_to(mover, mover_size, target, target_size, side, align)
    shape = tabletop.outline(snapped, mover_size)
    tolerance = 0.01
    assert tabletop.touching(shape, tabletop.outline(target, target_size), tolerance)
    assert not tabletop.overlapping(shape, tabletop.outline(target, target_size), tolerance)
    assert tabletop.side_touched(target, target_size, shape, tolerance) == side
    assert tabletop.angle_between(snapped.facing, tabletop.bearing((snapped.x, snapped.y), (target.x, target.y))) < 90


@BOUNDED
@given(poses, sizes, coordinates, coordinates)
def test_every_point_has_one_zone_agreeing_with_the_half_planes(pose: Pose, size: Size, x: float, y: float) -> None:
    zone = tabletop.zone_of(pose, size, (x, y))
    assert zone in SIDES
    point = Point(x, y)
    outside = tabletop.outline(pose, size).distance(point) > 1e-6
    if zone == "front" and outside:
        assert tabletop.in_front_of(pose, size, point)
    if zone == "rear" and outside:
        assert tabletop.behind(pose, size, point)
    right, _ = tabletop.contact.local(pose, (x, y))
    if abs(right) < size.width / 2 - 1e-6:
        if tabletop.in_front_of(pose, size, point):
            assert zone == "front"
        if tabletop.behind(pose, size, point):
            assert zone == "rear"
    assert not (tabletop.in_front_of(pose, size, point) and tabletop.behind(pose, size, point))
