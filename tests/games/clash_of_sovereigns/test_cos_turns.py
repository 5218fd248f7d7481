"""Power turns, sealed reactions and the supplies: what the book's framework fixes (4.0, 6.5.5,
9.0, 10.0) and what the referee must supply before the game can start."""

from __future__ import annotations

import json

import yaml
from cos_helpers import EXAMPLES, advance, canonical, dealt_state, supplied_state

from games.clash_of_sovereigns import GAME, cards
from games.clash_of_sovereigns.turn import describe
from referee.kit import load_text
from referee.protocol.hidden import check_opening


def _operations_card(state: dict, seat: str, deck: str) -> str:
    return next(c for c in cards.hand(state, seat, deck) if "operations" in cards.card_info(state, deck, c)["uses"])


def _march(state: dict, through: list[dict], battle: dict | None = None) -> dict:
    card = _operations_card(state, "bourbon", "prussia-spain")
    op = {"activate": "Frederick", "sp": 30, "moves": through, **({"battle": battle} if battle else {})}
    return {"play": {"card": card, "as": "operations", "operations": [op]}}


def test_4_0_the_year_runs_late_winter_spring_summer_fall_winter_in_the_supplied_power_order() -> None:
    state = supplied_state(options={"first_year": 1741, "last_year": 1741})
    names = []
    for _ in range(40):
        spec = GAME.phase(state)
        if spec is None:
            break
        names.append(spec.name)
        state, _ = advance(state)
    order = EXAMPLES["power_order"]["order"]
    turns = [f"{season}-{power}" for season in ("late-winter",) for power in order]
    later = [f"{season}-{power}" for season in ("summer", "fall", "winter") for power in order]
    assert names == ["start", *turns, "spring", *later]


def test_the_start_is_held_for_the_cards_hands_power_order_and_track_starts() -> None:
    """The core holds the start (docs/supply.md) until they are supplied; a direct resolve
    (a caller that skips the hold) leaves the start open again, dealing nothing."""
    state = canonical(GAME.setup("two-players", ["bourbon", "pragmatic"], {}))
    assert GAME.supplies is not None
    wanted = {w.need: w for w in GAME.supplies.wanted(state)}
    held_for = {n for n, w in wanted.items() if w.when == "now" and w.blocks}
    assert held_for == {"cards", "hands", "power_order", "track_starts"}
    assert wanted["day_of_battle"].when == "never"  # option 22.1 off
    new, events = advance(state)
    assert new["step"] == {"kind": "start"} and new["turn"] == 2 and events[0].kind == "waiting"


def test_a_supply_is_checked_and_a_template_left_unfilled_is_refused() -> None:
    state = canonical(GAME.setup("two-players", ["bourbon", "pragmatic"], {}))
    assert GAME.supplies is not None
    template = yaml.safe_load(load_text("games.clash_of_sovereigns", "templates/cards.yaml"))["data"]
    _, problems = GAME.supplies.supply(state, "cards", template)
    assert {p.code for p in problems} == {"invalid.supply.placeholder"}
    short = {"decks": EXAMPLES["cards"]["decks"][:3]}
    assert [p.code for p in GAME.supplies.supply(state, "cards", short)[1]] == ["invalid.supply.decks"]
    crt = {**EXAMPLES["tables/crt"], "modifiers": {}}
    assert [p.code for p in GAME.supplies.supply(state, "tables/crt", crt)[1]] == ["invalid.table"]


def test_6_5_5_reactions_not_triggered_stay_sealed_and_a_triggered_one_opens_with_its_proof() -> None:
    state = dealt_state()
    orders = {
        "bourbon": _march(state, [{"to": "Kolin"}]),
        "pragmatic": {
            "reactions": {
                "intercept": [
                    {"when_enters": "Dresden", "leader": "Charles"},  # never entered: stays sealed
                    {"when_enters": "Kolin", "leader": "Batthyani"},
                ],
                "withdraw": [{"when_battle_at": "Vienna", "to": "Znaim"}],
            }
        },
    }
    _, events = advance(state, orders)
    public = json.dumps([e.as_dict() for e in events if e.visible_to == "all"])
    assert "Dresden" not in public and "Znaim" not in public and "Batthyani" in public
    sealed = next(e for e in events if e.kind == "reactions.sealed")
    assert sealed.visible_to == ("pragmatic",) and len(sealed.data["openings"]) == 31
    opened = next(e for e in events if e.kind == "reaction.opened")
    (opening,) = opened.data["openings"]
    assert opening["value"]["leader"] == "Batthyani"
    assert check_opening(opening, opening["commitment"], typed=True) or check_opening(opening, opening["commitment"])


def test_9_0_a_successful_interception_stops_the_move_and_brings_a_battle_then_the_turns_go_on() -> None:
    for seed in (b"a", b"b", b"c", b"d", b"e", b"f", b"g", b"h"):
        state = dealt_state()
        orders = {
            "bourbon": _march(state, [{"to": "Kolin"}, {"to": "Prague"}]),
            "pragmatic": {"reactions": {"intercept": [{"when_enters": "Kolin", "leader": "Charles"}]}},
        }
        new, events = advance(state, orders, seed=seed)
        result = next(e for e in events if e.kind == "interception")
        if not result.data["success"]:
            assert not new["battles"] and any(e.kind == "move" and e.data["to"] == "Prague" for e in events)
            continue
        assert [e.data["to"] for e in events if e.kind == "move"] == ["Kolin"]
        assert new["step"] == {"kind": "battle"} and new["battles"][0]["attacker"] == "austria"
        force = {"commander": "Charles", "nations": [{"nation": "austrian", "sp": 30}]}
        prussians = {"commander": "Frederick", "nations": [{"nation": "prussian", "sp": 30}]}
        after, fought = advance(new, {"pragmatic": {"force": force}, "bourbon": {"force": prussians}})
        assert any(e.kind == "battle.result" for e in fought)
        assert after["step"]["kind"] == "power" and after["step"]["index"] == state["step"]["index"] + 1
        return
    raise AssertionError("no seed gave a successful interception")


def test_10_0_a_successful_withdrawal_avoids_the_battle() -> None:
    for seed in (b"a", b"b", b"c", b"d", b"e", b"f", b"g", b"h"):
        state = dealt_state()
        orders = {
            "bourbon": _march(
                state, [{"to": "Prague", "enemy_command": True}], {"defender": "austria", "at": "Prague"}
            ),
            "pragmatic": {"reactions": {"withdraw": [{"when_battle_at": "Prague", "to": "Budweis"}]}},
        }
        new, events = advance(state, orders, seed=seed)
        withdrawal = next(e for e in events if e.kind == "withdrawal")
        assert bool(new["battles"]) is not withdrawal.data["success"]
        if withdrawal.data["success"]:
            return
    raise AssertionError("no seed gave a successful withdrawal")


def test_an_ally_seals_no_reactions_and_a_power_must_play_when_may_pass_is_off() -> None:
    state = dealt_state("four-players", {"may_pass": False})
    assert state["step"]["power"] == "prussia"
    ally = {"reactions": {"withdraw": [{"when_battle_at": "Prague", "to": "Pilsen"}]}}
    assert [p.code for p in GAME.validate(state, "france", ally)] == ["illegal.reactions.ally"]
    assert GAME.validate(state, "austria", ally) == []
    assert [p.code for p in GAME.validate(state, "prussia-spain", {})] == ["illegal.must-play"]


def test_a_battle_window_opens_to_every_seat_and_only_the_two_sides_send_forces() -> None:
    """Issue 20: where a live choice is unavoidable, the window opens to every opponent. In a
    four-player game Prussia's battle against Austria opens to all four seats; Britain/Piedmont
    (Austria's ally) and France may send nothing, and a force from them is refused."""
    state = dealt_state("four-players")
    card = _operations_card(state, "prussia-spain", "prussia-spain")
    op = {
        "activate": "Frederick",
        "sp": 30,
        "moves": [{"to": "Prague", "enemy_command": True}],
        "battle": {"defender": "austria", "at": "Prague"},
    }
    state, _ = advance(state, {"prussia-spain": {"play": {"card": card, "as": "operations", "operations": [op]}}})
    assert state["step"] == {"kind": "battle"}
    spec = GAME.phase(state)
    assert spec is not None and spec.active == ("austria", "britain-piedmont", "france", "prussia-spain")
    force = {"commander": "Charles", "nations": [{"nation": "austrian", "sp": 20}], "cavalry_sp": 0}
    assert GAME.validate(state, "britain-piedmont", {}) == []
    assert [p.code for p in GAME.validate(state, "britain-piedmont", {"force": force})] == ["illegal.field"]
    assert [p.code for p in GAME.validate(state, "austria", {})] == ["invalid.missing"]
    assert GAME.standing is not None
    awaited = {f.name: f.value for f in GAME.standing(state, "britain-piedmont")}["Awaited from you"]
    assert awaited.startswith("nothing needed: the battle at Prague")


def test_the_tracks_start_where_the_referee_supplies_them_every_track_given_once() -> None:
    """The VP, Event VP and MW set-ups are in the absent Play Book: nothing starts at an invented 0."""
    state = dealt_state()
    starts = {e["track"]: e["start"] for e in EXAMPLES["track_starts"]["starts"]}
    assert {track: entry["value"] for track, entry in state["tracks"].items()} == starts
    fresh = canonical(GAME.setup("two-players", ["bourbon", "pragmatic"], {}))
    assert GAME.supplies is not None
    short = {"starts": EXAMPLES["track_starts"]["starts"][1:]}
    assert [p.code for p in GAME.supplies.supply(fresh, "track_starts", short)[1]] == ["invalid.supply.tracks"]
    twice = {"starts": [*EXAMPLES["track_starts"]["starts"], EXAMPLES["track_starts"]["starts"][0]]}
    assert "invalid.supply.duplicate" in [p.code for p in GAME.supplies.supply(fresh, "track_starts", twice)[1]]


def test_an_opened_reaction_is_told_in_words() -> None:
    interrupt = {"card": "au-01", "when_enters": "Kolin", "raid": {"space": "Glatz", "enemy_sp": 1}}
    assert (
        describe("interrupt", interrupt)
        == "play au-01 as an interrupt when a force enters Kolin, raiding Glatz (1 enemy SP)"
    )
    assert (
        describe("intercept", {"when_enters": "Mons", "leader": "De Saxe"})
        == "De Saxe intercepts a force entering Mons"
    )
    withdraw = {"when_battle_at": "Prague", "to": "Budweis", "modifiers": ["cavalry"]}
    assert describe("withdraw", withdraw) == "withdraw to Budweis if a battle is declared at Prague, claiming cavalry"


def test_each_seats_form_names_only_the_fields_it_may_give() -> None:
    """The phase's schema takes every seat's fields; each seat's notice names only its own."""
    state = dealt_state("four-players")
    assert state["step"]["power"] == "prussia" and GAME.example is not None
    fields = {seat: GAME.example(state, seat).fields for seat in state["seats"]}  # type: ignore[union-attr]
    assert fields["prussia-spain"] == ("play", "pass", "attrition", "track", "mulligan", "end_in_play")
    assert fields["austria"] == fields["britain-piedmont"] == ("reactions", "track", "mulligan", "end_in_play")
    assert fields["france"] == ("track", "mulligan", "end_in_play")
