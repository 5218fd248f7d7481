"""A whole game by e-mail rules: three players (Britain and Russia, allies, against France) play
the coalition scenario through signed order files; the referee supplies the Guard Commitment
Table and the competitive-roll procedure with `referee supply` (test values, not the book's);
a land combat with guards and artillery on both sides and a naval combat of four nationalities
are fought, with sealed guard commitments, a sealed standing policy and allied loss proposals.
Then every record is verified, and every sealed choice revealed is checked against its
commitment in the record of the phase it was sealed in.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import kept_letters
import pytest
import yaml
from click.testing import CliRunner
from counter_random import counter_urandom
from eia_bot import COMBAT_RESULTS, COMPETITIVE, GUARD_TABLE, OPTIONS, orders_from

from referee.cli import cli
from referee.game.audit import audit
from referee.game.engine import adjudicate, init_game, submit
from referee.game.opened import Game
from referee.game.status import status
from referee.protocol.hidden import check_opening, typed_values
from referee.protocol.reveals import hidden_draws
from referee.protocol.signatures import NAMESPACE_ORDERS, generate_keypair, load_private_key, sign
from referee.protocol.verify import verify_game_dir

PLAYERS = ("britain", "france", "russia")
GAME_ID = "coalition-test"
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# The referee's seeds come from os.urandom; drawn from a counter here (as the golden games do), the
# dice are the same on every run, so the allied loss phase the test asks for always comes (with
# the system's randomness, one run in three had no odd loss to share).
SEEDS = "eia-game/2"


def make_game(folder: Path) -> tuple[Path, dict[str, Path]]:
    setup = folder / "setup"
    (setup / "keys").mkdir(parents=True)
    keys = {}
    for player in PLAYERS:
        keys[player] = setup / "keys" / player
        generate_keypair(keys[player], comment=f"{player}@example.org")
    options = {k: v for k, v in OPTIONS.items() if k not in ("guard_table", "competitive_rolls")}
    config = {
        "game": GAME_ID,
        "module": "empires-in-arms",
        "title": "The coalition",
        "scenario": "coalition",
        "options": {**options, "combat_results": COMBAT_RESULTS},
        "referee": {"email": "referee@example.org", "name": "The Referee"},
        "players": [{"name": p, "email": f"{p}@example.org", "key_file": f"keys/{p}.pub"} for p in PLAYERS],
    }
    (setup / "game.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    game_dir = folder / "game"
    init_game(game_dir, setup / "game.yaml")
    for need, data in (("guard_table", GUARD_TABLE), ("competitive_rolls", COMPETITIVE)):
        path = setup / f"{need}.yaml"
        path.write_text(yaml.safe_dump({"supplies": need, "data": data}), encoding="utf-8")
        result = CliRunner().invoke(cli, ["supply", str(game_dir), str(path), "--reason", "test values"])
        assert result.exit_code == 0, result.output
    return game_dir, keys


def notice_view(game_dir: Path, player: str) -> dict[str, Any]:
    phase = Game.open(game_dir).dir.open_phase()
    assert phase is not None
    folder = game_dir / "mail" / getattr(phase, "folder", phase.stem)
    loaded: dict[str, Any] = yaml.load(kept_letters.read_text(folder / f"{player}.view.yaml"), Loader=LOADER)  # noqa: S506
    return loaded


def order_file(info: dict[str, Any], player: str, orders: dict[str, Any]) -> bytes:
    header = {"game": GAME_ID, "turn": info["turn"], "phase": info["phase"], "player": player, "seq": 1}
    return yaml.safe_dump({**header, "orders": orders}, sort_keys=False).encode("utf-8")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fsync", lambda fd: None)
        patch.setattr(os, "urandom", counter_urandom(SEEDS))
        return _play(tmp_path_factory.mktemp("eia"))


def _play(folder: Path) -> tuple[Path, list[dict[str, Any]]]:
    game_dir, keys = make_game(folder)
    rng = random.Random(5)
    log = []
    for _ in range(40):
        info = status(game_dir)
        if info["over"]:
            break
        for player in info["active"]:
            view = notice_view(game_dir, player)
            raw = order_file(info, player, orders_from(view, info["phase"], info["turn"], player, rng))
            receipt = submit(game_dir, raw, sign(raw, load_private_key(keys[player]), NAMESPACE_ORDERS))
            assert receipt.accepted, (info["phase"], player, [str(p) for p in receipt.problems])
        result = adjudicate(game_dir)
        log.append({"turn": info["turn"], "phase": info["phase"], "events": result.events})
    assert status(game_dir)["over"]
    return game_dir, log


def test_the_game_is_played_to_its_end_with_both_combats(played: tuple[Path, list[dict[str, Any]]]) -> None:
    _, log = played
    phases = [entry["phase"] for entry in log]
    assert phases[:2] == ["round", "round"]
    assert any(p.startswith("combat-c1-round-") for p in phases) and any(
        p.startswith("combat-c2-round-") for p in phases
    )
    kinds = {e.kind for entry in log for e in entry["events"]}
    assert {
        "combat.declared",
        "combat.fire",
        "combat.ended",
        "sealed.revealed",
        "policy.revealed",
        "combat.losses",
    } <= kinds


def test_guard_commitments_and_loss_proposals_were_sealed_and_revealed_with_proofs(
    played: tuple[Path, list[dict[str, Any]]],
) -> None:
    game_dir, log = played
    draws = {(d.body["turn"], d.body["phase"], d.label): d for d in hidden_draws(game_dir / "records")}
    revealed = [e for entry in log for e in entry["events"] if e.kind in ("sealed.revealed", "policy.revealed")]
    assert revealed
    for event in revealed:
        for opening in event.data["openings"]:
            draw = draws[(opening["turn"], opening["phase"], opening["label"])]
            assert check_opening(opening, draw.commitments[opening["index"]], typed_values(draw.body)), opening
    guards = [
        c
        for e in revealed
        if e.kind == "sealed.revealed"
        for c in e.data["choices"].values()
        if isinstance(c, dict) and c.get("guard")
    ]
    assert guards, "some round had a guard commitment"


def test_every_record_verifies(played: tuple[Path, list[dict[str, Any]]]) -> None:
    game_dir, log = played
    report = verify_game_dir(game_dir)
    assert report.problems == []
    assert report.records == len(log)


def test_three_combats_and_an_allied_loss_phase(played: tuple[Path, list[dict[str, Any]]]) -> None:
    _, log = played
    phases = [entry["phase"] for entry in log]
    assert {p.split("-round-")[0] for p in phases if p.startswith("combat-")} == {"combat-c1", "combat-c2", "combat-c3"}
    assert any(p.startswith("losses-") for p in phases), phases
    events = [e for entry in log for e in entry["events"]]
    boxes = [e.data["box"] for e in events if e.kind == "sealed.revealed"]
    assert any(box.startswith("losses-") for box in boxes), boxes  # allied proposals, sealed and revealed
    assert any(e.kind == "losses.competitive" for e in events)  # proposals that differ go to the rolls
    guards = [e for e in events if e.kind == "combat.guard"]
    assert {e.data["side"] for e in guards} == {"attacker", "defender"}  # both sides committed, sealed


def test_the_audit_replays_every_phase_and_supply(played: tuple[Path, list[dict[str, Any]]]) -> None:
    game_dir, log = played
    report = audit(game_dir)
    assert report.ok, report.divergence
    assert report.phases >= len(log)


def test_frances_policy_stays_in_her_letters_until_it_is_used(played: tuple[Path, list[dict[str, Any]]]) -> None:
    game_dir, _ = played
    folders = sorted(p for p in (game_dir / "mail").iterdir() if p.is_dir() and p.name[:4].isdigit())
    used = next(i for i, f in enumerate(folders) if "revealed:" in kept_letters.read_text(f / "britain.report.txt"))
    read = 0
    for folder in folders[:used]:
        for path in kept_letters.glob(game_dir / "mail", f"{folder.name}/*"):
            if path.name.startswith("france.") or path.suffix == ".gz":
                continue
            read += 1
            text = kept_letters.read_bytes(path).decode("utf-8", errors="replace")
            assert "'rounds': [2]" not in text and "rounds: [2]" not in text, path
            assert "guard france +2 in round(s) 2" not in text, path
    assert read, "no letter was read before the policy was used"
    # ...and once used, every player reads it in words.
    assert "guard france +2 in round(s) 2" in kept_letters.read_text(folders[used] / "britain.report.txt")
