"""A letter written by bytes (`referee.letters.mime`) is, byte for byte, the letter the `email`
package builds (`outbox.build_message`): golden games and `referee audit` compare letters."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from unittest import mock

import pyrage
import pytest

from referee.letters import mime, outbox
from referee.letters.outbox import Attachment, Letter

SENDER = "referee@example.org"
ANY_BOUNDARY = re.compile(rb"=+[0-9a-f]+==(\.alt|\.mix)?|=+[0-9]+==")
NAMES = ["Referee", "Réf Bench", "Jean-Émile d'Artagnan", 'The "Quoted" Referee', "", "a" * 120, "Müller, Hans"]
ADDRESSES = ["alice@example.org", "Ålice <alice@example.org>", "bob+tag@sub.example.org", "x" * 60 + "@example.org"]
SUBJECTS = [
    "[g001] orders accepted (0123456789ab)",
    "[cest-la-guerre] turn 3 'movement' report",
    "Your mail could not be read",
    "Déjà vu: ordres acceptés",
    "  leading and trailing  ",
    "=?utf-8?q?looks_encoded?=",
    "a=?b",
    '(comment) "quoted" <angle> ;,:@\\[]',
    "word " * 300,  # over 998: folded by the policy
    "é" * 400,
    "tab\there",
]
TEXTS = [
    "Hello\nworld\n",
    "Grüße, Spieler\r\nzweite Zeile\rdritte\n",
    "",
    "no final newline",
    "From the start\n>quoted\n.\n",
    "x" * 998 + "\n",
    "x" * 999 + "\n",  # over the line limit: encoded, so the email package writes it
    "é" * 500 + "\n",  # 1,000 bytes of UTF-8 on one line
    "form\x0cfeed\x0bvt\x1cfs\u2028ls\x85nel\n",
    "\n\n\nblank lines\n\n",
]
HTMLS = ["", "<p>Hello</p>\n", "<p>Grüße</p>", "<table>" + "<tr><td>1</td></tr>" * 80 + "</table>\n", "y" * 1200]
FILES = [
    ("g001-0003-t2-movement-alice.report.txt", "text/plain"),
    ("g001-0003-t2-movement-alice.report.txt.sig", "application/octet-stream"),
    ("record.json", "application/json"),
    ("view.yaml", "text/yaml"),
    ("battle.png", "image/png"),
    ("ordres d'été.txt", "text/plain"),  # a space, a quote and non-ASCII: the email package writes it
    ("x" * 250, "application/octet-stream"),
    ("plain.txt", "Text/Plain"),
]


def armored(data: bytes) -> bytes:
    identity = pyrage.x25519.Identity.generate()
    return bytes(pyrage.encrypt(data, [identity.to_public()], armored=True))


def letters(seed: int, count: int) -> Iterator[Letter]:
    draw = random.Random(seed)
    sealed = armored(b"orders\n" * 50)
    for index in range(count):
        files = [
            Attachment(
                name, draw.choice([b"", b"a\n", draw.randbytes(draw.choice([10, 747, 748, 3000])), sealed]), kind
            )
            for name, kind in draw.sample(FILES, draw.choice([0, 0, 1, 2, 3]))
        ]
        if draw.random() < 0.2:
            files.append(Attachment("g-0001-alice.ack.txt.age", sealed, "application/octet-stream"))
        thread = draw.choice([None, "<thread.abc@example.org>", f"<m{index}@example.org>"])
        yield Letter(
            to=draw.choice(ADDRESSES),
            subject=draw.choice(SUBJECTS),
            text=draw.choice(TEXTS),
            html=draw.choice(HTMLS),
            message_id=draw.choice([f"<m{index}@example.org>", "<g.0001-t1.ab12@example.org>", "<a..b@x>"]),
            in_reply_to=draw.choice([None, "<their-id@mail.example.com>", '<odd(id)"x"@host>']),
            thread=thread,
            auto_submitted=draw.choice(["auto-generated", "auto-replied"]),
            attachments=files,
        )


def the_same_letter(letter: Letter, name: str) -> bool:
    old = bytes(outbox.build_message(letter, SENDER, name))
    new = outbox.message_bytes(letter, SENDER, name)
    return ANY_BOUNDARY.sub(b"B", old) == ANY_BOUNDARY.sub(b"B", new)


def test_letters_written_by_bytes_are_the_email_packages_bytes() -> None:
    written = 0
    with mock.patch.object(outbox, "formatdate", return_value="Wed, 25 Nov 2026 12:00:00 GMT"):
        for index, letter in enumerate(letters(seed=23, count=400)):
            name = NAMES[index % len(NAMES)]
            assert the_same_letter(letter, name), (letter, name)
            written += outbox._written_pieces(letter, SENDER, name) is not None
    assert 100 < written < 300  # many are written by bytes; the rest show the fallback holds


def test_an_acknowledgement_is_written_by_bytes_without_the_email_package_objects() -> None:
    letter = Letter(
        "alice@example.org",
        "[g001] orders accepted (0123456789ab)",
        "Your orders were accepted.\n",
        "<p>Your orders were accepted.</p>\n",
        "<g001.ack.alice.0123456789ab@example.org>",
        in_reply_to="<bench-1@example.org>",
        thread="<g001.thread.alice.abcdef012345@example.org>",
        auto_submitted="auto-replied",
        attachments=[
            Attachment("g001-0001-t1-round-alice.ack.txt", b"Your orders were accepted.\n", "text/plain"),
            Attachment("g001-0001-t1-round-alice.ack.txt.sig", b"-----BEGIN SSH SIGNATURE-----\n"),
        ],
    )
    with mock.patch.object(outbox, "EmailMessage", side_effect=AssertionError("an EmailMessage was built")):
        written = outbox.message_bytes(letter, SENDER, "Referee")
    assert the_same_letter(letter, "Referee")
    assert written.count(b"MIME-Version: 1.0\n") == 4


def test_a_letter_that_holds_the_boundary_gets_one_of_its_own() -> None:
    letter = Letter("a@example.org", "s", f"text with {outbox.BOUNDARY} in it\n", "<p>x</p>", "<m@example.org>")
    assert outbox._written_pieces(letter, SENDER, "R") is None
    assert the_same_letter(letter, "R")
    assert outbox.BOUNDARY.encode() + b".alt" not in outbox.message_bytes(letter, SENDER, "R")


@pytest.mark.parametrize("name", ["Subject", "In-Reply-To", "References", "Auto-Submitted", "X-Loop", "Message-ID"])
def test_a_header_written_plainly_is_the_policys_fold(name: str) -> None:
    draw = random.Random(name)
    alphabet = [chr(c) for c in range(0x20, 0x7F)] + ["\t", "é", "=?", "<", ">", "@", "."]
    values = ["<a.b@c.d>", "<a@b>", "<.a@b>", "<a@b.>", "a b", "x" * 990, "x" * 1000]
    values += ["".join(draw.choices(alphabet, k=draw.randint(0, 40))) for _ in range(300)]
    values += ["<" + "".join(draw.choices("ab.-_@", k=draw.randint(1, 12))) + ">" for _ in range(100)]
    policy = mime.HEADER_POLICY
    for value in values:
        assert outcome(mime.header_line, name, value) == outcome(
            lambda n, v: policy.fold_binary(n, policy.header_store_parse(n, v)[1]), name, value
        )


def outcome(function: Callable[[str, str], bytes], name: str, value: str) -> bytes | str:
    """The header line, or the kind of error (a Message-ID that is not ASCII cannot be written)."""
    try:
        return function(name, value)
    except Exception as exc:
        return type(exc).__name__


def test_a_header_with_a_line_break_is_refused_as_the_email_package_refuses_it() -> None:
    with pytest.raises(ValueError):
        mime.header_line("Subject", "two\nlines")
    letter = Letter("a@example.org", "s\r\nBcc: x@example.org", "t", "", "<m@example.org>")
    with pytest.raises(ValueError):
        outbox.message_bytes(letter, SENDER, "R")


def test_base64_bodies_are_the_email_packages() -> None:
    for size in (0, 1, 2, 3, 746, 747, 748, 1494, 1495, 5000):
        data = bytes(range(256)) * (size // 256 + 1)
        part = outbox.EmailMessage(policy=mime.HEADER_POLICY)
        part.set_content(data[:size], maintype="application", subtype="octet-stream")
        assert mime.base64_body(data[:size]) == str(part.get_payload()).encode("ascii")


def test_a_body_within_the_line_limit_is_found_so_without_its_lines() -> None:
    rng = random.Random(998)
    for _ in range(5000):
        limit = rng.choice([mime.MAX_LINE, 1, 2, 3, 10, 11])
        lengths = [0, 1, limit - 1, limit, limit + 1, 2 * limit, rng.randrange(3 * limit + 3)]
        body = b"\n".join(b"x" * rng.choice(lengths) for _ in range(rng.randrange(8)))
        assert mime._lines_within(body, limit) == (max(map(len, body.split(b"\n"))) <= limit)
