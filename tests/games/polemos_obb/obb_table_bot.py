"""A plain-minded player of the three-army game on the referee's table, reading only its view.

Each turn it spends its Tempo points on every division whose general can give orders, those
touching the enemy first (an attack is the end of a move, so a base in contact needs a move order
to attack from where it stands), then the nearest to the enemy; each group of brigades standing
within 1BW of each other (L237) goes on one order (as many of its brigades as the TP left pay for)
toward the nearest enemy base ahead, horse charging what it can reach (+1BW, L255). Guns move up
while the enemy is more than 4BW away and fire at the nearest enemy base. In the contact phase
every division with bases that moved and whose front touches an enemy attacks, pairing each base
with an enemy its front touches or reaches as the line conforms (L382).

A phase's orders are a generator: it yields the orders it would send, and is sent back the
referee's refusal (the problems' paths and words) when there is one, as a player reads a refusal
and sends a corrected file: the order or pair named is taken back a step (a shorter move, no move,
no pair) and the rest kept.
"""

from __future__ import annotations

import math
import re
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

from test_obb_game import bot_orders

from referee.kit.tabletop import Pose, Size, heading, in_front_of, outline, pose_from, side_touched, touching

TOUCH_MM = 1.0  # bases this close touch, as the referee reads the table
MOST_ON_ONE_ORDER = 6  # the cost table's largest group (the form lists 1 to 6 brigades)
GUNS_MOVE_UP_BW = 4  # guns farther than this from the enemy move up (the book's ranges are missing)
Orders = Generator[dict[str, Any], list[tuple[str, str]], None]


@dataclass(frozen=True)
class Base:
    id: str
    brigade: str
    division: str
    army: str
    kind: str  # foot, horse, guns
    pose: Pose
    size: Size

    def shape(self, pose: Pose | None = None) -> Any:
        return outline(pose or self.pose, self.size)


class Table:
    """The field as the view shows it: every standing base, whose side it is on, what is engaged."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.view = view
        self.bw = float(view["table"]["bw_mm"])
        self.me = view["your_army"]
        side = {a["id"]: a["side"] for a in view["armies"]}
        self.enemy_armies = {a for a, s in side.items() if s != side[self.me]}
        self.engaged = {b for e in view["engagements"] for p in e["pairs"] for b in p["bases"]}
        self.bases: dict[str, Base] = {}
        for division in view["divisions"]:
            if division["spent"]:
                continue
            for brigade in division["brigades"]:
                for base in brigade["bases"]:
                    if base["state"] in ("fresh", "shaken") and "pose" in base:
                        kind = _kind(base["type"])
                        size = Size(self.bw / 2 if kind == "guns" else self.bw, self.bw / 2)
                        self.bases[base["id"]] = Base(
                            base["id"], brigade["id"], division["id"], division["army"], kind,
                            pose_from(base["pose"]), size,
                        )  # fmt: skip

    def enemies(self) -> list[Base]:
        return [b for b in self.bases.values() if b.army in self.enemy_armies]

    def mine(self, division: str) -> list[Base]:
        return [b for b in self.bases.values() if b.division == division]

    def touching(self, base: Base) -> list[Base]:
        shape = base.shape()
        return [e for e in self.enemies() if touching(shape, e.shape(), TOUCH_MM)]

    def facing(self, base: Base) -> list[Base]:
        """The enemy bases touching the base's front: those it may attack."""
        return [e for e in self.touching(base) if side_touched(base.pose, base.size, e.shape(), TOUCH_MM) == "front"]

    def nearest_enemy(self, base: Base, free_only: bool = True) -> tuple[float, Base] | None:
        """The nearest enemy base (free of any fight), the nearest ahead of it if there is one."""
        found = [
            (base.shape().distance(e.shape()), not in_front_of(base.pose, base.size, e.shape()), e)
            for e in self.enemies()
            if not free_only or e.id not in self.engaged
        ]
        nearest = min(found, key=lambda f: (f[1], f[0], f[2].id), default=None)
        return (nearest[0], nearest[2]) if nearest else None


def _kind(base_type: str) -> str:
    if base_type.endswith("artillery"):
        return "guns"
    return "horse" if base_type in ("horse", "cuirassiers", "german-horse", "dragoons", "hussars") else "foot"


def table_orders(view: dict[str, Any]) -> dict[str, Any] | Orders:
    """The orders for the open phase: a generator of tries in the phases on the table, else the
    plain orders of test_obb_game's bot (bids)."""
    phase = view["phase"]
    if phase.endswith("command"):
        return _command(view)
    if phase.endswith("bombardment"):
        return _fire(view)
    if phase.endswith("moves"):
        return _moves(view)
    if phase.endswith("contact"):
        return _contact(view)
    return bot_orders(view)


# -- command: Tempo points to every division that can use them ------------------------------------


def _ready_divisions(view: dict[str, Any]) -> list[dict[str, Any]]:
    """My divisions on the field whose general may give orders this turn."""
    generals = {g["id"]: g for g in view["generals"]}
    return [
        d
        for d in view["divisions"]
        if d["army"] == view["your_army"]
        and not d["spent"]
        and generals[d["commander"]]["status"] == "active"
        and generals[d["commander"]]["no_orders_until"] < view["turn"]
    ]


def _groups(table: Table, division: str) -> list[list[str]]:
    """The division's brigades on the field, not fighting, in groups standing within 1BW of each
    other (L237), at most six a group; in order of battle."""
    free = [b for b in table.mine(division) if b.id not in table.engaged]
    brigades: dict[str, list[Base]] = {}
    for base in free:
        brigades.setdefault(base.brigade, []).append(base)
    # a brigade with a base fighting stays with its fight
    brigades = {
        k: v
        for k, v in brigades.items()
        if not any(b.id in table.engaged for b in table.mine(division) if b.brigade == k)
    }
    groups: list[list[str]] = []
    left = list(brigades)
    while left:
        group = [left.pop(0)]
        grew = True
        while grew:
            near = [
                k
                for k in left
                if any(
                    a.shape().distance(b.shape()) <= table.bw for j in group for a in brigades[j] for b in brigades[k]
                )
            ]
            grew = bool(near)
            for k in near:
                left.remove(k)
            group += near
        groups += [group[i : i + MOST_ON_ONE_ORDER] for i in range(0, len(group), MOST_ON_ONE_ORDER)]
    return groups


def _cost(brigades: int) -> int:
    return brigades + 1  # the form's costs: 1 brigade 2 TP, 2 brigades 3 TP, ... (the book's 2 and 5)


def _plans(view: dict[str, Any], table: Table) -> list[tuple[float, str, str, list[str]]]:
    """Every group's claim on the Tempo points: (urgency, commander, division, brigades), most urgent
    first: a group touching the enemy (it stands and attacks), then by distance to the enemy."""
    plans = []
    for division in _ready_divisions(view):
        for group in _groups(table, division["id"]):
            bases = [b for b in table.mine(division["id"]) if b.brigade in group]
            guns = all(b.kind == "guns" for b in bases)
            if any(table.touching(b) for b in bases):
                if guns:
                    continue  # guns do not attack: they stand
                urgency = -1.0
            else:
                nearest = [n for b in bases if (n := table.nearest_enemy(b, free_only=False))]
                if not nearest:
                    continue
                urgency = min(d for d, _ in nearest)
                if guns:
                    if urgency < GUNS_MOVE_UP_BW * table.bw:
                        continue  # near enough: they stand and fire
                    urgency += table.view["table"]["width_mm"]  # paid for after the foot and horse
            plans.append((urgency, division["commander"], division["id"], group))
    return sorted(plans, key=lambda p: p[0])


def _command(view: dict[str, Any]) -> Orders:
    table = Table(view)
    army = next(a for a in view["armies"] if a["id"] == view["your_army"])
    left = army["tp"]
    given: dict[str, int] = {}
    for _, commander, _, group in _plans(view, table):
        pay = min(_cost(len(group)), left)  # too few for the whole group: its first brigades
        if pay >= _cost(1):
            given[commander] = given.get(commander, 0) + pay
            left -= pay
    rally = [
        {"base": b["id"]}
        for d in view["divisions"]
        if d["army"] == view["your_army"] and not d["spent"]
        for br in d["brigades"]
        for b in br["bases"]
        if b["state"] == "shaken"
    ]
    orders: dict[str, Any] = {"allocate": [{"general": g, "tp": tp} for g, tp in given.items()], "rally": rally}
    yield from _corrected(orders)


def _corrected(orders: dict[str, Any]) -> Orders:
    """Yield `orders`, then, each time one is refused, the same without the entries the refusal names."""
    while True:
        problems = yield orders
        named = _named(problems)
        if not named:
            return
        orders = {k: [e for i, e in enumerate(v) if (k, i) not in named] for k, v in orders.items()}


def _named(problems: Sequence[tuple[str, str]]) -> set[tuple[str, int]]:
    """The (key, index) of each order entry a refusal names ("orders.moves[2].steps")."""
    return {(m.group(1), int(m.group(2))) for path, _ in problems if (m := re.match(r"orders\.(\w+)\[(\d+)\]", path))}


# -- bombardment: every gun fires at the nearest enemy base ----------------------------------------


def _fire(view: dict[str, Any]) -> Orders:
    table = Table(view)
    fire = []
    for gun in sorted((b for b in table.bases.values() if b.army == table.me and b.kind == "guns"), key=lambda b: b.id):
        nearest = table.nearest_enemy(gun)
        if nearest:
            fire.append({"battery": gun.id, "target": nearest[1].id})
    yield from _corrected({"fire": fire} if fire else {})


# -- moves: every group with Tempo points toward the enemy ------------------------------------------


def _moves(view: dict[str, Any]) -> Orders:
    table = Table(view)
    army = next(a for a in view["armies"] if a["id"] == view["your_army"])
    budget = {g: v["given"] - v["spent"] for g, v in army["allocated"].items()}
    formation = {d["id"]: d.get("formation", "deployed") for d in view["divisions"]}
    tries: list[list[dict[str, Any]]] = []  # each order's versions, the boldest first
    for _, commander, division, whole in _plans(view, table):
        group = whole[: max(budget.get(commander, 0) - 1, 0)]  # as many brigades as the general's TP pay for
        if not group:
            continue
        budget[commander] -= _cost(len(group))
        bases = [b for b in table.mine(division) if b.brigade in group]
        stand = {"order": "move", "brigades": group}
        tries.append([*_steps(table, bases, formation[division], stand), stand])
    chosen = [0] * len(tries)
    while True:
        orders = {"moves": [versions[k] for versions, k in zip(tries, chosen, strict=True)]} if tries else {}
        problems = yield orders
        named = {i for key, i in _named(problems) if key == "moves"}
        if not named:
            return
        for i in named:
            if chosen[i] + 1 < len(tries[i]):
                chosen[i] += 1
            else:
                tries[i], chosen[i] = [], 0
        keep = [i for i, versions in enumerate(tries) if versions]
        tries, chosen = [tries[i] for i in keep], [chosen[i] for i in keep]


def _rate(table: Table, bases: Sequence[Base], formation: str) -> float:
    """How far the group moves (L249-L265): a column 4BW, guns alone 1BD (limbered, as baggage), else 1BW."""
    if any(b.kind == "guns" for b in bases):
        return table.bw / 2
    return table.bw * (4 if formation == "defile" else 1)


def _steps(table: Table, bases: Sequence[Base], formation: str, stand: dict[str, Any]) -> list[dict[str, Any]]:
    """The group's moves to try, boldest first: a charge home, a slide toward the nearest enemy base,
    straight ahead half and a quarter as far; none when it touches an enemy already (it stands)."""
    if any(table.touching(b) for b in bases):
        return []
    lead = bases[0]
    nearest = table.nearest_enemy(lead)
    if nearest is None:
        return []
    rate = _rate(table, bases, formation)
    enemy = nearest[1]
    hx, hy = heading(lead.pose.facing)
    # the lead base's front against the enemy's nearer face
    depth = (lead.size.depth + enemy.size.depth) / 2
    goal = (enemy.pose.x - hx * depth, enemy.pose.y - hy * depth)
    way = (goal[0] - lead.pose.x, goal[1] - lead.pose.y)
    length = math.hypot(*way)
    tries = []
    if all(b.kind == "horse" for b in bases) and 0 < length <= rate + table.bw - 1:
        tries.append({**stand, "charge": True, "steps": [{"to": [round(goal[0]), round(goal[1])]}]})
    if length >= 1:
        share = min(1.0, (rate - 1) / length)
        end = (lead.pose.x + way[0] * share, lead.pose.y + way[1] * share)
        tries.append({**stand, "steps": [{"to": [round(end[0]), round(end[1])]}]})
    ahead = [int(rate - 1), int(rate / 2), int(rate / 4)]
    tries += [{**stand, "steps": [{"advance": a}]} for a in ahead if a > 0]
    return tries


# -- contact: every division touching the enemy attacks ----------------------------------------------


def _contact(view: dict[str, Any]) -> Orders:
    table = Table(view)
    moved = set(view["moved_this_turn"])
    attacks = []
    taken: set[str] = set()
    fighting = {d for e in view["engagements"] for d in e["divisions"]}
    for division in (d for d in view["divisions"] if d["army"] == table.me and not d["spent"]):
        ready = [
            b
            for b in table.mine(division["id"])
            if b.brigade in moved and b.id not in table.engaged and b.kind != "guns"
        ]
        if not ready or division["id"] in fighting:
            continue
        touched: dict[str, list[list[str]]] = {}
        for base in ready:
            for enemy in table.facing(base):
                if enemy.id not in table.engaged and enemy.id not in taken:
                    touched.setdefault(enemy.division, []).append([base.id, enemy.id])
        if not touched:
            continue
        target = max(sorted(touched), key=lambda t: len(touched[t]))
        pairs, used = [], set()
        for own, enemy in touched[target]:
            if own not in used and enemy not in used:
                pairs.append([own, enemy])
                used |= {own, enemy}
        # the rest of the line conforms onto the target's other bases, up to 2BW (L382)
        for base in ready:
            if base.id in used:
                continue
            near = [
                (base.shape().distance(e.shape()), e.id)
                for e in table.enemies()
                if e.division == target
                and e.id not in used | table.engaged | taken
                and in_front_of(base.pose, base.size, e.shape())
            ]
            distance, enemy_id = min(near, default=(math.inf, ""))
            if distance <= 1.5 * table.bw:
                pairs.append([base.id, enemy_id])
                used |= {base.id, enemy_id}
        taken |= used
        attacks.append({"division": division["id"], "target": target, "pairs": pairs})
    orders = {"attacks": attacks} if attacks else {}
    while True:
        problems = yield orders
        if not problems:
            return
        bad_pairs = {
            (int(m.group(1)), int(m.group(2)))
            for path, _ in problems
            if (m := re.match(r"orders\.attacks\[(\d+)\]\.pairs\[(\d+)\]", path))
        }
        # an attack refused as a whole (no contact) goes; a refused pair goes, the rest of its attack stays
        bad_attacks = {i for key, i in _named(problems) if key == "attacks"} - {i for i, _ in bad_pairs}
        kept = []
        for i, attack in enumerate(orders.get("attacks", [])):
            pairs = [p for j, p in enumerate(attack["pairs"]) if (i, j) not in bad_pairs]
            if i not in bad_attacks and pairs:
                kept.append({**attack, "pairs": pairs})
        if kept == orders.get("attacks", []):
            kept = kept[:-1]  # the refusal named nothing to take back: the last attack goes
        orders = {"attacks": kept} if kept else {}
