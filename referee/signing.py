"""`referee sign`: what a player's machine does with an order file before mailing it.

It sits at the top, beside the command line, because it writes the player's files; the checks
and the signature themselves are the protocol's (`referee.protocol.orders`, `.signatures`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from referee.errors import KeyFileError, OrderRefusedError
from referee.files import atomic_write
from referee.protocol.orders import order_file_problems, with_entropy
from referee.protocol.signatures import NAMESPACE_COMMANDS, NAMESPACE_ORDERS, PrivateKey, load_private_key, sign

COMMAND_FILE_MAX = 8 * 1024  # as referee.mail.command_files reads it
PASSPHRASE_VARIABLE = "REFEREE_KEY_PASSPHRASE"


def passphrase_asker(
    key_path: Path,
    prompt: Callable[[], str],
    environ: Mapping[str, str] = os.environ,
    interactive: bool | None = None,
) -> Callable[[], bytes]:
    """Return how `referee sign` has the passphrase of an encrypted key: from REFEREE_KEY_PASSPHRASE,
    else from `prompt` on a terminal. Without either it fails at once, naming the ways to give
    one, instead of prompting where nobody can answer (a script, cron, a pipe)."""

    def ask() -> bytes:
        value = environ.get(PASSPHRASE_VARIABLE)
        if value is not None:
            return value.encode()
        if not (sys.stdin.isatty() if interactive is None else interactive):
            raise KeyFileError(
                f"{key_path} is protected by a passphrase and there is no terminal to ask for it; nothing was signed",
                hints=(
                    f"set {PASSPHRASE_VARIABLE} in the environment of `referee sign` (from a password store, "
                    "not typed on a command line that history keeps)",
                    f"or let ssh-agent hold the key (`ssh-add {key_path}`) and sign with ssh-keygen, which asks the "
                    f"agent: ssh-keygen -Y sign -f {key_path} -n pbem-orders FILE (pbem-command: a command file)",
                    "or run `referee sign` in a terminal, where it asks for the passphrase",
                ),
            )
        return prompt().encode()

    return ask


def sign_order_file(order_path: Path, key_path: Path, ask_passphrase: Callable[[], bytes]) -> Path:
    """Fill in `entropy` when missing, sign the file, write ORDER.sig; return the signature's path.

    The file is checked first, so a malformed one is caught before it is mailed.
    """
    raw = order_path.read_bytes()
    if _is_command_file(raw):
        return _sign_command_file(order_path, raw, key_path, ask_passphrase)
    problems = order_file_problems(raw)
    if problems:
        raise OrderRefusedError(
            f"{order_path} is not a valid order file; nothing was signed", [f"{p.path}: {p.message}" for p in problems]
        )
    key = _private_key(key_path, ask_passphrase)
    filled = with_entropy(raw)
    if filled != raw:
        atomic_write(order_path, filled)
    signature_path = Path(str(order_path) + ".sig")
    atomic_write(signature_path, sign(filled, key, NAMESPACE_ORDERS).encode())
    return signature_path


def _is_command_file(raw: bytes) -> bool:
    """A command file (docs/mail.md) has a `command:` line and no orders."""
    lines = raw.splitlines()
    return any(line.startswith(b"command:") for line in lines) and not any(
        line.startswith(b"orders:") for line in lines
    )


def _sign_command_file(path: Path, raw: bytes, key_path: Path, ask_passphrase: Callable[[], bytes]) -> Path:
    """Sign a command file (absent, back, dispute by mail) in its own namespace, pbem-command."""
    if len(raw) > COMMAND_FILE_MAX:
        raise OrderRefusedError(
            f"{path} is over {COMMAND_FILE_MAX} bytes; nothing was signed", ["a command file is a few lines"]
        )
    if not any(line.startswith(b"nonce:") for line in raw.splitlines()):
        raise OrderRefusedError(
            f"{path} has no 'nonce:' line; nothing was signed",
            ["add a line such as 'nonce: 2026-11-25T0750' (new for every command: a file counts once)"],
        )
    signature_path = Path(str(path) + ".sig")
    atomic_write(signature_path, sign(raw, _private_key(key_path, ask_passphrase), NAMESPACE_COMMANDS).encode())
    return signature_path


def _private_key(key_path: Path, ask_passphrase: Callable[[], bytes]) -> PrivateKey:
    try:
        return load_private_key(key_path)
    except KeyFileError as exc:
        if "passphrase" not in exc.message.lower():
            raise
        return load_private_key(key_path, ask_passphrase())
