"""Games played once per test module and copied for each test: copying a game directory costs
a fraction of playing it again. The copy's journal is taken with SQLite's backup API."""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from referee.game.engine import init_game
from referee.protocol.signatures import generate_keypair

from conftest import GAME_ID, TABLES, TestGame


def new_game(root: Path, players: Sequence[str] = ("alice", "bob", "carol")) -> TestGame:
    """Create a moderator game in root/game with keyed players (as conftest's make_game does)."""
    setup = root / "setup"
    (setup / "keys").mkdir(parents=True)
    keys = {}
    lines = [f"game: {GAME_ID}", "module: moderator", "title: Test game", "options: {}", "tables: tables.yaml"]
    lines += ["referee: {email: referee@example.org, name: Test Referee}", "players:"]
    for player in players:
        keys[player] = setup / "keys" / player
        generate_keypair(keys[player], comment=f"{player}@example.org")
        lines.append(f"  - {{name: {player}, email: {player}@example.org, key_file: keys/{player}.pub}}")
    (setup / "tables.yaml").write_text(TABLES, encoding="utf-8")
    (setup / "game.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    init_game(root / "game", setup / "game.yaml")
    return TestGame(root / "game", keys, players=tuple(players))


def copy_game(game: TestGame, target: Path) -> TestGame:
    """Return a copy of `game` in `target` (the players' keys are shared, read-only)."""
    shutil.copytree(game.dir, target, ignore=shutil.ignore_patterns("journal.sqlite*", ".lock"))
    source, copy = sqlite3.connect(game.dir / "journal.sqlite"), sqlite3.connect(target / "journal.sqlite")
    try:
        source.backup(copy)
    finally:
        source.close()
        copy.close()
    return dataclasses.replace(game, dir=target)
