"""Terrain on the table: rectangles of a kind from the game's terrain menu (gap G-06).

A card is in a feature when its centre is; a move meets a feature when the straight path of
its centre does (table geometry may refine both later without changing the rules that ask).
Rivers keep their condition: unknown until the first crossing attempt, then none, normal or
difficult (L253-L261).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.cest_la_guerre.geometry import Vector, contains_point, segment_hits

GOING_ORDER = {"good": 0, "bad": 1, "impassable": 2}
CROSSINGS = ("ford", "bridge")
LIVE_RIVER = ("normal", "difficult")


Box = tuple[float, float, float, float]  # (x1, y1, x2, y2): terrain features are rectangles


def rect(feature: Mapping[str, Any]) -> Box:
    """Return a feature's rectangle."""
    x1, y1, x2, y2 = feature["rect"]
    return x1, y1, x2, y2


def centre(unit: Mapping[str, Any]) -> Vector:
    """Return a placed card's centre."""
    return unit["x"], unit["y"]


def features_at(state: Mapping[str, Any], point: Vector) -> list[dict[str, Any]]:
    """Return the features that hold `point`."""
    return [f for f in state["terrain"] if contains_point(rect(f), point)]


def features_on_path(state: Mapping[str, Any], start: Vector, end: Vector) -> list[dict[str, Any]]:
    """Return the features the straight path from start to end meets."""
    return [f for f in state["terrain"] if segment_hits(start, end, rect(f))]


def going_at(state: Mapping[str, Any], point: Vector) -> str:
    """Return the going at a point: good, bad or impassable (the worst feature there)."""
    worst = "good"
    for feature in features_at(state, point):
        if GOING_ORDER[feature["going"]] > GOING_ORDER[worst]:
            worst = feature["going"]
    return worst


def in_bad_going(state: Mapping[str, Any], unit: Mapping[str, Any]) -> bool:
    """Return whether a card stands in bad going for combat modifiers (a river never counts, L263)."""
    return going_at(state, centre(unit)) == "bad"


def river_under(state: Mapping[str, Any], unit: Mapping[str, Any]) -> dict[str, Any] | None:
    """Return the live river (Normal or Difficult) a card stands in, away from fords and bridges."""
    here = features_at(state, centre(unit))
    if any(f["kind"] in CROSSINGS for f in here):
        return None
    return next((f for f in here if f["kind"] == "river" and f.get("condition") in LIVE_RIVER), None)


def in_bad_going_for_outcome(state: Mapping[str, Any], unit: Mapping[str, Any]) -> bool:
    """Return whether the Combat Outcome Chart reads a card as in bad going (rivers count, L267)."""
    return in_bad_going(state, unit) or river_under(state, unit) is not None


def elevation(state: Mapping[str, Any], unit: Mapping[str, Any]) -> int:
    """Return the height of the ground under a card (hills from the terrain menu)."""
    return max((int(f.get("elevation", 0)) for f in features_at(state, centre(unit))), default=0)


def in_fortification(state: Mapping[str, Any], unit: Mapping[str, Any], min_length: int) -> bool:
    """Return whether a card stands in a completed field fortification (gap G-43: long enough)."""
    for feature in features_at(state, centre(unit)):
        x1, y1, x2, y2 = rect(feature)
        if feature["kind"] == "fortification" and max(x2 - x1, y2 - y1) >= min_length:
            return True
    return False


def los_clear(state: Mapping[str, Any], start: Vector, end: Vector) -> bool:
    """Return whether no sight-blocking feature lies between two points.

    A feature holding either end does not block: troops inside woods or a village see out (L315).
    """
    for feature in features_on_path(state, start, end):
        if feature["los_block"] and not contains_point(rect(feature), start) and not contains_point(rect(feature), end):
            return False
    return True


def rivers_crossed(state: Mapping[str, Any], start: Vector, end: Vector) -> list[dict[str, Any]]:
    """Return the rivers a move's path meets away from a ford or bridge, in terrain order."""
    met = features_on_path(state, start, end)
    if any(f["kind"] in CROSSINGS for f in met):
        return []
    return [f for f in met if f["kind"] == "river"]


def path_going(state: Mapping[str, Any], start: Vector, end: Vector) -> str:
    """Return the worst going a move's path meets (gap G-41: the most restrictive applies)."""
    worst = "good"
    for feature in features_on_path(state, start, end):
        if GOING_ORDER[feature["going"]] > GOING_ORDER[worst]:
            worst = feature["going"]
    return worst


def whole_path_on_road(state: Mapping[str, Any], start: Vector, end: Vector) -> bool:
    """Return whether one road holds the whole path (gap G-42: only then the road rate)."""
    return any(
        f["kind"] == "road" and contains_point(rect(f), start) and contains_point(rect(f), end)
        for f in state["terrain"]
    )
