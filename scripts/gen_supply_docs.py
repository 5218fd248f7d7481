#!/usr/bin/env python3
"""Regenerate docs/supply/<game>.md, each game's page for its referee, from the needs its module
declares (GameModule.supplies); tests/unit/test_supply_docs.py checks the pages are current.

A page's head, down to the MARKER line, is written by hand and kept; everything after it is
generated.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WHEN = """\
When the game asks for each part: `referee missing GAMEDIR` and `referee status` say, for the
game as it stands, whether a part is needed **now** (the open phase waits on it, or orders that
need it are refused this phase), **later** (a step still to come reads it), **never** (nothing in
this game reads it), **default** (the game uses its own reconstruction or the extraction's
default until you supply the book's) or **supplied**.
"""


def data_file(game: Any, folder: str, need_id: str) -> str:
    """Return the path, from the repository's root, of a need's template or example file."""
    package = game.supplies.wanted.__module__.rsplit(".", 1)[0]
    return f"{package.replace('.', '/')}/data/{folder}/{need_id.replace('/', '-')}.yaml"


MARKER = "<!-- Generated below from the module's needs by scripts/gen_supply_docs.py: do not edit by hand. -->"


def head(game: Any) -> str:
    """Return the hand-written head of a game's page (a default one for a new page)."""
    path = ROOT / "docs" / "supply" / f"{game.id}.md"
    if path.exists() and MARKER in path.read_text(encoding="utf-8"):
        return path.read_text(encoding="utf-8").split(MARKER, 1)[0]
    module = sys.modules[game.supplies.wanted.__module__]
    intro = inspect.cleandoc(module.__doc__ or "").split("\n\n", 1)[-1]
    return f"# What the referee of {game.title} supplies\n\n{intro}\n\n"


def page(game: Any) -> str:
    """Return the markdown page for the referee of `game`: its head, then the generated part."""
    lines = [
        head(game) + MARKER,
        "",
        WHEN,
        "| part (`supplies:`) | what | where the book prints it | needed by |",
        "|---|---|---|---|",
    ]
    for need in game.supplies.needs:
        lines.append(f"| `{need.id}` | {need.title} | {need.book} | {need.needed_by} |")
    for need in game.supplies.needs:
        lines += ["", f"## `{need.id}`: {need.title}", ""]
        lines.append(f"- **Book**: {need.book}.")
        lines.append(f"- **Needed by**: {need.needed_by}.")
        if need.results:
            lines.append(f"- **Results the game can apply**: {', '.join(need.results)}.")
        template = data_file(game, "templates", need.id)
        lines.append(f"- **Template**: `referee supply --template {need.id}` (the file `{template}`).")
        lines.append("- **Supply it**: `referee supply GAMEDIR FILE`, FILE being the template filled in.")
        lines += [
            "",
            f"An example, not the book's values (`{data_file(game, 'examples', need.id)}`):",
            "",
            "```yaml",
            need.example.rstrip(),
            "```",
        ]
    return "\n".join(lines) + "\n"


def pages() -> dict[str, str]:
    """Return each game's page by its file name."""
    import games

    return {f"{game.id}.md": page(game) for game in games.GAMES if game.supplies is not None}


if __name__ == "__main__":
    for name, text in pages().items():
        (ROOT / "docs" / "supply" / name).write_text(text, encoding="utf-8")
        print(f"wrote docs/supply/{name}")
