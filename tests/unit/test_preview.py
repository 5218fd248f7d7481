"""`referee preview`: the referee sees the phase's outcome; the game is untouched and nothing is sent."""

from __future__ import annotations

import json
from pathlib import Path

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

    shown = preview(game.dir, scratch_root=tmp_path)

    assert status(game.dir) == before_status
    after = listing(game.dir)
    assert {k: v for k, v in after.items() if "journal.sqlite" not in k} == {
        k: v for k, v in before_files.items() if "journal.sqlite" not in k
    }
    assert not (shown.scratch / "outbox").exists()
    assert len(shown.adjudication.reports) == len(game.players)
    previewed = json.loads(shown.adjudication.record.read_bytes())

    real = json.loads(adjudicate(game.dir).record.read_bytes())
    assert real["rolls"] == previewed["rolls"] and real["server_seed"] == previewed["server_seed"]
