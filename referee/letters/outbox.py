"""The outbox: outgoing mail as a maildir inside the game directory.

Every message has a deterministic Message-ID and a file name made from it, so writing the
same letter twice (after a crash) leaves one message, and a sender can tell a resend.

A letter sent is moved to cur/, then kept as its headers alone (`keep_sent`) in the outbox's
`sent.sqlite` (one row a letter, `sent_copy` reads it): its text and files are kept once, under
GAMEDIR/mail/, where the audit reads them; the headers are what is kept of a letter sent for
(the Message-ID never posted twice, a bounce matched to its letter and player). Outboxes kept
before hold a file in cur/ for each letter sent, read the same way.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formataddr, formatdate
from functools import lru_cache
from pathlib import Path

from referee.files import fsync_dir, write_staged
from referee.letters.mime import (
    HEADER_POLICY,
    attachment_part,
    base64_body,
    is_plain_attachment,
    letter_pieces,
    text_body,
)

FOLDERS = ("tmp", "new", "cur")
# Drawn from the system's random source itself, not through os.urandom: a MIME boundary is no
# secret of the game, and the golden games replace os.urandom with a counter for the game's own.
BOUNDARY = "=" * 15 + random.SystemRandom().randbytes(16).hex()


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
    return _skeleton(letter, sender, sender_name, placeholders=False)[0]


def _skeleton(
    letter: Letter, sender: str, sender_name: str, placeholders: bool
) -> tuple[EmailMessage, list[tuple[bytes, bytes]]]:
    """Return the message, and with `placeholders` what `message_bytes` puts in: each body that
    stands in it as a line `\\x00body-N\\x00`, with its bytes as the email package writes them."""
    message = EmailMessage(policy=HEADER_POLICY)
    for name, value in _headers(letter, sender, sender_name):
        message[name] = value
    bodies: list[tuple[bytes, bytes]] = []

    def stand_in(body: bytes) -> str:
        bodies.append((f"\x00body-{len(bodies)}\x00\n".encode(), body))
        return bodies[-1][0].decode()

    text = _plain_body(letter.text) if placeholders else None
    if text is None:
        message.set_content(letter.text)
    else:
        message.set_content(stand_in(text[1])[:-1], cte=text[0])
    boundary = _boundary(letter)
    if letter.html:  # a short note to a stranger goes as plain text alone
        message.make_alternative(boundary and f"{boundary}.alt")
        html = _plain_body(letter.html) if placeholders else None
        if html is None:
            message.add_alternative(letter.html, subtype="html")
        else:
            message.add_alternative(stand_in(html[1])[:-1], subtype="html", cte=html[0])
    if letter.attachments:
        message.make_mixed(boundary and f"{boundary}.mix")
    for item in letter.attachments:
        maintype, _, subtype = item.content_type.partition("/")
        message.add_attachment(
            b"" if placeholders else item.data, maintype=maintype, subtype=subtype, filename=item.filename
        )
        if placeholders:
            *_, part = message.iter_parts()
            part.set_payload(stand_in(_base64_body(item.data)))
    return message, bodies


def _headers(letter: Letter, sender: str, sender_name: str) -> list[tuple[str, str]]:
    """Return the letter's headers, in order, before its MIME ones."""
    headers = [
        ("From", formataddr((sender_name, sender))),
        ("To", letter.to),
        ("Subject", letter.subject),
        ("Date", formatdate(localtime=False, usegmt=True)),
        ("Message-ID", letter.message_id),
    ]
    references = [i for i in (letter.thread, letter.in_reply_to) if i and i != letter.message_id]
    if references:
        headers += [("In-Reply-To", references[-1]), ("References", " ".join(dict.fromkeys(references)))]
    return headers + [("Auto-Submitted", letter.auto_submitted), ("X-Loop", sender)]


def _plain_body(text: str) -> tuple[str, bytes] | None:
    """Return how the email package writes `text` when it goes as it is, with its transfer
    encoding (7bit or 8bit), or None when it would be encoded (quoted-printable, base64)."""
    body = text_body(text)
    return None if body is None else (("7bit" if body.isascii() else "8bit"), body)


def message_bytes(letter: Letter, sender: str, sender_name: str) -> bytes:
    """Return the letter as the bytes of a MIME message: written by `referee.letters.mime` when
    it covers the letter, else by `_assembled_bytes`; both are the bytes `build_message` gives."""
    return b"".join(message_pieces(letter, sender, sender_name))


def message_pieces(letter: Letter, sender: str, sender_name: str) -> list[bytes]:
    """Return `message_bytes` in pieces, as the outbox writes them: a long phase's report is
    megabytes, most of them the record's base64, which every player's report shares (not copied
    into each letter's bytes)."""
    written = _written_pieces(letter, sender, sender_name)
    return written if written is not None else [_assembled_bytes(letter, sender, sender_name)]


def _written_pieces(letter: Letter, sender: str, sender_name: str) -> list[bytes] | None:
    """Return the letter written line by line (`referee.letters.mime`), or None for a letter it
    does not cover (a body encoded for its long lines, an unusual file name, no shared boundary)."""
    boundary = _boundary(letter)
    text = text_body(letter.text)
    html = text_body(letter.html) if letter.html else None
    if boundary is None or text is None or (letter.html and html is None):
        return None
    if not all(is_plain_attachment(item.filename, item.content_type) for item in letter.attachments):
        return None
    parts = [attachment_part(item.filename, item.content_type, _base64_body(item.data)) for item in letter.attachments]
    return letter_pieces(_headers(letter, sender, sender_name), text, html, parts, boundary)


def _assembled_bytes(letter: Letter, sender: str, sender_name: str) -> bytes:
    """Return the letter as the bytes of a MIME message, each distinct attachment encoded once.

    The same public record goes to every player of a phase, and a long phase's letters are long:
    the email package wrote every body line by line, and encoded the record again for each
    letter. The message is built with a placeholder line for each body, then each is replaced
    by its bytes (an attachment's base64 kept from one letter to the next): the bytes are those
    `build_message` gives, unless a body holds a MIME boundary, when `build_message` writes it.
    """
    message, bodies = _skeleton(letter, sender, sender_name, placeholders=True)
    skeleton = bytes(message)
    boundaries = [b"--" + str(part.get_boundary()).encode() for part in message.walk() if part.is_multipart()]
    if any(boundary in body for _, body in bodies for boundary in boundaries):
        return bytes(build_message(letter, sender, sender_name))
    pieces, at = [], 0
    for token, body in bodies:
        found = skeleton.index(token, at)
        pieces += [skeleton[at:found], body]
        at = found + len(token)
    pieces.append(skeleton[at:])
    return b"".join(pieces)


@lru_cache(maxsize=16)
def _base64_body(data: bytes) -> bytes:
    """Return `data` encoded as an attachment's body is, kept for the next letters: the same
    public record goes to every player of a phase."""
    return base64_body(data)


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
    if sent_copy(outbox, name) is not None:
        return outbox / "cur" / name
    for folder in FOLDERS:
        (outbox / folder).mkdir(parents=True, exist_ok=True)
    # The maildir way: complete the file in tmp/, then rename it into new/.
    path = outbox / "new" / name
    write_staged(outbox / "tmp" / name, path, message_pieces(letter, sender, sender_name))
    return path


# What a sent letter's copy in cur/ keeps: who, what, when, and its place in the thread.
KEPT_HEADERS = frozenset(
    name.lower()
    for name in ("From", "To", "Subject", "Date", "Message-ID", "In-Reply-To", "References", "Auto-Submitted", "X-Loop")
)
KEPT_MARK = b"X-Referee-Kept: headers\n"
# The headers of the letters sent, one row each, by their file name in the maildir. A file in
# cur/ for each took a 4 KiB block for some 600 bytes (12 of them a round of a 4-player game);
# SQLite packs the rows into its pages and finds one by name without reading the others.
SENT_INDEX = "sent.sqlite"
SENT_SCHEMA = "CREATE TABLE IF NOT EXISTS sent (name TEXT PRIMARY KEY, headers BLOB NOT NULL)"


def sent_copy(outbox: Path, name: str) -> bytes | None:
    """Return what is kept of the letter sent as maildir file `name`: its headers (a file in cur/,
    whole or cut, in an outbox kept before, else its row in sent.sqlite), or None if not sent."""
    try:
        return (outbox / "cur" / name).read_bytes()
    except FileNotFoundError:
        pass
    if not (outbox / SENT_INDEX).is_file():
        return None
    with closing(sqlite3.connect(outbox / SENT_INDEX)) as db:
        row = db.execute("SELECT headers FROM sent WHERE name = ?", (name,)).fetchone()
    return bytes(row[0]) if row is not None else None


def keep_sent(outbox: Path, path: Path) -> Path:
    """Move a letter just sent from new/ to cur/, then keep its headers alone in sent.sqlite and
    remove the copy in cur/ (see the module docstring); return the path it had in cur/. The move
    comes first, as the record that the letter was sent: after a crash before the headers are
    kept, cur/ keeps the whole letter, which is only some bytes too many."""
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
    with closing(sqlite3.connect(outbox / SENT_INDEX)) as db, db:
        db.execute(SENT_SCHEMA)
        db.execute(
            "INSERT OR REPLACE INTO sent (name, headers) VALUES (?, ?)", (path.name, b"".join(chosen) + KEPT_MARK)
        )
    kept.unlink()  # no sync: after a crash the whole letter in cur/ names it as well as its row
    return kept
