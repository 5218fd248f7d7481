"""Backscatter (issue 14): every reply to an address outside a game goes through one limiter,
and is short."""

from __future__ import annotations

from referee.mail.strangers import REPLIES_PER_STRANGER_PER_DAY

from mailworld import MailWorld

ROLL = "rolls: [{label: scout, dice: 2d6, purpose: scouting}]"
VICTIM = "victim@example.net"


def test_every_kind_of_reply_to_a_stranger_is_limited_and_short(mail_world: MailWorld) -> None:
    mails = [mail_world.text_mail(VICTIM, body) for body in ("help", "status", "report", "absent x until 2030-01-01")]
    mails.append(mail_world.text_mail(VICTIM, "What is this?"))
    unknown_game = mail_world.order("alice", 1, ROLL, game="no-such-game")
    mails.append(mail_world.orders_mail("alice", unknown_game, sender=VICTIM))
    mails.append(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL), sender=VICTIM).replace(
        b"Content-Type: multipart/mixed; boundary=", b"Content-Type: multipart/mixed; boundary=x"
    ))  # fmt: skip
    for mail in mails:
        mail_world.deliver(mail)

    report = mail_world.run()

    assert report.ok, report.lines()
    replies = mail_world.smtp.letters_to(VICTIM)
    assert len(replies) == REPLIES_PER_STRANGER_PER_DAY
    smallest = min(len(mail) for mail in mails)  # a bare mail of a few headers: the worst case
    for reply in replies:
        assert not list(reply.iter_attachments())
        assert len(reply.as_bytes()) < 5 * smallest, (reply["Subject"], len(reply.as_bytes()), smallest)
    assert report.intake.handled == len(mails)


def test_a_player_still_gets_the_whole_help(mail_world: MailWorld) -> None:
    mail_world.deliver(mail_world.text_mail("alice@example.org", "help"))
    mail_world.run()
    (letter,) = mail_world.letters("alice")
    assert "pbem-command" in letter.get_body(("plain",)).get_content()
