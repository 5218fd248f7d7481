"""What issue 17 still lacked on the referee's table (option battlefield: table): the table's edge as
a named option, the referee pairing an attack's bases, gun ranges, dragoons' mounts.

Each rule's test names the line of the rulebook file (shared/seeds/004_...txt) it comes from, or
the option that settles what the file leaves open. Lengths in mm: 1BW = 60 mm, 1BD = 30 mm.
"""

from __future__ import annotations

from typing import Any

import pytest
from obb_helpers import TEST_TABLES, event, play
from test_obb_combat_example import TURN_ONE_DICE, VAN_GELDER_ATTACKS, turn_one_contact
from test_obb_table import BD, BW, FOOT, NEW, danube, move, moves, pose

from games.polemos_obb import GAME
from games.polemos_obb.board_view import board_table
from games.polemos_obb.options import NEW_GAME_OPTIONS
from games.polemos_obb.table import go_back
from referee.kit import GameDataError

from scripted_dice import ScriptedDice

REMOVE = {**NEW, "table_edge": "remove"}


# -- the table's edge (option table_edge) ----------------------------------------------------


def test_a_base_driven_off_the_table_stays_at_the_edge_unless_the_option_removes_it() -> None:
    """The file says nothing of bases driven off the table: by default (table_edge: stop) the base
    stops at the edge and stays in play; table_edge: remove takes it out, counted as a base lost."""
    state = danube()
    state["bases"]["V"]["pose"] = {"x": 240, "y": 40, "facing": 0}
    move = go_back(state, "V", 2 * BW)
    assert "off_table" not in move and state["bases"]["V"]["state"] == "fresh"
    assert pose(state, "V") == (240, 15, 0)
    state = danube()
    state["config"]["table_edge"] = "remove"
    state["bases"]["V"]["pose"] = {"x": 240, "y": 40, "facing": 0}
    move = go_back(state, "V", 2 * BW)
    assert move["off_table"] is True and move["path"][-1] == [240, 15]  # drawn to where it left
    assert state["bases"]["V"]["state"] == "removed" and "V" in state["broken_this_turn"]
    state["bases"]["W"]["pose"] = {"x": 300, "y": 150, "facing": 0}
    assert "off_table" not in go_back(state, "W", 2 * BW)  # room enough: it stays
    assert state["bases"]["W"]["state"] == "fresh"


def test_a_base_stopped_by_an_enemy_before_the_edge_is_not_removed() -> None:
    """L270: never through an enemy; a base that meets one before the edge stays on the table."""
    state = danube()
    state["config"]["table_edge"] = "remove"
    state["bases"]["M"]["pose"] = {"x": 240, "y": 20, "facing": 180}
    state["bases"]["V"]["pose"] = {"x": 240, "y": 120, "facing": 0}
    assert "off_table" not in go_back(state, "V", 2 * BW)
    assert state["bases"]["V"]["state"] == "fresh"


def test_the_option_table_edge_is_checked() -> None:
    with pytest.raises(GameDataError, match="table_edge"):
        GAME.setup("combat-example", ["dutch", "bavarian"], {**NEW, "table_edge": "fall-off"})


def test_a_bombarded_base_driven_off_the_table_is_removed_with_the_option() -> None:
    """Bombardment goes back through the same helper (the combat chart's 1BD, L403)."""
    state = danube("franco-bavarian")
    state["config"]["table_edge"] = "remove"
    state["overlays"]["tables"] = TEST_TABLES
    state["step"] = "tempo-bombardment"
    state["bases"]["X"]["pose"] = {"x": 360, "y": 20, "facing": 0}
    fire = {"fire": [{"battery": "G1", "target": "X"}]}
    after, events = GAME.resolve(state, {"bavarian": fire}, ScriptedDice([5]))
    assert after["bases"]["X"]["state"] == "removed"
    assert event(events, "bombardment.fire").data["move"]["off_table"] is True


def test_a_recoil_off_the_table_is_a_base_lost_in_the_outcome_round() -> None:
    """L403: N recoils 1BD; with the table's edge just behind it, N leaves the field (table_edge:
    remove), scores as broken in the outcome round (3 points a base broken, L466) and is not followed up."""
    state = turn_one_contact(**REMOVE)
    state["table"]["depth_mm"] = 240  # N stands at y 210, its rear at 225: 1BD back leaves the table
    state, events, _ = play(
        state, VAN_GELDER_ATTACKS, [*TURN_ONE_DICE[:6], 4, 4, 4, 5, 3, 3]
    )  # N and O leave; X and M fight on
    encounter = event(events, "combat.encounter").data
    first = encounter["rounds"][0]["combats"]
    y_n = next(c for c in first if c["defender"]["base"] == "N")
    assert y_n["off_table"] is True and y_n["outcome"] == "broken" and y_n["follow_up"] is None
    assert state["bases"]["N"]["state"] == "removed"
    line = next(d for d in encounter["outcome"]["divisions"] if d["division"] == "de-salon")
    assert sorted(line["broken"]) == ["N", "O"] and line["points"] == 6


def test_a_division_falling_back_off_the_table_loses_the_bases_that_leave() -> None:
    """L476: the loser falls back (difference - 2)BD; the bases it carries off the table are lost."""
    state = turn_one_contact(**REMOVE)
    state["table"]["depth_mm"] = 330
    state, events, _ = play(state, VAN_GELDER_ATTACKS, [*TURN_ONE_DICE, 5, 2])
    fall_back = event(events, "combat.encounter").data["outcome"]["fall_backs"][0]
    assert fall_back["bd"] == 6
    assert fall_back["off_table"] == ["N", "P"] and "driven off the table" in fall_back["text"]
    assert {state["bases"][b]["state"] for b in ("N", "P")} == {"removed"}
    assert pose(state, "N")[1] == 330 - BD / 2


# -- pairs read from the table -----------------------------------------------------------------


def without_pairs(**more: Any) -> dict[str, Any]:
    attack = {k: v for k, v in VAN_GELDER_ATTACKS["dutch"]["attacks"][0].items() if k != "pairs"}
    return {"dutch": {"attacks": [{**attack, **more}]}}


def test_the_referee_pairs_the_book_s_attack_from_the_table_as_the_book_does() -> None:
    """L378-L399: X contacts M, the line conforms, and X fights M, Y N, Z O; W (declared X's
    supporter) stays out of the pairs. Left without pairs, the referee finds the book's."""
    state = turn_one_contact(**NEW)
    orders = without_pairs()
    assert GAME.validate(state, "dutch", orders["dutch"]) == []
    after, events, _ = play(state, orders, [*TURN_ONE_DICE, 2, 5])
    assert event(events, "combat.paired").data["pairs"] == [["X", "M"], ["Y", "N"], ["Z", "O"]]
    book, _, _ = play(turn_one_contact(**NEW), VAN_GELDER_ATTACKS, [*TURN_ONE_DICE, 2, 5])
    assert after["bases"] == book["bases"]  # every base where, and as, the book leaves it


def test_left_without_pairs_or_support_the_referee_finds_both_as_the_book_has_them() -> None:
    """L394-L396: "X rolls a 4, plus 1 for the support of W": W, beside X and in no pair, supports
    it; the referee finds that support from the table when the attack names neither pairs nor support."""
    orders = {"dutch": {"attacks": [{**without_pairs()["dutch"]["attacks"][0]}]}}
    del orders["dutch"]["attacks"][0]["support"]
    after, events, _ = play(turn_one_contact(**NEW), orders, [*TURN_ONE_DICE, 2, 5])
    paired = event(events, "combat.paired")
    assert paired.data["support"] == [{"base": "X", "by": ["W"]}] and "W support X" in paired.text
    book, book_events, _ = play(turn_one_contact(**NEW), VAN_GELDER_ATTACKS, [*TURN_ONE_DICE, 2, 5])
    assert after["bases"] == book["bases"]
    rounds = event(events, "combat.encounter").data["rounds"]
    assert rounds == event(book_events, "combat.encounter").data["rounds"]


def test_named_pairs_are_still_checked_and_a_contact_without_free_bases_is_refused() -> None:
    """Explicit pairs are held to the table as before (L382); with none, a division whose bases
    touch nothing it may attack is told so."""
    state = turn_one_contact(**NEW)
    assert "combat.paired" not in [e.kind for e in play(state, VAN_GELDER_ATTACKS, [*TURN_ONE_DICE, 2, 5])[1]]
    state["moved"] = []  # no brigade moved: none may attack (option attack_needs_move)
    codes = [p.code for p in GAME.validate(state, "dutch", without_pairs()["dutch"])]
    assert codes == ["illegal.attack.no-pairs"]
    state = danube("franco-bavarian")
    state["moved"], state["step"] = ["M", "N"], "tempo-contact"
    far = {"attacks": [{"division": "de-salon", "target": "van-gelder"}]}
    assert [p.code for p in GAME.validate(state, "bavarian", far)] == ["illegal.attack.no-contact"]


def test_pairs_may_be_left_out_only_on_the_referee_s_table() -> None:
    state = turn_one_contact()
    codes = [p.code for p in GAME.validate(state, "dutch", without_pairs()["dutch"])]
    assert codes == ["illegal.attack.pairs"]  # the players' table: the pairs are theirs to name
    assert "pairs" in GAME.phase(state).schema["fields"]["attacks"]["items"]["required"]
    assert "pairs" not in GAME.phase(turn_one_contact(**NEW)).schema["fields"]["attacks"]["items"]["required"]


# -- gun range (option bombardment_range) ------------------------------------------------------


def bombardment(reach: float | None) -> dict[str, Any]:
    """The danube demo at the Franco-Bavarians' bombardment, the test table supplied; G1 (525, 540)
    faces south, X (360, 180) 5.85BW away edge to edge."""
    state = danube("franco-bavarian")
    state["config"].update(bombardment_range=reach, pace="skip-idle")
    state["overlays"]["tables"] = TEST_TABLES
    state["step"] = "tempo-bombardment"
    return state


def test_the_book_gives_no_range_so_any_enemy_base_is_a_target_by_default() -> None:
    """The bombardment page (p. 17) is missing: with no bombardment_range the players declare range."""
    state = bombardment(None)
    assert GAME.validate(state, "bavarian", {"fire": [{"battery": "G1", "target": "X"}]}) == []
    assert GAME.phase(state).active == ("bavarian",)


def test_with_a_range_a_gun_fires_only_at_a_base_before_its_front_within_it() -> None:
    state = bombardment(6)
    assert GAME.validate(state, "bavarian", {"fire": [{"battery": "G1", "target": "X"}]}) == []
    state = bombardment(5)
    problems = GAME.validate(state, "bavarian", {"fire": [{"battery": "G1", "target": "X"}]})
    assert [p.code for p in problems] == ["illegal.fire.out-of-range"]
    assert "5.85BW away" in problems[0].message and "bombardment_range" in problems[0].message


def test_the_fire_form_lists_each_gun_s_targets_in_range() -> None:
    form = GAME.example(bombardment(6), "bavarian")
    assert form is not None
    note = form.notes["orders.fire"]
    assert (
        "targets within 6BW before their front: G1: Z (5.5BW), H1 (5.52BW), Y (5.59BW), H2 (5.7BW), X (5.85BW);" in note
    )
    assert "V (" not in note and "W (" not in note  # 6BW and more away


def test_a_bombardment_with_no_gun_in_range_costs_no_mail() -> None:
    """Pace (issue 17): a step nobody can order in is adjudicated at once; with a range known, a
    bombardment in which no gun has a target in range is such a step."""
    assert GAME.phase(bombardment(6)).active == ("bavarian",)
    state = bombardment(1)
    assert GAME.phase(state).active == ()
    state["step"] = "tempo-command"
    state["allocations"] = {}
    state, events = GAME.resolve(state, {"bavarian": {}}, ScriptedDice([]))
    at_once = [e for e in events if e.kind == "pace.at-once"]
    assert at_once and at_once[0].data["step"] == "tempo-bombardment"
    assert "in range (option bombardment_range)" in at_once[0].text


def test_the_option_bombardment_range_is_checked() -> None:
    with pytest.raises(GameDataError, match="bombardment_range"):
        GAME.setup("combat-example", ["dutch", "bavarian"], {**NEW, "bombardment_range": "long"})


# -- dragoons' mounts ----------------------------------------------------------------------------


def test_dismounted_dragoons_have_their_mounts_immediately_behind_drawn_and_on_the_board() -> None:
    """L266: "The base of dragoon mounts is placed immediately behind the dismounted dragoon base"
    (a standard base, L142). The mounts go where the dragoons go (drawn from their pose, never an
    obstacle: the file says no more of them). Remounting is on the file's missing pages: a remount
    (priced by option order_costs) takes the mounts off the table again."""
    state = danube("franco-bavarian")
    state, _, _ = play(state, {"bavarian": {"moves": [{"order": "dismount", "brigades": ["D"]}]}})
    x, y, facing = pose(state, "D")
    seen = GAME.view(state, "dutch")
    dragoons = next(b for d in seen["divisions"] for br in d["brigades"] for b in br["bases"] if b["id"] == "D")
    assert dragoons["dismounted"] is True
    behind = {0: (0, -BD), 180: (0, BD), 90: (-BD, 0), 270: (BD, 0)}[int(facing)]
    assert (dragoons["mounts"]["x"], dragoons["mounts"]["y"]) == (x + behind[0], y + behind[1])
    scene = GAME.picture(seen, "dutch", [])
    assert scene is not None
    mounts = [i for i in scene["items"] if i["item"] == "unit" and i["label"] == "D mts"]
    assert len(mounts) == 1
    rows = [row for fact in board_table(GAME.view(state, "bavarian")) for row in fact.table]
    assert [row[1] for row in rows if "dismounted" in row[-1]] == ["D"]
    assert GAME.board is not None
    picture = GAME.board(GAME.view(state, "bavarian"), "bavarian")
    assert picture is not None and "dismounted D" in str(picture)
    state["bases"]["D"]["dismounted"] = False  # remounted
    seen = GAME.view(state, "dutch")
    assert all("mounts" not in b for d in seen["divisions"] for br in d["brigades"] for b in br["bases"])


# -- overlap -------------------------------------------------------------------------------------


def test_an_enemy_beside_a_fighting_base_s_flank_is_an_overlap_read_from_the_table() -> None:
    """The file has no overlap rule (pp. 23-28 are missing; L382 only says the bases "do NOT have to
    line up exactly opposite"): the referee reads the overlap from the table as the combat fact
    `overlapped`, and no modifier uses it unless the referee supplies one (option combat_modifiers)."""
    state = turn_one_contact(**NEW)
    state["bases"]["W"]["pose"] = {"x": 60, "y": 600, "facing": 0}
    state["bases"]["P"]["pose"] = {"x": 180, "y": 180, "facing": 180}  # where W stood: at X's left flank
    attack = {"attacks": [{"division": "van-gelder", "target": "de-salon", "pairs": [["X", "M"]]}]}
    assert GAME.validate(state, "dutch", attack) == []
    _, events = GAME.resolve(state, {"dutch": attack}, ScriptedDice([4] * 40))
    first = event(events, "combat.encounter").data["rounds"][0]["combats"][0]
    assert first["attacker"]["modifiers"] == []  # the book gives no overlap modifier
    state["overlays"]["combat_modifiers"] = [{"name": "overlapped", "value": -1, "when": {"overlapped": True}}]
    _, events = GAME.resolve(state, {"dutch": attack}, ScriptedDice([4] * 40))
    first = event(events, "combat.encounter").data["rounds"][0]["combats"][0]
    assert first["attacker"]["modifiers"] == [{"name": "overlapped", "value": -1}]
    assert first["defender"]["modifiers"] == []  # M has no enemy at its flanks


# -- the deviations issue 17 fixed, on the referee's table ------------------------------------


def test_limbered_guns_move_with_their_infantrys_column_at_its_rate_and_free() -> None:
    """L249: "Generals and limbered artillery attached to the division may move at the same rate"
    (4BW in defile); L264: field artillery limbered with an infantry column "may move with the
    infantry column for no TP cost" (option guns_move_with_column); alone, limbers are baggage, 1BD (L262)."""
    state = danube()
    column = move(FOOT, {"march": [[930, 330], [990, 330], [990, 420]]})
    guns = move(["imperial-guns-1"], {"advance": 4 * BW}, **{"with": "imperial-foot"})
    assert moves(state, "imperial", column, guns) == []
    too_far = move(["imperial-guns-1"], {"advance": 4 * BW + 5}, **{"with": "imperial-foot"})
    assert moves(state, "imperial", column, too_far) == ["illegal.moves.too-far"]
    assert moves(state, "imperial", column, move(["imperial-guns-1"], {"advance": 4 * BW})) == ["illegal.moves.too-far"]
    after, events, _ = play(state, {"imperial": {"moves": [column, guns]}})
    x, y, _ = pose(state, "imperial-guns-1")
    assert pose(after, "imperial-guns-1") == (x, y + 4 * BW, 0)
    imperial = next(e for e in events if e.kind == "moves.orders" and e.data.get("army") == "imperial")
    assert [o["tp"] for o in imperial.data["orders"]][1] == 0


def test_a_half_turn_sent_ahead_may_leave_the_pairs_to_the_referee() -> None:
    """Pace (issue 17) on the table: the book's turn 1 (pp. 31-33) in one file, the attack without
    pairs; bombardment, moves and contact are adjudicated at once and play as the book does."""
    from test_obb_pace import MOVES, command_phase

    state = command_phase(**NEW_GAME_OPTIONS)
    orders = {"allocate": [{"general": "van-gelder", "tp": 7}], "later": {"moves": MOVES, **without_pairs()["dutch"]}}
    assert GAME.validate(state, "dutch", orders) == []
    after, events, _ = play(state, {"dutch": orders}, [*TURN_ONE_DICE, 2, 5])
    steps = [e.data["step"] for e in events if e.kind == "pace.at-once"]
    assert steps == ["tempo-bombardment", "tempo-moves", "tempo-contact"]
    assert event(events, "combat.paired").data["pairs"] == [["X", "M"], ["Y", "N"], ["Z", "O"]]
    assert after["step"] == "other-command"


# -- generals overrun ----------------------------------------------------------------------------


def test_a_general_in_the_way_of_an_attack_is_overrun_named_or_not_and_rides_to_his_friends() -> None:
    """L326: a general "contacted by enemy troops ... simply his being in the way" rolls for capture;
    L332: "If he eludes capture, move him immediately to nearest friendly troops". On the referee's
    table the referee finds him in the way; he rides to just behind the nearest friendly base."""
    state = turn_one_contact(**NEW)
    state["generals"]["de-salon"]["pose"] = {"x": 120, "y": 210, "facing": 180}  # against V's front
    attack = {"attacks": [{"division": "van-gelder", "target": "de-salon", "pairs": [["X", "M"]]}]}
    after, events = GAME.resolve(state, {"dutch": attack}, ScriptedDice([6] + [4] * 40))
    capture = event(events, "general.capture").data
    assert capture["general"] == "de-salon" and capture["captured"] is False
    assert capture["ride"]["to"] == "A" and "behind A" in capture["text"]  # St Joseph's horse, 1BW off
    assert after["generals"]["de-salon"]["pose"] == {"x": 120, "y": 330, "facing": 180}  # A at (120, 300)
    state["generals"]["de-salon"]["pose"] = {"x": 120, "y": 600, "facing": 180}  # far from every base
    _, events = GAME.resolve(state, {"dutch": attack}, ScriptedDice([4] * 40))
    assert "general.capture" not in [e.kind for e in events]


def test_dragoons_dismount_free_at_the_end_of_a_move_on_the_table_and_their_mounts_follow() -> None:
    """L266: "if the dragoons advanced during that game turn, they can dismount at the end of their
    movement for free"; the mounts are placed immediately behind where they end."""
    state = danube("franco-bavarian")
    x, y, facing = pose(state, "D")
    ahead = {0: (0, BD), 180: (0, -BD)}[int(facing)]
    orders = [
        {"order": "move", "brigades": ["D"], "steps": [{"advance": BD}]},
        {"order": "dismount", "brigades": ["D"]},
    ]
    after, events, _ = play(state, {"bavarian": {"moves": orders}})
    bavarian = next(e for e in events if e.kind == "moves.orders" and e.data.get("army") == "bavarian")
    assert [o["tp"] for o in bavarian.data["orders"]] == [2, 0]
    assert pose(after, "D") == (x + ahead[0], y + ahead[1], facing)
    seen = GAME.view(after, "bavarian")
    mounts = next(b["mounts"] for d in seen["divisions"] for br in d["brigades"] for b in br["bases"] if b["id"] == "D")
    assert (mounts["x"], mounts["y"]) == (x, y)  # where the dragoons stood: 1BD behind them now
