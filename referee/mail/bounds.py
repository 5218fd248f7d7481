"""Measuring a raw mail before Python's email parser reads it: header fields, MIME parts and how
deeply multiparts (and attached messages) nest.

The email package reads nested multiparts by recursion and keeps every part and header in
memory; a stranger's mail of a few megabytes could exhaust either. `mime_excess` walks the raw
bytes once, line by line, keeping only the stack of open boundaries, and says which limit the
mail is over. It counts the way the parser splits (a line `--BOUNDARY`, or `--BOUNDARY--`, of a
multipart still open), and where it cannot read a boundary (RFC 2231 continuations) it counts
the part as open for good: it may count more than the parser would find, never fewer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email import policy
from email.message import Message
from email.parser import BytesHeaderParser

# Real mail carrying orders has a dozen to a hundred header fields (long Received: and ARC
# chains included), 2 to 10 parts and multiparts 3 deep (mixed > alternative > related, or a
# forwarded message). The limits are ten times that or more.
MAX_HEADER_FIELDS = 1_000  # in any one header block (the mail's, or one part's)
MAX_HEADER_BYTES = 256 * 1024  # in any one header block
MAX_PARTS = 200
MAX_DEPTH = 16  # multiparts and attached messages, one inside another

_BOUNDARY = re.compile(rb'(?i)[;\s]boundary\s*=\s*(?:"([^"\r\n]{1,200})"|([^\s;"]{1,200}))')
# Python's email parser: lines end in CRLF, LF or CR; a header line is a field, a continuation,
# or a mbox "From " line; the first line that is none of these begins the body.
_LINES = re.compile(rb"\r\n|\r|\n")
_HEADER_LINE = re.compile(rb"From |[\x21-\x39\x3b-\x7e]*:|[\t ]")
_UNREADABLE = object()  # a multipart whose boundary this scan cannot read: it never closes
_MESSAGE = object()  # an attached message: its own header follows
_STATUS = object()  # message/delivery-status: header blocks follow, each read as a message


@dataclass(frozen=True)
class MimeExcess:
    """The first limit a mail is over: what is counted, how many were found, how many are allowed."""

    what: str
    found: int
    limit: int

    def describe(self) -> str:
        if self.limit == 0:  # something the referee never reads, however little of it
            found = f"your mail has {self.what}, which the referee does not read"
        else:
            found = f"your mail has more than {self.limit:,} {self.what}, more than the referee reads"
        return f"{found}: send the order file and its .sig, or the command, in a plain mail"


def mime_excess(raw: bytes, max_parts: int = MAX_PARTS, max_depth: int = MAX_DEPTH) -> MimeExcess | None:
    """Return the first limit the raw mail `raw` is over, or None if Python's parser may read it."""
    frames: list[object] = []  # open multiparts (their boundary) and attached messages (None)
    in_headers = True
    fields = size = 0
    content_type = b""
    in_content_type = False
    parts = 1
    after: bytes | None = None  # the boundary of the delimiter just read
    for line in [*_LINES.split(raw), b""]:  # a last empty line ends a header cut short by the end
        if after is not None:
            # Like the parser, skip delimiters straight after a delimiter, even a closing one.
            if line.rstrip(b" \t") in (after, after + b"--"):
                continue
            after = None
        while True:  # a line that ends a header without a blank line is read again, as body
            if in_headers:
                if line and _HEADER_LINE.match(line):  # a field, or the continuation of one
                    size += len(line) + 2
                    if size > MAX_HEADER_BYTES:
                        return MimeExcess("bytes of header in one header", size, MAX_HEADER_BYTES)
                    if line[:1] in (b" ", b"\t"):
                        if in_content_type:
                            content_type += b" " + line.strip()
                        break
                    fields += 1
                    # The parser reads the first Content-Type of a header block; so does this.
                    in_content_type = line[:13].lower() == b"content-type:" and not content_type
                    if in_content_type:
                        content_type = b" " + line[13:].strip()
                    if fields > MAX_HEADER_FIELDS:
                        return MimeExcess("header fields in one header", fields, MAX_HEADER_FIELDS)
                    break
                fields, size, in_content_type = 0, 0, False
                if frames and frames[-1] is _STATUS:  # a block of a delivery status ends, or its body starts
                    # The parser reads each block as a message of its own, so a block's Content-Type
                    # may open parts inside the status, which a blank line then closes all at once.
                    # Real reports never give a block one: such a block is refused, not followed.
                    if _nesting(content_type) is not None:
                        return MimeExcess("parts nested in a delivery status report's fields", 1, 0)
                    content_type = b""
                    in_headers = not line
                    if line:
                        continue
                    parts += 1
                    if parts > max_parts:
                        return MimeExcess("MIME parts", parts, max_parts)
                    break
                nested = _nesting(content_type)
                content_type = b""
                if nested is not None:
                    frames.append(nested)
                    if len(frames) > max_depth:
                        return MimeExcess("levels of parts within parts", len(frames), max_depth)
                # An attached message (or a delivery status's first block) begins with a header
                # of its own, and is a part of its own.
                in_headers = nested is _MESSAGE or nested is _STATUS
                if in_headers:
                    parts += 1
                    if parts > max_parts:
                        return MimeExcess("MIME parts", parts, max_parts)
                if not line:
                    break
                continue
            if line.startswith(b"--") and frames and _delimiter(frames, line) is False:  # a new part
                in_headers = True
                after = frames[-1] if isinstance(frames[-1], bytes) else None
            elif not line and frames and frames[-1] is _STATUS:  # the next block of a delivery status
                in_headers = True
            else:
                break
            parts += 1
            if parts > max_parts:
                return MimeExcess("MIME parts", parts, max_parts)
            break
    return None


def _nesting(content_type: bytes) -> object | None:
    """Return what a part with this Content-Type opens: a boundary, an attached message, a
    delivery status (header blocks, each a message), or None. As Python's parser does, the
    main type decides: any message/* holds a message."""
    kind = content_type.strip().split(b";", 1)[0].strip().lower()
    if kind.count(b"/") != 1:
        return None  # read as text/plain
    if kind == b"message/delivery-status":
        return _STATUS
    maintype = kind.split(b"/")[0].strip()
    if maintype == b"multipart":
        match = _BOUNDARY.search(content_type)
        if match is None or re.search(rb"(?i)boundary\*", content_type):
            return _UNREADABLE
        return b"--" + (match[1] or match[2]).rstrip(b" \t")
    if maintype == b"message":
        return _MESSAGE
    return None


def _delimiter(frames: list[object], line: bytes) -> bool | None:
    """If `line` is a delimiter of an open multipart, close what it ends and return whether it
    closed that multipart (True) or began its next part (False); otherwise return None."""
    stripped = line.rstrip(b" \t")
    for index in range(len(frames) - 1, -1, -1):
        boundary = frames[index]
        if not isinstance(boundary, bytes) or not stripped.startswith(boundary):
            continue
        rest = stripped[len(boundary) :]
        if rest == b"--":
            del frames[index:]
            return True
        if rest == b"":
            del frames[index + 1 :]
            return False
    if _UNREADABLE in frames:  # perhaps a delimiter of the multipart it cannot read: a new part
        return False
    return None


def first_header(raw: bytes, fields: int = 100) -> Message:
    """Return the mail's header as a Message, cut to its first `fields` fields and no body:
    enough to tell who sent a mail over the limits, and whether it is machine traffic."""
    kept: list[bytes] = []
    for line in raw[:MAX_HEADER_BYTES].split(b"\n"):
        line = line.removesuffix(b"\r")
        if not line.strip(b" \t"):
            break
        if line[:1] not in (b" ", b"\t"):
            if len(kept) == fields:
                break
            kept.append(line)
        elif kept:
            kept[-1] += b"\r\n" + line
    return BytesHeaderParser(policy=policy.default).parsebytes(b"\r\n".join(kept) + b"\r\n\r\n")
