"""Mail that files itself (issue 18, item 4): a letter's own files are named after the game and
the phase, so that saving every letter's files in one folder overwrites none; every letter of a
game threads under the player's first notice; reports speak of draws in plain words.

A real moderator game of two rounds is played through the engine; its outbox is read as the
player's mail client would read it.
"""

from __future__ import annotations

import email
from email import policy
from email.message import EmailMessage
from pathlib import Path

from referee.game.engine import adjudicate, submit
from referee.letters.content import spec_words

from conftest import GAME_ID, MakeGame, TestGame

ROLL = "rolls:\n  - {label: attack, dice: 2d6, purpose: the attack}\n"
RECORDS = {"0001-t1-round.json", "0002-t2-round.json"}


def letters_to(game: TestGame, player: str) -> list[EmailMessage]:
    found = []
    for path in sorted((game.dir / "outbox" / "new").glob("*.eml")):
        message = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        assert isinstance(message, EmailMessage)
        if message["To"] == f"{player}@example.org":
            found.append(message)
    return found


def play_two_rounds(game: TestGame, in_reply_to: str | None = None) -> None:
    for turn in (1, 2):
        for player in game.players:
            raw = game.order(player, turn, ROLL)
            assert submit(game.dir, raw, game.signed(player, raw), in_reply_to=in_reply_to).accepted
        adjudicate(game.dir, expect=f"{turn}/round")


def test_the_files_of_two_turns_saved_in_one_folder_overwrite_nothing(make_game: MakeGame, tmp_path: Path) -> None:
    game = make_game(tmp_path, players=("alice", "bob"))
    play_two_rounds(game)

    saved: dict[str, str] = {}  # a file name -> the letter it came with
    for message in letters_to(game, "alice"):
        for part in message.iter_attachments():
            name = part.get_filename() or ""
            if name in RECORDS or name.removesuffix(".sig") in RECORDS:
                continue  # the public record keeps the name it has in GAME/records/
            assert name not in saved, f"{name}: in {saved.get(name)!r} and in {message['Subject']!r}"
            saved[name] = str(message["Subject"])
    reports = sorted(name for name in saved if name.endswith(".report.txt"))
    assert reports == [f"{GAME_ID}-0001-t1-round-alice.report.txt", f"{GAME_ID}-0002-t2-round-alice.report.txt"]
    assert f"{GAME_ID}-0002-t2-round-alice.view-after.yaml" in saved
    assert f"{GAME_ID}-0003-t3-round-alice.view.yaml" in saved


def test_a_letter_names_the_files_it_attaches(make_game: MakeGame, tmp_path: Path) -> None:
    game = make_game(tmp_path, players=("alice", "bob"))
    play_two_rounds(game)

    for message in letters_to(game, "alice"):
        names = {part.get_filename() for part in message.iter_attachments()}
        body = message.get_body(("plain",))
        assert body is not None
        text = body.get_content()
        (signed,) = [name for name in names if name and name.endswith(".txt")]
        assert f"    {signed}\n    {signed}.sig\n" in text, message["Subject"]
        for view in [name for name in names if name and name.endswith(".yaml")]:
            assert f"    {view}\n" in text, (message["Subject"], view)


def test_every_letter_of_a_game_threads_under_the_players_first_notice(make_game: MakeGame, tmp_path: Path) -> None:
    game = make_game(tmp_path, players=("alice", "bob"))
    play_two_rounds(game, in_reply_to="<orders-mail@example.org>")

    for player in game.players:
        letters = letters_to(game, player)
        (first,) = [m for m in letters if "turn 1 round: orders open" in str(m["Subject"])]
        root = str(first["Message-ID"])
        assert first["References"] is None and first["In-Reply-To"] is None
        others = [m for m in letters if m is not first]
        assert len(others) >= 6  # acks, reports and notices of two rounds
        for message in others:
            references = str(message["References"]).split()
            assert references[0] == root, message["Subject"]
            if "orders accepted" in str(message["Subject"]):
                # An acknowledgement answers the player's mail, and stays in the game's thread.
                assert message["In-Reply-To"] == "<orders-mail@example.org>"
                assert references == [root, "<orders-mail@example.org>"]
            else:
                assert message["In-Reply-To"] == root


def test_a_reports_draws_are_told_in_plain_words() -> None:
    assert spec_words("2d6") == "2d6"
    assert spec_words("uniform(10)") == "a number from 0 to 9"
    assert spec_words("uniform(2)") == "a number from 0 to 1"
    assert spec_words("shuffle(5)") == "a shuffle of 5 (the new order, counting from 0)"
    assert spec_words("sealed(1)") == "1 sealed choice"
