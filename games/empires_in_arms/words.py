"""How sealed choices read in a letter: a round's table and guard, a loss split, a standing
policy, in words rather than as the data they are sealed as (the events keep the data)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def round_choice(choice: Any, naval: bool = False) -> str:
    """Return a combat round's choice in words: "table 3-2, artillery bombards, guard france +2"
    (a naval round's table alone)."""
    if not isinstance(choice, Mapping):
        return str(choice)
    parts = [f"table {choice.get('table')}"]
    if naval:
        return parts[0]
    parts.append("artillery bombards" if choice.get("bombard", True) else "artillery holds")
    pledge = choice.get("guard")
    parts.append(f"guard {pledge['nation']} +{pledge['shift']}" if isinstance(pledge, Mapping) else "guard held back")
    return ", ".join(parts)


def split(proposal: Any) -> str:
    """Return a loss proposal in words: "britain 2, portugal 2, russia 4"."""
    if not isinstance(proposal, Mapping):
        return str(proposal)
    return ", ".join(f"{nation} {count}" for nation, count in sorted(proposal.items()))


def policy(kept: Any) -> str:
    """Return a standing policy in words: "table 3-3; artillery bombards; guard france +2 in round 2"."""
    if not isinstance(kept, Mapping):
        return str(kept)
    parts = [f"table {kept.get('table')}"]
    if "bombard" in kept:
        parts.append("artillery bombards" if kept["bombard"] else "artillery holds")
    pledge = kept.get("guard")
    if isinstance(pledge, Mapping):
        rounds = ", ".join(str(r) for r in pledge.get("rounds", []))
        parts.append(f"guard {pledge.get('nation')} +{pledge.get('shift')} in round(s) {rounds}")
    if "withdraw_if_outnumbered" in kept:
        parts.append("withdraws when outnumbered 5:1" if kept["withdraw_if_outnumbered"] else "stands when outnumbered")
    return "; ".join(parts)


def sealed_text(box_name: str, choices: Mapping[str, Any], describe: Any) -> str:
    """Return the text revealing a box's choices, each player's in words."""
    return f"The sealed choices for {box_name} are revealed: " + "; ".join(
        f"{player}: {describe(choice)}" for player, choice in sorted(choices.items())
    )
