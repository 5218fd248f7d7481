"""Malformed and reused Message-IDs (issue 14): sanitised before they reach a reply's headers or
the ledger; a new mail reusing an old Message-ID is handled, a relayed copy is not."""

from __future__ import annotations

import pytest

from referee.game.status import status
from referee.mail.message import clean_message_id

from conftest import GAME_ID
from mailworld import MailWorld

ROLL = "rolls: [{label: scout, dice: 2d6, purpose: scouting}]"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("<abc@example.org>", "<abc@example.org>"),
        ("abc@example.org", "<abc@example.org>"),
        ("<abc\r\nBcc: victim@example.net>", "<abc>"),
        ("<" + "x" * 2000 + "@example.org>", None),
        ("<é@x>", "<@x>"),
        ("", None),
        ("   ", None),
        ("<>", None),
    ],
)
def test_clean_message_id(value: str, expected: str | None) -> None:
    assert clean_message_id(value) == expected


def raw_command(sender: str, message_id_header: bytes, body: bytes = b"status") -> bytes:
    return (
        b"From: " + sender.encode() + b"\r\nTo: referee@example.org\r\nSubject: x\r\n"
        b"Message-ID: " + message_id_header + b"\r\nMIME-Version: 1.0\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\n\r\n" + body + b"\r\n"
    )


def test_a_message_id_that_decodes_to_crlf_is_answered_and_the_pass_succeeds(mail_world: MailWorld) -> None:
    injected = b"=?utf-8?q?=3Cx=0D=0ABcc=3A_victim=40example=2Enet=3E?="
    mail_world.deliver(raw_command("alice@example.org", injected))
    mail_world.deliver(raw_command("bob@example.org", b"no-brackets-" + b"y" * 3000))

    report = mail_world.run()
    again = mail_world.run()

    assert report.ok, report.lines()
    assert again.ok, again.lines()
    (alice,) = mail_world.letters("alice")
    assert "Status" in alice["Subject"]
    assert "\n" not in str(alice["In-Reply-To"]) and "Bcc" not in str(alice["In-Reply-To"])
    assert mail_world.smtp.letters_to("victim@example.net") == []
    (bob,) = mail_world.letters("bob")
    assert bob["In-Reply-To"] is None
    assert mail_world.folder("INBOX") == []


def with_message_id(mail: bytes, message_id: bytes) -> bytes:
    head, _, body = mail.partition(b"\n\n")
    lines = [line for line in head.split(b"\n") if not line.lower().startswith(b"message-id:")]
    return b"\n".join([*lines, b"Message-ID: " + message_id]) + b"\n\n" + body


def test_a_new_mail_reusing_an_old_message_id_is_handled(mail_world: MailWorld) -> None:
    first = mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL))
    mail_world.deliver(with_message_id(first, b"<reused@example.org>"))
    mail_world.run()
    second = mail_world.orders_mail("bob", mail_world.order("bob", 1, ROLL))
    mail_world.deliver(with_message_id(second, b"<reused@example.org>"))

    report = mail_world.run()

    assert report.ok, report.lines()
    assert report.intake.stored == 1 and report.intake.duplicates == 0
    assert status(mail_world.game_dirs[GAME_ID])["received"] == ["alice", "bob"]
    assert any("orders accepted" in x["Subject"] for x in mail_world.letters("bob"))
