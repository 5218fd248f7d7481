"""Tests for moderator's roll path (games/moderator/rolls.py): numeric modifiers in roll requests,
structured results and their follow-ups, and conditional `then:` rolls and picks, all as pure
functions with real dice."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest
import yaml

from games.moderator import rules
from referee.errors import GameDataError
from referee.kit.procedure.rolls import MAX_DEPTH
from referee.kit.schema import check as check_schema_of
from referee.protocol.dice import Stream
from referee.protocol.draws import Dice
from referee.protocol.hidden import HiddenDraws

KEY = bytes(32)
TABLES = yaml.safe_load("""\
schema_version: 1
tables:
  flood-ends:
    title: Flood ends (1.253)
    dice: 1d10z
    modifiers:
      later-rolls: {min: -20, max: 0}
    effects: [flood-ends]
    rows:
      - {range: "3-", result: {text: the flood ends, effects: [flood-ends]}}
      - {range: "4+", result: the flood goes on}
  random-event:
    title: Random event
    dice: 1d6
    rows:
      - {range: "1+", result: {text: The Pox, pick: {from: leaders}, roll: pox-recovery}}
  pox-recovery:
    title: The Pox, recovery (7.02)
    dice: 1d10z
    effects: [leader-recovers, leader-dies]
    rows:
      - {range: "0-2", result: {text: recovers, effects: [leader-recovers]}}
      - {range: "3-7", result: no effect}
      - {range: "8-9", result: {text: dies, effects: [leader-dies]}}
  again:
    title: Roll again
    dice: 1d6
    rows:
      - {range: "1+", result: {text: again, roll: again}}
  fire:
    title: Musketry
    dice: 1d6
    columns: [line, column]
    rows:
      - {range: "1+", result: {line: miss, column: miss}}
  to-fire:
    title: Leads to a table with columns
    dice: 1d6
    rows:
      - {range: "1+", result: {text: fire, roll: fire}}
  to-nowhere:
    title: Leads nowhere
    dice: 1d6
    rows:
      - {range: "1+", result: {text: lost, roll: missing, pick: {from: generals}}}
""")
LEADERS = ["Saxe", "Lowendahl", "Cumberland", "Waldeck", "Batthyany"]


def new_state(**options: Any) -> dict[str, Any]:
    return rules.setup("open", ["alice", "bob"], {"tables": TABLES, "lists": {"leaders": LEADERS}, **options})


def roll(**request: Any) -> dict[str, Any]:
    return {"label": "r", "purpose": "a test", **request}


def codes(orders: dict[str, Any], state: dict[str, Any] | None = None, player: str = "alice") -> list[tuple[str, str]]:
    problems = rules.validate(state or new_state(), player, orders)
    assert all(p.message for p in problems)
    return [(p.code, p.path) for p in problems]


def messages(orders: dict[str, Any], state: dict[str, Any] | None = None) -> str:
    return " | ".join(p.message for p in rules.validate(state or new_state(), "alice", orders))


def resolve(orders: dict[str, Any], state: dict[str, Any] | None = None, key: bytes = KEY) -> tuple[Any, list[Any]]:
    return rules.resolve(state or new_state(), orders, Dice(key))


def test_numeric_modifiers_in_a_roll_request() -> None:
    later = roll(table="flood-ends", modifiers=[{"later-rolls": -2}])
    assert codes({"rolls": [later]}) == []
    _, events = resolve({"alice": {"rolls": [later]}})
    lookup = events[0].data["lookup"]
    assert lookup["modifiers"] == [{"name": "later-rolls", "value": -2}]
    assert lookup["modified"] == lookup["natural"] - 2 == Stream(KEY, "roll/alice/r").uniform(10) - 2
    assert codes({"rolls": [roll(table="flood-ends", modifiers=["later-rolls"])]}) == [
        ("illegal.modifier", "orders.rolls[0].modifiers")
    ]
    assert "needs a value from -20 to 0" in messages({"rolls": [roll(table="flood-ends", modifiers=["later-rolls"])]})
    out = roll(table="flood-ends", modifiers=[{"later-rolls": 3}])
    assert "later-rolls is 3, outside its range -20 to 0" in messages({"rolls": [out]})
    twice = roll(table="flood-ends", modifiers=[{"later-rolls": -1}, {"later-rolls": -1}])
    assert codes({"rolls": [twice]}) == [("illegal.duplicate-modifier", "orders.rolls[0].modifiers")]
    unknown = roll(table="flood-ends", modifiers=["elite"])
    assert codes({"rolls": [unknown]}) == [("illegal.unknown-modifier", "orders.rolls[0].modifiers")]
    assert "table 'flood-ends' has no modifier 'elite'; its modifiers: later-rolls" in messages({"rolls": [unknown]})


def test_a_structured_result_picks_then_rolls_each_under_its_own_label() -> None:
    """The Pox (7.02): a leader at random from the public list, then his recovery roll."""
    state, events = resolve({"alice": {"rolls": [roll(label="event", table="random-event")]}})
    first, pick, recovery = events
    assert first.data["lookup"]["result_text"] == "The Pox" and first.text.endswith("Random event: The Pox")
    assert pick.kind == "pick" and pick.data["label"] == "roll/alice/event/pick"
    order = Stream(KEY, "roll/alice/event/pick").shuffle(list(range(len(LEADERS))))
    assert pick.data["picked"] == [LEADERS[order[0]]] and pick.data["follows"] == "roll/alice/event"
    assert recovery.data["label"] == "roll/alice/event/roll" and recovery.data["request"] == "event"
    face = Stream(KEY, "roll/alice/event/roll").uniform(10)
    assert recovery.data["values"] == [face]
    assert recovery.data["lookup"]["table"] == "pox-recovery"
    assert recovery.text.startswith("alice's event, then (The Pox): rolled 1d10z")
    assert [r["label"] for r in state["last_rolls"]] == [e.data["label"] for e in events]
    assert state["last_rolls"][1] == {"label": "roll/alice/event/pick", "picked": pick.data["picked"]}


def test_a_chain_stops_after_max_depth_follow_ups() -> None:
    _, events = resolve({"bob": {"rolls": [roll(label="loop", table="again")]}})
    labels = [e.data.get("label") for e in events]
    assert labels[: MAX_DEPTH + 1] == ["roll/bob/loop" + "/roll" * depth for depth in range(MAX_DEPTH + 1)]
    assert events[-1].kind == "roll.chain-stopped" and f"stops after {MAX_DEPTH} follow-ups" in events[-1].text
    assert len(events) == MAX_DEPTH + 2


def test_conditional_rolls_follow_only_when_the_condition_holds() -> None:
    """2d6, and on 12 (here: >= 9, to meet it often) a 1d6: both branches over many labels."""
    requests = [
        roll(label=f"r{n}", dice="2d6", then=[{"if": {"total": ">= 9"}, "dice": "1d6", "purpose": "extra"}])
        for n in range(40)
    ]
    assert codes({"rolls": requests}) == []
    _, events = resolve({"alice": {"rolls": requests}})
    by_label = {e.data["label"]: e for e in events}
    met = 0
    for n in range(40):
        stream = Stream(KEY, f"roll/alice/r{n}")
        total = stream.uniform(6) + stream.uniform(6) + 2
        follow = by_label.get(f"roll/alice/r{n}/then-1")
        assert (follow is not None) == (total >= 9)
        if follow is not None:
            met += 1
            assert follow.data["because"] == f"total {total} >= 9" and follow.data["purpose"] == "extra"
            assert follow.data["values"] == [Stream(KEY, f"roll/alice/r{n}/then-1").uniform(6) + 1]
            assert follow.text.startswith(f"alice's r{n}, then (total {total} >= 9): rolled 1d6 for “extra”")
    assert 0 < met < 40


def test_conditions_on_the_result_and_its_effects() -> None:
    """The flood check of 1.253: when the flood ends, pick where it ends; when it goes on, roll again
    next turn. And the Pox: when the leader dies, pick his successor."""
    then = [
        {"if": {"result": "the flood ends"}, "pick": {"from": ["north", "south"]}},
        {"if": {"effect": "flood-ends"}, "dice": "1d6"},
        {"if": {"result": "the flood goes on", "total": "< 100"}, "dice": "1d6"},
    ]
    requests = [roll(label=f"f{n}", table="flood-ends", then=then) for n in range(30)]
    assert codes({"rolls": requests}) == []
    _, events = resolve({"alice": {"rolls": requests}})
    by_label = {e.data["label"]: e for e in events if "label" in e.data}
    for n in range(30):
        ends = Stream(KEY, f"roll/alice/f{n}").uniform(10) <= 3
        assert (f"roll/alice/f{n}/then-1" in by_label) == ends == (f"roll/alice/f{n}/then-2" in by_label)
        assert (f"roll/alice/f{n}/then-3" in by_label) != ends
        if ends:
            assert by_label[f"roll/alice/f{n}/then-1"].data["because"] == "result the flood ends"


@pytest.mark.parametrize(
    ("then", "code", "path"),
    [
        ({"dice": "1d6", "pick": {"from": ["a"]}}, "illegal.then", "orders.rolls[0].then[0]"),
        ({"if": {"total": ">= 2"}}, "invalid.missing", "orders.rolls[0].then[0]"),
        ({"if": {"total": "about 7"}, "dice": "1d6"}, "invalid.condition", "orders.rolls[0].then[0].if.total"),
        ({"if": {}, "dice": "1d6"}, "invalid.missing", "orders.rolls[0].then[0].if"),
        ({"if": {"result": "The Pox"}, "dice": "1d6"}, "illegal.condition", "orders.rolls[0].then[0].if.result"),
        ({"if": {"effect": "dies"}, "dice": "1d6"}, "illegal.condition", "orders.rolls[0].then[0].if.effect"),
        ({"table": "nope"}, "illegal.unknown-table", "orders.rolls[0].then[0].table"),
        (
            {"table": "flood-ends", "modifiers": [{"later-rolls": 1}]},
            "illegal.modifier",
            "orders.rolls[0].then[0].modifiers",
        ),
        ({"pick": {"from": "generals"}}, "illegal.pick.list", "orders.rolls[0].then[0].pick.from"),
        ({"pick": {"from": "leaders", "count": 6}}, "illegal.pick.count", "orders.rolls[0].then[0].pick.count"),
        ({"pick": {"from": {"note": "plan"}}}, "illegal.pick.note", "orders.rolls[0].then[0].pick.from"),
        ({"pick": {"from": {"list": "x"}}}, "invalid.pick", "orders.rolls[0].then[0].pick.from"),
        ({"pick": {"from": []}}, "invalid.pick", "orders.rolls[0].then[0].pick.from"),
    ],
)
def test_follow_up_problems(then: dict[str, Any], code: str, path: str) -> None:
    assert codes({"rolls": [roll(table="flood-ends", then=[then])]}) == [(code, path)]


def test_a_condition_on_the_result_names_the_tables_results() -> None:
    text = messages({"rolls": [roll(table="flood-ends", then=[{"if": {"result": "The Pox"}, "dice": "1d6"}])]})
    assert "table 'flood-ends' never gives 'The Pox'; its results: the flood ends; the flood goes on" in text
    bare = messages({"rolls": [roll(dice="1d6", then=[{"if": {"result": "x"}, "dice": "1d6"}])]})
    assert "`result` needs the roll to name a table" in bare


def test_follow_up_tables_and_lists_must_exist() -> None:
    found = codes({"rolls": [roll(table="to-nowhere"), roll(label="s", table="to-fire")]})
    assert found == [
        ("illegal.follow-up-table", "orders.rolls[0].table"),
        ("illegal.follow-up-list", "orders.rolls[0].table"),
        ("illegal.follow-up-table", "orders.rolls[1].table"),
    ]
    text = messages({"rolls": [roll(table="to-nowhere")]})
    assert "table 'to-nowhere' may roll on table 'missing', which the game does not have" in text
    assert "may pick from the list 'generals', which the game's options lack (lists: leaders)" in text


def test_the_lists_option_is_checked() -> None:
    with pytest.raises(GameDataError, match="options.lists.leaders: give the list's names"):
        new_state(lists={"leaders": ["Saxe", 3]})
    with pytest.raises(GameDataError, match="options.lists.Big List: a list's id is lower-case"):
        new_state(lists={"Big List": ["a"]})
    assert "lists" not in rules.setup("open", ["alice"], {})


def hidden_dice(turn: int) -> Dice:
    key = hashlib.sha256(f"key {turn}".encode()).digest()
    return Dice(key, HiddenDraws(hashlib.sha256(f"hidden {turn}".encode()).digest(), turn, "round"))


def test_a_pick_from_a_sealed_note_shows_the_line_to_all_and_the_item_to_its_readers() -> None:
    items = ["Saxe at Fontenoy", "Lowendahl at Bergen", "Maurice in Brussels"]
    note = {"id": "targets", "text": "\n".join(items) + "\n", "to": ["bob"]}
    state, _ = rules.resolve(new_state(), {"alice": {"hidden_note": note}}, hidden_dice(1))
    request = roll(label="strike", dice="1d6", then=[{"pick": {"from": {"note": "targets", "by": "alice"}}}])
    assert codes({"rolls": [request]}, state, "bob") == []
    assert codes({"rolls": [request]}, new_state(), "bob") == [
        ("illegal.pick.note", "orders.rolls[0].then[0].pick.from")
    ]
    state, events = rules.resolve(state, {"bob": {"rolls": [request]}}, hidden_dice(2))
    _, public, private = events
    line = public.data["lines"][0]
    picked = items[line - 1]
    assert public.visible_to == "all" and picked not in json.dumps(public.as_dict())
    assert "stays sealed until alice reveals the note" in public.text and "of 3 of alice's sealed note" in public.text
    assert private.visible_to == ("alice", "bob") and private.data["picked"] == [picked]
    assert state["last_rolls"][-1] == {"label": "roll/bob/strike/then-1", "lines": [line]}
    # Once revealed, a pick from the note is public.
    state, _ = rules.resolve(state, {"alice": {"reveal": ["targets"]}}, hidden_dice(3))
    own = roll(label="again", dice="1d6", then=[{"pick": {"from": {"note": "targets"}}, "purpose": "who"}])
    state, events = rules.resolve(state, {"alice": {"rolls": [own]}}, hidden_dice(4))
    assert [e.kind for e in events] == ["roll", "pick"] and events[1].data["picked"][0] in items


def test_a_roll_without_the_new_forms_makes_the_same_event_as_before() -> None:
    """Records of games before issue 19: same keys, same text."""
    _, events = resolve({"alice": {"rolls": [roll(label="plain", table="pox-recovery")]}})
    (event,) = events
    assert list(event.data) == ["label", "player", "request", "purpose", "dice", "values", "total", "lookup"]
    assert "result_text" not in event.data["lookup"] or isinstance(event.data["lookup"]["result"], dict)
    face = event.data["values"][0]
    assert event.text.startswith(f"alice rolled 1d10z for “a test” (plain): {face}; The Pox, recovery (7.02): ")


def random_request(rng: random.Random, n: int) -> dict[str, Any]:
    """A roll request from well- and ill-formed pieces, so that both validation and resolution run."""
    request: dict[str, Any] = {"label": f"r{n}", "purpose": "fuzz"}
    request.update(rng.choice([{"table": t} for t in TABLES["tables"]] + [{"dice": "2d6"}, {"dice": "1d10z"}]))
    if rng.random() < 0.3:
        request["modifiers"] = rng.choice([[{"later-rolls": rng.randint(-25, 2)}], ["later-rolls"], ["x"], [{"a": 1}]])
    if rng.random() < 0.2:
        request["column"] = rng.choice(["line", "column"])
    steps = []
    for _ in range(rng.randint(0, 3)):
        step: dict[str, Any] = {}
        condition = rng.choice(
            [
                {},
                {"total": rng.choice([">= 5", "< 3", 7, "!= 2", "= 0", "x"])},
                {"result": "dies"},
                {"effect": "leader-dies"},
            ]
        )
        if condition or rng.random() < 0.2:
            step["if"] = condition
        step.update(
            rng.choice(
                [
                    {"dice": "1d6"},
                    {"table": rng.choice(list(TABLES["tables"]))},
                    {"pick": {"from": rng.choice(["leaders", "nobody", LEADERS[:2], {"note": "n"}])}},
                    {"pick": {"from": "leaders", "count": rng.randint(1, 7)}},
                ]
            )
        )
        steps.append(step)
    if steps:
        request["then"] = steps
    return request


@pytest.mark.parametrize("seed", range(4))
def test_random_follow_ups_validate_or_resolve_cleanly(seed: int) -> None:
    rng = random.Random(seed)
    state = new_state()
    schema = rules.phase(state).schema  # type: ignore[union-attr]
    resolved = 0
    for n in range(150):
        orders = {"rolls": [random_request(rng, n)]}
        if check_schema_of(orders, schema) or rules.validate(state, "alice", orders):
            continue
        state, events = rules.resolve(state, {"alice": orders}, Dice(rng.randbytes(32)))
        assert rules.check(state) == [] and events
        labels = [e.data["label"] for e in events if "label" in e.data]
        assert len(labels) == len(set(labels)) and all(label.startswith(f"roll/alice/r{n}") for label in labels)
        resolved += 1
    assert resolved > 10
