"""The outbox: outgoing mail as a maildir inside the game directory.

Every message has a deterministic Message-ID and a file name made from it, so writing the
same letter twice (after a crash) leaves one message, and a sender can tell a resend.

A letter sent is moved to cur/ and kept there as its headers alone (`keep_sent`): its text and
files are kept once, under GAMEDIR/mail/, where the audit reads them; the headers are what
cur/ is for (the Message-ID never posted twice, a bounce matched to its letter and player).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formataddr, formatdate
from pathlib import Path

from referee.files import write_staged
from referee.letters.headers import FoldOnce, RememberedHeaders

FOLDERS = ("tmp", "new", "cur")
# Long Message-IDs stay on one line: some mail tools mishandle a folded one.
BOUNDARY = "=" * 15 + secrets.token_hex(16)
HEADER_POLICY = FoldOnce(max_line_length=998, header_factory=RememberedHeaders())


@dataclass(frozen=True)
class Attachment:
    """A file attached to a letter, sent byte for byte."""

    filename: str
    data: bytes
    content_type: str = "application/octet-stream"
    kept: bool = True  # also kept beside the letter under GAMEDIR/mail/ (False: it is stored elsewhere)
    # Every player gets the same file (the public record, its signature), so it goes plain even
    # to a player who asked for encryption. Private is the default: a forgotten flag stays safe.
    public: bool = False


@dataclass
class Letter:
    """One message to one player."""

    to: str
    subject: str
    text: str
    html: str
    message_id: str
    in_reply_to: str | None = None
    # The Message-ID of the first letter of the conversation (a game's first notice to this
    # player): named in References, so that mail clients file every letter of a game together.
    thread: str | None = None
    auto_submitted: str = "auto-generated"
    attachments: list[Attachment] = field(default_factory=list)


def make_message_id(domain: str, *parts: str) -> str:
    """Return a deterministic Message-ID built from `parts` (readable, with a short hash)."""
    readable = ".".join(re.sub(r"[^A-Za-z0-9_-]", "-", part) for part in parts)[:120]
    digest = hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:12]
    return f"<{readable}.{digest}@{domain}>"


def build_message(letter: Letter, sender: str, sender_name: str) -> EmailMessage:
    """Return the letter as a MIME message: text and HTML alternatives (or text alone, when the
    letter has no HTML) plus attachments."""
    message = EmailMessage(policy=HEADER_POLICY)
    message["From"] = formataddr((sender_name, sender))
    message["To"] = letter.to
    message["Subject"] = letter.subject
    message["Date"] = formatdate(localtime=False, usegmt=True)
    message["Message-ID"] = letter.message_id
    references = [i for i in (letter.thread, letter.in_reply_to) if i and i != letter.message_id]
    if references:
        message["In-Reply-To"] = references[-1]
        message["References"] = " ".join(dict.fromkeys(references))
    message["Auto-Submitted"] = letter.auto_submitted
    message["X-Loop"] = sender
    message.set_content(letter.text)
    boundary = _boundary(letter)
    if letter.html:  # a short note to a stranger goes as plain text alone
        message.make_alternative(boundary and f"{boundary}.alt")
        message.add_alternative(letter.html, subtype="html")
    if letter.attachments:
        message.make_mixed(boundary and f"{boundary}.mix")
    for item in letter.attachments:
        maintype, _, subtype = item.content_type.partition("/")
        message.add_attachment(item.data, maintype=maintype, subtype=subtype, filename=item.filename)
    return message


def _boundary(letter: Letter) -> str | None:
    """Return this process's MIME boundary, or None (a fresh one is drawn) for a letter that holds it.

    One boundary for every letter makes their Content-Type lines alike, so each is parsed and
    folded once (`referee.letters.headers`), and spares the email package a regular expression
    per letter to check a new one. It is random, so no one can put it in a letter before seeing
    one; a letter whose text or files hold it gets a boundary of its own."""
    if any(BOUNDARY in text for text in (letter.text, letter.html)):
        return None
    if any(BOUNDARY.encode() in item.data for item in letter.attachments):
        return None
    return BOUNDARY


def maildir_name(message_id: str) -> str:
    """Return the maildir file name for a Message-ID."""
    return re.sub(r"[^A-Za-z0-9_.@-]", "", message_id).replace("@", "_at_") + ".eml"


def post(outbox: Path, letter: Letter, sender: str, sender_name: str) -> Path:
    """Put the letter in the outbox unless a message with its Message-ID is already there."""
    name = maildir_name(letter.message_id)
    for folder in ("new", "cur"):
        if (outbox / folder / name).exists():
            return outbox / folder / name
    for folder in FOLDERS:
        (outbox / folder).mkdir(parents=True, exist_ok=True)
    # The maildir way: complete the file in tmp/, then rename it into new/.
    path = outbox / "new" / name
    write_staged(outbox / "tmp" / name, path, bytes(build_message(letter, sender, sender_name)))
    return path


# What a sent letter's copy in cur/ keeps: who, what, when, and its place in the thread.
KEPT_HEADERS = frozenset(
    name.lower()
    for name in ("From", "To", "Subject", "Date", "Message-ID", "In-Reply-To", "References", "Auto-Submitted", "X-Loop")
)
KEPT_MARK = b"X-Referee-Kept: headers\n"
SENT_NOTE = (
    b"MIME-Version: 1.0\n"
    b'Content-Type: text/plain; charset="utf-8"\n'
    b"Content-Transfer-Encoding: 7bit\n"
    b"\n"
    b"This letter was sent. The outbox keeps its headers only: its text and files are kept once,\n"
    b"in the game directory's mail/ folder.\n"
)


def keep_sent(outbox: Path, path: Path) -> Path:
    """Move a letter just sent from new/ to cur/, then cut that copy down to its headers (see
    the module docstring); return its path in cur/. The move comes first: after a crash before
    the cut, cur/ keeps the whole letter, which is only some bytes too many."""
    (outbox / "cur").mkdir(exist_ok=True)
    kept = outbox / "cur" / path.name
    os.replace(path, kept)
    fsync_dir(kept.parent)
    head = kept.read_bytes().replace(b"\r\n", b"\n").split(b"\n\n", 1)[0] + b"\n"
    # Header fields by bytes, not through the email package: a letter's headers are ours, and
    # parsing them cost more than sending.
    fields: list[bytes] = []
    for line in head.splitlines(keepends=True):
        if line[:1] in (b" ", b"\t") and fields:
            fields[-1] += line
        else:
            fields.append(line)
    if KEPT_MARK in fields:
        return kept
    chosen = [
        field for field in fields if field.split(b":", 1)[0].strip().decode("ascii", "replace").lower() in KEPT_HEADERS
    ]
    staged = outbox / "tmp" / path.name
    staged.parent.mkdir(exist_ok=True)
    staged.write_bytes(b"".join(chosen) + KEPT_MARK + SENT_NOTE)
    # No sync: the whole letter is under mail/, and a copy cut short by a crash still names the
    # letter in cur/; a rename over a file makes the common file systems write its data first.
    os.replace(staged, kept)
    return kept
