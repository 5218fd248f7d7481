#!/usr/bin/env python3
"""Regenerate docs/cli.md from the commands' --help (tests/unit/test_cli_docs.py checks it is current)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

INTRODUCTION = """\
Generated from `--help` by `scripts/gen_cli_docs.py`; do not edit by hand.

The commands come in sections, as `referee --help` lists them. Every command that reads a
game takes its directory, GAMEDIR, first.

## Exit codes

| code | meaning |
|------|---------|
| 0 | done (also: an operation run again that had finished; `verify` with nothing adjudicated yet) |
| 1 | refused or failed: the message says why, each `hint:` line what to do |
| 2 | a mistake on the command line, or no game in GAMEDIR (`no game in DIR: ...`) |
| 3 | `verify` or `audit` found a problem: each is listed |

## Output for scripts

`status`, `verify`, `audit` and `dispute list` take `--json`; [json.md](json.md) gives each
shape. Errors stay on stderr, so stdout is JSON alone.

## Shell completion

Completion of commands, options and file names comes with the command (click's). Add one line
to your shell's start-up file:

```
# bash, in ~/.bashrc
eval "$(_REFEREE_COMPLETE=bash_source referee)"
# zsh, in ~/.zshrc
eval "$(_REFEREE_COMPLETE=zsh_source referee)"
# fish, in ~/.config/fish/completions/referee.fish
_REFEREE_COMPLETE=fish_source referee | source
```

To start a shell faster, write the script once to a file and source that file instead:
`_REFEREE_COMPLETE=bash_source referee > ~/.referee-complete.bash`.
"""


def cli_markdown() -> str:
    """Return the CLI reference as markdown: the introduction, then one section per command,
    grouped as `referee --help` groups them."""
    import click
    from click.testing import CliRunner

    from referee.cli import cli, command_sections

    runner = CliRunner()

    def help_of(path: list[str]) -> str:
        output = runner.invoke(cli, [*path, "--help"], prog_name="referee", terminal_width=88).output
        return f"```\n{output.rstrip()}\n```\n"

    parts = ["# Command reference\n", INTRODUCTION, "## referee\n", help_of([])]
    for title, names in command_sections(sorted(cli.commands)):
        parts.append(f"## {title}\n")
        for name in names:
            paths = [[name]]
            command = cli.commands[name]
            if isinstance(command, click.Group):
                paths += [[name, sub] for sub in sorted(command.commands)]
            parts += [f"### {' '.join(['referee', *path])}\n\n{help_of(path)}" for path in paths]
    return "\n".join(parts)


if __name__ == "__main__":
    (ROOT / "docs" / "cli.md").write_text(cli_markdown(), encoding="utf-8")
    print("wrote docs/cli.md")
