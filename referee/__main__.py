"""The `referee` command's entry: the installed command (scripts/referee) and `python -m referee` start here.

The two commands run most often, `referee status GAMEDIR [--json]` and a pass of `referee run
[--home HOME] [--no-mail] [--quiet]` (cron's), are served here without click: importing click
costs about three times a bare Python start, and issue 23 asks these to start within twice it.
Everything else, and any argument, option or environment variable this entry does not know
(`--help`, `--clock`, `--watch`, `--`, click's REFEREE_STATUS_* and REFEREE_RUN_* variables...),
goes to the click group in `referee.cli` unchanged, and so does a status whose journal only
`GameDir` opens (an older journal, a missing or damaged one: the errors are click's path's).
What this entry prints, and its exit code, are the click path's byte for byte
(tests/cli/test_entry.py runs both over the same cases). A status whose journal has not changed
since the last one, and a pass that finds no mail and nothing due since the last idle one, print
what those kept (`referee.game.status_kept`, `referee.mail.idle`) without reading it all again.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a status must start fast)
if TYPE_CHECKING:
    from collections.abc import Callable

# Click reads options from REFEREE_<COMMAND>_<OPTION> (auto_envvar_prefix), --version from
# REFEREE_VERSION: with any of them set, click decides.
CLICK_VARIABLES = ("REFEREE_VERSION", "REFEREE_STATUS_", "REFEREE_RUN_")


def main() -> None:
    """Run the command line: `status` and `run` in the shapes above here, the rest through click."""
    serve = served(sys.argv[1:])
    if serve is None:
        _hand_to_click()
        return
    code = _guarded(serve)
    if code:
        sys.exit(code)


def served(args: list[str]) -> Callable[[], int | None] | None:
    """Return the command this entry runs for `args` without click, or None for click's."""
    if not _plain_streams() or any(name.startswith(CLICK_VARIABLES) for name in os.environ):
        return None
    if args[:1] == ["status"]:
        return _status(args[1:])
    if args[:1] == ["run"]:
        return _run(args[1:])
    return None


def _plain_streams() -> bool:
    """Return whether stdout and stderr take UTF-8 text as they are (click re-wraps others)."""
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None) or ""
        if encoding.lower().replace("-", "").replace("_", "") != "utf8":
            return False
    return True


def _status(args: list[str]) -> Callable[[], int | None] | None:
    """`status GAMEDIR [--json]`, the options anywhere, repeated or not."""
    paths = [arg for arg in args if arg != "--json"]
    if len(paths) != 1 or paths[0][:1] in ("", "-"):
        return None
    path, as_json = paths[0], "--json" in args

    def status() -> int | None:
        from referee.game.status_kept import journal_stamps, keep_status, kept_status

        kept = kept_status(path, as_json)
        if kept is not None:  # nothing it was computed from has changed: what it printed, as printed
            _say(kept, raw=True)
            return 0
        # deferred: the journal is read (sqlite3, json) only when no kept status holds
        import json
        import time

        from referee.game.glance import glance, status_text
        from referee.protocol.terminal import printable

        code: list[str | None] = []  # the folders of the code that answered the needs (glance)
        since_ns, before = time.time_ns(), journal_stamps(path)
        info = glance(path, _needs_when, code)
        if info is None:  # a journal GameDir must open (or refuse, in its own words): click's path
            _hand_to_click()
            return None
        text, as_data = (
            printable(shown, one_line=False) for shown in (status_text(info), json.dumps(info, indent=2) + "\n")
        )
        keep_status(path, before, since_ns, code, text, as_data)
        _say(as_data if as_json else text, raw=True)
        return 0

    return status


def _needs_when(path: str, module: str, state: str) -> tuple[list[str], list[list[str]]] | None:
    """The game module's answer for a state, when none is kept (`glance`): the kit and the game load here."""
    from referee.game.supplies import needs_when

    return needs_when(path, module, state)


def _run(args: list[str]) -> Callable[[], int | None] | None:
    """`run [--home HOME | --home=HOME] [--no-mail] [--quiet]`, once (not --watch)."""
    home, no_mail, quiet = None, False, False
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg in ("--no-mail", "--quiet"):
            no_mail, quiet = no_mail or arg == "--no-mail", quiet or arg == "--quiet"
        elif arg == "--home" and rest:
            home = rest.pop(0)
        elif arg.startswith("--home="):
            home = arg.removeprefix("--home=")
        else:
            return None
    if home is None:
        home = os.environ.get("REFEREE_HOME") or None
    if home is not None and (home[:1] in ("", "-") or (os.path.exists(home) and not _a_readable_folder(home))):
        return None  # click's refusal of a file or an unreadable folder, or its reading of an odd value

    def run() -> int:
        from referee.mail.idle import home_folder, quick_pass

        folder = home if home is not None else home_folder()
        idle = quick_pass(folder, mail=not no_mail)
        if idle is not None:  # nothing came and nothing is due: the kept lines of an idle pass (no failures)
            for line in [] if quiet else idle:
                _say(line + "\n", raw=True)  # kept as printed
            return 0
        # deferred: the full pass (configuration, journals, mail clients) runs only when something may be due
        from pathlib import Path

        from referee.mail.home import Home
        from referee.mail.run import run_pass

        report = run_pass(Home(Path(folder)), mail=not no_mail, keep_summary=True)
        for line in report.shown(quiet):
            _say(line + "\n")
        return 0 if report.ok else 1

    return run


def _a_readable_folder(path: str) -> bool:
    return not os.path.isfile(path) and os.access(path, os.R_OK)


def _hand_to_click() -> None:
    """Run the command line through click (`referee.cli.main`), with the arguments as given."""
    from referee.cli import main as click_main

    click_main()


def _guarded(command: Callable[[], int | None]) -> int | None:
    """Run `command`, turning errors into exit codes as `referee.cli.main` does."""
    try:
        return command()
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        import sqlite3

        from referee.errors import AlreadyDone, RefereeError, error_lines, system_error

        if isinstance(exc, AlreadyDone):  # a re-run of a finished operation: not a failure
            _say(exc.message + "\n", raw=True)
            return 0
        if isinstance(exc, OSError | sqlite3.Error):  # a read-only or full disk, a permission
            exc = system_error(exc)
        if not isinstance(exc, RefereeError):
            raise
        for line in error_lines(exc):
            _say(line + "\n", err=True)
        return exc.exit_code


def _say(text: str, err: bool = False, raw: bool = False) -> None:
    """Print as `referee.cli._say` does: control and bidi characters spelled out (unless `raw`), then flushed."""
    if not raw:
        from referee.protocol.terminal import printable  # deferred: text kept as printed needs none of it

        text = printable(text, one_line=False)
    stream = sys.stderr if err else sys.stdout
    stream.write(text)
    stream.flush()


if __name__ == "__main__":
    main()
