"""Drawing a board picture (a scene of `referee.kit.boards`: rows of labelled boxes coloured by
state) as SVG and as PNG, with the battlefield picture's shapes and painters (`pictures`), so
that both are written alike: the same scene always gives the same bytes.

The layout: the title, then each section's heading over its rows; a row is its label, its
boxes (one colour per state, the box's label inside), then its note; the states' legend last.
Nothing here knows a game.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from referee.kit.boards import check_board
from referee.letters.pictures import FONT, INK, MARGIN, SMALL, Layout, Poly, Shape, Text, clean, darker, png_of, svg_of

WIDEST = 760  # px, as the battlefield picture
NARROWEST = 360
TOP = 34  # the title
ROW = 22  # a row's height
BOX_W, BOX_H, BOX_GAP = 30, 16, 3
HEADING = 22  # a section's heading
SECTION_GAP = 8
LEGEND = 28
CHAR = 6.2  # px: an average letter of the 10 px font, to size the columns
BOLD_CHAR = 6.6  # px: of the 11 px bold font of a heading


def layout(scene: Mapping[str, Any]) -> Layout:
    """Return the board laid out in pixels: the title, the sections' rows, the legend."""
    rows = [row for section in scene["sections"] for row in section["rows"]]
    label_w = min(220, max([60.0, *(len(clean(row["label"])) * CHAR + 12 for row in rows)]))
    boxes_w = max([1, *(len(row["boxes"]) for row in rows)]) * (BOX_W + BOX_GAP)
    note_x = MARGIN + label_w + boxes_w + 6
    longest = max([0, *(len(clean(row.get("note", ""))) for row in rows)])
    titles = [scene["title"], *(section["title"] for section in scene["sections"])]
    wanted = max(note_x + longest * CHAR, *(MARGIN + len(clean(title)) * BOLD_CHAR for title in titles)) + MARGIN
    width = math.ceil(min(WIDEST, max(NARROWEST, wanted)))
    note_chars = longest if wanted <= WIDEST else max(4, int((width - MARGIN - note_x) / CHAR))
    states = scene["states"]
    shapes: list[Shape] = [Text((MARGIN, TOP - 16), clean(scene["title"]), FONT + 2, anchor="start", bold=True)]
    y = float(TOP)
    for section in scene["sections"]:
        shapes.append(Text((MARGIN, y + HEADING / 2), clean(section["title"]), FONT, anchor="start", bold=True))
        y += HEADING
        for row in section["rows"]:
            middle = y + ROW / 2
            shapes.append(Text((MARGIN + 4, middle), clean(row["label"]), SMALL + 1, anchor="start"))
            for index, box in enumerate(row["boxes"]):
                x = MARGIN + label_w + index * (BOX_W + BOX_GAP)
                shapes += _box(x, middle, box["label"], states[box["state"]]["colour"])
            note = clean(row.get("note", ""))
            if note:
                note = note if len(note) <= note_chars else note[: note_chars - 3] + "..."
                shapes.append(Text((note_x, middle), note, SMALL + 1, "#444444", anchor="start"))
            y += ROW
        y += SECTION_GAP
    x = float(MARGIN)
    y += LEGEND / 2
    for state in states.values():
        shapes += _box(x, y, "", state["colour"])
        name = clean(state["name"])
        shapes.append(Text((x + BOX_W + 4, y), name, SMALL + 1, anchor="start"))
        x += BOX_W + 14 + len(name) * CHAR
    return Layout(width, round(y + LEGEND / 2 + 4), tuple(shapes))


def _box(x: float, middle: float, label: str, colour: str) -> list[Shape]:
    top, bottom = middle - BOX_H / 2, middle + BOX_H / 2
    shapes: list[Shape] = [
        Poly(((x, top), (x + BOX_W, top), (x + BOX_W, bottom), (x, bottom)), colour, darker(colour), 1.0)
    ]
    if label:
        shapes.append(Text((x + BOX_W / 2, middle), clean(label)[:4], SMALL, _ink_on(colour), bold=True))
    return shapes


def _ink_on(colour: str) -> str:
    """Return white on a dark box, the ink on a light one."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#ffffff" if 0.299 * r + 0.587 * g + 0.114 * b < 150 else INK


def svg(scene: Mapping[str, Any]) -> str:
    """Return the board as an SVG 1.1 document (one <svg> element, to embed in HTML as is)."""
    return svg_of(layout(scene), scene["title"])


def png(scene: Mapping[str, Any]) -> bytes:
    """Return the board as PNG bytes (encoded once per distinct scene in a process)."""
    # Not sorted: the order of the states is the legend's.
    return _png(json.dumps(scene, separators=(",", ":"), ensure_ascii=False))


@lru_cache(maxsize=32)
def _png(key: str) -> bytes:
    return png_of(layout(json.loads(key)))


def legend(scene: Mapping[str, Any]) -> list[str]:
    """Return the short text legend a letter prints under the board: each state's colour."""
    return [f"{clean(state['name'])}: {_colour_word(state['colour'])} box" for state in scene["states"].values()]


def _colour_word(colour: str) -> str:
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    if max(r, g, b) - min(r, g, b) < 30:
        return "grey"
    if r > 150 and g > 110 and b < 110 and abs(r - g) < 90:
        return "yellow" if g > 180 else "amber"
    return {0: "red", 1: "green", 2: "blue"}[max(range(3), key=(r, g, b).__getitem__)]


def letter_board(scene: Mapping[str, Any], filed: str) -> dict[str, Any]:
    """Return what a letter's templates show of a board: the SVG for the HTML, a caption, the
    legend, and `file`, the name its PNG is attached under. The scene is checked first: a game's
    malformed board stops the letter with the fault named."""
    check_board(scene)
    return {"scene": scene, "svg": svg(scene), "caption": clean(scene["title"]), "legend": legend(scene), "file": filed}
