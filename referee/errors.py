"""The exceptions a user can meet. Each says what went wrong and, in hints, what to do."""

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


class GameDataError(RefereeError):
    """A game's YAML data or a referee-supplied table is malformed or missing."""


class ConfigError(RefereeError):
    """A game configuration file is malformed."""


class StateError(RefereeError):
    """The game is not in a state where the command can act (wrong phase, game over...)."""


class LockedError(RefereeError):
    """Another referee process is working on the same game."""


class VerificationError(RefereeError):
    """`referee verify` found problems; each one is listed."""

    exit_code = 3

    def __init__(self, message: str, problems: list[str]) -> None:
        super().__init__(message, ())
        self.problems = problems
