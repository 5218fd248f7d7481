"""Board pictures: the scene format (referee.kit.boards), its drawing as SVG and PNG
(referee.letters.board_pictures) and a fact's table in a letter: checked, escaped,
deterministic, aligned."""

from __future__ import annotations

import copy
import io
from typing import Any
from xml.etree import ElementTree

import pytest
from PIL import Image

from referee.errors import GameDataError
from referee.kit import Fact
from referee.kit.boards import board_box, board_row, board_scene, board_section, check_board
from referee.letters import board_pictures
from referee.letters.render import aligned, environment

STATES = {"fresh": ("fresh", "#4f8f3a"), "shaken": ("shaken", "#e0a526"), "broken": ("broken", "#c0392b")}
SVG = "{http://www.w3.org/2000/svg}"


def board(note: str = "moved A") -> dict[str, Any]:
    return board_scene(
        "Turn 1: the boards as blue sees them",
        STATES,
        [
            board_section(
                "Blue (you): 7 TP", [board_row("first", [board_box("A", "fresh"), board_box("B", "shaken")], note)]
            ),
            board_section("Red <&>", [board_row("second", [board_box("C", "broken")])]),
        ],
    )


def test_a_board_is_checked_and_a_fault_named() -> None:
    check_board(board())
    bad = copy.deepcopy(board())
    bad["sections"][1]["rows"][0]["boxes"][0]["state"] = "routed"
    with pytest.raises(GameDataError, match=r"board.sections\[1\].rows\[0\].boxes\[0\].state is not one of"):
        check_board(bad)
    bad = {**board(), "states": {"fresh": {"name": "fresh", "colour": "green"}}}
    with pytest.raises(GameDataError, match="board.states.fresh.colour is not #rrggbb"):
        check_board(bad)


def test_the_svg_draws_a_box_a_base_in_its_states_colour_and_escapes_text() -> None:
    drawn = board_pictures.svg(board())
    root = ElementTree.fromstring(drawn)  # well-formed, the title's "<&>" escaped
    fills = [p.get("fill") for p in root.iter(f"{SVG}polygon")]
    assert fills.count("#4f8f3a") == 2 and fills.count("#e0a526") == 2 and fills.count("#c0392b") == 2  # boxes + legend
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert {"A", "B", "C", "first", "moved A", "Red <&>"} <= set(texts)
    assert board_pictures.legend(board()) == ["fresh: green box", "shaken: amber box", "broken: red box"]


def test_the_png_is_deterministic_and_small() -> None:
    first = board_pictures.png(board())
    board_pictures._png.cache_clear()
    assert board_pictures.png(board()) == first
    image = Image.open(io.BytesIO(first))
    laid = board_pictures.layout(board())
    assert image.format == "PNG" and image.size == (laid.width, laid.height)
    assert len(first) < 20_000
    assert board_pictures.png(board("moved B")) != first


def test_a_long_note_is_cut_to_the_widest_picture() -> None:
    wide = board("x" * 80)
    wide["sections"][0]["rows"][0]["boxes"] *= 10
    laid = board_pictures.layout(wide)
    assert laid.width == board_pictures.WIDEST
    assert any(getattr(s, "text", "").endswith("...") for s in laid.shapes)


def test_a_facts_table_is_aligned_in_text_and_a_table_in_html() -> None:
    table = (("name", "count", "note"), ("alpha", "1", ""), ("b", "12", "moved"))
    assert aligned(table) == ["name   count  note", "alpha      1", "b         12  moved"]
    fact = Fact("Board", "7 TP", table=table)
    context = {"standing": [fact], "standing_heading": "Where you stand"}
    text = environment().get_template("_standing.txt.j2").render(context)
    assert "    alpha      1\n" in text
    html = environment().get_template("_standing.html.j2").render(context)
    assert '<th style="text-align:right">count</th>' in html
    assert '<td style="text-align:right">12</td><td>moved</td>' in html
