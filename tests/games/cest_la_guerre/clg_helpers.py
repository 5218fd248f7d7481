"""Builders for C'est la Guerre test states: cards placed where a case wants them, face up by default."""

from __future__ import annotations

from typing import Any

from games.cest_la_guerre import rules
from games.cest_la_guerre.bound import Bound
from games.cest_la_guerre.data import NO_GRADE, TROOPS, unit_cost
from games.cest_la_guerre.geometry import kept_facing
from games.cest_la_guerre.pregame import CARD_STATE
from games.cest_la_guerre.units import by_marker

DEFAULT_GRADE = {"general": "average", "sub_command": "average", "dummy": NO_GRADE}


def card(
    marker: str, kind: str, x: float, y: float, facing: str | float, grade: str | None = None, **extra: Any
) -> dict[str, Any]:
    """Return a placed card; the owner follows the marker's letter (B: blue, R: red)."""
    owner = {"B": "blue", "R": "red"}[marker[0]]
    if grade is None:
        grade = DEFAULT_GRADE.get(kind, NO_GRADE if "artillery" in kind else "average")
    entry = {"type": kind, "grade": grade, "british": extra.get("british", False)}
    unit = {
        **CARD_STATE,
        "owner": owner,
        "id": f"{kind.replace('_', '-')}-{marker.lower()}",
        "type": kind,
        "grade": grade,
        "label": None,
        "british": False,
        "british_no_bonus": False,
        "weapon": TROOPS[kind].get("weapon"),
        "dismount": False,
        "condition": None,
        "cost": unit_cost(entry),
        "status": "table",
        "name": None,
        "marker": marker,
        "x": x,
        "y": y,
        "facing": kept_facing(facing),
        "face_up": True,
    }
    unit.update(extra)
    return unit


def feature(fid: str, kind: str, x1: int, y1: int, x2: int, y2: int, **extra: Any) -> dict[str, Any]:
    """Return a terrain feature from the default menu."""
    item = {"id": fid, "kind": kind, "rect": [x1, y1, x2, y2], **rules.resolve_options({})["terrain_menu"][kind]}
    if kind == "river":
        item["condition"] = "unknown"
    item.update(extra)
    return item


def battle(
    cards: list[dict[str, Any]],
    terrain: tuple[dict[str, Any], ...] = (),
    phasing: str = "blue",
    round_: int = 2,
    stage: str = "move",
    ip: int = 6,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Return a state in the middle of a battle: blue is High and holds the south edge."""
    state = rules.setup("open-battle", ["blue", "red"], options or {})
    state.update(
        stage=stage,
        round=round_,
        phasing=phasing,
        high="blue",
        low="red",
        edges={"blue": "south", "red": "north"},
        terrain=list(terrain),
        units=cards,
    )
    for role in ("blue", "red"):
        side = state["sides"][role]
        side.update(list="test", list_name="Test", points=80, ip=ip if role == phasing else 0, ip_spent=0)
        side["markers"] = sum(1 for c in cards if c["owner"] == role and c["marker"])
    return state


def bound(state: dict[str, Any], dice: Any, role: str | None = None) -> Bound:
    """Return a Bound over `state` itself (tests then read the changed state)."""
    return Bound(state, role or state["phasing"], dice)


def unit(state: dict[str, Any], marker: str) -> dict[str, Any]:
    """Return the card with this marker."""
    found = by_marker(state, marker)
    assert found is not None, marker
    return found


def texts(events: list[Any]) -> str:
    """Return every event's text on its own line (dicts or Events)."""
    return "\n".join(e["text"] if isinstance(e, dict) else e.text for e in events)
