"""Mail intake against real servers: Dovecot holds the referee's mailbox, aiosmtpd carries letters."""

from __future__ import annotations

from email import message_from_bytes, policy

from referee.game.status import status

from conftest import GAME_ID
from mailworld import ALERTS, REFEREE, MailWorld

ROLL = "rolls: [{label: scout, dice: 2d6, purpose: scouting}]"


def test_attached_orders_are_accepted_acknowledged_in_thread_and_moved(mail_world: MailWorld) -> None:
    raw = mail_world.order("alice", 1, ROLL)
    mail = mail_world.orders_mail("alice", raw)
    mail_world.deliver(mail)

    report = mail_world.run()

    assert report.ok, report.lines()
    assert report.intake.stored == 1 and report.intake.moved == 1
    assert status(mail_world.game_dirs[GAME_ID])["received"] == ["alice"]
    acks = [letter for letter in mail_world.letters("alice") if "orders accepted" in letter["Subject"]]
    assert len(acks) == 1
    incoming_id = message_from_bytes(mail, policy=policy.default)["Message-ID"]
    assert acks[0]["In-Reply-To"] == incoming_id
    assert acks[0]["Auto-Submitted"] == "auto-replied"
    assert mail_world.folder("INBOX") == []
    assert len(mail_world.folder("Processed")) == 1


def test_inline_orders_with_a_greeting_above_them_are_accepted(mail_world: MailWorld) -> None:
    raw = mail_world.order("bob", 1, ROLL)
    signature = mail_world.signature("bob", raw).decode()
    mail = mail_world.text_mail("bob@example.org", "Hello referee,\n\n" + raw.decode() + signature + "\n-- \nBob\n")
    mail_world.deliver(mail)

    report = mail_world.run()

    assert report.ok, report.lines()
    assert status(mail_world.game_dirs[GAME_ID])["received"] == ["bob"]


def test_a_full_phase_by_mail_is_adjudicated_and_reported_in_one_pass(mail_world: MailWorld) -> None:
    for player in mail_world.players:
        mail_world.send(mail_world.orders_mail(player, mail_world.order(player, 1, ROLL)), f"{player}@example.org")

    report = mail_world.run()

    assert report.ok, report.lines()
    assert any("adjudicated turn 1 round" in line for line in report.games)
    for player in mail_world.players:
        subjects = [letter["Subject"] for letter in mail_world.letters(player)]
        assert sum("report" in s for s in subjects) == 1, subjects
        assert sum("turn 2 round: orders open" in s for s in subjects) == 1, subjects
    assert status(mail_world.game_dirs[GAME_ID])["turn"] == 2


def test_the_same_mail_delivered_twice_is_handled_once_and_both_copies_move(mail_world: MailWorld) -> None:
    mail = mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL))
    mail_world.deliver(mail)
    mail_world.deliver(mail)

    report = mail_world.run()
    mail_world.deliver(mail)  # and once more, later
    again = mail_world.run()

    assert report.intake.stored == 1 and report.intake.duplicates == 1 and report.intake.moved == 2
    assert again.intake.duplicates == 1 and again.intake.moved == 1 and again.intake.handled == 0
    assert len([x for x in mail_world.letters("alice") if "orders" in x["Subject"]]) == 1
    assert mail_world.folder("INBOX") == []


def test_same_message_id_with_other_bytes_is_kept_but_not_handled_again(mail_world: MailWorld) -> None:
    mail = mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL))
    mail_world.deliver(mail)
    mail_world.deliver(b"Received: from relay.example.org\r\n" + mail)

    report = mail_world.run()

    assert report.intake.stored == 1 and report.intake.duplicates == 1
    assert len(list(mail_world.home.spool.iterdir())) == 2  # both kept
    assert len([x for x in mail_world.letters("alice") if "orders" in x["Subject"]]) == 1


def test_auto_replies_bounces_and_list_mail_are_ignored_without_a_reply(mail_world: MailWorld) -> None:
    mails = [
        mail_world.text_mail("alice@example.org", "I am on holiday", Auto_Submitted="auto-replied"),
        mail_world.text_mail("MAILER-DAEMON@example.org", "Delivery failed"),
        mail_world.text_mail("list@example.org", "digest", Precedence="list"),
        mail_world.text_mail("bob@example.org", "news", List_Id="<wargames.example.org>"),
        mail_world.text_mail("carol@example.org", "loop", X_Loop=REFEREE),
    ]
    for mail in mails:
        mail_world.deliver(mail)

    report = mail_world.run()

    assert report.ok and report.intake.handled == 5
    assert all("ignored" in outcome for outcome in report.intake.outcomes)
    assert mail_world.smtp.delivered == []
    assert len(mail_world.folder("Rejected")) == 5


def test_a_strangers_unreadable_mail_gets_a_reply_and_is_kept(mail_world: MailWorld) -> None:
    mail_world.deliver(mail_world.text_mail("stranger@example.net", "What is this?"))

    report = mail_world.run()

    assert report.ok
    replies = mail_world.smtp.letters_to("stranger@example.net")
    assert len(replies) == 1 and "no orders and no command" in replies[0]["Subject"]
    assert replies[0]["Auto-Submitted"] == "auto-replied"
    assert len(mail_world.folder("Rejected")) == 1
    assert len(list(mail_world.home.spool.iterdir())) == 1


def test_malformed_mails_get_clear_replies(mail_world: MailWorld) -> None:
    html_only = (
        b"From: alice@example.org\r\nTo: referee@example.org\r\nSubject: x\r\nMessage-ID: <h@x>\r\n"
        b"MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
        b"<p>game: test-game</p><p>-----BEGIN SSH SIGNATURE-----</p><p>AAAA</p><p>-----END SSH SIGNATURE-----</p>\r\n"
    )
    bad_charset = (
        b"From: bob@example.org\r\nTo: referee@example.org\r\nSubject: x\r\nMessage-ID: <c@x>\r\n"
        b"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=x-no-such-charset\r\n\r\nstatus\r\n"
    )
    broken_mime = (
        b"From: carol@example.org\r\nTo: referee@example.org\r\nSubject: x\r\nMessage-ID: <b@x>\r\n"
        b'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="zzz"\r\n\r\nno boundary ever\r\n'
    )
    for mail in (html_only, bad_charset, broken_mime):
        mail_world.deliver(mail)

    report = mail_world.run()

    assert report.ok, report.lines()
    subjects = {who: [x["Subject"] for x in mail_world.letters(who)] for who in ("alice", "bob", "carol")}
    assert subjects["alice"] == ["Your mail could not be read"]
    assert "HTML" in mail_world.letters("alice")[0].get_body(("plain",)).get_content()
    assert subjects["bob"] == ["Your mail could not be read"]
    assert "character set" in mail_world.letters("bob")[0].get_body(("plain",)).get_content()
    assert subjects["carol"] == ["Your mail could not be read"]
    assert len(mail_world.folder("Rejected")) == 3


def test_a_huge_attachment_is_kept_by_its_header_and_answered(mail_world: MailWorld) -> None:
    mail_world.home.config_path.write_text(mail_world.home.config_path.read_text() + "max_message_bytes: 1048576\n")
    big = mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL + "\nnote: '" + "x" * 1_500_000 + "'"))
    mail_world.deliver(big)

    report = mail_world.run()

    assert report.ok, report.lines()
    assert [x["Subject"] for x in mail_world.letters("alice")] == ["Your mail is too large"]
    (kept,) = mail_world.home.spool.iterdir()
    assert b"X-Referee-Oversized" in kept.read_bytes()
    assert len(mail_world.folder("Rejected")) == 1


def test_orders_signed_by_an_unknown_key_are_refused_to_the_player_and_briefly_to_the_sender(
    mail_world: MailWorld,
) -> None:
    raw = mail_world.order("alice", 1, ROLL)
    from referee.protocol.signatures import generate_keypair

    generate_keypair(mail_world.home.path / "mallory", comment="mallory")
    mail_world.keys["mallory"] = mail_world.home.path / "mallory"
    mail = mail_world.orders_mail("mallory", raw, sender="mallory@example.net")
    mail_world.deliver(mail)

    report = mail_world.run()

    assert report.ok
    (reply,) = mail_world.smtp.letters_to("mallory@example.net")
    assert "REFUSED" in reply["Subject"]
    assert not list(reply.iter_attachments()) and len(reply.as_bytes()) < 2 * len(mail)  # no amplification
    (told,) = mail_world.letters("alice")
    assert "REFUSED" in told["Subject"] and "mallory@example.net" in told.get_body(("plain",)).get_content()
    assert status(mail_world.game_dirs[GAME_ID])["received"] == []
    assert len(mail_world.folder("Rejected")) == 1


def test_commands_by_mail(mail_world: MailWorld) -> None:
    mail_world.deliver(mail_world.text_mail("alice@example.org", "help"))
    mail_world.deliver(mail_world.text_mail("bob@example.org", "status"))
    mail_world.deliver(mail_world.text_mail("carol@example.org", "report test-game"))
    mail_world.deliver(mail_world.text_mail("nobody@example.net", "status"))

    report = mail_world.run()

    assert report.ok, report.lines()
    (help_letter,) = mail_world.letters("alice")
    assert "absent GAME until" in help_letter.get_body(("plain",)).get_content()
    (status_letter,) = mail_world.letters("bob")
    assert "awaited   alice, bob, carol" in status_letter.get_body(("plain",)).get_content()
    (report_letter,) = mail_world.letters("carol")
    assert "no report yet" in report_letter["Subject"]
    (stranger,) = mail_world.smtp.letters_to("nobody@example.net")
    assert "plays in no game" in stranger["Subject"]


def test_report_command_sends_the_last_report_again(mail_world: MailWorld) -> None:
    for player in mail_world.players:
        mail_world.deliver(mail_world.orders_mail(player, mail_world.order(player, 1, ROLL)))
    mail_world.run()
    mail_world.deliver(mail_world.text_mail("carol@example.org", "report"))

    mail_world.run()

    again = [x for x in mail_world.letters("carol") if "again" in x["Subject"]]
    assert len(again) == 1
    names = {part.get_filename() for part in again[0].iter_attachments()}
    (first,) = [x for x in mail_world.letters("carol") if x["Subject"].endswith(": report")]
    # The files come again under the names the report gave them, which its text tells to save.
    assert names == {part.get_filename() for part in first.iter_attachments()}
    assert {f"{GAME_ID}-0001-t1-round-carol.report.txt", "0001-t1-round.json"} <= names


def test_alerts_and_passwords_stay_private(mail_world: MailWorld, capsys: object) -> None:
    mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL)))
    report = mail_world.run()
    text = "\n".join(report.lines())
    assert "imap-secret" not in text
    assert "imap-secret" not in repr(mail_world.home.load_config())
    for _, raw in mail_world.smtp.delivered:
        assert b"imap-secret" not in raw
    assert ALERTS not in text


def test_orders_signed_by_ssh_keygen_and_pasted_by_a_mail_client(mail_world: MailWorld, ssh_keygen: str) -> None:
    import subprocess

    order_file = mail_world.home.path / "orders.yaml"
    order_file.write_bytes(mail_world.order("carol", 1, ROLL))
    subprocess.run(
        [ssh_keygen, "-Y", "sign", "-f", str(mail_world.keys["carol"]), "-n", "pbem-orders", str(order_file)],
        check=True,
        capture_output=True,
    )
    signature = (mail_world.home.path / "orders.yaml.sig").read_text()
    # A mail client sends CRLF line ends and may add trailing spaces; the canonical text undoes both.
    body = order_file.read_text().replace("\n", "  \r\n") + signature.replace("\n", "\r\n")
    mail_world.deliver(mail_world.text_mail("carol@example.org", body))

    report = mail_world.run()

    assert report.ok, report.lines()
    assert status(mail_world.game_dirs[GAME_ID])["received"] == ["carol"]


def test_a_dispute_by_mail_is_recorded_alerted_and_its_resolution_goes_to_everyone(mail_world: MailWorld) -> None:
    from referee.game.disputes import disputes, resolve_dispute
    from referee.game.journal import GameDir

    for player in mail_world.players:
        mail_world.deliver(mail_world.orders_mail(player, mail_world.order(player, 1, ROLL)))
    mail_world.run()
    mail_world.smtp.clear()
    dispute = mail_world.command_file("bob", "dispute roll/alice/scout far too lucky")
    mail_world.deliver(mail_world.command_mail("bob", dispute))

    mail_world.run()

    (opened,) = disputes(GameDir(mail_world.game_dirs[GAME_ID]))
    assert opened["label"] == "roll/alice/scout" and opened["reason"] == "far too lucky"
    assert opened["record"] == "0001-t1-round.json" and opened["state"] == "open"
    (alert,) = mail_world.smtp.letters_to(ALERTS)
    assert "dispute #1 from bob" in alert["Subject"]
    assert "referee explain" in alert.get_body(("plain",)).get_content()
    assert any("dispute #1 recorded" in x["Subject"] for x in mail_world.letters("bob"))

    resolve_dispute(mail_world.game_dirs[GAME_ID], 1, "upheld", "the roll checks out")
    mail_world.run()

    for player in mail_world.players:
        (letter,) = [x for x in mail_world.letters(player) if "dispute #1 upheld" in x["Subject"]]
        body = letter.get_body(("plain",)).get_content()
        assert "far too lucky" in body and "the roll checks out" in body and "phase key" in body.lower()
    assert disputes(GameDir(mail_world.game_dirs[GAME_ID]))[0]["state"] == "upheld"


def test_without_move_messages_are_copied_flagged_and_expunged(mail_world: MailWorld) -> None:
    mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL)))
    mail_world.deliver(mail_world.text_mail("stranger@example.net", "hello?"))

    report = mail_world.run(use_move=False)

    assert report.ok and report.intake.moved == 2
    assert mail_world.folder("INBOX") == []
    assert len(mail_world.folder("Processed")) == 1 and len(mail_world.folder("Rejected")) == 1
