"""What letters show, made from plain values: a player's view as YAML, the dice list annotated
with what the events and the referee's overrides say of each roll, the proofs of hidden draws,
and, in a phase of many rolls, what a player's report lists in full and what it only counts.

Letter formats (`referee.game.letter_format` keeps which a phase's letters are in): 1 lists
every event and roll of a phase to every player. 2 does the same up to `SHOWN_WHOLE` of them;
beyond, a player's letter lists their own events and rolls in full, the game's own (those of
no player), the first `OTHERS_SHOWN` of the other players', and counts the rest by player:
the public record holds every roll. A phase of 10,000 rolls among 32 players then makes
letters of about 10,000 rolls in all, not 320,000. 4 bounds a letter by its reader alone: in a
long phase none of the other players' events and rolls are listed (they are counted), and a
phase of more than `ORDERS_SHOWN_WHOLE` orders lists the reader's order's hash and counts the
others', so that a phase's letters cost what its rolls and its players do, not their product.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Any

from referee.kit.contract import Event
from referee.protocol.canonical import canonical_json
from referee.protocol.display import shown
from referee.protocol.hidden import committed_text
from referee.protocol.yamlsafe import dump

SHOWN_WHOLE = 100  # a phase of at most this many events and rolls is listed whole to everyone
OTHERS_SHOWN = 10  # beyond, this many of the other players' events and rolls are listed (formats 2, 3)
ORDERS_SHOWN_WHOLE = 12  # format 4: a report lists every order's hash up to this many, else the reader's


@lru_cache(maxsize=8)
def _yaml_of(canonical: bytes) -> bytes:
    return dump(json.loads(canonical)).encode("utf-8")


_dumped: dict[bytes, bytes] | None = None  # inside `views_dumped_once`: canonical view -> YAML


@contextmanager
def views_dumped_once() -> Iterator[None]:
    """Within the body, each distinct view is dumped to YAML once, however many letters attach
    it (a phase's reports and the next phase's notices show the same state to each player)."""
    global _dumped
    outer, _dumped = _dumped, ({} if _dumped is None else _dumped)
    try:
        yield
    finally:
        _dumped = outer


def view_yaml(view: Any) -> bytes:
    """Return a view as YAML; players often share a view, so identical ones are dumped once."""
    canonical = canonical_json(view)
    if _dumped is None:
        return _yaml_of(canonical)
    if canonical not in _dumped:
        _dumped[canonical] = _by_items(json.loads(canonical), _dumped)
    return _dumped[canonical]


def _by_items(view: Any, dumped: dict[bytes, bytes]) -> bytes:
    """Return the YAML of a view, a mapping's entries dumped once each across the views in
    `dumped`: the players' views differ in a few entries ("you", a hand) and share the rest (a
    list of every player, a map), which each view would dump again. A block mapping's YAML is its
    entries' YAML one after the other (`tests/unit/test_yaml_dump.py` checks it)."""
    if not isinstance(view, dict) or not view:
        return dump(view).encode("utf-8")
    pieces = []
    for key, item in view.items():
        entry = {key: item}
        canonical = canonical_json(entry)  # a view of this one entry has the same YAML
        if canonical not in dumped:
            dumped[canonical] = dump(entry).encode("utf-8")
        pieces.append(dumped[canonical])
    return b"".join(pieces)


def proofs(events: list[Event]) -> list[dict[str, Any]]:
    """Return the openings of hidden draws the reader's events carry, each with the exact text
    its commitment hashes after the salt (docs/protocol.md section 8)."""
    found = []
    for event in events:
        for opening in event.data.get("openings", ()):
            # The opening says the exact text committed; an opening made before it said so is version 1's.
            text = opening.get("text") or committed_text(opening["label"], opening["index"], opening["value"])
            found.append(
                {**opening, "text": text, "check": proof_check(opening["salt"], text), "shown": _shown(opening)}
            )
    return found


def _shown(opening: dict[str, Any]) -> Any:
    """A value as the letter prints it: a mapping or list (an opened sealed choice) in YAML flow
    style, as players write it, where it used to print as Python's repr; any other value as
    before, so that letters already sent are re-rendered byte for byte."""
    value = opening["value"]
    return shown(value, limit=PROOF_SHOWN_LIMIT) if isinstance(value, (dict, list)) else value


PROOF_SHOWN_LIMIT = 400  # characters of an opened value in a letter; its exact text is printed beside it

_HASH_TEXT = (
    'import hashlib,sys; print(hashlib.sha256(bytes.fromhex(sys.argv[1]) + sys.argv[2].encode() + b"\\n").hexdigest())'
)
_HASH_HEX = (
    "import hashlib,sys; t=bytes.fromhex(sys.argv[2]); print(t.decode()); "
    'print(hashlib.sha256(bytes.fromhex(sys.argv[1]) + t + b"\\n").hexdigest())'
)


def proof_check(salt: str, text: str) -> str:
    """Return a shell command that prints the commitment of `text` under `salt`, whatever the text holds.

    The text goes in single quotes (nothing is expanded in them); a text with a line break or
    another control character goes as hex, and the command prints it decoded before the hash.
    """
    if text.isprintable():
        return f"python3 -c {shlex.quote(_HASH_TEXT)} {salt} {shlex.quote(text)}"
    return f"python3 -c {shlex.quote(_HASH_HEX)} {salt} {text.encode().hex()}"


_DICE = re.compile(r"(?P<count>[0-9]+)d(?P<sides>[0-9]+)")
_COUNTED = re.compile(r"(?P<kind>uniform|shuffle|sealed)\((?P<n>[0-9]+)\)")


def spec_words(spec: str) -> str:
    """Return what a draw's record spec (`2d6`, `uniform(10)`, `shuffle(5)`, `sealed(2)`) means, in
    a player's words; the record keeps the spec itself, which `referee verify` reads."""
    if _DICE.fullmatch(spec):
        return spec  # a wargamer's own notation
    match = _COUNTED.fullmatch(spec)
    if match is None:
        return spec
    n = int(match["n"])
    if match["kind"] == "uniform":
        return f"a number from 0 to {n - 1}"
    if match["kind"] == "shuffle":
        return f"a shuffle of {n} (the new order, counting from 0)"
    return f"{n} sealed choice{'' if n == 1 else 's'}"


def owner_of(event: Event) -> str | None:
    """Return the player an event is about (its data's "player"), or None: the game's own."""
    player = event.data.get("player")
    return player if isinstance(player, str) else None


@dataclass(frozen=True)
class Listed:
    """What one letter lists of a phase's events or rolls, in order, and what it counts only:
    `omitted` is [{"who": PLAYER, "count": N}] in the order the players first appear."""

    shown: list[Any]
    omitted: list[dict[str, Any]]
    total: int


class PhaseLetters:
    """A phase's events and rolls, indexed once for the letters of every player.

    Built once per adjudication, so that what each player's report lists costs what it lists:
    the whole phase is read here once, not once per player. `bounded` is the letter format's
    (2 bounds a long phase, 1 lists everything to everyone); `others_shown` is how many of the
    other players' events and rolls a bounded letter lists (`OTHERS_SHOWN`; 0 in format 4).
    """

    def __init__(
        self,
        events: Sequence[Event],
        rolls: list[dict[str, Any]],
        overrides: Sequence[dict[str, Any]],
        bounded: bool,
        others_shown: int = OTHERS_SHOWN,
    ) -> None:
        self.events = list(events)
        self.rolls = rolls
        self.bounded = bounded
        self.others_shown = others_shown
        # One pass over the events (a long phase has thousands): whose each is, who sees it, and
        # the public notes on rolls by label, as `owner_of` and `_notes` say.
        self.owner: list[str | None] = []
        self.public: list[int] = []
        self.restricted: list[int] = []
        self.with_openings: list[int] = []
        self.public_notes: dict[str, Any] = {}
        for i, event in enumerate(self.events):
            data = event.data
            self.owner.append(owner_of(event))
            if event.visible_to == "all":
                self.public.append(i)
                if "label" in data:
                    self.public_notes[data["label"]] = data
            else:
                self.restricted.append(i)
            if data.get("openings"):
                self.with_openings.append(i)
        self.public_by_owner = _grouped(self.public, self.owner)
        chains: dict[str, list[str]] = {}  # the label the game asked for -> every label drawn for it
        for entry in overrides:
            if entry["kind"] == "reroll":
                chains.setdefault(entry["label"], [entry["label"]]).append(entry["new_label"])
        self.replaced_by = {old: new for labels in chains.values() for old, new in pairwise(labels)}
        asked_as = {labels[-1]: asked for asked, labels in chains.items()}
        self.results = {entry["label"]: entry["values"] for entry in overrides if entry["kind"] == "result"}
        # The game's events name the label it asked for; they describe the draw that counted.
        labels = [roll["label"] for roll in rolls]
        replaced = self.replaced_by
        self.asked = (
            [asked_as.get(label, None if label in replaced else label) for label in labels] if chains else labels
        )
        self.public_roll_owner = self._roll_owners(self.public_notes)
        self.public_rolls_by_owner = _grouped(range(len(rolls)), self.public_roll_owner)

    def _roll_owners(self, notes: dict[str, Any]) -> list[str | None]:
        owners: list[str | None] = []
        for asked in self.asked:
            note = notes.get(asked) if asked else None
            player = note.get("player") if note is not None else None
            owners.append(player if isinstance(player, str) else None)
        return owners

    def _visible_restricted(self, reader: str | None) -> list[int]:
        return [i for i in self.restricted if self.events[i].is_visible_to(reader)]

    def visible_events(self, reader: str | None) -> list[Event]:
        """Return every event `reader` may see, in order."""
        return [self.events[i] for i in sorted(self.public + self._visible_restricted(reader))]

    def events_for(self, reader: str | None) -> Listed:
        """Return the events `reader`'s letter lists: all they may see, or in a long phase their
        own, the game's, those only some players see, and the first few of the other players'."""
        private = self._visible_restricted(reader)
        total = len(self.public) + len(private)
        if not self.bounded or total <= SHOWN_WHOLE:
            return Listed([self.events[i] for i in sorted(self.public + private)], [], total)
        shown, omitted = _bounded(self.public_by_owner, self.public, self.owner, reader, private, self.others_shown)
        return Listed([self.events[i] for i in shown], omitted, total)

    def rolls_for(self, reader: str | None) -> Listed:
        """Return the rolls `reader`'s letter lists, annotated (see `annotated_rolls`): all of
        them, or in a long phase their own, the game's and the first few of the other players'.
        Only the events `reader` may see annotate a roll or say whose it is."""
        private = [i for i in self._visible_restricted(reader) if "label" in self.events[i].data]
        if private:  # rare: events some players see name rolls; this reader's notes are their own
            notes = _notes(self.visible_events(reader))
            owners = self._roll_owners(notes)
            by_owner = _grouped(range(len(self.rolls)), owners)
        else:
            notes, owners, by_owner = self.public_notes, self.public_roll_owner, self.public_rolls_by_owner
        if not self.bounded or len(self.rolls) <= SHOWN_WHOLE:
            shown: list[int] = list(range(len(self.rolls)))
            omitted: list[dict[str, Any]] = []
        else:
            shown, omitted = _bounded(by_owner, range(len(self.rolls)), owners, reader, [], self.others_shown)
        return Listed(self._annotated(shown, notes), omitted, len(self.rolls))

    def _annotated(self, shown: list[int], notes: dict[str, Any]) -> list[dict[str, Any]]:
        """Return the rolls at `shown`, each with the note the events give it, the re-roll that
        replaced it and the result the referee ruled it counts as."""
        rolls, asked, replaced, results = self.rolls, self.asked, self.replaced_by, self.results
        return [
            {
                **rolls[j],
                "note": notes.get(label, {}) if (label := asked[j]) else {},
                "replaced_by": replaced.get(rolls[j]["label"]) if replaced else None,
                "counts_as": results.get(label) if label and results else None,
            }
            for j in shown
        ]

    def proofs_for(self, reader: str | None) -> list[dict[str, Any]]:
        """Return the proofs of hidden draws that the events `reader` may see carry."""
        return proofs([self.events[i] for i in self.with_openings if self.events[i].is_visible_to(reader)])


def orders_listed(orders: list[dict[str, Any]], reader: str | None, bounded_by_reader: bool) -> list[dict[str, Any]]:
    """Return the record's orders a report lists: every one, or in format 4 (`bounded_by_reader`)
    beyond `ORDERS_SHOWN_WHOLE` the reader's own alone (the record lists them all)."""
    if not bounded_by_reader or len(orders) <= ORDERS_SHOWN_WHOLE:
        return orders
    return [order for order in orders if order["player"] == reader]


def _grouped(indices: Any, owner: Sequence[str | None]) -> dict[str | None, list[int]]:
    groups: dict[str | None, list[int]] = {}
    for i in indices:
        groups.setdefault(owner[i], []).append(i)
    return groups


def _notes(events: Any) -> dict[str, Any]:
    return {event.data["label"]: event.data for event in events if "label" in event.data}


def _bounded(
    by_owner: dict[str | None, list[int]],
    order: Any,
    owner: Sequence[str | None],
    reader: str | None,
    also: list[int],
    others_shown: int,
) -> tuple[list[int], list[dict[str, Any]]]:
    """Return the positions a bounded letter lists (the reader's, the game's, `also`, and the
    first `others_shown` of other players'), and the count of the others' left out, by player."""
    first: list[int] = []
    if others_shown:
        for i in order:  # stops after the reader's own and a few others': what is listed anyway
            if owner[i] is not None and owner[i] != reader:
                first.append(i)
                if len(first) == others_shown:
                    break
    mine = by_owner.get(reader, []) if reader is not None else []
    shown = sorted({*mine, *by_owner.get(None, []), *also, *first})
    listed: dict[str | None, int] = {}
    for i in first:
        listed[owner[i]] = listed.get(owner[i], 0) + 1
    omitted = [
        {"who": who, "count": len(positions) - listed.get(who, 0)}
        for who, positions in by_owner.items()
        if who is not None and who != reader and len(positions) > listed.get(who, 0)
    ]
    return shown, omitted
