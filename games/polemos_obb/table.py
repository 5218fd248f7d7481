"""The battlefield (option battlefield: table): where every base and general stands, on the kit's tabletop.

A scenario's `table` gives the table's size and terrain and deploys each division (where its first
base stands, which way it faces, whether it is deployed in line or in defile); the muster phase
lays every division out, generated ones included. The state keeps, for each base and general,
`pose` ({x, y, facing}: mm from the table's south-west corner, a bearing in degrees, quantized by
the kit's `to_state`) and, for each division, its `formation`; `state["table"]` keeps the base
width in mm (option base_width_mm) and the terrain. Sizes are the book's (L105, L116-L145): foot,
horse and dismounted dragoons 1BW x 1BD, artillery and generals 0.5BW x 1BD, BD = BW / 2.

This module answers questions about positions (who touches whom, on which side) and moves bases
(kept quantized). The rates and manoeuvres are in manoeuvres.py; contact in contact_orders.py.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from games.polemos_obb.model import State, arm_of, division_bases, is_standing, side_of_base
from games.polemos_obb.options import setting
from referee.kit import GameDataError
from referee.kit.tabletop import (
    Pose,
    Size,
    corners,
    heading,
    moved,
    outline,
    overlapping,
    pose_from,
    side_touched,
    snap_to,
    to_state,
    touching,
    zone_of,
)
from referee.kit.tabletop.contact import local

# Two bases touch when no farther apart than this, and overlap when they cut in deeper (mm). Poses
# are kept to 0.1 mm, so bases placed flush by arithmetic may part or meet by a hair.
TOUCH_MM = 1.0
FORMATIONS = ("deployed", "defile")
TABLE_KEYS = ("width_bw", "depth_bw", "terrain", "deployment")
DEPLOYMENT_KEYS = ("at", "facing", "formation", "extend")


def on_table(state: Mapping[str, Any]) -> bool:
    """Return whether the referee keeps the battlefield (option battlefield: table)."""
    return bool(setting(state, "battlefield") == "table")


def bw(state: Mapping[str, Any]) -> float:
    """Return a base width in mm."""
    return float(state["table"]["bw_mm"])


def bd(state: Mapping[str, Any]) -> float:
    """Return a base depth in mm (BW:BD = 2:1, L105)."""
    return bw(state) / 2


def in_bw(state: Mapping[str, Any], mm: float) -> str:
    """Return a length in mm as the book measures it, e.g. "1.5BW"."""
    return f"{round(mm / bw(state), 2):g}BW"


def size_of(state: Mapping[str, Any], base: str) -> Size:
    """Return a base's frontage and depth: artillery 0.5BW x 1BD (L124), the rest 1BW x 1BD."""
    if arm_of(state, base) == "artillery":
        return Size(bw(state) / 2, bd(state))
    return Size(bw(state), bd(state))


def mounts_pose(state: Mapping[str, Any], base: str) -> Pose | None:
    """Return where a dismounted dragoon base's mounts stand: a base of 1BW x 1BD immediately behind
    it, facing as it does (L266, L142), going where the dragoons go; None for any other base."""
    record = state["bases"][base]
    if not record.get("dismounted") or "pose" not in record:
        return None
    return moved(pose_of(state, base), -bd(state))


def general_size(state: Mapping[str, Any]) -> Size:
    """Return a general's base: 0.5BW x 1BD (L145)."""
    return Size(bw(state) / 2, bd(state))


def pose_of(state: Mapping[str, Any], base: str) -> Pose:
    """Return a base's pose."""
    return pose_from(state["bases"][base]["pose"])


def outline_of(state: Mapping[str, Any], base: str) -> Polygon:
    """Return a base's rectangle on the table."""
    return outline(pose_of(state, base), size_of(state, base))


def general_outline(state: Mapping[str, Any], general: str) -> Polygon:
    """Return a general's base on the table."""
    return outline(pose_from(state["generals"][general]["pose"]), general_size(state))


def place(state: State, base: str, pose: Pose) -> None:
    """Put a base at `pose` (kept quantized), and any general with it the same distance along."""
    record = state["bases"][base]
    before = pose_from(record["pose"])
    record["pose"] = to_state(pose)
    for general in state["generals"].values():
        if general.get("with_base") == base and "pose" in general:
            there = pose_from(general["pose"])
            shifted = Pose(there.x + pose.x - before.x, there.y + pose.y - before.y, pose.facing)
            general["pose"] = to_state(shifted)


def standing_on_table(state: Mapping[str, Any]) -> list[str]:
    """Return every base on the field with a position."""
    return [b for b in state["bases"] if is_standing(state, b) and "pose" in state["bases"][b]]


def touching_bases(state: Mapping[str, Any], shape: BaseGeometry, among: Iterable[str]) -> list[str]:
    """Return the bases among `among` that `shape` touches."""
    return [b for b in among if touching(shape, outline_of(state, b), TOUCH_MM)]


def enemies_of(state: Mapping[str, Any], base: str) -> list[str]:
    """Return the enemy bases on the field with a position."""
    side = side_of_base(state, base)
    return [b for b in standing_on_table(state) if side_of_base(state, b) != side]


def back(state: Mapping[str, Any], base: str, distance: float) -> tuple[Pose, list[list[float]]]:
    """Return where a base ends after going `distance` mm straight back, facing as before, and its
    path: no farther than the table's edge, nor than the first enemy base behind it (never through
    an enemy, L270)."""
    end, path, _ = _going_back(state, base, distance)
    return end, path


def _going_back(state: Mapping[str, Any], base: str, distance: float) -> tuple[Pose, list[list[float]], bool]:
    """Return `back`'s end and path, and whether the table's edge cut the move short."""
    start, size = pose_of(state, base), size_of(state, base)
    edge = _room_behind(state, start, size)
    room = min(distance, edge)
    room = min(room, _room_before_enemy(state, base, start, size, room))
    end = moved(start, -room)
    return end, [[start.x, start.y], [end.x, end.y]], edge < distance - 0.1 and room >= edge - 0.1


def _room_before_enemy(state: Mapping[str, Any], base: str, start: Pose, size: Size, distance: float) -> float:
    """Return how far a stand may go straight back, up to `distance`, before it meets an enemy base
    it does not touch already, or one touching its rear (found to 0.1 mm: the ground swept grows
    with the distance). The enemy it fights touches its front, and it goes back from it."""
    first = outline(start, size)
    enemies = [outline_of(state, e) for e in enemies_of(state, base)]
    ahead = [e for e in enemies if not touching(first, e, TOUCH_MM) or side_touched(start, size, e, TOUCH_MM) == "rear"]

    def meets(far: float) -> bool:
        swept = first.union(outline(moved(start, -far), size)).convex_hull
        return any(overlapping(swept, e, TOUCH_MM) for e in ahead)

    if not meets(distance):
        return distance
    low, high = 0.0, distance
    while high - low > 0.1:
        middle = (low + high) / 2
        low, high = (low, middle) if meets(middle) else (middle, high)
    return low


def _room_behind(state: Mapping[str, Any], start: Pose, size: Size) -> float:
    """Return how far a stand may go straight back before a corner of it would leave the table."""
    dx, dy = heading(start.facing)
    limits = (state["table"]["width_mm"], state["table"]["depth_mm"])
    room = math.inf
    for corner in corners(start, size):
        for at, step, limit in ((corner[0], -dx, limits[0]), (corner[1], -dy, limits[1])):
            if step > 1e-9:
                room = min(room, (limit - at) / step)
            elif step < -1e-9:
                room = min(room, at / -step)
    return max(room, 0.0)


def go_back(state: State, base: str, distance: float) -> dict[str, Any]:
    """Move a base `distance` mm straight back, keeping its facing; return its move (base, path).

    A base the move would carry off the table stops at the edge (option table_edge: stop, the
    default: the rulebook file is silent), or leaves the field there (table_edge: remove): it is
    removed at once, counted as a base lost (its division tests morale), and the move says
    `off_table`. Bombardment and combat (recoils, breaks, falls back) all go back through here.
    """
    end, path, edge_reached = _going_back(state, base, distance)
    place(state, base, end)
    move: dict[str, Any] = {"base": base, "path": path}
    if edge_reached and setting(state, "table_edge") == "remove":
        state["bases"][base].update(state="removed", followed_up=False, off_table=True)
        if base not in state["broken_this_turn"]:
            state["broken_this_turn"].append(base)
        move["off_table"] = True
    return move


def go_to(state: State, base: str, end: Pose) -> dict[str, Any]:
    """Move a base to `end`; return its move (base, path)."""
    start = pose_of(state, base)
    place(state, base, end)
    return {"base": base, "path": [[start.x, start.y], [end.x, end.y]]}


# -- the scenario's table and the deployment ----------------------------------------------


def check_table_data(data: Any, source: str, divisions: Sequence[str]) -> None:
    """Raise GameDataError naming the first thing wrong in a scenario's `table`."""
    where = f"{source}: table"
    if not isinstance(data, Mapping) or set(data) - set(TABLE_KEYS) or "deployment" not in data:
        raise GameDataError(
            f"{where} must be a mapping with deployment (and width_bw, depth_bw, terrain)",
            hints=(f"keys: {', '.join(TABLE_KEYS)}",),
        )
    for key in ("width_bw", "depth_bw"):
        if key in data and (not _number(data[key]) or data[key] <= 0):
            raise GameDataError(f"{where}.{key} must be a positive number of base widths, got {data[key]!r}")
    deployment = data["deployment"]
    if not isinstance(deployment, Mapping):
        raise GameDataError(f"{where}.deployment must map each division id to where it stands")
    strays = sorted(set(deployment) - set(divisions))
    if strays:
        raise GameDataError(f"{where}.deployment names {', '.join(strays)}, which are not divisions of the scenario")
    for division, spec in deployment.items():
        _check_deployment(spec, f"{where}.deployment.{division}")


def _check_deployment(spec: Any, where: str) -> None:
    if not isinstance(spec, Mapping) or set(spec) - set(DEPLOYMENT_KEYS) or not {"at", "facing"} <= set(spec):
        raise GameDataError(
            f"{where} must give at: [x, y] (BW), facing (degrees) and optionally formation and extend",
            hints=("e.g. {at: [4, 2], facing: 0, formation: deployed, extend: right}",),
        )
    at = spec["at"]
    if not isinstance(at, list) or len(at) != 2 or not all(_number(v) for v in at):
        raise GameDataError(f"{where}.at must be [x, y] in base widths, got {at!r}")
    if not _number(spec["facing"]):
        raise GameDataError(f"{where}.facing must be a bearing in degrees, got {spec['facing']!r}")
    if spec.get("formation", "deployed") not in FORMATIONS:
        raise GameDataError(f"{where}.formation must be deployed or defile, got {spec['formation']!r}")
    if spec.get("extend", "right") not in ("left", "right"):
        raise GameDataError(f"{where}.extend must be left or right, got {spec['extend']!r}")


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def new_table(scenario: Mapping[str, Any], options: Mapping[str, Any], source: str) -> dict[str, Any]:
    """Return the state's table for a scenario played on the referee's table, or raise naming what is missing."""
    data = scenario.get("table")
    if data is None:
        raise GameDataError(
            f"{source} has no table (no deployment): option battlefield: table needs one",
            hints=(
                "give the scenario a table: {deployment: {DIVISION: {at: [x, y], facing: 0}}}, "
                "or play with battlefield: players",
            ),  # fmt: skip
        )
    width = int(options.get("base_width_mm", 60))
    scale = [dict(piece, **_scaled(piece, width)) for piece in data.get("terrain", [])]
    return {
        "bw_mm": width,
        "width_mm": _mm(data.get("width_bw", 24) * width),
        "depth_mm": _mm(data.get("depth_bw", 16) * width),
        "terrain": scale,
        "deployment": {d: dict(spec) for d, spec in data["deployment"].items()},
    }


def _scaled(piece: Mapping[str, Any], width: float) -> dict[str, Any]:
    """Return a terrain piece's coordinates given in base widths, in mm."""
    out: dict[str, Any] = {}
    for key in ("points", "line"):
        if key in piece:
            out[key] = [[_mm(x * width), _mm(y * width)] for x, y in piece[key]]
    if "rect" in piece:
        out["rect"] = [_mm(v * width) for v in piece["rect"]]
    if "width" in piece:
        out["width"] = _mm(piece["width"] * width)
    return out


def _mm(value: float) -> int | float:
    """Return a length kept in the state: to 0.1 mm, a whole value as an int."""
    tenth = round(float(value), 1) + 0.0
    return int(tenth) if tenth.is_integer() else tenth


def deploy(state: State) -> list[str]:
    """Lay out every division on the table as the scenario deploys it; return the divisions placed."""
    table = state["table"]
    placed = []
    for army in state["armies"].values():
        for division in army["divisions"]:
            spec = table["deployment"].get(division)
            if spec is None:
                continue
            _lay_out(state, division, spec)
            placed.append(division)
    for general_id, general in state["generals"].items():
        _place_general(state, general_id, general)
    return placed


def _lay_out(state: State, division: str, spec: Mapping[str, Any]) -> None:
    """Place a division's bases: in line side by side (deployed), or one behind another (defile, L233)."""
    width = bw(state)
    facing = float(spec["facing"])
    formation = spec.get("formation", "deployed")
    state["divisions"][division]["formation"] = formation
    here = Pose(spec["at"][0] * width, spec["at"][1] * width, facing)
    previous: Size | None = None
    side = 90 if spec.get("extend", "right") == "right" else -90
    for base in division_bases(state, division):
        size = size_of(state, base)
        if previous is not None:
            if formation == "deployed":
                here = moved(here, (previous.width + size.width) / 2, facing + side)
            else:
                here = moved(here, -(previous.depth + size.depth) / 2)
        state["bases"][base]["pose"] = to_state(here)
        previous = size


def _place_general(state: State, general_id: str, general: dict[str, Any]) -> None:
    """Put a general 1BW behind the middle of his division (a C-in-C behind his army's first division)."""
    division = general.get("division")
    if division is None:
        army = state["armies"][general["army"]]
        division = army.get("in_person") or army["divisions"][0]
    bases = [b for b in division_bases(state, division) if "pose" in state["bases"][b]]
    if not bases:
        return
    poses = [pose_of(state, b) for b in bases]
    middle = Pose(sum(p.x for p in poses) / len(poses), sum(p.y for p in poses) / len(poses), poses[0].facing)
    distance = bw(state) * (2 if general["rank"] == "c-in-c" else 1)
    general["pose"] = to_state(moved(middle, -distance))


# -- contact -------------------------------------------------------------------------------

CONFORM_BW = 2  # the attacking division wheels forward up to 2BW until its line has conformed (L382)


def conform_pose(state: Mapping[str, Any], own: str, enemy: str, where: Mapping[str, Pose] | None = None) -> Pose:
    """Return where `own` stands in contact with `enemy` once the line has conformed: where it is if
    they touch, else its front flush against the enemy's side it faces, as near as it is now (L382)."""
    here = where[own] if where else pose_of(state, own)
    there = where[enemy] if where else pose_of(state, enemy)
    if touching(outline(here, size_of(state, own)), outline(there, size_of(state, enemy)), TOUCH_MM):
        return here
    side = zone_of(there, size_of(state, enemy), (here.x, here.y))
    return snap_to(here, size_of(state, own), there, size_of(state, enemy), side, align="nearest")


def supports(state: Mapping[str, Any], base: str, supporter: str, where: Mapping[str, Pose]) -> bool:
    """Return whether `supporter` stands beside or directly behind `base`, touching it (L396, L426)."""
    shape = outline(where[supporter], size_of(state, supporter))
    return side_touched(where[base], size_of(state, base), shape, TOUCH_MM) in ("left", "right", "rear")


def support_cancelled_by(state: Mapping[str, Any], supporter: str) -> str | None:
    """Return the enemy base facing `supporter` front to front within 1BW, across its frontage,
    that cancels its support (L426: "Z and O are within 1BW of each other's front and therefore
    cancel out each other's support of their friends"); None when there is none."""
    return next((enemy for enemy in enemies_of(state, supporter) if _fronts_within_1bw(state, supporter, enemy)), None)


def _fronts_within_1bw(state: Mapping[str, Any], one: str, other: str) -> bool:
    return _before_front(state, one, other) and _before_front(state, other, one)


def _before_front(state: Mapping[str, Any], base: str, other: str) -> bool:
    """Whether `other` stands before `base`'s front, no more than 1BW from it, across its frontage."""
    pose, size = pose_of(state, base), size_of(state, base)
    points = [local(pose, point) for point in corners(pose_of(state, other), size_of(state, other))]
    across = min(size.width / 2, max(x for x, _ in points)) - max(-size.width / 2, min(x for x, _ in points))
    ahead = min(y for _, y in points) - size.depth / 2
    return across > TOUCH_MM and -TOUCH_MM <= ahead <= bw(state) + TOUCH_MM


def generals_in_the_way(state: Mapping[str, Any], division: str) -> list[str]:
    """Return the active enemy generals whose bases touch, or lie under, a standing base of `division`
    (L326: a general "contacted by enemy troops ... simply his being in the way")."""
    side = state["armies"][state["divisions"][division]["army"]]["side"]
    shapes = [outline_of(state, b) for b in standing_on_table(state) if state["bases"][b]["division"] == division]
    return sorted(
        general_id
        for general_id, general in state["generals"].items()
        if general["status"] == "active"
        and "pose" in general
        and state["armies"][general["army"]]["side"] != side
        and any(shape.distance(general_outline(state, general_id)) <= TOUCH_MM for shape in shapes)
    )


def ride_to_friends(state: State, general_id: str) -> dict[str, Any] | None:
    """Move a general who eluded capture just behind the nearest friendly base on the table (L332: "move
    him immediately to nearest friendly troops"); return his move (general, path), or None when he has
    no position or no friend stands on the table."""
    general = state["generals"][general_id]
    if "pose" not in general:
        return None
    side = state["armies"][general["army"]]["side"]
    here = general_outline(state, general_id)
    friends = [b for b in standing_on_table(state) if side_of_base(state, b) == side]
    if not friends:
        return None
    nearest = min(friends, key=lambda b: (outline_of(state, b).distance(here), b))
    start = pose_from(general["pose"])
    end = moved(pose_of(state, nearest), -bd(state))  # his base touching the rear of theirs
    general["pose"] = to_state(end)
    return {"general": general_id, "path": [[start.x, start.y], [end.x, end.y]], "to": nearest}


def overlapped_by(state: Mapping[str, Any], base: str, opponent: str) -> list[str]:
    """Return the enemy bases, other than the `opponent` it fights, touching `base`'s left or right
    flank: an overlap (the combat fact `overlapped`; the book's overlap rules are on its missing
    pages 23-28, so no modifier reads it unless the referee supplies one)."""
    pose, size = pose_of(state, base), size_of(state, base)
    return [
        enemy
        for enemy in enemies_of(state, base)
        if enemy != opponent and side_touched(pose, size, outline_of(state, enemy), TOUCH_MM) in ("left", "right")
    ]


def range_to(state: Mapping[str, Any], base: str, other: str) -> float | None:
    """Return how far `other` stands from `base`, edge to edge in mm, if any of it is before
    `base`'s front (a gun's field of fire); None when all of it is level with or behind the front."""
    pose, size = pose_of(state, base), size_of(state, base)
    points = [local(pose, point) for point in corners(pose_of(state, other), size_of(state, other))]
    if max(y for _, y in points) <= size.depth / 2 + TOUCH_MM:
        return None
    return float(outline_of(state, base).distance(outline_of(state, other)))


def blocking(state: Mapping[str, Any], base: str, end: Pose, where: Mapping[str, Pose] | None = None) -> list[str]:
    """Return the other bases on the field that a base standing at `end` would overlap."""
    shape = outline(end, size_of(state, base))
    poses = where if where is not None else {b: pose_of(state, b) for b in standing_on_table(state)}
    return [
        other
        for other, pose in poses.items()
        if other != base and overlapping(shape, outline(pose, size_of(state, other)), TOUCH_MM)
    ]
