"""The referee's randomness from a counter, for tests that must replay a game die for die."""

from __future__ import annotations

import hashlib
from collections.abc import Callable


def counter_urandom(name: str) -> Callable[[int], bytes]:
    """Return an os.urandom that draws from a counter named `name`: the same bytes on every run.

    The referee's seeds and secrets come from os.urandom and the dice from them and the orders, so
    a game whose orders are the same plays the same dice."""
    count = 0

    def urandom(size: int) -> bytes:
        nonlocal count
        out = b""
        while len(out) < size:
            count += 1
            out += hashlib.sha256(f"{name}/{count}".encode()).digest()
        return out[:size]

    return urandom
