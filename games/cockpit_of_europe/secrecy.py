"""What Cockpit of Europe keeps sealed: notes sealed when written and opened when the rules say
(each side's set-up, campaign plans, the Descent decision, sea movement destinations, standing
orders), and candidate lists committed before a random pick among things the module does not
hold (leaders, stacks, depots, hubs, sieges).

Notes are the procedure journal's hidden notes (`note/SIDE/N` draws): a side sees its own at
once, the other side its commitment, and everyone its text with the proof when it is opened.
A candidate list is sealed item by item (`candidates/SIDE/POOL/TURN`), so that a pick opens
the one item picked and nothing else of the list.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from referee.kit import Dice, Event, InPlay
from referee.kit.procedure.hidden_notes import note_secrets, notes_in_play, reveal_notes, seal_note

# The pools a side commits candidates to, and what each holds (7.02-7.04).
POOLS = {
    "leaders": "leaders on the map, Royals left out (the Pox, the Duellists: 7.02, 7.03, 7.037)",
    "royals": "Royal leaders and Personages on the map (the Pox takes them too: 7.02)",
    "grand-army-stacks": "stacks holding a Grand Army HQ (Walcheren Fever: 7.02)",
    "army-stacks": "stacks holding an Army HQ (Walcheren Fever, when no Grand Army HQ is on the map)",
    "largest-stacks": "the stacks with the most units (Walcheren Fever, when no HQ is on the map)",
    "hubs": "your Hubs in play that have Preparedness (Lost Orders: 7.04)",
    "half-depots": "your Half Depots (Supply Surplus: 7.04)",
    "full-depots": "your Full Depots (Supply Peculation: 7.04)",
    "sieges": "sieges you conduct, not blockades, each 'PLACE: GARRISON-SPS' (Powder Magazine: 7.04)",
    "mess": "leaders in your Officers' Mess, each 'CONTINGENT: LEADER' (Desertion: 7.04)",
}


def seal(
    state: Mapping[str, Any], side: str, note_id: str, content: Any, dice: Dice
) -> tuple[list[dict[str, Any]], list[Event]]:
    """Seal `content` as `side`'s hidden note `note_id`; return the notes and the events."""
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, sort_keys=True)
    return seal_note(state["notes"], state["round"], side, {"id": note_id, "text": text}, dice, opens(side, note_id))


def opens(side: str, note_id: str) -> str:
    """What opens `side`'s note `note_id`, as the players are told when it is sealed (every note
    still sealed also opens when the game ends)."""
    if note_id == "descent":
        return "the game's first turn, when the Descent is launched or declined (6.25, 6.251)"
    if note_id.startswith("sea-"):
        return "the force lands (3.523), or the game ends"
    if note_id.startswith("standing-"):
        return "the enemy's move triggers it, or the game ends"
    return f"{side} reveals it, or the game ends"


def note(state: Mapping[str, Any], side: str, note_id: str) -> dict[str, Any] | None:
    """Return `side`'s note `note_id`, or None."""
    return next((n for n in state["notes"] if n["by"] == side and n["id"] == note_id), None)


def content(found: Mapping[str, Any]) -> Any:
    """Return what a note holds: its JSON data, or its text."""
    try:
        return json.loads(found["text"])
    except ValueError:
        return found["text"]


def open_notes(
    state: Mapping[str, Any], side: str, ids: Sequence[str], why: str
) -> tuple[list[dict[str, Any]], list[Event]]:
    """Open `side`'s notes named `ids` that are still sealed, for everyone, with their proofs."""
    still = [i for i in ids if (found := note(state, side, i)) is not None and found["revealed"] is None]
    if not still:
        return [dict(n) for n in state["notes"]], []
    notes, events = reveal_notes(state["notes"], state["round"], side, still)
    return notes, [Event(e.kind, f"{why}: {e.text}", {**e.data, "why": why}, e.visible_to) for e in events]


def sealed_ids(state: Mapping[str, Any], side: str, prefix: str) -> list[str]:
    """Return the ids of `side`'s notes still sealed whose id starts with `prefix`."""
    return [n["id"] for n in state["notes"] if n["by"] == side and n["revealed"] is None and n["id"].startswith(prefix)]


def commit_candidates(
    state: Mapping[str, Any], side: str, pools: Mapping[str, Sequence[str]], turn: int, dice: Dice
) -> tuple[dict[str, Any], list[Event]]:
    """Seal `side`'s candidate lists, item by item; return the side's pools and the events (the
    side sees its lists and proofs, the other side how many items each list holds)."""
    kept = dict(state["candidates"].get(side, {}))
    openings = []
    counts = {}
    for pool, items in sorted(pools.items()):
        items = sorted(dict.fromkeys(items))
        if not items:
            kept.pop(pool, None)
            counts[pool] = 0
            continue
        hidden = dice.seal(items, label=f"candidates/{side}/{pool}/{turn}")
        kept[pool] = {"turn": turn, "openings": hidden.openings()}
        openings += hidden.openings()
        counts[pool] = len(items)
    listed = "; ".join(f"{pool} {count}" for pool, count in counts.items())
    return kept, [
        Event("candidates.sealed", f"You sealed your candidate lists: {listed}", {"openings": openings}, (side,)),
        Event("candidates.committed", f"{side} committed candidate lists: {listed}", {"side": side, "counts": counts}),
    ]


def pool_items(state: Mapping[str, Any], side: str, pool: str) -> list[dict[str, Any]]:
    """Return the openings of `side`'s committed candidates in `pool` (empty: none committed)."""
    return list(state["candidates"].get(side, {}).get(pool, {}).get("openings", []))


def pick(
    state: Mapping[str, Any], pools: Sequence[tuple[str, str]], label: str, dice: Dice, exclude: Sequence[str] = ()
) -> tuple[str, str, dict[str, Any]] | None:
    """Pick one item at random over the committed lists named (side, pool), in that order;
    return (side, item, its opening), or None when they are empty (the event cannot happen)."""
    candidates = [
        (side, opening)
        for side, pool in pools
        for opening in pool_items(state, side, pool)
        if opening["value"] not in exclude
    ]
    if not candidates:
        return None
    side, opening = candidates[dice.uniform(len(candidates), label=label)]
    return side, opening["value"], opening


def standing(state: Mapping[str, Any], side: str, kind: str) -> list[dict[str, Any]]:
    """Return `side`'s standing orders of `kind` for this turn that are still sealed."""
    found = []
    for entry in state["standing"]:
        if entry["side"] == side and entry["kind"] == kind:
            held = note(state, side, entry["note"])
            if held is not None and held["revealed"] is None:
                found.append({**entry, "orders": content(held)})
    return found


def secrets(state: Mapping[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """Return the hidden leaves: sealed notes (their writer), candidate items (their side)."""
    found = note_secrets(state["notes"], "/notes")
    for side, pools in state["candidates"].items():
        for pool, held in pools.items():
            for index, opening in enumerate(held["openings"]):
                if not opening.get("opened"):
                    for leaf in ("value", "salt", "text"):
                        found.append((f"/candidates/{side}/{pool}/openings/{index}/{leaf}", (side,)))
    return found


def in_play(state: Mapping[str, Any]) -> list[InPlay]:
    """Return the sealed draws still hiding something: notes not opened, candidate lists."""
    found = notes_in_play(state["notes"])
    for side, pools in state["candidates"].items():
        for pool, held in pools.items():
            found.append(InPlay(f"candidates/{side}/{pool}/{held['turn']}", f"{side}'s candidate list {pool}"))
    return found


def mark_opened(candidates: Mapping[str, Any], side: str, opening: Mapping[str, Any]) -> dict[str, Any]:
    """Return the candidates with one opening marked as told to everyone (no longer a secret)."""
    new = json.loads(json.dumps(candidates))
    for held in new.get(side, {}).values():
        for item in held["openings"]:
            if item["label"] == opening["label"] and item["index"] == opening["index"]:
                item["opened"] = True
    return new
