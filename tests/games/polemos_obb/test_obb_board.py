"""The army board as a table and a picture (issue 17; option army_board: brigades, new games):
one row a brigade with the right counts, drawn from the player's view alone, the same picture
for the same view; games begun before keep the board they had."""

from __future__ import annotations

import copy

from obb_helpers import new_game, play

from games.polemos_obb import GAME
from games.polemos_obb.board_view import HEADINGS, board_picture
from games.polemos_obb.options import NEW_GAME_OPTIONS
from referee.game.announce import picture_attachments
from referee.kit.boards import check_board
from referee.letters import board_pictures
from referee.letters.render import aligned

NEW = {**NEW_GAME_OPTIONS, "army_morale": {"cmf": {"dutch": 15, "bavarian": 15}}}


def battered() -> dict:
    """The combat example after the muster, with bases shaken, broken and removed by hand."""
    state, _, _ = play(new_game(**NEW), {}, [5, 3])
    state["bases"]["W"]["state"] = "shaken"
    state["bases"]["X"]["state"] = "broken"
    state["bases"]["Y"]["state"] = "removed"
    state["bases"]["N"]["state"] = "shaken"
    state["moved"] = ["V", "W"]
    return state


def test_the_board_lists_every_own_brigade_with_its_state_counts() -> None:
    state = battered()
    facts = {f.name: f for f in GAME.standing(state, "dutch")}
    dutch = facts["Army board: Dutch army (dutch)"]
    assert dutch.value.startswith("7 TP, CMF 15 (lost 0); C-in-C")
    assert dutch.items == () and dutch.table[0] == HEADINGS
    rows = {row[1]: row for row in dutch.table[1:]}
    brigades = [b for d in GAME.view(state, "dutch")["divisions"] if d["army"] == "dutch" for b in d["brigades"]]
    assert sorted(rows) == sorted(b["id"] for b in brigades)
    counts = {brigade: row[2:5] for brigade, row in rows.items()}
    assert counts["V"] == ("1", "0", "0") and counts["W"] == ("0", "1", "0")
    assert counts["X"] == ("0", "0", "1") and counts["Y"] == ("0", "0", "1")
    assert rows["V"][6] == "moved" and rows["W"][6] == "moved" and rows["Z"][6] == ""
    assert dutch.table[1][0] == "van-gelder" and dutch.table[2][0] == ""  # a division named once
    lines = [line for fact in facts.values() for line in aligned(fact.table)]
    assert lines and all(len(line) <= 74 for line in lines)  # indented by 4 in a 78-column letter


def test_the_picture_draws_each_army_a_section_each_base_a_box_in_its_state() -> None:
    state = battered()
    scene = board_picture(GAME.view(state, "dutch"), "dutch")
    assert scene is not None
    check_board(scene)
    mine, theirs = scene["sections"]
    assert mine["title"].startswith("Dutch army (you): 7 TP, CMF 15")
    boxes = {box["label"]: box["state"] for row in mine["rows"] for box in row["boxes"]}
    assert boxes["W"] == "shaken" and boxes["X"] == "broken" and boxes["Y"] == "removed" and boxes["V"] == "fresh"
    assert {box["label"]: box["state"] for row in theirs["rows"] for box in row["boxes"]}["N"] == "shaken"


def test_the_board_comes_from_the_view_alone_and_draws_the_same_png() -> None:
    state = battered()
    before = board_picture(GAME.view(state, "dutch"), "dutch")
    hidden = copy.deepcopy(state)  # what dutch may not see: the Bavarian standing orders
    hidden["standing"]["bavarian"] = {"respond": "decline", "bases": {"M": "decline"}, "support": {}}
    assert board_picture(GAME.view(hidden, "dutch"), "dutch") == before
    assert before is not None
    first = board_pictures.png(before)
    board_pictures._png.cache_clear()
    assert board_pictures.png(copy.deepcopy(before)) == first


def test_a_game_begun_before_keeps_its_board_and_draws_none() -> None:
    state, _, _ = play(new_game(**{**NEW, "army_board": "divisions"}), {}, [5, 3])
    facts = [f for f in GAME.standing(state, "dutch") if f.name.startswith("Army board")]
    assert facts and all(f.table == () and f.items for f in facts)
    assert board_picture(GAME.view(state, "dutch"), "dutch") is None
    plain, _, _ = play(new_game(), {}, [5, 3])  # letters: plain, as games begun before issue 17
    assert board_picture(GAME.view(plain, "dutch"), "dutch") is None


def test_a_letter_attaches_the_board_as_a_png_named_for_its_reader() -> None:
    scene = board_picture(GAME.view(battered(), "dutch"), "dutch")
    assert scene is not None
    shown = board_pictures.letter_board(scene, "g-0002-t1-bid-dutch.board.png")
    assert shown["svg"].startswith("<svg") and shown["file"] == "g-0002-t1-bid-dutch.board.png"
    (attached,) = picture_attachments({"picture": None, "board_picture": shown}, "dutch", "-after")
    assert attached.filename == "dutch.board-after.png" and attached.data.startswith(b"\x89PNG")
    assert not attached.kept  # the kept HTML holds the same board as SVG


def test_a_division_not_yet_rolled_has_a_row_saying_so() -> None:
    state = new_game("danube-demo", **{**NEW, "army_morale": {"cmf": {"dutch": 8, "imperial": 8, "bavarian": 10}}})
    facts = {f.name: f for f in GAME.standing(state, "imperial")}
    rows = facts["Army board: Imperial army (imperial)"].table[1:]
    assert [row[0] for row in rows] == ["imperial-foot", "imperial-horse", "imperial-guns"]
    assert all(row[1] == "-" and row[6] == "not rolled" for row in rows)
    scene = board_picture(GAME.view(state, "imperial"), "imperial")
    assert scene is not None and [row["boxes"] for row in scene["sections"][0]["rows"]] == [[], [], []]


def test_a_note_too_long_for_the_row_goes_on_below_whole() -> None:
    # Long brigade ids (imperial-horse-1) leave the notes little room: in a text letter a note is
    # wrapped under its column, never cut to "LEFT+" (a word longer than the room stands whole);
    # the table keeps it whole for an HTML letter, whose cell wraps by itself.
    row = ("imperial-horse", "imperial-horse-1", "1", "0", "0", "lethargic", "LEFT THE BATTLE WITH ITS ARMY, moved")
    lines = aligned((HEADINGS, row), 74)  # indented by 4 in a 78-column letter
    column = lines[0].index("notes")
    assert [line[column:] for line in lines[1:]] == ["LEFT THE", "BATTLE", "WITH ITS", "ARMY,", "moved"]
    assert all(not line[:column].strip() for line in lines[2:])
    assert all(len(line) <= 74 for line in lines) and aligned((HEADINGS, row))[1].endswith(row[-1])
