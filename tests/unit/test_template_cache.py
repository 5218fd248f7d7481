"""The letters' templates are compiled once on a machine, not once a process: Jinja2 keeps their
compiled code (`render.kept_bytecode`), and a cache it cannot use is no error."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import jinja2

from referee.letters.render import environment, kept_bytecode

TEMPLATES = ("report.txt.j2", "report.html.j2", "notice.txt.j2", "notice.html.j2")


def compiled(folder: str | None) -> int:
    """Return how many templates a fresh environment keeping their code in `folder` compiles."""
    env = environment.__wrapped__()  # a new environment, as a new process makes
    env.bytecode_cache = kept_bytecode(folder)
    with mock.patch.object(
        jinja2.Environment, "compile", autospec=True, side_effect=jinja2.Environment.compile
    ) as made:
        for name in TEMPLATES:
            env.get_template(name)
    return made.call_count


def test_a_second_process_loads_the_templates_it_would_compile(tmp_path: Path) -> None:
    first = compiled(str(tmp_path))
    assert first >= len(TEMPLATES)  # and the templates they include
    assert compiled(str(tmp_path)) == 0
    (tmp_path / next(p.name for p in tmp_path.iterdir())).write_bytes(b"not a cache")  # damaged: compiled again
    assert compiled(str(tmp_path)) == 1


def test_a_cache_that_cannot_be_written_or_read_is_no_error(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    assert compiled(str(missing)) >= len(TEMPLATES)  # its folder is not there: each is compiled, as before
    assert compiled(str(missing)) >= len(TEMPLATES)
