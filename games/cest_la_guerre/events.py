"""Events as the rules build them: plain dicts until resolve hands them to the core as Events.

Secrecy is fixed here, when an event is made: `public` events every player sees, `private`
events only their owner (face-down identities, dummies and the reserve before it arrives).
A private event never carries a dice `label`: the core annotates every report's dice list with
the data of events that name a label, and that list is shown to every player.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.kit import Event

ALL = "all"


def public(kind: str, text: str, **data: Any) -> dict[str, Any]:
    """Return an event every player sees."""
    return {"kind": kind, "text": text, "data": data, "visible_to": ALL}


def private(owner: str, kind: str, text: str, **data: Any) -> dict[str, Any]:
    """Return an event only `owner` sees."""
    if "label" in data:
        raise ValueError("a private event must not name a dice label: reports show labelled notes to all")
    return {"kind": kind, "text": text, "data": data, "visible_to": [owner]}


def to_events(items: Sequence[Mapping[str, Any]]) -> list[Event]:
    """Return the core's Events for the rules' event dicts."""
    return [
        Event(item["kind"], item["text"], dict(item["data"]))
        if item["visible_to"] == ALL
        else Event(item["kind"], item["text"], dict(item["data"]), tuple(item["visible_to"]))
        for item in items
    ]
