"""A report's Dice section written in one pass (`dice_section`) is, byte for byte, what
`roll_text` and `roll_html` write roll by roll, and its events' HTML what escaping each event did:
over varied rolls, with values that need escaping, values that are not plain JSON, lines that
wrap and lines that are not printable."""

from __future__ import annotations

import random
from typing import Any

import markupsafe

from referee.kit.contract import Event
from referee.letters.content import spec_words
from referee.letters.dice_lines import Rolls, dice_section, roll_html, roll_text
from referee.letters.render import environment, events_html, wrap


class Text(str):
    """A str subclass: a row shows it through `roll_html`, as `markupsafe.escape` does."""

    def __str__(self) -> str:
        return "shown as str"


WORDS = ["roll", "check 12", "Morale", "holds", "7+", "2-3", "é → ü", "x" * 40]
ESCAPED = ["a & b", "<b>", "it's", '"q"']  # what HTML escapes
ODD = [Text("sub"), markupsafe.Markup("<em>m</em>"), markupsafe.Markup("plain"), 2.5, True, None, 0, -3, 10**20]


def value(rng: random.Random) -> Any:
    """Return a value a roll's row may show: mostly plain words and numbers, some to escape,
    some that wrap or are not printable, some not plain JSON."""
    pick = rng.random()
    if pick < 0.7:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 4)))
    if pick < 0.85:
        return rng.randrange(-5, 15)
    if pick < 0.9:
        return rng.choice(ESCAPED)
    if pick < 0.95:
        return rng.choice(["tab\there", "line\nbreak", "a" * 90, "word " * 20, "ends with space "])
    return rng.choice(ODD)


def a_roll(rng: random.Random) -> dict[str, Any]:
    note: dict[str, Any] = {}
    if rng.random() < 0.8:
        note["purpose"] = rng.choice([value(rng), "", None])
    if rng.random() < 0.6:
        result = rng.choice([value(rng), {"text": "Pox & fever", "effects": ["sick", value(rng)]}, {"effects": []}])
        note["lookup"] = {
            "title": value(rng),
            "table": rng.choice(["morale", "fire<1>"]),
            "natural": rng.choice([rng.randrange(2, 13), value(rng)]),
            "modifiers": [{"name": value(rng), "value": rng.randrange(-3, 4)} for _ in range(rng.randrange(0, 3))],
            "modified": 7,
            "clamped": rng.choice([7, 6, value(rng)]),
            "column": rng.choice([None, "", value(rng)]),
            "row": value(rng),
            "result": result,
        }
        if isinstance(result, dict) and rng.random() < 0.8:
            note["lookup"]["result_text"] = value(rng)
    if rng.random() < 0.2:
        note.update(follows=value(rng), because=value(rng))
    if rng.random() < 0.2:
        note.update({"picked": [value(rng), 3], "from": value(rng)})
    elif rng.random() < 0.2:
        note.update({"lines": [1, value(rng)], "from": value(rng)})
    return {
        "label": rng.choice([f"roll/p1/r{rng.randrange(100)}", value(rng)]),
        "spec": rng.choice(["2d6", "1d10", "uniform(10)", "shuffle(3)", "sealed(1)", "odd<spec>", Text("2d6")]),
        "values": rng.choice([[rng.randrange(1, 7), rng.randrange(1, 7)], [4], [2, 0, 1], [1.5, "<x>"], []]),
        "note": note,
        "replaced_by": rng.choice([None, None, None, value(rng)]),
        "counts_as": rng.choice([None, None, None, [6], ["a&b"]]),
    }


def test_the_dice_section_is_what_each_roll_writes() -> None:
    rng = random.Random(32)
    rolls = [a_roll(rng) for _ in range(3000)]
    for escape in (markupsafe.escape, plain_escape):
        text, html = dice_section(rolls, escape)
        assert text == "\n".join(roll_text(roll, wrap, spec_words) for roll in rolls)
        assert html == "".join(str(markupsafe.Markup(roll_html(roll, escape, spec_words))) + "\n" for roll in rolls)
    assert dice_section([], markupsafe.escape) == ("", "")


def plain_escape(value: Any) -> str:
    """markupsafe's escaping as a plain str, as the letters' environment gives it a value."""
    return str(markupsafe.escape(value))


def test_a_reports_rolls_are_written_once_for_its_text_and_its_html() -> None:
    rng = random.Random(5)
    rolls = Rolls(a_roll(rng) for _ in range(50))
    env = environment()
    text = env.filters["rolls_text"](rolls)
    html = env.filters["rolls_html"](rolls)
    assert rolls.written(markupsafe.escape) == (text, str(html))  # kept: not written again
    assert (text, str(html)) == dice_section(list(rolls), markupsafe.escape)


def test_events_are_escaped_as_each_event_was() -> None:
    rng = random.Random(7)
    texts = [value(rng) for _ in range(400)]
    for events in (
        [Event("roll", str(text)) for text in texts if type(text) is str and "\n" not in text],
        [Event("roll", text) for text in texts],
        [Event("note", "a\nb"), Event("note", "<c> & 'd'")],
        [],
    ):
        expected = "".join(f"<li>{markupsafe.escape(event.text)}</li>\n" for event in events)
        assert events_html(events, markupsafe.escape) == expected
