"""`referee preview`: the referee sees the phase's outcome; the game is untouched and nothing is sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.errors import RefereeError
from referee.game.engine import adjudicate
from referee.game.preview import preview
from referee.game.status import status

ROLLS = "rolls:\n  - {label: charge, table: morale, modifiers: [elite], purpose: the charge}\n"


def listing(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_preview_changes_nothing_and_foretells_the_rolls(make_game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    game = make_game(tmp_path / "games")
    for player in game.players:
        game.submit(player, 1, ROLLS)
    before_status, before_files = status(game.dir), listing(game.dir)

    shown = preview(game.dir)

    assert status(game.dir) == before_status
    after = listing(game.dir)
    assert {k: v for k, v in after.items() if "journal.sqlite" not in k} == {
        k: v for k, v in before_files.items() if "journal.sqlite" not in k
    }
    assert len(shown.reports) == len(game.players)
    assert all(text and name.endswith(".report.txt") for name, text in shown.reports)
    previewed = json.loads(shown.record)

    real = json.loads(adjudicate(game.dir).record.read_bytes())
    assert real["rolls"] == previewed["rolls"] and real["server_seed"] == previewed["server_seed"]


def test_preview_leaves_no_copy_of_the_key_or_secrets_behind(make_game, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The scratch game holds the referee's key and the journal's seeds: it is removed on every
    exit, an error included, and never lands in the system's temporary folder (issue 14)."""
    game = make_game(tmp_path / "games")
    for player in game.players:
        game.submit(player, 1, ROLLS)
    scratch_root = tmp_path / "scratch"
    scratch_root.mkdir()
    preview(game.dir, scratch_root=scratch_root)
    assert list(scratch_root.iterdir()) == []

    (game.dir / ".preview-killed").mkdir()  # as a preview killed half-way leaves it
    preview(game.dir)
    assert not [p for p in game.dir.iterdir() if p.name.startswith(".preview-")]

    (game.dir / "states").chmod(0o700)
    for state in (game.dir / "states").iterdir():  # the copy's adjudication fails on a damaged state
        state.write_bytes(b"{}")
    with pytest.raises(RefereeError):
        preview(game.dir, scratch_root=scratch_root)
    assert list(scratch_root.iterdir()) == []
