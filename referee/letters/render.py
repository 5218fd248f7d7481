"""The Jinja2 environment: templates/ of the project (`<kind>.txt.j2`, `<kind>.html.j2`), and a
game module's own templates (reached as "<game id>/<name>") when the letter is about its game.

HTML templates are autoescaped; text templates are not. Undefined names are errors, so a
template can never print an empty hole where data was meant to be.
"""

from __future__ import annotations

import contextlib
import sys
import textwrap
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from referee.errors import RefereeError
from referee.kit.contract import Event, GameModule
from referee.letters.content import spec_words
from referee.letters.dice_lines import Rolls, dice_section, join_values, roll_html, roll_text
from referee.letters.wrapping import TEXT_WIDTH, wrap


def template_dir() -> Path:
    """Return the templates folder: beside the package in a checkout, under the prefix when installed."""
    candidates = [
        Path(__file__).resolve().parents[2] / "templates",
        Path(sys.prefix) / "share" / "pbem-referee" / "templates",
    ]
    for candidate in candidates:
        if (candidate / "report.txt.j2").exists():
            return candidate
    raise RefereeError("the report templates are not installed", hints=("reinstall the project: pip install .",))


@lru_cache(maxsize=8)
def environment(game_id: str | None = None, package: str | None = None) -> Any:
    """Return the Jinja2 environment of the project's templates, plus the templates/ folder of the
    game package `package` as "<game_id>/<name>" (built once each)."""
    import jinja2  # deferred for start-up speed: commands that write no letter never load Jinja2
    import markupsafe  # Jinja2's own escaping, deferred with it

    games = {game_id: jinja2.PackageLoader(package, "templates")} if game_id and package else {}
    env = jinja2.Environment(
        # A game's own templates are reached as "<game id>/<name>".
        loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(template_dir())), jinja2.PrefixLoader(games)]),
        autoescape=lambda name: bool(name and name.endswith(".html.j2")),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # each template is compiled once a process: they change only with the project
        bytecode_cache=kept_bytecode(),
    )
    env.filters["join_values"] = join_values
    env.filters["spec_words"] = spec_words
    env.filters["roll_text"] = lambda roll: roll_text(roll, wrap, spec_words)
    # markupsafe.escape's own text escaping, without a Markup made for every value of every roll.
    escape_inner = getattr(markupsafe, "_escape_inner", None)

    def escape(value: Any) -> str:
        if type(value) is str and escape_inner is not None:
            return escape_inner(value)  # type: ignore[no-any-return]
        if type(value) is int:
            return str(value)  # digits and a sign: nothing to escape
        return markupsafe.escape(value)

    env.filters["roll_html"] = lambda roll: markupsafe.Markup(roll_html(roll, escape, spec_words))

    # A long phase's lists in one call each, not a template loop's machinery for every item; a
    # report's rolls (`Rolls`) written once for its text and its HTML.
    def dice(rolls: Any) -> tuple[str, str]:
        return rolls.written(escape) if isinstance(rolls, Rolls) else dice_section(rolls, escape)

    env.filters["rolls_text"] = lambda rolls: dice(rolls)[0]
    env.filters["rolls_html"] = lambda rolls: markupsafe.Markup(dice(rolls)[1])
    env.filters["events_text"] = lambda events: "\n".join([wrap(f"* {event.text}", 2) for event in events])
    env.filters["events_html"] = lambda events: markupsafe.Markup(events_html(events, escape))
    env.filters["wrap"] = wrap
    env.filters["wrap_each"] = wrap_each
    env.filters["thousands"] = lambda number: f"{number:,}"
    env.filters["tally"] = tally
    env.filters["aligned"] = aligned
    env.tests["number"] = is_number
    env.filters["others"] = others
    return env


def kept_bytecode(folder: str | None = None) -> Any:
    """Return where Jinja2 keeps the templates' compiled code from one process to the next, or
    None where it cannot: a process that writes a phase's reports and notices compiled their
    templates first (some 90 ms), and loads them so in some 2 ms. Jinja2's own cache, in a folder
    of the user's alone under the system's temporary folder (it checks the folder's owner and
    mode); a kept template is used only while its source is unchanged, and a cache that cannot
    be read or written is no error (the template is compiled, as without it). `folder`: another
    folder to keep it in."""
    import jinja2  # deferred with the environment

    class Kept(jinja2.FileSystemBytecodeCache):
        def load_bytecode(self, bucket: Any) -> None:
            with contextlib.suppress(OSError):
                super().load_bytecode(bucket)

        def dump_bytecode(self, bucket: Any) -> None:
            with contextlib.suppress(OSError):
                super().dump_bytecode(bucket)

    try:
        return Kept(folder)
    except (OSError, RuntimeError):  # no private temporary folder to be had
        return None


def events_html(events: Sequence[Event], escape: Callable[[Any], str]) -> str:
    """Return a report's events as HTML list items, one a line, each text escaped (`escape` of
    one value). Texts of plain `str` without line breaks are escaped at once, joined: escaping
    works character by character, so the joined texts' escape is their escapes joined."""
    texts = [event.text for event in events]
    if texts and set(map(type, texts)) == {str}:
        joined = "\n".join(texts)
        if joined.count("\n") == len(texts) - 1:
            return "<li>" + str(escape(joined)).replace("\n", "</li>\n<li>") + "</li>\n"
    return "".join([f"<li>{escape(text)}</li>\n" for text in texts])


def tally(omitted: dict[str, Any]) -> str:
    """Return one player's count of what a letter leaves out: "p2 2,500"."""
    return f"{omitted['who']} {omitted['count']:,}"


def aligned(table: Any, width: int | None = None) -> list[str]:
    """Return a table's rows (lists of cells) as text lines with their columns aligned: a column
    of numbers to the right, any other to the left, two spaces apart, no trailing spaces. With a
    `width`, a row's last cell that would run past it goes on below, under its column, broken
    between words (an HTML letter's table cell wraps by itself)."""
    rows = [[str(cell) for cell in row] for row in table]
    widths = [max(len(row[i]) for row in rows if i < len(row)) for i in range(max(map(len, rows), default=0))]
    numeric = [all(row[i].isdigit() for row in rows[1:] if i < len(row) and row[i]) for i in range(len(widths))]
    lines = []
    for row in rows:
        cells = [cell.rjust(widths[i]) if numeric[i] else cell.ljust(widths[i]) for i, cell in enumerate(row)]
        line = "  ".join(cells).rstrip()
        if width is not None and len(line) > width and len(cells) > 1:
            lead = "  ".join(cells[:-1]) + "  "
            room = max(width - len(lead), 5)
            first, *more = textwrap.wrap(row[-1], room, break_long_words=False, break_on_hyphens=False) or [""]
            line = (lead + first).rstrip()
            lines += [line, *(" " * len(lead) + part for part in more)]
            continue
        lines.append(line)
    return lines


def is_number(cell: Any) -> bool:
    """Return whether a table's cell is a whole number (drawn right-aligned)."""
    return str(cell).isdigit()


def others(omitted: list[dict[str, Any]]) -> str:
    """Return who a letter's count of the other players' events or rolls is about: "7 other players"."""
    return f"{len(omitted):,} other player{'' if len(omitted) == 1 else 's'}"


def wrap_each(text: str, hang: int = 4, width: int = TEXT_WIDTH) -> str:
    """Return preformatted `text` (a command's output) with each line too long broken as `wrap`
    does, its continuation lines under its own indentation plus `hang`."""
    lines = []
    for line in text.splitlines():
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        lines.append(line if len(line) <= width else wrap(body, indent, hang, width))
    return "\n".join(lines)


def events_template(game: GameModule) -> str:
    """Return the template (without .txt.j2/.html.j2) that renders a report's events for this game."""
    return f"{game.id}/events" if game.templates else "_events"


def render(kind: str, context: dict[str, Any], game: GameModule | None = None) -> tuple[str, str]:
    """Return the text and HTML renderings of the letter `kind` (notice, ack, report); `game` is the
    module whose own templates the letter may include (a report's events)."""
    env = environment(game.id, game.templates) if game is not None and game.templates else environment()
    return env.get_template(f"{kind}.txt.j2").render(context), env.get_template(f"{kind}.html.j2").render(context)
