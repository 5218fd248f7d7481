"""Orders arrive however a mail client sends them: mutt, Thunderbird, Gmail, Outlook and Apple Mail
shapes (tests/mail/mail_clients.py), files and signatures pasted or attached, forwarded, flowed;
and once composed by the real mutt, sent through the real SMTP -> Dovecot path."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from referee.game.status import status
from referee.mail.intake import signed_form as intake_signed_form
from referee.mail.message import read_message
from referee.protocol.signatures import NAMESPACE_ORDERS, generate_keypair, load_private_key, sign

from conftest import GAME_ID
from mail_clients import CLIENTS, REFEREE, mutt
from mailworld import MailWorld

ROLL = "rolls: [{label: scout, dice: 2d6, purpose: scouting}]"
# A line long enough for a client to wrap, and trailing text a client might touch.
ORDERS = (
    b"game: test-game\nturn: 1\nphase: round\nplayer: alice\norders:\n"
    b"  rolls: [{label: scout, dice: 2d6, purpose: scouting the northern woods beyond the river}]\n"
)


def signed_form(raw_mail: bytes) -> bytes | None:
    """Return the form of the (only) order file that its signature covers, or None."""
    (part,) = read_message(raw_mail, REFEREE).orders
    assert part.signature is not None, part
    return intake_signed_form(part)


@pytest.fixture(scope="module")
def key(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("keys") / "alice"
    generate_keypair(path, comment="alice@example.org")
    return path


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_each_client_shape_yields_the_signed_bytes(client: str, key: Path) -> None:
    signature = sign(ORDERS, load_private_key(key), NAMESPACE_ORDERS).encode()
    assert signed_form(CLIENTS[client]("alice@example.org", ORDERS, signature)) == ORDERS


def test_a_file_signed_with_crlf_or_without_final_newline_is_found_too(key: Path) -> None:
    for original in (ORDERS.replace(b"\n", b"\r\n"), ORDERS.rstrip(b"\n")):
        signature = sign(original, load_private_key(key), NAMESPACE_ORDERS).encode()
        assert signed_form(mutt("alice@example.org", original, signature)) == original


def test_a_form_the_signature_does_not_cover_is_never_used(key: Path) -> None:
    signature = sign(ORDERS, load_private_key(key), NAMESPACE_ORDERS).encode()
    tampered = ORDERS.replace(b"2d6", b"3d6")
    for client in ("mutt", "gmail", "outlook"):
        assert signed_form(CLIENTS[client]("alice@example.org", tampered, signature)) is None


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_each_client_shape_is_accepted_through_dovecot(client: str, mail_world: MailWorld) -> None:
    raw = mail_world.order("alice", 1, ROLL + "  # and a comment long enough to be wrapped by a client")
    mail_world.deliver(CLIENTS[client]("alice@example.org", raw, mail_world.signature("alice", raw)))

    report = mail_world.run()

    assert report.ok, report.lines()
    assert status(mail_world.game_dirs[GAME_ID])["received"] == ["alice"], report.intake.outcomes
    assert any("orders accepted" in letter["Subject"] for letter in mail_world.letters("alice"))


def test_a_changed_attachment_is_refused_without_telling_to_attach_it(mail_world: MailWorld) -> None:
    raw = mail_world.order("alice", 1, ROLL)
    signature = mail_world.signature("alice", raw)
    mail_world.deliver(mutt("alice@example.org", raw.replace(b"2d6", b"3d6"), signature))

    report = mail_world.run()

    assert status(mail_world.game_dirs[GAME_ID])["received"] == []
    (refusal,) = [x for x in mail_world.letters("alice") if "REFUSED" in x["Subject"]]
    body = refusal.get_body(("plain",)).get_content()
    assert "does not match the file" in body, body
    assert "send it as an attachment" not in body and "exactly as signed" in body, report.lines()


# -- the real mutt ---------------------------------------------------------------------


def compose_with_mutt(folder: Path, sender: str, files: list[Path]) -> bytes:
    """Send a mail with `files` attached with the real mutt in batch mode; return what it sent."""
    out = folder / "sent.eml"
    sendmail = folder / "sendmail"
    sendmail.write_text(f"#!/bin/sh\ncat > {out}\n")
    sendmail.chmod(0o755)
    muttrc = folder / "muttrc"
    muttrc.write_text(
        f'set sendmail="{sendmail}"\nset from="{sender}"\nset use_from=yes\nset realname="Alice"\n'
        "set charset=utf-8\nset record=\nset copy=no\n"  # send_charset stays us-ascii:iso-8859-1:utf-8
    )
    (folder / "body.txt").write_text("My orders are attached.\n")
    with open(folder / "body.txt", "rb") as body:
        subprocess.run(
            ["mutt", "-n", "-F", str(muttrc), "-s", "orders", "-a", *map(str, files), "--", REFEREE],
            stdin=body,
            env={**os.environ, "HOME": str(folder), "MAILCAPS": "/dev/null"},
            check=True,
            timeout=30,
        )
    return out.read_bytes()


@pytest.mark.skipif(shutil.which("mutt") is None, reason="mutt is not installed: scripts/test installs it")
def test_orders_attached_by_the_real_mutt_are_accepted(mail_world: MailWorld, tmp_path: Path) -> None:
    # mutt sends a text file with CRLF line ends, and transcodes its UTF-8 to iso-8859-1 when it can.
    raw = mail_world.order("alice", 1, ROLL.replace("scouting", "\u00e9claireurs"))
    (tmp_path / "orders.yaml").write_bytes(raw)
    (tmp_path / "orders.yaml.sig").write_bytes(mail_world.signature("alice", raw))
    sent = compose_with_mutt(tmp_path, "alice@example.org", [tmp_path / "orders.yaml", tmp_path / "orders.yaml.sig"])
    assert (
        b'Content-Type: text/plain; charset=iso-8859-1\nContent-Disposition: attachment; filename="orders.yaml"' in sent
    )

    mail_world.send(sent, "alice@example.org")  # SMTP (aiosmtpd) -> Dovecot, as the referee receives it
    report = mail_world.run()

    assert report.ok, report.lines()
    assert status(mail_world.game_dirs[GAME_ID])["received"] == ["alice"], report.intake.outcomes
    assert any("orders accepted" in letter["Subject"] for letter in mail_world.letters("alice"))
