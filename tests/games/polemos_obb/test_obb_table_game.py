"""The three-army game on the referee's table (option battlefield: table), through signed orders,
to an army break: bots that read only their views (obb_table_bot.py) move every division that has
orders, fire their guns, charge with horse and attack from contact, and the referee checks every
move and claim; then every record verifies, every report carries the battlefield, and the last
reports name the army that breaks as the book decides it.

The referee's seeds and secret come from a counter (tests/counter_random.py), so a battle's dice
are the same on every run and a failure replays. The default suite fights one short battle (seed 6,
3 turns, 27 phases: about 5 s); the marker `polemos_long` fights six (pytest -m polemos_long
tests/games/polemos_obb: about a minute and a half). Both stub the pictures' PNGs (tests/letters tests them).
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


# No last turn: the battle ends as the book ends it, an army's critical morale factor exhausted
# (army morale, p. 30, is missing from the file: test values, and the battle ends with the first army).
ARMY_MORALE = {"cmf": {"dutch": 3, "imperial": 3, "bavarian": 4}, "when_exhausted": "game-ends"}
# The referee's randomness of each seeded battle; every one ends in an army break (turn, phases):
# 1: Bavarian, turn 1 (9); 2: Bavarian, 15 (132); 3: Bavarian, 4 (35); 4: Bavarian, 32 (276);
# 5: Imperial, 9 (79); 6: Imperial, 3 (27). The default suite plays the short battle of seed 6.
SEEDS = [f"obb-table/{n}" for n in range(1, 7)]
SHORT_BATTLE = "obb-table/6"


def test_a_seeded_battle_on_the_table_is_fought_to_an_army_break(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_dir, log = fight(tmp_path, monkeypatch, SHORT_BATTLE)
    notices = [
        p
        for p in kept_letters.glob(game_dir / "mail", "*-t1-*-moves/*.notice.txt")
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
    assert contacts and all("enemy bases in reach " in _words(p) for p in contacts)


@pytest.mark.polemos_long
@pytest.mark.parametrize("seed", SEEDS)
def test_the_three_armies_fight_on_the_table_until_an_army_breaks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, seed: str
) -> None:
    if "polemos_long" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("opt-in (a minute and a half): pytest -m polemos_long tests/games/polemos_obb")
    fight(tmp_path, monkeypatch, seed)


def fight(folder: Path, monkeypatch: pytest.MonkeyPatch, seed: str) -> tuple[Path, list[Any]]:
    """Play the seeded battle to its end and check the end as the book decides it: an army's
    critical morale factor exhausted (L597: a spent division costs its army 1D6), the army named
    as breaking in every player's last report, with each side's losses."""
    game_dir, log = play_on_the_table(folder, monkeypatch, rounds=None, army_morale=ARMY_MORALE, phases=400, seed=seed)
    kinds = {kind for entry in log for kind in entry["kinds"]}
    assert {"table.deployed", "moves.orders", "bombardment.fire", "combat.encounter", "morale.army"} <= kinds
    last = sorted(p for p in (game_dir / "mail").iterdir() if p.is_dir())[-1]
    view = test_obb_game.load_yaml(kept_letters.read_text(last / "dutch.view-after.yaml"))
    broken = [a for a in view["armies"] if a["exhausted"]]
    assert len(broken) == 1 and broken[0]["cmf"] <= 0, view["armies"]
    army = broken[0]["title"]
    assert view["result"].startswith(f"the {army} breaks: its critical morale factor is exhausted (turn ")
    for player in test_obb_game.PLAYERS:
        report = _words(last / f"{player}.report.txt")
        assert f"The battle is over: the {army} breaks: its critical morale factor is exhausted" in report
        assert "Losses: The Allies lost " in report and "; The Franco-Bavarians lost " in report
    return game_dir, log


def _words(letter: Path) -> str:
    """The letter's text as one line, its form's comment marks dropped."""
    return " ".join(kept_letters.read_text(letter).replace("#", " ").split())
