"""Hidden notes of the procedure journal: a note sealed when written (`dice.seal`), shown at once to its
writer and the players it names, and revealed to everyone in a later round with its opening,
which proves it was written in that round and not changed since.

A note is kept in the state as {by, round, number, id, text, to, opening, revealed}: `revealed`
is the round it was revealed in, or None while it is hidden. Its commitment is the record's
`note/PLAYER/NUMBER` hidden draw, of one value: the note's text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.kit import Dice, Event, InPlay, Problem

NOTE_ID = r"[a-z0-9][a-z0-9_.-]{0,47}"
MAX_NOTE = 4000
NOTE_SCHEMA = {
    "type": "map",
    "description": "a note only you and the players in `to` see, until you reveal it",
    "required": ["id", "text"],
    "fields": {
        "id": {
            "type": "str",
            "pattern": NOTE_ID,
            "example": "plan-b",
            "description": "your name for the note, to reveal it later (lower-case, digits, - _ .)",
        },
        "text": {"type": "str", "max": MAX_NOTE, "description": "the note"},
        "to": {
            "type": "list",
            "max": 20,
            "items": {"type": "str", "max": 64},
            "description": "the players who see it now (leave out: only you)",
        },
    },
}
REVEAL_SCHEMA = {
    "type": "list",
    "max": 50,
    "items": {"type": "str", "pattern": NOTE_ID, "example": "plan-b"},
    "description": "ids of your hidden notes of earlier rounds to show to everyone",
}


def note_label(player: str, number: int) -> str:
    """Return the label of a player's `number`th hidden note: `note/PLAYER/NUMBER`."""
    return f"note/{player}/{number}"


def note_problems(
    notes: Sequence[Mapping[str, Any]], players: Sequence[str], player: str, orders: Mapping[str, Any]
) -> list[Problem]:
    """Return the problems with a player's `hidden_note` and `reveal` orders."""
    problems: list[Problem] = []
    mine = {note["id"]: note for note in notes if note["by"] == player}
    new = orders.get("hidden_note")
    if new is not None:
        if new["id"] in mine:
            problems.append(
                Problem(
                    "illegal.note.id-used",
                    "orders.hidden_note.id",
                    f"you already wrote a hidden note '{new['id']}' (round {mine[new['id']]['round']}): "
                    "give this one another id",
                )
            )
        seen: set[str] = set()
        for index, name in enumerate(new.get("to") or []):
            where = f"orders.hidden_note.to[{index}]"
            if name == player:
                problems.append(Problem("illegal.note.to-self", where, "you always see your own notes: name others"))
            elif name not in players:
                problems.append(
                    Problem("illegal.note.player", where, f"there is no player '{name}'; players: {', '.join(players)}")
                )
            elif name in seen:
                problems.append(Problem("illegal.note.player", where, f"'{name}' is named twice"))
            seen.add(name)
    revealed: set[str] = set()
    for index, name in enumerate(orders.get("reveal") or []):
        where = f"orders.reveal[{index}]"
        if new is not None and name == new["id"] and name not in mine:
            message = f"the note '{name}' is written in these orders: reveal it in a later round, or make it a note"
            problems.append(Problem("illegal.note.same-round", where, message))
        elif name not in mine:
            written = ", ".join(sorted(n for n, note in mine.items() if note["revealed"] is None)) or "none"
            problems.append(
                Problem("illegal.note.unknown", where, f"you have no hidden note '{name}'; still hidden: {written}")
            )
        elif mine[name]["revealed"] is not None:
            message = f"the note '{name}' was already revealed in round {mine[name]['revealed']}"
            problems.append(Problem("illegal.note.revealed", where, message))
        elif name in revealed:
            problems.append(Problem("illegal.note.revealed", where, f"'{name}' is named twice"))
        revealed.add(name)
    return problems


def seal_note(
    notes: Sequence[Mapping[str, Any]],
    round_: int,
    player: str,
    order: Mapping[str, Any],
    dice: Dice,
    opens: str | None = None,
) -> tuple[list[dict[str, Any]], list[Event]]:
    """Seal a player's new hidden note: its text is committed in the record; the writer and the
    players named see it now, with its opening; everyone else learns only that it was written.

    `opens` says what opens it, where the game's rules do ("the force lands (3.523)"); without
    it the note stays hidden until its writer reveals it."""
    number = 1 + sum(1 for note in notes if note["by"] == player)
    label = note_label(player, number)
    to = sorted(order.get("to") or [])
    sealed = dice.seal([order["text"]], label=label)
    note = {
        "by": player,
        "round": round_,
        "number": number,
        "id": order["id"],
        "text": order["text"],
        "to": to,
        "opening": sealed.opening(0),
        "revealed": None,
    }
    readers = f" for {', '.join(to)}" if to else ""
    private = Event(
        "note.hidden",
        f"{player}'s hidden note '{order['id']}'{readers}: {order['text']}",
        {"player": player, "id": order["id"], "to": to, "text": order["text"], "openings": [note["opening"]]},
        (player, *to),
    )
    public = Event(
        "note.sealed",
        f"{player} sealed a hidden note{readers} ({label}); it stays hidden until {opens or player + ' reveals it'}.",
        {"player": player, "to": to, "label": label},
    )
    return [*map(dict, notes), note], [private, public]


def reveal_notes(
    notes: Sequence[Mapping[str, Any]], round_: int, player: str, names: Sequence[str]
) -> tuple[list[dict[str, Any]], list[Event]]:
    """Reveal a player's hidden notes to everyone, each with its opening (in the order named)."""
    updated = [dict(note) for note in notes]
    events = []
    for name in names:
        note = next(n for n in updated if n["by"] == player and n["id"] == name and n["revealed"] is None)
        note["revealed"] = round_
        events.append(
            Event(
                "note.revealed",
                f"{player} reveals the hidden note '{name}' sealed in round {note['round']}: {note['text']}",
                {
                    "player": player,
                    "id": name,
                    "round": note["round"],
                    "to": list(note["to"]),
                    "text": note["text"],
                    "openings": [note["opening"]],
                },
            )
        )
    return updated, events


def can_read(note: Mapping[str, Any], player: str | None) -> bool:
    """Return whether `player` (None: the public) may read a note."""
    return note["revealed"] is not None or (player is not None and (player == note["by"] or player in note["to"]))


def note_view(note: Mapping[str, Any], player: str | None) -> dict[str, Any]:
    """Return what `player` sees of a note: its text and proof if they may read it, else only who
    wrote it, when, for whom, and its commitment."""
    opening = note["opening"]
    shown: dict[str, Any] = {
        "by": note["by"],
        "round": note["round"],
        "to": list(note["to"]),
        "revealed": note["revealed"],
        "label": opening["label"],
        "commitment": opening["commitment"],
    }
    if can_read(note, player):
        shown["id"] = note["id"]
        shown["text"] = note["text"]
        shown["proof"] = {key: opening[key] for key in ("label", "turn", "phase", "index", "salt", "commitment")}
    return shown


def note_secrets(notes: Sequence[Mapping[str, Any]], pointer: str) -> list[tuple[str, tuple[str, ...]]]:
    """Return the hidden leaves of the notes not yet revealed, each with who may read it."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for index, note in enumerate(notes):
        if note["revealed"] is None:
            readers = (note["by"], *note["to"])
            for leaf in ("id", "text", "opening/value", "opening/salt"):
                found.append((f"{pointer}/{index}/{leaf}", readers))
    return found


def notes_in_play(notes: Sequence[Mapping[str, Any]]) -> list[InPlay]:
    """Return each note not yet revealed: revealing its draw would open it to everyone else."""
    return [
        InPlay(
            note["opening"]["label"],
            f"{note['by']}'s hidden note {note['opening']['label']} (sealed in round {note['round']}) "
            f"to everyone but {', '.join([note['by'], *note['to']])}",
        )
        for note in notes
        if note["revealed"] is None
    ]
