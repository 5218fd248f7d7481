"""`referee sign`: what a player's machine does with an order file before mailing it.

It sits at the top, beside the command line, because it writes the player's files; the checks
and the signature themselves are the protocol's (`referee.protocol.orders`, `.signatures`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from referee.errors import KeyFileError, OrderRefusedError, RefereeError, SignatureError
from referee.files import atomic_write
from referee.protocol.orders import order_file_problems, with_entropy
from referee.protocol.signatures import (
    NAMESPACE_COMMANDS,
    NAMESPACE_ORDERS,
    PrivateKey,
    PublicKey,
    load_private_key,
    load_public_key_file,
    parse_public_key,
    sign,
    verify,
)

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
                    f"or let ssh-agent hold the key: ssh-add {key_path}, then: referee sign FILE --key {key_path} "
                    f"--agent (or ssh-keygen -Y sign -f {key_path} -n pbem-orders FILE)",
                    "or run `referee sign` in a terminal, where it asks for the passphrase",
                ),
            )
        return prompt().encode()

    return ask


def sign_order_file(order_path: Path, key_path: Path, ask_passphrase: Callable[[], bytes], agent: bool = False) -> Path:
    """Fill in `entropy` when missing, sign the file, write ORDER.sig; return the signature's path.

    The file is checked first, so a malformed one is caught before it is mailed. With `agent`,
    ssh-agent signs with the key it holds for `key_path` (no passphrase asked here).
    """
    raw = order_path.read_bytes()
    if _is_command_file(raw):
        return _sign_command_file(order_path, raw, key_path, ask_passphrase, agent)
    problems = order_file_problems(raw)
    if problems:
        raise OrderRefusedError(
            f"{order_path} is not a valid order file; nothing was signed", [f"{p.path}: {p.message}" for p in problems]
        )
    key = None if agent else _private_key(key_path, ask_passphrase)
    filled = with_entropy(raw)
    signature = (
        sign_with_agent(filled, key_path, NAMESPACE_ORDERS) if key is None else sign(filled, key, NAMESPACE_ORDERS)
    )
    if filled != raw:
        atomic_write(order_path, filled)
    signature_path = Path(str(order_path) + ".sig")
    atomic_write(signature_path, signature.encode())
    return signature_path


def _is_command_file(raw: bytes) -> bool:
    """A command file (docs/mail.md) has a `command:` line and no orders."""
    lines = raw.splitlines()
    return any(line.startswith(b"command:") for line in lines) and not any(
        line.startswith(b"orders:") for line in lines
    )


def _sign_command_file(
    path: Path, raw: bytes, key_path: Path, ask_passphrase: Callable[[], bytes], agent: bool = False
) -> Path:
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
    if agent:
        signature = sign_with_agent(raw, key_path, NAMESPACE_COMMANDS)
    else:
        signature = sign(raw, _private_key(key_path, ask_passphrase), NAMESPACE_COMMANDS)
    atomic_write(signature_path, signature.encode())
    return signature_path


def sign_with_agent(data: bytes, key_path: Path, namespace: str) -> str:
    """Return the armored signature of `data` that ssh-agent makes with the key of `key_path`
    (its KEY.pub names the key), through `ssh-keygen -Y sign`; checked before it is returned."""
    public = key_path if key_path.name.endswith(".pub") else Path(f"{key_path}.pub")
    agent_hints = (f"add the key to the agent: ssh-add {str(public).removesuffix('.pub')}",)
    if not os.environ.get("SSH_AUTH_SOCK"):
        raise KeyFileError(
            "--agent: no ssh-agent is running here (SSH_AUTH_SOCK is not set)",
            ('start one: eval "$(ssh-agent)"', *agent_hints),
        )
    ssh_keygen = shutil.which("ssh-keygen")
    if ssh_keygen is None:
        raise KeyFileError(
            "--agent signs through ssh-keygen, which is not installed", ("install OpenSSH's client tools",)
        )
    wanted = load_public_key_file(public)
    if wanted not in _agent_keys():
        raise KeyFileError(f"--agent: ssh-agent holds no key matching {public}", agent_hints)
    done = subprocess.run(
        [ssh_keygen, "-q", "-Y", "sign", "-f", str(public), "-n", namespace],
        input=data,
        capture_output=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise KeyFileError(
            f"ssh-agent did not sign with {public} ({said[-1] if said else f'ssh-keygen exit {done.returncode}'})",
            agent_hints,
        )
    try:
        made_by = verify(data, done.stdout, namespace)
    except SignatureError as exc:
        raise KeyFileError(f"ssh-keygen's signature does not check: {exc.message}") from None
    if made_by != wanted:
        raise KeyFileError(f"the agent signed with another key than {public}", agent_hints)
    return done.stdout.decode("ascii")


def _private_key(key_path: Path, ask_passphrase: Callable[[], bytes]) -> PrivateKey:
    try:
        return load_private_key(key_path)
    except KeyFileError as exc:
        if "passphrase" not in exc.message.lower():
            raise
        return load_private_key(key_path, ask_passphrase())


def _agent_keys() -> list[PublicKey]:
    """Return the public keys ssh-agent holds (`ssh-add -L`); none when it holds none or is unreachable."""
    ssh_add = shutil.which("ssh-add")
    if ssh_add is None:
        return []
    listed = subprocess.run([ssh_add, "-L"], capture_output=True, timeout=30, check=False, stdin=subprocess.DEVNULL)
    keys = []
    for line in listed.stdout.decode("utf-8", "replace").splitlines() if listed.returncode == 0 else []:
        try:
            keys.append(parse_public_key(line))
        except RefereeError:
            continue
    return keys
