"""The exceptions a user can meet. Each says what went wrong and, in hints, what to do.

`RefereeError` and the protocol's own errors are defined in `referee.protocol.errors` (so the
protocol needs nothing outside itself) and re-exported here; the rest belong to the referee's
side. Every layer above the protocol imports its errors from this module.
"""

from __future__ import annotations

from referee.protocol.errors import KeyFileError, OrderRefusedError, RefereeError, SignatureError, VerificationError

__all__ = [
    "AlreadyDone",
    "ConfigError",
    "GameDataError",
    "KeyFileError",
    "LockedError",
    "OrderRefusedError",
    "RefereeError",
    "SignatureError",
    "StateError",
    "VerificationError",
]


class GameDataError(RefereeError):
    """A game's YAML data or a referee-supplied table is malformed or missing."""


class ConfigError(RefereeError):
    """A game configuration file is malformed."""


class StateError(RefereeError):
    """The game is not in a state where the command can act (wrong phase, game over...)."""


class LockedError(RefereeError):
    """Another referee process is working on the same game."""


class AlreadyDone(RefereeError):
    """An operator's command was run again after it had finished: nothing is done twice. Not a
    failure (exit 0): the message says when it was done and what it did."""

    exit_code = 0
