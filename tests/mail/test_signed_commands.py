"""Commands that change a game need the player's signature (issue 14): forged, unsigned,
replayed and wrongly signed commands change nothing; signed ones work, by attachment or pasted,
signed by ssh-keygen itself."""

from __future__ import annotations

import subprocess
from datetime import date, timedelta
from pathlib import Path

from referee.game.attendance import absent_players
from referee.game.disputes import disputes
from referee.game.journal import GameDir
from referee.protocol.signatures import generate_keypair

from conftest import GAME_ID
from mailworld import ALERTS, MailWorld

UNTIL = (date.today() + timedelta(days=10)).isoformat()


def absent(world: MailWorld) -> set[str]:
    return set(absent_players(GameDir(world.game_dirs[GAME_ID]), date.today()))


def test_a_forged_unsigned_absence_changes_nothing_and_the_player_gets_a_file_to_sign(
    mail_world: MailWorld, ssh_keygen: str, tmp_path: Path
) -> None:
    forged = mail_world.text_mail("carol@example.org", f"absent {GAME_ID} until {UNTIL}")
    mail_world.deliver(forged)

    report = mail_world.run()

    assert report.ok, report.lines()
    assert absent(mail_world) == set()
    (letter,) = mail_world.letters("carol")
    assert "sign to confirm: absent" in letter["Subject"]
    body = letter.get_body(("plain",)).get_content()
    assert "-n pbem-command command.yaml" in body
    (attached,) = [part for part in letter.iter_attachments() if part.get_filename() == "command.yaml"]
    command_file = attached.get_content()
    command_file = command_file if isinstance(command_file, bytes) else command_file.encode()
    assert f"command: absent until {UNTIL}".encode() in command_file
    assert len(mail_world.folder("Rejected")) == 1

    # Carol did send it: she signs the file as it came, with ssh-keygen, and mails both files back.
    path = tmp_path / "command.yaml"
    path.write_bytes(command_file)
    keygen = [ssh_keygen, "-Y", "sign", "-f", str(mail_world.keys["carol"]), "-n", "pbem-command", str(path)]
    subprocess.run(keygen, check=True, capture_output=True)
    mail_world.smtp.clear()
    mail_world.deliver(signed_mail("carol@example.org", command_file, (tmp_path / "command.yaml.sig").read_bytes()))

    report = mail_world.run()

    assert report.ok, report.lines()
    assert absent(mail_world) == {"carol"}
    assert any("absence recorded" in x["Subject"] for x in mail_world.letters("carol"))


def signed_mail(sender: str, command_file: bytes, signature: bytes) -> bytes:
    from email.message import EmailMessage
    from email.utils import make_msgid

    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, "referee@example.org", "Re: sign to confirm"
    message["Message-ID"] = make_msgid(domain="example.org")
    message.set_content("Signed.\n")
    message.add_attachment(command_file, maintype="text", subtype="plain", filename="command.yaml")
    message.add_attachment(signature, maintype="application", subtype="octet-stream", filename="command.yaml.sig")
    return bytes(message)


def test_unsigned_back_and_dispute_change_nothing(mail_world: MailWorld) -> None:
    mail_world.deliver(mail_world.command_mail("bob", mail_world.command_file("bob", f"absent until {UNTIL}")))
    mail_world.run()
    assert absent(mail_world) == {"bob"}
    mail_world.smtp.clear()

    mail_world.deliver(mail_world.text_mail("bob@example.org", "back"))
    mail_world.deliver(mail_world.text_mail("bob@example.org", "dispute roll/alice/scout suspicious"))
    report = mail_world.run()

    assert report.ok, report.lines()
    assert absent(mail_world) == {"bob"}
    assert disputes(GameDir(mail_world.game_dirs[GAME_ID])) == []
    assert mail_world.smtp.letters_to(ALERTS) == []
    assert sorted(x["Subject"] for x in mail_world.letters("bob")) == [
        f"[{GAME_ID}] sign to confirm: back",
        f"[{GAME_ID}] sign to confirm: dispute",
    ]


def test_a_signed_command_works_once_and_a_replay_is_refused(mail_world: MailWorld) -> None:
    command_file = mail_world.command_file("alice", f"absent until {UNTIL}", nonce="first-absence-1")
    mail_world.deliver(mail_world.command_mail("alice", command_file))
    mail_world.run()
    assert absent(mail_world) == {"alice"}
    mail_world.deliver(mail_world.command_mail("alice", mail_world.command_file("alice", "back")))
    mail_world.run()
    assert absent(mail_world) == set()
    mail_world.smtp.clear()

    # The same signed file again, in a new mail: refused, nothing changes.
    mail_world.deliver(mail_world.command_mail("alice", command_file))
    report = mail_world.run()

    assert report.ok, report.lines()
    assert absent(mail_world) == set()
    (refusal,) = mail_world.letters("alice")
    assert "command REFUSED" in refusal["Subject"]
    assert "already used" in refusal.get_body(("plain",)).get_content()

    # Another file with the same nonce is a replay too.
    mail_world.deliver(
        mail_world.command_mail("alice", mail_world.command_file("alice", "back", nonce="first-absence-1"))
    )
    report = mail_world.run()
    assert any("replayed" in line for line in report.intake.outcomes), report.lines()


def test_the_same_mail_handled_again_after_a_crash_is_not_a_replay(mail_world: MailWorld) -> None:
    from datetime import UTC, datetime

    from referee.mail.directory import Directory
    from referee.mail.intake import handle_message
    from referee.mail.ledger import Ledger

    mail_world.deliver(mail_world.command_mail("bob", mail_world.command_file("bob", f"absent until {UNTIL}")))
    mail_world.run()
    ledger = Ledger(mail_world.home.ledger_path)
    try:
        (stored,) = ledger.with_status("handled")
        home, config = mail_world.home, mail_world.home.load_config()
        answer = handle_message(home, config, Directory.load(home), ledger, stored, datetime.now(UTC))
    finally:
        ledger.close()
    assert answer.destination == "processed", answer


def test_a_command_signed_by_another_key_is_refused_to_the_player_and_briefly_to_the_sender(
    mail_world: MailWorld,
) -> None:
    generate_keypair(mail_world.home.path / "mallory", comment="mallory")
    mail_world.keys["mallory"] = mail_world.home.path / "mallory"
    command_file = mail_world.command_file("carol", f"absent until {UNTIL}")
    mail_world.deliver(mail_world.command_mail("carol", command_file, signer="mallory", sender="carol@new.example.net"))
    # An order signature is no command signature either: the namespaces differ.
    order_signed = mail_world.command_file("carol", "back")
    mail = mail_world.orders_mail("carol", order_signed).replace(b"orders.yaml", b"command.yaml")
    mail_world.deliver(mail)

    report = mail_world.run()

    assert report.ok, report.lines()
    assert absent(mail_world) == set()
    subjects = [x["Subject"] for x in mail_world.letters("carol")]
    assert subjects.count(f"[{GAME_ID}] command REFUSED") == 2, subjects
    (short,) = mail_world.smtp.letters_to("carol@new.example.net")
    body = " ".join(short.get_body(("plain",)).get_content().split())
    assert "not the key registered for carol" in body and "help" in body
    assert "How to play by mail" not in body  # a stranger gets the short note, not the whole help


def test_a_signed_dispute_with_a_reason_is_recorded(mail_world: MailWorld) -> None:
    raw = mail_world.command_file("bob", "dispute roll/alice/scout") + b"reason: |\n  Far too lucky.\n  Twice.\n"
    mail_world.deliver(mail_world.command_mail("bob", raw))

    report = mail_world.run()

    assert report.ok, report.lines()
    (opened,) = disputes(GameDir(mail_world.game_dirs[GAME_ID]))
    assert opened["player"] == "bob" and opened["reason"] == "Far too lucky.\nTwice."


def test_command_files_that_cannot_be_done_are_refused_to_the_player(mail_world: MailWorld) -> None:
    no_nonce = b"game: test-game\nplayer: alice\ncommand: back\n"
    reads_only = mail_world.command_file("alice", "status")
    for raw in (no_nonce, reads_only):
        mail_world.deliver(mail_world.command_mail("alice", raw))

    report = mail_world.run()

    assert report.ok, report.lines()
    letters = mail_world.letters("alice")
    assert [x["Subject"] for x in letters] == [f"[{GAME_ID}] command REFUSED"] * 2
    text = " ".join(" ".join(x.get_body(("plain",)).get_content().split()) for x in letters)
    assert "needs a 'nonce:'" in text and "must be one of: absent, back, dispute" in text


def test_a_command_file_pasted_above_its_signature_works(mail_world: MailWorld) -> None:
    from referee.protocol.signatures import NAMESPACE_COMMANDS, load_private_key, sign

    raw = mail_world.command_file("carol", f"absent until {UNTIL}")
    signature = sign(raw, load_private_key(mail_world.keys["carol"]), NAMESPACE_COMMANDS)
    body = "Hello,\n\n" + raw.decode().replace("\n", "  \r\n") + signature.replace("\n", "\r\n")
    mail_world.deliver(mail_world.text_mail("carol@example.org", body))

    report = mail_world.run()

    assert report.ok, report.lines()
    assert absent(mail_world) == {"carol"}


def test_requests_to_sign_are_limited_so_forged_mail_cannot_flood_a_player(mail_world: MailWorld) -> None:
    from referee.mail.strangers import REPLIES_PER_STRANGER_PER_DAY

    for _ in range(REPLIES_PER_STRANGER_PER_DAY + 3):
        mail_world.deliver(mail_world.text_mail("alice@example.org", f"absent until {UNTIL}"))

    report = mail_world.run()

    assert report.ok, report.lines()
    assert len(mail_world.letters("alice")) == REPLIES_PER_STRANGER_PER_DAY
    assert absent(mail_world) == set()
