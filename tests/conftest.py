"""Fixtures shared by every test: the real ssh-keygen, and a fresh moderator game with keyed players."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import settings

from referee.demo import TABLES as DEMO_TABLES
from referee.game.engine import init_game, submit
from referee.game.results import Receipt
from referee.protocol.signatures import (
    NAMESPACE_ORDERS,
    generate_keypair,
    load_private_key,
    sign,
)

GAME_ID = "test-game"
# Real mail servers (Dovecot, aiosmtpd) for the mail tests: fixtures `dovecot` and `mail_world`.
pytest_plugins = ("mailworld",)

# The demo's two tables: one with modifiers and a clamp, one read in columns.
TABLES = DEMO_TABLES

# Property tests draw the same examples on every run (a seed per test), so the suite passes or
# fails on the code alone, never on the luck of a draw; a counterexample found once is kept as a
# named test. To search afresh: pytest -p no:cacheprovider --hypothesis-profile explore tests/...
settings.register_profile("suite", derandomize=True)
settings.register_profile("explore", max_examples=2_000, deadline=None)
settings.load_profile("suite")


@pytest.fixture(scope="session")
def ssh_keygen() -> str:
    """Return the path of OpenSSH's ssh-keygen, or skip: interoperability needs the real one."""
    path = shutil.which("ssh-keygen") or ("/usr/bin/ssh-keygen" if Path("/usr/bin/ssh-keygen").exists() else None)
    if path is None:
        pytest.skip("ssh-keygen (OpenSSH) is not installed: install openssh-client to run the interop tests")
    return path


def indent(text: str, prefix: str = "  ") -> str:
    """Return `text` with every non-empty line indented by `prefix`."""
    return "".join(prefix + line if line.strip() else line for line in text.splitlines(keepends=True))


@dataclass
class TestGame:
    """A game made by `make_game`: its directory, its players' private keys, and order helpers."""

    __test__ = False  # not a test class, whatever its name

    dir: Path
    keys: dict[str, Path]
    game: str = GAME_ID
    players: tuple[str, ...] = field(default=())

    def order(
        self, player: str, turn: int, orders: str, seq: int | None = None, game: str | None = None, phase: str = "round"
    ) -> bytes:
        """Return an order file's bytes: the header, then `orders` (YAML text) under `orders:`."""
        head = f"game: {game or self.game}\nturn: {turn}\nphase: {phase}\nplayer: {player}\n"
        head += f"seq: {seq}\n" if seq is not None else ""
        body = indent(orders if orders.endswith("\n") or not orders else orders + "\n")
        return (head + "orders:\n" + body).encode("utf-8")

    def signed(self, player: str, raw: bytes, namespace: str = NAMESPACE_ORDERS) -> str:
        """Return `player`'s armored signature of `raw`."""
        return sign(raw, load_private_key(self.keys[player]), namespace)

    def submit(self, player: str, turn: int, orders: str, **header: object) -> Receipt:
        """Write, sign (with `player`'s key) and submit an order file; return the receipt."""
        raw = self.order(player, turn, orders, **header)  # type: ignore[arg-type]
        return submit(self.dir, raw, self.signed(player, raw))


MakeGame = Callable[..., TestGame]


def new_game(
    tmp_path: Path,
    players: Sequence[str] = ("alice", "bob", "carol"),
    rounds: int | None = None,
    tables: str | None = TABLES,
) -> TestGame:
    """Make a moderator game under `tmp_path` (its set-up in tmp_path/setup, the game in tmp_path/game)."""
    setup = tmp_path / "setup"
    (setup / "keys").mkdir(parents=True)
    keys = {}
    for player in players:
        keys[player] = setup / "keys" / player
        generate_keypair(keys[player], comment=f"{player}@example.org")
    lines = [
        f"game: {GAME_ID}",
        "module: moderator",
        "title: Test game",
        f"options: {{rounds: {rounds}}}" if rounds is not None else "options: {}",
        "referee: {email: referee@example.org, name: Test Referee}",
        "players:",
    ]
    lines += [f"  - {{name: {p}, email: {p}@example.org, key_file: keys/{p}.pub}}" for p in players]
    if tables is not None:
        (setup / "tables.yaml").write_text(tables, encoding="utf-8")
        lines.append("tables: tables.yaml")
    (setup / "game.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    game_dir = tmp_path / "game"
    init_game(game_dir, setup / "game.yaml")
    return TestGame(game_dir, keys, players=tuple(players))


@pytest.fixture
def make_game() -> MakeGame:
    """Return a factory: make_game(tmp_path, players=..., rounds=None, tables=TABLES) -> TestGame (`new_game`)."""
    return new_game
