"""`referee submit` with the order file that crashed it (issue 14): 50 KB of nested brackets made
libyaml recurse in C until the process died with SIGSEGV, before the signature was checked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MakeGame

DEEP = "note: " + "[" * 25_000 + "]" * 25_000 + "\n"


def referee_submit(game_dir: Path, order: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "referee", "submit", str(game_dir), str(order)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("signer", ["alice", None])
def test_submit_refuses_the_nested_bracket_file_with_a_clear_message(
    make_game: MakeGame, tmp_path: Path, signer: str | None
) -> None:
    game = make_game(tmp_path)
    raw = game.order("alice", 1, DEEP)
    assert len(raw) > 50_000
    order = tmp_path / "orders.yaml"
    order.write_bytes(raw)
    if signer is not None:
        (tmp_path / "orders.yaml.sig").write_text(game.signed(signer, raw))

    result = referee_submit(game.dir, order)

    assert result.returncode == 1, (result.returncode, result.stderr[-2000:])  # refused; not -11 (SIGSEGV)
    assert "Traceback" not in result.stderr
    output = result.stdout + result.stderr
    if signer is None:
        assert "no signature" in output
    else:
        assert "your order file nests 25,002 levels deep; at most 64 are allowed" in output
