"""Every command documents itself, and docs/cli.md is current (regenerate: scripts/gen_cli_docs.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from referee.cli import cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(cli.commands))
def test_command_has_summary_and_example(name: str) -> None:
    command = cli.commands[name]
    assert command.help and command.get_short_help_str().strip(), f"{name} has no help text"
    assert "Example:" in command.help, f"{name}'s help has no Example: block"


def test_cli_reference_is_current() -> None:
    spec = importlib.util.spec_from_file_location("gen_cli_docs", ROOT / "scripts" / "gen_cli_docs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    current = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert current == module.cli_markdown(), "docs/cli.md is stale: run scripts/gen_cli_docs.py"
