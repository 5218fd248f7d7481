"""Undeliverable players (issue 14): a permanent SMTP refusal (550) is not retried and alerts the
referee; a bounce delivered through Dovecot does the same; the player is shown unreachable and
named in the other players' letters until a mail from them clears it."""

from __future__ import annotations

from email import message_from_bytes, policy

from referee.game.engine import adjudicate
from referee.game.status import status, status_text

from conftest import GAME_ID
from mailworld import ALERTS, REFEREE, MailWorld

ROLL = "rolls: [{label: scout, dice: 2d6, purpose: scouting}]"
REFUSAL = "550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown"


def body(letter: object) -> str:
    return str(letter.get_body(("plain",)).get_content())  # type: ignore[attr-defined]


def play_turn(world: MailWorld, turn: int, players: tuple[str, ...]) -> None:
    for player in players:
        world.deliver(world.orders_mail(player, world.order(player, turn, ROLL)))


def test_a_550_is_not_retried_alerts_the_referee_and_marks_the_player_unreachable(mail_world: MailWorld) -> None:
    handler = mail_world.smtp.handler
    assert handler is not None
    handler.refuse["bob@example.org"] = REFUSAL
    play_turn(mail_world, 1, mail_world.players)

    report = mail_world.run()

    assert report.ok, report.lines()
    tries = len(handler.refused)
    assert tries >= 2  # bob's acknowledgement, report and next notice were each tried once
    alerts = mail_world.smtp.letters_to(ALERTS)
    assert alerts and all("undeliverable" in x["Subject"] and "bob" in x["Subject"] for x in alerts)
    text = body(alerts[0])
    assert GAME_ID in text and "User unknown" in text and "Letter: [test-game]" in text
    info = status(mail_world.game_dirs[GAME_ID])
    assert list(info["unreachable"]) == ["bob"]
    assert "unreachable bob" in status_text(info)
    failed = mail_world.game_dirs[GAME_ID] / "outbox" / "failed"
    assert len(list(failed.iterdir())) == tries  # kept, not dropped

    again = mail_world.run()
    assert again.ok and len(handler.refused) == tries  # never tried again

    # The other players' next letters say bob cannot be reached; bob's own letters do not.
    mail_world.smtp.clear()
    play_turn(mail_world, 2, ("alice", "carol"))
    mail_world.run()
    adjudicate(mail_world.game_dirs[GAME_ID], force=True)
    mail_world.run()
    subjects = [x["Subject"] for x in mail_world.letters("alice")]
    reports = [x for x in mail_world.letters("alice") if "turn 2 round: report" in x["Subject"]]
    assert len(reports) == 1, subjects
    report_letter = reports[0]
    assert "Mail to bob cannot be delivered" in " ".join(body(report_letter).split())

    # A mail from bob clears it.
    handler.refuse.clear()
    mail_world.deliver(mail_world.text_mail("bob@example.org", "status"))
    mail_world.run()
    assert "unreachable" not in status(mail_world.game_dirs[GAME_ID])


def dsn(original: bytes, recipient: str) -> bytes:
    """A delivery status notification (RFC 3464) as Postfix writes one."""
    headers = original.split(b"\n\n", 1)[0].replace(b"\r\n", b"\n")
    return (
        b"From: MAILER-DAEMON@mx.example.org (Mail Delivery System)\n"
        b"To: " + REFEREE.encode() + b"\n"
        b"Subject: Undelivered Mail Returned to Sender\n"
        b"Auto-Submitted: auto-replied\n"
        b"Message-ID: <20261125.bounce@mx.example.org>\n"
        b"MIME-Version: 1.0\n"
        b'Content-Type: multipart/report; report-type=delivery-status; boundary="BOUNDARY"\n\n'
        b"--BOUNDARY\nContent-Type: text/plain\n\nI'm sorry to have to inform you that your message could not\n"
        b"be delivered to one or more recipients.\n\n"
        b"--BOUNDARY\nContent-Type: message/delivery-status\n\n"
        b"Reporting-MTA: dns; mx.example.org\n\n"
        b"Final-Recipient: rfc822; "
        + recipient.encode()
        + b"\nOriginal-Recipient: rfc822;"
        + recipient.encode()
        + b"\n"
        b"Action: failed\nStatus: 5.2.2\nDiagnostic-Code: smtp; 552 5.2.2 Mailbox full\n\n"
        b"--BOUNDARY\nContent-Type: text/rfc822-headers\n\n" + headers + b"\n\n--BOUNDARY--\n"
    )


def test_a_bounce_through_dovecot_alerts_the_referee_and_marks_the_player(mail_world: MailWorld) -> None:
    mail_world.deliver(mail_world.orders_mail("carol", mail_world.order("carol", 1, ROLL)))
    mail_world.run()
    (ack,) = mail_world.letters("carol")
    raw_ack = next(raw for to, raw in mail_world.smtp.delivered if to == "carol@example.org")
    mail_world.smtp.clear()
    holiday = mail_world.text_mail(
        "carol@example.org", "I am away", Auto_Submitted="auto-replied", In_Reply_To=ack["Message-ID"]
    )
    mail_world.deliver(holiday)  # an auto-reply quoting our letter is no bounce
    mail_world.run()
    assert "unreachable" not in status(mail_world.game_dirs[GAME_ID])

    mail_world.deliver(dsn(raw_ack, "carol@example.org"))
    report = mail_world.run()

    assert report.ok, report.lines()
    (alert,) = mail_world.smtp.letters_to(ALERTS)
    assert "undeliverable" in alert["Subject"] and "carol" in alert["Subject"]
    assert "Mailbox full" in " ".join(body(alert).split()) and str(ack["Message-ID"]) in "".join(body(alert).split())
    assert list(status(mail_world.game_dirs[GAME_ID])["unreachable"]) == ["carol"]
    assert mail_world.letters("carol") == []  # a bounce is never answered
    assert message_from_bytes(mail_world.folder("Rejected")[-1], policy=policy.default)["Subject"].startswith(
        "Undelivered"
    )


def test_a_refusal_about_the_referees_own_set_up_is_retried_and_marks_nobody(mail_world: MailWorld) -> None:
    handler = mail_world.smtp.handler
    assert handler is not None
    handler.refuse["alice@example.org"] = "554 5.7.1 <alice@example.org>: Relay access denied"
    mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL)))

    report = mail_world.run()

    assert not report.ok and any("Relay access denied" in line for line in report.send.failed)
    assert "unreachable" not in status(mail_world.game_dirs[GAME_ID])
    assert mail_world.smtp.letters_to(ALERTS) == []
    assert len(list((mail_world.game_dirs[GAME_ID] / "outbox" / "new").iterdir())) == 1  # waits for a retry
