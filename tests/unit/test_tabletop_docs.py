"""docs/tabletop.md's example runs as written and does what the page says."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.kit import tabletop

DOC = Path(__file__).resolve().parents[2] / "docs" / "tabletop.md"


def test_the_example_game_charges_into_a_flank() -> None:
    code = re.search(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert code
    space: dict[str, Any] = {}
    exec(code.group(1), space)
    state = {
        "units": {"a": {"x": -200, "y": 40, "facing": "east"}, "b": {"x": 0, "y": 0, "facing": 0}},
        "terrain": [{"id": "w", "kind": "wood", "rect": [-100, -50, -60, 50]}],
    }
    length, slowed = space["charge"](state, "a", "b", "left")
    assert state["units"]["a"] == {"x": -40, "y": 10, "facing": 90}
    assert length == pytest.approx(tabletop.centre_distance(tabletop.Pose(-200, 40, 90), tabletop.Pose(-40, 10, 90)))
    assert slowed


def test_the_yaml_example_reads() -> None:
    text = re.search(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert text
    pieces = tabletop.pieces_from(yaml.safe_load(text.group(1))["terrain"])
    assert [piece.id for piece in pieces] == ["wood-1", "hill-1", "river"]
