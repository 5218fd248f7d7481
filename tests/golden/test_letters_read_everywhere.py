"""Every kind of letter a game sends, taken from the golden games, reads everywhere (issue 18):
its HTML has no sideways scroll on a 360 px phone or a 1280 px desktop (headless Chromium, with
screenshots kept in the test's folder), and its text keeps under 78 columns wherever what a line
carries can be broken.

The golden games give notices, reports (long dice tables, a game's own event tables, hidden
draws' proofs), acknowledgements (accepted and refused), the referee's changes and reveals; a
dispute resolved with its evidence, a cover note of a sealed letter and a reply are made from
the refereed game played.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import golden
import kept_letters
import pytest
from headless import Browser, find_chromium

from referee.game.disputes import resolve_dispute
from referee.game.journal import GameDir
from referee.game.status import status, status_text
from referee.letters.encryption import seal_letter
from referee.letters.kept import read_kept
from referee.letters.outbox import Attachment, Letter
from referee.letters.post import read_kept_html
from referee.letters.render import TEXT_WIDTH, render
from referee.protocol.signatures import load_public_key_file

SCREENS = {"phone": (360, 800), "desktop": (1280, 900)}
REFEREED = "moderator-referee"  # the game the dispute, the cover note and the reply come from


@dataclass(frozen=True)
class Letters:
    """The letters of the golden games, text and HTML, by a name saying where each came from."""

    text: dict[str, str]
    html: dict[str, Path]


@pytest.fixture(scope="module")
def letters(tmp_path_factory: pytest.TempPathFactory) -> Letters:
    root = tmp_path_factory.mktemp("golden-letters")
    text: dict[str, str] = {}
    html: dict[str, Path] = {}
    for name in golden.scenarios():
        golden.play(name, root / name)
        if name == REFEREED:
            _more_letters(root / name)
        mail = root / name / "game" / "mail"
        for path in kept_letters.glob(mail, "*/*.txt"):
            text[f"{name}/{path.relative_to(mail)}"] = kept_letters.read_text(path)
        # One HTML letter of each kind per game, the longest: long dice tables, many proofs.
        longest: dict[str, Path] = {}
        for kept in kept_letters.glob(mail, "*/*.html"):  # in packs of letters: the browser reads a file
            path = root / name / "html" / kept.parent.name / kept.name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(read_kept_html(kept), encoding="utf-8")
            kind = re.sub(r"-.*$", "", path.stem.split(".", 1)[1])
            if kind not in longest or path.stat().st_size > longest[kind].stat().st_size:
                longest[kind] = path
        html.update({f"{name}/{kind}": path for kind, path in sorted(longest.items())})
    extra = root / REFEREED / "letters"
    for path in sorted(extra.iterdir()):
        target = text if path.suffix == ".txt" else html
        target[f"{REFEREED}/{path.stem}"] = path.read_text(encoding="utf-8") if path.suffix == ".txt" else path
    return Letters(text, html)


def _more_letters(work: Path) -> None:
    """Add to the refereed game a dispute resolved with its evidence, and write a sealed letter's
    cover note and a reply (which go to the outbox only) under work/letters/."""
    game_dir = GameDir(work / "game")
    with game_dir.transaction():
        dispute = {"number": 1, "player": "bob", "label": "roll/bob/volley", "record": "0001-t1-round.json"}
        reason = "The volley rolled a 4 at close range; " * 6 + "the table was misread, I think."
        game_dir.log("dispute.opened", {**dispute, "reason": reason, "source": "test"}, player="bob")
    resolve_dispute(work / "game", 1, "upheld", "The roll stands: the record and the table agree.")
    out = work / "letters"
    out.mkdir()
    report = sorted(kept_letters.glob(work / "game" / "mail", "*/alice.report.txt"))[-1]
    view = report.with_name("alice.view-after.yaml")
    sent = Letter(
        "alice@example.org",
        "[golden-moderator] turn 3 round: report",
        "",
        "",
        "<x@example.org>",
        attachments=[
            Attachment(f"golden-moderator-{report.parent.name}-alice.report.txt", read_kept(report)),
            Attachment(f"golden-moderator-{report.parent.name}-alice.view-after.yaml", read_kept(view)),
            Attachment("0003-t3-round.json", b"{}", public=True),
        ],
    )
    key = load_public_key_file(golden.player_key(out, "alice").with_suffix(".pub"))
    cover = seal_letter(sent, [key], "alice", "Golden Referee", "referee@example.org")
    (out / "cover.txt").write_text(cover.text, encoding="utf-8")
    (out / "cover.html").write_text(cover.html, encoding="utf-8")
    body = status_text(status(work / "game"))
    context = {
        "title": "Status of your games",
        "paragraphs": ["Your games as they stand, one section each. " * 4],
        "sections": [{"title": "golden-moderator (you play alice)", "body": body}],
        "referee_name": "Golden Referee",
        "referee_email": "referee@example.org",
    }
    reply_text, reply_html = render("reply", context)
    (out / "reply.txt").write_text(reply_text, encoding="utf-8")
    (out / "reply.html").write_text(reply_html, encoding="utf-8")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    chromium = find_chromium()
    if chromium is None:
        pytest.skip("Chromium is not installed: scripts/test installs it")
    opened = Browser(chromium)
    yield opened
    opened.close()


def test_every_kind_of_letter_is_looked_at(letters: Letters) -> None:
    kinds = {name.rsplit("/", 1)[1] for name in letters.html}
    assert {"notice", "report", "ack", "override", "reveal", "dispute", "cover", "reply"} <= kinds, kinds
    assert any(name.startswith("rollback") for name in kinds), kinds


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_no_html_letter_scrolls_sideways(letters: Letters, browser: Browser, screen: str, tmp_path: Path) -> None:
    width, height = SCREENS[screen]
    wide = {}
    for name, page in letters.html.items():
        shot = tmp_path / f"{name.replace('/', '-')}.{screen}.png"
        look = browser.look(page, width, height, shot)
        # Without a viewport meta a phone lays the page out 980 px wide and shrinks it to fit.
        assert look.inner_width == width, f"{name}: laid out {look.inner_width} px wide (no viewport meta?)"
        if look.overflows:
            wide[name] = f"{look.scroll_width} px wide on a {width} px screen; sticking out: {look.wide}"
    assert not wide, f"screenshots in {tmp_path}:\n" + json.dumps(wide, indent=1)


UNBREAKABLE = re.compile(r"\S{40,}")  # a hash, a key, a file name: no place to break it
COMMAND = re.compile(r"^\s*(check\s+)?(ssh-keygen|python3 -c|age -d|referee) ")  # pasted whole into a shell
COMMITTED = re.compile(r"^\s+text {2,}pbem-hidden/")  # the exact text a commitment hashes
TABLE_ROW = re.compile(r"\S {2,}\S.* {2,}\S")  # columns aligned with spaces: a row of a table


def may_be_long(line: str) -> bool:
    """Return whether a line over the width carries what cannot be broken: a URL, a command to
    paste whole, the exact text of a commitment, a table's row, or a long token with little after it."""
    if "://" in line or COMMAND.match(line) or COMMITTED.match(line) or TABLE_ROW.search(line.strip()):
        return True
    tokens = list(UNBREAKABLE.finditer(line))
    return bool(tokens) and len(line) - tokens[-1].end() <= 24


def test_text_letters_keep_under_78_columns_where_they_can(letters: Letters) -> None:
    long = [
        f"{name}: {len(line)}: {line}"
        for name, text in letters.text.items()
        for line in text.splitlines()
        if len(line) > TEXT_WIDTH and not may_be_long(line)
    ]
    assert len(letters.text) > 100
    assert not long, f"{len(long)} long line(s):\n" + "\n".join(sorted(set(long))[:40])


def test_a_report_speaks_plain_words_of_its_draws(letters: Letters) -> None:
    reports = {name: text for name, text in letters.text.items() if name.endswith(".report.txt")}
    assert reports
    jargon = re.compile(r"\b(uniform|shuffle|sealed)\(")
    assert not [name for name, text in reports.items() if jargon.search(text)]
    assert any("a shuffle of 4 (the new order, counting from 0)" in text for text in reports.values())
