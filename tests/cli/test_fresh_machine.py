"""README's two commands, verbatim, on a fresh copy of the checkout, as a new user runs them.

A copy of the working tree (the files git tracks or would track, as a clone would hold them)
gets a fresh HOME and a PATH that finds the system's own Python first (/usr/bin/python3: on
Debian and Ubuntu it refuses `pip install` with PEP 668's "externally-managed-environment").
`scripts/demo` must make .venv, install referee there from PyPI and play the demo game;
`scripts/test` is checked up to the end of its install step (`--install-only`: running the whole
suite inside the suite is not wanted). Then, in a second copy, the same first command inside an
already active virtual environment must install there and make no .venv. About half a minute
on a warm network; skipped, saying why, when PyPI cannot be reached.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = Path("/usr/bin/python3")
README_FIRST = "scripts/demo"
README_SECOND = "scripts/test"
TIMEOUT = 300  # seconds per command: a cold pip download of every dependency takes about 30


def _system_python_is_new_enough() -> bool:
    if not SYSTEM_PYTHON.exists():
        return False
    check = "import sys; sys.exit(sys.version_info < (3, 11))"
    return subprocess.run([SYSTEM_PYTHON, "-c", check], check=False).returncode == 0


def _pypi_reachable() -> bool:
    try:
        with socket.create_connection(("pypi.org", 443), timeout=5):
            return True
    except OSError:
        return False


def _readme_commands() -> list[str]:
    """Return the first two indented commands under README's "Two commands for a fresh machine"."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Two commands for a fresh machine", 1)[1].split("\n## ", 1)[0]
    return [line.strip() for line in section.splitlines() if line.startswith("    ") and line.strip()][:2]


def _copy_checkout(target: Path) -> None:
    """Copy the working tree's files as a clone holds them (tracked and not ignored), nothing else."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / os.fsdecode(name)
        if source.is_file():
            (target / os.fsdecode(name)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / os.fsdecode(name))


def _fresh_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment like a new login: fresh HOME, the system's Python first on PATH."""
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin:/usr/local/bin:/usr/sbin:/sbin", "LANG": "C.UTF-8"}
    env.update(extra)
    return env


def _run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    assert result.returncode == 0, f"`{command}` failed ({result.returncode}):\n{result.stderr}\n{result.stdout}"
    return result


def _assert_our_launcher(venv: Path) -> None:
    """The installed `referee` is scripts/referee (no `re`, unlike pip's console script) with the
    environment's Python in its first line."""
    installed = (venv / "bin" / "referee").read_text(encoding="utf-8")
    first, rest = installed.split("\n", 1)
    assert first == f"#!{venv}/bin/python" or first.startswith(f"#!{venv}/bin/python3"), first
    assert rest == (ROOT / "scripts" / "referee").read_text(encoding="utf-8").split("\n", 1)[1]


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout: nothing to copy as a clone would")
@pytest.mark.skipif(
    not _system_python_is_new_enough(), reason="no Python 3.11 or newer at /usr/bin/python3 (README asks for one)"
)
def test_readme_commands_on_a_fresh_machine(tmp_path: Path) -> None:
    assert _readme_commands() == [README_FIRST, README_SECOND], "README's two commands changed: update this test"
    if not _pypi_reachable():
        pytest.skip("PyPI (pypi.org:443) cannot be reached: the install needs the network")
    checkout, home = tmp_path / "referee", tmp_path / "home"
    checkout.mkdir()
    home.mkdir()
    _copy_checkout(checkout)

    demo = _run(README_FIRST, checkout, _fresh_env(home))
    assert f"making a virtual environment in .venv (with {SYSTEM_PYTHON}," in demo.stderr
    assert "verified: 3 records" in demo.stdout
    assert ".venv/bin/referee" in demo.stderr  # says how to use it afterwards
    assert _run(".venv/bin/referee --version", checkout, _fresh_env(home)).stdout.startswith("referee")
    _assert_our_launcher(checkout / ".venv")

    tests = _run(f"{README_SECOND} --install-only", checkout, _fresh_env(home))
    assert "editable" in tests.stderr
    assert _run(".venv/bin/referee --version", checkout, _fresh_env(home)).stdout.startswith("referee")
    _assert_our_launcher(checkout / ".venv")  # an editable install gets it too
    _run(".venv/bin/python -m pytest --version && .venv/bin/python -m mypy --version", checkout, _fresh_env(home))

    # The same first command inside an active virtual environment: installs there, makes no .venv.
    venv = checkout / ".venv"
    second = tmp_path / "second"
    second.mkdir()
    _copy_checkout(second)
    active = _fresh_env(home, VIRTUAL_ENV=str(venv))
    active["PATH"] = f"{venv}/bin:{active['PATH']}"
    again = _run(README_FIRST, second, active)
    assert f"using the active virtual environment {venv}" in again.stderr
    assert "verified: 3 records" in again.stdout
    assert not (second / ".venv").exists()


def test_an_old_python_is_refused_with_what_to_do(tmp_path: Path) -> None:
    """scripts/demo names the Python it needs; nothing is made or installed."""
    fake = tmp_path / "bin"
    fake.mkdir()
    old = fake / "python3"
    # Answers the scripts' two questions as Python 3.9 would: its version, and "3.11 or newer?" (no).
    old.write_text('#!/bin/sh\ncase "$*" in *">="*) exit 1;; *version_info*) echo 3.9;; esac\n')
    old.chmod(0o755)
    checkout = tmp_path / "referee"
    checkout.mkdir()
    (checkout / "scripts").mkdir()
    for name in ("demo", "python-env.sh"):
        shutil.copy2(ROOT / "scripts" / name, checkout / "scripts" / name)
    result = subprocess.run(
        ["scripts/demo"],
        cwd=checkout,
        env={"HOME": str(tmp_path), "PATH": f"{fake}:/usr/bin:/bin", "PYTHON": str(old)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "needs Python 3.11 or newer" in result.stderr
    assert not (checkout / ".venv").exists()
