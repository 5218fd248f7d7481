"""Which format a phase's letters are written in, so that `audit` re-renders each as it was.

Format 1 lists every event and roll of a phase to every player and attaches the game's whole
view; format 2 (`referee.letters.content`) bounds a long phase's letters: each player's own
events and rolls in full, the others' counted, and the view the game gives for letters
(`GameModule.letter_view`). A game's journal keeps, in its meta table, the sequence number of
the first phase whose letters are format 2: the first phase of a game begun since, or the
phase after the first adjudicated since, for a game begun before (the letters already sent
stay as they were; `audit` confirms them in their own format).
"""

from __future__ import annotations

from referee.game.journal import GameDir

LETTERS_META = "letter_format_2_from"  # meta key: the seq of the first phase with format-2 letters


def letter_format(game_dir: GameDir, seq: int) -> int:
    """Return the format of the letters (notices and reports) of the phase numbered `seq`."""
    first = game_dir.get_meta(LETTERS_META)
    return 2 if first is not None and seq >= int(first) else 1


def adopt_from(game_dir: GameDir, seq: int) -> None:
    """Write format-2 letters from the phase numbered `seq` on, unless the game already does."""
    game_dir.keep_meta(LETTERS_META, str(seq))
