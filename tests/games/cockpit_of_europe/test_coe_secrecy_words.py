"""What the players are told opens each sealed note: the rules' own trigger, not the writer alone."""

from __future__ import annotations

import pytest

from games.cockpit_of_europe.secrecy import opens


@pytest.mark.parametrize(
    ("note_id", "told"),
    [
        ("descent", "the game's first turn"),
        ("sea-1745-3-1", "the force lands (3.523)"),
        ("standing-milice-1745-3", "the enemy's move triggers it"),
        ("set-up", "france reveals it, or the game ends"),
        ("plan-2", "france reveals it, or the game ends"),
    ],
)
def test_each_sealed_note_says_what_opens_it(note_id: str, told: str) -> None:
    assert told in opens("france", note_id)
