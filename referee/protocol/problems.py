"""`Problem`: why an order file, or an order in it, is refused, as a plain value.

The order-file envelope (`referee.protocol.orders`) reports its problems with it, and so do
game modules (through the kit) and the order schemas; acknowledgements list them.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.protocol.display import ELLIPSIS, printable

# A problem is read by a player in a letter and by the referee on a terminal: whatever a game
# module or a schema quotes from an order file, it stays one readable line of bounded length.
MAX_PATH = 120
MAX_MESSAGE = 400


@dataclass(frozen=True)
class Problem:
    """Why an order is refused: `invalid.*` (not understood) or `illegal.*` (against the rules)."""

    code: str
    path: str
    message: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", _bounded(self.path, MAX_PATH))
        object.__setattr__(self, "message", _bounded(self.message, MAX_MESSAGE))

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"

    def as_dict(self) -> dict[str, str]:
        """Return the problem as plain JSON data."""
        return {"code": self.code, "path": self.path, "message": self.message}


def _bounded(text: str, limit: int) -> str:
    text = printable(text)
    return text if len(text) <= limit else text[: limit - len(ELLIPSIS)] + ELLIPSIS
