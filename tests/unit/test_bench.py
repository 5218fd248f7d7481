"""scripts/bench runs: each section at toy size (--smoke), its figures written as JSON. Nothing
here is timed: the figures of a toy run mean nothing, only that every section still works."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mailservers import dovecot_available

ROOT = Path(__file__).resolve().parents[2]


def run_bench(tmp_path: Path, sections: str) -> dict[str, list[dict[str, object]]]:
    out = tmp_path / "figures.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench"), "--smoke", "--only", sections, "--json", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found: dict[str, list[dict[str, object]]] = {}
    for figure in json.loads(out.read_text())["figures"]:
        found.setdefault(str(figure["section"]), []).append(figure)
    return found


def test_the_bench_sections_without_mail_run_and_state_their_aims(tmp_path: Path) -> None:
    found = run_bench(tmp_path, "dice,phase,players,growth")
    assert sorted(found) == ["dice", "growth", "phase", "players"]
    aims = {str(f["name"]): f["aim"] for figures in found.values() for f in figures if f["aim"]}
    assert any(aim == ">= 0.5x" and "labelled" in name for name, aim in aims.items())
    assert any(aim == ">= 3x" and "one stream" in name for name, aim in aims.items())
    assert any(aim == "< 0.5 s" for aim in aims.values())
    assert any(aim == "<= 100 KiB" for aim in aims.values())
    assert len(found["growth"]) == 5  # a round, verify, audit, the idle pass, bytes
    # players: what more players add, at two roll counts (the aim); 32 over 2 at one, for scale
    added, scale = found["players"]
    assert "more players add" in str(added["name"]) and "<= 1.5x" in str(added["aim"])
    assert "/ of 2 players" in str(scale["name"]) and not scale["aim"]


@pytest.mark.skipif(not dovecot_available(), reason="Dovecot is not installed: scripts/test installs dovecot-imapd")
def test_the_bench_mail_sections_run_against_dovecot(tmp_path: Path) -> None:
    found = run_bench(tmp_path, "idle,intake,watch")
    assert sorted(found) == ["idle", "intake", "watch"]
    (intake,) = found["intake"]
    assert "UID FETCH" in str(intake["detail"]) and "tagged in all" in str(intake["detail"])
