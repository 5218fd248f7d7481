"""Putting cards on the table: deployment (L154) and a Reserve Force's arrival (L169).

Both take a list of placements {unit, x, y, facing}; every card lands face down. A facing is a
compass bearing in degrees or a compass word, at any angle; the card must lie wholly in its zone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.cest_la_guerre.geometry import (
    COMPASS,
    card_rect,
    describe_facing,
    facing_of,
    is_facing,
    kept_facing,
    overlaps,
    rect_of,
)
from games.cest_la_guerre.terrain import going_at
from games.cest_la_guerre.units import find, placed
from games.cest_la_guerre.zones import TOWARDS, in_strip, on_table
from referee.kit import Problem

Unit = dict[str, Any]


def placement_problems(
    state: Mapping[str, Any],
    role: str,
    placements: Sequence[Mapping[str, Any]],
    expected: Sequence[Mapping[str, Any]],
    edge: str,
    depth: int,
    path: str,
) -> list[Problem]:
    """Return why `placements` do not put exactly the `expected` cards face down within `depth` of `edge`.

    A placement without a facing faces away from its edge, into the table.
    """
    problems: list[Problem] = []
    wanted = {card["id"] for card in expected}
    seen: set[str] = set()
    rects: list[tuple[str, Any]] = [(u["marker"], rect_of(u)) for u in placed(state)]
    for index, item in enumerate(placements):
        where = f"{path}[{index}]"
        card = find(state, role, item["unit"])
        if card is None or card["id"] not in wanted:
            problems.append(
                Problem(
                    "illegal.place.unit",
                    f"{where}.unit",
                    f"{item['unit']!r} is not one of the cards to place here; they are: {', '.join(sorted(wanted))}",
                )
            )
            continue
        if card["id"] in seen:
            problems.append(Problem("illegal.place.twice", f"{where}.unit", f"{card['id']} is placed twice"))
            continue
        seen.add(card["id"])
        facing = item.get("facing", TOWARDS[edge])
        if not is_facing(facing):
            problems.append(
                Problem(
                    "illegal.place.facing",
                    f"{where}.facing",
                    f"facing is a bearing in degrees (0 north, 90 east) or one of {', '.join(COMPASS)}",
                )
            )
            continue
        rect = card_rect(item["x"], item["y"], facing_of(facing))
        if not on_table(state, rect):
            problems.append(
                Problem("illegal.place.table", where, f"{card['id']} at ({item['x']}, {item['y']}) is off the table")
            )
        elif not in_strip(state, rect, edge, depth):
            problems.append(
                Problem(
                    "illegal.place.zone",
                    where,
                    f"{card['id']} must lie wholly within {depth} mm of the {edge} edge "
                    f"(its card spans x {_span(rect.bounds[0], rect.bounds[2])}, "
                    f"y {_span(rect.bounds[1], rect.bounds[3])})",
                )
            )
        elif going_at(state, (item["x"], item["y"])) == "impassable":
            problems.append(Problem("illegal.place.terrain", where, f"{card['id']} would stand in impassable terrain"))
        for other, other_rect in rects:
            if overlaps(rect, other_rect):
                problems.append(Problem("illegal.place.overlap", where, f"{card['id']} would overlap {other}"))
                break
        rects.append((card["id"], rect))
    missing = sorted(wanted - seen)
    if missing:
        problems.append(Problem("illegal.place.missing", path, f"place every card: missing {', '.join(missing)}"))
    return problems


def place(state: dict[str, Any], role: str, placements: Sequence[Mapping[str, Any]], edge: str) -> list[Unit]:
    """Put the cards on the table face down, by default facing away from `edge`; return them."""
    cards = []
    for item in placements:
        card = find(state, role, item["unit"])
        assert card is not None
        card.update(
            status="table",
            x=item["x"],
            y=item["y"],
            facing=kept_facing(item.get("facing", TOWARDS[edge])),
            face_up=False,
        )
        cards.append(card)
    return cards


def suggest(
    state: Mapping[str, Any], cards: Sequence[Mapping[str, Any]], edge: str, depth: int, facing: Any
) -> list[dict[str, Any]]:
    """Return placements that fit: rows along `edge` filled from the middle outwards (the first
    cards, commanders in list order, in the centre), skipping impassable ground and other cards."""
    width, length = state["options"]["table_mm"]
    taken = [rect_of(u) for u in placed(state)]
    along_x = edge in ("south", "north")
    span = width if along_x else length
    ranked: list[tuple[int, int, int, int]] = []
    facing = describe_facing(facing) if describe_facing(facing) in COMPASS else kept_facing(facing)
    for row_index, row in enumerate(15 + 35 * k for k in range(max(1, (depth + 5) // 35))):
        for step in range(30, span - 25, 55):
            x, y = {
                "south": (step, row),
                "north": (step, length - row),
                "west": (row, step),
                "east": (width - row, step),
            }[edge]
            ranked.append((row_index, abs(step - span // 2), x, y))
    spots = [(x, y) for _, _, x, y in sorted(ranked)]
    placements = []
    for card in cards:
        for x, y in spots:
            rect = card_rect(x, y, facing_of(facing))
            if (
                on_table(state, rect)
                and in_strip(state, rect, edge, depth)
                and going_at(state, (x, y)) != "impassable"
                and not any(overlaps(rect, other) for other in taken)
            ):
                placements.append({"unit": card["id"], "x": x, "y": y, "facing": facing})
                taken.append(rect)
                spots.remove((x, y))
                break
    return placements


def _span(low: float, high: float) -> str:
    return f"{round(low, 1):g}-{round(high, 1):g}"
