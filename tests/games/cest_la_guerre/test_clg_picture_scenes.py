"""C'est la Guerre's picture, scene by scene: what each player's picture of a table holds.

The picture is drawn from the player's view only (games/cest_la_guerre/picture.py): an
opponent's face-down card and dummy alike as card backs (rulebook H1-H3: a dummy is a card laid
face down like any other), cards not yet on the table absent, the player's own cards with what
they are, and a report's moves and fights from the events the player sees.
"""

from __future__ import annotations

from typing import Any

from clg_helpers import battle, card, feature, texts

from games.cest_la_guerre import GAME, rules
from games.cest_la_guerre.picture import pose_of
from referee.kit.tabletop.picture import check_scene
from referee.kit.tabletop.shapes import Pose
from referee.letters import pictures

from scripted_dice import ScriptedDice


def scene_of(state: dict[str, Any], player: str, events: list[Any] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    seen = [e.as_dict() for e in events if e.is_visible_to(player)]
    made = GAME.picture(GAME.view(state, player), player, seen)
    assert made is not None
    check_scene(made)
    return made


def units(made: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["label"].split(" ")[0]: item for item in made["items"] if item["item"] == "unit"}


def table(red_card: dict[str, Any]) -> dict[str, Any]:
    return battle(
        [
            card("B1", "reg_inf", 400, 200, "north"),
            card("B2", "cavalry", 500, 200, "north", face_up=False),
            card("B3", "dummy", 600, 200, "north", face_up=False),
            red_card,
            card("R2", "light_cav", 700, 700, "south"),
            {**card("R9", "artillery", 0, 0, "south"), "status": "reserve", "marker": None, "x": None, "y": None},
        ],
        terrain=(feature("T1", "woods", 100, 300, 300, 500), feature("T2", "river", 800, 0, 860, 900)),
    )


def test_a_face_down_card_and_a_dummy_at_one_place_are_drawn_alike() -> None:
    """H1-H3: the opponent cannot tell a dummy from a face-down card, nor can their picture."""
    real = table(card("R1", "reg_inf", 400, 600, "south", face_up=False))
    dummy = table(card("R1", "dummy", 400, 600, "south", face_up=False))
    assert scene_of(real, "blue") == scene_of(dummy, "blue")
    assert pictures.svg(scene_of(real, "blue")) == pictures.svg(scene_of(dummy, "blue"))
    back = units(scene_of(real, "blue"))["R1"]
    assert back["look"] == "card-back" and back["label"] == "R1"
    # Its owner sees which is which.
    assert units(scene_of(real, "red"))["R1"]["look"] == "own-face-down"
    assert units(scene_of(dummy, "red"))["R1"] == {**units(scene_of(dummy, "red"))["R1"], "look": "own-dummy"}


def test_each_side_sees_its_own_cards_and_the_others_face_up_ones() -> None:
    state = table(card("R1", "reg_inf", 400, 600, "south", face_up=False))
    blue = units(scene_of(state, "blue"))
    assert blue["B1"]["look"] == "unit" and blue["B1"]["label"] == "B1 Inf"
    assert blue["B2"]["look"] == "own-face-down" and blue["B2"]["label"] == "B2 Cav"
    assert blue["B3"]["look"] == "own-dummy" and blue["B3"]["label"] == "B3 dummy"
    assert blue["R2"]["look"] == "unit" and blue["R2"]["label"] == "R2 LtC"
    red = units(scene_of(state, "red"))
    assert red["B2"]["look"] == red["B3"]["look"] == "card-back"
    assert red["B2"]["label"] == "B2" and red["B3"]["label"] == "B3"
    # A card not on the table (a Reserve Force yet to come) is in nobody's picture.
    assert "R9" not in units(scene_of(state, "blue")) and len(units(scene_of(state, "red"))) == 5
    assert "Cav" not in str(scene_of(state, "red")["items"])


def test_terrain_and_facings_are_drawn_where_the_view_puts_them() -> None:
    state = table(card("R1", "reg_inf", 400, 600, "south", face_up=False))
    made = scene_of(state, "blue")
    woods, river = (item for item in made["items"] if item["item"] == "terrain")
    assert woods["kind"] == "woods" and woods["points"] == [[100, 300], [300, 300], [300, 500], [100, 500]]
    assert river["kind"] == "river" and river["label"] == "river T2"
    # The front edge comes first: north-facing B1's is its north edge, south-facing R2's its south one.
    assert units(made)["B1"]["points"][:2] == [[375, 215], [425, 215]]
    assert units(made)["R2"]["points"][:2] == [[725, 685], [675, 685]]
    assert made["table"] == {"width": 1200, "depth": 900}


def test_the_pose_adapter_reads_compass_words_and_degrees_alike() -> None:
    """One adapter, the kit's pose_from: states with compass facings and with bearings draw alike."""
    assert pose_of({"x": 10, "y": 20, "facing": "east"}) == Pose(10, 20, 90)
    assert pose_of({"x": 10, "y": 20, "facing": 90}) == Pose(10, 20, 90)
    words = table(card("R1", "reg_inf", 400, 600, "west", face_up=False))
    degrees = table(card("R1", "reg_inf", 400, 600, "west", face_up=False))
    next(u for u in degrees["units"] if u["marker"] == "R1")["facing"] = 270
    assert scene_of(words, "blue") == scene_of(degrees, "blue")


def test_a_report_draws_the_moves_and_the_fights_its_reader_saw() -> None:
    """A move is an arrow from where the card stood to where it ended; a melee a star."""
    state = battle(
        [
            card("B1", "reg_inf", 400, 200, "north"),
            card("R1", "reg_inf", 400, 400, "south"),
        ],
        phasing="blue",
        stage="move",
    )
    orders = {"actions": [{"move": "B1", "to": {"x": 400, "y": 300, "facing": "north"}}]}
    assert GAME.validate(state, "blue", orders) == []
    after, events = GAME.resolve(state, {"blue": orders}, ScriptedDice([1] * 20))
    moved = [e for e in events if e.kind == "move"]
    assert moved, texts(events)
    made = scene_of(after, "red", events)
    (arrow,) = [item for item in made["items"] if item["item"] == "arrow"]
    assert arrow["kind"] == "move" and arrow["points"][0] == [400, 200]
    assert arrow["points"][-1] == [moved[0].data["x"], moved[0].data["y"]]
    # A notice (no events) draws the table without arrows.
    assert not [item for item in scene_of(after, "red")["items"] if item["item"] == "arrow"]


def test_fights_are_marked_where_they_were_fought() -> None:
    events = [
        {"kind": "combat.melee", "text": "", "data": {"attacker": {"marker": "B1"}, "defender": {"marker": "R1"}}},
        {"kind": "flee", "text": "", "data": {"marker": "R1", "path": [[400, 415], [400, 700]]}},
    ]
    state = battle([card("B1", "reg_inf", 400, 385, "north"), card("R1", "reg_inf", 400, 700, "north")])
    made = GAME.picture(GAME.view(state, "blue"), "blue", events)
    assert made is not None
    (star,) = [item for item in made["items"] if item["item"] == "marker"]
    assert star["kind"] == "combat" and star["at"] == [400, 400]  # between B1 and where R1 stood, not where it fled
    (flight,) = [item for item in made["items"] if item["item"] == "arrow"]
    assert flight["kind"] == "flee"


def test_no_picture_before_anything_is_on_the_table() -> None:
    state = rules.setup("open-battle", ["blue", "red"], {})
    assert GAME.picture(GAME.view(state, "blue"), "blue", []) is None
