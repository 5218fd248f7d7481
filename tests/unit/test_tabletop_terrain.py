"""Terrain pieces on the tabletop (referee.kit.tabletop.terrain): read from plain data, crossed by moves."""

from __future__ import annotations

from typing import Any

import pytest
from shapely.geometry import LineString

from referee.errors import GameDataError
from referee.kit import tabletop
from referee.kit.tabletop import Pose, Size
from referee.kit.tabletop.terrain import footprint

TERRAIN: list[dict[str, Any]] = [
    {"id": "wood-1", "kind": "wood", "points": [[100, 0], [200, 0], [200, 100], [100, 100]]},
    {"id": "hill-1", "kind": "hill", "rect": [300, 100, 200, 0]},
    {"id": "river", "kind": "river", "line": [[0, 200], [400, 200]], "width": 20},
]


def test_pieces_read_from_plain_data() -> None:
    wood, hill, river = tabletop.pieces_from(TERRAIN)
    assert (wood.id, wood.kind, wood.area.area, wood.width) == ("wood-1", "wood", 10000, 0)
    assert hill.area.bounds == (200, 0, 300, 100)
    assert isinstance(river.area, LineString) and river.width == 20
    assert footprint(river).bounds == (0, 190, 400, 210)


def test_what_lies_under_a_card_and_what_a_path_crosses() -> None:
    pieces = tabletop.pieces_from(TERRAIN)
    assert tabletop.kinds_under(tabletop.outline(Pose(200, 50, 0), Size(50, 30)), pieces) == ["hill", "wood"]
    # A card beside the wood, its edge on the wood's edge, is not in it.
    assert tabletop.kinds_under(tabletop.outline(Pose(75, 50, 0), Size(50, 30)), pieces) == []
    path = LineString([(50, 50), (250, 50), (250, 250)])
    assert [(piece.id, round(length, 6)) for piece, length in tabletop.crossings(path, pieces)] == [
        ("wood-1", 100),
        ("hill-1", 100),
        ("river", 20),
    ]
    swept = tabletop.slide(Pose(50, 50, 90), Size(50, 30), (120, 50)).swept
    assert [(piece.id, area) for piece, area in tabletop.crossings(swept, pieces)] == [("wood-1", 35 * 50)]


@pytest.mark.parametrize(
    "item, said",
    [
        ({"kind": "wood", "rect": [0, 0, 1, 1]}, r"terrain item 1: id is a word"),
        ({"id": "w", "kind": "wood"}, r"terrain item 1 \(w\): give exactly one of points, rect, or line"),
        ({"id": "w", "kind": "wood", "rect": [0, 0, 1]}, r"rect is \[x1, y1, x2, y2\]"),
        ({"id": "w", "kind": "wood", "rect": [0, 0, 0, 1]}, "two different x"),
        ({"id": "w", "kind": "wood", "points": [[0, 0], [1, 1], [0, 1], [1, 0]]}, "edges never crossing"),
        ({"id": "w", "kind": "wood", "points": [[0, 0], [1, 1]]}, "outline an area"),
        ({"id": "r", "kind": "river", "line": [[0, 0], [1, 1]]}, "only a line piece has a width"),
        ({"id": "r", "kind": "river", "line": [[0, 0], [1, 1]], "width": 0}, "width is a number of mm above 0"),
        ({"id": "r", "kind": "river", "line": [[0, 0], [0, 0]], "width": 3}, "at least two different points"),
        ({"id": "w", "kind": "wood", "rect": [0, 0, 1, 1], "colour": "green"}, "unexpected colour"),
    ],
)
def test_bad_terrain_is_refused_naming_the_item(item: dict[str, Any], said: str) -> None:
    with pytest.raises(GameDataError, match=said):
        tabletop.pieces_from([item])


def test_two_pieces_with_one_id_are_refused() -> None:
    with pytest.raises(GameDataError, match="terrain item 2: the id 'wood-1' is used twice"):
        tabletop.pieces_from([TERRAIN[0], TERRAIN[0]])
    with pytest.raises(GameDataError, match="a list of pieces"):
        tabletop.pieces_from({"id": "w"})  # type: ignore[arg-type]


def test_a_tolerance_keeps_a_card_flush_with_a_wood_out_of_it() -> None:
    pieces = tabletop.pieces_from(TERRAIN[:1])
    # Pushed flush against the wood's west edge (the wood seen as a stand facing west).
    card = tabletop.snap_to(Pose(0, 0, 0), Size(50, 30), Pose(150, 50, 270), Size(100, 100), "front")
    assert tabletop.kinds_under(tabletop.outline(card, Size(50, 30)), pieces, tolerance=0.01) == []
    assert tabletop.kinds_under(tabletop.outline(Pose(73, 50, 90), Size(50, 30)), pieces, tolerance=2) == []
    assert tabletop.kinds_under(tabletop.outline(Pose(88, 50, 90), Size(50, 30)), pieces, tolerance=2) == ["wood"]
