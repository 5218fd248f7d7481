"""What each player sees, built field by field (house rule 3).

Everything on the table is public: the order of battle, base states, generals, engagements,
Tempo points (the income dice are in the public record) and last turn's revealed bids. A
player's standing orders are seen by that player alone. Bids are never in the state before
the auction is adjudicated, so no view can show one early.

`secrets` lists, for the contract tests' leak test, the only hidden leaves of the state: each
army's standing orders, which its own player alone may see. A defender response round shows
what a base's standing order made it do; its encounter event says so (`reveals`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.polemos_obb.model import army_of_player, army_order, is_in_play, json_pointer
from games.polemos_obb.supplies import outstanding, supplied
from games.polemos_obb.table import mounts_pose
from referee.kit import Secret
from referee.kit.tabletop import to_state


def view(state: Mapping[str, Any], player: str | None) -> dict[str, Any]:
    """Return what `player` (None: the public) may see of the battle."""
    army = army_of_player(state, player) if player else None
    return {
        "game": "polemos-obb",
        "scenario": state["scenario"],
        "title": state["title"],
        "you": player,
        "your_army": army,
        "turn": state["turn"],
        "phase": state["step"],
        "over": state["over"],
        "result": state["result"],
        "tempo_side": state["tempo"]["side"],
        "tempo_by_turn": list(state["tempo"]["by_turn"]),
        "last_auction": state["last_auction"],
        "sides": [{"id": s["id"], "title": s["title"], "armies": list(s["armies"])} for s in state["sides"]],
        "armies": [_army(state, a) for a in army_order(state)],
        "generals": [_general(state, g) for g in sorted(state["generals"])],
        "divisions": [_division(state, d) for a in army_order(state) for d in state["armies"][a]["divisions"]],
        "engagements": [_engagement(e) for e in state["engagements"]],
        "moved_this_turn": list(state["moved"]),
        "broken_this_turn": list(state["broken_this_turn"]),
        "your_standing_orders": dict(state["standing"].get(army, {})) if army else None,
        **({"your_orders_ahead": state["later"].get(army)} if army and "later" in state else {}),
        "settings": dict(state["config"]),
        "referee_supplied": supplied(state),
        "missing": outstanding(state),
        "ignored_options": list(state["ignored_options"]),
        **_table(state),
    }


def _table(state: Mapping[str, Any]) -> dict[str, Any]:
    """The referee's table (option battlefield: table): public, as everything on it is."""
    if "table" not in state:
        return {}
    table = state["table"]
    keys = ("bw_mm", "width_mm", "depth_mm")
    return {"table": {**{k: table[k] for k in keys}, "terrain": [dict(p) for p in table["terrain"]]}}


def _army(state: Mapping[str, Any], army: str) -> dict[str, Any]:
    record = state["armies"][army]
    allocations = state["allocations"].get(army, {})
    return {
        "id": army,
        "title": record["title"],
        "side": record["side"],
        "player": record["player"],
        "c_in_c": record["c_in_c"],
        "in_person": record["in_person"],
        "tp": record["tp"],
        "allocated": {g: {"given": tp, "spent": state["tp_spent"].get(g, 0)} for g, tp in allocations.items()},
        "cmf": record["cmf"],
        "cmf_lost": record["cmf_lost"],
        "exhausted": record["exhausted"],
        "in_play": is_in_play(state, army),
    }


def _general(state: Mapping[str, Any], general: str) -> dict[str, Any]:
    record = state["generals"][general]
    keys = ("name", "rank", "grade", "army", "division", "status", "with_base", "no_move_turn", "no_orders_until")
    shown = {"id": general, **{k: record[k] for k in keys}, "successor_due": record["successor_due"]}
    return {**shown, "pose": dict(record["pose"])} if "pose" in record else shown


def _division(state: Mapping[str, Any], division: str) -> dict[str, Any]:
    record = state["divisions"][division]
    return {
        "id": division,
        "title": record["title"],
        "army": record["army"],
        "commander": record["commander"],
        "line": record["line"],
        "bases_at_start": record["bases_at_start"],
        "spent": record["spent"],
        **({"formation": record["formation"]} if "formation" in record else {}),
        **({"left_with_army": True} if record.get("left_with_army") else {}),
        "brigades": [
            {"id": b, "bases": [_base(state, x) for x in state["brigades"][b]["bases"]]} for b in record["brigades"]
        ],
    }


def _base(state: Mapping[str, Any], base: str) -> dict[str, Any]:
    record = state["bases"][base]
    keys = ("type", "class", "school", "nationality", "state", "followed_up")
    shown = {"id": base, **{k: record[k] for k in keys}}
    for flag in ("dismounted", "limbered"):
        if flag in record:
            shown[flag] = record[flag]
    if "pose" in record:
        shown["pose"] = dict(record["pose"])
        mounts = mounts_pose(state, base)
        if mounts is not None:
            shown["mounts"] = to_state(mounts)
    return shown


def _engagement(engagement: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": engagement["id"],
        "divisions": list(engagement["divisions"]),
        "launched_by": engagement["launched_by"],
        "started": engagement["started"],
        "pairs": [{"bases": list(p["bases"]), "in_contact": p["contact"]} for p in engagement["pairs"]],
        "support": {b: list(s) for b, s in engagement["support"].items()},
    }


def secrets(state: Mapping[str, Any]) -> list[Secret]:
    """Return each leaf of every army's standing orders (a JSON pointer), seen by its player alone."""
    found: list[Secret] = []
    for army, standing in state["standing"].items():
        player = (state["armies"][army]["player"],)
        found.append((json_pointer("standing", army, "respond"), player))
        found += [(json_pointer("standing", army, "bases", base), player) for base in standing["bases"]]
        found += [(json_pointer("standing", army, "support", base), player) for base in standing.get("support", {})]
    for army, sent in state.get("later", {}).items():
        found += [
            (pointer, (state["armies"][army]["player"],))
            for pointer in _leaves(sent["orders"], "later", army, "orders")
        ]
    return found


def _leaves(value: Any, *path: str) -> list[str]:
    """Return the JSON pointers of every leaf under `value`, found at `path`."""
    if isinstance(value, Mapping):
        return [p for key, item in value.items() for p in _leaves(item, *path, str(key))]
    if isinstance(value, list):
        return [p for index, item in enumerate(value) for p in _leaves(item, *path, str(index))]
    return [json_pointer(*path)]
