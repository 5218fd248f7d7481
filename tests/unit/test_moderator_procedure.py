"""Tests for moderator's sequence of play, calendar, tracks, public lists and scheduled rolls as
pure functions (games/moderator/sequence.py, tracks.py, lists.py, scheduled.py, procedure.py).
The whole procedure played through the engine is test_moderator_cockpit.py."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from games.moderator import GAME, rules
from referee.game.attendance import game_schedule
from referee.game.config import GameConfig
from referee.kit import Event, GameDataError
from referee.kit.procedure import sequence, tracks
from referee.protocol.draws import Dice
from referee.protocol.hidden import HiddenDraws

TABLES = yaml.safe_load("""\
schema_version: 1
tables:
  ennui:
    title: King's Ennui
    dice: 1d10z
    rows:
      - {range: "0-1", result: whim}
      - {range: "2-8", result: nothing}
      - {range: "9", result: bored}
""")
PLAYERS = ["france", "allies"]
SEQUENCE = [
    {"name": "french", "title": "French phase", "active": ["france"], "deadline": "48h",
     "scheduled": [{"label": "ennui", "table": "ennui", "purpose": "King's Ennui"},
                   {"label": "pox", "dice": "1d10z", "purpose": "recovery", "per": "sick"},
                   {"label": "both", "dice": "1d6", "purpose": "fixed names", "per": ["Saxe", "Lowendal"]}]},
    {"name": "allied", "active": ["allies"]},
    {"name": "battle", "active": "all", "deadline": "friday 18:00"},
]  # fmt: skip
OPTIONS = {
    "tables": TABLES,
    "sequence": SEQUENCE,
    "calendar": {"start": 1744, "per_year": ["winter", "spring", "summer", "autumn"]},
    "tracks": {
        "peace": {"title": "Peace Index", "start": 0, "min": 0, "max": 14, "ends_game_at": 14},
        "morale": {"title": "Army morale", "start": 5, "min": 0, "max": 9, "ends_game_at": 0},
        "vp": {"start": 2},
    },
    "lists": {"sick": ["Saxe"]},
}


def dice(seed: int = 0) -> Dice:
    return Dice(bytes([seed]) * 32, HiddenDraws(bytes(32), 1, "test"))


def new_state(**options: Any) -> dict[str, Any]:
    return rules.setup("open", PLAYERS, {**copy.deepcopy(OPTIONS), **options})


def resolve(state: dict[str, Any], orders: dict[str, Any], seed: int = 0) -> tuple[dict[str, Any], list[Event]]:
    return rules.resolve(state, orders, dice(seed))


# --- a game without a procedure is the game it was -----------------------------------------------


def test_a_game_without_a_procedure_keeps_its_state_view_and_title() -> None:
    state = rules.setup("open", PLAYERS, {"rounds": 2, "tables": TABLES})
    assert sorted(state) == sorted(
        ["round", "rounds", "players", "tables", "declarations", "notes", "last_rolls", "cards", "hidden_notes"]
    )
    spec = rules.phase(state)
    assert spec is not None and (spec.turn, spec.name, spec.title) == (1, "round", "round 1")
    assert "track" not in spec.schema["fields"] and "list" not in spec.schema["fields"]
    assert "turn" not in rules.view(state, "france") and "tracks" not in rules.view(state, None)
    after, events = resolve(state, {"allies": {}, "france": {}})
    assert sorted(after) == sorted(state) and events == []
    assert GAME.phase_deadlines is not None and GAME.phase_deadlines({"rounds": 2}) == {}


def test_a_state_from_before_the_procedure_resolves_as_before() -> None:
    """A state written by an older version (no cards, no hidden notes, no procedure keys)."""
    old = {"round": 1, "rounds": None, "players": ["a", "b"], "tables": {}, "declarations": [], "notes": []}
    old["last_rolls"] = []
    after, _ = resolve(old, {"a": {"note": "hello"}, "b": {}})
    assert after["round"] == 2 and "tracks" not in after and rules.check(after) == []


# --- sequence and calendar ---------------------------------------------------------------------------


def test_the_sequence_names_each_phase_its_active_players_and_calendar_title() -> None:
    state = new_state()
    seen = []
    for _ in range(5):
        spec = rules.phase(state)
        assert spec is not None
        seen.append((spec.turn, spec.name, spec.active, spec.title))
        state, _ = resolve(state, {player: {} for player in spec.active})
    assert seen == [
        (1, "french", ("france",), "winter 1744, turn 1: French phase"),
        (1, "allied", ("allies",), "winter 1744, turn 1: allied"),
        (1, "battle", ("allies", "france"), "winter 1744, turn 1: battle"),
        (2, "french", ("france",), "spring 1744, turn 2: French phase"),
        (2, "allied", ("allies",), "spring 1744, turn 2: allied"),
    ]
    assert sequence.calendar_label(state, 5) == "winter 1745"


def test_rounds_count_whole_turns_with_a_sequence() -> None:
    state = new_state(rounds=1)
    for _ in range(3):
        spec = rules.phase(state)
        assert spec is not None and spec.turn == 1
        state, _ = resolve(state, {player: {} for player in spec.active})
    assert rules.phase(state) is None and rules.check(state) == []


def test_each_phase_gives_its_own_deadline_under_the_schedules_named_ones() -> None:
    assert GAME.phase_deadlines is not None
    assert GAME.phase_deadlines(OPTIONS) == {"french": "48h", "battle": "friday 18:00"}
    config = GameConfig("g", "moderator", "t", "open", OPTIONS, None, "referee@example.org", "Referee")
    schedule = game_schedule(config, {"deadline": "72h"})
    assert [schedule.deadline_text(p) for p in ("french", "allied", "battle")] == ["48h", "72h", "friday 18:00"]
    named = GameConfig(**{**config.__dict__, "schedule": {"deadline": {"default": "24h", "french": "12h"}}})
    schedule = game_schedule(named, {})
    assert [schedule.deadline_text(p) for p in ("french", "allied", "battle")] == ["12h", "24h", "friday 18:00"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"sequence": [{"name": "a", "active": ["nobody"]}]}, r"sequence\[0\]\.active: nobody"),
        ({"sequence": [{"name": "a"}, {"name": "a"}]}, r"sequence\[1\]\.name: the phase name 'a' is used twice"),
        ({"sequence": [{"name": "a", "deadline": "soon"}]}, r"sequence\[0\]\.deadline"),
        ({"sequence": [{"name": "a", "deadline": "someday 10:00"}]}, r"sequence\[0\]\.deadline"),
        ({"sequence": [{"name": "a", "when": 1}]}, r"unknown key\(s\) when"),
        ({"sequence": [{"name": "a", "scheduled": [{"label": "x", "table": "nope", "purpose": "p"}]}]}, "no table"),
        (
            {"sequence": [{"name": "a", "scheduled": [{"label": "x", "dice": "1d6", "purpose": "p", "per": "l"}]}]},
            "list",
        ),
        ({"sequence": [{"name": "a", "scheduled": [{"label": "x", "purpose": "p"}]}]}, "table to read, or the dice"),
        ({"calendar": {"start": "1744", "per_year": ["a"]}}, "calendar.start"),
        ({"tracks": {"p": {"start": 20, "max": 14}}}, r"tracks\.p\.start"),
        ({"tracks": {"p": {"start": 0, "ends_game_at": 0}}}, "ends_game_at"),
        ({"lists": {"sick": "Saxe"}}, r"lists\.sick"),
    ],
)
def test_a_procedure_with_a_mistake_is_refused_with_its_path(change: dict[str, Any], message: str) -> None:
    with pytest.raises(GameDataError, match=message):
        new_state(**change)


def with_result(result: Any, modifiers: Any = None) -> dict[str, Any]:
    """Return the options with a table `events` whose row 9 gives `result`."""
    tables = copy.deepcopy(TABLES)
    rows = [{"range": "8-", "result": "nothing"}, {"range": "9", "result": result}]
    tables["tables"]["events"] = {"title": "Events", "dice": "1d10z", "rows": rows}
    if modifiers is not None:
        tables["tables"]["events"]["modifiers"] = modifiers
    return {"tables": tables}


def test_a_table_result_moving_a_track_the_game_lacks_is_refused_at_init_with_its_path() -> None:
    options = with_result({"text": "Peace talks", "track": {"peace-index": 1}})
    with pytest.raises(GameDataError) as refused:
        new_state(**options)
    message = str(refused.value)
    assert "tables.events.rows[1].result.track.peace-index: the game has no track 'peace-index'" in message
    assert "tracks: peace, morale, vp" in message
    # A game without tracks refuses it too; one with the track takes it.
    with pytest.raises(GameDataError, match=r"rows\[1\]\.result\.track\.peace-index.*declare them in options"):
        rules.setup("open", PLAYERS, {**options, "tracks": None})
    assert new_state(**with_result({"text": "Peace talks", "track": {"peace": 1}}))["tracks"]["peace"]["value"] == 0


def test_a_scheduled_roll_gives_a_numeric_modifier_its_value_and_a_wrong_one_is_refused() -> None:
    options = with_result("war", modifiers={"later": {"min": -5, "max": 0}})
    sequence = copy.deepcopy(SEQUENCE)
    sequence[2]["scheduled"] = [{"label": "ev", "table": "events", "purpose": "p", "modifiers": [{"later": -2}]}]
    state = new_state(**options, sequence=sequence)
    state["round"] = 3  # the battle phase
    after, events = resolve(state, {})
    (roll,) = [event for event in events if event.kind == "roll.scheduled"]
    assert roll.data["lookup"]["modifiers"] == [{"name": "later", "value": -2}]
    sequence[2]["scheduled"][0]["modifiers"] = [{"later": 3}]
    with pytest.raises(GameDataError, match=r"sequence\[2\]\.scheduled\[0\]\.modifiers: .*later"):
        new_state(**options, sequence=sequence)


def test_a_scheduled_roll_on_a_table_that_rolls_again_or_picks_is_refused_at_init() -> None:
    options = with_result({"text": "The Pox", "roll": "events"})
    sequence = copy.deepcopy(SEQUENCE)
    sequence[2]["scheduled"] = [{"label": "ev", "table": "events", "purpose": "p"}]
    with pytest.raises(GameDataError, match=r"sequence\[2\]\.scheduled\[0\]\.table: .*roll again or pick"):
        new_state(**options, sequence=sequence)
    new_state(**options)  # a player may still ask for a roll on it


# --- tracks ------------------------------------------------------------------------------------------


def test_orders_move_tracks_with_their_reasons_and_stop_at_the_bounds() -> None:
    state = new_state()
    spec = rules.phase(state)
    assert spec is not None and "track" in spec.schema["fields"] and "list" in spec.schema["fields"]
    wrong = {"track": [{"track": "nope", "change": 1, "reason": "r"}, {"track": "vp", "change": 0, "reason": "r"}]}
    assert [p.code for p in rules.validate(state, "france", wrong)] == ["illegal.unknown-track", "illegal.no-change"]
    orders = {"track": [{"track": "peace", "change": 20, "reason": "Le Roi captured (3.133)"}]}
    assert rules.validate(state, "france", orders) == []
    after, events = resolve(state, {"france": orders})
    moved = [event for event in events if event.kind == "track"]
    assert after["tracks"]["peace"]["value"] == 14
    assert moved[0].text == "Peace Index: 0 -> 14 (+20, Le Roi captured (3.133); by france); it stops at its bound 14"
    assert after["ended"] == {
        "track": "peace",
        "value": 14,
        "text": "The game ends: Peace Index reached 14 (the game ends at 14).",
        "turn": 1,
        "phase": "french",
    }
    assert events[-1].kind == "game.ended" and rules.phase(after) is None
    seen = rules.view(after, None)
    assert seen["ended"]["track"] == "peace" and (seen["turn"], seen["phase"]) == (1, "french")


def test_a_falling_track_ends_the_game_at_its_trigger_from_above() -> None:
    state = new_state()
    orders = {"track": [{"track": "morale", "change": -4, "reason": "a lost battle"}]}
    after, _ = resolve(state, {"france": orders})
    assert after["tracks"]["morale"]["value"] == 1 and after["ended"] is None
    after = {**after, "round": 1}  # the French phase again
    after, _ = resolve(after, {"france": {"track": [{"track": "morale", "change": -1, "reason": "rout"}]}})
    assert after["ended"]["track"] == "morale" and rules.phase(after) is None


def lookup_event(result: Any, label: str = "roll/france/ennui") -> Event:
    lookup = {"table": "events", "title": "Random events", "row": "7", "result": result}
    return Event("roll", "a roll", {"label": label, "lookup": lookup})


def test_a_structured_table_result_moves_its_tracks() -> None:
    tables = new_state()["tracks"]
    breakthrough = {"text": "Reach a Breakthrough", "effects": [], "track": {"peace": 1, "vp": -1}}
    moved, events = tracks.apply_rolls(tables, [lookup_event(breakthrough), lookup_event("a plain text")])
    assert (moved["peace"]["value"], moved["vp"]["value"]) == (1, 1)
    assert events[0].text == "Peace Index: 0 -> 1 (+1, Random events, row 7; by roll/france/ennui)"
    unknown, events = tracks.apply_rolls(tables, [lookup_event({"text": "t", "track": {"nope": 2}})])
    assert unknown == tables and events[0].kind == "track.unknown"


def test_a_track_out_of_bounds_after_an_override_is_a_broken_invariant() -> None:
    state = new_state()
    state["tracks"]["peace"]["value"] = 15
    assert rules.check(state) == ["track peace: 15 is outside its bounds 0 to 14"]


# --- public lists and scheduled rolls -----------------------------------------------------------------


def test_scheduled_rolls_are_made_unasked_labelled_and_one_per_listed_name() -> None:
    state = new_state()
    after, events = resolve(state, {"france": {}})
    rolled = [(event.kind, event.data["label"]) for event in events]
    assert rolled == [
        ("roll.scheduled", "scheduled/french/ennui"),
        ("roll.scheduled", "scheduled/french/pox/saxe"),
        ("roll.scheduled", "scheduled/french/both/saxe"),
        ("roll.scheduled", "scheduled/french/both/lowendal"),
    ]
    assert events[0].data["lookup"]["table"] == "ennui" and events[1].data["for"] == "Saxe"
    assert [roll["label"] for roll in after["last_rolls"]] == [label for _, label in rolled]
    # A player's own roll in the same phase shifts no scheduled roll: each has its own stream.
    asked = {"rolls": [{"label": "extra", "dice": "3d6", "purpose": "more"}]}
    _, with_roll = resolve(state, {"france": asked})
    assert [e.data["values"] for e in with_roll[:4]] == [e.data["values"] for e in events]
    # The allied phase schedules nothing.
    _, allied = resolve(after, {"allies": {}})
    assert not [e for e in allied if e.kind == "roll.scheduled"]


def test_lists_change_by_orders_and_the_scheduled_rolls_follow() -> None:
    state = new_state()
    cured = {"list": [{"list": "sick", "remove": "Saxe", "reason": "recovered"}]}
    assert rules.validate(state, "france", cured) == []
    bad = {
        "list": [{"list": "sick", "remove": "Lowendal", "reason": "r"}, {"list": "sick", "add": "Saxe", "reason": "r"}]
    }
    assert [p.code for p in rules.validate(state, "france", bad)] == ["illegal.not-listed", "illegal.listed"]
    both = {"list": [{"list": "sick", "add": "X", "remove": "Saxe", "reason": "r"}]}
    assert [p.code for p in rules.validate(state, "france", both)] == ["invalid.list-change"]
    after, events = resolve(state, {"france": cured})
    assert after["lists"]["sick"] == [] and events[-1].text == "Saxe leaves the list sick (recovered; by france)"
    again, events = resolve({**after, "round": 1}, {"france": {}})
    assert "scheduled/french/pox/saxe" not in [e.data.get("label") for e in events]
    assert rules.view(again, "allies")["lists"] == {"sick": []}


def test_names_that_read_alike_in_a_label_get_labels_of_their_own() -> None:
    alike = [{"name": "a", "scheduled": [{"label": "x", "dice": "1d6", "purpose": "p", "per": ["Saxe!", "Saxe?"]}]}]
    state = new_state(sequence=alike)
    _, events = resolve(state, {"allies": {}, "france": {}})
    assert [e.data["label"] for e in events if e.kind == "roll.scheduled"] == [
        "scheduled/a/x/saxe",
        "scheduled/a/x/saxe-2",
    ]


def test_a_track_the_referee_set_to_its_trigger_ends_the_game_when_the_phase_is_adjudicated() -> None:
    state = new_state()
    state["tracks"]["peace"]["value"] = 14  # `referee override GAMEDIR state /tracks/peace/value 14`
    assert rules.phase(state) is not None, "an override changes the game, not which phase is open"
    after, events = resolve(state, {"france": {}})
    assert after["ended"]["track"] == "peace" and rules.phase(after) is None and events[-1].kind == "game.ended"
