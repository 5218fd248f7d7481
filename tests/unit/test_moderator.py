"""Tests for games.moderator.rules as pure functions: validate, resolve with fixed dice, check."""

from __future__ import annotations

import copy
import hashlib
import json
import random
from typing import Any

import pytest
import yaml

from games.moderator import GAME, rules
from referee.kit import decks
from referee.kit.schema import check as check_schema_of
from referee.protocol.canonical import canonical_json
from referee.protocol.dice import Stream
from referee.protocol.draws import Dice
from referee.protocol.hidden import HiddenDraws

TABLES = yaml.safe_load("""\
schema_version: 1
tables:
  morale:
    title: Morale check
    dice: 2d6
    modifiers: {elite: 2, shaken: -2, push-up: 20, push-down: -20}
    clamp: [2, 12]
    rows:
      - {range: "2-5", result: routs}
      - {range: "6-8", result: falls back}
      - {range: "9+", result: holds}
  fire:
    title: Musketry
    dice: 1d6
    modifiers: {close-range: 1}
    columns: [line, column]
    rows:
      - {range: "1-", result: {line: no effect, column: no effect}}
      - {range: "2-3", result: {line: no effect, column: 1 hit}}
      - {range: "4-5", result: {line: 1 hit, column: 2 hits}}
      - {range: "6+", result: {line: 2 hits, column: 3 hits}}
  events:
    title: Random events
    dice: 1d10z
    rows:
      - {range: "0-4", result: quiet}
      - {range: "5-9", result: rain}
""")
MORALE_ROWS = [(2, 5, "routs"), (6, 8, "falls back"), (9, 12, "holds")]
KEY = bytes(32)


def new_state(rounds: int | None = 3, tables: Any = TABLES) -> dict[str, Any]:
    return rules.setup("open", ["carol", "alice", "bob"], {"rounds": rounds, "tables": tables})


def roll(**request: Any) -> dict[str, Any]:
    return {"label": "r", "purpose": "a test", **request}


def problem_codes(orders: dict[str, Any], state: dict[str, Any] | None = None) -> list[tuple[str, str]]:
    problems = rules.validate(state or new_state(), "alice", orders)
    assert all(p.message for p in problems)
    return [(p.code, p.path) for p in problems]


# --- setup and phase ---------------------------------------------------------------------------


def test_setup_and_phase() -> None:
    state = new_state()
    assert state["players"] == ["alice", "bob", "carol"] and state["round"] == 1
    spec = rules.phase(state)
    assert spec is not None and (spec.turn, spec.name, spec.active) == (1, "round", ("alice", "bob", "carol"))
    assert check_schema_of(rules.EXAMPLE, spec.schema) == []
    assert rules.phase({**state, "round": 4}) is None
    assert rules.phase({**new_state(rounds=None), "round": 10_000}) is not None


@pytest.mark.parametrize("rounds", [0, -1, True, "3", 2.5])
def test_setup_refuses_bad_rounds(rounds: Any) -> None:
    with pytest.raises(rules.GameDataError, match="rounds"):
        new_state(rounds=rounds)


# --- validate ----------------------------------------------------------------------------------


def test_valid_orders_have_no_problems() -> None:
    orders = {
        "rolls": [
            roll(label="a", dice="2d6"),
            roll(label="b", table="morale", modifiers=["elite", "shaken"]),
            roll(label="c", table="fire", column="line", dice="1d6"),
            roll(label="d", dice="1d10z"),
            roll(label="e", table="events"),
        ],
        "declaration": {"bid": 3},
        "note": "hello",
    }
    assert problem_codes(orders) == []
    assert problem_codes({}) == []


@pytest.mark.parametrize(
    "request_, code, path",
    [
        (roll(table="nope"), "illegal.unknown-table", "orders.rolls[0].table"),
        (roll(table="morale", modifiers=["drunk"]), "illegal.unknown-modifier", "orders.rolls[0].modifiers"),
        (roll(table="morale", modifiers=["elite", "elite"]), "illegal.duplicate-modifier", "orders.rolls[0].modifiers"),
        (roll(table="fire"), "illegal.column", "orders.rolls[0].column"),
        (roll(table="fire", column="square"), "illegal.column", "orders.rolls[0].column"),
        (roll(table="morale", column="line"), "illegal.column", "orders.rolls[0].column"),
        (roll(dice="2d6", modifiers=["elite"]), "illegal.no-table", "orders.rolls[0]"),
        (roll(dice="2d6", column="line"), "illegal.no-table", "orders.rolls[0]"),
        (roll(), "invalid.missing", "orders.rolls[0].dice"),
        (roll(dice="two dice"), "invalid.dice", "orders.rolls[0].dice"),
        (roll(dice="0d6"), "invalid.dice", "orders.rolls[0].dice"),
        (roll(table="morale", dice="1d6"), "illegal.dice-mismatch", "orders.rolls[0].dice"),
        (roll(table="events", dice="1d10"), "illegal.dice-mismatch", "orders.rolls[0].dice"),
    ],
)
def test_each_problem_code(request_: dict[str, Any], code: str, path: str) -> None:
    assert (code, path) in problem_codes({"rolls": [request_]})


def test_duplicate_label() -> None:
    orders = {"rolls": [roll(label="a", dice="1d6"), roll(label="b", dice="1d6"), roll(label="a", dice="2d6")]}
    assert problem_codes(orders) == [("illegal.duplicate-label", "orders.rolls[2].label")]


def test_no_tables_configured() -> None:
    problems = rules.validate(new_state(tables=None), "alice", {"rolls": [roll(table="morale")]})
    assert [p.code for p in problems] == ["illegal.unknown-table"]
    assert "no tables" in problems[0].message


# --- resolve with fixed dice -------------------------------------------------------------------


def resolve(orders: dict[str, Any], state: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[Any], Dice]:
    dice = Dice(KEY)
    before = state or new_state()
    new, events = rules.resolve(before, orders, dice)
    return new, events, dice


def lookups(events: list[Any]) -> dict[str, dict[str, Any]]:
    return {e.data["request"]: e.data["lookup"] for e in events if e.kind == "roll" and "lookup" in e.data}


def expected_row(total: int) -> str:
    return next(result for low, high, result in MORALE_ROWS if low <= total <= high)


def test_plain_rolls_match_the_streams() -> None:
    _, events, dice = resolve(
        {"alice": {"rolls": [roll(label="a", dice="3d6")]}, "bob": {"rolls": [roll(label="b", dice="1d20")]}}
    )
    assert [e.data["label"] for e in events] == ["roll/alice/a", "roll/bob/b"]
    stream = Stream(KEY, "roll/alice/a")
    assert events[0].data["values"] == [stream.uniform(6) + 1 for _ in range(3)]
    assert events[0].data["total"] == sum(events[0].data["values"])
    assert dice.rolls == [
        {"label": "roll/alice/a", "spec": "3d6", "values": events[0].data["values"]},
        {"label": "roll/bob/b", "spec": "1d20", "values": events[1].data["values"]},
    ]


def test_table_lookup_with_modifiers_and_clamp() -> None:
    orders = {
        "alice": {
            "rolls": [
                roll(label="plain", table="morale"),
                roll(label="elite", table="morale", modifiers=["elite", "shaken"]),
                roll(label="up", table="morale", modifiers=["push-up"]),
                roll(label="down", table="morale", modifiers=["push-down", "shaken"]),
            ]
        }
    }
    found = lookups(resolve(orders)[1])
    for name, modifiers in (("plain", 0), ("elite", 0), ("up", 20), ("down", -22)):
        lookup = found[name]
        assert lookup["table"] == "morale" and lookup["dice"] == "2d6" and len(lookup["values"]) == 2
        assert lookup["natural"] == sum(lookup["values"])
        assert lookup["modified"] == lookup["natural"] + modifiers
        assert lookup["clamped"] == min(max(lookup["modified"], 2), 12)
        assert lookup["result"] == expected_row(lookup["clamped"])
    assert found["elite"]["modifiers"] == [{"name": "elite", "value": 2}, {"name": "shaken", "value": -2}]
    assert (found["up"]["clamped"], found["up"]["result"], found["up"]["row"]) == (12, "holds", "9+")
    assert (found["down"]["clamped"], found["down"]["result"], found["down"]["row"]) == (2, "routs", "2-5")


def test_table_lookup_in_a_column() -> None:
    orders = {"bob": {"rolls": [roll(label="v", table="fire", column="column", modifiers=["close-range"])]}}
    _, events, _ = resolve(orders)
    lookup = lookups(events)["v"]
    total = lookup["values"][0] + 1
    assert lookup["clamped"] == total and lookup["column"] == "column"
    assert lookup["result"] == {2: "1 hit", 3: "1 hit", 4: "2 hits", 5: "2 hits"}.get(total, "3 hits")
    assert lookup["result"] in events[0].text


def test_a_d10_read_zero_to_nine() -> None:
    requests = [roll(label=f"e{i}", dice="1d10z") for i in range(60)]
    _, events, dice = resolve({"carol": {"rolls": requests}})
    values = [e.data["values"][0] for e in events]
    assert min(values) == 0 and max(values) == 9 and len(set(values)) == 10
    assert all(r["spec"] == "uniform(10)" for r in dice.rolls)
    assert values == [Stream(KEY, f"roll/carol/e{i}").uniform(10) for i in range(60)]
    lookup = lookups(resolve({"carol": {"rolls": [roll(label="t", table="events")]}})[1])["t"]
    assert lookup["dice"] == "1d10z" and 0 <= lookup["values"][0] <= 9
    assert lookup["result"] == ("quiet" if lookup["values"][0] <= 4 else "rain")


def test_declarations_and_notes_are_revealed() -> None:
    orders = {
        "alice": {"declaration": {"plan": "hold the ridge"}, "note": "Alice waits."},
        "bob": {"declaration": 4},
        "carol": {},
    }
    state, events, dice = resolve(orders)
    kinds = [(e.kind, e.data.get("player")) for e in events]
    assert kinds == [("declaration.revealed", "alice"), ("note", "alice"), ("declaration.revealed", "bob")]
    assert all(e.visible_to == "all" for e in events)
    assert "hold the ridge" in events[0].text and "Alice waits." in events[1].text
    assert state["declarations"] == [{"round": 1, "by": {"alice": {"plan": "hold the ridge"}, "bob": 4}}]
    assert state["notes"] == [{"round": 1, "by": {"alice": "Alice waits."}}]
    assert state["round"] == 2 and state["last_rolls"] == [] and dice.rolls == []


def test_a_round_with_no_orders() -> None:
    state, events, _ = resolve({})
    assert events == [] and state["round"] == 2 and state["declarations"] == [] and state["notes"] == []


def test_resolve_does_not_mutate_its_input() -> None:
    state = new_state()
    state["declarations"] = [{"round": 0, "by": {"bob": [1, 2]}}]
    orders = {
        "alice": {
            "rolls": [roll(label="a", table="morale", modifiers=["elite"]), roll(label="b", dice="1d10z")],
            "declaration": {"plan": ["x"]},
            "note": "n",
        },
        "bob": {"rolls": [roll(label="a", table="fire", column="line")], "declaration": [1]},
    }
    state_copy, orders_copy = copy.deepcopy(state), copy.deepcopy(orders)
    new, _, _ = resolve(orders, state)
    assert state == state_copy and orders == orders_copy
    canonical_json(new)  # the next state is plain JSON data
    assert check_state(new) == []


def check_state(state: dict[str, Any]) -> list[str]:
    return rules.check(state)


def test_view() -> None:
    state, _, _ = resolve({"alice": {"note": "hi", "rolls": [roll(label="a", dice="1d6")]}})
    view = rules.view(state, "bob")
    assert view["you"] == "bob" and view["round"] == 2 and view["tables"] == ["events", "fire", "morale"]
    assert view["notes"] == [{"round": 1, "by": {"alice": "hi"}}] and len(view["last_rolls"]) == 1
    assert rules.view(state, None)["you"] is None
    canonical_json(view)


# --- random play -------------------------------------------------------------------------------


def random_orders(chooser: Dice, state: dict[str, Any], player: str) -> dict[str, Any]:
    """Return valid orders for `player`, chosen with `chooser`."""
    n = 0

    def pick(options: list[Any]) -> Any:
        nonlocal n
        n += 1
        return options[chooser.uniform(len(options), label=f"{player}/{n}")]

    rolls = []
    for i in range(pick([0, 0, 1, 2, 3])):
        kind = pick(["dice", "morale", "fire", "events"])
        request: dict[str, Any] = {"label": f"r{i}", "purpose": f"roll {i}"}
        if kind == "dice":
            request["dice"] = pick(["1d6", "2d6", "3d6", "1d10z", "2d10z", "1d100"])
        elif kind == "morale":
            request.update(table="morale", modifiers=pick([[], ["elite"], ["shaken", "push-up"], ["push-down"]]))
        elif kind == "fire":
            request.update(table="fire", column=pick(["line", "column"]))
        else:
            request["table"] = "events"
        rolls.append(request)
    orders: dict[str, Any] = {"rolls": rolls}
    if pick([True, False]):
        orders["declaration"] = pick([1, "attack", {"bid": 2}, [1, 2], None])
    if pick([True, False]):
        orders["note"] = pick(["", "a note", "<b>bold</b>"])
    return orders


@pytest.mark.parametrize("rounds", [None, 7])
def test_random_play_keeps_the_invariants(rounds: int | None) -> None:
    state = new_state(rounds=rounds)
    played = 0
    for n in range(50):
        spec = rules.phase(state)
        if spec is None:
            break
        chooser = Dice(hashlib.sha256(f"choose {n}".encode()).digest())
        orders = {}
        for player in spec.active:
            if chooser.uniform(5, label=f"{player}/absent") == 0:
                continue  # a player who sent nothing: the default orders stand
            orders[player] = random_orders(chooser, state, player)
            assert check_schema_of(orders[player], spec.schema) == []
            assert rules.validate(state, player, orders[player]) == []
        for player in spec.active:
            orders.setdefault(player, copy.deepcopy(spec.default_orders))
        old, before, orders_before = state, copy.deepcopy(state), copy.deepcopy(orders)
        state, _ = rules.resolve(old, orders, Dice(hashlib.sha256(f"round {n}".encode()).digest()))
        assert old == before and orders == orders_before  # resolve mutated nothing
        canonical_json(state)
        assert rules.check(state) == [], (n, state)
        assert state["round"] == spec.turn + 1
        played += 1
    assert played == (rounds or 50)
    if rounds is not None:
        assert rules.phase(state) is None


def test_check_finds_broken_invariants() -> None:
    assert rules.check({**new_state(), "round": 0}) == ["round below 1"]
    assert rules.check({**new_state(rounds=2), "round": 4}) == ["round past the last round"]
    assert rules.check({**new_state(), "players": ["bob", "alice"]}) == ["players not sorted"]


def test_game_module_wiring() -> None:
    assert GAME.id == "moderator" and GAME.resolve is rules.resolve and GAME.scenarios == ("open",)


# --- decks, card actions and hidden notes ------------------------------------------------------

DECKS = {
    "strategy": {
        "title": "Strategy",
        "cards": [{"id": f"s{n:02d}", "name": f"Strategy {n:02d}"} for n in range(1, 16)],
        "hand_limit": 4,
        "deal": 3,
    },
    "intel": {"cards": [{"id": "spy", "count": 3}, {"id": "decoy", "count": 3}], "discard": "face-down", "deal": 1},
    "reserves": {"cards": [{"id": "guard"}, {"id": "line", "count": 2}], "per_player": True},
}


def hidden_dice(turn: int, seed: str = "") -> Dice:
    """Real dice for one round, hidden draws included."""
    key = hashlib.sha256(f"key {seed}{turn}".encode()).digest()
    return Dice(key, HiddenDraws(hashlib.sha256(f"hidden {seed}{turn}".encode()).digest(), turn, "round"))


def card_state(decks_option: Any = DECKS) -> dict[str, Any]:
    return rules.setup("open", ["carol", "alice", "bob"], {"decks": decks_option, "tables": TABLES})


def dealt_state() -> dict[str, Any]:
    state, _ = rules.resolve(card_state(), {}, hidden_dice(1))
    return state


def held(state: dict[str, Any], player: str, deck: str = "strategy") -> list[str]:
    return [entry["card"] for entry in state["cards"]["decks"][deck]["hands"][player]]


def test_setup_with_decks_and_a_bad_definition() -> None:
    state = card_state()
    assert sorted(state["cards"]["decks"]) == ["intel", "reserves/alice", "reserves/bob", "reserves/carol", "strategy"]
    assert state["hidden_notes"] == [] and rules.check(state) == []
    with pytest.raises(rules.GameDataError, match=r"options\.decks\.intel\.discard: must be one of"):
        card_state({"intel": {**DECKS["intel"], "discard": "open"}})
    assert new_state()["cards"] == {"definitions": {}, "decks": {}}


def test_card_actions_wait_for_round_one_to_deal() -> None:
    state = card_state()
    problems = rules.validate(state, "alice", {"cards": [{"draw": "strategy"}]})
    assert [p.code for p in problems] == ["illegal.cards.not-dealt"] and "first phase" in problems[0].message
    spec = rules.phase(state)
    assert spec is not None and "cards" not in spec.example
    assert rules.validate(state, "alice", {"hidden_note": {"id": "plan", "text": "x"}}) == []


def test_round_one_deals_before_anything_else() -> None:
    state, events = rules.resolve(card_state(), {"alice": {"rolls": [roll(label="a", dice="1d6")]}}, hidden_dice(1))
    kinds = [event.kind for event in events]
    assert kinds.index("roll") == len(kinds) - 1 and kinds[0] == "deck.shuffled"
    assert all(len(held(state, p)) == 3 and len(held(state, p, "intel")) == 1 for p in ("alice", "bob", "carol"))
    spec = rules.phase(state)
    assert spec is not None and spec.example["cards"] == [] and check_schema_of(spec.example, spec.schema) == []
    assert rules.check(state) == []


def test_card_actions_resolve_in_player_order_then_list_order() -> None:
    state = dealt_state()
    top = [entry["card"] for entry in state["cards"]["decks"]["strategy"]["draw"][:3]]
    mine = held(state, "alice")
    orders = {
        "bob": {"cards": [{"draw": "strategy"}]},
        "alice": {"cards": [{"play": mine[0], "deck": "strategy"}, {"draw": "strategy", "count": 2}]},
    }
    for player, order in orders.items():
        assert check_schema_of(order, ORDER_SCHEMA) == [] and rules.validate(state, player, order) == []
    new, events = rules.resolve(state, orders, hidden_dice(2))
    assert held(new, "alice") == [*mine[1:], *top[:2]] and held(new, "bob")[-1] == top[2]
    assert [(e.kind, e.data["player"]) for e in events] == [
        ("deck.played", "alice"),
        ("hand.drawn", "alice"),
        ("deck.drawn", "alice"),
        ("hand.drawn", "bob"),
        ("deck.drawn", "bob"),
    ]
    assert rules.check(new) == []


ORDER_SCHEMA = rules.ORDER_SCHEMA


@pytest.mark.parametrize(
    "orders, code, path",
    [
        ({"cards": [{"play": "s99", "deck": "strategy"}]}, "illegal.cards.not-held", "orders.cards[0].play"),
        ({"cards": [{"draw": "strategy", "count": 2}]}, "illegal.cards.hand-limit", "orders.cards[0].count"),
        ({"cards": [{"look": "tarot"}]}, "illegal.cards.unknown-deck", "orders.cards[0].look"),
        ({"cards": [{"draw": "reserves/bob"}]}, "illegal.cards.unknown-deck", "orders.cards[0].draw"),
        ({"cards": [{"play": "s01"}]}, "invalid.missing", "orders.cards[0].deck"),
        ({"hidden_note": {"id": "n", "text": "t", "to": ["dave"]}}, "illegal.note.player", "orders.hidden_note.to[0]"),
        (
            {"hidden_note": {"id": "n", "text": "t", "to": ["alice"]}},
            "illegal.note.to-self",
            "orders.hidden_note.to[0]",
        ),
        ({"reveal": ["nothing"]}, "illegal.note.unknown", "orders.reveal[0]"),
        ({"hidden_note": {"id": "n", "text": "t"}, "reveal": ["n"]}, "illegal.note.same-round", "orders.reveal[0]"),
    ],
)
def test_card_and_note_problems(orders: dict[str, Any], code: str, path: str) -> None:
    problems = rules.validate(dealt_state(), "alice", orders)
    assert (code, path) in [(p.code, p.path) for p in problems], problems
    assert all(p.message for p in problems)


def test_a_hidden_note_is_sealed_shown_to_its_readers_then_revealed_to_all() -> None:
    note = {"id": "plan-b", "text": "Feint left, strike right.", "to": ["bob"]}
    state, events = rules.resolve(dealt_state(), {"alice": {"hidden_note": note}}, hidden_dice(2))
    sealed, public = events
    assert (sealed.kind, sealed.visible_to, public.kind, public.visible_to) == (
        "note.hidden",
        ("alice", "bob"),
        "note.sealed",
        "all",
    )
    assert note["text"] not in json.dumps(public.as_dict()) and "plan-b" not in json.dumps(public.as_dict())
    opening = sealed.data["openings"][0]
    assert opening["label"] == "note/alice/1" and opening["value"] == note["text"]
    line = f"pbem-hidden/1 {opening['label']} 0 {note['text']}\n".encode()
    assert hashlib.sha256(bytes.fromhex(opening["salt"]) + line).hexdigest() == opening["commitment"]
    for player, sees in (("alice", True), ("bob", True), ("carol", False), (None, False)):
        shown = json.dumps(rules.view(state, player))
        assert (note["text"] in shown) == sees and ("plan-b" in shown) == sees
        assert opening["commitment"] in shown
    assert rules.validate(state, "alice", {"hidden_note": {"id": "plan-b", "text": "again"}})[0].code == (
        "illegal.note.id-used"
    )
    state, events = rules.resolve(state, {"alice": {"reveal": ["plan-b"]}}, hidden_dice(3))
    assert [(e.kind, e.visible_to) for e in events] == [("note.revealed", "all")]
    assert events[0].data["openings"] == [opening] and note["text"] in events[0].text
    assert note["text"] in json.dumps(rules.view(state, "carol"))
    assert rules.validate(state, "alice", {"reveal": ["plan-b"]})[0].code == "illegal.note.revealed"
    assert rules.secrets(state) == [s for s in rules.secrets(state) if not s[0].startswith("/hidden_notes")]
    assert rules.check(state) == []


def mark_secrets(state: dict[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """Put a marker in every secret leaf of `state` (in place); return the secrets, in order."""
    found = rules.secrets(state)
    for n, (pointer, _) in enumerate(found):
        parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
        parent: Any = state
        for part in parts[:-1]:
            parent = parent[int(part)] if isinstance(parent, list) else parent[part]
        parent[int(parts[-1]) if isinstance(parent, list) else parts[-1]] = f"SECRET{n:05d}X"
    return found


def leaks(state: dict[str, Any]) -> list[tuple[str | None, str]]:
    """Return (viewer, pointer) for every secret leaf a view shows to someone not entitled to it."""
    marked = copy.deepcopy(state)
    found = mark_secrets(marked)
    shown = {player: json.dumps(rules.view(marked, player)) for player in (*marked["players"], None)}
    return [
        (player, pointer)
        for n, (pointer, roles) in enumerate(found)
        for player, text in shown.items()
        if player not in roles and f"SECRET{n:05d}X" in text
    ]


def test_views_show_each_player_only_their_own_cards_and_notes() -> None:
    state = dealt_state()
    state, _ = rules.resolve(
        state,
        {
            "alice": {"hidden_note": {"id": "x", "text": "for bob", "to": ["bob"]}},
            "carol": {"cards": [{"discard": held(state, "carol", "intel")[0], "deck": "intel"}]},
        },
        hidden_dice(2),
    )
    assert leaks(state) == []
    bob = rules.view(state, "bob")["decks"]["strategy"]
    assert [c["card"] for c in bob["your_hand"]] == held(state, "bob")
    assert bob["hand_sizes"] == {"alice": 3, "bob": 3, "carol": 3}
    for card in held(state, "alice"):
        assert card not in json.dumps(rules.view(state, "bob")) and card not in json.dumps(rules.view(state, None))


def random_card_orders(rng: random.Random, state: dict[str, Any], player: str) -> dict[str, Any]:
    """Return card actions and notes for `player`, chosen from what their view shows."""
    mine = rules.view(state, player)
    actions: list[dict[str, Any]] = []
    for deck_id, deck in mine["decks"].items():
        ref = deck["deck"] if deck["owner"] == player and "/" in deck_id else deck_id
        if "your_hand" not in deck:
            continue
        cards = [c["card"] for c in deck["your_hand"]]
        room = (deck["hand_limit"] or 99) - len(cards)
        for card in rng.sample(cards, k=min(len(cards), rng.choice([0, 1, 2]))):
            verb = rng.choice(["play", "discard", "return", "remove"])
            actions.append(
                {
                    verb: card,
                    "deck": ref,
                    **({"to": rng.choice(["top", "bottom", "shuffle"])} if verb == "return" else {}),
                }
            )
            room += 1
        if room > 0 and rng.random() < 0.6:
            actions.append({"draw": ref, "count": rng.randint(1, min(room, 3))})
        if rng.random() < 0.2:
            actions.append({rng.choice(["look", "reshuffle", "shuffle"]): ref})
        if deck["owner"] is None and len(deck["hand_sizes"]) > 1 and decks.is_card_driven(state["cards"]):
            actions += card_driven_actions(rng, deck, ref, player, [c for c in cards if c not in used(actions)])
    orders: dict[str, Any] = {"cards": actions}
    written = [n["id"] for n in mine["hidden_notes"] if n["by"] == player]
    hidden = [n["id"] for n in mine["hidden_notes"] if n["by"] == player and n["revealed"] is None]
    if rng.random() < 0.3:
        others = [p for p in state["players"] if p != player]
        orders["hidden_note"] = {"id": f"n{len(written) + 1}", "text": f"{player} secret {len(written) + 1}"}
        orders["hidden_note"]["to"] = rng.sample(others, k=rng.randint(0, len(others)))
    if hidden and rng.random() < 0.3:
        orders["reveal"] = [rng.choice(hidden)]
    return orders


def used(actions: list[dict[str, Any]]) -> set[str]:
    return {str(value) for action in actions for verb, value in action.items() if verb not in ("deck", "to", "count")}


def card_driven_actions(
    rng: random.Random, deck: dict[str, Any], ref: str, player: str, free: list[str]
) -> list[dict[str, Any]]:
    """Return a few actions of card-driven games on a shared deck: give, show, a random take,
    a card put in play or taken out of it, set-aside cards brought in (issue 20)."""
    others = [who for who in deck["hand_sizes"] if who != player]
    limit = deck["hand_limit"] or 99
    actions: list[dict[str, Any]] = []
    if free and rng.random() < 0.25:
        card = free.pop()
        verb = rng.choice(["give", "show", "put_in_play"])
        if verb == "put_in_play":
            actions.append({"put_in_play": card, "deck": ref, "use": rng.choice(["event", "operations"])})
        elif verb == "give" and deck["hand_sizes"][(to := rng.choice(others))] < limit - 1:
            actions.append({"give": card, "deck": ref, "to": to})
        elif verb == "show":
            actions.append({"show": rng.choice([card, "hand"]), "deck": ref, "to": rng.choice(others)})
    if rng.random() < 0.2:
        source = rng.choice(others)
        if deck["hand_sizes"][source]:
            actions.append({"take": ref, "from": source, "to": rng.choice(["discard", "removed"])})
    if deck.get("in_play") and rng.random() < 0.3:
        actions.append(
            {"end_in_play": deck["in_play"][0]["card"], "deck": ref, "to": rng.choice(["discard", "removed"])}
        )
    if deck.get("set_aside") and rng.random() < 0.3:
        actions.append({"bring_in": ref, "cards": [deck["set_aside"][0]["card"]]})
    return actions


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_card_play_keeps_the_invariants_and_leaks_nothing(seed: int) -> None:
    rng = random.Random(seed)
    state = card_state()
    for turn in range(1, 13):
        spec = rules.phase(state)
        assert spec is not None
        orders = {}
        for player in spec.active:
            orders[player] = random_card_orders(rng, state, player) if turn > 1 else {}
            assert check_schema_of(orders[player], spec.schema) == []
            assert rules.validate(state, player, orders[player]) == [], (turn, player, orders[player])
        before = copy.deepcopy(state)
        new, events = rules.resolve(state, orders, hidden_dice(turn, f"{seed}/"))
        assert state == before
        state = json.loads(canonical_json(new))
        assert rules.check(state) == [], (turn, rules.check(state))
        assert leaks(state) == []
        assert not any(e.kind == "hand.skipped" for e in events)  # each player's own actions never clash
        for event in events:
            canonical_json(event.as_dict())


def test_a_game_without_decks_takes_no_card_actions() -> None:
    spec = rules.phase(new_state())
    assert spec is not None and "cards" not in spec.schema["fields"] and "hidden_note" in spec.schema["fields"]
    problems = check_schema_of({"cards": [{"draw": "strategy"}]}, spec.schema)
    assert [p.code for p in problems] == ["invalid.unknown-field"]
    assert rules.validate(new_state(), "alice", {"cards": [{"draw": "strategy"}]})[0].code == (
        "illegal.cards.unknown-deck"
    )
    spec = rules.phase(card_state())
    assert spec is not None and spec.schema is rules.PLAIN_ORDER_SCHEMA  # card_state has no roll_requests option
    spec = rules.phase({**card_state(), "roll_requests": "follow-ups"})
    assert spec is not None and spec.schema is rules.ORDER_SCHEMA


# --- a bot for the contract tests ---------------------------------------------------------------

# tests/contract/play.py can play `moderator` with decks through these (its players are alpha,
# bravo and charlie); the orders name cards in hand, so they are not public:
#     BOTS["moderator"] = [Bot("open", BOT_OPTIONS, card_bot, 8, (1, 2), False)]
BOT_OPTIONS = {
    "rounds": 8,
    "decks": {
        **DECKS,
        "spies": {"cards": [{"id": "agent", "count": 2}, {"id": "mole"}], "owner": "bravo", "deal": 1},
        # A card-driven deck: card data, cards set aside for a later period, uses.
        "events": {
            "fields": {"cp": "int", "period": ["early", "late"]},
            "uses": ["event", "operations"],
            "set_aside": {"period": ["late"]},
            "deal": 2,
            "hand_limit": 5,
            "cards": [
                {"id": f"e{n:02d}", "name": f"Event {n:02d}", "cp": n % 3 + 1, "period": "late" if n > 9 else "early"}
                | ({"text": f"Event text {n:02d}"} if n % 2 else {})
                for n in range(1, 13)
            ],
        },
    },
}


def card_bot(game: Any, state: dict[str, Any], spec: Any, role: str, rng: random.Random) -> dict[str, Any]:
    """Return orders for `role`: a hidden note in round 1, then card actions and notes chosen from
    their view (the contract tests' order maker signature)."""
    if spec.turn == 1:
        return {"hidden_note": {"id": "opening", "text": f"{role}'s opening plan"}}
    return random_card_orders(rng, state, role)


def test_the_contract_bot_plays_valid_orders() -> None:
    players = ["alpha", "bravo", "charlie"]
    state = rules.setup("open", players, BOT_OPTIONS)
    rng = random.Random(5)
    for turn in range(1, 9):
        spec = rules.phase(state)
        assert spec is not None
        orders = {player: card_bot(GAME, state, spec, player, rng) for player in players}
        assert all(rules.validate(state, p, o) == [] for p, o in orders.items())
        state = json.loads(canonical_json(rules.resolve(state, orders, hidden_dice(turn, "bot/"))[0]))
        assert rules.check(state) == [] and leaks(state) == []
    assert rules.phase(state) is None and rules.secrets(state)


# -- tables supplied mid-game (issue 15) ------------------------------------------------------


def test_a_table_supplied_mid_game_is_read_from_the_next_round() -> None:
    from games.moderator.supplies import SUPPLIES

    state = GAME.setup("open", ["alice", "bob"], {})
    assert [(w.need, w.when) for w in SUPPLIES.wanted(state)] == [("tables", "default")]
    request = {"rolls": [{"label": "m", "purpose": "morale", "table": "morale"}]}
    assert [p.code for p in GAME.validate(state, "alice", request)] != []
    table = {
        "title": "Morale",
        "dice": "1d6",
        "rows": [{"range": "1-3", "result": "runs"}, {"range": "4-6", "result": "holds"}],
    }
    new, problems = SUPPLIES.supply(state, "tables", {"morale": table})
    assert problems == [] and state["tables"] == {}
    assert GAME.validate(new, "alice", request) == []
    assert GAME.view(new, None)["tables"] == ["morale"]
    gap = {"title": "Gap", "dice": "1d6", "rows": [{"range": "1-3", "result": "x"}]}
    again, problems = SUPPLIES.supply(new, "tables", {"gap": gap, "ok": table})
    assert [p.path for p in problems] == ["data.gap"] and again == new
    _, problems = SUPPLIES.supply(new, "tables", {"t": {**table, "title": "FILL IN: the name"}})
    assert [p.path for p in problems] == ["data.t.title"]
