"""`referee sign`: what a player's machine does with an order file before mailing it.

It sits at the top, beside the command line, because it writes the player's files; the checks
and the signature themselves are the protocol's (`referee.protocol.orders`, `.signatures`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from referee.errors import KeyFileError, OrderRefusedError
from referee.files import atomic_write
from referee.protocol.orders import order_file_problems, with_entropy
from referee.protocol.signatures import NAMESPACE_ORDERS, load_private_key, sign


def sign_order_file(order_path: Path, key_path: Path, ask_passphrase: Callable[[], bytes]) -> Path:
    """Fill in `entropy` when missing, sign the file, write ORDER.sig; return the signature's path.

    The file is checked first, so a malformed one is caught before it is mailed.
    """
    raw = order_path.read_bytes()
    problems = order_file_problems(raw)
    if problems:
        raise OrderRefusedError(
            f"{order_path} is not a valid order file; nothing was signed", [f"{p.path}: {p.message}" for p in problems]
        )
    try:
        key = load_private_key(key_path)
    except KeyFileError as exc:
        if "passphrase" not in exc.message.lower():
            raise
        key = load_private_key(key_path, ask_passphrase())
    filled = with_entropy(raw)
    if filled != raw:
        atomic_write(order_path, filled)
    signature_path = Path(str(order_path) + ".sig")
    atomic_write(signature_path, sign(filled, key, NAMESPACE_ORDERS).encode())
    return signature_path
