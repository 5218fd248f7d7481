#!/usr/bin/env python3
"""Bytes on disk per round of a 4-player moderator game (each player one table roll, a
declaration and a note a round), at chosen rounds, split by folder: records, states, journal,
letters (mail/), outbox, other.

    PYTHONPATH=$PWD python3 scripts/disk_per_round.py 10 100 1000

For each round N asked, prints what playing round N (four order files, adjudicating, opening
round N+1, sending every letter) added to the game directory: apparent bytes (the files'
lengths) and allocated bytes (du: at least one 4 KiB block a file on most file systems).
"""

from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PLAYERS = ("p1", "p2", "p3", "p4")
TABLES = (
    "schema_version: 1\ntables:\n  morale:\n    title: Morale\n    dice: 2d6\n    modifiers: {elite: 1}\n"
    "    rows:\n      - {range: '6-', result: breaks}\n      - {range: '7+', result: holds}\n"
)


def allocated(path: Path) -> int:
    st = path.stat()
    return st.st_size if APPARENT else st.st_blocks * 512


APPARENT = False


def sizes(game: Path) -> dict[str, int]:
    out = {"records": 0, "states": 0, "journal": 0, "letters": 0, "outbox": 0, "other": 0}
    for dirpath, _dirs, files in os.walk(game):
        rel = Path(dirpath).relative_to(game)
        top = rel.parts[0] if rel.parts else ""
        for name in files:
            size = allocated(Path(dirpath) / name)
            if name.startswith("journal.sqlite"):
                out["journal"] += size
            elif top in ("records", "states", "outbox"):
                out[top] += size
            elif top == "mail":
                out["letters"] += size
            else:
                out["other"] += size
    return out


def new_game(work: Path) -> Path:
    from referee.game.engine import init_game
    from referee.protocol.signatures import generate_keypair

    for player in PLAYERS:
        generate_keypair(work / player)
    entries = "".join(f"  - {{name: {p}, email: {p}@example.org, key_file: {p}.pub}}\n" for p in PLAYERS)
    (work / "game.yaml").write_text("game: disk\nmodule: moderator\ntables: tables.yaml\nplayers:\n" + entries)
    (work / "tables.yaml").write_text(TABLES)
    init_game(work / "game", work / "game.yaml")
    return work / "game"


def play_round(work: Path, game: Path, turn: int) -> None:
    from referee.game.engine import adjudicate, submit
    from referee.protocol.signatures import NAMESPACE_ORDERS, load_private_key, sign

    for player in PLAYERS:
        raw = (
            f"game: disk\nturn: {turn}\nphase: round\nplayer: {player}\norders:\n"
            f"  rolls:\n    - {{label: r{turn}, table: morale, modifiers: [elite], purpose: morale check {turn}}}\n"
            f"  declaration: {{bid: {turn % 7}, plan: hold the ridge at {turn}}}\n"
            f"  note: round {turn}, {player} stands firm\n"
        ).encode()
        receipt = submit(game, raw, sign(raw, load_private_key(work / player), NAMESPACE_ORDERS))
        assert receipt.accepted, receipt.problems
    adjudicate(game)


def send_all(game: Path) -> None:
    """Do what sending does to the outbox: every letter in new/ goes to cur/."""
    from referee.mail.smtp import _mark_sent

    for path in sorted((game / "outbox" / "new").glob("*.eml")):
        _mark_sent(game / "outbox", path)


def checkpoint(game: Path) -> None:
    db = sqlite3.connect(game / "journal.sqlite")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def main() -> None:
    wanted = sorted(int(arg) for arg in sys.argv[1:]) or [10, 100]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        game = new_game(work)
        start = time.process_time()
        for turn in range(1, wanted[-1] + 1):
            if turn in wanted:
                checkpoint(game)
                before = sizes(game)
                global APPARENT
                APPARENT = True
                before_apparent = sizes(game)
                APPARENT = False
            play_round(work, game, turn)
            send_all(game)
            if turn in wanted:
                checkpoint(game)
                after = sizes(game)
                APPARENT = True
                after_apparent = sizes(game)
                APPARENT = False
                apparent = {k: after_apparent[k] - before_apparent[k] for k in after}
                parts = ", ".join(f"{k} {v / 1024:.1f}" for k, v in apparent.items())
                print(f"round {turn}, apparent bytes: {sum(apparent.values()) / 1024:.1f} KiB ({parts})")
                delta = {k: after[k] - before[k] for k in after}
                total = sum(delta.values())
                parts = ", ".join(f"{k} {v / 1024:.1f}" for k, v in delta.items())
                print(
                    f"round {turn}, allocated (du): {total / 1024:.1f} KiB ({parts}); game directory {sum(after.values()) / 1024 / 1024:.1f} MiB;"
                    f" CPU so far {time.process_time() - start:.1f} s",
                    flush=True,
                )


if __name__ == "__main__":
    main()
