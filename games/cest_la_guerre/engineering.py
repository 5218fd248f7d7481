"""Combat Engineering (L273-L283): Combat Engineers build or demolish roads, bridges and field
fortifications, a length each turn.

Each Combat Engineer card, once a turn (option `engineering_per`: a Round, or each bound), builds
or demolishes 10 cm of road, 5 cm of a bridge across a river, or 10 cm of field fortification
(L275). Not if it moved that turn (L279), nor with an enemy card within 25 cm that no card of its
side at least partly screens (L275; option `engineering_screen`). A work is laid out whole when
begun, `{build: B5, kind: bridge, rect: [x1, y1, x2, y2]}`, and continued by id,
`{build: B5, work: W1}`; it is in the state's `works` until done, then becomes terrain like any
other feature: a bridge removes its river's effects only once it spans it (L277), a fortification
gives its +1 only once complete (L380, and gap G-43's least length). Demolishing,
`{demolish: B5, feature: T3}`, takes the same time and the feature stands until it is gone.
The work must lie within `engineering_reach_mm` of the engineer (the book does not say where
engineers work); building costs `engineering_ip` IP (the book names no cost: IP pay for moves).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from games.cest_la_guerre.bound import Bound
from games.cest_la_guerre.events import public
from games.cest_la_guerre.geometry import overlaps, rect_of, segment_hits, within
from games.cest_la_guerre.hidden import public_name, reveal
from games.cest_la_guerre.terrain import Box, centre, rect
from games.cest_la_guerre.units import find, placed

RATE_MM = {"road": 100, "bridge": 50, "fortification": 100}  # per engineer per turn (L275)
KINDS = tuple(RATE_MM)
SCREENED_WITHIN_MM = 250  # 500 m (L275)


def turn_key(b: Bound) -> str:
    """Return the turn an engineer works in: the Round, or the bound (option engineering_per)."""
    if b.options.get("engineering_per", "round") == "bound":
        return f"r{b.state['round']}/{b.role}"
    return f"r{b.state['round']}"


def length_of(area: Box) -> int:
    """Return a work's length: its long side (a bridge's, across its river)."""
    return int(max(area[2] - area[0], area[3] - area[1]))


def unscreened_enemy(state: Mapping[str, Any], engineer: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """Return an enemy card within 25 cm of the engineer that no friend screens off, or None (L275)."""
    screen = state["options"].get("engineering_screen", "centre_line")
    friends = [u for u in placed(state) if u["owner"] == engineer["owner"] and u is not engineer]
    for enemy in placed(state):
        if enemy["owner"] == engineer["owner"] or not within(rect_of(engineer), rect_of(enemy), SCREENED_WITHIN_MM):
            continue
        line = (centre(engineer), centre(enemy))
        if screen == "centre_line" and any(segment_hits(*line, rect_of(friend)) for friend in friends):
            continue
        return enemy
    return None


def _engineer(b: Bound, ref: Any, path: str) -> dict[str, Any] | None:
    unit = find(b.state, b.role, ref) if isinstance(ref, str) else None
    if unit is None or unit["status"] != "table":
        b.refuse("illegal.unit", path, f"you have no card {ref!r} on the table")
        return None
    if unit["type"] != "engineers":
        b.refuse("illegal.engineering", path, f"{unit['id']} is not Combat Engineers: only they build (L275)")
        return None
    moved = unit["moved_round"] if b.options.get("engineering_per", "round") == "round" else unit["moved_bound"]
    if moved:
        b.refuse("illegal.engineering", path, f"{unit['id']} moved this turn: it cannot build or demolish (L279)")
        return None
    if unit.get("worked") == turn_key(b):
        b.refuse("illegal.engineering", path, f"{unit['id']} has already built or demolished this turn (L275)")
        return None
    enemy = unscreened_enemy(b.state, unit)
    if enemy is not None:
        b.refuse(
            "illegal.engineering",
            path,
            f"{enemy['marker']} is within 25 cm of {unit['id']} and not screened off by your cards (L275)",
        )
        return None
    return unit


def _near(b: Bound, unit: Mapping[str, Any], area: Box, path: str) -> bool:
    reach = int(b.options.get("engineering_reach_mm", 50))
    if within(rect_of(unit), area, reach):
        return True
    b.refuse("illegal.engineering", path, f"the work is more than {reach} mm from {unit['id']}")
    return False


def _new_work(b: Bound, unit: Mapping[str, Any], action: Mapping[str, Any], path: str) -> dict[str, Any] | None:
    kind = action.get("kind")
    given = action.get("rect")
    if kind not in KINDS or not isinstance(given, list) or len(given) != 4:
        b.refuse("illegal.engineering", path, f"a new work gives kind ({', '.join(KINDS)}) and rect [x1, y1, x2, y2]")
        return None
    x1, y1, x2, y2 = (int(v) for v in given)
    area = (min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))
    width, depth = b.options["table_mm"]
    if area[0] < 0 or area[1] < 0 or area[2] > width or area[3] > depth or length_of(area) <= 0:
        b.refuse("illegal.engineering", f"{path}.rect", "the work must lie on the table and have a length")
        return None
    if kind not in b.options["terrain_menu"]:
        b.refuse("illegal.engineering", f"{path}.kind", f"{kind} is not in this game's terrain menu")
        return None
    if kind == "bridge" and not _spans_a_river(b.state, area):
        b.refuse("illegal.engineering", f"{path}.rect", "a bridge must reach across a river, bank to bank")
        return None
    if not _near(b, unit, area, path):
        return None
    works = b.state.setdefault("works", [])
    number = 1 + max((int(w["id"][1:]) for w in works), default=0)
    work = {"id": f"W{number}", "kind": kind, "rect": list(area), "length": length_of(area), "done_mm": 0}
    works.append(work)
    return work


def _spans_a_river(state: Mapping[str, Any], area: Box) -> bool:
    for river in (f for f in state["terrain"] if f["kind"] == "river"):
        rx1, ry1, rx2, ry2 = rect(river)
        if not overlaps(area, (rx1, ry1, rx2, ry2)):
            continue
        across_x = rx2 - rx1 <= ry2 - ry1  # a river running north-south is crossed west to east
        if (across_x and area[0] <= rx1 and area[2] >= rx2) or (not across_x and area[1] <= ry1 and area[3] >= ry2):
            return True
    return False


def build(b: Bound, action: Mapping[str, Any], path: str) -> None:
    """Begin or continue a work with one Combat Engineer card (L275-L279)."""
    unit = _engineer(b, action["build"], f"{path}.build")
    if unit is None:
        return
    if "work" in action:
        work = next((w for w in b.state.get("works", []) if w["id"] == action["work"]), None)
        if work is None:
            b.refuse("illegal.engineering", f"{path}.work", f"there is no work {action['work']!r} under way")
            return
        if not _near(b, unit, tuple(work["rect"]), path):  # type: ignore[arg-type]
            return
    else:
        work = _new_work(b, unit, action, path)
        if work is None:
            return
    if not _pay_ip(b, path):
        return
    _work_done(b, unit)
    work["done_mm"] = min(work["length"], work["done_mm"] + RATE_MM[work["kind"]])
    if work["done_mm"] < work["length"]:
        b.events.append(
            public(
                "engineering.progress",
                f"{public_name(unit)} works on {work['id']}, a {work['kind']} at {_where(work['rect'])}: "
                f"{work['done_mm']} of {work['length']} mm done.",
            )
        )
        return
    b.state["works"].remove(work)
    feature = {
        "id": f"T{1 + max((int(f['id'][1:]) for f in b.state['terrain'] if f['id'][1:].isdigit()), default=0)}",
        "kind": work["kind"],
        "rect": list(work["rect"]),
        **copy.deepcopy(b.options["terrain_menu"][work["kind"]]),
    }
    b.state["terrain"].append(feature)
    b.events.append(
        public(
            "engineering.done",
            f"{public_name(unit)} completes {work['id']}: a {work['kind']} at {_where(work['rect'])}, "
            f"now terrain {feature['id']}.",
        )
    )


def demolish(b: Bound, action: Mapping[str, Any], path: str) -> None:
    """Demolish a road, bridge or field fortification, at the building rate (L275)."""
    unit = _engineer(b, action["demolish"], f"{path}.demolish")
    if unit is None:
        return
    feature = next((f for f in b.state["terrain"] if f["id"] == action.get("feature")), None)
    if feature is None or feature["kind"] not in KINDS:
        b.refuse("illegal.engineering", f"{path}.feature", "name a road, bridge or fortification by its terrain id")
        return
    if not _near(b, unit, rect(feature), path) or not _pay_ip(b, path):
        return
    _work_done(b, unit)
    length = length_of(rect(feature))
    feature["demolished_mm"] = min(length, int(feature.get("demolished_mm", 0)) + RATE_MM[feature["kind"]])
    if feature["demolished_mm"] < length:
        b.events.append(
            public(
                "engineering.progress",
                f"{public_name(unit)} demolishes {feature['id']}: {feature['demolished_mm']} of {length} mm.",
            )
        )
        return
    b.state["terrain"].remove(feature)
    b.events.append(
        public("engineering.done", f"{public_name(unit)} has demolished {feature['id']} ({feature['kind']}).")
    )


def _pay_ip(b: Bound, path: str) -> bool:
    cost = int(b.options.get("engineering_ip", 0))
    if cost > b.ip_left:
        b.refuse("illegal.ip", path, f"engineering needs {cost} IP but only {b.ip_left} are left")
        return False
    b.ip_left -= cost
    return True


def _work_done(b: Bound, unit: dict[str, Any]) -> None:
    """Mark the engineer's turn's work: it turns face up (everyone sees it build) and may not move on."""
    reveal(b.state, unit, "it builds", b.events)
    unit["worked"] = turn_key(b)
    unit["moved_bound"] = True  # a card that works this bound does not also move in it (L279)


def _where(area: Any) -> str:
    x1, y1, x2, y2 = area
    return f"x {x1}-{x2}, y {y1}-{y2}"
