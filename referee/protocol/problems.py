"""`Problem`: why an order file, or an order in it, is refused, as a plain value.

The order-file envelope (`referee.protocol.orders`) reports its problems with it, and so do
game modules (through the kit) and the order schemas; acknowledgements list them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """Why an order is refused: `invalid.*` (not understood) or `illegal.*` (against the rules)."""

    code: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"

    def as_dict(self) -> dict[str, str]:
        """Return the problem as plain JSON data."""
        return {"code": self.code, "path": self.path, "message": self.message}
