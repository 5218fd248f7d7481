"""The three-army game on the referee's table (option battlefield: table), through signed orders:
bots that read only their views advance their leading division as far as the table lets them,
attack from contact, and the referee checks every move and claim; then every record verifies and
every report carries the battlefield.

The whole game, until an army breaks (30 to 60 turns, 250 to 500 phases: 30 s to two minutes),
is behind the marker `polemos_long` (pytest -m polemos_long tests/games/polemos_obb); the
default suite plays its first turn. Both stub the pictures' PNGs (tests/letters tests them).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import kept_letters
import pytest
import test_obb_game
from counter_random import counter_urandom
from obb_table_bot import table_orders
from test_obb_game import _play

from referee.game import announce
from referee.game.status import status
from referee.letters.post import read_kept_html
from referee.protocol.verify import verify_game_dir

COSTS = {"move": [{"brigades": n, "tp": n + 1} for n in (2, 3, 5, 6)]}  # test values: the book's table is missing


def play_on_the_table(
    folder: Path, monkeypatch: pytest.MonkeyPatch, phases: int = 80, seed: str = "obb-table/1", **options: Any
) -> tuple[Path, list[Any]]:
    """Play the three-army game on the referee's table with `options` over the test game's, the
    referee's seeds and secret drawn from a counter named `seed`: the same dice on every run."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    monkeypatch.setattr(os, "urandom", counter_urandom(seed))
    # The PNGs are most of a phase's time and are tested in tests/letters; the SVGs are kept.
    monkeypatch.setattr(announce, "png", lambda scene: b"\x89PNG")
    monkeypatch.setattr(announce.board_pictures, "png", lambda scene: b"\x89PNG")
    base = {k: v for k, v in test_obb_game.OPTIONS.items() if k != "battlefield"}
    monkeypatch.setattr(test_obb_game, "OPTIONS", {**base, "order_costs": COSTS, **options})
    game_dir, log = _play(folder, table_orders, phases)
    assert status(game_dir)["over"]
    report = verify_game_dir(game_dir)
    assert report.problems == [] and report.records == len(log)
    reports = list(kept_letters.glob(game_dir / "mail", "*/*.report.html*"))
    assert reports
    for path in reports:
        html = read_kept_html(path.with_name(path.name.removesuffix(".gz")))
        pictures = re.findall(r'<svg [^>]*aria-label="[^"]*: the (battlefield|army boards) as ', html)
        assert sorted(pictures) == ["army boards", "battlefield"], path
    return game_dir, log


def test_the_first_turn_on_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game_dir, log = play_on_the_table(tmp_path, monkeypatch, rounds=1)
    kinds = {kind for entry in log for kind in entry["kinds"]}
    assert {"table.deployed", "moves.orders"} <= kinds
    notices = [
        p
        for p in kept_letters.glob(game_dir / "mail", "*-moves/*.notice.txt")
        if "Your orders are awaited" in _words(p)
    ]
    assert notices and all("your bases, positions in mm, and how far " in _words(p) for p in notices)
    bavarian = _words(next(p for p in notices if p.name.startswith("bavarian")))
    # The rate the referee checks: the limbered guns alone move as baggage, 1BD (L144, L262).
    assert "G1 at (525, 540) facing 180, G2 at (555, 540) facing 180: 30 mm a turn, limbered guns" in bavarian
    contacts = [
        p
        for p in kept_letters.glob(game_dir / "mail", "*-contact/*.notice.txt")
        if "Your orders are awaited" in _words(p)
    ]
    assert all("enemy bases in reach " in _words(p) for p in contacts)  # none when no base touches (pace)


def _words(letter: Path) -> str:
    """The letter's text as one line, its form's comment marks dropped."""
    return " ".join(kept_letters.read_text(letter).replace("#", " ").split())


@pytest.mark.polemos_long
def test_the_three_armies_fight_on_the_table_until_an_army_breaks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    if "polemos_long" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("opt-in (minutes): pytest -m polemos_long tests/games/polemos_obb")
    # No last turn: the battle ends as the book ends it, an army's critical morale factor exhausted
    # (L: army morale; test values, the book's are missing).
    army_morale = {"cmf": {"dutch": 3, "imperial": 3, "bavarian": 4}, "when_exhausted": "game-ends"}
    game_dir, log = play_on_the_table(tmp_path, monkeypatch, rounds=None, army_morale=army_morale, phases=1200)
    kinds = {kind for entry in log for kind in entry["kinds"]}
    assert {"table.deployed", "moves.orders", "combat.encounter", "morale.division", "morale.army"} <= kinds
    last = list(kept_letters.glob(game_dir / "mail", "*/dutch.report.txt"))[-1]
    assert "army breaks: its critical morale factor is exhausted" in _words(last)
