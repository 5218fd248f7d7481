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
import numpy as np
import pytest
import test_obb_game
from test_obb_game import _play, bot_orders

from referee.game import announce
from referee.game.status import status
from referee.kit.tabletop import Size, corners, pose_from
from referee.letters.post import read_kept_html
from referee.protocol.verify import verify_game_dir

COSTS = {"move": [{"brigades": n, "tp": n + 1} for n in (2, 3, 5, 6)]}  # test values: the book's table is missing


def table_orders(view: dict[str, Any]) -> dict[str, Any] | list[dict[str, Any]]:
    """The plain-minded bot of test_obb_game, on the table: its leading division heads for the
    nearest enemy as far as its rate allows, and attacks what it touches. In the moves phase it
    gives the orders it would try in turn, the next sent when the referee refuses one."""
    phase = view["phase"]
    if phase.endswith("bombardment"):
        return {}
    if phase.endswith("moves"):
        return _advance(view)
    if phase.endswith("contact"):
        return _attack(view)
    return bot_orders(view)


def _boxes(view: dict[str, Any]) -> dict[str, tuple[float, float, float, float, str, str]]:
    """Each base on the field as the box round it (x1, y1, x2, y2), its army and its division."""
    bw = view["table"]["bw_mm"]
    boxes = {}
    for division in view["divisions"]:
        if division["spent"]:
            continue
        for brigade in division["brigades"]:
            for base in brigade["bases"]:
                if base["state"] in ("fresh", "shaken") and "pose" in base:
                    size = Size(bw / 2 if base["type"].endswith("artillery") else bw, bw / 2)
                    xs, ys = zip(*corners(pose_from(base["pose"]), size), strict=True)
                    boxes[base["id"]] = (min(xs), min(ys), max(xs), max(ys), division["army"], division["id"])
    return boxes


def _leading(view: dict[str, Any]) -> dict[str, Any] | None:
    me = view["your_army"]
    generals = {g["id"]: g for g in view["generals"]}
    for division in view["divisions"]:
        general = generals[division["commander"]]
        if (
            division["army"] == me
            and not division["spent"]
            and not division["title"].endswith("train")
            and general["status"] == "active"
            and general["no_orders_until"] < view["turn"]
        ):
            return division
    return None


def _advance(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The leading division's move, as the orders a player would try in turn: toward the nearest
    free enemy base, else straight ahead as far as the bases ahead and the table's edge allow,
    else standing (so that it may still attack)."""
    division = _leading(view)
    army = next(a for a in view["armies"] if a["id"] == view["your_army"])
    given = army["allocated"].get(division["commander"], {"given": 0})["given"] if division else 0
    if division is None or given < 2:
        return [{}]
    boxes = _boxes(view)
    engaged = {x for e in view["engagements"] for p in e["pairs"] for x in p["bases"]}
    on_field = {
        br["id"]: [b["id"] for b in br["bases"] if b["id"] in boxes]
        for br in division["brigades"]
        if any(b["id"] in boxes for b in br["bases"])
    }
    if not on_field or engaged & {b for bases in on_field.values() for b in bases}:
        return [{}]
    bw = view["table"]["bw_mm"]
    # n brigades cost n + 1 TP (COSTS, and the book's 2 and 5): as many as the TP pay for, that
    # stand within 1BW of each other (L237)
    brigades = _together(on_field, boxes, bw)[: min(given - 1, 6)]
    mine = [b for br in brigades for b in on_field[br]]
    stand = {"moves": [{"order": "move", "brigades": brigades}]}
    facings = {b["pose"]["facing"] for br in division["brigades"] for b in br["bases"] if b["id"] in mine}
    if len(facings) != 1 or facings & {0, 180} != facings:  # a base turned in a fight: the bot stands
        return [stand, {}]
    north = facings == {0}
    rate = bw * (4 if division.get("formation") == "defile" else 1)
    tries = [
        {"moves": [{"order": "move", "brigades": brigades, "steps": [step]}]}
        for step in (_toward(view, boxes, mine[0], north, rate), _ahead(view, boxes, mine, north, rate))
        if step is not None
    ]
    return [*tries, stand, {}]


def _toward(view: dict[str, Any], boxes: dict[str, Any], lead: str, north: bool, rate: float) -> dict | None:
    """A slide of the group bringing its lead base, up to `rate`, toward the front of the nearest
    free enemy base on the field (None: no enemy)."""
    my_side = next(a["side"] for a in view["armies"] if a["id"] == view["your_army"])
    enemies = {a["id"] for a in view["armies"] if a["side"] != my_side}
    engaged = {b for e in view["engagements"] for p in e["pairs"] for b in p["bases"]}
    x1, y1, x2, y2, _, _ = boxes[lead]
    here = np.array([(x1 + x2) / 2, (y1 + y2) / 2])
    half_depth = (y2 - y1) / 2
    fronts = [
        np.array([(a1 + a2) / 2, b1 - half_depth if north else b2 + half_depth])
        for base, (a1, b1, a2, b2, army, _) in boxes.items()
        if army in enemies and base not in engaged
    ]
    if not fronts:
        return None
    goal = min(fronts, key=lambda p: float(np.hypot(*(p - here))))
    way = goal - here
    length = float(np.hypot(*way))
    if length < 1:
        return None
    end = here + way * min(1.0, (rate - 1) / length)
    return {"to": [int(end[0]), int(end[1])]}


def _ahead(view: dict[str, Any], boxes: dict[str, Any], mine: list[str], north: bool, rate: float) -> dict | None:
    """An advance straight ahead as far as the bases ahead and the table's edge allow (None: no room)."""
    room = rate
    for base in mine:
        x1, y1, x2, y2, _, _ = boxes[base]
        room = min(room, view["table"]["depth_mm"] - y2 if north else y1)
        for other, (a1, b1, a2, b2, _, _) in boxes.items():
            if other in mine or a2 <= x1 + 1 or a1 >= x2 - 1:
                continue
            ahead = b2 > y1 + 1 if north else b1 < y2 - 1  # not wholly behind the base
            if ahead:
                room = min(room, max(b1 - y2 if north else y1 - b2, 0))
    return {"advance": int(room)} if int(room) > 0 else None


def _together(on_field: dict[str, list[str]], boxes: dict[str, Any], bw: float) -> list[str]:
    """The first brigade and those standing within 1BW of it, or of one joined to it, in order."""
    first, *rest = on_field

    def gap(one: str, other: str) -> float:
        (x1, y1, x2, y2, _, _), (a1, b1, a2, b2, _, _) = boxes[one], boxes[other]
        return float(np.hypot(max(a1 - x2, x1 - a2, 0), max(b1 - y2, y1 - b2, 0)))

    joined = [first]
    grew = True
    while grew:
        near = [
            br
            for br in rest
            if br not in joined
            and any(gap(b, j) <= bw for j_br in joined for j in on_field[j_br] for b in on_field[br])
        ]
        joined += near
        grew = bool(near)
    return [br for br in on_field if br in joined]


def _attack(view: dict[str, Any]) -> dict[str, Any]:
    division = _leading(view)
    if division is None or division["id"] in {d for e in view["engagements"] for d in e["divisions"]}:
        return {}
    boxes = _boxes(view)
    me = view["your_army"]
    my_side = next(a["side"] for a in view["armies"] if a["id"] == me)
    enemies = {a["id"] for a in view["armies"] if a["side"] != my_side}
    engaged = {b for e in view["engagements"] for p in e["pairs"] for b in p["bases"]}
    ready = [
        b["id"]
        for br in division["brigades"]
        if br["id"] in view["moved_this_turn"]
        for b in br["bases"]
        if b["id"] in boxes and b["id"] not in engaged
    ]
    pairs: dict[str, list[list[str]]] = {}
    taken: set[str] = set()
    for base in ready:
        x1, y1, x2, y2, _, _ = boxes[base]
        for other, (a1, b1, a2, b2, army, target) in boxes.items():
            faces = abs(b1 - y2) <= 1 or abs(y1 - b2) <= 1
            overlap = min(x2, a2) - max(x1, a1) > 1
            if army in enemies and faces and overlap and other not in taken and other not in engaged:
                pairs.setdefault(target, []).append([base, other])
                taken.add(other)
                break
    if not pairs:
        return {}
    target = max(pairs, key=lambda t: len(pairs[t]))
    return {"attacks": [{"division": division["id"], "target": target, "pairs": pairs[target]}]}


def play_on_the_table(
    folder: Path, monkeypatch: pytest.MonkeyPatch, phases: int = 80, **options: Any
) -> tuple[Path, list[Any]]:
    """Play the three-army game on the referee's table with `options` over the test game's."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)
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
