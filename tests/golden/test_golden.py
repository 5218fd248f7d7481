"""Records, letters, states and command output of whole games are byte-identical to those the
code made before (tests/golden/golden.py says how the games are played and how to update)."""

from __future__ import annotations

from pathlib import Path

import golden
import pytest


@pytest.mark.parametrize("name", golden.scenarios())
def test_a_golden_game_is_played_byte_for_byte_as_before(name: str, tmp_path: Path) -> None:
    files = golden.play(name, tmp_path / "work")
    golden.keep(files, tmp_path / "made")
    transcript, manifest = golden.expected(name)
    assert files[golden.TRANSCRIPT].decode("utf-8") == transcript
    made, before = golden.hashes(golden.manifest(files)), golden.hashes(manifest)
    assert sorted(made) == sorted(before), (
        f"new: {sorted(set(made) - set(before))}, gone: {sorted(set(before) - set(made))}"
    )
    changed = sorted(path for path in before if made[path] != before[path])
    assert not changed, f"changed from before (the files made are in {tmp_path / 'made'}): {changed}"
