"""What letters show, made from plain values: a player's view as YAML, the dice list annotated
with what the events and the referee's overrides say of each roll, and the proofs of hidden draws.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise
from typing import Any

from referee.kit.contract import Event
from referee.protocol.canonical import canonical_json
from referee.protocol.hidden import committed_text
from referee.protocol.yamlsafe import dump


@lru_cache(maxsize=8)
def _yaml_of(canonical: bytes) -> bytes:
    return dump(json.loads(canonical)).encode("utf-8")


def view_yaml(view: Any) -> bytes:
    """Return a view as YAML; players often share a view, so identical ones are dumped once."""
    return _yaml_of(canonical_json(view))


def annotated_rolls(
    rolls: list[dict[str, Any]], events: list[Event], overrides: Sequence[dict[str, Any]] = ()
) -> list[dict[str, Any]]:
    """Return the record's rolls, each with what the events say of it (purpose, table, row) and
    what the referee's overrides did to it: `replaced_by` (a re-roll's label), `counts_as`."""
    notes = {event.data["label"]: event.data for event in events if "label" in event.data}
    chains: dict[str, list[str]] = {}  # the label the game asked for -> every label drawn for it
    for entry in overrides:
        if entry["kind"] == "reroll":
            chains.setdefault(entry["label"], [entry["label"]]).append(entry["new_label"])
    replaced_by = {old: new for labels in chains.values() for old, new in pairwise(labels)}
    asked_as = {labels[-1]: asked for asked, labels in chains.items()}
    results = {entry["label"]: entry["values"] for entry in overrides if entry["kind"] == "result"}
    annotated = []
    for roll in rolls:
        label = roll["label"]
        # The game's events name the label it asked for; they describe the draw that counted.
        asked = asked_as.get(label, None if label in replaced_by else label)
        annotated.append(
            {
                **roll,
                "note": notes.get(asked, {}) if asked else {},
                "replaced_by": replaced_by.get(label),
                "counts_as": results.get(asked) if asked else None,
            }
        )
    return annotated


def proofs(events: list[Event]) -> list[dict[str, Any]]:
    """Return the openings of hidden draws the reader's events carry, each with the exact text
    its commitment hashes after the salt (docs/protocol.md section 8)."""
    found = []
    for event in events:
        for opening in event.data.get("openings", ()):
            # The opening says the exact text committed; an opening made before it said so is version 1's.
            text = opening.get("text") or committed_text(opening["label"], opening["index"], opening["value"])
            found.append({**opening, "text": text, "check": proof_check(opening["salt"], text)})
    return found


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
