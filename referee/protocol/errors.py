"""The errors the protocol's own checks raise, under the one base every user-facing error shares.

They live here, not in `referee.errors`, so that the protocol package needs nothing outside
itself: a player's checker can be lifted out whole. `referee.errors` re-exports them beside the
errors of the referee's side.
"""

from __future__ import annotations

from typing import Any


class RefereeError(Exception):
    """A failure the user can act on: printed as `referee: error:` plus one line per hint."""

    exit_code = 1

    def __init__(self, message: str, hints: tuple[str, ...] | list[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.hints = tuple(hints)


class SignatureError(RefereeError):
    """A signature is malformed, made for another namespace, or does not match."""


class KeyFileError(RefereeError):
    """A key file is missing, unreadable, or not an OpenSSH key."""


class OrderRefusedError(RefereeError):
    """An order file was refused; `problems` lists every reason."""

    def __init__(self, message: str, problems: list[Any], hints: tuple[str, ...] | list[str] = ()) -> None:
        super().__init__(message, hints)
        self.problems = problems


class VerificationError(RefereeError):
    """`referee verify` found problems; each one is listed."""

    exit_code = 3

    def __init__(self, message: str, problems: list[str]) -> None:
        super().__init__(message, ())
        self.problems = problems
