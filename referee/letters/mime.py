"""A letter's MIME written by bytes: the bytes the `email` package writes, without its objects.

Building a letter with `EmailMessage` (set_content, make_alternative, add_attachment, then
the generator) was most of the cost of taking in an order mail: every header is parsed into an
object and folded again, every part is made, moved and walked. A letter's shape is fixed (text,
perhaps HTML, perhaps attachments), so its lines are written here directly, in the order and
form the email package gives them. What is not plainly ours to write is left to the package:

- a header that is not printable ASCII, a long one, and every address (From, To) and the Date
  are folded by the email policy itself (the same calls its generator makes), kept by value;
- a letter this module does not cover (a body line over the line limit, so encoded; a file name
  or content type outside a plain alphabet; no shared boundary) gets None, and the caller
  builds it the old way.

`tests/unit/test_mime_bytes.py` builds letters both ways over varied inputs and compares bytes.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterable

from referee.letters.headers import FoldOnce, RememberedHeaders

# Long Message-IDs stay on one line: some mail tools mishandle a folded one.
MAX_LINE = 998
HEADER_POLICY = FoldOnce(max_line_length=MAX_LINE, header_factory=RememberedHeaders())
BASE64_LINE_BYTES = MAX_LINE // 4 * 3  # what the email package puts on each base64 line

# Unstructured headers (no parse but words and spaces): printable ASCII, one space between
# words, and no encoded word ("=?"), which the policy would decode and write again.
UNSTRUCTURED = frozenset({"subject", "in-reply-to", "references", "auto-submitted", "x-loop"})
PLAIN_WORDS = re.compile(r"[!-~]+(?: [!-~]+)*")
PLAIN_MESSAGE_ID = re.compile(r"<[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*@[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*>")
PLAIN_FILENAME = re.compile(r"[A-Za-z0-9_+-][A-Za-z0-9_.+-]{0,199}")
PLAIN_CONTENT_TYPE = re.compile(r"(?:text|application|image|audio|video)/[a-z0-9][a-z0-9.+-]{0,60}")

_folded: dict[tuple[str, str], bytes] = {}
MAX_FOLDED = 4096


def header_line(name: str, value: str) -> bytes:
    """Return the header as the email package writes it with `HEADER_POLICY`, line end included."""
    if len(name) + 2 + len(value) <= MAX_LINE:
        kind = name.lower()
        if kind in UNSTRUCTURED:
            if "=?" not in value and PLAIN_WORDS.fullmatch(value):
                return f"{name}: {value}\n".encode("ascii")
        elif kind == "message-id" and PLAIN_MESSAGE_ID.fullmatch(value):
            return f"{name}: {value}\n".encode("ascii")
    key = (name, value)
    line = _folded.get(key)
    if line is None:
        # What EmailMessage.__setitem__ and the generator do with a header, nothing more.
        line = HEADER_POLICY.fold_binary(name, HEADER_POLICY.header_store_parse(name, value)[1])
        if len(_folded) >= MAX_FOLDED:
            _folded.clear()
        _folded[key] = line
    return line


def text_body(text: str) -> bytes | None:
    """Return how the email package writes `text` when it goes as it is (7bit or 8bit: every line
    within the limit), or None when it would be encoded (quoted-printable, base64)."""
    encoded = text.encode("utf-8")
    if b"\r" not in encoded:  # lines end with \n alone: the same bytes, found without a list of lines
        if not _lines_within(encoded, MAX_LINE):
            return None
        return encoded if encoded.endswith(b"\n") else encoded + b"\n"
    lines = encoded.splitlines()
    if max((len(line) for line in lines), default=0) > MAX_LINE:
        return None
    return b"\n".join(lines) + b"\n"


def _lines_within(encoded: bytes, limit: int) -> bool:
    """Return whether every line of `encoded` (split at \\n) is at most `limit` bytes long.

    A line longer than `limit` holds a whole window of (limit + 1) // 2 bytes, of those that
    start at its multiples; so a body in which each such window holds a line end (a long
    letter's, of short lines) is found within the limit by a search in each window, without a
    list of its lines. A window without one has its lines measured."""
    step = (limit + 1) // 2
    find = encoded.find
    for at in range(0, len(encoded) - step + 1, step):
        if find(b"\n", at, at + step) == -1:
            return max(map(len, encoded.split(b"\n"))) <= limit
    return True


def base64_body(data: bytes) -> bytes:
    """Return `data` as the email package writes an attachment's base64 body."""
    return b"".join(
        binascii.b2a_base64(data[at : at + BASE64_LINE_BYTES]) for at in range(0, len(data), BASE64_LINE_BYTES)
    )


def _text_part(subtype: str, body: bytes, mime_version: bool) -> list[bytes]:
    cte = b"7bit" if body.isascii() else b"8bit"
    head = b'Content-Type: text/%s; charset="utf-8"\nContent-Transfer-Encoding: %s\n' % (subtype.encode(), cte)
    return [head, b"MIME-Version: 1.0\n" if mime_version else b"", b"\n", body]


def _multipart(subtype: str, boundary: str, parts: Iterable[list[bytes]]) -> list[bytes]:
    """The Content-Type line of a multipart and its body: each part after its delimiter line."""
    marker = b"--" + boundary.encode("ascii")
    pieces = [b'Content-Type: multipart/%s; boundary="%s"\n\n' % (subtype.encode(), boundary.encode("ascii"))]
    for index, part in enumerate(parts):
        pieces.append(marker + b"\n" if index == 0 else b"\n" + marker + b"\n")
        pieces += part
    pieces.append(b"\n" + marker + b"--\n")
    return pieces


def is_plain_attachment(filename: str, content_type: str) -> bool:
    """Return whether this module writes an attachment so named and typed (else the email package)."""
    return bool(PLAIN_FILENAME.fullmatch(filename) and PLAIN_CONTENT_TYPE.fullmatch(content_type))


def attachment_part(filename: str, content_type: str, body: bytes) -> list[bytes]:
    """Return an attachment's part (headers and `body`, its base64) as `add_attachment` writes it."""
    return [
        b"Content-Type: %s\nContent-Transfer-Encoding: base64\n"
        b'Content-Disposition: attachment; filename="%s"\nMIME-Version: 1.0\n\n'
        % (content_type.encode("ascii"), filename.encode("ascii")),
        body,
    ]


def letter_pieces(
    headers: list[tuple[str, str]],
    text: bytes,
    html: bytes | None,
    attachments: list[list[bytes]],
    boundary: str,
) -> list[bytes]:
    """Return the message in pieces, to be written one after the other: `headers`, then the text
    (and HTML as its alternative) and the attachment parts (from `attachment_part`), with
    `boundary` + ".alt" / ".mix" between parts; each body and attachment as it was given."""
    pieces = [header_line(name, value) for name, value in headers]
    body = _text_part("plain", text, mime_version=False)
    if html is not None:
        body = _multipart("alternative", f"{boundary}.alt", [body, _text_part("html", html, mime_version=True)])
    if attachments:
        body = _multipart("mixed", f"{boundary}.mix", [body, *attachments])
    if html is None and not attachments:  # set_content on the message itself: MIME-Version comes last
        pieces += [body[0], b"MIME-Version: 1.0\n", *body[2:]]
    else:
        pieces += [b"MIME-Version: 1.0\n", *body]
    return pieces
