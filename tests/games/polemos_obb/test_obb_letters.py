"""Letters a Polemos player can play from (issue 17, option letters: army-board for new games): the
army board, the forms, the outcome round's rule and the battle's result with each side's losses."""

from __future__ import annotations

from obb_helpers import event, new_game, play
from test_obb_combat_example import TURN_ONE_DICE, VAN_GELDER_ATTACKS

from games.polemos_obb import GAME
from games.polemos_obb.board import engagement_lines
from games.polemos_obb.morale import _army_morale, losses
from games.polemos_obb.options import NEW_GAME_OPTIONS, game_tables
from games.polemos_obb.resolution import Resolution

from scripted_dice import ScriptedDice

NEW = {**NEW_GAME_OPTIONS, "army_morale": {"cmf": {"dutch": 15, "bavarian": 15}}}


def test_every_notice_carries_the_army_board_of_each_army() -> None:
    state = new_game(**{**NEW, "army_board": "divisions"})  # the board of games begun before the table
    state, _, _ = play(state, {}, [5, 3])
    facts = {f.name: f for f in GAME.standing(state, "bavarian")}
    dutch = facts["Army board: Dutch army (dutch)"]
    assert dutch.value.startswith("7 TP, CMF 15 (lost 0)")
    assert dutch.items[0].split() == ["division", "general", "fresh", "shaken", "lost", "notes"]
    assert dutch.items[1].split()[:3] == ["van-gelder", "active", "5"]
    assert all(len(row) <= 72 for fact in facts.values() for row in fact.items)


def test_a_game_begun_before_shows_no_board() -> None:
    state = new_game()
    state, _, _ = play(state, {}, [5, 3])
    assert not [f for f in GAME.standing(state, "dutch") if f.name.startswith("Army board")]


def test_the_forms_list_moved_brigades_costs_engagements_and_the_enemys_bases() -> None:
    state = new_game(**NEW)
    state, _, _ = play(state, {}, [5, 3])
    state, _, _ = play(state, {"dutch": {"bid": 2}, "bavarian": {"bid": 1}})
    state, _, _ = play(state, {"dutch": {"allocate": [{"general": "van-gelder", "tp": 7}]}})
    form = GAME.example(state, "dutch")
    assert form is not None
    assert "1 brigade 2 TP, 4 brigades 5 TP" in form.notes["orders.moves"]
    assert "van-gelder: 7 TP left" in form.notes["orders.moves"]
    moves = [{"order": "move", "brigades": ["W", "X", "Y", "Z"]}, {"order": "move", "brigades": ["V"]}]
    state, events, _ = play(state, {"dutch": {"moves": moves}})
    assert [o["label"] for o in event(events, "moves.orders").data["orders"]] == ["move", "move"]
    form = GAME.example(state, "dutch")
    assert form is not None
    assert "may attack): V W X Y Z" in form.notes["orders.attacks"]
    assert "de-salon: M N O P" in form.notes["orders.attacks"]
    state, events, _ = play(state, VAN_GELDER_ATTACKS, [*TURN_ONE_DICE, 2, 5])
    outcome = event(events, "combat.encounter").data["outcome"]
    assert "the HIGHER score loses" in outcome["rule"]
    lines = engagement_lines(GAME.view(state, "bavarian"), {"de-salon"})
    assert lines == ["e1: van-gelder against de-salon; in contact Y-N, Z-O; apart X-M"]  # M recoiled shaken, X stayed


def test_the_result_says_each_sides_losses() -> None:
    state = new_game(**NEW)
    state["bases"]["M"]["state"] = "removed"
    state["bases"]["N"]["state"] = "shaken"
    said = losses(state)
    assert "The Allies lost 0 of 5 bases (0 shaken)" in said
    assert "lost 1 of 6 bases (1 shaken) and 0 of 2 divisions spent" in said


def test_a_broken_army_s_result_counts_the_divisions_spent_before_it_left() -> None:
    """The army's other divisions leave the battle with it (marked spent, out of play), but the
    result counts those spent by their morale test: one of two here, not two."""
    state = new_game(**{**NEW, "army_morale": {"cmf": {"dutch": 2, "bavarian": 2}, "when_exhausted": "game-ends"}})
    army = next(a for a, record in state["armies"].items() if len(record["divisions"]) == 2)
    record = state["armies"][army]
    failed = record["divisions"][0]
    state["divisions"][failed]["spent"] = True
    _army_morale(Resolution(state, ScriptedDice([6]), game_tables(state)), army, failed)
    assert state["over"] and all(state["divisions"][d]["spent"] for d in record["divisions"])
    assert f"of {len(record['divisions'])} divisions spent" in state["result"]
    assert f"1 of {len(record['divisions'])} divisions spent" in state["result"], state["result"]


def test_a_division_that_leaves_with_its_broken_army_is_not_called_spent() -> None:
    """The long danube game's last letters said "1 of 4 divisions spent" over a board marking all four
    SPENT: the three that left with the broken army did not fail a morale test, and say so."""
    state = new_game(**{**NEW, "army_morale": {"cmf": {"dutch": 2, "bavarian": 2}, "when_exhausted": "game-ends"}})
    failed, left = state["armies"]["bavarian"]["divisions"][:2]
    state["divisions"][failed]["spent"] = True
    _army_morale(Resolution(state, ScriptedDice([6]), game_tables(state)), "bavarian", failed)
    facts = {f.name: f for f in GAME.standing(state, "bavarian")}
    board = "\n".join(" ".join(row) for row in facts["Army board: Bavarian army (bavarian)"].table)
    assert "SPENT" in board and "LEFT BATTLE" in board
    divisions = facts["Your divisions"].items
    assert any(line.startswith(f"{failed} ") and " SPENT:" in line for line in divisions), divisions
    assert any(line.startswith(f"{left} ") and " LEFT THE BATTLE WITH ITS ARMY:" in line for line in divisions), (
        divisions
    )


def test_the_pictures_of_a_battle_over_say_so() -> None:
    """The last report's pictures were titled "Turn 4, morale", a step no player sees open."""
    state = new_game(**{**NEW, "army_morale": {"cmf": {"dutch": 2, "bavarian": 2}, "when_exhausted": "game-ends"}})
    state, _, _ = play(state, {}, [5, 3])  # muster: the armies are deployed on the table
    failed = state["armies"]["bavarian"]["divisions"][0]
    state["divisions"][failed]["spent"] = True
    _army_morale(Resolution(state, ScriptedDice([6]), game_tables(state)), "bavarian", failed)
    seen = GAME.view(state, "dutch")
    board = GAME.board(seen, "dutch")
    assert (
        board is not None
        and board["title"] == f"Turn {state['turn']}, the battle over: the army boards as dutch sees them"
    )
    picture = GAME.picture(seen, "dutch", [])
    assert picture is not None and picture["title"].startswith(
        f"Turn {state['turn']}, the battle over: the battlefield"
    )
