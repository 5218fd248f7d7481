"""Battlefield pictures: the scene format (referee.kit.tabletop.picture) and its drawing as SVG
and PNG (referee.letters.pictures): checked, escaped, deterministic, small."""

from __future__ import annotations

import base64
import copy
import io
from typing import Any
from xml.etree import ElementTree

import pytest
from PIL import Image
from shapely.geometry import LineString, box

from referee.errors import GameDataError
from referee.kit.tabletop.picture import (
    arrow_item,
    check_scene,
    label_item,
    marker_item,
    rect_item,
    rounded,
    scene,
    terrain_item,
    unit_item,
)
from referee.kit.tabletop.shapes import Pose, Size
from referee.letters import pictures

CARD = Size(50, 30)
SIDES = {"blue": {"name": "Blue", "colour": "#1f5fbf"}, "red": {"name": "Red", "colour": "#c0392b"}}
SVG = "{http://www.w3.org/2000/svg}"


def table(*items: dict[str, Any], title: str = "Round 1: the table as blue sees it") -> dict[str, Any]:
    return scene(title, 1200, 900, SIDES, items)


def full() -> dict[str, Any]:
    return table(
        terrain_item("T1", "woods", box(100, 100, 400, 300), "woods T1"),
        terrain_item("T2", "river", LineString([(0, 600), (600, 650), (1200, 500)]), width=40),
        rect_item("T3", "village", [700, 200, 850, 330], "village T3"),
        unit_item(Pose(300, 500, 0), CARD, "blue", "B1 Inf"),
        unit_item(Pose(450, 480, 45), CARD, "blue", "B2 Cav", "own-face-down"),
        unit_item(Pose(520, 480, 90), CARD, "blue", "B3 dummy", "own-dummy"),
        unit_item(Pose(600, 700, 180), CARD, "red", "R1", "card-back"),
        unit_item(Pose(800, 750, 200.5), CARD, "red", "R2 LtC"),
        arrow_item([(300, 350), (300, 420), (300, 485)], "move"),
        arrow_item([(800, 850), (800, 765)], "charge"),
        arrow_item([(600, 800), (650, 850), (660, 900)], "flee"),
        arrow_item([(450, 495), (600, 685)], "shot"),
        marker_item((560, 600), "combat"),
        marker_item((900, 400), "destroyed"),
        label_item((1000, 100), "Blue's edge"),
    )


def test_a_unit_is_its_four_corners_front_edge_first() -> None:
    item = unit_item(Pose(100, 100, 0), CARD, "blue", "B1")
    assert item["points"] == [[75, 115], [125, 115], [125, 85], [75, 85]]
    east = unit_item(Pose(100, 100, 90), CARD, "blue", "B1")["points"]
    assert east[:2] == [[115, 125], [115, 75]]  # facing east: the front edge is the east one


def test_coordinates_are_rounded_to_a_tenth_of_a_millimetre() -> None:
    assert rounded(12.34) == 12.3 and rounded(12.0) == 12 and isinstance(rounded(12.0), int)
    assert rounded(-0.04) == 0 and str(rounded(-0.04)) == "0"
    item = unit_item(Pose(100, 100, 33.3), CARD, "blue", "B1")
    assert all(isinstance(v, int) or round(v, 1) == v for point in item["points"] for v in point)


def test_a_face_down_card_and_a_dummy_give_identical_items() -> None:
    """What the view says of an opponent's card is all a picture can draw: the same for both."""
    card = unit_item(Pose(400, 400, 180), CARD, "red", "R3", "card-back")
    dummy = unit_item(Pose(400, 400, 180), CARD, "red", "R3", "card-back")
    assert card == dummy
    assert pictures.svg(table(card)) == pictures.svg(table(dummy))


@pytest.mark.parametrize(
    ("change", "fault"),
    [
        (lambda s: s.update(picture=2), "picture has picture: 2"),
        (lambda s: s["table"].update(width=0), "picture.table.width"),
        (lambda s: s["sides"]["red"].update(colour="red"), "picture.sides.red.colour"),
        (
            lambda s: s["items"].append(
                {"item": "unit", "points": [[0, 0]] * 3, "side": "red", "label": "", "look": "unit"}
            ),
            "points",
        ),
        (
            lambda s: s["items"].append(
                {"item": "unit", "points": [[0, 0]] * 4, "side": "green", "label": "", "look": "unit"}
            ),
            ".side",
        ),
        (
            lambda s: s["items"].append(
                {"item": "unit", "points": [[0, 0]] * 4, "side": "red", "label": "", "look": "x"}
            ),
            ".look",
        ),
        (lambda s: s["items"].append({"item": "arrow", "points": [[0, 0], [1, 1]], "kind": "teleport"}), ".kind"),
        (lambda s: s["items"].append({"item": "marker", "at": [0, True], "kind": "combat"}), ".at"),
        (lambda s: s["items"].append({"item": "label", "at": [0, 0], "text": "x" * 81}), "longer than 80"),
        (lambda s: s["items"].append({"item": "circle"}), "is not an item"),
        (
            lambda s: s["items"].append(
                {"item": "terrain", "kind": "woods", "points": [[0, 0], [1, float("nan")], [2, 2]]}
            ),
            "points",
        ),
    ],
)
def test_check_scene_refuses_a_malformed_scene_naming_the_fault(change: Any, fault: str) -> None:
    made = copy.deepcopy(full())
    change(made)
    with pytest.raises(GameDataError, match="picture") as raised:
        check_scene(made)
    assert fault in str(raised.value)


def test_svg_is_well_formed_deterministic_and_escaped() -> None:
    made = full()
    made["items"].append(label_item((600, 450), 'a <b>"bold"</b> & \x07 move'))
    drawn = pictures.svg(made)
    assert drawn == pictures.svg(copy.deepcopy(made))
    root = ElementTree.fromstring(drawn)
    assert root.tag == f"{SVG}svg" and root.get("version") == "1.1"
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert 'a <b>"bold"</b> & ? move' in texts  # escaped in the SVG, read back whole; the bell replaced
    assert "<b>" not in drawn
    # Units with a heavier front edge, arrows with heads, the scale bar in cm and the compass.
    assert len([p for p in root.iter(f"{SVG}polyline") if p.get("stroke-width") == "2.6"]) == 5
    assert {"0", "10", "20", "30", "cm", "N"} <= set(texts)


def test_png_is_small_deterministic_and_the_pictures_size() -> None:
    made = full()
    data = pictures.png(made)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) < 40 * 1024
    pictures._png.cache_clear()
    assert pictures.png(copy.deepcopy(made)) == data  # drawn again, byte for byte
    image = Image.open(io.BytesIO(data))
    laid = pictures.layout(made)
    assert image.size == (laid.width, laid.height)
    assert image.mode == "P"  # a palette: a few dozen colours, not millions


def test_the_legend_names_what_the_picture_holds() -> None:
    words = "\n".join(pictures.legend(full()))
    assert "a face-down card: a real unit or a dummy, you cannot tell which" in words
    assert "a charge" in words and "a combat" in words and "10 cm" in words
    plain = "\n".join(pictures.legend(table(unit_item(Pose(300, 300, 0), CARD, "blue", "B1"))))
    assert "charge" not in plain and "face-down" not in plain


def test_a_scene_of_bases_calls_its_units_bases_in_the_legend() -> None:
    bases = scene(
        "Turn 1: the battlefield", 1200, 900, SIDES, [unit_item(Pose(300, 300, 0), CARD, "blue", "V")], piece="base"
    )
    words = pictures.legend(bases)
    assert words[0].endswith(": blue bases") and "filled base: a base (a heavier line marks its front edge)" in words
    assert not any("card" in line for line in words)
    with pytest.raises(GameDataError, match=r"picture\.piece is not one lower-case word"):
        check_scene({**bases, "piece": "Bases!"})


def test_a_letter_picture_checks_the_scene_first() -> None:
    made = full()
    made["items"].append({"item": "unit", "points": [], "side": "blue", "label": "", "look": "unit"})
    with pytest.raises(GameDataError):
        pictures.letter_picture(made, "x.png")
    shown = pictures.letter_picture(full(), "game-0003-t1-move-blue.battlefield.png")
    assert shown["svg"].startswith("<svg ") and shown["file"].endswith(".png") and shown["legend"]


def test_an_encrypted_letter_carries_its_picture_inside_the_encryption(tmp_path: Any) -> None:
    """The PNG is a private attachment: a player who asked for encryption gets it sealed."""
    from referee.letters.encryption import seal_letter
    from referee.letters.outbox import Attachment, Letter
    from referee.protocol.signatures import generate_keypair, load_public_key_file

    generate_keypair(tmp_path / "alice", comment="alice@example.org")
    key = load_public_key_file(tmp_path / "alice.pub")
    data = pictures.png(full())
    letter = Letter(
        "alice@example.org",
        "[g] turn 1 move: report",
        "text",
        "<svg></svg>",
        "<x@example.org>",
        attachments=[Attachment("g-0001-t1-move-alice.battlefield-after.png", data, "image/png", kept=False)],
    )
    sealed = seal_letter(letter, [key], "alice", "Referee", "referee@example.org")
    (item,) = sealed.attachments
    assert item.filename == "g-0001-t1-move-alice.battlefield-after.png.age"
    # The armored ciphertext is base64, where "PNG" turns up by chance (about 1 in 14 pictures):
    # look for the 8-byte PNG signature in the decoded bytes instead.
    armored = item.data.decode("ascii").splitlines()
    assert armored[0] == "-----BEGIN AGE ENCRYPTED FILE-----" and armored[-1] == "-----END AGE ENCRYPTED FILE-----"
    body = base64.b64decode("".join(armored[1:-1]))
    assert body.startswith(b"age-encryption.org/v1\n") and b"\x89PNG\r\n\x1a\n" not in body
    assert "<svg" not in sealed.html
