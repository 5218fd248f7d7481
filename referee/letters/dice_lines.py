"""A report's Dice section, one roll at a time: the text lines and the HTML row of each roll.

The templates once wrote these themselves; a phase of thousands of rolls spent most of its
letters' time in the templates' machinery for each roll (attribute look-ups, filters, calls).
These functions write the very bytes the templates wrote (`tests/unit/test_big_phase.py`
compares them with the old templates), so letters of every format read as they did.

`roll_text` and `roll_html` say what a roll's lines are. A report's list of rolls is written by
`dice_section`, which reads each roll once for both its text and its HTML and writes the row
without escaping value by value when no value needs it: the same bytes
(`tests/unit/test_dice_section.py` compares them over varied rolls), for half the work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.letters.content import spec_words
from referee.letters.wrapping import TEXT_WIDTH, wrap

# "%s, %s" % (3, 5) writes what ", ".join(map(str, ...)) does (str of each), in a third of the time.
_JOINED = {count: ", ".join(["%s"] * count) for count in range(1, 7)}


def join_values(values: Any) -> str:
    """Return dice values as a letter shows them: "3, 5"."""
    pattern = _JOINED.get(len(values)) if type(values) is list else None
    return pattern % tuple(values) if pattern is not None else ", ".join(map(str, values))


def roll_text(roll: dict[str, Any], wrap: Callable[..., str], spec_words: Callable[[str], str]) -> str:
    """Return the text lines of one annotated roll (see `referee.letters.content.PhaseLetters`),
    without the last line break."""
    lines = [f"  {roll['label']}: {spec_words(roll['spec'])} -> {join_values(roll['values'])}"]
    if roll["replaced_by"]:
        lines.append(f"      replaced: the referee ordered a re-roll, {roll['replaced_by']}")
    if roll["counts_as"]:
        lines.append(f"      counts as {join_values(roll['counts_as'])}, by the referee's ruling")
    note = roll["note"]
    if note.get("purpose"):
        lines.append(wrap(f"purpose: {note.get('purpose')}", 6))
    if note.get("follows"):
        lines.append(wrap(f"follows {note.get('follows')} ({note.get('because')})", 6, 4))
    lookup = note.get("lookup")
    if lookup:
        lines.append(wrap(_reading(lookup, ", read as "), 6, 4))
        result = lookup["result"]
        effects = result.get("effects") if isinstance(result, dict) else None
        tail = f" [{', '.join(map(str, effects))}]" if effects else ""
        lines.append(wrap(f"row {lookup['row']}: {_result_text(lookup)}{tail}", 6, 4))
    if note.get("picked"):
        lines.append(wrap(f"picked from {note.get('from')}: {'; '.join(map(str, note.get('picked')))}", 6, 4))
    elif note.get("lines"):
        lines.append(wrap(f"picked line(s) {', '.join(map(str, note.get('lines')))} of {note.get('from')}", 6, 4))
    return "\n".join(lines)


def roll_html(roll: dict[str, Any], escape: Callable[[Any], str], spec_words: Callable[[str], str]) -> str:
    """Return the HTML table row of one annotated roll, every value escaped, without the last
    line break."""
    cells = [f"<tr><td><code>{escape(roll['label'])}</code></td><td>{escape(spec_words(roll['spec']))}</td>"]
    cells.append(f"<td>{escape(join_values(roll['values']))}")
    if roll["replaced_by"]:
        cells.append(f" (replaced by the re-roll <code>{escape(roll['replaced_by'])}</code>)")
    if roll["counts_as"]:
        cells.append(f" (counts as {escape(join_values(roll['counts_as']))}, by the referee's ruling)")
    note = roll["note"]
    cells.append(f"</td>\n<td>{escape(note.get('purpose') or '')}</td><td>")
    lookup = note.get("lookup")
    if lookup:
        cells.append(f"{escape(lookup['title'])}: {escape(lookup['natural'])}")
        cells += [f" {escape(m['name'])} {escape(format(m['value'], '+d'))}" for m in lookup["modifiers"]]
        cells.append(f" = {escape(lookup['modified'])}")
        if lookup["clamped"] != lookup["modified"]:
            cells.append(f" (read {escape(lookup['clamped'])})")
        if lookup.get("column"):
            cells.append(f", column {escape(lookup['column'])}")
        cells.append(f" → row {escape(lookup['row'])}: <strong>{escape(_result_text(lookup))}</strong>")
    if note.get("follows"):
        cells.append(f" (follows {escape(note.get('follows'))}: {escape(note.get('because'))})")
    if note.get("picked"):
        picked = "; ".join(map(str, note.get("picked")))
        cells.append(f" picked from {escape(note.get('from'))}: <strong>{escape(picked)}</strong>")
    elif note.get("lines"):
        lines = ", ".join(map(str, note.get("lines")))
        cells.append(f" picked line(s) {escape(lines)} of {escape(note.get('from'))}")
    cells.append("</td></tr>")
    return "".join(cells)


def _result_text(lookup: dict[str, Any]) -> Any:
    """Return a row's result as a letter words it: a structured result by its text."""
    return lookup.get("result_text", lookup["result"])


def _reading(lookup: dict[str, Any], read_as: str) -> str:
    """Return how a table was read: "table T (t): natural 7, elite +1 = 8, column line"."""
    text = f"table {lookup['title']} ({lookup['table']}): natural {lookup['natural']}"
    text += "".join(f", {m['name']} {m['value']:+d}" for m in lookup["modifiers"])
    text += f" = {lookup['modified']}"
    if lookup["clamped"] != lookup["modified"]:
        text += f"{read_as}{lookup['clamped']}"
    if lookup.get("column"):
        text += f", column {lookup['column']}"
    return text


# What a value a row shows may be for `dice_section` to write it as its text does: a JSON value,
# which an f-string and `markupsafe.escape` both write as `str` does. A str subclass or any other
# object (one with `__html__`, say) goes through `roll_html`.
PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})
# How much longer escaping makes each character that HTML escapes (markupsafe's five).
ESCAPED_LONGER = {"&": 4, "<": 3, ">": 3, "'": 4, '"': 4}
NOTE_INDENT = 6
NOTE_PREFIX = " " * NOTE_INDENT
_words: dict[str, str] = {}  # a spec -> its words: a phase has a few specs and thousands of rolls
WORDS_KEPT = 256


class Rolls(list):  # type: ignore[type-arg]
    """A report's annotated rolls (a list, made by `referee.letters.content.PhaseLetters.rolls_for`),
    whose text lines and HTML rows `dice_section` writes once, the first time either is asked
    for: a letter is rendered as text, then as HTML, from the same context."""

    _written: tuple[str, str] | None = None

    def written(self, escape: Callable[[Any], str]) -> tuple[str, str]:
        """Return `dice_section(self, escape)`, written once."""
        if self._written is None:
            self._written = dice_section(self, escape)
        return self._written


def dice_section(rolls: list[dict[str, Any]], escape: Callable[[Any], str]) -> tuple[str, str]:
    """Return the Dice section of `rolls`: each roll's text lines (`roll_text`) joined by line
    breaks, and each roll's HTML row (`roll_html`) followed by a line break, both written in one
    pass over each roll's values. `escape` is the HTML escaping of one value."""
    texts, rows = [], []
    for roll in rolls:
        text, row = _lines(roll, escape)
        texts.append(text)
        rows.append(row if row is not None else roll_html(roll, escape, spec_words))
    return "\n".join(texts), "".join([row + "\n" for row in rows])


def _words_of(spec: Any) -> str:
    if type(spec) is not str:
        return spec_words(spec)
    words = _words.get(spec)
    if words is None:
        if len(_words) >= WORDS_KEPT:
            _words.clear()
        words = _words[spec] = spec_words(spec)
    return words


def _note_line(text: str, hang: int) -> str:
    """Return `wrap(text, NOTE_INDENT, hang)` for a note's line (it starts with a word), without
    the call for a line that fits or that `wrap` leaves whole."""
    if len(text) + NOTE_INDENT <= TEXT_WIDTH and text[-1] != " " or not text.isprintable():
        return NOTE_PREFIX + text
    return wrap(text, NOTE_INDENT, hang)


def _lines(roll: dict[str, Any], escape: Callable[[Any], str]) -> tuple[str, str | None]:
    """Return a roll's text lines, and its HTML row written from the same values, or None for
    the row when a value it shows needs escaping or is not plain JSON (`PLAIN_TYPES`)."""
    label, note = roll["label"], roll["note"]
    spec = _words_of(roll["spec"])
    values = join_values(roll["values"])
    text = f"  {label}: {spec} -> {values}"
    row = f"<tr><td><code>{label}</code></td><td>{spec}</td><td>{values}"
    shown = [label, spec]  # the values the row shows that may not be plain (`PLAIN_TYPES`)
    fixed = ESCAPED_LONGER[">"]  # what escaping adds to the text's own words ("->"), not to its values
    replaced_by, counts_as = roll["replaced_by"], roll["counts_as"]
    if replaced_by:
        text += f"\n      replaced: the referee ordered a re-roll, {replaced_by}"
        row += f" (replaced by the re-roll <code>{replaced_by}</code>)"
        shown.append(replaced_by)
    if counts_as:
        counted = join_values(counts_as)
        text += f"\n      counts as {counted}, by the referee's ruling"
        row += f" (counts as {counted}, by the referee's ruling)"
        fixed += ESCAPED_LONGER["'"]  # "referee's"
    purpose = note.get("purpose")
    if purpose:
        text += "\n" + _note_line(f"purpose: {purpose}", 2)
        shown.append(purpose)
    row += f"</td>\n<td>{purpose or ''}</td><td>"
    follows = note.get("follows")
    if follows:
        because = note.get("because")
        text += "\n" + _note_line(f"follows {follows} ({because})", 4)
    lookup = note.get("lookup")
    if lookup:
        title, natural, modified, clamped = lookup["title"], lookup["natural"], lookup["modified"], lookup["clamped"]
        modifiers, column, result_text = lookup["modifiers"], lookup.get("column"), _result_text(lookup)
        table_row = lookup["row"]
        # The reading as `_reading` writes it, and the row's cells as `roll_html` does.
        reading = f"table {title} ({lookup['table']}): natural {natural}"
        cells = f"{title}: {natural}"
        shown += [title, natural, modified, table_row, result_text]
        for modifier in modifiers:
            name, value = modifier["name"], modifier["value"]
            reading += f", {name} {value:+d}"
            cells += f" {name} {value:+d}"
            shown.append(name)
        reading += f" = {modified}"
        cells += f" = {modified}"
        if clamped != modified:
            reading += f", read as {clamped}"
            cells += f" (read {clamped})"
            shown.append(clamped)
        if column:
            reading += f", column {column}"
            cells += f", column {column}"
            shown.append(column)
        result = lookup["result"]
        effects = result.get("effects") if isinstance(result, dict) else None
        tail = f" [{', '.join(map(str, effects))}]" if effects else ""
        text += f"\n{_note_line(reading, 4)}\n{_note_line(f'row {table_row}: {result_text}{tail}', 4)}"
        row += f"{cells} → row {table_row}: <strong>{result_text}</strong>"
    if follows:
        row += f" (follows {follows}: {because})"
        shown += [follows, because]
    if note.get("picked"):
        source, picked = note.get("from"), "; ".join(map(str, note.get("picked")))
        text += "\n" + _note_line(f"picked from {source}: {picked}", 4)
        row += f" picked from {source}: <strong>{picked}</strong>"
        shown.append(source)
    elif note.get("lines"):
        source, numbers = note.get("from"), ", ".join(map(str, note.get("lines")))
        text += "\n" + _note_line(f"picked line(s) {numbers} of {source}", 4)
        row += f" picked line(s) {numbers} of {source}"
        shown.append(source)
    # Every value the row shows is in the text lines too (and a few more: the table's id, a
    # result's effects), so none needs escaping when escaping lengthens the text by its own
    # words' characters alone. Wrapping moves spaces, never a character that escaping changes.
    if not PLAIN_TYPES.issuperset(map(type, shown)) or len(escape(text)) - len(text) != fixed:
        return text, None
    return text, row + "</td></tr>"
