"""Sealed choices gathered over several phases and revealed together (guard commitments,
campaign plans, battle cards), as plain data a game keeps in its state.

When every side chooses in the same phase, a sealed phase is all a game needs: the core shows
no one's orders before the report. This is for choices made at different times, or revealed by
a later rule: each choice is committed in the record of the phase it was made in (`Dice.seal`),
shown to its chooser alone, and opened for everyone, with its proof, once all are in.

A box is `{"name": ..., "from": [players], "sealed": {player: opening}}`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.kit.contract import Dice, Event


def sealed_box(name: str, players: Sequence[str]) -> dict[str, Any]:
    """Return an empty box for the choices of `players`."""
    return {"name": name, "from": sorted(players), "sealed": {}}


def seal_choice(box: Mapping[str, Any], player: str, choice: Any, dice: Dice) -> tuple[dict[str, Any], list[Event]]:
    """Put `player`'s choice in the box, committed in this phase's record; return the box and
    the events: the chooser sees their choice and its proof, everyone else that they chose."""
    if player not in box["from"]:
        raise ValueError(f"{player} has no choice to make in '{box['name']}'")
    if player in box["sealed"]:
        raise ValueError(f"{player} has already sealed a choice in '{box['name']}'")
    opening = dice.seal([choice], label=f"sealed/{box['name']}/{player}").opening(0)
    new_box = {**box, "sealed": {**box["sealed"], player: opening}}
    return new_box, [
        Event(
            "sealed.choice",
            f"You sealed your choice for {box['name']}: {choice}",
            {"box": box["name"], "openings": [opening]},
            (player,),
        ),
        Event(
            "sealed.chosen", f"{player} has sealed a choice for {box['name']}", {"box": box["name"], "player": player}
        ),
    ]


def all_in(box: Mapping[str, Any]) -> bool:
    """Return whether every player of the box has sealed a choice."""
    return set(box["sealed"]) == set(box["from"])


def waiting_for(box: Mapping[str, Any]) -> list[str]:
    """Return the players whose choice the box still waits for."""
    return [player for player in box["from"] if player not in box["sealed"]]


def reveal_choices(box: Mapping[str, Any]) -> tuple[dict[str, Any], Event]:
    """Open every choice for everyone once all are in; return the choices by player and the
    public event whose openings let anyone check each against its commitment."""
    if not all_in(box):
        raise ValueError(f"'{box['name']}' still waits for {', '.join(waiting_for(box))}")
    choices = {player: opening["value"] for player, opening in sorted(box["sealed"].items())}
    shown = "; ".join(f"{player}: {choice}" for player, choice in choices.items())
    event = Event(
        "sealed.revealed",
        f"The sealed choices for {box['name']} are revealed: {shown}",
        {"box": box["name"], "choices": choices, "openings": [box["sealed"][p] for p in choices]},
    )
    return choices, event


def box_view(box: Mapping[str, Any], player: str | None) -> dict[str, Any]:
    """Return what `player` (None: the public) sees of a box: who has chosen, and their own choice."""
    own = box["sealed"].get(player) if player is not None else None
    return {
        "name": box["name"],
        "chosen": sorted(box["sealed"]),
        "waiting_for": waiting_for(box),
        **({"yours": own["value"]} if own is not None else {}),
    }


def box_secrets(box: Mapping[str, Any], pointer: str) -> list[tuple[str, tuple[str, ...]]]:
    """Return the hidden leaves of a box kept at JSON pointer `pointer`, for a game's `secrets`."""
    hidden: list[tuple[str, tuple[str, ...]]] = []
    for player in box["sealed"]:
        for key in ("value", "salt"):
            hidden.append((f"{pointer}/sealed/{player}/{key}", (player,)))
    return hidden
