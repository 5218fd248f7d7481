"""What a letter keeps under GAMEDIR/mail/ (issue 23, item 7: bounded disk a round): its HTML is
kept gzipped, the same bytes every time, and is the HTML that was mailed; a game kept before,
with plain NAME.html files, still reads and audits.

A real moderator game is played through the engine; its outbox is read as a mail client would.
"""

from __future__ import annotations

import email
import gzip
from email import policy
from email.message import EmailMessage
from pathlib import Path

import kept_letters

from referee.game.audit import audit
from referee.game.engine import adjudicate
from referee.letters.post import read_kept_html

from conftest import MakeGame, TestGame

ROLL = "rolls:\n  - {label: attack, dice: 2d6, purpose: the attack}\n"


def play_a_round(game: TestGame) -> None:
    for player in game.players:
        assert game.submit(player, 1, ROLL).accepted
    adjudicate(game.dir, expect="1/round")


def mailed_html(game: TestGame, subject_part: str, player: str) -> str:
    for path in sorted((game.dir / "outbox" / "new").glob("*.eml")):
        message = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        assert isinstance(message, EmailMessage)
        if message["To"] == f"{player}@example.org" and subject_part in str(message["Subject"]):
            body = message.get_body(preferencelist=("html",))
            assert body is not None
            return str(body.get_content())
    raise AssertionError(f"no letter '{subject_part}' to {player}")


def test_letters_keep_their_html_gzipped_and_as_mailed(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    kept_letters.as_kept_before(game.dir)  # what this file tests is how games begun before keep letters
    play_a_round(game)
    folder = game.dir / "mail" / "0001-t1-round"
    assert not list((game.dir / "mail").rglob("*.html")), "no plain HTML is kept any more"
    for player in game.players:
        for kind, subject in (("notice", "turn 1 round: orders open"), ("report", "turn 1 round: report")):
            packed = folder / f"{player}.{kind}.html.gz"
            data = packed.read_bytes()
            assert data[:2] == b"\x1f\x8b" and gzip.compress(gzip.decompress(data), 6, mtime=0) == data
            kept = read_kept_html(folder / f"{player}.{kind}.html")
            assert kept.startswith("<!DOCTYPE html>")
            assert kept.replace("\r\n", "\n") == mailed_html(game, subject, player).replace("\r\n", "\n")


def test_a_game_that_kept_plain_html_still_reads_and_audits(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    kept_letters.as_kept_before(game.dir)  # what this file tests is how games begun before keep letters
    play_a_round(game)
    for packed in (game.dir / "mail").rglob("*.html.gz"):  # as games kept their letters before
        packed.with_suffix("").write_bytes(gzip.decompress(packed.read_bytes()))
        packed.unlink()
    plain = game.dir / "mail" / "0001-t1-round" / "alice.report.html"
    assert read_kept_html(plain) == plain.read_text(encoding="utf-8")
    report = audit(game.dir)
    assert report.ok and report.letters > 0


def test_a_view_kept_twice_is_on_disk_once(tmp_path: Path, make_game: MakeGame) -> None:
    game = make_game(tmp_path)
    kept_letters.as_kept_before(game.dir)  # what this file tests is how games begun before keep letters
    play_a_round(game)
    mail = game.dir / "mail"
    for player in game.players:
        after, next_view = (
            mail / "0001-t1-round" / f"{player}.view-after.yaml",
            mail / "0002-t2-round" / f"{player}.view.yaml",
        )
        assert after.read_bytes() == next_view.read_bytes()
        assert after.stat().st_ino == next_view.stat().st_ino, "the next notice's view is the report's, linked"
    assert audit(game.dir).ok
