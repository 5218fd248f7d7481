"""The Jinja2 environment: templates/ of the project (`<kind>.txt.j2`, `<kind>.html.j2`).

HTML templates are autoescaped; text templates are not. Undefined names are errors, so a
template can never print an empty hole where data was meant to be.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from referee.api import GameModule
from referee.errors import RefereeError


def template_dir() -> Path:
    """Return the templates folder: beside the package in a checkout, under the prefix when installed."""
    candidates = [
        Path(__file__).resolve().parent.parent / "templates",
        Path(sys.prefix) / "share" / "pbem-referee" / "templates",
    ]
    for candidate in candidates:
        if (candidate / "report.txt.j2").exists():
            return candidate
    raise RefereeError("the report templates are not installed", hints=("reinstall the project: pip install .",))


@lru_cache(maxsize=1)
def environment() -> Any:
    """Return the project's Jinja2 environment (built once)."""
    import jinja2

    from referee.registry import all_games

    games = {game.id: jinja2.PackageLoader(game.templates, "templates") for game in all_games() if game.templates}
    env = jinja2.Environment(
        # A game's own templates are reached as "<game id>/<name>".
        loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(template_dir())), jinja2.PrefixLoader(games)]),
        autoescape=lambda name: bool(name and name.endswith(".html.j2")),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["join_values"] = lambda values: ", ".join(str(v) for v in values)
    return env


def events_template(game: GameModule) -> str:
    """Return the template (without .txt.j2/.html.j2) that renders a report's events for this game."""
    return f"{game.id}/events" if game.templates else "_events"


def render(kind: str, context: dict[str, Any]) -> tuple[str, str]:
    """Return the text and HTML renderings of the letter `kind` (notice, ack, report)."""
    env = environment()
    return env.get_template(f"{kind}.txt.j2").render(context), env.get_template(f"{kind}.html.j2").render(context)
