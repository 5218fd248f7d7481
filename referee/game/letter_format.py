"""Which format a phase's letters are written in, so that `audit` re-renders each as it was.

Format 1 lists every event and roll of a phase to every player and attaches the game's whole
view; format 2 (`referee.letters.content`) bounds a long phase's letters: each player's own
events and rolls in full, the others' counted, and the view the game gives for letters
(`GameModule.letter_view`). A game's journal keeps, in its meta table, the sequence number of
the first phase whose letters are format 2: the first phase of a game begun since, or the
phase after the first adjudicated since, for a game begun before (the letters already sent
stay as they were; `audit` confirms them in their own format). Format 3 adds the picture of
the table a game draws (`GameModule.picture`, docs/pictures.md) to notices and reports; it is
adopted the same way, from its own meta key, so that a game begun in format 2 changes once.
Format 4 bounds a report by its reader alone, whatever the number of players
(`referee.letters.content`): in a long phase the other players' events and rolls are counted,
not listed, and a phase of many orders lists the reader's own order's hash and counts the rest.
Format 5 attaches a record of more than `RECORD_PACKED_OVER` bytes gzip-compressed
(`NAME.json.gz`, its .sig as before) and tells the reader to unpack it: the record holds every
roll, and a 100,000-roll phase's record (11 MB, 15 MB in base64) mailed to each of 80 players
was a gigabyte of letters that many mail servers refuse; packed, JSON this repetitive is a tenth.
"""

from __future__ import annotations

from referee.game.journal import GameDir

LETTERS_META = "letter_format_2_from"  # meta key: the seq of the first phase with format-2 letters
PICTURES_META = "letter_format_3_from"  # meta key: the seq of the first phase with format-3 letters
READER_BOUND_META = "letter_format_4_from"  # meta key: the seq of the first phase with format-4 letters
RECORD_PACKED_META = "letter_format_5_from"  # meta key: the seq of the first phase with format-5 letters
OLDEST_FIRST = ((2, LETTERS_META), (3, PICTURES_META), (4, READER_BOUND_META), (5, RECORD_PACKED_META))
RECORD_PACKED_OVER = 1 << 20  # format 5: a record of more bytes is attached gzip-compressed


def letter_format(game_dir: GameDir, seq: int) -> int:
    """Return the format of the letters (notices and reports) of the phase numbered `seq`: each
    format builds on the one before, so a phase has a format only once it has the one before."""
    number = 1
    for candidate, key in OLDEST_FIRST:
        first = game_dir.get_meta(key)
        if first is None or seq < int(first):
            break
        number = candidate
    return number


def adopt_from(game_dir: GameDir, seq: int) -> None:
    """Write the newest format's letters from the phase numbered `seq` on, unless the game
    already does (each format from the phase it was first adopted)."""
    for _, key in OLDEST_FIRST:
        game_dir.keep_meta(key, str(seq))
