"""Before the first bound (L148-L158): armies chosen in secret, the deployment roll, terrain and
table side chosen by the Low scorer, then deployment face down, Low scorer first."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from games.cest_la_guerre.armies import build_army
from games.cest_la_guerre.data import show_points
from games.cest_la_guerre.events import private, public
from games.cest_la_guerre.geometry import card_rect, inside
from games.cest_la_guerre.hidden import assign_markers, reveal_check
from games.cest_la_guerre.placing import place, placement_problems
from games.cest_la_guerre.sequence import start_round
from games.cest_la_guerre.units import describe, units_of
from games.cest_la_guerre.zones import TOWARDS, enemy_edge
from referee.kit import Dice, Problem, thaw

DEPLOY_DEPTH = 100  # 10 cm from the base edge (L154)
CARD_STATE = {
    "marker": None,
    "x": None,
    "y": None,
    "facing": None,
    "face_up": False,
    "disordered": False,
    "casualties": 0,
    "moved_bound": False,
    "moved_round": False,
    "charged": False,
    "rallied": False,
    "shots": 0,
    "in_square": None,
    "dismounted": False,
}


# -- armies ----------------------------------------------------------------------------------


def armies_problems(state: Mapping[str, Any], orders: Mapping[str, Any]) -> list[Problem]:
    """Return why an army order does not fit its list or the point system."""
    return build_army(orders, state["options"])[2]


def armies_resolve(
    state: Mapping[str, Any], orders: Mapping[str, Mapping[str, Any]], dice: Dice
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Record both armies, then roll for deployment: the Low scorer chooses terrain and deploys first."""
    work: dict[str, Any] = thaw(state)
    events: list[dict[str, Any]] = []
    for role in work["roles"]:
        summary, cards, problems = build_army(orders[role], work["options"])
        assert summary is not None and not problems, problems
        work["sides"][role].update(summary)
        work["units"] += [{"owner": role, **card, **copy.deepcopy(CARD_STATE)} for card in cards]
        reserve = [c["id"] for c in cards if c["status"] == "reserve"]
        events.append(
            private(
                role,
                "army.chosen",
                f"Your army: {summary['list_name']} ({summary['list']}), {show_points(summary['points'])} points, "
                f"{len(cards)} cards: "
                + ", ".join(f"{c['id']} ({describe(c)}{_named(c)})" for c in cards)
                + (f". Reserve Force: {', '.join(reserve)}." if reserve else ". No Reserve Force."),
            )
        )
        if work["options"]["army_list_public"]:
            events.append(public("army.list", f"{role} fields the {summary['list_name']} list ({summary['list']})."))
    events.append(public("armies", "Both armies are chosen."))
    deployment_roll(work, dice, events)
    work["stage"] = "terrain"
    return work, events


def _named(card: Mapping[str, Any]) -> str:
    return f", '{card['name']}'" if card.get("name") else ""


def deployment_roll(state: dict[str, Any], dice: Dice, events: list[dict[str, Any]]) -> None:
    """Both sides roll; the higher is the High scorer, ties are rolled again (L152; gap G-05)."""
    spec = state["options"]["deployment_dice"]
    for attempt in range(1, 51):
        suffix = "" if attempt == 1 else f"/again-{attempt - 1}"
        totals = {}
        for role in state["roles"]:
            label = f"deploy/{role}{suffix}"
            totals[role] = sum(dice.roll(spec, label=label))
            events.append(
                public("roll", f"{role} rolls for deployment", label=label, purpose=f"deployment roll of {role}")
            )
        first, second = state["roles"]
        shown = f"{first} {totals[first]}, {second} {totals[second]}"
        if totals[first] != totals[second]:
            high, low = (first, second) if totals[first] > totals[second] else (second, first)
            state["high"], state["low"] = high, low
            events.append(
                public(
                    "deployment.roll",
                    f"Deployment roll: {shown}. {low} is the Low scorer: it places the terrain, learns its table "
                    f"side, and deploys first. {high} is the High scorer and takes the first bound of every Round.",
                    high=high,
                    low=low,
                )
            )
            return
        events.append(public("deployment.tie", f"Deployment roll: {shown}, a tie: both roll again."))
    raise AssertionError("fifty ties in a row")


# -- terrain ---------------------------------------------------------------------------------


def terrain_problems(state: Mapping[str, Any], orders: Mapping[str, Any]) -> list[Problem]:
    """Return why the Low scorer's terrain cannot be laid as given."""
    problems = []
    menu = state["options"]["terrain_menu"]
    width, depth = state["options"]["table_mm"]
    for index, feature in enumerate(orders.get("features") or []):
        where = f"orders.features[{index}]"
        if feature["kind"] not in menu:
            problems.append(
                Problem(
                    "illegal.terrain.kind",
                    f"{where}.kind",
                    f"{feature['kind']!r} is not on the menu: {', '.join(menu)}",
                )
            )
        x1, y1, x2, y2 = feature["x1"], feature["y1"], feature["x2"], feature["y2"]
        if not (0 <= x1 < x2 <= width and 0 <= y1 < y2 <= depth):
            problems.append(
                Problem(
                    "illegal.terrain.place",
                    where,
                    f"a feature is a rectangle with 0 <= x1 < x2 <= {width} and 0 <= y1 < y2 <= {depth} (mm)",
                )
            )
    return problems


def terrain_resolve(
    state: Mapping[str, Any], orders: Mapping[str, Any], dice: Dice
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Lay the terrain, then draw the Low scorer's table side by coin or die (L153; gap G-05)."""
    work: dict[str, Any] = thaw(state)
    events: list[dict[str, Any]] = []
    menu = work["options"]["terrain_menu"]
    for index, feature in enumerate(orders.get("features") or [], start=1):
        kind = feature["kind"]
        item = {
            "id": f"T{index}",
            "kind": kind,
            "rect": [feature["x1"], feature["y1"], feature["x2"], feature["y2"]],
            **copy.deepcopy(menu[kind]),
        }
        if kind == "river":
            item["condition"] = "unknown"
        work["terrain"].append(item)
    listed = "; ".join(
        f"{f['id']} {f['kind']} x {f['rect'][0]}-{f['rect'][2]}, y {f['rect'][1]}-{f['rect'][3]}"
        for f in work["terrain"]
    )
    events.append(public("terrain", f"{work['low']} lays out the terrain: {listed or 'an open field'}."))
    method = orders.get("side_by", "coin")
    if method == "die":
        value = dice.roll("1d6", label="side/die")[0]
        south = value % 2 == 1
        shown = f"a die: {value} ({'odd' if south else 'even'})"
        label = "side/die"
    else:
        south = dice.uniform(2, label="side/coin") == 0
        shown = f"a coin: {'heads' if south else 'tails'}"
        label = "side/coin"
    low_edge = "south" if south else "north"
    work["edges"] = {work["low"]: low_edge, work["high"]: enemy_edge(low_edge)}
    events.append(
        public(
            "side",
            f"{work['low']} draws its side with {shown}: its base edge is the {low_edge} edge, "
            f"{work['high']}'s the {enemy_edge(low_edge)} edge (heads or an odd die: south).",
            label=label,
            purpose="the Low scorer's table side",
        )
    )
    work["stage"] = "deploy"
    work["phasing"] = work["low"]
    return work, events


# -- deployment ------------------------------------------------------------------------------


def to_deploy(state: Mapping[str, Any], role: str) -> list[dict[str, Any]]:
    """Return the cards a side deploys (every card not kept in reserve)."""
    return [u for u in units_of(state, role) if u["status"] == "army"]


def deploy_problems(state: Mapping[str, Any], role: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return why a deployment does not put every card face down within 10 cm of the base edge,
    or of the water's edge where the base edge is a shoreline (L154; option shoreline_deployment)."""
    placements = orders.get("place") or []
    problems = placement_problems(
        state, role, placements, to_deploy(state, role), state["edges"][role], DEPLOY_DEPTH, "orders.place"
    )
    shores = shore_strips(state, state["edges"][role])
    if not shores:
        return problems
    kept = []
    for problem in problems:
        index = _place_index(problem.path)
        if problem.code == "illegal.place.zone" and index is not None and index < len(placements):
            item = placements[index]
            area = card_rect(item["x"], item["y"], item.get("facing", TOWARDS[state["edges"][role]]))
            if any(inside(area, shore) for shore in shores):
                continue
        kept.append(problem)
    return kept


def _place_index(path: str) -> int | None:
    head = "orders.place["
    if not path.startswith(head) or not path.endswith("]"):
        return None
    number = path[len(head) : -1]
    return int(number) if number.isdigit() else None


def shore_strips(state: Mapping[str, Any], edge: str) -> list[tuple[int, int, int, int]]:
    """Return the strips within 10 cm of the water's edge of each lake along `edge` (L154): a lake
    that reaches the table's edge there makes that stretch of the base edge a shoreline."""
    if not state["options"].get("shoreline_deployment", False):
        return []
    width, depth = state["options"]["table_mm"]
    strips = []
    for lake in (f for f in state["terrain"] if f["kind"] == "lake"):
        x1, y1, x2, y2 = lake["rect"]
        strip = {
            "south": (x1, y2, x2, y2 + DEPLOY_DEPTH) if y1 <= 0 else None,
            "north": (x1, y1 - DEPLOY_DEPTH, x2, y1) if y2 >= depth else None,
            "west": (x2, y1, x2 + DEPLOY_DEPTH, y2) if x1 <= 0 else None,
            "east": (x1 - DEPLOY_DEPTH, y1, x1, y2) if x2 >= width else None,
        }[edge]
        if strip is not None:
            strips.append(strip)
    return strips


def deploy_resolve(
    state: Mapping[str, Any], role: str, orders: Mapping[str, Any], dice: Dice
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Place a side's cards face down; after the High scorer, Round 1 begins."""
    work: dict[str, Any] = thaw(state)
    events: list[dict[str, Any]] = []
    cards = place(work, role, orders.get("place") or [], work["edges"][role])
    assign_markers(work, cards)
    markers = ", ".join(c["marker"] for c in sorted(cards, key=lambda c: int(c["marker"][1:])))
    events.append(public("deployed", f"{role} deploys {len(cards)} face-down cards: {markers}.", role=role))
    events.append(
        private(role, "deployed.own", "Your markers: " + ", ".join(f"{c['marker']} = {c['id']}" for c in cards) + ".")
    )
    reveal_check(work, events)
    if role == work["low"]:
        work["phasing"] = work["high"]
    else:
        start_round(work, dice, events)
    return work, events
