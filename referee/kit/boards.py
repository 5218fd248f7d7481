"""A board picture: where a player's forces stand, as rows of labelled boxes coloured by state
(docs/pictures.md, "A board"). Game-agnostic: a game names its states and their colours, groups
its rows into sections (an army, a player's hand), and the core draws the scene
(`referee.letters.board_pictures`) as SVG in the HTML letter and as an attached PNG.

A game builds the scene with `board_scene`, `board_section`, `board_row` and `board_box` from
the player's view only (`GameModule.board`), never from the state: a board can show nothing
the letter does not already say.

    {"board": 1,
     "title": "Turn 2, bid: the army boards as dutch sees them",
     "states": {"fresh": {"name": "fresh", "colour": "#4f8f3a"}, ...},
     "sections": [{"title": "Dutch army (you): 7 TP, CMF 12", "rows": [
         {"label": "van-gelder V", "note": "active", "boxes": [{"label": "V", "state": "fresh"}]}]}]}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from referee.kit.scene_checks import SceneCheck

VERSION = 1
MAX_ROWS = 200  # an army board has a few dozen brigades: more is a mistake, not an army
MAX_BOXES = 24  # boxes in one row: a division of a dozen brigades of two bases


def board_scene(
    title: str, states: Mapping[str, tuple[str, str]], sections: Iterable[dict[str, Any]]
) -> dict[str, Any]:
    """Return a board scene: `states` maps each state id to its (name, "#rrggbb" colour), in
    the order the legend lists them."""
    return {
        "board": VERSION,
        "title": title,
        "states": {key: {"name": name, "colour": colour} for key, (name, colour) in states.items()},
        "sections": list(sections),
    }


def board_section(title: str, rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Return a section of a board: a heading over its rows."""
    return {"title": title, "rows": list(rows)}


def board_row(label: str, boxes: Iterable[dict[str, Any]], note: str = "") -> dict[str, Any]:
    """Return a row: its label on the left, its boxes, and a short note after them."""
    return {"label": label, "boxes": list(boxes), "note": note}


def board_box(label: str, state: str) -> dict[str, Any]:
    """Return a box: a short label (a base's id) drawn in the colour of its state."""
    return {"label": label, "state": state}


def check_board(made: Any) -> None:
    """Raise GameDataError, naming the first fault, unless `made` is a board scene of this format."""
    where = "board"
    _require(isinstance(made, dict), where, "is not a mapping")
    _require(made.get("board") == VERSION, where, f"has board: {made.get('board')!r}, not {VERSION}")
    _text(made.get("title"), f"{where}.title")
    states = made.get("states")
    _require(isinstance(states, dict) and states, f"{where}.states", "is not a mapping of states")
    _CHECK.named_colours(states, f"{where}.states")
    sections = made.get("sections")
    _require(isinstance(sections, list), f"{where}.sections", "is not a list")
    rows = 0
    for s, section in enumerate(sections):
        at = f"{where}.sections[{s}]"
        _require(isinstance(section, dict) and isinstance(section.get("rows"), list), at, "is not a title and rows")
        _text(section.get("title"), f"{at}.title")
        rows += len(section["rows"])
        _require(rows <= MAX_ROWS, f"{at}.rows", f"bring the board past {MAX_ROWS} rows")
        for r, row in enumerate(section["rows"]):
            _check_row(row, f"{at}.rows[{r}]", states)


def _check_row(row: Any, at: str, states: Mapping[str, Any]) -> None:
    _require(isinstance(row, dict), at, "is not a mapping of label, boxes and note")
    _text(row.get("label"), f"{at}.label", empty=True)
    _text(row.get("note", ""), f"{at}.note", empty=True)
    boxes = row.get("boxes")
    _require(
        isinstance(boxes, list) and len(boxes) <= MAX_BOXES, f"{at}.boxes", f"is not a list of at most {MAX_BOXES}"
    )
    for b, box in enumerate(boxes):
        _require(isinstance(box, dict), f"{at}.boxes[{b}]", "is not a mapping of label and state")
        _text(box.get("label"), f"{at}.boxes[{b}].label", empty=True)
        _require(box.get("state") in states, f"{at}.boxes[{b}].state", f"is not one of {', '.join(states)}")


_CHECK = SceneCheck("see docs/pictures.md for the board format")
_require, _text = _CHECK.require, _CHECK.text
