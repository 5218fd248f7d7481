"""Moves on the referee's table (option battlefield: table): manoeuvres checked against the book's rates.

A move or continue order may carry `steps`, the group's manoeuvres in order (lengths in mm):
`advance`, `wheel` (about the group's front-left or front-right corner, measured at the outer
corner), `retire` (1BD back, facing kept), `to` (the group slides so its first base's centre ends
at a point), `march` (a column in defile follows its head along waypoints) and `deploy` (deploy
from defile, the first turn, L283). With no steps the brigades stand (a move order given, so they
may attack from where they stand).

Rates (L249-L270): in defile 4BW; deployed 1BW, hussars 2BW; cavalry launching an attack
(`charge: true`) +1BW, ending in contact; light artillery manhandled 1BW; limbered guns with a
column at its rate, alone as baggage 1BD (L144, L262); unlimbered field artillery never (command.py
refuses it). A wheel: up to 1BW at the outer corner, artillery 1BD (L267-L268), counted in the move.
A retire: 1BD, infantry, cavalry and dismounted dragoons (L269). The group moves as one body; each
base's swept area may cross friendly foot and horse (L270), never an enemy, a friendly gun, or
(option terrain_moves: refuse) a terrain piece, whose effects (p. 22) the rulebook file lacks; it
ends on the table overlapping no other base. Brigades acting on one order stand within 1BW of
each other (L237).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from shapely.geometry import LineString, Point, Polygon, box
from shapely.ops import unary_union

from games.polemos_obb.model import TROOPS, arm_of, is_standing, side_of_base
from games.polemos_obb.options import setting
from games.polemos_obb.table import TOUCH_MM, bd, bw, in_bw, size_of
from referee.kit import Problem
from referee.kit.tabletop import (
    Pose,
    along_path,
    bearing,
    corners,
    heading,
    moved,
    outline,
    overlapping,
    pieces_from,
    pose_from,
    rotated,
    slide,
    to_state,
    touching,
    turn_about,
    turned,
)
from referee.kit.tabletop.terrain import crossings, footprint

DEFILE_BW = 4  # L249
DEPLOYED_BW = 1  # L251
HUSSARS_BW = 2  # L256
CHARGE_BW = 1  # L255
MANHANDLED_BW = 1  # L265
WHEEL_BW = 1  # L267 (artillery: 1BD, L268)
DEPLOY_RIGHT_BW = 4  # L283
DEPLOY_LINE = 4  # the leading base and the next three form the line (L283)
DEPLOYING = "(deploying)"  # the key of a deployment's outcome among a step's moves
ROADS = ("road",)  # terrain a move may always enter: baggage goes faster on it (L262)


class Planned(dict[str, Any]):
    """A move worked out: `ends` (base: pose), `paths` (base: [[x, y], ...]), `length`, `allowance` (mm)."""


def plan(
    state: Mapping[str, Any],
    where: Mapping[str, Pose],
    entry: Mapping[str, Any],
    bases: Sequence[str],
    path: str,
) -> tuple[Planned | None, list[Problem]]:
    """Work out a move of `bases` (one group, order of battle) from the poses `where`; return it or the problems."""
    steps = entry.get("steps", [])
    problems: list[Problem] = []
    problems += _group_problems(state, where, bases, path)
    allowance, rate = _allowance(state, entry, bases)
    if allowance is None:
        return None, [Problem("illegal.moves.cannot-move", f"{path}.brigades", rate), *problems]
    poses = {b: where[b] for b in bases}
    swept: dict[str, list[Polygon]] = {b: [outline(poses[b], size_of(state, b))] for b in bases}
    trails: dict[str, list[tuple[float, float]]] = {b: [(poses[b].x, poses[b].y)] for b in bases}
    length = wheeled = 0.0
    deployment: Any = None
    for number, step in enumerate(steps):
        at = f"{path}.steps[{number}]"
        done, problem = _step(state, poses, bases, step, at, len(steps))
        if problem:
            return None, [*problems, problem]
        assert done is not None
        step_length, moves = done
        deployment = moves.pop(DEPLOYING, deployment)
        length += step_length
        if "wheel" in step:
            wheeled += step_length
        for base, (end, sweep, trail) in moves.items():
            poses[base] = end
            swept[base].append(sweep)
            trails[base] += trail
    if steps and "retire" in steps[0]:
        allowance, rate = bd(state), "a retire is 1BD (L269)"
    if deployment is not None:
        allowance, rate = DEPLOY_RIGHT_BW * bw(state), "a deploying column's leading base moves 4BW to the right (L283)"
    problems += _rate_problems(state, bases, entry, length, wheeled, allowance, rate, path)
    problems += _ground_problems(state, where, poses, swept, bases, entry, path)
    planned = Planned(
        ends={b: to_state(poses[b]) for b in bases},
        paths={b: [[round(x, 1), round(y, 1)] for x, y in _dedup(trails[b])] for b in bases},
        length=round(length, 1),
        allowance=round(allowance, 1),
        **({"deploying": deployment} if deployment is not None else {}),
    )
    return (None if problems else planned), problems


def _dedup(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    kept = points[:1]
    for point in points[1:]:
        if math.dist(point, kept[-1]) > 0.05:
            kept.append(point)
    return kept


def _group_problems(
    state: Mapping[str, Any], where: Mapping[str, Pose], bases: Sequence[str], path: str
) -> list[Problem]:
    """Brigades act on one order when within 1BW of each other (L237)."""
    brigades: dict[str, list[str]] = {}
    for base in bases:
        brigades.setdefault(state["bases"][base]["brigade"], []).append(base)
    if len(brigades) < 2:
        return []
    shapes = {k: unary_union([outline(where[b], size_of(state, b)) for b in v]) for k, v in brigades.items()}
    names = list(shapes)
    joined = {names[0]}
    grew = True
    while grew:
        grew = False
        for name in names:
            if name not in joined and any(shapes[name].distance(shapes[j]) <= bw(state) + TOUCH_MM for j in joined):
                joined.add(name)
                grew = True
    apart = [n for n in names if n not in joined]
    if not apart:
        return []
    return [
        Problem(
            "illegal.moves.apart",
            f"{path}.brigades",
            f"{', '.join(apart)} stand{'s' * (len(apart) == 1)} more than 1BW from {', '.join(sorted(joined))}: "
            "brigades act on one order only within 1BW of each other (L237); give them an order of their own",
        )
    ]


def base_allowance(state: Mapping[str, Any], base: str) -> tuple[float | None, str]:
    """Return how far `base` may move on an order of its own (in mm, None: not at all), and the rule."""
    return _allowance(state, {}, [base])


def _allowance(state: Mapping[str, Any], entry: Mapping[str, Any], bases: Sequence[str]) -> tuple[float | None, str]:
    """Return the group's move allowance in mm and the rule that gives it (None: it may not move)."""
    width = bw(state)
    rates = []
    for base in bases:
        record = state["bases"][base]
        formation = state["divisions"][record["division"]].get("formation", "deployed")
        if arm_of(state, base) == "artillery":
            if not record.get("limbered", True):
                if not TROOPS["types"][record["type"]].get("manhandled"):
                    return None, "unlimbered field artillery may not move for the rest of the game (L264)"
                rates.append((MANHANDLED_BW * width, "unlimbered light artillery is manhandled 1BW (L265)"))
            elif entry.get("with"):
                column = state["divisions"][entry["with"]].get("formation", "deployed")
                bw_rate = DEFILE_BW if column == "defile" else DEPLOYED_BW
                rates.append((bw_rate * width, f"limbered guns move at their column's rate, {bw_rate}BW (L249, L264)"))
            else:
                if _on_road(state, base):
                    rates.append((width, "limbered guns on a road move as baggage, 1BW (L144, L262)"))
                else:
                    rates.append(
                        (bd(state), "limbered guns move as baggage, 1BD (limbers count as baggage, L144, L262)")
                    )
        elif formation == "defile":
            rates.append((DEFILE_BW * width, "a march column (defile) moves 4BW (L249)"))
        elif record["type"] == "hussars":
            rates.append((HUSSARS_BW * width, "hussars deployed move 2BW (L256)"))
        else:
            rates.append((DEPLOYED_BW * width, "troops deployed over 1BW wide move 1BW (L251)"))
    allowance, rate = min(rates)
    if entry.get("charge"):
        allowance += CHARGE_BW * width
        rate += ", +1BW for cavalry launching an attack (L255)"
    return allowance, rate


def _on_road(state: Mapping[str, Any], base: str) -> bool:
    """Return whether a base stands on a road (its centre within a road piece's strip)."""
    pose = pose_from(state["bases"][base]["pose"])
    roads = [p for p in pieces_from(state["table"]["terrain"]) if p.kind in ROADS]
    return any(footprint(road).buffer(TOUCH_MM).contains(Point(pose.x, pose.y)) for road in roads)


def _step(
    state: Mapping[str, Any],
    poses: Mapping[str, Pose],
    bases: Sequence[str],
    step: Mapping[str, Any],
    at: str,
    count: int,
) -> tuple[tuple[float, dict[str, Any]] | None, Problem | None]:
    """Return one manoeuvre's length and each base's (end, swept area, trail), or the problem with it."""
    kinds = [k for k in ("advance", "wheel", "retire", "to", "march", "deploy") if k in step]
    if len(kinds) != 1 or ("by" in step) != (kinds[0] == "wheel"):
        return None, Problem(
            "illegal.moves.step", at, "a step is one of {advance: MM}, {wheel: left|right, by: MM}, {retire: true}, "
            "{to: [X, Y]}, {march: [[X, Y], ...]}, {deploy: {wheel: DEGREES, right: MM}}"
        )  # fmt: skip
    kind = kinds[0]
    if kind == "advance":
        return _slide(state, poses, bases, lambda p: moved(p, step["advance"])), None
    if kind == "retire":
        if count != 1 or not step["retire"]:
            return None, Problem("illegal.moves.retire", at, "a retire (1BD back, L269) is the move's only step")
        if any(arm_of(state, b) == "artillery" for b in bases):
            return None, Problem("illegal.moves.retire", at, "only foot, horse and dismounted dragoons retire (L269)")
        return _slide(state, poses, bases, lambda p: moved(p, -bd(state))), None
    if kind == "to":
        first = poses[bases[0]]
        dx, dy = step["to"][0] - first.x, step["to"][1] - first.y
        return _slide(state, poses, bases, lambda p: Pose(p.x + dx, p.y + dy, p.facing)), None
    if kind == "wheel":
        return _wheel(state, poses, bases, step["wheel"], step["by"]), None
    if kind == "march":
        if any(state["divisions"][state["bases"][b]["division"]].get("formation") != "defile" for b in bases):
            return None, Problem("illegal.moves.march", at, "only a column in defile marches along a path (L249)")
        return _march(state, poses, bases, [(x, y) for x, y in step["march"]]), None
    return _deploy(state, poses, bases, step["deploy"], at)


def _slide(state: Mapping[str, Any], poses: Mapping[str, Pose], bases: Sequence[str], to: Any) -> tuple[float, dict]:
    moves = {}
    length = 0.0
    for base in bases:
        end = to(poses[base])
        move = slide(poses[base], size_of(state, base), (end.x, end.y))
        moves[base] = (move.end, move.swept, [(end.x, end.y)])
        length = max(length, move.length)
    return length, moves


def _lateral(pose: Pose, reference: Pose) -> float:
    """Return how far right of `reference` (as it faces) a pose's centre stands."""
    rx, ry = heading(turned(reference.facing, 90))
    return (pose.x - reference.x) * rx + (pose.y - reference.y) * ry


def _wheel(
    state: Mapping[str, Any], poses: Mapping[str, Pose], bases: Sequence[str], pivot: str, by: float
) -> tuple[float, dict]:
    """Wheel the group as one line about its front-left (right) corner; `by` mm at the outer corner."""
    reference = poses[bases[0]]
    ordered = sorted(bases, key=lambda b: _lateral(poses[b], reference))
    end = ordered[0] if pivot == "left" else ordered[-1]
    pivot_corner = corners(poses[end], size_of(state, end))
    about = pivot_corner.front_left if pivot == "left" else pivot_corner.front_right
    reach = max(
        math.dist(about, c) for b in bases for c in corners(poses[b], size_of(state, b))[:2]
    )  # the outer front corner
    degrees = math.degrees(by / reach) if reach else 0.0
    degrees = -degrees if pivot == "left" else degrees
    moves = {}
    for base in bases:
        move = turn_about(poses[base], size_of(state, base), about, degrees)
        arc = [_rotated_centre(poses[base], about, degrees * k / 8) for k in range(1, 9)]
        moves[base] = (move.end, move.swept, arc)
    return float(by), moves


def _rotated_centre(pose: Pose, about: tuple[float, float], degrees: float) -> tuple[float, float]:
    return rotated((pose.x, pose.y), about, degrees)


def _march(
    state: Mapping[str, Any], poses: Mapping[str, Pose], bases: Sequence[str], waypoints: list[tuple[float, float]]
) -> tuple[float, dict]:
    """A column follows its head along the waypoints, each base along the trail of those before it (L249)."""
    reference = poses[bases[0]]
    hx, hy = heading(reference.facing)
    column = sorted(bases, key=lambda b: -((poses[b].x - reference.x) * hx + (poses[b].y - reference.y) * hy))
    head = poses[column[0]]
    trail = [(poses[b].x, poses[b].y) for b in reversed(column)] + waypoints
    line = LineString(_dedup(trail))
    distance = LineString(_dedup([(head.x, head.y), *waypoints])).length
    moves = {}
    for base in column:
        start = line.project(_point(poses[base]))
        end_at = min(start + distance, line.length)
        points = [line.interpolate(start + distance * k / 16) for k in range(1, 17)]
        trail_points = [(p.x, p.y) for p in points if line.project(p) <= end_at + 1e-9]
        ahead = line.interpolate(min(end_at + 0.5, line.length))
        behind_at = line.interpolate(max(end_at - 0.5, 0))
        facing = bearing((behind_at.x, behind_at.y), (ahead.x, ahead.y))
        move = along_path(poses[base], size_of(state, base), trail_points)
        end = Pose(move.end.x, move.end.y, facing)
        moves[base] = (end, move.swept, trail_points)
    return distance, moves


def _point(pose: Pose) -> Point:
    return Point(pose.x, pose.y)


def _deploy(
    state: Mapping[str, Any], poses: Mapping[str, Pose], bases: Sequence[str], spec: Mapping[str, Any], at: str
) -> tuple[tuple[float, dict] | None, Problem | None]:
    """Deploy from defile (L276-L295), the leading base moving up to 4BW to the right.

    First turn (a division in defile): the leading base wheels up to 45 degrees free, moves right;
    the next three form on its left in one line; the rest close up in column 1BD behind the line's
    left end. Second turn (a division deploying, a continuation move, L278), `option`: `a` the line
    moves right and the next four from the column form on its left; `b` the leading base still in
    column makes the same wheel, moves right and stands 1BD behind the first line (up to 1BW, L295)
    with the next three on its left, a second line. Bases still in column close up behind.
    """
    division = state["divisions"][state["bases"][bases[0]]["division"]]
    formation = division.get("formation")
    if formation not in ("defile", "deploying"):
        return None, Problem("illegal.moves.deploy", at, "only a division in defile deploys from defile (L276)")
    if formation == "deploying" and spec.get("option") not in ("a", "b"):
        return None, Problem(
            "illegal.moves.deploy", f"{at}.option", "the second turn of a deployment is option a (the line goes on "
            "to the right, the column forms on its left) or b (a second line behind the first) (L289-L295)"
        )  # fmt: skip
    if spec["right"] > DEPLOY_RIGHT_BW * bw(state):
        return None, Problem(
            "illegal.moves.deploy", f"{at}.right", f"the leading base moves at most 4BW to the right (L283): "
            f"{DEPLOY_RIGHT_BW * bw(state):g} mm"
        )  # fmt: skip
    line = [b for b in division.get("deploying", {}).get("line", []) if b in bases]
    rest = [b for b in bases if b not in line]
    reference = poses[rest[0]] if rest else poses[line[0]]
    hx, hy = heading(reference.facing)
    column = sorted(rest, key=lambda b: -((poses[b].x - reference.x) * hx + (poses[b].y - reference.y) * hy))
    ends: dict[str, Pose] = {}
    if formation == "defile":
        head = poses[column[0]]
        facing = turned(head.facing, spec.get("wheel", 0))
        lead = moved(Pose(head.x, head.y, facing), spec["right"], turned(facing, 90))
        formed, column = column[:DEPLOY_LINE], column[DEPLOY_LINE:]
    elif spec["option"] == "a":
        facing = poses[line[0]].facing
        for base in line:
            ends[base] = moved(poses[base], spec["right"], turned(facing, 90))
        left_end = min(line, key=lambda b: _lateral(ends[b], ends[line[0]]))
        lead = moved(ends[left_end], -(size_of(state, left_end).width + size_of(state, column[0]).width) / 2,
                     turned(facing, 90)) if column else ends[left_end]  # fmt: skip
        formed, column = column[:DEPLOY_LINE], column[DEPLOY_LINE:]
    else:
        facing = poses[line[0]].facing
        head = poses[column[0]]
        beside = moved(Pose(head.x, head.y, facing), spec["right"], turned(facing, 90))
        first_rear = min(_ahead(poses[b], facing) - size_of(state, b).depth / 2 for b in line)
        behind = _ahead(beside, facing) - (first_rear - bd(state) - size_of(state, column[0]).depth / 2)
        lead = moved(beside, -behind)
        formed, column = column[:DEPLOY_LINE], column[DEPLOY_LINE:]
    here, previous = lead, size_of(state, formed[0]) if formed else size_of(state, line[0])
    for index, base in enumerate(formed):
        size = size_of(state, base)
        if index:
            here = moved(here, (previous.width + size.width) / 2, turned(facing, -90))
        ends[base], previous = Pose(here.x, here.y, facing), size
    back = moved(here, -(previous.depth / 2 + bd(state)))
    for base in column:
        size = size_of(state, base)
        back = moved(Pose(back.x, back.y, facing), -size.depth / 2)
        ends[base] = back
        back = moved(back, -size.depth / 2)
    moves: dict[str, Any] = {}
    for base in bases:
        end = ends.get(base, poses[base])
        move = slide(poses[base], size_of(state, base), (end.x, end.y), facing=end.facing)
        moves[base] = (move.end, move.swept, [(end.x, end.y)])
    moves[DEPLOYING] = {"line": [*line, *formed], "column": column}
    return (float(spec["right"]), moves), None


def _ahead(pose: Pose, facing: float) -> float:
    """Return how far along `facing` a pose's centre stands."""
    hx, hy = heading(facing)
    return pose.x * hx + pose.y * hy


def _rate_problems(
    state: Mapping[str, Any],
    bases: Sequence[str],
    entry: Mapping[str, Any],
    length: float,
    wheeled: float,
    allowance: float,
    rate: str,
    path: str,
) -> list[Problem]:
    problems = []
    if length > allowance + TOUCH_MM:
        problems.append(
            Problem(
                "illegal.moves.too-far",
                f"{path}.steps",
                f"this move is {length:.0f} mm ({in_bw(state, length)}) but {rate}: at most {allowance:.0f} mm",
            )
        )
    artillery = any(arm_of(state, b) == "artillery" for b in bases)
    cap = bd(state) if artillery else WHEEL_BW * bw(state)
    if wheeled > cap + TOUCH_MM:
        which = "artillery wheels up to 1BD (L268)" if artillery else "foot and horse wheel up to 1BW (L267)"
        problems.append(
            Problem(
                "illegal.moves.wheel",
                f"{path}.steps",
                f"the wheels of this move come to {wheeled:.0f} mm at the outer corner; {which}: {cap:g} mm",
            )
        )
    if entry.get("charge") and any(arm_of(state, b) != "cavalry" for b in bases):
        problems.append(Problem("illegal.moves.charge", f"{path}.charge", "only cavalry adds 1BW to attack (L255)"))
    return problems


def _ground_problems(
    state: Mapping[str, Any],
    where: Mapping[str, Pose],
    poses: Mapping[str, Pose],
    swept: Mapping[str, list[Polygon]],
    bases: Sequence[str],
    entry: Mapping[str, Any],
    path: str,
) -> list[Problem]:
    """The move stays on the table, crosses no enemy (nor a friendly gun, nor terrain under option
    terrain_moves: refuse) and ends on no other base; a charge ends in contact with the enemy. A
    base that stands (no steps) crosses nothing: it may stay on ground it was thrown onto, a
    friend's or an enemy's, and so still attack."""
    problems: list[Problem] = []
    table = state["table"]
    cloth = box(0, 0, table["width_mm"], table["depth_mm"])
    others = [b for b in where if b not in bases and is_standing(state, b)]
    shapes = {b: outline(where[b], size_of(state, b)) for b in others}
    refused = setting(state, "terrain_moves") == "refuse"
    pieces = [p for p in pieces_from(table["terrain"]) if p.kind not in ROADS] if refused else []
    in_contact = False
    for base in bases:
        end = outline(poses[base], size_of(state, base))
        sweep = unary_union(swept[base])
        side = side_of_base(state, base)
        if not cloth.buffer(TOUCH_MM).contains(end):
            problems.append(Problem("illegal.moves.off-table", f"{path}.steps", f"{base} would end off the table"))
        ends_on, through = [], []
        for other, shape in shapes.items():
            friend = side_of_base(state, other) == side
            passes = friend and arm_of(state, other) != "artillery" and arm_of(state, base) != "artillery"
            moves = poses[base] != where[base]  # a base that stands crosses nothing, whatever it stands on
            if moves and overlapping(end, shape, TOUCH_MM):
                ends_on.append(other)
            elif moves and not passes and overlapping(sweep, shape, TOUCH_MM):
                through.append(other)
            if not friend and touching(end, shape, TOUCH_MM):
                in_contact = True
        if ends_on:
            text = f"{base} would end on {', '.join(ends_on)}: bases never overlap"
            problems.append(Problem("illegal.moves.ends-on", f"{path}.steps", text))
        if through:
            text = (
                f"{base} would pass through {', '.join(through)}: an enemy stops a move at first contact, and "
                "only friendly foot and horse pass through each other (L270)"
            )
            problems.append(Problem("illegal.moves.through", f"{path}.steps", text))
        entered = [piece.id for piece, _ in crossings(sweep, pieces, TOUCH_MM)] if pieces else []
        if entered:
            problems.append(
                Problem(
                    "illegal.moves.terrain",
                    f"{path}.steps",
                    f"{base} would enter {', '.join(entered)}: the terrain effects (rulebook p. 22) are not in the "
                    "rulebook file (option terrain_moves: free lets bases cross terrain at their full rate)",
                )
            )
    if entry.get("charge") and not in_contact:
        text = "a charge (+1BW, L255) must end in contact with the enemy"
        problems.append(Problem("illegal.moves.charge", f"{path}.charge", text))
    return problems


def poses_now(state: Mapping[str, Any]) -> dict[str, Pose]:
    """Return every standing base's pose (the starting point of a moves step)."""
    return {b: pose_from(r["pose"]) for b, r in state["bases"].items() if "pose" in r and is_standing(state, b)}
