"""Pace (option pace: skip-idle): a step in which nobody can give an order costs no mail.

A side's bombardment, moves and contact steps, and the morale phase, are adjudicated at once,
within the phase before them, when no army that acts in them can give an order there, or when
every such army sent its orders ahead: a side may send, with its command orders, `later:` orders
for the rest of its half-turn (fire, moves, attacks), which are checked and applied when their
step comes. "Can give an order" is what the referee knows without the table:

- bombardment: the bombardment table is supplied and the army has a gun on the field (with option
  bombardment_range on the referee's table, a gun with an enemy base in range; without it, range is
  on the players' table, so a gun on the field may fire);
- moves: one of the army's generals has Tempo points left, or an order may cost nothing;
- contact: the army has a division with a base free to attack (its brigade moved this turn where
  option attack_needs_move holds) and the enemy a base free to be attacked, or, holding the
  Tempo, an engagement carried over from an earlier turn to fight.

Orders sent ahead that no longer fit when their step comes are dropped, and the step waits for
that army's orders as usual; its player is told why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.polemos_obb.bombardment import can_fire, gun_range
from games.polemos_obb.model import (
    acting_side,
    army_order,
    is_in_play,
    is_standing,
    live_pairs,
    side_of,
    standing_bases,
)
from games.polemos_obb.options import COSTS, game_tables, setting
from games.polemos_obb.table import on_table, outline_of, touching_bases

AHEAD = ("bombardment", "moves", "contact")  # the steps orders may be sent ahead for
AHEAD_KEYS = {"bombardment": ("fire",), "moves": ("moves",), "contact": ("attacks", "engagements", "overrun_generals")}


def skips_idle(state: Mapping[str, Any]) -> bool:
    """Return whether this game adjudicates idle steps at once (option pace)."""
    return bool(setting(state, "pace") == "skip-idle")


def acting_armies(state: Mapping[str, Any]) -> list[str]:
    """Return the armies in play of the side whose half-turn it is."""
    side = acting_side(state)
    return [a for a in army_order(state) if side_of(state, a) == side and is_in_play(state, a)]


def can_order(state: Mapping[str, Any], army: str, kind: str) -> bool:
    """Return whether `army` can give an order of any effect in a step of `kind` (see the module docstring)."""
    if kind == "bombardment":
        return "bombardment" in game_tables(state) and can_fire(state, army)
    if kind == "moves":
        return _has_tp_left(state, army) or _free_orders(state)
    if kind == "contact":
        return _can_fight(state, army)
    return kind in ("bid", "command")


def why_idle(state: Mapping[str, Any], kind: str) -> str:
    """Return, in words, why nobody can give an order in a step of `kind`."""
    if kind == "bombardment":
        if "bombardment" not in game_tables(state):
            return "the bombardment table is not supplied"
        if gun_range(state) is not None:
            return "no gun of this side has an enemy base in range (option bombardment_range)"
        return "no gun of this side is on the field"
    if kind == "moves":
        return "no general of this side has Tempo points left"
    if kind == "contact":
        if on_table(state):
            return "no base of this side free to attack touches an enemy base and no engagement is carried over"
        return "no base of this side is free to attack and no engagement is carried over"
    return "nobody gives orders in it"


def ahead(state: Mapping[str, Any], army: str, kind: str) -> dict[str, Any] | None:
    """Return the orders `army` sent ahead for this turn's step of `kind` in the open half-turn, if any."""
    sent = state.get("later", {}).get(army)
    if not sent or sent["turn"] != state["turn"] or sent["half"] != str(state["step"]).split("-", 1)[0]:
        return None
    orders = sent["orders"].get(kind)
    return dict(orders) if orders is not None else None


def _divisions(state: Mapping[str, Any], army: str) -> list[str]:
    return [d for d in state["armies"][army]["divisions"] if not state["divisions"][d]["spent"]]


def _has_tp_left(state: Mapping[str, Any], army: str) -> bool:
    given = state["allocations"].get(army, {})
    return any(tp - state["tp_spent"].get(general, 0) > 0 for general, tp in given.items())


def _free_orders(state: Mapping[str, Any]) -> bool:
    """Return whether some order costs nothing by itself (a supplied cost of 0 TP)."""
    for source in (COSTS["costs"], state["overlays"].get("order_costs", {})):
        if any(entry["tp"] == 0 for entries in source.values() for entry in entries):
            return True
    return False


def _can_fight(state: Mapping[str, Any], army: str) -> bool:
    mine = set(_divisions(state, army))
    engaged = {b for e in state["engagements"] for p in live_pairs(state, e) for b in p["bases"]}
    if str(state["step"]).startswith("tempo-") and any(
        e["fought_turn"] != state["turn"] and mine & set(e["divisions"]) for e in state["engagements"]
    ):
        return True
    needs_move = state["config"]["attack_needs_move"]
    free = [
        b
        for d in mine
        for b in standing_bases(state, d)
        if b not in engaged and (not needs_move or state["bases"][b]["brigade"] in state["moved"])
    ]
    side = side_of(state, army)
    targets = [
        b
        for d, record in state["divisions"].items()
        if side_of(state, record["army"]) != side and not record["spent"]
        for b in standing_bases(state, d)
        if b not in engaged and is_standing(state, b)
    ]
    if on_table(state) and free and targets:  # an attack opens from contact on the table
        placed = [b for b in targets if "pose" in state["bases"][b]]
        return any(touching_bases(state, outline_of(state, b), placed) for b in free if "pose" in state["bases"][b])
    return bool(free and targets)
