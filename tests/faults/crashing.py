"""Run the `referee` command line and kill it at its N-th write: the crash injection of issue 14.

A write point is every place where a command changes what is on disk: a file opened for writing,
a rename, a link, an unlink, and every SQLite statement that commits (COMMIT, or a change made
outside a transaction). `run(args, crash_at=N)` runs the command in a forked child that dies
with os._exit(CRASHED) just before its N-th write point, as a power cut would stop it; with
`crash_at=None` it runs to the end and reports how many write points it passed.

Forked rather than started anew, so that each of the hundreds of runs costs no interpreter
start-up; from a shell: `python tests/faults/crashing.py N referee-arguments...`.
"""

from __future__ import annotations

import builtins
import io
import os
import sqlite3
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CRASHED = 86
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
SQL_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "ALTER", "DROP", "PRAGMA USER_VERSION")


@dataclass
class Run:
    """How a command run ended: its exit code (CRASHED when killed), output and write points."""

    code: int
    stdout: str
    stderr: str
    writes: int

    @property
    def crashed(self) -> bool:
        return self.code == CRASHED


class _Points:
    """Counts write points; dies at the chosen one."""

    def __init__(self, crash_at: int | None) -> None:
        self.crash_at = crash_at
        self.count = 0

    def hit(self) -> None:
        self.count += 1
        if self.crash_at is not None and self.count >= self.crash_at:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(CRASHED)


def _install(points: _Points) -> None:
    """Patch every write point of the process to pass through `points`."""

    def wrap(function: Any) -> Any:
        def patched(*args: Any, **kwargs: Any) -> Any:
            points.hit()
            return function(*args, **kwargs)

        return patched

    for name in ("replace", "rename", "link", "unlink", "remove", "rmdir"):
        setattr(os, name, wrap(getattr(os, name)))

    real_os_open = os.open

    def os_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & WRITE_FLAGS and not str(path).endswith(".lock"):
            points.hit()
        return real_os_open(path, flags, *args, **kwargs)

    os.open = os_open  # type: ignore[assignment]
    real_open = builtins.open

    def open_(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if any(c in mode for c in "wax+") and not str(file).endswith(".lock"):
            points.hit()
        return real_open(file, mode, *args, **kwargs)

    builtins.open = open_  # type: ignore[assignment]
    io.open = open_  # type: ignore[assignment]
    real_connect = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        connection = real_connect(*args, **kwargs)

        def trace(statement: str) -> None:
            text = " ".join(statement.split()).upper()
            if text.startswith("COMMIT") or (not connection.in_transaction and text.startswith(SQL_WRITES)):
                points.hit()

        connection.set_trace_callback(trace)
        return connection

    sqlite3.connect = connect  # type: ignore[assignment]


def _main(args: list[str], points: _Points) -> int:
    _install(points)
    from referee.cli import main

    sys.argv = ["referee", *args]
    try:
        main()
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 1
    return 0


def run(args: list[str], crash_at: int | None = None) -> Run:
    """Run `referee ARGS` in a forked child, killed at write point `crash_at` (None: never)."""
    with tempfile.TemporaryDirectory() as folder:
        out, err, count = (Path(folder) / name for name in ("out", "err", "count"))
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 1
            try:
                with open(out, "wb") as o, open(err, "wb") as e:
                    os.dup2(o.fileno(), 1)
                    os.dup2(e.fileno(), 2)
                sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
                sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
                points = _Points(crash_at)
                code = _main(args, points)
                sys.stdout.flush()
                sys.stderr.flush()
                passed, points.crash_at = points.count, None
                count.write_text(str(passed))
            except BaseException:  # noqa: B036 - whatever happens, the child must not go back to pytest
                import traceback

                traceback.print_exc()
                sys.stderr.flush()
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        writes = int(count.read_text()) if count.exists() else -1
        return Run(code, out.read_text(errors="replace"), err.read_text(errors="replace"), writes)


if __name__ == "__main__":
    crash = int(sys.argv[1])
    outcome = run(sys.argv[2:], crash or None)
    sys.stdout.write(outcome.stdout)
    sys.stderr.write(outcome.stderr)
    killed = f" (killed at write point {crash})" if outcome.crashed else ""
    print(f"[exit {outcome.code}{killed}; {outcome.writes} write points]")
    sys.exit(0)
