"""The book's readings new games take (issue 17): each case derived from the rulebook's text, run both
ways, for a new game (NEW_GAME_OPTIONS) and for a game begun before (no such options: its rules kept).

The book's lines cited are those of the rulebook file (shared/seeds/004_*.txt) as the extraction
(shared/rules/polemos-obb.md) numbers them.
"""

from __future__ import annotations

from typing import Any

from obb_helpers import combat_line, event, new_game, play

from games.polemos_obb.command import priced_moves
from games.polemos_obb.options import NEW_GAME_OPTIONS
from referee.kit import Event

NEW = dict(NEW_GAME_OPTIONS)
OLD: dict[str, Any] = {}


def contact_phase(options: dict[str, Any], bavarian_standing: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play turn 1 of the combat example up to van Gelder's contact phase (his division moved, 7 TP)."""
    state = new_game(**options)
    state, _, _ = play(state, {}, [5, 3])  # muster: Tempo dice (not in the book)
    bavarian: dict[str, Any] = {"bid": 1}
    if bavarian_standing:
        bavarian["standing"] = bavarian_standing
    state, _, _ = play(state, {"dutch": {"bid": 2}, "bavarian": bavarian})
    state, _, _ = play(state, {"dutch": {"allocate": [{"general": "van-gelder", "tp": 7}]}})
    if state["step"] == "tempo-bombardment":  # a game begun before waits for it
        state, _, _ = play(state, {})
    moves = {"moves": [{"order": "move", "brigades": ["W", "X", "Y", "Z"]}, {"order": "move", "brigades": ["V"]}]}
    state, _, _ = play(state, {"dutch": moves})
    assert state["step"] == "tempo-contact"
    return state


def attack(pairs: list[list[str]], **more: Any) -> dict[str, Any]:
    return {"dutch": {"attacks": [{"division": "van-gelder", "target": "de-salon", "pairs": pairs, **more}]}}


def rounds_of(events: list[Event]) -> list[dict[str, Any]]:
    return list(event(events, "combat.encounter").data["rounds"])


# -- a base pushed back does not advance again ---------------------------------------------
# Book (L439, the Z->O case): in the continuing round "a base that was not pushed back earlier may
# advance back into contact with the opponent that recoiled from it". X, pushed back by M, may not.

X_PUSHED_BACK = [2, 5]  # advance to contact: X 2, M 5: difference 3, X recoils


def test_a_base_pushed_back_does_not_advance_again_in_a_new_game() -> None:
    state = contact_phase(NEW)
    dice = [*X_PUSHED_BACK, 3, 4, 4]  # M (the defending winner) tests to follow up: 3 stays; outcome dice
    state, events, _ = play(state, attack([["X", "M"]], rounds=[["X"], ["X"], ["X"]]), dice)
    advance, response, continuing = rounds_of(events)
    assert advance["combats"][0]["loser"] == "X"
    assert response["skipped"][0]["reason"] == "no longer in contact"
    assert continuing["combats"] == []
    assert "X was pushed back by M" in continuing["skipped"][0]["reason"]


def test_a_game_begun_before_keeps_its_rule_a_listed_base_advances_again() -> None:
    state = contact_phase(OLD)
    dice = [*X_PUSHED_BACK, 3, 4, 4, 4, 4]  # continuing: X re-advances and fights (4 against 4); outcome
    state, events, _ = play(state, attack([["X", "M"]], rounds=[["X"], ["X"], ["X"]]), dice)
    continuing = rounds_of(events)[2]
    assert continuing["combats"][0]["why"] == "X advances back into contact"


def test_a_base_that_was_not_pushed_back_still_advances_again() -> None:
    """Z->O in the book: O recoiled from Z, Z did not follow up, and Z advances back into contact."""
    state = contact_phase(NEW)
    dice = [5, 3, 3, 4, 4, 2, 2]  # Z 5 O 3: O recoils; Z 3 stays; continuing Z 4 O 4; outcome dice
    state, events, _ = play(state, attack([["Z", "O"]], rounds=[["Z"], ["Z"], ["Z"]]), dice)
    continuing = rounds_of(events)[2]
    assert continuing["combats"][0]["why"] == "Z advances back into contact"


# -- the defending winner's follow-up (the book: "the winner" tests; silent on defenders) ------


def test_a_defending_winner_tests_to_follow_up_unless_the_option_says_not() -> None:
    state = contact_phase({**NEW, "defending_winner_follows_up": False})
    state, events, _ = play(state, attack([["X", "M"]]), [*X_PUSHED_BACK, 4, 4])  # no follow-up die for M
    assert rounds_of(events)[0]["combats"][0]["follow_up"] is None


# -- defenders have support ------------------------------------------------------------------
# Book (L396, L426): a base is supported by a friend beside it or directly behind; nothing limits it
# to the attacker, and the example's de Salon simply had no base beside M free to give it.


def test_a_defending_base_has_the_support_its_standing_orders_declare() -> None:
    state = contact_phase(NEW, {"support": [{"base": "M", "by": ["N"]}]})  # N beside M on the table
    state["bases"]["Y"]["pose"]["y"] -= 120  # no longer front to front with N (L426, below)
    state, events, _ = play(state, attack([["X", "M"]]), [4, 4, 4, 4, 4, 4, 3, 3])
    for played in rounds_of(events):
        line = combat_line(played["combats"][0])
        assert line[6] == ["support"] and line[7] == 5 and line[9] == "no-effect", line
    assert "/standing/bavarian/support/M" in event(events, "combat.encounter").data["reveals"]


# -- support cancelled (L426) ----------------------------------------------------------------
# Book (L426): "Z and O are within 1BW of each other's front and therefore cancel out each
# other's support of their friends." On the referee's table: a supporter facing an enemy base
# front to front, no more than 1BW apart, across its frontage, gives no support while it does.


def test_a_supporter_facing_an_enemy_within_1bw_front_to_front_gives_no_support() -> None:
    state = contact_phase(NEW, {"support": [{"base": "M", "by": ["N"]}]})  # Y faces N, touching
    state, events, _ = play(state, attack([["X", "M"]]), [4, 4, 4, 4, 4, 4, 3, 3])
    assert all(combat_line(played["combats"][0])[6] == [] for played in rounds_of(events))
    state = contact_phase(NEW, {"support": [{"base": "M", "by": ["N"]}]})
    state["bases"]["Y"]["pose"]["y"] -= 65  # 1BW and a little more from N's front: N supports M
    state, events, _ = play(state, attack([["X", "M"]]), [4, 4, 4, 4, 4, 4, 3, 3])
    assert all(combat_line(played["combats"][0])[6] == ["support"] for played in rounds_of(events))
    state = contact_phase(NEW, {"support": [{"base": "M", "by": ["N"]}]})
    state["bases"]["Y"]["pose"]["y"] -= 60  # 1BW: still cancelled
    state, events, _ = play(state, attack([["X", "M"]]), [4, 4, 4, 4, 4, 4, 3, 3])
    assert all(combat_line(played["combats"][0])[6] == [] for played in rounds_of(events))


def test_a_game_begun_before_refuses_defenders_support() -> None:
    from games.polemos_obb import GAME

    state = new_game(**OLD)
    state, _, _ = play(state, {}, [5, 3])
    problems = GAME.validate(state, "bavarian", {"bid": 1, "standing": {"support": [{"base": "M", "by": ["P"]}]}})
    assert [p.code for p in problems] == ["illegal.standing.support"]


# -- a base fighting in a pair does not support (the book is silent: option) --------------------


def test_a_fighting_base_is_not_a_supporter_in_a_new_game() -> None:
    from games.polemos_obb import GAME

    orders = attack([["X", "M"], ["Y", "N"]], support=[{"base": "X", "by": ["Y"]}])["dutch"]
    assert [p.code for p in GAME.validate(contact_phase(NEW), "dutch", orders)] == ["illegal.support.fighting"]
    assert GAME.validate(contact_phase(OLD), "dutch", orders) == []


# -- limbered guns move with their column ----------------------------------------------------
# Book (L262-264, movement table): field artillery limbered and attached to an infantry column moves
# with the column, at no TP cost; the artillery commander does not pay 2 TP for it.


def _gun_moves(options: dict[str, Any]) -> tuple[list[dict[str, Any]], list[Any]]:
    state = new_game("danube-demo", **options)
    state["allocations"] = {"bavarian": {"de-salon": 5, "bavarian-gunner": 0}}
    orders = {
        "moves": [
            {"order": "move", "brigades": ["M", "N", "O", "P"]},
            {"order": "move", "brigades": ["G1"], "with": "de-salon"},
        ]
    }
    return priced_moves(state, "bavarian", orders)


def test_limbered_guns_move_free_with_their_infantrys_column() -> None:
    priced, problems = _gun_moves(NEW)
    assert problems == []
    assert [(o["payer"], o["tp"]) for o in priced] == [("de-salon", 5), ("de-salon", 0)]


def test_a_game_begun_before_makes_the_gunner_pay() -> None:
    _, problems = _gun_moves(OLD)
    assert [p.code for p in problems] == ["illegal.moves.with"]


def test_a_game_begun_before_sets_up_to_the_same_state() -> None:
    """Without the new options a game's state holds no new setting, so a game begun before replays as it was."""
    from games.polemos_obb.options import DEFAULTS, LATER_DEFAULTS

    assert set(new_game(**OLD)["config"]) == set(DEFAULTS)
    assert set(new_game(**NEW)["config"]) == set(DEFAULTS) | set(NEW_GAME_OPTIONS)
    assert set(NEW_GAME_OPTIONS) <= set(LATER_DEFAULTS)
