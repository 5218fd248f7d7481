"""A player who enumerates the opponent's hidden options cannot match them against the public
record (issue 13, item 1; protocol section 15).

For every game module, a real game is played through the real engine and command line, by the
game's first test bot (tests/contract/play.py BOTS: it gives hidden notes, standing orders or
sealed armies) or with each phase's example orders. Then, for each player in turn, the test plays the guesser: for
each state the game passed through, it changes one hidden leaf the player may not see to each
of a few alternatives (the true value among them), and computes for each candidate what anyone
can compute without the game's secret: the SHA-256 of the candidate's state envelope and of
its bare state, as the core writes them (canonical JSON). If one of those appears in what the
player holds (every public record, every letter mailed to them), the true candidate matches and
the others do not: the alternatives are told apart, and the hidden leaf is recovered. Records
that name states by their plain SHA-256 fail here; hiding commitments pass.
"""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path
from typing import Any

import kept_letters
import pytest
from click.testing import CliRunner
from play import BOTS, OrderMaker, example_or_default, players_of
from test_leaks import GAME_IDS, Leaf, _game, _order_file, get, hidden_leaves, put

from referee.cli import cli
from referee.game.journal import GameDir
from referee.game.opened import Game
from referee.kit import GameModule
from referee.protocol.canonical import canonical_json, sha256_hex
from referee.protocol.signatures import NAMESPACE_ORDERS, generate_keypair, load_private_key, sign

PHASES = 6
ALTERNATIVES = 3  # the true value and two others
HEX64 = re.compile(r"[0-9a-f]{64}")


def write_game(game: GameModule, root: Path, scenario: str, options: dict[str, Any]) -> Path:
    """Write a configuration for `scenario` with `options` and keyed players; return it."""
    (root / "keys").mkdir(parents=True)
    lines = ["game: guess", f"module: {game.id}", f"scenario: {scenario}", "title: guess"]
    lines += [f"options: {json.dumps(options)}", "referee: {email: referee@example.org, name: Test Referee}"]
    lines.append("players:")
    for player in players_of(game, scenario, options):
        generate_keypair(root / "keys" / player, comment=f"{player}@example.org")
        lines.append(f"  - {{name: {player}, email: {player}@example.org, key_file: keys/{player}.pub}}")
    (root / "game.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root / "game.yaml"


def play(game_id: str, root: Path, phases: int = PHASES, options: dict[str, Any] | None = None) -> Path:
    """Play a real game of `game_id` for up to `phases` phases; return its folder. The game's
    first test bot gives the orders, in its scenario with its options (or with `options`)."""
    game = _game(game_id)
    bot = BOTS.get(game_id, [None])[0]
    scenario, options = (bot.scenario, options or bot.options) if bot else (game.scenarios[0], {"rounds": 3})
    order_maker: OrderMaker = bot.orders if bot else example_or_default
    rng = random.Random(7)
    config = write_game(game, root / "setup", scenario, options)
    game_dir = root / "game"
    runner = CliRunner()
    result = runner.invoke(cli, ["init", str(game_dir), "--config", str(config)])
    assert result.exit_code == 0, result.output
    for _ in range(phases):
        journal = GameDir(game_dir)
        phase = journal.open_phase()
        if phase is None:
            break
        state = journal.load_state(phase.state_before)["state"]
        journal.close()
        spec = game.phase(state)
        assert spec is not None
        for player in spec.active:
            raw = _order_file("guess", phase.turn, phase.phase, player, order_maker(game, state, spec, player, rng))
            order = root / f"{player}-{phase.seq}.yaml"
            order.write_bytes(raw)
            key = load_private_key(config.parent / "keys" / player)
            order.with_name(order.name + ".sig").write_text(sign(raw, key, NAMESPACE_ORDERS), encoding="utf-8")
            runner.invoke(cli, ["submit", str(game_dir), str(order)])
        result = runner.invoke(cli, ["adjudicate", str(game_dir), "--force"])
        assert result.exit_code == 0, result.output
    return game_dir


def public_hashes(game_dir: Path, player: str) -> set[str]:
    """Return every 64-hex value in what `player` holds: the public records and their letters."""
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in (game_dir / "records").glob("*.json")]
    mail = game_dir / "mail"
    letters = list(kept_letters.glob(mail, f"*/{player}.*"))  # in a pack of letters or a file each
    assert letters, f"no letter of {player} kept under {mail}"
    texts += [kept_letters.read_bytes(p).decode("utf-8", errors="replace") for p in letters]
    return {digest for text in texts for digest in HEX64.findall(text)}


def alternatives(leaf: Leaf, pool: list[Any]) -> list[Any]:
    """Return the leaf's true value and up to two others of its kind (from its pool, or made)."""
    value = leaf.value
    if isinstance(value, bool):
        others: list[Any] = [not value]
    elif isinstance(value, int | float):
        others = [value + 1, value - 1]
    else:
        others = [v for v in pool if v != value and type(v) is type(value)] + [f"{value}-x", "guess"]
    return [value, *others][:ALTERNATIVES]


def fingerprints(envelope: dict[str, Any]) -> set[str]:
    """Return what a guesser computes of a candidate envelope without the game's secret."""
    return {sha256_hex(canonical_json(envelope)), sha256_hex(canonical_json(envelope["state"]))}


def told_apart(game_id: str, game_dir: Path) -> tuple[int, list[str]]:
    """Return how many (player, state, leaf) guesses were tried, and those the public values decide."""
    game = _game(game_id)
    journal = GameDir(game_dir)
    digests = {d for row in journal.phases() for d in (row.state_before, row.state_after) if d}
    envelopes = [journal.load_state(digest) for digest in sorted(digests)]
    players = [p.name for p in Game.open(game_dir).config.players]
    tried, decided = 0, []
    for player in players:
        known = public_hashes(game_dir, player)
        for envelope in envelopes:
            leaves = [leaf for leaf in hidden_leaves(game, envelope["state"]) if player not in leaf.entitled]
            pools: dict[str, list[Any]] = {}
            for leaf in leaves:
                pools.setdefault(leaf.group, []).append(leaf.value)
            for leaf in leaves:
                matches = set()
                for value in alternatives(leaf, pools[leaf.group]):
                    candidate = copy.deepcopy(envelope)
                    put(candidate["state"], leaf.path, value)
                    assert get(candidate["state"], leaf.path) == value
                    matches.add(bool(fingerprints(candidate) & known))
                tried += 1
                if len(matches) > 1:
                    decided.append(f"{player} recovers {leaf.pointer} = {leaf.value!r} (turn {envelope['turn']})")
    return tried, decided


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_no_public_value_tells_a_hidden_leafs_alternatives_apart(game_id: str, tmp_path: Path) -> None:
    game_dir = play(game_id, tmp_path)
    tried, decided = told_apart(game_id, game_dir)
    assert tried > 0, f"{game_id}: the game played reached no hidden leaf to guess"
    listed = "\n  ".join(decided[:10])
    assert not decided, f"{game_id}: {len(decided)} of {tried} guesses are decided by a public value:\n  {listed}"
