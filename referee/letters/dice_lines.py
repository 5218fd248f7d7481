"""A report's Dice section, one roll at a time: the text lines and the HTML row of each roll.

The templates once wrote these themselves; a phase of thousands of rolls spent most of its
letters' time in the templates' machinery for each roll (attribute look-ups, filters, calls).
These functions write the very bytes the templates wrote (`tests/unit/test_big_phase.py`
compares them with the old templates), so letters of every format read as they did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def join_values(values: Any) -> str:
    """Return dice values as a letter shows them: "3, 5"."""
    return ", ".join(map(str, values))


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
