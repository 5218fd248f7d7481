"""Write the protocol test vectors, one case per file, to tests/vectors/protocol/.

Run from the project root: `python scripts/gen_vectors.py` writes the files, and
`python scripts/gen_vectors.py --check` only says whether the committed files are current.

Each file is age-style: `key: value` header lines starting with `expect:` (`success` or a
failure class), a blank line, then the body (a transcript, or the drawn values one per
line; empty for a failure). The numbers of protocol section 7 are written into this script
as published, and nothing is written if the implementation disagrees with them.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # so the script runs from a checkout without installing

from referee.protocol import dice  # noqa: E402 (after the path set-up above)
from referee.protocol.canonical import canonical_json  # noqa: E402
from referee.protocol.cards import (  # noqa: E402
    canonical_inputs,
    cards_sha256,
    definition_source,
    move_commitment,
    move_salt,
)
from referee.protocol.hidden import HiddenDraws, hidden_key  # noqa: E402
from referee.protocol.states import STATE_SCHEME, state_commitment, state_key  # noqa: E402

OUT = ROOT / "tests" / "vectors" / "protocol"
# Section 12 (decks bound to their definitions) has its own folder and numbering.
DECKS_OUT = ROOT / "tests" / "vectors" / "decks"
# Section 15 (hiding state commitments) too.
STATES_OUT = ROOT / "tests" / "vectors" / "states"
GAME_SECRET = bytes(range(32, 64))
PUBLISHED_HIDDEN_KEY = "5add747b34df96a668c2b4fc7fe897ed16587b0cc98d9b42d8308105a46fe28e"
DECK = {"rain": 3, "ambush": 2, "fog": 1, "courier": 1}  # as a game's configuration lists it
DECK_LABEL = "deck/events/shuffle-1"

SEED = bytes(range(32))
GAME, TURN, PHASE = "blenheim-1704", 3, "tempo-bid"
ORDERS = {"tallard": "a" * 64, "eugene": "b" * 64}
PUBLISHED_COMMIT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
PUBLISHED_PHASE_KEY = "249ea47f93d1bf1a37fffffdf82ac6856e733946534d308ba731fe214cefa254"
# Section 13: the randomness of drand quicknet round 123 (tests/vectors/beacon/quicknet-123.json).
BEACON = "fb8f7bc29bf24db51871ec8c79f3a1e4bd0557bc0dfcee9ed1d924e69d1c60dc"
PUBLISHED_BEACON_PHASE_KEY = "1546bf4f3f76ddaea9a95834bbf502eb1c177c5db37c736f3c058e40e7f07556"

# (file slug, label, record spec, count, values published in section 7 or None, comment)
DRAWS: list[tuple[str, str, str, int, list[int] | None, str]] = [
    (
        "draw-1d6",
        "tempo/eugene",
        "1d6",
        1,
        [3],
        "protocol section 7: one six-sided die",
    ),
    (
        "draw-2d6",
        "combat/X-vs-M/attacker",
        "2d6",
        2,
        [6, 2],
        "protocol section 7: two dice from one stream",
    ),
    (
        "draw-uniform-10-three-times",
        "events/random",
        "uniform(10)",
        3,
        [3, 8, 8],
        "protocol section 7: three uniform(10) draws from one stream, as 3d10z is recorded",
    ),
    (
        "draw-shuffle-10",
        "deck/shuffle",
        "shuffle(10)",
        10,
        [8, 1, 7, 9, 3, 6, 0, 4, 2, 5],
        "protocol section 7: Fisher-Yates shuffle of 0..9; the values are the permutation",
    ),
    (
        "draw-uniform-rejection",
        "bias/check",
        f"uniform({2**63 + 1})",
        2,
        [6452239896803130661, 1104623587392653090],
        "protocol section 7: uniform(2^63 + 1) twice; the stream's second integer is rejected",
    ),
    (
        "draw-5d10",
        "demo/d10",
        "5d10",
        5,
        None,
        "five d10 read 1-10; compare the next vector",
    ),
    (
        "draw-5d10-read-from-0",
        "demo/d10",
        "uniform(10)",
        5,
        None,
        "the same stream read 0-9 (5d10z): every value is one less than in the previous vector",
    ),
]

# (file slug, expect, label, spec, comment): draws that must be refused.
REFUSED_DRAWS: list[tuple[str, str, str, str, str]] = [
    (
        "label-with-nul",
        "bad label",
        "events/\x00random",
        "1d6",
        "a NUL inside a label would make label || 0x00 || i ambiguous",
    ),
    ("spec-zero-dice", "bad spec", "tempo/eugene", "0d6", "zero dice is not a roll"),
    (
        "spec-one-face",
        "bad spec",
        "tempo/eugene",
        "d1",
        "a die needs at least two faces",
    ),
]


def vector(headers: list[tuple[str, str]], body: str = "") -> str:
    """Return the text of one vector file from its header lines and body."""
    return "".join(f"{key}: {value}\n" for key, value in headers) + "\n" + body


def _transcript_vector() -> str:
    commit = dice.commitment(SEED)
    text = dice.transcript(GAME, TURN, PHASE, commit, ORDERS)
    key = dice.phase_key(SEED, text).hex()
    if (commit, key) != (PUBLISHED_COMMIT, PUBLISHED_PHASE_KEY):
        raise SystemExit(f"the implementation gives commit {commit}, phase key {key}: not protocol section 7's")
    headers = [
        ("expect", "success"),
        ("comment", "protocol section 7: commitment, transcript and phase key"),
        ("server_seed", SEED.hex()),
        ("game", GAME),
        ("turn", str(TURN)),
        ("phase", PHASE),
    ]
    headers += [("order", f"{player} {ORDERS[player]}") for player in sorted(ORDERS)]
    headers += [("commit", commit), ("phase_key", key)]
    return vector(headers, text.decode("utf-8"))


def _entered_order_vector() -> str:
    """Version 4 (section 13): an order the referee entered is in the record, not in the transcript."""
    commit = dice.commitment(SEED)
    own = {player: digest for player, digest in ORDERS.items() if player != "eugene"}
    text = dice.transcript(GAME, TURN, PHASE, commit, own)
    headers = [
        ("expect", "success"),
        ("comment", "protocol section 13: eugene's order was entered by the referee, so only tallard's is transcribed"),
        ("server_seed", SEED.hex()),
        ("game", GAME),
        ("turn", str(TURN)),
        ("phase", PHASE),
    ]
    headers += [("order", f"{player} {own[player]}") for player in sorted(own)]
    headers += [("entered_by_referee", f"eugene {ORDERS['eugene']}")]
    headers += [("commit", commit), ("phase_key", dice.phase_key(SEED, text).hex())]
    return vector(headers, text.decode("utf-8"))


def _beacon_transcript_vector() -> str:
    commit = dice.commitment(SEED)
    text = dice.transcript(GAME, TURN, PHASE, commit, ORDERS, BEACON)
    key = dice.phase_key(SEED, text).hex()
    if key != PUBLISHED_BEACON_PHASE_KEY:
        raise SystemExit(f"the implementation gives phase key {key} with a beacon: not protocol section 14's")
    headers = [
        ("expect", "success"),
        ("comment", "protocol section 14: the transcript and phase key of section 10's inputs with a beacon"),
        ("server_seed", SEED.hex()),
        ("game", GAME),
        ("turn", str(TURN)),
        ("phase", PHASE),
    ]
    headers += [("order", f"{player} {ORDERS[player]}") for player in sorted(ORDERS)]
    headers += [("beacon", BEACON), ("commit", commit), ("phase_key", key)]
    return vector(headers, text.decode("utf-8"))


def _bad_transcript_vector() -> str:
    headers = [
        ("expect", "bad transcript"),
        (
            "comment",
            "a space in a transcript field would let two different inputs give one transcript",
        ),
        ("server_seed", SEED.hex()),
        ("game", "blenheim 1704"),
        ("turn", str(TURN)),
        ("phase", PHASE),
    ]
    headers += [("order", f"{player} {ORDERS[player]}") for player in sorted(ORDERS)]
    return vector(headers)


def _draw_vector(label: str, spec: str, count: int, published: list[int] | None, comment: str) -> str:
    values = dice.derive(bytes.fromhex(PUBLISHED_PHASE_KEY), label, spec, count)
    if published is not None and values != published:
        raise SystemExit(f"{label} {spec}: the implementation gives {values}, protocol section 7 says {published}")
    headers = [
        ("expect", "success"),
        ("comment", comment),
        ("phase_key", PUBLISHED_PHASE_KEY),
        ("label", label),
        ("spec", spec),
    ]
    if spec.startswith("uniform("):
        headers.append(("count", str(count)))
    return vector(headers, "".join(f"{v}\n" for v in values))


def _refused_vector(expect: str, label: str, spec: str, comment: str) -> str:
    headers = [
        ("expect", expect),
        ("comment", comment),
        ("phase_key", PUBLISHED_PHASE_KEY),
    ]
    if label.isprintable():
        headers.append(("label", label))
    else:
        headers.append(("label_hex", label.encode("utf-8").hex()))
    headers.append(("spec", spec))
    return vector(headers)


def all_vectors() -> dict[str, str]:
    """Return every vector as file name -> text, numbered in a fixed order."""
    texts = [("commit-phase-key", _transcript_vector())]
    texts += [
        (slug, _draw_vector(label, spec, count, published, comment))
        for slug, label, spec, count, published, comment in DRAWS
    ]
    texts += [
        (slug, _refused_vector(expect, label, spec, comment)) for slug, expect, label, spec, comment in REFUSED_DRAWS
    ]
    texts.append(("transcript-space-in-game", _bad_transcript_vector()))
    texts.append(("v4-order-entered-by-referee", _entered_order_vector()))
    texts.append(("transcript-with-beacon", _beacon_transcript_vector()))
    return {f"{n:02d}-{slug}.txt": text for n, (slug, text) in enumerate(texts, start=1)}


def _section_8_hidden_key() -> bytes:
    transcript = dice.transcript(GAME, TURN, PHASE, dice.commitment(SEED), ORDERS)
    key = hidden_key(GAME_SECRET, transcript)
    if key.hex() != PUBLISHED_HIDDEN_KEY:
        raise SystemExit(f"the implementation gives hidden key {key.hex()}: not protocol section 8's")
    return key


def _moves(*moves: dict[str, object]) -> str:
    return "".join(canonical_json(move).decode("utf-8") + "\n" for move in moves)


def deck_vectors() -> dict[str, str]:
    """Return the vectors of protocol section 12 as file name -> text.

    `expect: success` files give what an honest referee derives; the others a record (its
    `card_moves`, one JSON object a line, after the body's shuffle line) or a reveal that a
    verifier must refuse, with the refusal's class.
    """
    key = _section_8_hidden_key()
    inputs = canonical_inputs(card for card, count in DECK.items() for _ in range(count))
    source = definition_source("events", DECK)
    deck = HiddenDraws(key, TURN, PHASE).shuffle(inputs, DECK_LABEL, source)
    base = [("hidden_key", key.hex()), ("label", DECK_LABEL), ("spec", f"shuffle({len(inputs)})")]
    salt = move_salt(key, 5)
    texts = [
        (
            "cards-sha256",
            vector(
                [
                    ("expect", "success"),
                    ("comment", "section 12: a deck definition's cards, their canonical JSON and its SHA-256"),
                    ("deck", " ".join(f"{card}x{count}" for card, count in DECK.items())),
                    ("cards_json", canonical_json(dict(sorted(DECK.items()))).decode("utf-8")),
                    ("cards_sha256", cards_sha256(DECK)),
                ],
                "".join(f"{card}\n" for card in inputs),
            ),
        ),
        (
            "shuffle-of-a-definition",
            vector(
                [
                    ("expect", "success"),
                    (
                        "comment",
                        "section 12: the deck's shuffle takes its ids sorted; the body is the card at each position",
                    ),
                    *base,
                    ("source", canonical_json(source).decode("utf-8")),
                    ("inputs", " ".join(inputs)),
                    ("commitment_0", deck.commitments[0]),
                ],
                "".join(f"{card}\n" for card in deck.values),
            ),
        ),
        (
            "secret-move",
            vector(
                [
                    ("expect", "success"),
                    ("comment", "section 12: a face-down discard at card_moves[5] commits to the position it took"),
                    ("hidden_key", key.hex()),
                    ("seq", "5"),
                    ("deck", "events"),
                    ("label", DECK_LABEL),
                    ("index", "2"),
                    ("salt", salt.hex()),
                    ("commitment", move_commitment(salt, "events", DECK_LABEL, 2)),
                ]
            ),
        ),
        (
            "inputs-not-sorted",
            vector(
                [
                    ("expect", "bad inputs"),
                    ("comment", "section 12: inputs in an order the referee chose; the final check refuses them"),
                    *base,
                    ("source", canonical_json(source).decode("utf-8")),
                    ("inputs", " ".join(reversed(inputs))),
                ]
            ),
        ),
        (
            "card-swapped",
            vector(
                [
                    ("expect", "bad inputs"),
                    ("comment", "section 12: one rain more and no courier: not the cards the source's SHA-256 names"),
                    *base,
                    ("source", canonical_json(source).decode("utf-8")),
                    ("inputs", " ".join(sorted(["rain" if card == "courier" else card for card in inputs]))),
                ]
            ),
        ),
        (
            "position-skipped",
            vector(
                [
                    ("expect", "bad move"),
                    ("comment", "section 12: the second card dealt is position 2, not the top (1)"),
                    *base,
                    ("source", canonical_json(source).decode("utf-8")),
                ],
                _moves(
                    {"deck": "events", "shuffle": DECK_LABEL},
                    {"deck": "events", "label": DECK_LABEL, "index": 0, "from": "draw", "to": "hand/eugene"},
                    {"deck": "events", "label": DECK_LABEL, "index": 2, "from": "draw", "to": "hand/tallard"},
                ),
            ),
        ),
        (
            "position-repeated",
            vector(
                [
                    ("expect", "bad move"),
                    ("comment", "section 12: position 0 dealt twice"),
                    *base,
                    ("source", canonical_json(source).decode("utf-8")),
                ],
                _moves(
                    {"deck": "events", "shuffle": DECK_LABEL},
                    {"deck": "events", "label": DECK_LABEL, "index": 0, "from": "draw", "to": "hand/eugene"},
                    {"deck": "events", "label": DECK_LABEL, "index": 0, "from": "draw", "to": "hand/tallard"},
                ),
            ),
        ),
        *card_driven_vectors(key, inputs, source),
    ]
    return {f"{n:02d}-{slug}.txt": text for n, (slug, text) in enumerate(texts, start=1)}


def card_driven_vectors(key: bytes, inputs: list[str], source: dict[str, object]) -> list[tuple[str, str]]:
    """Return the vectors of section 12's moves for card-driven games: a first shuffle that sets
    a card aside, a random take whose roll names another card, a card in play moved from the hand
    it left (a card shown from a hand stays there)."""
    aside = {"courier": 1}
    kept = [card for card in inputs if card != "courier"]
    aside_source = definition_source("events", DECK, aside)
    deck = HiddenDraws(key, TURN, PHASE).shuffle(kept, DECK_LABEL, aside_source)
    base = [("hidden_key", key.hex()), ("label", DECK_LABEL)]
    dealt = [{"deck": "events", "label": DECK_LABEL, "index": i, "from": "draw", "to": "hand/eugene"} for i in range(3)]
    return [
        (
            "set-aside-shuffle",
            vector(
                [
                    ("expect", "success"),
                    ("comment", "section 12: the courier set aside: the first shuffle takes the other six cards"),
                    *base,
                    ("spec", f"shuffle({len(kept)})"),
                    ("source", canonical_json(aside_source).decode("utf-8")),
                    ("inputs", " ".join(kept)),
                    ("commitment_0", deck.commitments[0]),
                ],
                "".join(f"{card}\n" for card in deck.values),
            ),
        ),
        (
            "set-aside-card-shuffled",
            vector(
                [
                    ("expect", "bad inputs"),
                    ("comment", "section 12: the courier said to be set aside is shuffled in too"),
                    *base,
                    ("spec", f"shuffle({len(inputs)})"),
                    ("source", canonical_json(aside_source).decode("utf-8")),
                    ("inputs", " ".join(inputs)),
                ]
            ),
        ),
        (
            "pick-not-rolled",
            vector(
                [
                    ("expect", "bad move"),
                    ("comment", "section 12: the roll picks eugene's second card (#1), the move takes his first"),
                    *base,
                    ("spec", f"shuffle({len(inputs)})"),
                    ("source", canonical_json(source).decode("utf-8")),
                    ("rolls", '[{"label":"deck/events/take-1","spec":"uniform(3)","values":[1]}]'),
                ],
                _moves(
                    {"deck": "events", "shuffle": DECK_LABEL},
                    *dealt,
                    {
                        "deck": "events",
                        "label": DECK_LABEL,
                        "index": 0,
                        "from": "hand/eugene",
                        "to": "discard",
                        "pick": "deck/events/take-1",
                    },
                ),
            ),
        ),
        (
            "in-play-played-again",
            vector(
                [
                    ("expect", "bad move"),
                    (
                        "comment",
                        "section 12: #0, shown to tallard, stays in the hand; once in play it cannot leave the hand",
                    ),
                    *base,
                    ("spec", f"shuffle({len(inputs)})"),
                    ("source", canonical_json(source).decode("utf-8")),
                ],
                _moves(
                    {"deck": "events", "shuffle": DECK_LABEL},
                    *dealt,
                    {"deck": "events", "label": DECK_LABEL, "index": 0, "from": "hand/eugene", "to": "look/tallard"},
                    {"deck": "events", "label": DECK_LABEL, "index": 0, "from": "hand/eugene", "to": "in-play"},
                    {"deck": "events", "label": DECK_LABEL, "index": 0, "from": "hand/eugene", "to": "discard"},
                ),
            ),
        ),
    ]


def _state_envelope(reserve: str) -> dict[str, object]:
    """Return a small state envelope whose one hidden leaf (red's sealed reserve) is `reserve`."""
    state = {"turn": 2, "red": {"reserve": reserve, "visible": ["guard", "line"]}, "blue": {"visible": ["line"]}}
    return {
        "game": GAME,
        "module": "cest-la-guerre",
        "module_version": "1",
        "turn": TURN,
        "phase": PHASE,
        "over": False,
        "previous": "c" * 64,
        "state": state,
    }


def state_vectors() -> dict[str, str]:
    """Return the vectors of section 15: the state key and a state's commitment, for two states
    that differ in one hidden leaf only (their plain SHA-256 would tell a guesser which)."""
    key = state_key(GAME_SECRET)
    texts = []
    for slug, reserve in (("state-commitment", "cavalry"), ("state-commitment-other-leaf", "artillery")):
        envelope = _state_envelope(reserve)
        body = canonical_json(envelope)
        headers = [
            ("expect", "success"),
            ("comment", f"protocol section 15: {STATE_SCHEME}; the body is the canonical JSON of the state envelope"),
            ("game_secret", GAME_SECRET.hex()),
            ("state_key", key.hex()),
            ("sha256", hashlib.sha256(body).hexdigest()),
            ("state_commitment", state_commitment(key, envelope)),
        ]
        texts.append((slug, vector(headers, body.decode("utf-8") + "\n")))
    return {f"{n:02d}-{slug}.txt": text for n, (slug, text) in enumerate(texts, start=1)}


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, compare) the vector files; return the process exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file is stale")
    args = parser.parse_args(argv)
    written = [_write(OUT, all_vectors(), args.check), _write(DECKS_OUT, deck_vectors(), args.check)]
    return max(*written, _write(STATES_OUT, state_vectors(), args.check))


def _write(out: Path, vectors: dict[str, str], check: bool) -> int:
    """Write the stale files of one folder (or with `check`, only name them); return the exit code."""
    stale = [
        name
        for name, text in vectors.items()
        if not (out / name).is_file() or (out / name).read_text(encoding="utf-8") != text
    ]
    extra = sorted(p.name for p in out.glob("*.txt") if p.name not in vectors) if out.is_dir() else []
    if check:
        for name in stale:
            print(f"gen_vectors: {out / name} is missing or out of date")
        for name in extra:
            print(f"gen_vectors: {out / name} is not generated by this script")
        return 1 if stale or extra else 0
    out.mkdir(parents=True, exist_ok=True)
    for name in stale:
        # newline="" keeps LF line ends on every platform: the bodies are exact bytes.
        with open(out / name, "w", encoding="utf-8", newline="") as f:
            f.write(vectors[name])
        print(f"gen_vectors: wrote {out / name}")
    for name in extra:
        print(f"gen_vectors: warning: {out / name} is not generated by this script")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
