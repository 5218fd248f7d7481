"""Untrusted bytes bounded before they are parsed (issue 14): an order file nested 25,000 levels
deep, mails over the MIME limits, and a mail that kills the pass handling it, which the next
pass sets aside, telling the referee, while it handles every other mail."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest

from referee.game.journal import GameDir
from referee.mail.bounds import MAX_DEPTH, MAX_PARTS
from referee.mail.ledger import Ledger

from conftest import GAME_ID
from mailworld import ALERTS, PASSWORD_ENV, REFEREE, MailWorld

ROLL = "rolls: [{label: scout, dice: 2d6, purpose: scouting}]"
ROOT = Path(__file__).resolve().parents[2]
CRASH_MARK = "X-Test-Crash-While-Handling"
BRACKETS = "[" * 25_000 + "]" * 25_000  # 50 KB: libyaml's recursion in C crashed on it (issue 14)


def accepted_orders(world: MailWorld) -> int:
    return len(GameDir(world.game_dirs[GAME_ID]).log_entries(("order.accepted",)))


def acks(world: MailWorld, player: str) -> list[str]:
    return [x["Subject"] for x in world.letters(player) if "orders accepted" in x["Subject"]]


def referee_run(world: MailWorld) -> subprocess.CompletedProcess[str]:
    """A pass of `referee run` in its own process: a crash in it cannot take the tests down."""
    env = {**os.environ, PASSWORD_ENV: world.dovecot.password, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "referee", "run", "--home", str(world.home.path)]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


def pass_killed_while_handling(world: MailWorld, mark: str) -> subprocess.CompletedProcess[bytes]:
    """Run a pass in a subprocess that kills itself (SIGKILL) while handling the mail carrying `mark`."""
    driver = textwrap.dedent(
        f"""
        import os, signal, sys
        from pathlib import Path
        from referee.mail.home import Home
        from referee.mail.run import Hooks, run_pass
        home = Home(Path(sys.argv[1]))
        def kill(message):
            if {mark.encode()!r} in (home.spool / message.file).read_bytes():
                os.kill(os.getpid(), signal.SIGKILL)
        run_pass(home, hooks=Hooks(while_handling=kill))
        """
    )
    env = {**os.environ, PASSWORD_ENV: world.dovecot.password, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", driver, str(world.home.path)], env=env, capture_output=True)


def alerts(world: MailWorld, words: str) -> list[str]:
    letters = [x for x in world.smtp.letters_to(ALERTS) if words in x["Subject"]]
    return [" ".join(x.get_body(("plain",)).get_content().split()) for x in letters]  # lines joined


# -- a mail that kills a pass ---------------------------------------------------------------


def test_a_mail_that_killed_a_pass_is_set_aside_by_the_next_which_handles_the_others(mail_world: MailWorld) -> None:
    mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL)))
    poison = mail_world.orders_mail("carol", mail_world.order("carol", 1, ROLL), **{CRASH_MARK: "yes"})
    mail_world.deliver(poison)
    mail_world.deliver(mail_world.orders_mail("bob", mail_world.order("bob", 1, ROLL)))

    killed = pass_killed_while_handling(mail_world, CRASH_MARK)
    assert killed.returncode == -9, killed.stderr.decode()
    # Alice's was handled before the pass died on carol's, in the same batch: nothing of the batch
    # was committed, and the ledger names its mails to look at again.
    assert accepted_orders(mail_world) == 0
    ledger = Ledger(mail_world.home.ledger_path)
    try:
        assert [m.status for m in ledger.with_status("stored")] == ["stored"] * 3
        assert len(ledger.batch_started()) == 3
    finally:
        ledger.close()

    after = mail_world.run()

    assert after.ok, after.lines()
    assert after.intake.set_aside == 1 and "1 set aside" in after.lines()[0]
    assert accepted_orders(mail_world) == 2  # bob's too; carol's never reached the game
    assert len(acks(mail_world, "alice")) == 1 and len(acks(mail_world, "bob")) == 1
    assert acks(mail_world, "carol") == []
    (alert,) = alerts(mail_world, "set aside")
    assert "never finished" in alert and "carol@example.org" in alert and "referee submit" in alert
    assert mail_world.folder("INBOX") == []
    rejected = mail_world.folder("Rejected")
    assert len(rejected) == 1 and CRASH_MARK.encode() in rejected[0]
    assert len(mail_world.folder("Processed")) == 2

    again = mail_world.run()
    assert again.ok and again.intake.set_aside == 0
    assert len(alerts(mail_world, "set aside")) == 1  # told once


def test_a_mail_whose_handling_raised_is_not_set_aside_but_tried_again(
    mail_world: MailWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A caught error is not a dead process: the mail stays stored and the next pass tries it."""
    from referee.mail.run import Hooks

    mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL)))

    def fail(message: object) -> None:
        raise RuntimeError("a bug met by this mail")

    failed = mail_world.run(hooks=Hooks(while_handling=fail))
    assert not failed.ok and "a bug met by this mail" in "\n".join(failed.lines())
    fixed = mail_world.run()

    assert fixed.ok and fixed.intake.set_aside == 0 and fixed.intake.handled == 1
    assert accepted_orders(mail_world) == 1 and alerts(mail_world, "set aside") == []


# -- the order file that crashed libyaml ------------------------------------------------------


def test_a_signed_order_file_nested_50_kb_deep_is_refused_by_mail_and_the_pass_goes_on(mail_world: MailWorld) -> None:
    deep = mail_world.order("alice", 1, f"note: {BRACKETS}")
    mail_world.deliver(mail_world.orders_mail("alice", deep))
    mail_world.deliver(mail_world.orders_mail("bob", mail_world.order("bob", 1, ROLL)))

    run = referee_run(mail_world)

    assert run.returncode in (0, 1), (run.returncode, run.stderr)  # not -11 (SIGSEGV)
    assert "Traceback" not in run.stderr
    assert accepted_orders(mail_world) == 1
    refusals = [x for x in mail_world.letters("alice") if "REFUSED" in x["Subject"]]
    assert len(refusals) == 1
    text = refusals[0].get_body(("plain",)).get_content()
    assert "nests 25,0" in text and "at most 64" in text
    assert len(acks(mail_world, "bob")) == 1
    assert mail_world.folder("INBOX") == []


# -- mails over the MIME limits ---------------------------------------------------------------


def nested_multiparts(sender: str, levels: int, **headers: str) -> bytes:
    marks = [b"b%d" % level for level in range(levels)]
    opening = [b'Content-Type: multipart/mixed; boundary="' + mark + b'"\r\n\r\n--' + mark + b"\r\n" for mark in marks]
    closing = [b"\r\n--" + mark + b"--\r\n" for mark in marks]
    body = b"".join(opening[::-1]) + b"Content-Type: text/plain\r\n\r\nstatus\r\n" + b"".join(closing)
    head = f"From: {sender}\r\nTo: {REFEREE}\r\nSubject: hi\r\nMessage-ID: {make_msgid(domain='example.org')}\r\n"
    head += "".join(f"{name.replace('_', '-')}: {value}\r\n" for name, value in headers.items())
    return head.encode() + b"MIME-Version: 1.0\r\n" + body


def many_parts(sender: str, parts: int) -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, REFEREE, "hi"
    message["Message-ID"] = make_msgid(domain="example.org")
    message.set_content("status\n")
    for index in range(parts):
        message.add_attachment(f"part {index}\n", filename=f"part{index}.txt")
    return bytes(message)


@pytest.mark.parametrize(
    "raw, words",
    [
        (nested_multiparts("mallory@example.net", 5_000), f"more than {MAX_DEPTH} levels"),
        (many_parts("mallory@example.net", MAX_PARTS + 5), f"more than {MAX_PARTS} MIME parts"),
        (
            b"From: mallory@example.net\r\nSubject: hi\r\n" + b"X-Filler: x\r\n" * 2_000 + b"\r\nstatus\r\n",
            "more than 1,000 header fields",
        ),
    ],
    ids=["nested", "parts", "header"],
)
def test_a_mail_over_the_mime_limits_is_answered_and_rejected_unparsed(
    mail_world: MailWorld, raw: bytes, words: str
) -> None:
    mail_world.deliver(raw)
    mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL)))

    report = mail_world.run()

    assert report.ok, report.lines()
    (reply,) = mail_world.smtp.letters_to("mallory@example.net")
    assert "could not be read" in reply["Subject"]
    assert words in reply.get_body(("plain",)).get_content()
    assert len(mail_world.folder("Rejected")) == 1 and len(mail_world.folder("Processed")) == 1
    assert accepted_orders(mail_world) == 1


def test_replies_to_mails_over_the_limits_are_rate_limited_and_machine_mail_is_not_answered(
    mail_world: MailWorld,
) -> None:
    for _ in range(8):
        mail_world.deliver(nested_multiparts("mallory@example.net", 100))
    mail_world.deliver(nested_multiparts("daemon@example.net", 100, Auto_Submitted="auto-replied"))

    report = mail_world.run()

    assert report.ok, report.lines()
    assert len(mail_world.smtp.letters_to("mallory@example.net")) == 5
    assert mail_world.smtp.letters_to("daemon@example.net") == []
    assert len(mail_world.folder("Rejected")) == 9
