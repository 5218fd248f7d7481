"""The tabletop: free-angle geometry for miniatures games played on a table, on shapely.

Poses and outlines of stands (`shapes`), terrain pieces (`terrain`), moves with the area they
sweep (`motion`), distances (`measure`), contact, flanks and snapping into contact (`contact`),
arcs and lanes of fire and lines of sight (`sight`). Pure functions over plain data in
millimetres, bearings in degrees (0 north, clockwise); docs/tabletop.md describes the
conventions. It imports shapely and `referee.errors`, nothing else of the referee. A game writes
`from referee.kit import tabletop`; the kit does not load it for games that never do (shapely
takes as long to import as the rest of the kit).
"""

from referee.kit.tabletop.contact import (
    behind,
    in_front_of,
    overlapping,
    side_touched,
    snap_to,
    touching,
    zone_of,
)
from referee.kit.tabletop.measure import centre_distance, front_to_front, gap, within
from referee.kit.tabletop.motion import Move, along_path, pivot_about_centre, rotated, slide, turn_about, wheel
from referee.kit.tabletop.shapes import (
    COMPASS,
    SIDES,
    Corners,
    Point,
    Pose,
    Size,
    angle_between,
    bearing,
    corners,
    edge,
    heading,
    moved,
    normal,
    outline,
    pose_from,
    to_state,
    turned,
)
from referee.kit.tabletop.sight import arc_of_fire, clear_line, lane, sight
from referee.kit.tabletop.terrain import Piece, crossings, kinds_under, pieces_from

__all__ = [
    "COMPASS",
    "SIDES",
    "Corners",
    "Move",
    "Piece",
    "Point",
    "Pose",
    "Size",
    "along_path",
    "angle_between",
    "arc_of_fire",
    "bearing",
    "behind",
    "centre_distance",
    "clear_line",
    "corners",
    "crossings",
    "edge",
    "front_to_front",
    "gap",
    "heading",
    "in_front_of",
    "kinds_under",
    "lane",
    "moved",
    "normal",
    "outline",
    "overlapping",
    "pieces_from",
    "pivot_about_centre",
    "pose_from",
    "side_touched",
    "sight",
    "rotated",
    "slide",
    "turn_about",
    "snap_to",
    "to_state",
    "touching",
    "turned",
    "wheel",
    "within",
    "zone_of",
]
