"""What defines a game, pinned in its journal at `referee init`: a change to it in game.yaml is
refused at open, naming the field and how to undo it.

The game id, module, title, scenario, options, tables and the players (their names, order and
keys) are what the set-up, every adjudication and the audit's replay read, and what the letters
already sent say: changed in the middle of a game they would make `verify` and `audit` fail for
good. The players' addresses and `encrypt`, the referee's name and address and the schedule only
shape letters still to come, so they stay editable.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from referee.errors import ConfigError, StateError
from referee.game.config import GameConfig
from referee.game.journal import GameDir
from referee.kit.contract import GameModule
from referee.protocol.canonical import canonical_json, sha256_hex
from referee.protocol.display import shown

PINNED_META = "pinned_config"
EDITABLE = (
    "the players' email and encrypt, the referee's name and email, the schedule, "
    "and where the beacon's rounds are fetched from"
)


def defining_parts(config: GameConfig) -> dict[str, Any]:
    """Return the parts of a configuration that define the game, as plain data."""
    return {
        "game": config.game,
        "module": config.module,
        "title": config.title,
        "scenario": config.scenario,
        "options": config.options,
        "tables": config.tables,
        "players": [
            {"name": p.name, "key": f"{p.key.key_type} {base64.b64encode(p.key.blob).decode('ascii')}"}
            for p in config.players
        ],
        # The beacon's chain fixes every phase's dice; where its rounds are fetched from may change.
        **({"beacon": config.beacon.chain.as_data()} if config.beacon else {}),
    }


def pin(game_dir: GameDir, config: GameConfig) -> bool:
    """Pin the configuration's defining parts in the journal (their canonical hash and a copy),
    unless the game has them pinned already; return whether this call pinned them."""
    parts = defining_parts(config)
    value = json.dumps({"sha256": sha256_hex(canonical_json(parts)), "config": parts}, sort_keys=True)
    had = game_dir.get_meta(PINNED_META) is not None
    game_dir.keep_meta(PINNED_META, value)
    return not had


def check_pinned(game_dir: GameDir, config: GameConfig) -> None:
    """Raise ConfigError naming the first defining field of game.yaml that differs from the pin."""
    stored = game_dir.get_meta(PINNED_META)
    if stored is None:
        return
    pinned = json.loads(stored)
    now = defining_parts(config)
    if sha256_hex(canonical_json(now)) == pinned["sha256"]:
        return
    field, before, after, undo = _first_change(pinned["config"], now)
    raise ConfigError(
        f"{game_dir.config}: {field} was changed after the game began (pinned at init: {shown(before)}; "
        f"game.yaml now says {shown(after)}): what defines a game cannot change in the middle of it, or the "
        "records and letters already sent would no longer check",
        hints=(
            f"{undo} in {game_dir.config}",
            f"what may change in game.yaml: {EDITABLE}",
            "to play with other settings, start a new game: referee init NEWDIR --config game.yaml",
        ),
    )


def _first_change(before: dict[str, Any], after: dict[str, Any]) -> tuple[str, Any, Any, str]:
    """Return the first defining field that differs, its pinned and its new value, and how to undo it."""
    for key in before:
        if key != "players" and canonical_json(before[key]) != canonical_json(after.get(key)):
            return key, before[key], after.get(key), f"put back {key}: {shown(before[key], 200)}"
    old, new = before["players"], after["players"]
    names = [p["name"] for p in old]
    for index in range(max(len(old), len(new))):
        was = old[index] if index < len(old) else None
        now = new[index] if index < len(new) else None
        if was is None or now is None or was["name"] != now["name"]:
            undo = f"put back the players {', '.join(names)}, in that order"
            return "players", names, [p["name"] for p in new], undo
        if was["key"] != now["key"]:
            return f"players[{index}].key ({was['name']})", was["key"], now["key"], f"put back key: {was['key']}"
    return "the defining parts", before, after, "restore game.yaml from a backup"


MODULE_VERSION_META = "module_version"


def check_module_version(game_dir: GameDir, module: GameModule) -> None:
    """Raise StateError when the game's states were written by another version of its module.

    A module's version changes when it adjudicates differently (its rules or its state's form):
    this installation would play on by other rules and could not re-run the phases already
    played, so `audit` would fail on the first state. The version is read once from the current
    state and kept in the journal; a game with no state yet takes the installed version.
    """
    version = game_dir.get_meta(MODULE_VERSION_META)
    if version is None:
        if game_dir.get_meta("state") is None:
            return
        envelope = game_dir.load_state(game_dir.current_state_hash())
        version = str(envelope.get("module_version")) if isinstance(envelope, dict) else None
        if version is None:
            return
        game_dir.keep_meta(MODULE_VERSION_META, version)
    if version != module.version:
        raise StateError(
            f"{game_dir.path} was played with the game module {module.id} version {version}; this "
            f"installation has {module.id} version {module.version}, which adjudicates differently, so it "
            "can neither play on nor re-check the phases already played",
            hints=(
                f"finish the game with the referee release it was begun with (its {module.id} version {version}), "
                "for instance in a virtual environment of its own",
                "start new games with this release: referee init NEWDIR --config game.yaml",
            ),
        )
