"""Hidden draws (docs/protocol.md section 8): commitments in the record, openings in the owner's
report, public openings checked by `verify`, partial and final reveals, and tampering caught."""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import kept_letters
import pytest

import games
from referee.errors import StateError
from referee.game.engine import adjudicate, init_game, submit
from referee.game.reveal import reveal
from referee.kit import Dice, Event, GameModule, PhaseSpec
from referee.letters.content import proof_check
from referee.protocol.dice import DiceError
from referee.protocol.draws import Dice as CoreDice
from referee.protocol.hidden import HiddenDraws, check_opening, value_commitment
from referee.protocol.signatures import NAMESPACE_ORDERS, generate_keypair, load_private_key, sign
from referee.protocol.verify import verify_game_dir

PLAYERS = ("alice", "bob")
CARDS = ["ambush", "ambush", "forced-march", "rain", "spy"]


# -- a small game that draws in secret ---------------------------------------------------


def _setup(scenario: str, players: Sequence[str], options: Mapping[str, Any]) -> dict[str, Any]:
    return {"round": 1, "players": sorted(players), "hands": {}, "strengths": {}, "shown": []}


def _phase(state: Mapping[str, Any]) -> PhaseSpec | None:
    if state["round"] > 2:
        return None
    return PhaseSpec(turn=state["round"], name="round", active=tuple(state["players"]), default_orders={})


def _resolve(state: Mapping[str, Any], orders: Mapping[str, Any], dice: Dice) -> tuple[dict[str, Any], list[Event]]:
    new = json.loads(json.dumps(state))
    events = []
    if state["round"] == 1:
        deck = dice.hidden_shuffle(CARDS, label="deck/events/shuffle-1")
        for seat, player in enumerate(new["players"]):
            new["hands"][player] = [deck.opening(seat)]
            events.append(Event("deal", f"{player} draws a card", {"openings": [deck.opening(seat)]}, (player,)))
            strength = dice.hidden_roll("1d6", label=f"strength/{player}")
            new["strengths"][player] = strength.opening(0)
            events.append(
                Event(
                    "strength",
                    f"{player}'s column is {strength.values[0]} strong",
                    {"openings": [strength.opening(0)]},
                    (player,),
                )
            )
        events.append(Event("public", "Two cards were dealt; three are left"))
    else:
        card = new["hands"]["alice"].pop()
        new["shown"].append(card)
        events.append(Event("play", f"alice plays {card['value']}", {"openings": [card]}))
    new["round"] += 1
    return new, events


def _view(state: Mapping[str, Any], player: str | None) -> dict[str, Any]:
    return {
        "round": state["round"],
        "hand": [c["value"] for c in state["hands"].get(player or "", [])],
        "strength": state["strengths"].get(player or "", {}).get("value"),
        "shown": [c["value"] for c in state["shown"]],
    }


HIDDEN_GAME = GameModule(
    id="hidden-test",
    title="Hidden test",
    version="1",
    scenarios=("open",),
    roles=lambda scenario, options: None,
    setup=_setup,
    phase=_phase,
    validate=lambda state, player, orders: [],
    resolve=_resolve,
    view=_view,
    check=lambda state: [],
)


def play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rounds: int) -> Path:
    """Return a game of `hidden-test` after `rounds` rounds (orders signed with real keys)."""
    monkeypatch.setattr(games, "GAMES", (*games.GAMES, HIDDEN_GAME))
    setup = tmp_path / "setup"
    setup.mkdir()
    keys = {}
    for player in PLAYERS:
        keys[player] = setup / player
        generate_keypair(keys[player], comment=player)
    players = "".join(f"  - {{name: {p}, email: {p}@example.org, key_file: {p}.pub}}\n" for p in PLAYERS)
    (setup / "game.yaml").write_text(
        "game: hidden-1\nmodule: hidden-test\ntitle: Hidden\nreferee: {email: ref@example.org}\nplayers:\n" + players
    )
    game_dir = tmp_path / "game"
    init_game(game_dir, setup / "game.yaml")
    for turn in range(1, rounds + 1):
        for player in PLAYERS:
            raw = f"game: hidden-1\nturn: {turn}\nphase: round\nplayer: {player}\norders: {{}}\n".encode()
            assert submit(game_dir, raw, sign(raw, load_private_key(keys[player]), NAMESPACE_ORDERS)).accepted
        adjudicate(game_dir)
    return game_dir


@pytest.fixture
def played(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Return a finished two-round game of `hidden-test`."""
    return play(tmp_path, monkeypatch, 2)


def record(game_dir: Path, turn: int) -> dict[str, Any]:
    return json.loads(next((game_dir / "records").glob(f"*-t{turn}-round.json")).read_text())


# -- the pure part -----------------------------------------------------------------------


def test_an_opening_checks_with_a_few_lines_of_independent_code() -> None:
    dice = CoreDice(b"k" * 32, HiddenDraws(b"h" * 32, 1, "round"))
    deck = dice.hidden_shuffle(CARDS, label="deck/x")
    assert sorted(deck.values) == sorted(CARDS)
    for index in range(len(CARDS)):
        opening = deck.opening(index)
        line = f"pbem-hidden/1 {opening['label']} {opening['index']} {opening['value']}\n".encode()
        assert hashlib.sha256(bytes.fromhex(opening["salt"]) + line).hexdigest() == deck.commitments[index]
    forged = {**deck.opening(0), "value": "spy" if deck.values[0] != "spy" else "rain"}
    assert not check_opening(forged, deck.commitments[0])


def test_salts_are_per_position_so_one_opening_tells_nothing_of_another() -> None:
    dice = CoreDice(b"k" * 32, HiddenDraws(b"h" * 32, 1, "round"))
    deck = dice.hidden_shuffle(CARDS, label="deck/x")
    assert len(set(deck.salts)) == len(CARDS)
    # Two copies of one card commit differently: equal commitments would give the copies away.
    copies = [i for i, card in enumerate(deck.values) if card == "ambush"]
    assert deck.commitments[copies[0]] != deck.commitments[copies[1]]


def test_the_hidden_key_mixes_in_the_orders_and_the_secret() -> None:
    key = hmac.digest(b"s" * 32, b"pbem-referee-hidden/1\ntranscript", "sha256")
    first = CoreDice(b"k" * 32, HiddenDraws(key, 1, "r")).hidden_roll("3d6", label="x")
    other = CoreDice(b"k" * 32, HiddenDraws(b"o" * 32, 1, "r")).hidden_roll("3d6", label="x")
    assert first.commitments != other.commitments
    assert value_commitment(bytes.fromhex(first.salts[0]), "x", 0, first.values[0]) == first.commitments[0]


def test_hidden_labels_are_checked_and_shared_with_public_ones() -> None:
    dice = CoreDice(b"k" * 32, HiddenDraws(b"h" * 32, 1, "round"))
    dice.roll("1d6", label="a")
    with pytest.raises(DiceError, match="already used"):
        dice.hidden_roll("1d6", label="a")
    with pytest.raises(DiceError, match="no spaces"):
        dice.seal(["x"], label="with space")
    with pytest.raises(DiceError, match="ids without spaces"):
        dice.hidden_shuffle(["two words"], label="deck")
    with pytest.raises(DiceError, match="no hidden-draw secret"):
        CoreDice(b"k" * 32).hidden_roll("1d6", label="b")


# -- through the engine ------------------------------------------------------------------


def test_the_record_commits_to_hidden_draws_and_shows_none_of_them(played: Path) -> None:
    first = record(played, 1)
    assert first["protocol"] == "pbem-referee/4"
    assert [entry["label"] for entry in first["hidden"]] == ["deck/events/shuffle-1", "strength/alice", "strength/bob"]
    assert len(first["hidden"][0]["commitments"]) == len(CARDS)
    assert {tuple(o["to"]) for o in first["opened"]} == {("alice",), ("bob",)}
    text = json.dumps(first)
    assert not any(card in text for card in CARDS)
    second = record(played, 2)
    assert second["opened"][0]["to"] == "all" and second["opened"][0]["value"] in CARDS
    assert verify_game_dir(played).ok


def test_each_player_gets_only_their_own_proofs(played: Path) -> None:
    first = record(played, 1)
    alice = kept_letters.read_text(played / "mail" / "0001-t1-round" / "alice.report.txt")
    bob = kept_letters.read_text(played / "mail" / "0001-t1-round" / "bob.report.txt")
    commitments = first["hidden"][0]["commitments"]
    assert commitments[0] in alice and commitments[0] not in bob
    assert commitments[1] in bob and commitments[1] not in alice
    assert "strength/alice #0" in alice and "strength/alice #0" not in bob
    notice = kept_letters.read_text(played / "mail" / "0001-t1-round" / "alice.notice.txt")
    assert "hidden commit" in notice


def test_a_public_opening_that_does_not_match_is_caught(played: Path) -> None:
    path = next((played / "records").glob("*-t2-round.json"))
    body = json.loads(path.read_text())
    card = body["opened"][0]["value"]
    body["opened"][0]["value"] = "spy" if card != "spy" else "rain"
    path.write_text(json.dumps(body, indent=2, sort_keys=True) + "\n")
    problems = verify_game_dir(played).problems
    assert any("do not match the commitment" in p for p in problems)


def test_final_reveal_proves_every_draw_and_a_changed_commitment_fails(played: Path, tmp_path: Path) -> None:
    with pytest.raises(StateError):  # nothing matches
        reveal(played, ["nothing/*"])
    report = verify_game_dir(played, final=True)
    assert any("no reveal gives the game secret" in p for p in report.problems)
    reveal(played, final=True)
    report = verify_game_dir(played, final=True)
    assert report.ok, report.problems
    assert report.final and report.hidden_proven == 3
    assert kept_letters.exists(played / "mail" / "reveals" / "alice.reveal-0001.txt")

    # A player's copy: records, reveals and the key, nothing else.
    copy = tmp_path / "copy"
    copy.mkdir()
    for part in ("records", "reveals", "referee.pub"):
        (shutil.copytree if (played / part).is_dir() else shutil.copy)(played / part, copy / part)
    assert verify_game_dir(copy, final=True).ok

    # One committed card altered in the record: the signature and the final proof both fail.
    path = next((copy / "records").glob("*-t1-round.json"))
    body = json.loads(path.read_text())
    body["hidden"][0]["commitments"][2] = "0" * 64
    path.write_text(json.dumps(body, indent=2, sort_keys=True) + "\n")
    problems = verify_game_dir(copy, final=True).problems
    assert any("bad signature" in p for p in problems)
    assert any("do not match their commitments" in p or "not proven" in p for p in problems)


def test_the_final_reveal_waits_for_the_end_and_a_deck_can_be_revealed_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_dir = play(tmp_path, monkeypatch, 1)
    with pytest.raises(StateError, match="not over"):
        reveal(game_dir, final=True)
    target = reveal(game_dir, ["deck/*"])
    body = json.loads(target.read_text())
    assert body["game_secret"] is None and body["draws"][0]["inputs"] == CARDS
    report = verify_game_dir(game_dir)
    assert report.ok and report.hidden_proven == 1 and not report.final
    assert not verify_game_dir(game_dir, final=True).ok


# -- sealed choices over several phases ----------------------------------------------------


def test_sealed_choices_are_shown_to_their_chooser_and_opened_for_all_when_all_are_in() -> None:
    from referee.kit import all_in, box_secrets, box_view, reveal_choices, seal_choice, sealed_box

    box = sealed_box("guard", ["marlborough", "tallard"])
    first = CoreDice(b"k" * 32, HiddenDraws(b"h" * 32, 3, "plans"))
    box, events = seal_choice(box, "tallard", {"commit": "old-guard"}, first)
    assert not all_in(box)
    private, public = events
    assert private.visible_to == ("tallard",) and "old-guard" in private.text
    assert public.visible_to == "all" and "old-guard" not in json.dumps(public.as_dict())
    assert box_view(box, "marlborough") == {"name": "guard", "chosen": ["tallard"], "waiting_for": ["marlborough"]}
    assert box_view(box, "tallard")["yours"] == {"commit": "old-guard"}
    with pytest.raises(ValueError, match="still waits for marlborough"):
        reveal_choices(box)
    with pytest.raises(ValueError, match="already sealed"):
        seal_choice(box, "tallard", "again", first)

    later = CoreDice(b"j" * 32, HiddenDraws(b"i" * 32, 4, "plans"))
    box, _ = seal_choice(box, "marlborough", "hold", later)
    choices, revealed = reveal_choices(box)
    assert choices == {"marlborough": "hold", "tallard": {"commit": "old-guard"}}
    commitments = {
        "tallard": first.hidden.entries[0]["commitments"][0],
        "marlborough": later.hidden.entries[0]["commitments"][0],
    }
    for opening in revealed.data["openings"]:
        player = opening["label"].rsplit("/", 1)[1]
        assert check_opening(opening, commitments[player])
    assert ("/box/sealed/tallard/value", ("tallard",)) in box_secrets(box, "/box")


def test_the_vectors_of_protocol_section_8() -> None:
    from referee.protocol import dice as dice_module
    from referee.protocol.hidden import draw_key, game_commitment, hidden_key

    seed, secret = bytes(range(32)), bytes(range(32, 64))
    orders = {"tallard": "a" * 64, "eugene": "b" * 64}
    script = dice_module.transcript("blenheim-1704", 3, "tempo-bid", dice_module.commitment(seed), orders)
    key = hidden_key(secret, script)
    assert game_commitment(secret) == "72dbb7336c76780023f83da4c355f2eeea85733b13d3477697917790c1229084"
    assert key.hex() == "5add747b34df96a668c2b4fc7fe897ed16587b0cc98d9b42d8308105a46fe28e"
    label = "deck/events/shuffle-1"
    assert draw_key(key, label).hex() == "46ff534e5e00f9a8dea77f35d739e44b85e9165ffe2687d6974f7c4efe7fc3f8"
    draws = HiddenDraws(key, 3, "tempo-bid")
    deck = draws.shuffle([f"c{i}" for i in range(10)], label)
    assert deck.values == ("c2", "c0", "c3", "c6", "c9", "c7", "c1", "c4", "c5", "c8")
    assert deck.salts[0] == "111a31908df439be9c846586767dc05eaec1e4e495c7445722c3574c572403ef"
    line = f"pbem-hidden/1 {label} 0 c2\n".encode()
    assert hashlib.sha256(bytes.fromhex(deck.salts[0]) + line).hexdigest() == deck.commitments[0]
    assert deck.commitments[0] == "d6ffef617a8fddf72b23146270c92b4749bed58008815037cc0b0a6b554f5858"
    strength = draws.roll(dice_module.parse_spec("2d6"), "strength/column-3")
    assert strength.values == (3, 5)
    assert strength.commitments[0] == "d3065dfbb97ae16e38156692b6712eeaf6aeaa57828db9f40f04c8a4ecd8be93"
    plan = draws.seal([{"plan": "hold"}], "sealed/plans/tallard")
    assert plan.commitments[0] == "175f55bfb676007b77d96d519a9f02c002c00ed97a41ea0ce3d8be13fc51e0f7"


def test_the_audit_replays_a_game_with_hidden_draws_and_a_rollback_keeps_them_provable(played: Path) -> None:
    from referee.game.audit import audit
    from referee.game.rollback import rollback

    assert audit(played).ok
    rollback(played, "1/round", "a test of the roll forward", forward=True)
    assert audit(played).ok
    reveal(played, final=True)
    report = verify_game_dir(played, final=True)
    assert report.ok, report.problems
    assert report.superseded == 2 and report.hidden_proven == 6


def test_a_forged_or_mangled_reveal_is_reported_not_trusted(played: Path) -> None:
    reveal(played, final=True)
    forged = played / "reveals" / "0002.json"
    forged.write_text(json.dumps({"type": "pbem-referee-reveal/1", "game_secret": "00" * 32, "draws": [1]}))
    problems = verify_game_dir(played, final=True).problems
    assert any("reveals/0002.json: no signature" in p for p in problems)
    assert any("game_secret does not hash to hidden_commit" in p for p in problems)
    assert any("each draw must be an object" in p for p in problems)


def test_the_printed_check_line_gives_the_commitment_in_a_real_shell(played: Path) -> None:
    alice = kept_letters.read_text(played / "mail" / "0001-t1-round" / "alice.report.txt")
    commitment = record(played, 1)["hidden"][0]["commitments"][0]
    check = next(line.split("check", 1)[1].strip() for line in alice.splitlines() if line.strip().startswith("check"))
    assert subprocess.run(["sh", "-c", check], capture_output=True, text=True).stdout.split() == [commitment]


@pytest.mark.parametrize(
    "text", ['pbem-hidden/1 note 0 it\'s $HOME "x" `id` \\n', "pbem-hidden/1 note 0 two\nlines\x1b[2J", "5"]
)
def test_the_check_line_works_for_any_text(text: str) -> None:
    salt = "00ff" * 8
    expected = hashlib.sha256(bytes.fromhex(salt) + text.encode() + b"\n").hexdigest()
    shown = subprocess.run(["sh", "-c", proof_check(salt, text)], capture_output=True, text=True).stdout
    assert shown.splitlines()[-1] == expected
    assert "\n" not in proof_check(salt, text) and "\x1b" not in proof_check(salt, text)


def test_a_game_begun_on_version_4_commits_values_with_their_type() -> None:
    """Section 8: under pbem-hidden/2 the text "5" and the number 5 commit differently, and the
    documented vector holds."""
    salt = bytes.fromhex("111a31908df439be9c846586767dc05eaec1e4e495c7445722c3574c572403ef")
    assert value_commitment(salt, "x", 0, "5") == value_commitment(salt, "x", 0, 5)  # version 1's ambiguity
    assert value_commitment(salt, "x", 0, "5", typed=True) != value_commitment(salt, "x", 0, 5, typed=True)
    line = b'pbem-hidden/2 deck/events/shuffle-1 0 "c2"\n'
    expected = "96768dd67b2ab4037a56d95534ecc537e9a93a44e57e9185ba4619e2238cc885"
    assert hashlib.sha256(salt + line).hexdigest() == expected
    assert value_commitment(salt, "deck/events/shuffle-1", 0, "c2", typed=True) == expected
    opening = {"label": "x", "index": 0, "value": "5", "salt": salt.hex()}
    assert check_opening(opening, value_commitment(salt, "x", 0, "5", typed=True), typed=True)
    assert not check_opening({**opening, "value": 5}, value_commitment(salt, "x", 0, "5", typed=True), typed=True)


def test_the_records_of_a_new_game_commit_typed_values(played: Path) -> None:
    first = record(played, 1)
    assert first["protocol"] == "pbem-referee/4" and "state_scheme" in first
    alice = kept_letters.read_text(played / "mail" / "0001-t1-round" / "alice.report.txt")
    assert "pbem-hidden/2 strength/alice 0 " in alice


def test_an_opened_mapping_is_shown_as_a_player_writes_it_not_as_python() -> None:
    """An opened sealed choice (Clash of Sovereigns' reactions) is a mapping: the letter shows it in
    YAML flow style; a text or a number is shown as it always was, so old letters re-render alike."""
    from referee.letters.content import proofs
    from referee.protocol.hidden import committed_text

    def opening(value: Any) -> dict[str, Any]:
        text = committed_text("reaction", 0, value)
        return {"label": "reaction", "index": 0, "value": value, "text": text, "salt": "00" * 16}

    mapping, card, number = (opening(v) for v in ({"kind": "withdraw", "army": "saxe"}, "Ligonier", 7))
    shown = [p["shown"] for p in proofs([Event("x", "x", {"openings": [mapping, card, number]}, ("a",))])]
    assert shown == ['{kind: "withdraw", army: "saxe"}', "Ligonier", 7]
