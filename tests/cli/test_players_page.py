"""docs/players.md, run as a new player would: every shell block of the page, in order, offline.

The page's first block makes the player's key (as `tallard`, with an empty passphrase: the test
has no terminal to type one). The test then plays the referee: it creates the game `blenheim`
with that key, plays turn 1, and leaves in the player's folder what their mail brought (the
report and its signature, the record, the referee's key, the page's order file for turn 2 and
its command file, the check script of docs/protocol.md). Then every other `sh` block of the page
runs there, verbatim, and must succeed; what the page says a command prints is checked, and the
order file the page signs is submitted to the game and must be accepted. Mail itself (sending
orders, commands) is left out: that is the mail tests' work.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import kept_letters
import pytest

from referee.demo import TABLES
from referee.game.engine import adjudicate, init_game, submit
from referee.letters.kept import read_kept
from referee.protocol.signatures import generate_keypair, load_private_key, sign, verify

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "players.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)


def blocks(kind: str) -> list[str]:
    """Return the page's fenced blocks of one kind (`sh`, `yaml`), in order."""
    return [body for lang, body in FENCE.findall(PAGE.read_text(encoding="utf-8")) if lang == kind]


def protocol_check_script() -> str:
    """Return the 30-line script of docs/protocol.md, section 7, that the page tells players to save."""
    section = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8").split("## 7. Checking a record by hand")[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def run_block(block: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, f"docs/players.md block failed:\n{block}\n{result.stderr}\n{result.stdout}"
    return result


@pytest.fixture
def player_env(tmp_path: Path) -> dict[str, str]:
    home, bin_dir = tmp_path / "home", tmp_path / "bin"
    home.mkdir()
    bin_dir.mkdir()
    # `referee` as the player has it: the console command of this checkout.
    (bin_dir / "referee").write_text(f'#!/bin/sh\nexec {sys.executable} -m referee "$@"\n')
    (bin_dir / "referee").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    env.update(HOME=str(home), PATH=f"{bin_dir}:{env['PATH']}", PYTHONPATH=str(ROOT))
    return env


def test_every_command_of_the_players_page_runs(tmp_path: Path, player_env: dict[str, str]) -> None:
    home = Path(player_env["HOME"])
    folder = tmp_path / "play"
    folder.mkdir()
    shell = blocks("sh")
    keygen, rest = shell[0], shell[1:]
    assert keygen.startswith("ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519")
    (home / ".ssh").mkdir(mode=0o700)
    run_block(keygen.replace("ssh-keygen -t ed25519", 'ssh-keygen -t ed25519 -N ""'), folder, player_env)
    key = home / ".ssh" / "id_ed25519"

    # The referee's side: the game, with the player's new key, and turn 1 played.
    referee_dir = tmp_path / "referee"
    (referee_dir / "keys").mkdir(parents=True)
    shutil.copy(f"{key}.pub", referee_dir / "keys" / "tallard.pub")
    generate_keypair(referee_dir / "keys" / "eugene", comment="eugene@example.org")
    (referee_dir / "tables.yaml").write_text(TABLES)
    (referee_dir / "game.yaml").write_text(
        "game: blenheim\nmodule: moderator\ntitle: Blenheim\ntables: tables.yaml\n"
        "referee: {email: referee@example.org, name: The Umpire}\nplayers:\n"
        "  - {name: tallard, email: tallard@example.org, key_file: keys/tallard.pub}\n"
        "  - {name: eugene, email: eugene@example.org, key_file: keys/eugene.pub}\n"
    )
    game = referee_dir / "blenheim"
    init_game(game, referee_dir / "game.yaml")
    turn_one = {
        "tallard": "rolls:\n  - {label: charge, dice: 2d6, table: morale, modifiers: [elite], purpose: the charge}\n",
        "eugene": "rolls:\n  - {label: volley, table: fire, column: line, purpose: volley at 50 paces}\n",
    }
    for player, orders in turn_one.items():
        raw = f"game: blenheim\nturn: 1\nphase: round\nplayer: {player}\norders:\n" + "".join(
            f"  {line}\n" for line in orders.splitlines()
        )
        signer = load_private_key(key if player == "tallard" else referee_dir / "keys" / "eugene")
        assert submit(game, raw.encode(), sign(raw.encode(), signer, "pbem-orders")).accepted
    adjudicate(game)

    # What the player's mail brought, saved as the page says.
    (folder / "blenheim" / "records").mkdir(parents=True)
    for record in (game / "records").glob("0001-*"):
        shutil.copy(record, folder / "blenheim" / "records")
    shutil.copy(game / "referee.pub", folder / "blenheim" / "referee.pub")
    for name in ("tallard.report.txt", "tallard.report.txt.sig"):
        (folder / name).write_bytes(read_kept(game / "mail" / "0001-t1-round" / name))
    order_yaml, command_yaml = blocks("yaml")
    (folder / "orders.yaml").write_text(order_yaml)
    (folder / "command.yaml").write_text(command_yaml)
    (folder / "check_record.py").write_text(protocol_check_script())
    if shutil.which("age"):
        subprocess.run(
            ["age", "-R", f"{key}.pub", "-o", folder / "tallard.report.txt.age", folder / "tallard.report.txt"],
            check=True,
        )

    outputs = {}
    for block in rest:
        if block.startswith("age ") and not shutil.which("age"):
            continue  # scripts/test installs age; without it, only this block is left out
        outputs[block] = run_block(block, folder, player_env)

    said = {
        block.split()[0] + " " + block.split()[1]: result.stdout + result.stderr for block, result in outputs.items()
    }
    assert "ssh-ed25519 " in said["cat ~/.ssh/id_ed25519.pub"]
    signature_check = next(text for block, text in said.items() if block.startswith("echo "))
    assert 'Good "pbem-referee" signature for referee' in signature_check
    assert said["referee verify"].startswith("ok: 1 record(s)")
    assert "(the record says [" in said["referee explain"]
    assert said["python3 check_record.py"].startswith("OK: 2 rolls re-derived")
    if shutil.which("age"):
        assert read_kept(folder / "tallard.report.txt") == read_kept(game / "mail/0001-t1-round/tallard.report.txt")
        assert any(block.startswith("age -d") for block in outputs)

    # The order file the page signs is one the game accepts (the last signature: referee sign's).
    raw = (folder / "orders.yaml").read_bytes()
    receipt = submit(game, raw, (folder / "orders.yaml.sig").read_bytes())
    assert receipt.accepted, receipt.problems
    # The command file is signed in its own namespace, by the player's key.
    verify((folder / "command.yaml").read_bytes(), (folder / "command.yaml.sig").read_bytes(), "pbem-command")


def test_the_refusal_the_page_shows_is_the_one_players_get(tmp_path: Path) -> None:
    page = PAGE.read_text(encoding="utf-8")
    shown = re.search(r"^      - (orders\.rolls\[0\]\.table: .*)$", page, re.M)
    assert shown is not None
    setup = tmp_path / "setup"
    (setup / "keys").mkdir(parents=True)
    generate_keypair(setup / "keys" / "tallard", comment="tallard@example.org")
    (setup / "tables.yaml").write_text(TABLES)
    (setup / "game.yaml").write_text(
        "game: blenheim\nmodule: moderator\ntitle: Blenheim\ntables: tables.yaml\n"
        "referee: {email: referee@example.org, name: The Umpire}\nplayers:\n"
        "  - {name: tallard, email: tallard@example.org, key_file: keys/tallard.pub}\n"
    )
    init_game(tmp_path / "blenheim", setup / "game.yaml")
    raw = (
        b"game: blenheim\nturn: 1\nphase: round\nplayer: tallard\norders:\n"
        b"  rolls:\n  - {label: cavalry-charge, table: moral, purpose: the charge}\n"
    )
    receipt = submit(tmp_path / "blenheim", raw, sign(raw, load_private_key(setup / "keys" / "tallard"), "pbem-orders"))
    assert not receipt.accepted
    assert receipt.letter is not None
    # The letter wraps long lines; the page shows the problem on one line.
    assert " ".join(shown.group(1).split()) in " ".join(kept_letters.read_text(receipt.letter).split())
