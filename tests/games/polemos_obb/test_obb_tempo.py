"""Tempo points and the sealed Tempo bids (rulebook "Tempo bidding" and "Multiplayer games").

The book's example: at Blenheim, Marlborough (8 TP, bids 5) and Eugene (6 TP, bids 3) face
Tallard (9 TP, bids 4) and Max Emanuel (5 TP, bids 1). The allies roll 1 and 4, so Eugene's
bid counts; the Franco-Bavarians roll 3 and 2, so Tallard's does. 4 beats 3: Tallard and Max
Emanuel both gain 2 TP. Every bid is paid: 3, 3, 7 and 6 TP are left.
"""

from __future__ import annotations

from typing import Any

import pytest
from obb_helpers import event, new_game, play

from games.polemos_obb import GAME
from referee.kit import MissingTableError
from referee.kit.schema import check


def army(army_id: str, title: str, lieutenant_generals: int) -> dict[str, Any]:
    """A C-in-C with some Lieutenant Generals, each with a one-base division (the book gives no order of battle)."""
    return {
        "title": title,
        "c_in_c": {"id": f"{army_id}-c-in-c", "name": title, "grade": "active"},
        "divisions": [
            {
                "id": f"{army_id}-{n}",
                "title": f"{title}'s division {n}",
                "commander": {"id": f"{army_id}-lg-{n}", "name": f"{title}'s Lt Gen {n}", "grade": "active"},
                "base": {"type": "musketeers", "class": "trained"},
                "brigades": [f"{army_id}-{n}-1"],
            }
            for n in range(1, lieutenant_generals + 1)
        ],
    }


# A stand-in for the missing Blenheim scenario, as a referee would supply it (NOT the book's order of battle).
BLENHEIM = {
    "schema_version": 1,
    "id": "blenheim-1704",
    "title": "Blenheim 1704 (test stand-in)",
    "sides": [
        {"id": "allies", "title": "The Allies", "armies": ["marlborough", "eugene"]},
        {"id": "franco-bavarians", "title": "The Franco-Bavarians", "armies": ["tallard", "max-emanuel"]},
    ],
    "armies": {
        "marlborough": army("marlborough", "Marlborough", 1),
        "eugene": army("eugene", "Eugene", 1),
        "tallard": army("tallard", "Tallard", 2),
        "max-emanuel": army("max-emanuel", "Max Emanuel", 1),
    },
}


def blenheim_bids() -> dict[str, Any]:
    """Return the state at the first bid, with the TPs the book's example holds (8, 6, 9, 5)."""
    state = new_game("blenheim-1704", scenarios={"blenheim-1704": BLENHEIM})
    state, events, _ = play(state, {}, [6, 4, 6, 3])  # 2+6, 2+4, 3+6, 2+3
    assert [a["held"] for a in event(events, "tempo.income").data["armies"]] == [8, 6, 9, 5]
    return state


def test_the_four_army_blenheim_example() -> None:
    state = blenheim_bids()
    bids = {"marlborough": {"bid": 5}, "eugene": {"bid": 3}, "tallard": {"bid": 4}, "max-emanuel": {"bid": 1}}
    state, events, dice = play(state, bids, [1, 4, 3, 2])
    auction = event(events, "tempo.auction").data
    assert [(a["chosen"], [r["roll"] for r in a["rounds"][0]]) for a in auction["ally_rolls"]] == [
        ("eugene", [1, 4]),
        ("tallard", [3, 2]),
    ]
    assert auction["side_bids"] == [
        {"side": "allies", "army": "eugene", "bid": 3},
        {"side": "franco-bavarians", "army": "tallard", "bid": 4},
    ]
    assert auction["winner"] == "franco-bavarians"
    assert {a: state["armies"][a]["tp"] for a in bids} == {
        "marlborough": 3,
        "eugene": 3,
        "tallard": 7,
        "max-emanuel": 6,
    }
    assert [r["label"] for r in dice.rolls] == [
        "tempo/ally/marlborough/1",
        "tempo/ally/eugene/1",
        "tempo/ally/tallard/1",
        "tempo/ally/max-emanuel/1",
    ]
    assert state["step"] == "tempo-command"
    assert GAME.phase(state).active == ("tallard", "max-emanuel")  # both are Tempo players


def test_allies_roll_again_while_tied() -> None:
    state = blenheim_bids()
    bids = {"marlborough": {"bid": 5}, "eugene": {"bid": 3}, "tallard": {"bid": 4}, "max-emanuel": {"bid": 1}}
    state, events, _ = play(state, bids, [4, 4, 2, 5, 3, 2])
    allies = event(events, "tempo.auction").data["ally_rolls"][0]
    assert [[r["roll"] for r in round_] for round_ in allies["rounds"]] == [[4, 4], [2, 5]]
    assert allies["chosen"] == "eugene"


def test_the_blenheim_scenario_is_not_in_the_rulebook_file() -> None:
    with pytest.raises(MissingTableError, match="pp. 48-54") as caught:
        GAME.roles("blenheim-1704", {})
    assert "scenarios.blenheim-1704" in caught.value.hints[0]


def two_armies_bidding() -> dict[str, Any]:
    state = new_game()
    state, _, _ = play(state, {}, [4, 4])  # both hold 6 TP
    return state


@pytest.mark.parametrize(
    ("draw", "winner"), [(1, "allies"), (3, "allies"), (4, "franco-bavarian"), (6, "franco-bavarian")]
)
def test_equal_bids_on_the_first_turn_go_to_the_draw(draw: int, winner: str) -> None:
    state = two_armies_bidding()
    state, events, _ = play(state, {"dutch": {"bid": 2}, "bavarian": {"bid": 2}}, [draw])
    auction = event(events, "tempo.auction").data
    assert (auction["winner"], auction["draw"]) == (winner, draw)


def test_equal_bids_later_stay_with_last_turns_tempo_side() -> None:
    state = two_armies_bidding()
    state, _, _ = play(state, {"dutch": {"bid": 1}, "bavarian": {"bid": 3}})
    for _ in range(9):
        state, _, _ = play(state, {}, [3, 3] if state["step"] == "morale" else [])
    assert (state["turn"], state["step"]) == (2, "bid")
    state, events, dice = play(state, {"dutch": {"bid": 2}, "bavarian": {"bid": 2}})
    assert event(events, "tempo.auction").data["winner"] == "franco-bavarian"
    assert dice.rolls == []


def test_the_higher_bid_wins_and_every_bid_is_paid() -> None:
    state = two_armies_bidding()
    state, events, _ = play(state, {"dutch": {"bid": 4}, "bavarian": {"bid": 1}})
    assert event(events, "tempo.auction").data["winner"] == "allies"
    assert (state["armies"]["dutch"]["tp"], state["armies"]["bavarian"]["tp"]) == (6 + 2 - 4, 6 - 1)


def test_a_bid_must_be_at_least_1_and_at_most_the_points_held() -> None:
    state = two_armies_bidding()
    spec = GAME.phase(state)
    assert [p.code for p in check({"bid": 0}, spec.schema)] == ["invalid.range"]
    assert [p.code for p in GAME.validate(state, "dutch", {"bid": 0})] == ["illegal.bid.minimum"]
    assert [p.code for p in GAME.validate(state, "dutch", {"bid": 7})] == ["illegal.bid.too-high"]
    assert GAME.validate(state, "dutch", {"bid": 6}) == []


def test_income_counts_the_c_in_c_his_own_division_and_each_lieutenant_general() -> None:
    state = new_game("danube-demo")
    state, events, _ = play(state, {}, [1, 5, 2, 2, 6, 1, 0, 6, 8, 1, 5, 3, 6, 2, 3, 4])
    income = {a["army"]: a for a in event(events, "tempo.income").data["armies"]}
    assert [p["tp"] for p in income["dutch"]["parts"]] == [1, 1, 1]  # C-in-C, the Dutch horse in person, van Gelder
    assert len(income["bavarian"]["parts"]) == 3  # C-in-C, de Salon, de Lorme: St Joseph is a Major General
    assert [a["held"] for a in income.values()] == [5, 6, 7]


def test_major_generals_count_when_the_option_says_so() -> None:
    state = new_game(major_generals_yield_tp=True)
    state, events, _ = play(state, {}, [1, 1])
    assert [a["held"] for a in event(events, "tempo.income").data["armies"]] == [3, 4]
