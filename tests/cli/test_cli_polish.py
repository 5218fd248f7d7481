"""The command line's polish (issue 18, item 6): one refusal for a GAMEDIR with no game in it,
`verify` with nothing adjudicated, `--json` for scripts, help in sections, completion, and
`sign` without a terminal. Commands run through `referee.cli.main`, the one place that exits."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import pytest

from referee.cli import COMMAND_SECTIONS, cli, main
from referee.game.engine import adjudicate
from referee.game.journal import GameDir

if TYPE_CHECKING:
    from conftest import TestGame

ROLLS = "rolls:\n  - {label: attack, dice: 2d6, purpose: the attack}\n"
Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """Run `referee ARGS` in this process; return (exit code, stdout, stderr)."""

    def call(*args: str | Path) -> tuple[int, str, str]:
        capsys.readouterr()
        monkeypatch.setattr(sys, "argv", ["referee", *map(str, args)])
        try:
            main()
            code = 0
        except SystemExit as exited:
            code = int(exited.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return call


def commands(group: click.Group = cli, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        else:
            yield (*path, name), command


def arguments_for(command: click.Command, gamedir: Path, a_file: Path) -> list[str]:
    """Return a command line for `command` that would pass click's own checks, GAMEDIR first."""
    args: list[str] = []
    for param in command.params:
        if isinstance(param, click.Argument):
            if param.name == "gamedir":
                args.append(str(gamedir))
            elif param.nargs == -1:
                continue
            elif isinstance(param.type, click.Choice):
                args.append(str(param.type.choices[0]))
            elif isinstance(param.type, click.Path):
                args.append(str(a_file))
            elif isinstance(param.type, click.types.IntParamType):
                args.append("1")
            else:
                args.append("x")
        elif isinstance(param, click.Option) and param.required:
            args += [param.opts[0], str(a_file) if isinstance(param.type, click.Path) else "x"]
    return args


GAME_COMMANDS = [
    path for path, command in commands() if any(p.name == "gamedir" for p in command.params) and path != ("init",)
]


def test_the_game_commands_are_found() -> None:
    assert {("status",), ("verify",), ("audit",), ("become",), ("dispute", "list")} <= set(GAME_COMMANDS)


@pytest.mark.parametrize("where", ["missing", "empty", "a-file"])
@pytest.mark.parametrize("path", GAME_COMMANDS, ids=" ".join)
def test_a_gamedir_with_no_game_is_refused_alike_with_exit_2(
    run: Run, tmp_path: Path, path: tuple[str, ...], where: str
) -> None:
    a_file = tmp_path / "orders.yaml"
    a_file.write_text("orders: {}\n")
    gamedir = {"missing": tmp_path / "nowhere", "empty": tmp_path / "empty", "a-file": a_file}[where]
    (tmp_path / "empty").mkdir()
    command = dict(commands())[path]
    code, out, err = run(*path, *arguments_for(command, gamedir, a_file))
    assert code == 2, (out, err)
    assert err.startswith(f"referee: error: no game in {gamedir}: "), err
    assert "referee: hint: check the path" in err


@pytest.fixture
def game(make_game: Callable[..., TestGame], tmp_path: Path) -> TestGame:
    return make_game(tmp_path)


def test_verify_with_nothing_adjudicated_says_so_and_exits_0(run: Run, game: TestGame) -> None:
    code, out, err = run("verify", game.dir)
    assert (code, err) == (0, "") and out.startswith("nothing to verify yet: no phase adjudicated")
    code, out, _ = run("verify", game.dir, "--json")
    assert code == 0 and json.loads(out) == {"ok": True, "adjudicated": False, "records": 0}


def play_a_round(game: TestGame) -> None:
    for player in ("alice", "bob", "carol"):
        assert game.submit(player, 1, ROLLS).accepted
    adjudicate(game.dir)


def test_json_output_of_status_verify_audit_and_disputes(run: Run, game: TestGame) -> None:
    play_a_round(game)
    code, out, _ = run("status", game.dir, "--json", "--clock")
    info = json.loads(out)
    assert code == 0 and info["adjudicated"] == 1 and info["turn"] == 2
    assert [p["turn"] for p in info["clock"]["phases"]] == [1, 2] and set(info["clock"]["totals"]) == {
        "alice",
        "bob",
        "carol",
    }

    code, out, _ = run("verify", game.dir, "--json")
    checked = json.loads(out)
    assert code == 0 and checked["ok"] and checked["records"] == 1 and checked["rolls"] == 3
    assert checked["problems"] == [] and checked["letters"] is None

    code, out, _ = run("audit", game.dir, "--json")
    audited = json.loads(out)
    assert code == 0 and audited["ok"] and not audited["public"] and audited["phases"] == 2  # the open phase too
    assert audited["divergence"] is None

    code, out, _ = run("dispute", "list", game.dir, "--json")
    assert code == 0 and json.loads(out) == []
    journal = GameDir(game.dir)
    with journal.transaction():
        journal.log("dispute.opened", {"number": 1, "player": "bob", "label": "attack", "reason": "odd"}, 1, "round")
    journal.close()
    code, out, _ = run("dispute", "list", game.dir, "--json")
    (dispute,) = json.loads(out)
    assert code == 0 and (dispute["number"], dispute["state"], dispute["player"]) == (1, "open", "bob")


def test_verify_json_lists_the_problems_and_exits_3(run: Run, game: TestGame) -> None:
    play_a_round(game)
    record = next((game.dir / "records").glob("*.json"))
    record.write_bytes(record.read_bytes().replace(b'"turn": 1', b'"turn": 7'))
    code, out, err = run("verify", game.dir, "--json")
    checked = json.loads(out)
    assert code == 3 and not checked["ok"] and checked["problems"] and "problem(s)" in err


def test_status_clock_text(run: Run, game: TestGame) -> None:
    code, out, _ = run("status", game.dir, "--clock")
    assert code == 0 and "\nclock " in out and "total" in out and "alice" in out


def test_every_command_has_a_section_in_the_help(run: Run) -> None:
    missing = sorted(set(cli.commands) - set(COMMAND_SECTIONS))
    assert not missing, f"add each to COMMAND_SECTIONS in referee/cli.py: {missing}"
    code, out, _ = run("--help")
    assert code == 0 and "Other commands" not in out
    titles = [line for line in out.splitlines() if line and not line.startswith(" ") and line.endswith(":")]
    assert titles[1:] == [  # after "Options:"
        "Players: keys, signing orders, checking the referee:",
        "Referee: running one game (GAMEDIR):",
        "Mail service: the referee's home of games:",
        "Trying it out:",
    ]


def referee_process(
    *args: str | Path, env: dict[str, str] | None = None, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """Run the command as a script would: as `referee`, no terminal on stdin."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("REFEREE_", "_REFEREE_"))}
    program = "import sys; sys.argv[0] = 'referee'; from referee.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", program, *map(str, args)],
        env={**clean, **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        **kwargs,
    )


def test_the_bash_completion_script_is_generated_and_completes() -> None:
    script = referee_process(env={"_REFEREE_COMPLETE": "bash_source"})
    assert script.returncode == 0 and "complete -o nosort -F _referee_completion referee" in script.stdout
    done = referee_process(env={"_REFEREE_COMPLETE": "bash_complete", "COMP_WORDS": "referee sta", "COMP_CWORD": "1"})
    assert done.returncode == 0 and done.stdout.split() == ["plain,status"]


def test_sign_without_a_terminal_fails_at_once_naming_the_ways(tmp_path: Path, ssh_keygen: str) -> None:
    key = tmp_path / "key"
    subprocess.run([ssh_keygen, "-q", "-t", "ed25519", "-N", "secret", "-C", "alice", "-f", key], check=True)
    orders = tmp_path / "orders.yaml"
    orders.write_text("game: g\nturn: 1\nphase: round\nplayer: alice\norders: {}\n")
    before = orders.read_bytes()

    refused = referee_process("sign", orders, "--key", key)
    assert refused.returncode == 1
    assert "protected by a passphrase and there is no terminal" in refused.stderr
    for way in ("REFEREE_KEY_PASSPHRASE", f"ssh-add {key}", "--agent", "ssh-keygen -Y sign"):
        assert way in refused.stderr
    assert "Warning" not in refused.stderr and "aborted" not in refused.stderr
    assert orders.read_bytes() == before and not (tmp_path / "orders.yaml.sig").exists()

    signed = referee_process("sign", orders, "--key", key, env={"REFEREE_KEY_PASSPHRASE": "secret"})
    assert signed.returncode == 0, signed.stderr
    assert_signed_by(ssh_keygen, orders, tmp_path / "key.pub")


def assert_signed_by(ssh_keygen: str, orders: Path, public: Path) -> None:
    allowed = orders.with_name("allowed")
    allowed.write_text("alice " + public.read_text())
    with orders.open("rb") as content:
        check = subprocess.run(
            [ssh_keygen, "-Y", "verify", "-f", allowed, "-I", "alice", "-n", "pbem-orders", "-s", f"{orders}.sig"],
            stdin=content,
            capture_output=True,
            check=False,
        )
    assert check.returncode == 0, check.stderr


@pytest.fixture
def ssh_agent(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A real ssh-agent of its own, stopped after the test: its environment (SSH_AUTH_SOCK...)."""
    if shutil.which("ssh-agent") is None or shutil.which("ssh-add") is None:
        pytest.skip("needs OpenSSH's ssh-agent and ssh-add")
    socket = tmp_path / "agent.sock"
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", str(socket)], stdout=subprocess.DEVNULL)
    for _ in range(100):
        if socket.exists():
            break
        time.sleep(0.05)
    try:
        yield {"SSH_AUTH_SOCK": str(socket)}
    finally:
        agent.terminate()
        agent.wait(timeout=10)


def test_sign_with_the_agent_needs_no_passphrase(tmp_path: Path, ssh_keygen: str, ssh_agent: dict[str, str]) -> None:
    key = tmp_path / "key"
    subprocess.run([ssh_keygen, "-q", "-t", "ed25519", "-N", "secret", "-C", "alice", "-f", key], check=True)
    orders = tmp_path / "orders.yaml"
    orders.write_text("game: g\nturn: 1\nphase: round\nplayer: alice\norders: {}\n")

    absent = referee_process("sign", orders, "--key", key, "--agent", env=ssh_agent)
    assert absent.returncode == 1 and f"ssh-add {key}" in absent.stderr, absent.stderr
    assert not Path(f"{orders}.sig").exists()

    askpass = tmp_path / "askpass"
    askpass.write_text("#!/bin/sh\necho secret\n")
    askpass.chmod(0o700)
    added = subprocess.run(
        ["ssh-add", key],
        env={**os.environ, **ssh_agent, "SSH_ASKPASS": str(askpass), "SSH_ASKPASS_REQUIRE": "force", "DISPLAY": "x"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    assert added.returncode == 0, added.stderr
    signed = referee_process("sign", orders, "--key", key, "--agent", env=ssh_agent)
    assert signed.returncode == 0, signed.stderr
    assert "entropy: " in orders.read_text()  # filled in before signing, as without the agent
    assert_signed_by(ssh_keygen, orders, tmp_path / "key.pub")


def test_become_fills_the_header_and_keeps_a_refusal_on_the_terminal(run: Run, game: TestGame, tmp_path: Path) -> None:
    outbox = game.dir / "outbox" / "new"
    mails = set(outbox.iterdir())
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text("player: bob\norders:\n  " + ROLLS.replace("\n  ", "\n    "))
    code, out, err = run("become", game.dir, "carol", wrong)
    assert code == 1 and out == "filled in for the open phase: game, turn, phase\n"
    assert f"referee: error: {wrong} was refused; nothing was sent to carol" in err
    assert "referee:   - player: the file says player 'bob', but the referee is entering orders for 'carol'" in err
    assert set(outbox.iterdir()) == mails

    right = tmp_path / "right.yaml"
    right.write_text("orders:\n  " + ROLLS.replace("\n  ", "\n    "))
    code, out, err = run("become", game.dir, "carol", right)
    assert code == 0, err
    assert out.startswith("filled in for the open phase: game, turn, phase, player\n")
    assert "entered this file on your behalf" in out
    assert len(set(outbox.iterdir()) - mails) == 1  # the acknowledgement, to carol
