"""The letters' roll rows escape each value as markupsafe.escape does, without its Markup a value."""

from __future__ import annotations

from typing import Any

import markupsafe
import pytest

from referee.letters.content import spec_words
from referee.letters.dice_lines import roll_html
from referee.letters.render import environment


class Text(str):
    pass


def roll(purpose: Any, row: Any, modified: Any) -> dict[str, Any]:
    lookup = {
        "title": "Morale <&>",
        "table": "morale",
        "natural": 7,
        "modifiers": [{"name": "elite 'x'", "value": -1}],
        "modified": modified,
        "clamped": 12,
        "row": row,
        "result": {"text": 'holds "fast"', "effects": ["a&b"]},
        "result_text": 'holds "fast" & <b>',
        "column": Text("<col>"),
    }
    note = {"purpose": purpose, "lookup": lookup, "follows": "r<0>", "because": "7 & up", "picked": ["<p>", 3]}
    return {"label": "r<1>", "spec": "2d6", "values": [3, 4], "replaced_by": "r&2", "counts_as": [5, 6], "note": note}


@pytest.mark.parametrize(
    ("purpose", "row", "modified"),
    [
        ("check <1> & 'x' \"y\"", "7-9", 8),
        (Text("<subclass>"), 7, True),
        (markupsafe.Markup("<em>already markup</em>"), -3, 10**20),
        ("", "é → ü", 2.5),
    ],
)
def test_rows_are_escaped_as_markupsafe_escapes(purpose: Any, row: Any, modified: Any) -> None:
    annotated = roll(purpose, row, modified)
    expected = markupsafe.Markup(roll_html(annotated, markupsafe.escape, spec_words))
    assert environment().filters["roll_html"](annotated) == expected
