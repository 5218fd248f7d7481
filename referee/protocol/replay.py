"""What the final reveal publishes for a replay of the whole game (docs/protocol.md, section 16):
GAMEDIR/replay.json, signed by the referee, beside the records and the reveals.

It holds the initial configuration (module, scenario, players, options), every order file the
referee kept (by SHA-256, the hash the records name), the key of the state commitments
(section 15) and the values of the referee's state edits (the record names only their path).
Reading and checking the file is the protocol's; replaying the game needs the game module and
is `referee audit --public` (referee.game.public_audit).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from referee.protocol.canonical import load_json
from referee.protocol.hidden import game_commitment
from referee.protocol.signatures import PublicKey, check_signature
from referee.protocol.states import state_key

REPLAY_TYPE = "pbem-referee-replay/1"
REPLAY_FILE = "replay.json"
_FIELDS = {
    "type": str,
    "game": str,
    "module": str,
    "module_version": str,
    "scenario": str,
    "players": list,
    "options": dict,
    "hidden_commit": str,
    "state_key": str,
    "orders": dict,
    "state_edits": dict,
}


def read_replay(folder: Path, referee_key: PublicKey | None, game_secret: bytes | None) -> tuple[Any, list[str]]:
    """Return the body of FOLDER/replay.json and the problems with it: its signature, its fields,
    its order files against their names, its state key against the revealed game secret."""
    path = folder / REPLAY_FILE
    if not path.is_file():
        return None, [f"{REPLAY_FILE}: missing: the final reveal letter attaches it; save it with its .sig in {folder}"]
    data = path.read_bytes()
    sig = path.with_name(REPLAY_FILE + ".sig")
    problems = check_signature(data, sig.read_bytes() if sig.is_file() else None, referee_key, REPLAY_FILE)
    try:
        body = load_json(data)
    except (UnicodeDecodeError, ValueError) as error:
        return None, [*problems, f"{REPLAY_FILE}: not valid JSON ({error})"]
    if not isinstance(body, dict) or body.get("type") != REPLAY_TYPE:
        return None, [*problems, f"{REPLAY_FILE}: not a file of type {REPLAY_TYPE}"]
    for key, kind in _FIELDS.items():
        if not isinstance(body.get(key), kind):
            problems.append(f"{REPLAY_FILE}: field {key!r} is missing or not a {kind.__name__}")
    if problems:
        return None, problems
    for digest, text in body["orders"].items():
        if hashlib.sha256(order_bytes(text)).hexdigest() != digest:
            problems.append(f"{REPLAY_FILE}: the order file listed as {digest[:16]}... hashes otherwise")
    if game_secret is None:
        problems.append(f"{REPLAY_FILE}: no reveal in reveals/ gives the game secret (the final reveal does)")
    elif game_commitment(game_secret) != body["hidden_commit"]:
        problems.append(f"{REPLAY_FILE}: hidden_commit is not the commitment to the revealed game secret")
    elif state_key(game_secret).hex() != body["state_key"]:
        problems.append(f"{REPLAY_FILE}: state_key is not HMAC-SHA256(game_secret, 'pbem-referee-state/1')")
    return body, problems


def order_bytes(text: str) -> bytes:
    """Return an order file's bytes from its text in replay.json (UTF-8, as the referee kept it)."""
    return text.encode("utf-8", errors="surrogateescape")


def revealed_secret(folder: Path) -> bytes | None:
    """Return the game secret a reveal in FOLDER/reveals/ gives (checked by `verify --final`), or None."""
    for path in sorted((folder / "reveals").glob("*.json")) if (folder / "reveals").is_dir() else []:
        try:
            body = load_json(path.read_bytes())
            if isinstance(body, dict) and body.get("game_secret"):
                return bytes.fromhex(body["game_secret"])
        except (OSError, UnicodeDecodeError, ValueError):
            continue
    return None
