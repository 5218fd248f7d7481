"""C'est la Guerre's battlefield pictures in real letters: a game played through signed order
files by two bots until cards have moved and fought, then its notices and reports looked at.

Each letter of a battle phase shows the table as SVG in its HTML, says in its text that the
picture is attached, and its mail carries the PNG (inside the encryption for a player who asked
for it). Headless Chromium opens an HTML letter and the PNG; the screenshots are kept in the
test's folder for a person to look at.
"""

from __future__ import annotations

import email
import email.policy
import io
import json
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import clg_bot
import kept_letters
import pytest
from headless import Browser, find_chromium
from PIL import Image
from test_clg_full_game import ROLES, SECRET, _setup, order_file

from games.cest_la_guerre import GAME
from referee.game.engine import adjudicate, submit
from referee.game.journal import GameDir
from referee.game.opened import Game
from referee.letters import pictures
from referee.letters.post import read_kept_html
from referee.protocol.signatures import NAMESPACE_ORDERS, sign

MAX_PHASES = 40
FIGHTS = ("combat.melee", "combat.shooting")  # what the picture draws (not combat.none or combat.unasked)


@dataclass
class Battle:
    """A game played until a combat phase was reported: its directory and the stems of its phases."""

    dir: Path
    phases: list[str] = field(default_factory=list)
    events: dict[str, list[Any]] = field(default_factory=dict)


@pytest.fixture(scope="module")
def battle(tmp_path_factory: pytest.TempPathFactory) -> Battle:
    game_dir, keys = _setup(tmp_path_factory.mktemp("clg-pictures"))
    played = Battle(game_dir)
    fought = False
    for _ in range(MAX_PHASES):
        game = Game.open(game_dir)
        phase = game.dir.open_phase()
        if phase is None or fought:
            break
        state = game.envelope(phase.state_before)["state"]
        spec = GAME.phase(state)
        assert spec is not None
        for role in spec.active:
            if state["stage"] == "armies":
                orders = clg_bot.army_orders(role, SECRET[role])
            else:
                orders = clg_bot.orders_for(state, role)
            raw = order_file(phase.turn, phase.phase, role, 1, orders)
            assert submit(game_dir, raw, sign(raw, keys[role], NAMESPACE_ORDERS)).accepted
        result = adjudicate(game_dir)
        played.phases.append(phase.stem)
        played.events[phase.stem] = result.events
        fought = any(e.kind in FIGHTS for e in result.events)
    assert fought, "the bots fought no combat in the phases played"
    return played


def outbox(battle: Battle) -> list[EmailMessage]:
    """Return the messages waiting in the game's outbox (nothing sends them in this test)."""
    found = []
    for path in sorted((battle.dir / "outbox" / "new").iterdir()):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        found.append(message)
    return found


def pngs(message: EmailMessage) -> list[tuple[str, bytes]]:
    """Return the PNG files a message carries, by name."""
    found = []
    for part in message.iter_attachments():
        if part.get_content_type() == "image/png":
            found.append((part.get_filename() or "", part.get_content()))
    return found


def battle_letters(battle: Battle, role: str) -> list[Path]:
    """Return the kept texts of `role`'s notices and reports from the first placed cards on."""
    letters = sorted(kept_letters.glob(battle.dir / "mail", "*/" + f"{role}.notice.txt")) + sorted(
        kept_letters.glob(battle.dir / "mail", "*/" + f"{role}.report.txt")
    )
    return [path for path in letters if "The battlefield\n" in kept_letters.read_text(path)]


def test_every_battle_letter_shows_the_table(battle: Battle) -> None:
    """From deployment on, each notice and report has the picture: SVG in its HTML, the PNG
    named in its text and attached to its mail; before any card or terrain there is none."""
    first = sorted((battle.dir / "mail").iterdir())[0]
    for role in ROLES:
        assert "The battlefield" not in kept_letters.read_text(first / f"{role}.notice.txt")
        letters = battle_letters(battle, role)
        assert len(letters) >= 6, f"{role}: only {len(letters)} letters show the battlefield"
        for text_path in letters:
            text = kept_letters.read_text(text_path)
            html = read_kept_html(text_path.with_suffix(".html"))
            assert html.count("<svg ") == 1 and "</svg>" in html, text_path
            assert "battlefield" in text and ".png" in text
            # The PNG is not kept: the kept HTML holds the same picture as SVG.
            assert not list(kept_letters.glob(text_path.parent.parent, f"{text_path.parent.name}/*.png"))
    messages = outbox(battle)
    with_picture = [m for m in messages if pngs(m)]
    assert len(with_picture) >= 12
    for message in with_picture:
        ((name, data),) = pngs(message)
        assert name.startswith("clg-test-") and name.endswith((".battlefield.png", ".battlefield-after.png")), name
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
        assert len(data) < 40 * 1024, f"{name} is {len(data)} bytes"
        # The text part names the attachment it came with.
        assert name in message.get_body(("plain",)).get_content()  # type: ignore[union-attr]


def test_a_report_draws_this_phases_moves_and_fights(battle: Battle) -> None:
    """The combat phase's report draws its fights; a movement phase's report, its moves as arrows."""
    moved = [s for s in battle.phases if any(e.kind == "move" for e in battle.events[s])]
    fought = [s for s in battle.phases if any(e.kind in FIGHTS for e in battle.events[s])]
    assert moved and fought
    for stem, drawn in ((moved[-1], 'stroke="#333333"'), (fought[-1], 'fill="#ffd23f"')):
        for role in ROLES:
            html = read_kept_html(battle.dir / "mail" / stem / f"{role}.report.html")
            svg = html[html.index("<svg ") : html.index("</svg>")]
            assert drawn in svg or (drawn == 'fill="#ffd23f"' and "<circle" in svg), (stem, role)


def test_the_opponents_face_down_cards_are_backs(battle: Battle) -> None:
    """In the last report, a card the reader may not see is drawn as a back with its marker only."""
    stem = battle.phases[-1]
    game = Game.open(battle.dir)
    state = game.dir.load_state(game.dir.get_meta("state"))["state"]
    for role in ROLES:
        view = GAME.view(state, role)
        scene = GAME.picture(view, role, [])
        assert scene is not None
        hidden = {c["marker"] for c in view["cards"] if c["owner"] != role and c.get("card") == "face-down card"}
        backs = {i["label"] for i in scene["items"] if i["item"] == "unit" and i["look"] == "card-back"}
        assert backs == {m for m in hidden if any(c["marker"] == m and "x" in c for c in view["cards"])}
        assert not any(
            i["item"] == "unit" and i["side"] != role and i["look"].startswith("own") for i in scene["items"]
        )
        assert stem  # the scene above is the table after the last phase played


@pytest.fixture(scope="module")
def browser() -> Any:
    chromium = find_chromium()
    if chromium is None:
        pytest.skip("Chromium is not installed: scripts/test installs it")
    opened = Browser(chromium)
    yield opened
    opened.close()


SVG_BOX = (
    "JSON.stringify((() => { const r = document.querySelector('svg').getBoundingClientRect(); "
    "return {width: r.width, height: r.height, texts: document.querySelectorAll('svg text').length}; })())"
)


def test_a_letter_and_its_png_open_in_a_browser(battle: Battle, browser: Browser, tmp_path: Path) -> None:
    """Chromium lays out a report with its picture, on a desktop and a phone, without sideways
    scroll; the SVG has a size and its texts; the PNG decodes to the picture's own size."""
    stem = [s for s in battle.phases if any(e.kind.startswith("combat.") for e in battle.events[s])][-1]
    page = tmp_path / "report.html"
    page.write_text(read_kept_html(battle.dir / "mail" / stem / "blue.report.html"), encoding="utf-8")
    for screen, (width, height) in {"desktop": (1280, 900), "phone": (360, 800)}.items():
        look = browser.look(page, width, height, screenshot=tmp_path / f"report-{screen}.png")
        assert not look.overflows, (screen, look.wide)
        box = json.loads(browser.call("Runtime.evaluate", session=True, expression=SVG_BOX)["result"]["value"])
        assert box["width"] > min(700, width * 0.85) and box["height"] > 200, (screen, box)
        assert box["texts"] >= 10
    name = f"clg-test-{stem}-blue.battlefield-after.png"
    data = next(d for m in outbox(battle) for n, d in pngs(m) if n == name)
    (tmp_path / name).write_bytes(data)
    image = Image.open(io.BytesIO(data))
    image.load()
    game = Game.open(battle.dir)
    state = game.dir.load_state(game.dir.get_meta("state"))["state"]
    scene = GAME.picture(GAME.view(state, "blue"), "blue", [])
    assert scene is not None
    laid = pictures.layout(scene)
    assert image.size == (laid.width, laid.height)
    picture_page = tmp_path / "picture.html"
    picture_page.write_text(f'<!DOCTYPE html><html><body style="margin:0"><img src="{name}"></body></html>')
    browser.look(picture_page, 1280, 900, screenshot=tmp_path / "png-in-browser.png")
    shown = json.loads(
        browser.call(
            "Runtime.evaluate",
            session=True,
            expression="JSON.stringify([document.images[0].naturalWidth, document.images[0].naturalHeight])",
        )["result"]["value"]
    )
    assert tuple(shown) == image.size


def test_a_game_begun_before_pictures_keeps_its_letters_and_audits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Letters sent before pictures (format 2) stay as sent, and `referee audit` confirms them;
    pictures start with the phase after the first adjudicated since (letter format 3)."""
    import referee.game.adjudication
    from referee.game.audit import audit
    from referee.game.letter_format import LETTERS_META, PICTURES_META, letter_format

    game_dir, keys = _setup(tmp_path)
    begun = GameDir(game_dir)
    with begun.transaction():  # as begun before pictures: format 2 only
        begun.db.execute("DELETE FROM meta WHERE key = ?", (PICTURES_META,))
    begun.close()
    monkeypatch.setattr(
        referee.game.adjudication, "adopt_from", lambda journal, seq: journal.keep_meta(LETTERS_META, str(seq))
    )

    def next_phase() -> str:
        game = Game.open(game_dir)
        phase = game.dir.open_phase()
        assert phase is not None
        state = game.envelope(phase.state_before)["state"]
        spec = GAME.phase(state)
        assert spec is not None
        for role in spec.active:
            if state["stage"] == "armies":
                orders = clg_bot.army_orders(role, SECRET[role])
            else:
                orders = clg_bot.orders_for(state, role)
            raw = order_file(phase.turn, phase.phase, role, 1, orders)
            assert submit(game_dir, raw, sign(raw, keys[role], NAMESPACE_ORDERS)).accepted
        return adjudicate(game_dir).phase.folder

    before = [next_phase() for _ in range(4)]  # armies, terrain and both deployments, as sent before
    monkeypatch.undo()
    upgraded = next_phase()  # the first phase adjudicated since: its report keeps format 2
    mail = game_dir / "mail"
    for folder in (*before, upgraded):
        for letter in kept_letters.glob(mail, f"{folder}/*.txt"):
            assert "The battlefield" not in kept_letters.read_text(letter), letter
    journal = GameDir(game_dir)
    opened = journal.open_phase()
    assert opened is not None and letter_format(journal, opened.seq) >= 3  # and 4, adopted with it
    assert "The battlefield" in kept_letters.read_text(mail / opened.folder / "blue.notice.txt")
    journal.close()
    report = audit(game_dir)
    assert report.ok, report
