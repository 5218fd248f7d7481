"""An idle `referee run` answered from a kept summary, for a fast start (issue 23).

Most of cron's passes find no new mail and nothing due, yet a full pass parses the home's and
every game's configuration (PyYAML, the players' keys through cryptography), imports each game's
module for its phases' deadlines, opens every journal and logs in with imapclient: about
seventeen bare Python starts to learn that there is nothing to do. So a full pass that did
nothing keeps, in HOME/.idle-pass, what it was computed from and until when it holds:

- the stamps (`referee.game.stamps`) of every file it read: referee.yaml, the ledger, each
  game's game.yaml, journal, keys and the files its game.yaml names, and the folders whose
  entries it listed (games/, spool/, outbox/); and the files of the code that ran (the referee's
  modules it loaded, each game's package whole), as a status's kept needs are keyed;
- the first moment a game's schedule can ask for something with the same journal: a reminder,
  a deadline, the end of its grace, the next midnight in the game's time zone (absences end by
  date) (`referee.game.deadlines.next_change`);
- the IMAP account, the inbox and the ledger's position in it; the outboxes SMTP drains;
- the lines the pass printed (made safe for a terminal: `referee.protocol.display.printable`).

The next pass (`quick_pass`) holds the home's run lock, compares all of it, checks that every
outbox SMTP drains is empty, and asks the server whether mail came past the position
(`referee.mail.imap_probe`); only when all agree does it print the kept lines and stop. Any
difference, a summary it cannot read, or an answer the probe cannot take is None: the full
pass runs, and keeps a new summary when it too did nothing. A summary is kept only when every
file it stamps had settled before the pass began (`stamps.settled`), so a write in the same
clock tick as the pass's reading cannot hide behind an unchanged stamp; it is written whole
(a new file renamed over the old), so a crash leaves the old summary or the new one, and an old
one only ever describes files whose stamps have changed since.
"""

from __future__ import annotations

import fcntl
import marshal
import os
import stat
import sys
import time

from referee.game.stamps import REFEREE_CODE, SETTLED_NS, fingerprint, keep_file, settled, stamps
from referee.mail.imap_probe import mail_past

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a fast start)
if TYPE_CHECKING:
    from typing import Any

# Written with `marshal`, which is built into Python: reading it loads no module (json costs a
# tenth of a bare start). Only this Python writes and reads it (the summary names its version).
SUMMARY = ".idle-pass"
FORMAT = 1
LOCK = "run.lock"  # referee.mail.home.Home.lock_path's name


def home_folder() -> str:
    """Return the home from $REFEREE_HOME, else $XDG_DATA_HOME/pbem-referee, else ~/.local/share/pbem-referee."""
    if os.environ.get("REFEREE_HOME"):
        return os.path.expanduser(os.environ["REFEREE_HOME"])
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(data, "pbem-referee")


def quick_pass(home: str, mail: bool, now_ns: int | None = None) -> list[str] | None:
    """Return the lines of an idle pass when the kept summary shows there is nothing to do, else
    None (the full pass must run). `now_ns` is the wall clock's time (tests set it)."""
    try:
        with open(os.path.join(home, SUMMARY), "rb") as handle:
            kept = marshal.loads(handle.read())  # whole: load() reads a file piece by piece
    except (OSError, ValueError, EOFError, TypeError):
        return None
    try:
        fd = os.open(os.path.join(home, LOCK), os.O_RDWR)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another pass at work: the full pass says so
        return kept["lines"] if _holds(kept, mail, time.time_ns() if now_ns is None else now_ns) else None
    except (OSError, KeyError, TypeError, ValueError, IndexError):
        return None
    finally:
        os.close(fd)


def _holds(kept: dict[str, Any], mail: bool, now: int) -> bool:
    """Return whether nothing the summary was computed from changed and nothing came due by `now`."""
    if kept["format"] != FORMAT or kept["python"] != sys.version or kept["mail"] != mail:
        return False
    if not kept["since"] <= now < (kept["until"] if kept["until"] is not None else now + 1):
        return False
    if stamps([path for path, _ in kept["files"]]) != kept["files"]:
        return False
    if kept["referee"] != REFEREE_CODE or fingerprint(kept["folders"]) != kept["code"]:
        return False
    if any(_letters_in(outbox) for outbox in kept["outboxes"]):
        return False
    if not mail or kept["imap"] is None:
        return True
    readable, password = _password(kept["imap"])
    return readable and mail_past(kept["imap"], password, kept["position"]) is False


def _letters_in(outbox: str) -> bool:
    try:
        return bool(os.listdir(os.path.join(outbox, "new")))
    except FileNotFoundError:
        return False


def _password(account: dict[str, Any]) -> tuple[bool, str | None]:
    """The password as `MailAccount.password` reads it, and whether it reads it (not when it would
    refuse: the full pass says why)."""
    if account["password_env"]:
        value = os.environ.get(account["password_env"])
        return value is not None, value
    if account["password_file"]:
        if os.stat(account["password_file"]).st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            return False, None
        with open(account["password_file"], encoding="utf-8") as handle:
            return True, handle.read().strip()
    return True, None


def keep(
    home: str,
    since_ns: int,
    *,
    until_ns: int | None,
    mail: bool,
    files: list[str],
    folders: list[str],
    account: dict[str, Any] | None,
    position: list[int] | None,
    outboxes: list[str],
    lines: list[str],
    settle_ns: int = SETTLED_NS,
) -> bool:
    """Keep the summary of an idle pass that began at `since_ns` (wall clock, ns); return whether
    it was kept (not when a file it stamps changed too recently to be trusted, or the home cannot
    be written). `settle_ns` is how long before the pass its files must have last changed."""
    found, code = stamps(files), fingerprint(folders)
    if not (settled(found, since_ns, settle_ns) and settled(code, since_ns, settle_ns)):
        forget(home)
        return False
    summary = {
        "format": FORMAT,
        "python": sys.version,
        "mail": mail,
        "since": since_ns,
        "until": until_ns,
        "files": found,
        "referee": REFEREE_CODE,
        "folders": folders,
        "code": code,
        "imap": account,
        "position": position,
        "outboxes": outboxes,
        "lines": lines,
    }
    return keep_file(os.path.join(home, SUMMARY), marshal.dumps(summary))


def forget(home: str) -> None:
    """Remove the kept summary (a pass that did something, or whose files are not settled)."""
    try:
        os.unlink(os.path.join(home, SUMMARY))
    except OSError:  # none kept, or a home that cannot be written: nothing to forget then
        pass
