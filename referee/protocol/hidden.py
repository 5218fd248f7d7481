"""Hidden draws (docs/protocol.md, section 8): values the record commits to without showing.

A game has one secret, `game_secret`, whose SHA-256 (`hidden_commit`) every player receives
before the first orders. A phase's *hidden key* is HMAC(game_secret, header || transcript), so
the players' orders reach it as they reach the dice, but the record does not reveal it. Each
hidden draw has its own *draw key*, HMAC(hidden_key, label): its values come from the draw
key's labelled stream, exactly as public dice come from the phase key, and value i is committed
as SHA-256(salt_i || "pbem-hidden/1 LABEL i VALUE" LF) with salt_i = HMAC(draw_key, "salt" || i).

Opening value i (its value and salt) proves it and tells nothing of the others; publishing a
draw key proves the whole draw (a finished deck); publishing the game secret, once the game is
over, proves that every draw key came from the commitment made before the first order.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.protocol.canonical import canonical_json
from referee.protocol.cards import canonical_inputs, cards_sha256, move_commitment, move_salt
from referee.protocol.dice import DiceError, Stream, check_label, derive

HIDDEN_HEADER = b"pbem-referee-hidden/1\n"
VALUE_PREFIX = "pbem-hidden/1"
# Games whose records carry `state_scheme` (section 15) commit every value as its canonical JSON
# under this prefix, so that the text "5" and the number 5 commit differently.
TYPED_VALUE_PREFIX = "pbem-hidden/2"
_WHITESPACE = re.compile(r"\s")


def game_commitment(game_secret: bytes) -> str:
    """Return the public commitment to a game's hidden secret: hex SHA-256."""
    return hashlib.sha256(game_secret).hexdigest()


def hidden_key(game_secret: bytes, transcript_bytes: bytes) -> bytes:
    """Return a phase's hidden key: the game secret over the phase's rolls transcript."""
    return hmac.digest(game_secret, HIDDEN_HEADER + transcript_bytes, "sha256")


def check_hidden_label(label: str) -> bytes:
    """Return a hidden draw's label as bytes: a dice label that also holds no whitespace,
    since it is a field of the committed line."""
    encoded = check_label(label)
    if _WHITESPACE.search(label):
        raise DiceError(f"hidden draw label {label!r} must hold no spaces")
    return encoded


def draw_key(key: bytes, label: str) -> bytes:
    """Return the key of one hidden draw: publishing it opens that draw and nothing else."""
    return hmac.digest(key, check_hidden_label(label), "sha256")


def salt(key_of_draw: bytes, index: int) -> bytes:
    """Return the salt of value `index` of a draw."""
    return hmac.digest(key_of_draw, b"salt" + index.to_bytes(8, "big"), "sha256")


def value_text(value: Any) -> str:
    """Return the text a value is committed as under `pbem-hidden/1`: a text as it is, anything
    else as canonical JSON."""
    return value if isinstance(value, str) else canonical_json(value).decode("utf-8")


def committed_text(label: str, index: int, value: Any, typed: bool = False) -> str:
    """Return the line (without its LF) that value `index` of the draw `label` is committed as:
    `pbem-hidden/2` with the value's canonical JSON when `typed`, else `pbem-hidden/1`."""
    if typed:
        return f"{TYPED_VALUE_PREFIX} {label} {index} {canonical_json(value).decode('utf-8')}"
    return f"{VALUE_PREFIX} {label} {index} {value_text(value)}"


def value_commitment(salt_bytes: bytes, label: str, index: int, value: Any, typed: bool = False) -> str:
    """Return the commitment to value `index` of the draw `label`."""
    line = committed_text(label, index, value, typed) + "\n"
    return hashlib.sha256(salt_bytes + line.encode("utf-8")).hexdigest()


def check_item(item: Any) -> str:
    """Refuse a shuffled item that is not a non-empty text without whitespace (a card's id)."""
    if not isinstance(item, str) or not item or _WHITESPACE.search(item):
        raise DiceError(f"hidden shuffle items must be ids without spaces, such as card ids; got {item!r}")
    return item


@dataclass(frozen=True)
class Hidden:
    """A hidden draw: its values, and per value the salt and the commitment in the record.

    `turn` and `phase` name the record that holds the commitments. A module keeps what it needs
    of this in its (private) state, and hands an opening to whoever may see a value.
    """

    turn: int
    phase: str
    label: str
    spec: str
    values: tuple[Any, ...]
    salts: tuple[str, ...]
    commitments: tuple[str, ...]
    typed: bool = False

    def opening(self, index: int) -> dict[str, Any]:
        """Return what proves value `index`: put it in an event's data under "openings"."""
        return {
            "turn": self.turn,
            "phase": self.phase,
            "label": self.label,
            "index": index,
            "value": self.values[index],
            "salt": self.salts[index],
            "commitment": self.commitments[index],
            "text": committed_text(self.label, index, self.values[index], self.typed),
        }

    def openings(self) -> list[dict[str, Any]]:
        """Return the opening of every value."""
        return [self.opening(i) for i in range(len(self.values))]


def derive_values(key_of_draw: bytes, label: str, spec: str, count: int, inputs: Sequence[Any] | None) -> list[Any]:
    """Return a draw's `count` values from its draw key: dice and `uniform(N)` from the stream,
    `shuffle(N)` as the inputs taken in the permuted order, `sealed(N)` as the inputs."""
    if spec.startswith("sealed("):
        return list(inputs or [])
    if spec.startswith("shuffle("):
        order = derive(key_of_draw, label, spec)
        items = list(inputs or [])
        if len(items) != len(order):
            raise DiceError(f"{label}: {spec} needs {len(order)} inputs, the reveal gives {len(items)}")
        return [items[i] for i in order]
    return derive(key_of_draw, label, spec, count)


def commit_values(
    key_of_draw: bytes, label: str, values: Sequence[Any], typed: bool = False
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return the salts (hex) and commitments of a draw's values."""
    salts = [salt(key_of_draw, i) for i in range(len(values))]
    return (
        tuple(s.hex() for s in salts),
        tuple(value_commitment(s, label, i, v, typed) for i, (s, v) in enumerate(zip(salts, values, strict=True))),
    )


def check_opening(opening: dict[str, Any], commitment: str, typed: bool = False) -> bool:
    """Return whether an opening (value and salt) matches a commitment."""
    try:
        salt_bytes = bytes.fromhex(opening["salt"])
    except (KeyError, TypeError, ValueError):
        return False
    return value_commitment(salt_bytes, opening["label"], opening["index"], opening["value"], typed) == commitment


def typed_values(record: Mapping[str, Any]) -> bool:
    """Whether a record's hidden values are committed with their type (`pbem-hidden/2`): those of
    a game whose records name states by commitments (section 15)."""
    return "state_scheme" in record


class HiddenDraws:
    """The hidden draws of one phase: what Dice delegates its hidden methods to.

    `entries` is the record's `hidden` list; `inputs` what the final reveal must publish for
    each label (a shuffle's items, a sealed draw's values), which only the journal keeps;
    `moves` the record's `card_moves` (section 12), in the order the cards moved.
    """

    def __init__(self, key: bytes | None, turn: int, phase: str, typed: bool = False) -> None:
        self._key = key
        self._turn = turn
        self._phase = phase
        self._typed = typed  # values committed with their type (section 15)
        self.entries: list[dict[str, Any]] = []
        self.inputs: dict[str, list[Any]] = {}
        self.moves: list[dict[str, Any]] = []

    def _key_of(self, label: str) -> bytes:
        if self._key is None:
            raise DiceError(
                f"hidden draw {label!r}: this game has no hidden-draw secret for turn {self._turn} "
                f"'{self._phase}' (the phase opened before the referee version that draws in secret)"
            )
        return draw_key(self._key, label)

    def _record(self, label: str, spec: str, values: list[Any], key_of_draw: bytes) -> Hidden:
        salts, commitments = commit_values(key_of_draw, label, values, self._typed)
        self.entries.append({"label": label, "spec": spec, "commitments": list(commitments)})
        return Hidden(self._turn, self._phase, label, spec, tuple(values), salts, commitments, self._typed)

    def roll(self, spec: Any, label: str) -> Hidden:
        key_of_draw = self._key_of(label)
        stream = Stream(key_of_draw, label)
        offset = 0 if spec.zero_based else 1
        values = [stream.uniform(spec.sides) + offset for _ in range(spec.count)]
        return self._record(label, spec.record_spec, values, key_of_draw)

    def uniform(self, n: int, label: str) -> Hidden:
        key_of_draw = self._key_of(label)
        return self._record(label, f"uniform({n})", [Stream(key_of_draw, label).uniform(n)], key_of_draw)

    def shuffle(self, items: Sequence[str], label: str, source: Mapping[str, Any] | None = None) -> Hidden:
        """Shuffle `items` taken in canonical order (sorted), whatever order they come in: the
        record states what was shuffled (`source`, section 12; by default the SHA-256 of the ids
        with their copies) and a deck's shuffle goes in `moves` as the start of a new draw pile."""
        checked = canonical_inputs(check_item(item) for item in items)
        key_of_draw = self._key_of(label)
        order = Stream(key_of_draw, label).shuffle(range(len(checked)))
        self.inputs[label] = checked
        stated = dict(source) if source is not None else {"cards_sha256": cards_sha256(checked)}
        deck = stated.pop("deck", None)
        hidden = self._record(label, f"shuffle({len(checked)})", [checked[i] for i in order], key_of_draw)
        self.entries[-1]["source"] = stated
        if deck is not None:
            self.moves.append({"deck": deck, "shuffle": label})
        return hidden

    def move(
        self, deck: str, position: tuple[str, int], source: str, to: str, secret: bool = False, pick: str | None = None
    ) -> None:
        """List a card of `deck` at a committed position moving from `source` to `to`; a secret
        move (a face-down discard, a card put back unseen) lists a commitment to the position;
        `pick` names the roll that chose the card from its hand."""
        label, index = position
        if not secret:
            move: dict[str, Any] = {"deck": deck, "label": label, "index": index, "from": source, "to": to}
            if pick is not None:
                move["pick"] = pick
            self.moves.append(move)
            return
        if self._key is None:
            raise DiceError(f"a secret move of a card of {deck} needs the game's hidden-draw secret")
        salt_bytes = move_salt(self._key, len(self.moves))
        commitment = move_commitment(salt_bytes, deck, label, index)
        self.moves.append({"deck": deck, "from": source, "to": to, "commitment": commitment})

    def seal(self, values: Sequence[Any], label: str) -> Hidden:
        key_of_draw = self._key_of(label)
        chosen = list(values)
        canonical_json(chosen)  # only plain data can be committed
        self.inputs[label] = chosen
        return self._record(label, f"sealed({len(chosen)})", chosen, key_of_draw)
