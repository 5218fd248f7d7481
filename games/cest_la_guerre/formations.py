"""What one Initiative Point moves: a Command Group, a Column or a Line (L186-L206).

All three are read from the poses at the start of the bound (gap G-03) and checked here; the
movement rules then move their cards one by one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.cest_la_guerre.data import CHARTS
from games.cest_la_guerre.geometry import TOUCH_MM, along, left_of, rect_of, within
from games.cest_la_guerre.relations import directly_behind, side_by_side
from games.cest_la_guerre.units import is_artillery, is_commander, is_on_table, units_of

Unit = dict[str, Any]


def command_range(unit: Mapping[str, Any]) -> int:
    """Return a commander's command range in mm, from the edge of its card (0: base contact)."""
    return int(CHARTS["command_ranges"][unit["type"]][unit["grade"]])


def commands(commander: Mapping[str, Any], unit: Mapping[str, Any]) -> bool:
    """Return whether `unit` is at least partly within `commander`'s command range."""
    reach = command_range(commander) or TOUCH_MM
    return within(rect_of(commander), rect_of(unit), reach)


def command_group(state: Mapping[str, Any], commander: Mapping[str, Any]) -> list[Unit]:
    """Return the cards of a commander's group: itself, the cards in range, and the whole of any
    Column or Line that is partly in range (L193-L200)."""
    options = state["options"]
    if not is_commander(commander) or not is_on_table(commander):
        return []
    if not commander["face_up"] and not options["face_down_commanders_command"]:
        return []
    own = [u for u in units_of(state, commander["owner"]) if is_on_table(u)]
    members = {id(u): u for u in own if u is commander or commands(commander, u)}
    for unit in list(members.values()):
        for formation in (column_through(state, unit), line_through(state, unit)):
            for other in formation:
                members[id(other)] = other
    if not options["commander_moves_with_group"]:
        members.pop(id(commander), None)
    return [u for u in own if id(u) in members]


def in_any_group(state: Mapping[str, Any], unit: Mapping[str, Any]) -> bool:
    """Return whether a card belongs to any of its side's Command Groups."""
    return any(
        unit in command_group(state, commander)
        for commander in units_of(state, unit["owner"])
        if is_commander(commander) and commander is not unit
    )


def column_problem(state: Mapping[str, Any], cards: Sequence[Mapping[str, Any]]) -> str | None:
    """Return why the cards, front to back, are not a Column (L204), or None if they are."""
    if len(cards) < 2:
        return "a Column has at least 2 cards"
    if state["options"]["column_excludes_engineers"] and any(c["type"] == "engineers" for c in cards):
        return "Combat Engineers may not be part of a Column"
    for front, rear in zip(cards, cards[1:], strict=False):
        if directly_behind(state, front) is not rear:
            return f"{rear['marker']} is not lined up directly behind {front['marker']}, facing the same way"
    return None


def line_problem(state: Mapping[str, Any], cards: Sequence[Mapping[str, Any]]) -> str | None:
    """Return why the cards are not a Line (L206), or None if they are."""
    if len(cards) < 3:
        return "a Line has at least 3 cards"
    first = cards[0]
    if any(is_artillery(c) or c["type"] in ("engineers", "dummy") for c in cards):
        return "Artillery and Combat Engineers may not form a Line"
    same = ("type", "grade") if state["options"]["line_same"] == "type_and_grade" else ("type",)
    if any(any(c[key] != first[key] for key in same) for c in cards):
        return "a Line's cards must all be of the same " + " and ".join(same)
    side = left_of(first["facing"])
    ordered = sorted(cards, key=lambda c: along((c["x"], c["y"]), side))
    for a, b in zip(ordered, ordered[1:], strict=False):
        if not side_by_side(a, b):
            return f"{a['marker']} and {b['marker']} are not side by side, front corners touching, facing the same way"
    return None


def column_through(state: Mapping[str, Any], unit: Mapping[str, Any]) -> list[Unit]:
    """Return the Column a card stands in (front to back), or [] when it stands in none."""
    if unit["type"] == "engineers" and state["options"]["column_excludes_engineers"]:
        return []
    front: Mapping[str, Any] = unit
    for _ in range(len(state["units"])):
        ahead = next(
            (u for u in units_of(state, unit["owner"]) if is_on_table(u) and directly_behind(state, u) is front), None
        )
        if ahead is None:
            break
        front = ahead
    chain: list[Unit] = [front]  # type: ignore[list-item]
    while len(chain) <= len(state["units"]):
        behind = directly_behind(state, chain[-1])
        if behind is None:
            break
        chain.append(behind)
    return chain if len(chain) >= 2 and column_problem(state, chain) is None else []


def _may_line_with(state: Mapping[str, Any], unit: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    """Return whether `other` could stand in one Line with `unit` (same type, and grade if the option says)."""
    if is_artillery(other) or other["type"] in ("engineers", "dummy"):
        return False
    same = ("type", "grade") if state["options"]["line_same"] == "type_and_grade" else ("type",)
    return all(other[key] == unit[key] for key in same)


def line_through(state: Mapping[str, Any], unit: Mapping[str, Any]) -> list[Unit]:
    """Return the Line a card stands in, or [] when it stands in none.

    The Line is the row of cards that may form one with it; another card of the side touching an
    end of the row (a General, a different type) is not part of it and does not break it (L206).
    """
    if not _may_line_with(state, unit, unit):
        return []
    row: list[Unit] = [unit]  # type: ignore[list-item]
    grew = True
    while grew:
        grew = False
        for other in units_of(state, unit["owner"]):
            if (
                is_on_table(other)
                and other not in row
                and any(side_by_side(m, other) for m in row)
                and _may_line_with(state, unit, other)
            ):
                row.append(other)
                grew = True
    return row if len(row) >= 3 and line_problem(state, row) is None else []
