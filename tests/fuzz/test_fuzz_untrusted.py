"""Structure-aware fuzzing of what strangers send (issue 14, item 10): order files through
`submit`, and mails through intake's handling.

Order files keep a valid envelope and get mutated bodies: deep nesting, huge scalars, anchors
and aliases, odd unicode, control characters, CRLF, a BOM, stray bytes; most are signed by a
registered player so that they reach the YAML reader. Mails start from the shapes players send
(orders attached or pasted, commands) and get MIME mutations: nesting, many parts, transfer
encodings, charsets, broken boundaries and headers, line ends, truncation.

Properties: never an exception, never a hang; every refusal a Problem with a message; a
refusal changes nothing in the game; every mail handled (answered or rejected), none left
for the next pass. The default run is bounded to a few seconds; `pytest -m fuzz_long` runs
the same properties far longer.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.game.engine import adjudicate, submit
from referee.game.journal import GameDir
from referee.mail.intake import IntakeReport, handle_stored, spool_name
from referee.mail.ledger import Ledger
from referee.protocol.canonical import sha256_hex
from referee.protocol.problems import Problem
from referee.protocol.verify import verify_game_dir

from conftest import GAME_ID, MakeGame, TestGame
from mailworld import REFEREE, MailWorld, add_game, write_home

SHORT = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
LONG = settings(max_examples=3_000, deadline=None, suppress_health_check=list(HealthCheck))
MAX_SECONDS = 10  # one example; the slowest real one takes a fraction of a second

# -- order files ----------------------------------------------------------------------------

SCALARS = st.one_of(
    st.integers(),
    st.booleans(),
    st.none(),
    st.text(max_size=30),
    st.sampled_from(["2d6", "&a x", "*a", "!!binary aGk=", ".nan", "9" * 5000, "~", "'", '"', "- x", "a: b"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=20,
)


def as_yaml(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)  # JSON is YAML: a flow collection, quoted strings


@st.composite
def order_bodies(draw: st.DrawFn) -> str:
    """The text under `orders:`, from the shapes real files have to the ones that broke parsers."""
    kind = draw(st.sampled_from(["plain", "values", "deep-flow", "deep-block", "huge", "aliases", "text"]))
    if kind == "plain":
        return "  rolls:\n    - {label: attack, dice: 2d6, purpose: the attack}\n  note: hi\n"
    if kind == "values":
        return f"  note: {as_yaml(draw(VALUES))}\n"
    if kind == "deep-flow":
        depth = draw(st.sampled_from([63, 64, 65, 200, 5_000, 40_000]))
        opening, closing = draw(st.sampled_from([("[", "]"), ("{a: ", "}"), ("[a: ", "]")]))
        return f"  note: {opening * depth}{closing * depth}\n"
    if kind == "deep-block":
        depth = draw(st.integers(1, 300))
        step = draw(st.sampled_from(["k:", "-", "- k:", "? k\n:"]))
        return "".join(" " * (2 + i) + step + "\n" for i in range(depth)) + " " * (2 + depth) + "x\n"
    if kind == "huge":
        size = draw(st.sampled_from([1_000, 100_000, 300_000]))
        return f"  note: {'x' * size}\n" if draw(st.booleans()) else "  note: [" + "1," * (size // 2) + "1]\n"
    if kind == "aliases":
        lol = "  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        return lol + "".join(f"  {c}: &{c} [{', '.join(['*' + chr(ord(c) - 1)] * 9)}]\n" for c in "bcdefghi")
    return "  note: " + draw(st.text(max_size=60)) + "\n"


@st.composite
def order_files(draw: st.DrawFn) -> bytes:
    head = f"game: {GAME_ID}\nturn: 1\nphase: round\nplayer: alice\nseq: {draw(st.integers(1, 3))}\norders:\n"
    text = head + draw(order_bodies())
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    raw = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        raw = b"\xef\xbb\xbf" + raw
    for _ in range(draw(st.integers(0, 2))):  # stray bytes: controls, NUL, broken UTF-8, line breaks
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(st.sampled_from([b"\x00", b"\x1b[31m", b"\xff", b"\r", b"\t", b"\xc2\x85"])) + raw[at:]
    return raw


def game_snapshot(game: TestGame) -> tuple[Any, ...]:
    game_dir = GameDir(game.dir)
    try:
        rows = list(map(tuple, game_dir.db.execute("SELECT phase_seq, player, seq, sha256 FROM orders ORDER BY id")))
        return rows, game_dir.current_state_hash(), sorted(p.name for p in game_dir.orders.rglob("*"))
    finally:
        game_dir.close()


def check_submit(game: TestGame, raw: bytes, signer: str | None) -> None:
    signature = game.signed(signer, raw) if signer else None
    before = game_snapshot(game)
    started = time.monotonic()
    receipt = submit(game.dir, raw, signature)
    assert time.monotonic() - started < MAX_SECONDS
    if receipt.accepted:
        assert signer == "alice" and not receipt.problems
        return
    assert receipt.problems
    for problem in receipt.problems:
        assert isinstance(problem, Problem) and problem.code and problem.path
        assert isinstance(problem.message, str) and problem.message.strip()
        assert "Traceback" not in problem.message
    if signer is None:  # refused unread: its size, or the missing signature
        assert [p.code for p in receipt.problems] in (["refused.signature"], ["invalid.size"])
    assert game_snapshot(game) == before


def fuzz_orders(make_game: MakeGame, tmp_path: Path, config: settings) -> None:
    game = make_game(tmp_path)

    @config
    @given(order_files(), st.sampled_from(["alice", "alice", "alice", "bob", None]))
    def run(raw: bytes, signer: str | None) -> None:
        check_submit(game, raw, signer)

    run()
    adjudicate(game.dir, force=True)
    assert verify_game_dir(game.dir).ok


def test_fuzz_order_files_through_submit(make_game: MakeGame, tmp_path: Path) -> None:
    fuzz_orders(make_game, tmp_path, SHORT)


@pytest.mark.fuzz_long
def test_fuzz_order_files_through_submit_long(make_game: MakeGame, tmp_path: Path) -> None:
    fuzz_orders(make_game, tmp_path, LONG)


# -- mails ----------------------------------------------------------------------------------


def base_mail(world: MailWorld, shape: str, orders: bytes, number: int) -> bytes:
    message = EmailMessage()
    message["From"] = world.address("alice") if shape != "stranger" else "mallory@example.net"
    message["To"] = REFEREE
    message["Subject"] = "orders"
    message["Message-ID"] = f"<fuzz-{number}@example.org>"  # make_msgid() draws at random: not in a strategy
    signature = world.signature("alice", orders)
    if shape == "inline":
        message.set_content(orders.decode("utf-8", "replace") + signature.decode())
    elif shape in ("command", "stranger"):
        message.set_content(f"status {GAME_ID}\n")
    else:
        message.set_content("My orders are attached.\n")
        message.add_alternative("<p>My orders are attached.</p>", subtype="html")
        message.add_attachment(orders, maintype="text", subtype="plain", filename="orders.yaml")
        message.add_attachment(signature, maintype="application", subtype="octet-stream", filename="orders.yaml.sig")
        for part in message.walk():  # the email package draws boundaries at random: not in a strategy
            if part.is_multipart():
                part.set_boundary(f"fuzz-{number}-{part.get_content_subtype()}")
    return bytes(message)


def wrap(raw: bytes, levels: int) -> bytes:
    head, _, body = raw.partition(b"\r\n\r\n")
    marks = [b"w%d" % level for level in range(levels)]
    opening = b"".join(b'Content-Type: multipart/mixed; boundary="' + m + b'"\r\n\r\n--' + m + b"\r\n" for m in marks)
    closing = b"".join(b"\r\n--" + m + b"--\r\n" for m in reversed(marks))
    kept = b"\r\n".join(line for line in head.split(b"\r\n") if not line.lower().startswith(b"content-"))
    inner = b"\r\n".join(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-"))
    return kept + b"\r\n" + opening + inner + b"\r\n\r\n" + body + closing


MUTATIONS: dict[str, Callable[[bytes, Any], bytes]] = {
    "nest": lambda raw, draw: wrap(raw, draw(st.sampled_from([1, 5, 16, 17, 100, 3_000]))),
    "parts": lambda raw, draw: raw.replace(
        b"\r\n\r\n", b"\r\n\r\n" + b"--x\r\nContent-Type: text/plain\r\n\r\nx\r\n" * draw(st.integers(1, 400)), 1
    ),
    "headers": lambda raw, draw: b"X-Filler: x\r\n" * draw(st.sampled_from([10, 999, 1_001, 5_000])) + raw,
    "long-header": lambda raw, draw: b"Subject: " + b"=?utf-8?q?" + b"a" * 70_000 + b"?=\r\n" + raw,
    "encoding": lambda raw, draw: raw.replace(
        b"Content-Transfer-Encoding: 7bit",
        b"Content-Transfer-Encoding: " + draw(st.sampled_from([b"base64", b"quoted-printable", b"x-uue", b"8bit"])),
    ),
    "charset": lambda raw, draw: raw.replace(
        b'charset="utf-8"', b"charset=" + draw(st.sampled_from([b"utf-16", b"x-unknown", b"iso-2022-jp", b'"']))
    ),
    "boundary": lambda raw, draw: (
        raw.replace(b"boundary=", b"boundary*0=", 1)
        if draw(st.booleans())
        else raw.replace(b"==", b"=" + b"=" * draw(st.integers(0, 3)), 1)
    ),
    "line-ends": lambda raw, draw: raw.replace(b"\r\n", draw(st.sampled_from([b"\n", b"\r", b"\r\r\n"]))),
    "truncate": lambda raw, draw: raw[: draw(st.integers(0, len(raw)))],
    "bytes": lambda raw, draw: _insert(raw, draw),
    "from": lambda raw, draw: raw.replace(
        b"From: ", b"From: " + draw(st.sampled_from([b"", b"<>, ", b"=?utf-8?b?AAAA?= ", b"\x1b]0;x\x07", b"a@b, "])), 1
    ),
}


def _insert(raw: bytes, draw: Any) -> bytes:
    at = draw(st.integers(0, len(raw)))
    return raw[:at] + draw(st.sampled_from([b"\x00", b"\r\n\r\n", b"\r\n--", b"\xff\xfe", b": ", b"\r\n "])) + raw[at:]


@st.composite
def mails(draw: st.DrawFn, world: MailWorld) -> bytes:
    orders = draw(order_files()) if draw(st.booleans()) else world.order("alice", 1, "note: fine")
    shape = draw(st.sampled_from(["attached", "inline", "command", "stranger"]))
    raw = base_mail(world, shape, orders[:20_000], draw(st.integers(0, 10**12)))
    for name in draw(st.lists(st.sampled_from(sorted(MUTATIONS)), max_size=3)):
        raw = MUTATIONS[name](raw, draw)
    return raw


@pytest.fixture
def quiet_home(tmp_path: Path) -> MailWorld:
    """A home with game GAME_ID and no mail servers: mails are put straight into the spool."""
    home = write_home(tmp_path / "home", 1, 1, "nobody")
    world = MailWorld(home, None, None, "nobody", {}, ("alice", "bob", "carol"))  # type: ignore[arg-type]
    add_game(world, GAME_ID, world.players)
    return world


def check_mail(world: MailWorld, raw: bytes) -> None:
    home, config = world.home, world.home.load_config()
    ledger = Ledger(home.ledger_path)
    try:
        sha = sha256_hex(raw)
        (home.spool / spool_name(sha)).write_bytes(raw)
        now = datetime.now(UTC)
        if ledger.find(sha, None) is None:
            with ledger.transaction():
                ledger.add(sha, None, len(raw), spool_name(sha), now)
        report = IntakeReport()
        started = time.monotonic()
        handle_stored(home, config, ledger, now, report, None)
        assert time.monotonic() - started < MAX_SECONDS
        assert report.errors == [] and report.set_aside == 0
        assert ledger.with_status("stored") == []  # answered or rejected, not left for the next pass
    finally:
        ledger.close()


def fuzz_mails(world: MailWorld, config: settings) -> None:
    (world.home.spool).mkdir(parents=True, exist_ok=True)
    world.home.outbox.mkdir(parents=True, exist_ok=True)

    @config
    @given(st.data())
    def run(data: st.DataObject) -> None:
        check_mail(world, data.draw(mails(world)))

    run()
    adjudicate(world.game_dirs[GAME_ID], force=True)
    assert verify_game_dir(world.game_dirs[GAME_ID]).ok


def test_fuzz_mails_through_intake(quiet_home: MailWorld) -> None:
    fuzz_mails(quiet_home, SHORT)


@pytest.mark.fuzz_long
def test_fuzz_mails_through_intake_long(quiet_home: MailWorld) -> None:
    fuzz_mails(quiet_home, LONG)
