"""A procedure journal's tracks: named public counters (a Peace Index, each power's victory points)
with bounds and an optional end-of-game trigger (README.md, "Tracks").

A track changes three ways: by an order (`track: [{track, change, reason}]`), by a table row
whose result is a mapping with `track: {TRACK: +/-N}` (the roll's own lookup says so), or by the
referee's signed state override of `/tracks/TRACK/value`. A change that would pass a bound
stops at it, and the report says so. The trigger is read when a phase is adjudicated: a track
at or past its `ends_game_at` (from below or, for a falling track, from above: whichever side
it started on) then ends the game, and the last report says which track and why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from referee.kit import Event, GameDataError, Problem, Tables

ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}\Z")
TRACK_KEYS = ("title", "start", "min", "max", "ends_game_at")
MAX_TRACKS = 40
MAX_CHANGES = 20
CHANGE_SCHEMA = {
    "type": "map",
    "description": "one change of a track",
    "required": ["track", "change", "reason"],
    "fields": {
        "track": {"type": "str", "max": 32, "example": "peace", "description": "the track's id"},
        "change": {"type": "int", "min": -1000, "max": 1000, "example": 1, "description": "how much: +1, -2"},
        "reason": {"type": "str", "max": 300, "description": "why, in words (the rule or event)"},
    },
}
ORDER_SCHEMA = {
    "type": "list",
    "max": MAX_CHANGES,
    "items": CHANGE_SCHEMA,
    "description": "changes of the game's tracks, each with its reason",
}


def parse_tracks(raw: Any) -> dict[str, dict[str, Any]] | None:
    """Return the tracks as the state keeps them ({id: {title, value, min, max, ends_game_at}}),
    or None for a game without any; raise GameDataError naming the mistake's path."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or not 1 <= len(raw) <= MAX_TRACKS:
        raise GameDataError(f"option 'tracks' must be a mapping of 1 to {MAX_TRACKS} tracks {{ID: {{title, start}}}}")
    tracks = {}
    for track_id, entry in raw.items():
        where = f"options.tracks.{track_id}"
        if not isinstance(track_id, str) or not ID.match(track_id):
            raise GameDataError(f"{where}: a track's id is lower-case letters, digits, - and _")
        if not isinstance(entry, dict) or set(entry) - set(TRACK_KEYS):
            raise GameDataError(f"{where}: a track is a mapping with {', '.join(TRACK_KEYS)}")
        numbers = {key: entry.get(key) for key in ("start", "min", "max", "ends_game_at")}
        for key, value in numbers.items():
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise GameDataError(f"{where}.{key}: give a whole number, got {value!r}")
        start, low, high = numbers["start"] or 0, numbers["min"], numbers["max"]
        if (low is not None and start < low) or (high is not None and start > high):
            raise GameDataError(f"{where}.start: {start} is outside the track's bounds {_bounds(low, high)}")
        end = numbers["ends_game_at"]
        if end is not None and (end == start or not _within(end, low, high)):
            raise GameDataError(f"{where}.ends_game_at: {end} must differ from the start and lie within the bounds")
        tracks[track_id] = {
            "title": str(entry.get("title") or track_id),
            "value": start,
            "min": low,
            "max": high,
            "ends_game_at": end,
            "rising": None if end is None else end > start,
        }
    return tracks


def table_problems(tables: Tables, known: Mapping[str, Any]) -> list[str]:
    """Return, with its path, each table result that moves a track the game does not have (`known`):
    refused when the game is created, since such a roll could move nothing when it is made."""
    problems = []
    for table_id in tables.names():
        table = tables.get(table_id)
        for index, row in enumerate(table.rows):
            results = row.result.items() if table.columns else [(None, row.result)]
            for column, result in results:
                moves = result.get("track") if isinstance(result, Mapping) else None
                for track_id in moves or {}:
                    if track_id in known:
                        continue
                    where = f"tables.{table_id}.rows[{index}].result{'' if column is None else '.' + column}"
                    names = ", ".join(known) or "none (declare them in options.tracks)"
                    problems.append(f"{where}.track.{track_id}: the game has no track '{track_id}'; tracks: {names}")
    return problems


def _within(value: int, low: int | None, high: int | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


def _bounds(low: int | None, high: int | None) -> str:
    return f"{'-inf' if low is None else low} to {'inf' if high is None else high}"


def order_problems(state: Mapping[str, Any], orders: Mapping[str, Any]) -> list[Problem]:
    """Return the problems with an order's track changes: unknown tracks, zero changes."""
    tracks = state.get("tracks") or {}
    problems = []
    for index, change in enumerate(orders.get("track") or []):
        path = f"orders.track[{index}]"
        if change["track"] not in tracks:
            known = ", ".join(tracks) or "none (the game has no tracks)"
            problems.append(
                Problem("illegal.unknown-track", f"{path}.track", f"no track '{change['track']}'; tracks: {known}")
            )
        elif change["change"] == 0:
            problems.append(
                Problem("illegal.no-change", f"{path}.change", "a change of 0 changes nothing; leave it out")
            )
    return problems


def move(
    tracks: dict[str, dict[str, Any]], track_id: str, change: int, reason: str, by: str
) -> tuple[dict[str, dict[str, Any]], Event]:
    """Return the tracks with `track_id` moved by `change` (stopping at its bounds), and the
    event that tells every player: by whom (a player, or a roll's label), how much, and why."""
    track = tracks[track_id]
    old = track["value"]
    wanted = old + change
    new = wanted
    if track["min"] is not None:
        new = max(new, track["min"])
    if track["max"] is not None:
        new = min(new, track["max"])
    text = f"{track['title']}: {old} -> {new} ({change:+d}, {reason}; by {by})"
    if new != wanted:
        text += f"; it stops at its bound {new}"
    data = {"track": track_id, "from": old, "to": new, "change": change, "reason": reason, "by": by}
    return {**tracks, track_id: {**track, "value": new}}, Event("track", text, data)


def result_changes(event: Event) -> list[tuple[str, int]]:
    """Return the track changes a roll's table result carries (a result mapping's `track:`)."""
    lookup = event.data.get("lookup")
    result = lookup.get("result") if isinstance(lookup, Mapping) else None
    changes = result.get("track") if isinstance(result, Mapping) else None
    if not isinstance(changes, Mapping):
        return []
    return [(str(track), int(change)) for track, change in changes.items()]


def apply_rolls(tracks: dict[str, dict[str, Any]], rolls: list[Event]) -> tuple[dict[str, dict[str, Any]], list[Event]]:
    """Return the tracks after the changes the rolls' results carry, and their events. A result
    naming a track the game does not have is reported, not applied (the table is the referee's)."""
    events: list[Event] = []
    for roll in rolls:
        for track_id, change in result_changes(roll):
            lookup = roll.data["lookup"]
            reason = f"{lookup['title']}, row {lookup['row']}"
            if track_id not in tracks:
                text = f"{reason} moves the track '{track_id}', which this game does not have: nothing moves"
                events.append(Event("track.unknown", text, {"track": track_id, "by": roll.data["label"]}))
                continue
            tracks, event = move(tracks, track_id, change, reason, roll.data["label"])
            events.append(event)
    return tracks, events


def ending(tracks: Mapping[str, Mapping[str, Any]]) -> dict[str, Any] | None:
    """Return why the game ends ({track, value, text}) if a track has reached its trigger."""
    for track_id, track in sorted(tracks.items()):
        end = track["ends_game_at"]
        if end is None:
            continue
        reached = track["value"] >= end if track["rising"] else track["value"] <= end
        if reached:
            text = f"The game ends: {track['title']} reached {track['value']} (the game ends at {end})."
            return {"track": track_id, "value": track["value"], "text": text}
    return None


def view(tracks: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Return the tracks as every player sees them (all of a track is public)."""
    return {
        track_id: {key: track[key] for key in ("title", "value", "min", "max", "ends_game_at")}
        for track_id, track in sorted(tracks.items())
    }


def check(tracks: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Return the tracks' broken invariants: a value that is not a whole number or is out of bounds."""
    problems = []
    for track_id, track in sorted(tracks.items()):
        value = track.get("value")
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(f"track {track_id}: its value {value!r} is not a whole number")
        elif not _within(value, track["min"], track["max"]):
            problems.append(f"track {track_id}: {value} is outside its bounds {_bounds(track['min'], track['max'])}")
    return problems
