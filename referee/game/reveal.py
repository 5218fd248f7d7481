"""`referee reveal`: publish the keys of hidden draws (a finished deck) or, once the game is over,
the game secret, as a signed file in GAMEDIR/reveals/ mailed to every player. The final reveal
also publishes what a replay of the whole game needs (GAMEDIR/replay.json, protocol section
16): the initial configuration, every order file, the state key, the referee's state edits.

How a player proves draws from a reveal is the protocol's: `referee.protocol.reveals`.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from referee.errors import StateError
from referee.files import atomic_write
from referee.game import operations
from referee.game.announce import post_reveal
from referee.game.opened import Game
from referee.game.operations import Intent
from referee.game.order_files import every_kept_file
from referee.kit.contract import InPlay
from referee.protocol.canonical import pretty_json, sha256_hex
from referee.protocol.hidden import game_commitment
from referee.protocol.replay import REPLAY_FILE, REPLAY_TYPE
from referee.protocol.reveals import REVEAL_TYPE, expected_draw_key, hidden_draws
from referee.protocol.states import state_key


def reveal(
    path: Path, patterns: Sequence[str] = (), final: bool = False, operation: str | None = None, force: bool = False
) -> Path:
    """Publish a reveal: the draws whose labels match `patterns` (fnmatch), or with `final` the
    game secret and every draw. Return the signed reveal file; every player is sent a copy.

    While the game goes on, a draw that still hides something from some player (cards in hands
    or a draw pile, a sealed note: the game module's `in_play`) is refused; with `force` it is
    revealed, and the letter tells every player exactly what it opens.

    An operation (referee.game.operations) keyed by the draws it reveals: run again after a
    crash, it finishes the same reveal file; run again after it finished, it raises AlreadyDone."""
    game = Game.open(path)
    with game.dir.lock(guard=False):
        secret = game.dir.hidden_secret()
        if secret is None:
            raise StateError(f"{path} has no hidden secret: it has made no hidden draw to reveal")
        if final and game.dir.open_phase() is not None:
            raise StateError(
                "the game is not over: its hidden secret also decides every hidden draw still to come",
                hints=(
                    "to prove a finished deck now: referee reveal GAMEDIR --draw 'deck/NAME/*'",
                    "reveal the secret once the game is over: referee reveal GAMEDIR --final",
                ),
            )
        draws = hidden_draws(game.dir.records)
        chosen = draws if final else [d for d in draws if any(fnmatch.fnmatchcase(d.label, p) for p in patterns)]
        if not chosen and not final:  # the final reveal also publishes the replay, draws or none
            known = ", ".join(sorted({d.label for d in draws})[:20]) or "none"
            raise StateError(
                f"no hidden draw matches {', '.join(patterns) or 'nothing'}",
                hints=(f"hidden draws: {known}", "give --draw LABEL (wildcards * and ? allowed) or --final"),
            )
        opens = [] if final else still_in_play(game, [d.label for d in chosen])
        if opens and not force:
            raise StateError(
                "this would open what the game still hides: " + "; ".join(opens),
                hints=(
                    "reveal a deck once it is finished, or everything with --final once the game is over",
                    "to reveal it anyway (every player is told what it opens): add --force",
                ),
            )
        chosen_keys = sorted([d.record_sha256, d.label] for d in chosen)
        rerun = [str(path), *(["--final"] if final else [a for p in patterns for a in ("--draw", p)])]
        rerun += ["--force"] if opens else []
        intent = Intent.of("reveal", {"final": final, "draws": chosen_keys}, rerun, operation)
        resumed = operations.begin(game.dir, intent)
        folder = game.dir.path / "reveals"
        if resumed is not None:
            target = folder / resumed.plan["file"]
        else:
            number = len(list(folder.glob("*.json"))) + 1 if folder.is_dir() else 1
            target = folder / f"{number:04d}.json"
            operations.start(game.dir, intent, {"file": target.name})
        inputs = _inputs(game.dir.log_entries(("phase.adjudicated",)))
        body = {
            "type": REVEAL_TYPE,
            "game": game.config.game,
            "hidden_commit": game_commitment(secret),
            "game_secret": secret.hex() if final else None,
            "draws": [
                {
                    "record": draw.record,
                    "record_sha256": draw.record_sha256,
                    "label": draw.label,
                    "draw_key": expected_draw_key(secret, draw).hex(),
                    "inputs": inputs.get((draw.record_sha256, draw.label)),
                }
                for draw in chosen
            ],
        }
        data = pretty_json(body)
        atomic_write(target, data)
        atomic_write(target.with_name(target.name + ".sig"), game.sign(data).encode())
        logged: dict[str, Any] = {"file": target.name, "final": final, "draws": len(chosen)}
        extra = [_write_replay(game, secret)] if final else []  # the same bytes when run again
        post_reveal(game, target, final, [d.label for d in chosen], opens, extra)
        with game.dir.transaction():
            game.dir.log("hidden.revealed", {**logged, "forced": opens} if opens else logged)
            summary = f"revealed: {target} ({len(chosen)} draw(s), sent to every player)\n"
            operations.finish(game.dir, intent, summary)
    return target


def _write_replay(game: Game, secret: bytes) -> Path:
    """Write and sign GAMEDIR/replay.json (protocol section 16); return its path."""
    orders = {}
    for _name, raw in every_kept_file(game.dir):
        orders[sha256_hex(raw)] = raw.decode("utf-8", errors="surrogateescape")
    edits = {
        str(row.id): {"path": row.body["path"], "value": row.body["value"]}
        for row in game.dir.overrides()
        if row.kind == "state"
    }
    config = game.config
    body = {
        "type": REPLAY_TYPE,
        "game": config.game,
        "module": game.module.id,
        "module_version": game.module.version,
        "scenario": config.scenario,
        "players": [player.name for player in config.players],
        "options": config.module_options(),
        "hidden_commit": game_commitment(secret),
        "state_key": state_key(secret).hex(),
        "orders": orders,
        "state_edits": edits,
    }
    target = game.dir.path / REPLAY_FILE
    data = pretty_json(body)
    atomic_write(target, data)
    atomic_write(target.with_name(target.name + ".sig"), game.sign(data).encode())
    return target


def still_in_play(game: Game, labels: Sequence[str]) -> list[str]:
    """Return what revealing the draws `labels` now would open that some player does not know,
    one line per draw ("LABEL: where, to whom"); nothing once the game is over.

    The game module says what is in play (`in_play`); one that does not is judged by its
    `secrets`: any hidden leaf left in the state counts against every draw."""
    if game.dir.open_phase() is None:
        return []  # the game is over: nothing is played any more, the final reveal opens it all
    state = game.envelope(game.dir.current_state_hash())["state"]
    if game.module.in_play is not None:
        in_play = game.module.in_play(state)
    else:
        hidden = len(game.module.secrets(state))
        what = f"{hidden} hidden value(s) of the game's state (its module does not say which draws hold them)"
        in_play = [InPlay("*", what)] if hidden else []
    found = []
    for label in labels:
        found += [f"{label}: {item.what}" for item in in_play if fnmatch.fnmatchcase(label, item.label)]
    return found


def _inputs(entries: list[dict[str, Any]]) -> dict[tuple[str, str], Any]:
    """Return (record sha256, label) -> the draw's inputs, from the journal's adjudications."""
    found = {}
    for entry in entries:
        data = entry["data"]
        for label, values in (data.get("hidden_inputs") or {}).items():
            found[(data.get("record_sha256"), label)] = values
    return found
