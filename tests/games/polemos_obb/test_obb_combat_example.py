"""The rulebook's two-turn combat example (pp. 31-36), every die fed in the book's order.

van Gelder (Dutch school: V W X Y Z) attacks de Salon (a prest: M N O P); next turn de Salon
holds the Tempo and fights on while St Joseph's horse (A B) attacks V and W. Every roll,
total, difference, result, base state, follow-up, outcome score and fall-back is checked,
then the morale phase. Dice the book does not give (the Tempo points dice, the fall of the
critical morale factor) are fed where the rules roll them and marked "not in the book".
"""

from __future__ import annotations

from typing import Any

import pytest
from obb_helpers import combat_line, event, new_game, play

from referee.kit import MissingTableError

ARMY_MORALE = {"cmf": {"dutch": 15, "bavarian": 15}}  # test values: the book's are missing
NO_SUPPORT: list[str] = []


def turn_one_contact(**options: Any) -> dict[str, Any]:
    """Play turn 1 up to van Gelder's contact phase: he wins the Tempo and moves his division for 5 + 2 TP."""
    state = new_game(**options)
    state, _, _ = play(state, {}, [5, 3])  # muster: Tempo dice for Dutch, Bavarians (not in the book)
    assert [state["armies"][a]["tp"] for a in ("dutch", "bavarian")] == [7, 5]
    state, events, _ = play(state, {"dutch": {"bid": 2}, "bavarian": {"bid": 1}})
    assert event(events, "tempo.auction").data["winner"] == "allies"
    state, _, _ = play(state, {"dutch": {"allocate": [{"general": "van-gelder", "tp": 7}]}})
    state, _, _ = play(state, {})  # no bombardment
    moves = {"moves": [{"order": "move", "brigades": ["W", "X", "Y", "Z"]}, {"order": "move", "brigades": ["V"]}]}
    state, events, _ = play(state, {"dutch": moves})
    assert [o["tp"] for o in event(events, "moves.orders").data["orders"]] == [5, 2]  # the book's 5 + 2 = 7 TP
    assert state["tp_spent"] == {"van-gelder": 7}
    assert state["step"] == "tempo-contact"
    return state


VAN_GELDER_ATTACKS = {
    "dutch": {
        "attacks": [
            {
                "division": "van-gelder",
                "target": "de-salon",
                "pairs": [["X", "M"], ["Y", "N"], ["Z", "O"]],
                "support": [{"base": "X", "by": ["W"]}],
                "rounds": [["X", "Y", "Z"], ["Y", "X"], ["Z", "Y", "X"]],
            }
        ]
    }
}
TURN_ONE_DICE = [
    *(4, 6, 4, 2, 5, 3),  # advance to contact: X 4 M 6, Y 4 N 2, Z 5 O 3
    *(5, 3),  # follow-up tests: Y 5 follows, Z 3 stays
    *(5, 6, 4, 2),  # defender response: Y 5 N 6, X 4 M 2
    5,  # X follows up
    *(5, 1, 4, 6, 4, 2),  # continuing: Z 5 O 1, Y 4 N 6, X 4 M 2
    *(6, 3),  # follow-up tests: Z 6 follows, X 3 stays
]


def test_turn_one_every_round_as_the_book() -> None:
    state = turn_one_contact()
    state, events, dice = play(state, VAN_GELDER_ATTACKS, [*TURN_ONE_DICE, 2, 5])
    encounter = event(events, "combat.encounter").data
    rounds = encounter["rounds"]
    assert [r["title"] for r in rounds] == ["advance to contact round", "defender response round", "continuing round"]

    advance, response, continuing = rounds
    assert [combat_line(c) for c in advance["combats"]] == [
        ("X", 4, ["support"], 5, "M", 6, NO_SUPPORT, 6, 1, "no-effect"),
        ("Y", 4, [], 4, "N", 2, [], 2, 2, "recoil"),
        ("Z", 5, [], 5, "O", 3, [], 3, 2, "recoil"),
    ]
    assert [c["back"] for c in advance["combats"]] == [None, "1BD", "1BD"]
    assert [c["follow_up"] for c in advance["combats"]] == [
        None,
        {"base": "Y", "roll": 5, "automatic": False, "follows": True},
        {"base": "Z", "roll": 3, "automatic": False, "follows": False},
    ]

    assert [combat_line(c) for c in response["combats"]] == [
        ("Y", 5, ["following-up"], 6, "N", 6, [], 6, 0, "no-effect"),
        ("X", 4, ["support"], 5, "M", 2, [], 2, 3, "recoil"),
    ]
    assert [c["why"] for c in response["combats"]] == ["must fight: the winner followed up", "M chooses to fight again"]
    assert response["skipped"] == [{"attacker": "Z", "defender": "O", "reason": "no longer in contact"}]
    assert response["combats"][1]["follow_up"] == {"base": "X", "roll": 5, "automatic": False, "follows": True}

    assert [combat_line(c) for c in continuing["combats"]] == [
        ("Z", 5, ["dutch-school"], 6, "O", 1, [], 1, 5, "recoil-shaken"),
        ("Y", 4, ["dutch-school"], 5, "N", 6, [], 6, 1, "no-effect"),
        ("X", 4, ["following-up", "dutch-school"], 6, "M", 2, [], 2, 4, "recoil-shaken"),
    ]
    assert continuing["combats"][0]["why"] == "Z advances back into contact"
    assert [c["follow_up"] for c in continuing["combats"]] == [
        {"base": "Z", "roll": 6, "automatic": False, "follows": True},
        None,
        {"base": "X", "roll": 3, "automatic": False, "follows": False},
    ]
    assert {b: state["bases"][b]["state"] for b in "MNOP"} == {"M": "shaken", "N": "fresh", "O": "shaken", "P": "fresh"}

    outcome = encounter["outcome"]
    lines = {d["division"]: d for d in outcome["divisions"]}
    de_salon, van_gelder = lines["de-salon"], lines["van-gelder"]
    assert (de_salon["shaken"], de_salon["recoiled"], de_salon["points"], de_salon["roll"], de_salon["score"]) == (
        ["O", "M"],
        ["N"],
        5,
        2,
        7,
    )
    assert (van_gelder["points"], van_gelder["roll"], van_gelder["score"]) == (0, 5, 5)
    assert outcome["comparisons"][0]["difference"] == 2
    assert outcome["comparisons"][0]["fall_back_bd"] == 0  # 2 - 2 = 0: de Salon sticks to the fight
    assert outcome["fall_backs"] == []
    assert outcome["continuing"] == ["e1"]
    assert [r["label"] for r in dice.rolls][:3] == ["combat/e1/1/X", "combat/e1/1/M", "combat/e1/1/Y"]


def finish_turn_one(state: dict[str, Any]) -> dict[str, Any]:
    state, _, _ = play(state, VAN_GELDER_ATTACKS, [*TURN_ONE_DICE, 2, 5])
    for _ in range(4):  # the Bavarians' half of the turn: nothing to do
        state, _, _ = play(state, {})
    state, events, _ = play(state, {}, [1, 6])  # morale; then Tempo dice for turn 2 (not in the book)
    assert event(events, "morale.none")  # no base broke: no division tests its morale
    assert state["turn"] == 2 and state["step"] == "bid"
    return state


SECOND_TURN_DICE = [
    *(2, 2, 2, 3),  # 1st continuing: N 2 Y 2, O 2 Z 3
    *(5, 1, 2, 2),  # St Joseph's advance to contact: A 5 V 1 (A follows up: cavalry), B 2 W 2
    *(1, 6, 3, 6),  # 2nd continuing: N 1 Y 6, M 3 X 6
    *(3, 3),  # St Joseph's defender response: A 3 V 3 (W declines against B)
    *(5, 3, 3, 2),  # St Joseph's continuing: A 5 V 3, B 3 W 2
    *(4, 3, 3),  # outcome: de Salon 4, van Gelder 3, St Joseph 3
]
DE_SALON_FIGHTS_ON = {
    "bavarian": {
        "engagements": [{"engagement": "e1", "rounds": [["N", "O"], ["N", "M"], []]}],
        "attacks": [
            {
                "division": "st-joseph",
                "target": "van-gelder",
                "pairs": [["A", "V"], ["B", "W"]],
                "rounds": [["A", "B"], ["A", "B"], ["A", "B"]],
            }
        ],
    }
}


def turn_two_contact(**options: Any) -> dict[str, Any]:
    state = finish_turn_one(turn_one_contact(**options))
    standing = {"respond": "fight", "bases": [{"base": "W", "respond": "decline"}]}
    state, events, _ = play(state, {"dutch": {"bid": 1, "standing": standing}, "bavarian": {"bid": 3}})
    assert event(events, "tempo.auction").data["winner"] == "franco-bavarian"
    assert event(events, "standing.orders").visible_to == ("dutch",)
    state, _, _ = play(state, {"bavarian": {"allocate": [{"general": "st-joseph", "tp": 4}]}})
    state, _, _ = play(state, {})
    moves = {"moves": [{"order": "move", "brigades": ["A"]}, {"order": "move", "brigades": ["B"]}]}
    state, _, _ = play(state, {"bavarian": moves})
    return state


def test_turn_two_interleaved_as_the_book() -> None:
    state = turn_two_contact(army_morale=ARMY_MORALE)
    state, events, _ = play(state, DE_SALON_FIGHTS_ON, SECOND_TURN_DICE)
    encounter = event(events, "combat.encounter").data
    rounds = {(r["engagement"], r["number"]): r for r in encounter["rounds"]}
    assert [(r["engagement"], r["title"]) for r in encounter["rounds"]] == [
        ("e1", "1st continuing round"),
        ("e2", "advance to contact round"),
        ("e1", "2nd continuing round"),
        ("e2", "defender response round"),
        ("e1", "3rd continuing round"),
        ("e2", "continuing round"),
    ]
    assert [combat_line(c) for c in rounds["e1", 1]["combats"]] == [
        ("N", 2, [], 2, "Y", 2, ["dutch-school"], 3, 1, "no-effect"),
        ("O", 2, ["shaken"], 1, "Z", 3, ["following-up", "dutch-school"], 5, 4, "recoil-shaken"),
    ]
    assert rounds["e1", 1]["combats"][1]["outcome"] == "broken"  # already shaken: O breaks
    assert rounds["e1", 1]["combats"][1]["back"] == "2BW"  # straight back 2BW, removed at the end of the turn
    assert [combat_line(c) for c in rounds["e2", 1]["combats"]] == [
        ("A", 5, [], 5, "V", 1, [], 1, 4, "recoil-shaken"),
        ("B", 2, [], 2, "W", 2, [], 2, 0, "no-effect"),
    ]
    assert rounds["e2", 1]["combats"][0]["follow_up"] == {"base": "A", "roll": None, "automatic": True, "follows": True}
    assert [combat_line(c) for c in rounds["e1", 2]["combats"]] == [
        ("N", 1, [], 1, "Y", 6, ["dutch-school"], 7, 6, "broken"),
        ("M", 3, ["shaken"], 2, "X", 6, ["dutch-school"], 7, 5, "recoil-shaken"),
    ]
    assert rounds["e1", 2]["combats"][1]["why"] == "M advances back into contact"
    assert [c["outcome"] for c in rounds["e1", 2]["combats"]] == ["broken", "broken"]
    assert [combat_line(c) for c in rounds["e2", 2]["combats"]] == [
        ("A", 3, ["following-up", "cavalry-against-shaken-infantry"], 5, "V", 3, ["shaken"], 2, 3, "recoil"),
    ]
    assert rounds["e2", 2]["skipped"] == [{"attacker": "B", "defender": "W", "reason": "W declines to fight again"}]
    assert rounds["e1", 3]["combats"] == [] and rounds["e1", 3]["skipped"] == []  # nobody has an opponent left
    assert [combat_line(c) for c in rounds["e2", 3]["combats"]] == [
        ("A", 5, ["following-up", "cavalry-against-shaken-infantry"], 7, "V", 3, ["shaken"], 2, 5, "recoil-shaken"),
        ("B", 3, [], 3, "W", 2, ["dutch-school"], 3, 0, "no-effect"),
    ]
    assert rounds["e2", 3]["combats"][0]["outcome"] == "broken"  # V no longer gets the Dutch +1 once shaken
    assert {b: state["bases"][b]["state"] for b in "MNOPVW"} == {
        "M": "broken",
        "N": "broken",
        "O": "broken",
        "P": "fresh",
        "V": "broken",
        "W": "fresh",
    }

    outcome = encounter["outcome"]
    scores = {d["division"]: (d["points"], d["roll"], d["score"]) for d in outcome["divisions"]}
    assert scores == {"de-salon": (9, 4, 13), "van-gelder": (3, 3, 6), "st-joseph": (0, 3, 3)}
    de_salon, st_joseph = outcome["comparisons"]
    assert (de_salon["loser"], de_salon["difference"], de_salon["fall_back_bd"]) == ("de-salon", 7, 5)
    assert (st_joseph["loser"], st_joseph["difference"], st_joseph["held"]) == ("van-gelder", 3, True)
    falls = {f["division"]: (f["bd"], f["shaken"], f["broken"]) for f in outcome["fall_backs"]}
    assert falls == {"de-salon": (5, [], []), "st-joseph": (2, [], [])}  # P back 5BD, not shaken; the horse 1BW
    assert outcome["ended"] == ["e1", "e2"] and state["engagements"] == []

    for _ in range(4):
        state, _, _ = play(state, {})
    state, events, _ = play(state, {}, [3, 4, 4, 1, 1])  # morale; the CMF die (4) and Tempo dice are not in the book
    checks = {e.data["division"]: e.data for e in events if e.kind == "morale.division"}
    assert (checks["de-salon"]["lost"], checks["de-salon"]["points"], checks["de-salon"]["roll"]) == (
        ["M", "N", "O"],
        6,
        3,
    )
    assert (checks["de-salon"]["final"], checks["de-salon"]["spent"]) == (6, True)
    assert (checks["van-gelder"]["points"], checks["van-gelder"]["final"], checks["van-gelder"]["spent"]) == (
        2,
        2,
        False,
    )
    army = event(events, "morale.army").data
    assert (army["army"], army["before"], army["roll"], army["after"]) == ("bavarian", 15, 4, 11)
    assert state["divisions"]["de-salon"]["spent"] and not state["divisions"]["van-gelder"]["spent"]
    assert {b: state["bases"][b]["state"] for b in "MNOV"} == dict.fromkeys("MNOV", "removed")


def test_a_spent_division_stops_until_army_morale_is_supplied() -> None:
    state = turn_two_contact()
    state, _, _ = play(state, DE_SALON_FIGHTS_ON, SECOND_TURN_DICE)
    for _ in range(4):
        state, _, _ = play(state, {})
    with pytest.raises(MissingTableError, match="critical morale factor") as caught:
        play(state, {}, [3, 4, 4, 1, 1])
    assert "army_morale" in caught.value.hints[0]


@pytest.mark.parametrize(("die", "final", "spent"), [(1, 4, False), (2, 4, False), (3, 6, True), (5, 8, True)])
def test_variant_with_the_outcome_dice_reversed(die: int, final: int, spent: bool) -> None:
    """The book's aside: de Salon rolls 5 and van Gelder 2, so de Salon falls back 6BD and every base is shaken."""
    state = turn_one_contact(army_morale=ARMY_MORALE)
    state, events, _ = play(state, VAN_GELDER_ATTACKS, [*TURN_ONE_DICE, 5, 2])
    outcome = event(events, "combat.encounter").data["outcome"]
    assert {d["division"]: d["score"] for d in outcome["divisions"]} == {"de-salon": 10, "van-gelder": 2}
    assert outcome["comparisons"][0]["difference"] == 8
    assert outcome["fall_backs"][0]["bd"] == 6  # 8 - 2 = 6BD, that is 3BW
    assert (outcome["fall_backs"][0]["shaken"], outcome["fall_backs"][0]["broken"]) == (["N", "P"], ["M", "O"])
    for _ in range(4):
        state, _, _ = play(state, {})
    state, events, _ = play(state, {}, [die, *([6] if spent else []), 1, 1])  # CMF and Tempo dice: not the book's
    check = event(events, "morale.division").data
    assert (check["lost"], check["shaken"], check["points"]) == (["M", "O"], ["N", "P"], 6)
    assert (check["final"], check["spent"]) == (final, spent)
