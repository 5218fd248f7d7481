"""Decks bound to their definitions (docs/protocol.md, section 12; `pbem-referee/4`).

A hidden shuffle's inputs are canonical: the ids sorted, so what a referee could still choose is
*which* cards go in, and the record says which: a deck's definition (its id and the SHA-256 of
its cards with their copies, public in the game's configuration) or piles of a deck gathered
again (whose cards earlier records placed there). Every card that moves names the committed
position it takes, in the record's `card_moves`; `check_card_moves` replays them the way a
player would: a draw takes the top of the draw pile, no position leaves a pile it is not in, a
reshuffle gathers as many cards as it shuffles. With the game secret (`Final`) it checks the
rest: each shuffle's inputs are sorted and are exactly the cards it says it shuffled, and every
move the record keeps secret (a face-down discard, a card put back) took a card of that hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.protocol.cards import canonical_inputs, cards_sha256, move_commitment, move_salt
from referee.protocol.dice import DiceError
from referee.protocol.hidden import derive_values, draw_key, hidden_key
from referee.protocol.records import record_transcript

PILES = ("draw", "discard")
# Where a card may come from and go to; `hand/P` and `look/P` name a player. `in-play` is the
# zone of cards played face up that stay on the table (card-driven games).
FROM_PLACES = ("draw", "discard", "in-play")
TO_PLACES = ("discard", "removed", "draw-top", "draw-bottom", "in-play")
Position = tuple[str, int]
Slot = Position | None  # None: a card whose position the record keeps secret


@dataclass(frozen=True)
class Final:
    """What the final reveal gives: the game secret, and the inputs of each revealed draw by
    (record name, label)."""

    game_secret: bytes
    inputs: Mapping[tuple[str, str], Any]


@dataclass
class _Deck:
    draw: list[Slot] = field(default_factory=list)
    discard: list[Slot] = field(default_factory=list)
    removed: list[Slot] = field(default_factory=list)
    in_play: list[Slot] = field(default_factory=list)
    hands: dict[str, list[Slot]] = field(default_factory=dict)
    looks: int = 0  # cards seen by the current run of looks
    set_aside: Counter[str] = field(default_factory=Counter)  # public ids, not yet shuffled in
    unsure: set[str] = field(default_factory=set)  # hands a secret move may have left a card listed in

    def place(self, name: str) -> list[Slot] | None:
        if name.startswith("hand/"):
            return self.hands.setdefault(name[5:], [])
        places = {"draw": self.draw, "discard": self.discard, "removed": self.removed, "in-play": self.in_play}
        return places.get(name)

    def holds_anything(self) -> bool:
        return bool(self.draw or self.discard or self.removed or self.in_play or any(self.hands.values()))


@dataclass
class _Shuffle:
    record: str
    label: str
    spec: str
    source: Mapping[str, Any]
    deck: str
    gathered: list[Slot] | None = None  # the slots a pile shuffle took, in the replay
    brought_in: list[str] = field(default_factory=list)  # set-aside ids it added to them


class _Replay:
    """The public piles of every deck, as the records' card moves leave them."""

    def __init__(self, final: Final | None, definitions: Mapping[str, Mapping[str, int]] | None) -> None:
        self.final = final
        self.definitions = definitions
        self.decks: dict[str, _Deck] = {}
        self.unknown: set[str] = set()  # decks shuffled before their records said what they shuffled
        self.shuffles: dict[str, _Shuffle] = {}  # by label
        self.transcripts: dict[str, bytes] = {}  # record name -> its rolls transcript
        self.problems: list[str] = []

    def record(self, name: str, record: Mapping[str, Any]) -> None:
        moves = record.get("card_moves")
        entries = {e.get("label"): e for e in record.get("hidden") or [] if isinstance(e, dict)}
        for label, entry in entries.items():
            if isinstance(entry.get("source"), dict) and isinstance(label, str):
                self._source_shape(f"{name}: hidden {label}", entry["source"])
        if not isinstance(moves, list):
            return
        key = None
        try:
            self.transcripts[name] = record_transcript(dict(record))
        except (KeyError, TypeError, ValueError):
            pass  # the record's own check names what is wrong
        if self.final is not None and name in self.transcripts:
            key = hidden_key(self.final.game_secret, self.transcripts[name])
        given: set[tuple[str, int, str]] = set()
        shown: set[Position] = set()
        rolls = {r.get("label"): r for r in record.get("rolls") or [] if isinstance(r, dict)}
        for seq, move in enumerate(moves):
            where = f"{name}: card_moves[{seq}]"
            if not isinstance(move, dict) or not isinstance(move.get("deck"), str):
                self.problems.append(f"{where} must be an object naming its deck")
                continue
            deck = move["deck"]
            if "shuffle" in move:
                self._shuffle(where, name, deck, move, entries)
                continue
            if deck in self.unknown:
                continue
            pile = self.decks.get(deck)
            if pile is None:
                self.unknown.add(deck)  # its first shuffle is in a record older than version 4
                continue
            moved = self._move(where, deck, pile, move, key, seq, rolls)
            if moved is not None:
                position, to = moved
                shown.add(position)
                if to.startswith(("hand/", "look/")):
                    given.add((*position, to.split("/", 1)[1]))
        self._check_openings(name, record, given, shown)

    def _source_shape(self, where: str, source: Mapping[str, Any]) -> None:
        if set(source) in ({"piles"}, {"piles", "brought_in"}):
            piles = source["piles"]
            if not isinstance(piles, list) or not piles or not set(piles) <= set(PILES):
                self.problems.append(f"{where}: source piles must be a list of {', '.join(PILES)}")
        elif set(source) not in (
            {"definition", "cards_sha256"},
            {"definition", "cards_sha256", "set_aside"},
            {"cards_sha256"},
        ):
            self.problems.append(
                f"{where}: source must be {{definition, cards_sha256}} (with set_aside), {{cards_sha256}} "
                "or {piles} (with brought_in)"
            )
        for name in ("set_aside", "brought_in"):
            if name in source and _counts(source[name]) is None:
                self.problems.append(f"{where}: source {name} must map card ids to copies (whole numbers of 1 or more)")

    def _shuffle(self, where: str, name: str, deck: str, move: Mapping[str, Any], entries: Mapping[Any, Any]) -> None:
        label = move["shuffle"]
        entry = entries.get(label)
        entry = entry if isinstance(entry, dict) else {}
        source, size = entry.get("source"), _shuffle_size(entry.get("spec"))
        if not isinstance(source, dict) or size is None or not isinstance(label, str):
            self.problems.append(f"{where}: no hidden shuffle {label!r} with a source in this record")
            return
        if label in self.shuffles:
            self.problems.append(f"{where}: {label} was shuffled already, in {self.shuffles[label].record}")
            return
        shuffle = _Shuffle(name, label, str(entry["spec"]), source, deck)
        self.shuffles[label] = shuffle
        pile = self.decks.get(deck)
        if "definition" in source:
            wanted = (self.definitions or {}).get(str(source["definition"]))
            aside = _counts(source.get("set_aside", {})) or Counter()
            if wanted is not None and cards_sha256(wanted) != source.get("cards_sha256"):
                self.problems.append(
                    f"{where}: {label} shuffles cards whose SHA-256 is not that of deck "
                    f"{source['definition']!r} in the game's configuration: cards were added or left out"
                )
            if wanted is not None and aside - Counter(wanted):
                self.problems.append(
                    f"{where}: {label} sets aside cards deck {source['definition']!r} does not hold: "
                    f"{', '.join(sorted(aside - Counter(wanted)))}"
                )
            if wanted is not None and sum(wanted.values()) - aside.total() != size:
                kept = f", {aside.total()} of them set aside" if aside else ""
                self.problems.append(
                    f"{where}: {label} shuffles {size} cards, "
                    f"deck {source['definition']!r} holds {sum(wanted.values())}{kept}"
                )
            if pile is not None and pile.holds_anything():
                self.problems.append(
                    f"{where}: {label} shuffles deck {deck} anew from its definition while its cards are in play"
                )
            pile = self.decks[deck] = _Deck(set_aside=aside)
            self.unknown.discard(deck)
        elif "piles" in source:
            if pile is None or deck in self.unknown:
                self.unknown.add(deck)
                return
            gathered: list[Slot] = []
            for name_of_pile in source["piles"]:
                slots = pile.place(name_of_pile) if name_of_pile in PILES else None
                if slots is not None:
                    gathered += slots
                    slots.clear()
            brought = _counts(source.get("brought_in", {})) or Counter()
            if brought - pile.set_aside:
                self.problems.append(
                    f"{where}: {label} brings in cards not set aside: {', '.join(sorted(brought - pile.set_aside))}"
                )
            pile.set_aside -= brought
            if len(gathered) + brought.total() != size:
                added = f" and {brought.total()} set-aside card(s)" if brought else ""
                self.problems.append(
                    f"{where}: {label} shuffles {size} cards, but its piles ({', '.join(source['piles'])}) "
                    f"held {len(gathered)}{added}"
                )
            shuffle.gathered = gathered
            shuffle.brought_in = sorted(brought.elements())
        else:
            self.problems.append(f"{where}: {label} is a deck's shuffle and must say what it shuffled")
            return
        pile.draw[:] = [(label, i) for i in range(size)]
        pile.looks = 0

    def _move(
        self,
        where: str,
        deck: str,
        pile: _Deck,
        move: Mapping[str, Any],
        key: bytes | None,
        seq: int,
        rolls: Mapping[Any, Any],
    ) -> tuple[Position, str] | None:
        source, to = move.get("from"), move.get("to")
        if not isinstance(source, str) or not isinstance(to, str):
            self.problems.append(f"{where}: from and to must be texts")
            return None
        looking = to.startswith("look/")
        if not looking:
            pile.looks = 0
        slots = pile.place(source) if source in FROM_PLACES or source.startswith("hand/") else None
        target = None if looking else pile.place(to) if to in TO_PLACES or to.startswith("hand/") else None
        if slots is None or (target is None and not looking) and to not in ("draw-top", "draw-bottom"):
            self.problems.append(f"{where}: cannot move a card from {source!r} to {to!r}")
            return None
        if "commitment" in move:
            if key is None and source.startswith("hand/"):
                pile.unsure.add(source)
            self._secret_move(where, deck, pile, slots, move, to, key, seq)
            return None
        position = _position(move)
        if position is None:
            self.problems.append(f"{where}: label must be a text and index a whole number")
            return None
        shown = f"{position[0]} #{position[1]}"
        if source == "draw":
            at = pile.looks if looking else 0
            expected = slots[at] if at < len(slots) else None
            if at >= len(slots):
                self.problems.append(f"{where}: takes {shown}, but the draw pile of {deck} holds no card there")
                return None
            if expected is not None and expected != position:
                if at == 0:
                    why = "taken already" if self._anywhere(pile, position) else "positions are taken in order"
                    self.problems.append(
                        f"{where}: takes {shown} from the draw pile of {deck}, whose top is "
                        f"{expected[0]} #{expected[1]} ({why})"
                    )
                else:
                    self.problems.append(
                        f"{where}: shows {shown} as card {at + 1} from the top of {deck}, which is "
                        f"{expected[0]} #{expected[1]}"
                    )
                return None
            if looking:
                pile.looks += 1
                return position, to
            slots.pop(0)
            if expected is None:
                self._forget(pile, position)
        else:
            if position not in slots:
                self.problems.append(f"{where}: moves {shown} from {source} of {deck}, which does not hold it")
                return None
            if "pick" in move and not self._picked(where, pile, source, slots, position, move["pick"], rolls):
                return None
            if looking:
                return position, to  # shown from a hand: it stays there
            slots.remove(position)
        self._put(pile, to, position, target)
        return position, to

    def _picked(
        self,
        where: str,
        pile: _Deck,
        source: str,
        slots: list[Slot],
        position: Position,
        label: Any,
        rolls: Mapping[Any, Any],
    ) -> bool:
        """Whether the roll `label` of this record picked `position` from the hand: value v of a
        `uniform(n)` roll takes the v-th card (from 0) of the n the hand holds, in the order they
        came into it."""
        roll = rolls.get(label)
        if not source.startswith("hand/") or not isinstance(roll, dict):
            self.problems.append(f"{where}: picks with roll {label!r}, which is not a roll of this record")
            return False
        values, spec = roll.get("values"), roll.get("spec")
        if not isinstance(values, list) or len(values) != 1 or not isinstance(values[0], int):
            self.problems.append(f"{where}: roll {label} must give one value to pick a card")
            return False
        if source in pile.unsure:
            return True  # a secret move may have left a card listed here: verify --final checks it
        if spec != f"uniform({len(slots)})":
            self.problems.append(f"{where}: roll {label} is {spec}, but {source} held {len(slots)} cards to pick from")
            return False
        if not 0 <= values[0] < len(slots) or slots[values[0]] != position:
            self.problems.append(
                f"{where}: roll {label} picked card {values[0]} of {source}, not {position[0]} #{position[1]}"
            )
            return False
        return True

    def _secret_move(
        self,
        where: str,
        deck: str,
        pile: _Deck,
        slots: list[Slot],
        move: Mapping[str, Any],
        to: str,
        key: bytes | None,
        seq: int,
    ) -> None:
        found: Slot = None
        if key is not None:
            salt = move_salt(key, seq)
            found = next(
                (s for s in slots if s is not None and move_commitment(salt, deck, *s) == move["commitment"]), None
            )
            if found is None:
                self.problems.append(f"{where}: its commitment names no card that {move['from']} of {deck} held")
                return
            slots.remove(found)
        # Without the secret the card stays listed in the hand too: a later move may name it.
        self._put(pile, to, found, pile.place(to))

    def _put(self, pile: _Deck, to: str, slot: Slot, target: list[Slot] | None) -> None:
        if to == "draw-top":
            pile.draw.insert(0, slot)
        elif to == "draw-bottom":
            pile.draw.append(slot)
        elif target is not None:
            target.append(slot)

    def _forget(self, pile: _Deck, position: Position) -> None:
        """Drop a position the replay still lists in a hand after a secret move took it from there."""
        for hand in pile.hands.values():
            if position in hand:
                hand.remove(position)
                return

    def _anywhere(self, pile: _Deck, position: Position) -> bool:
        return any(position in place for place in [pile.discard, pile.removed, *pile.hands.values()])

    def _check_openings(
        self, name: str, record: Mapping[str, Any], given: set[tuple[str, int, str]], shown: set[Position]
    ) -> None:
        """Each deck position this record opened must be one its card moves gave, and each card
        given to a player must have its opening in their report."""
        received: set[tuple[str, int, str]] = set()
        for index, opening in enumerate(record.get("opened") or []):
            shuffle = self.shuffles.get(str(opening.get("label"))) if isinstance(opening, dict) else None
            if shuffle is None or shuffle.deck in self.unknown:
                continue
            position = _position(opening)
            if position is None:
                continue
            to = opening.get("to")
            players = to if isinstance(to, list) else []
            for player in players:
                received.add((*position, str(player)))
                if (*position, player) not in given:
                    self.problems.append(
                        f"{name}: opened[{index}] gives {player} {position[0]} #{position[1]}, "
                        "which no card move of this record gives them"
                    )
            if to == "all" and position not in shown:
                self.problems.append(
                    f"{name}: opened[{index}] shows {position[0]} #{position[1]}, "
                    "which no card move of this record names"
                )
        for label, index, player in sorted(given - received):
            self.problems.append(
                f"{name}: a card move gives {player} {label} #{index}, but the record does not list its opening to them"
            )

    def finish(self) -> None:
        """With the game secret: each shuffle's inputs against what it says it shuffled."""
        if self.final is None:
            return
        values: dict[Position, Any] = {}
        for shuffle in self.shuffles.values():
            inputs = self.final.inputs.get((shuffle.record, shuffle.label))
            transcript = self.transcripts.get(shuffle.record)
            if not isinstance(inputs, list) or transcript is None:
                continue  # the reveal check names what is missing
            try:
                key = draw_key(hidden_key(self.final.game_secret, transcript), shuffle.label)
                drawn = derive_values(key, shuffle.label, shuffle.spec, len(inputs), inputs)
            except (DiceError, TypeError, ValueError):
                continue
            values.update(((shuffle.label, i), value) for i, value in enumerate(drawn))
        for shuffle in self.shuffles.values():
            self._check_inputs(shuffle, self.final.inputs.get((shuffle.record, shuffle.label)), values)

    def _check_inputs(self, shuffle: _Shuffle, inputs: Any, values: Mapping[Position, Any]) -> None:
        where = f"{shuffle.record}: hidden shuffle {shuffle.label}"
        if not isinstance(inputs, list):
            return
        problem = inputs_problem(inputs, shuffle.source)
        if problem:
            self.problems.append(f"{where}: {problem}")
            if "sorted" in problem:
                return
        if shuffle.gathered is None:
            return
        if any(slot is None or slot not in values for slot in shuffle.gathered):
            self.problems.append(f"{where}: the cards its piles held cannot all be re-derived")
            return
        held = canonical_inputs([*(values[slot] for slot in shuffle.gathered if slot is not None), *shuffle.brought_in])
        if held != inputs:
            self.problems.append(f"{where}: its inputs are not the cards its piles held: cards were added or left out")


def inputs_problem(inputs: Sequence[Any], source: Mapping[str, Any]) -> str | None:
    """Return what is wrong with a revealed shuffle's inputs given the source its record states:
    not sorted, or not the cards whose SHA-256 it states; None when they fit."""
    if not all(isinstance(item, str) for item in inputs) or list(inputs) != canonical_inputs(inputs):
        return "its inputs are not sorted: the referee chose their order"
    if "cards_sha256" in source:
        aside = _counts(source.get("set_aside", {})) or Counter()
        if cards_sha256(Counter(inputs) + aside) != source["cards_sha256"]:
            why = " with the cards it sets aside" if aside else ""
            return f"its inputs{why} are not the cards whose SHA-256 the record states"
    return None


def check_card_moves(
    records: Sequence[tuple[str, Mapping[str, Any]]],
    final: Final | None = None,
    definitions: Mapping[str, Mapping[str, int]] | None = None,
) -> list[str]:
    """Return the problems in the card moves of `records` (name, record; the chain in order).

    `definitions` maps each deck definition's id to its cards' copies, from the game's
    configuration when the verifier has it; `final` the game secret and the revealed inputs.
    """
    replay = _Replay(final, definitions)
    for name, record in records:
        replay.record(name, record)
    replay.finish()
    return replay.problems


def _counts(value: Any) -> Counter[str] | None:
    """Return a source's {card id: copies} as a Counter, or None when it is not one."""
    if not isinstance(value, dict):
        return None
    if not all(
        isinstance(k, str) and isinstance(n, int) and not isinstance(n, bool) and n >= 1 for k, n in value.items()
    ):
        return None
    return Counter(value)


def _position(entry: Mapping[str, Any]) -> Position | None:
    label, index = entry.get("label"), entry.get("index")
    if not isinstance(label, str) or not isinstance(index, int) or isinstance(index, bool):
        return None
    return label, index


def _shuffle_size(spec: Any) -> int | None:
    if isinstance(spec, str) and spec.startswith("shuffle(") and spec.endswith(")") and spec[8:-1].isdigit():
        return int(spec[8:-1])
    return None
