#!/usr/bin/env python3
"""Regenerate docs/cli.md from the commands' --help (tests/unit/test_cli_docs.py checks it is current)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def cli_markdown() -> str:
    """Return the CLI reference as markdown, one section per command."""
    import click
    from click.testing import CliRunner

    from referee.cli import cli

    runner = CliRunner()
    parts = ["# Command reference\n", "Generated from `--help` by `scripts/gen_cli_docs.py`; do not edit by hand.\n"]
    paths: list[list[str]] = [[]]
    for name in sorted(cli.commands):
        paths.append([name])
        command = cli.commands[name]
        if isinstance(command, click.Group):
            paths += [[name, sub] for sub in sorted(command.commands)]
    for path in paths:
        output = runner.invoke(cli, [*path, "--help"], prog_name="referee", terminal_width=88).output
        parts.append(f"## {' '.join(['referee', *path])}\n\n```\n{output.rstrip()}\n```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    (ROOT / "docs" / "cli.md").write_text(cli_markdown(), encoding="utf-8")
    print("wrote docs/cli.md")
