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


def size_of(path: Path, apparent: bool) -> int:
    st = path.stat()
    return st.st_size if apparent else st.st_blocks * 512


def sizes(game: Path, apparent: bool) -> dict[str, int]:
    out = {"records": 0, "states": 0, "journal": 0, "letters": 0, "outbox": 0, "other": 0}
    seen: set[tuple[int, int]] = set()  # a file hard-linked under two names is on disk once (as du counts it)
    for dirpath, _dirs, files in os.walk(game):
        rel = Path(dirpath).relative_to(game)
        top = rel.parts[0] if rel.parts else ""
        for name in files:
            st = (Path(dirpath) / name).stat()
            if st.st_nlink > 1:
                if (st.st_dev, st.st_ino) in seen:
                    continue
                seen.add((st.st_dev, st.st_ino))
            size = size_of(Path(dirpath) / name, apparent)
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


WINDOW = 5  # rounds averaged: the journal grows by whole 4 KiB pages, not by the round


def main() -> None:
    if "--last-state-only" in sys.argv:
        # Bytes do not depend on it: each adjudication checks the newest state against its name
        # only (what an incremental chain check does), so that 1,000 rounds take minutes, not hours.
        from referee.game.journal import GameDir

        def newest_only(self: GameDir, digest: str) -> None:
            self._state_bytes(digest)

        GameDir.check_state_chain = newest_only  # type: ignore[method-assign]
    wanted = sorted(int(arg) for arg in sys.argv[1:] if not arg.startswith("--")) or [10, 100]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        game = new_game(work)
        send_all(game)
        start = time.process_time()
        before: dict[bool, dict[str, int]] = {}
        for turn in range(1, wanted[-1] + 1):
            if turn + WINDOW - 1 in wanted or (turn == 1 and any(n < WINDOW for n in wanted)):
                checkpoint(game)
                before = {apparent: sizes(game, apparent) for apparent in (True, False)}
                first = turn
            play_round(work, game, turn)
            send_all(game)
            if turn in wanted:
                checkpoint(game)
                rounds = turn - first + 1
                for apparent in (True, False):
                    after = sizes(game, apparent)
                    delta = {k: (after[k] - before[apparent][k]) / rounds for k in after}
                    parts = ", ".join(f"{k} {v / 1024:.1f}" for k, v in delta.items())
                    what = "apparent bytes" if apparent else "allocated (du)"
                    print(
                        f"round {turn}, {what}, a round of rounds {first}-{turn}: "
                        f"{sum(delta.values()) / 1024:.1f} KiB ({parts})"
                    )
                whole = sum(sizes(game, False).values())
                print(
                    f"round {turn}: game directory {whole / 1024 / 1024:.1f} MiB (du); "
                    f"CPU so far {time.process_time() - start:.1f} s",
                    flush=True,
                )


if __name__ == "__main__":
    main()
