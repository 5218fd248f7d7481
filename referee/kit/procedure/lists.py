"""A procedure journal's public lists: named lists of names everybody sees (the sick leaders, the
units at sea), which a scheduled roll may be made for, one roll per name (README.md, "Public
lists"). Changed by orders (`list: [{list, add or remove, reason}]`) or by the referee's signed
state override of `/lists/LIST`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from referee.kit import Event, GameDataError, Problem

ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}\Z")
NAME = re.compile(r"[^\s,](?:[^\n\r\t,]{0,46}[^\s,])?\Z")  # one name: no line break, no comma
MAX_LISTS = 20
MAX_MEMBERS = 200
CHANGE_SCHEMA = {
    "type": "map",
    "description": "one change of a public list",
    "required": ["list", "reason"],
    "fields": {
        "list": {"type": "str", "max": 32, "example": "sick-leaders", "description": "the list's id"},
        "add": {"type": "str", "max": 48, "description": "a name to add"},
        "remove": {"type": "str", "max": 48, "description": "a name to remove"},
        "reason": {"type": "str", "max": 300, "description": "why, in words"},
    },
}
ORDER_SCHEMA = {"type": "list", "max": 20, "items": CHANGE_SCHEMA, "description": "changes of the public lists"}


def parse_lists(raw: Any) -> dict[str, list[str]] | None:
    """Return the public lists ({id: [names]}), or None for a game without any."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or not 1 <= len(raw) <= MAX_LISTS:
        raise GameDataError(f"option 'lists' must be a mapping of 1 to {MAX_LISTS} lists {{ID: [NAME, ...]}}")
    lists = {}
    for list_id, members in raw.items():
        where = f"options.lists.{list_id}"
        if not isinstance(list_id, str) or not ID.match(list_id):
            raise GameDataError(f"{where}: a list's id is lower-case letters, digits, - and _")
        members = members or []
        if not isinstance(members, list) or not all(isinstance(m, str) and NAME.match(m) for m in members):
            raise GameDataError(
                f"{where}: give the list's names at the start (each a line of text without a comma), or []"
            )
        lists[list_id] = list(members)
    return lists


def order_problems(state: Mapping[str, Any], orders: Mapping[str, Any]) -> list[Problem]:
    """Return the problems with an order's list changes, read against the lists as they stand."""
    lists = {key: list(value) for key, value in (state.get("lists") or {}).items()}
    problems = []
    for index, change in enumerate(orders.get("list") or []):
        path = f"orders.list[{index}]"
        if change["list"] not in lists:
            known = ", ".join(lists) or "none (the game has no lists)"
            problems.append(
                Problem("illegal.unknown-list", f"{path}.list", f"no list '{change['list']}'; lists: {known}")
            )
            continue
        if ("add" in change) == ("remove" in change):
            problems.append(Problem("invalid.list-change", path, "give one of 'add' or 'remove'"))
            continue
        members = lists[change["list"]]
        if "add" in change:
            if not NAME.match(change["add"]):
                problems.append(
                    Problem(
                        "invalid.name",
                        f"{path}.add",
                        "a name is one line of text without a comma, at most 48 characters",
                    )
                )
            elif change["add"] in members:
                problems.append(Problem("illegal.listed", f"{path}.add", f"{change['add']} is already listed"))
            elif len(members) >= MAX_MEMBERS:
                problems.append(Problem("illegal.full", f"{path}.add", f"a list holds at most {MAX_MEMBERS} names"))
            else:
                members.append(change["add"])
        elif change["remove"] not in members:
            problems.append(Problem("illegal.not-listed", f"{path}.remove", f"{change['remove']} is not listed"))
        else:
            members.remove(change["remove"])
    return problems


def change(lists: dict[str, list[str]], order: Mapping[str, Any], by: str) -> tuple[dict[str, list[str]], Event | None]:
    """Return the lists after one change, and its event (None when it no longer applies: another
    player's change in the same phase came first)."""
    members = list(lists[order["list"]])
    if "add" in order and order["add"] not in members:
        members.append(order["add"])
        text = f"{order['add']} joins the list {order['list']} ({order['reason']}; by {by})"
    elif "remove" in order and order["remove"] in members:
        members.remove(order["remove"])
        text = f"{order['remove']} leaves the list {order['list']} ({order['reason']}; by {by})"
    else:
        return lists, None
    data = {"list": order["list"], "members": members, "reason": order["reason"], "by": by}
    return {**lists, order["list"]: members}, Event("list", text, data)
