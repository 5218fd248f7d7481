"""Sending outboxes through the machine's own `sendmail` (`referee send`), for a referee with no
SMTP account in referee.yaml: a laptop whose mail system (Postfix, Exim, or msmtp relaying to the
referee's provider) already knows how to send. A game directory's outbox, or a referee home's
(its own letters, alerts and answers, and every game's).

Each letter in the outbox's new/ is handed to `sendmail -i -f SENDER -- RECIPIENTS` on its
standard input, and moved to cur/ (where `referee run` also puts what it sent, and where
`referee.letters.outbox.post` looks so as never to post a letter twice) only after sendmail
exits 0. A letter sendmail refuses stays in new/ for the next `referee send`, and its error is
reported; the other letters still go.

Each letter goes once, or, after a crash in the instant described next, once more with the same
Message-ID: the rename to cur/ is the record that a letter was sent. Killed between sendmail's
exit and the rename (or sendmail killed after it queued the letter, e.g. by the timeout), the
next `referee send` hands the letter over again, byte for byte, and the player's mail client
sees the same Message-ID twice (most show it once). The other choice, marking a letter sent
*before* handing it over, would lose the letter in that instant instead, and a lost notice or
report costs more than a repeated one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from email import policy
from email.parser import BytesParser
from email.utils import getaddresses, parseaddr
from pathlib import Path

from referee.errors import ConfigError, LockedError
from referee.game.journal import GameDir
from referee.letters.outbox import keep_sent
from referee.mail.home import Home
from referee.mail.run import home_lock
from referee.mail.smtp import pending

# Where sendmail lives when it is not on PATH (/usr/sbin is not on an ordinary user's PATH on Debian).
SENDMAIL_PLACES = (Path("/usr/sbin/sendmail"), Path("/usr/lib/sendmail"))
SENDMAIL_TIMEOUT_SECONDS = 120
# What sendmail's usual exit codes (sysexits.h) mean, for the line that reports a letter not sent.
EXIT_MEANINGS = {
    67: "addressee unknown (EX_NOUSER)",
    68: "host name unknown (EX_NOHOST)",
    69: "service unavailable (EX_UNAVAILABLE)",
    75: "temporary failure, try again later (EX_TEMPFAIL)",
    77: "permission denied (EX_NOPERM)",
    78: "configuration error (EX_CONFIG)",
}


@dataclass(frozen=True)
class Handed:
    """One letter sendmail took: its file (now in cur/), Message-ID and recipients."""

    path: Path
    message_id: str
    recipients: tuple[str, ...]


@dataclass
class SendmailReport:
    """What one `referee send` did: the letters handed over, and those left in new/ with why."""

    sendmail: Path
    sent: list[Handed] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed


def find_sendmail(program: str | None = None) -> Path:
    """Return the sendmail program to use: `program` if given (a path or a name on PATH), else
    `sendmail` on PATH, /usr/sbin/sendmail or /usr/lib/sendmail; raise ConfigError, saying what
    to install or configure, when there is none."""
    if program:
        found = shutil.which(program)
        if found is None:
            raise ConfigError(
                f"the sendmail program {program!r} was not found or is not executable",
                hints=("give its full path, e.g. --sendmail /usr/sbin/sendmail",),
            )
        return Path(found)
    found = shutil.which("sendmail")
    if found is not None:
        return Path(found)
    for place in SENDMAIL_PLACES:
        if os.access(place, os.X_OK):
            return place
    raise ConfigError(
        "this machine has no sendmail program to hand the letters to (looked on PATH and in "
        + ", ".join(map(str, SENDMAIL_PLACES))
        + ")",
        hints=(
            "install one that relays through your mail provider: sudo apt install msmtp-mta, "
            "then write your provider's SMTP settings in ~/.msmtprc (man msmtp)",
            "or put an smtp: account in referee.yaml and let `referee run` send the outboxes (docs/mail.md)",
            "or send the letters yourself: each is a complete mail in GAMEDIR/outbox/new/",
        ),
    )


def send_outbox(directory: Path, sendmail: Path, timeout: float = SENDMAIL_TIMEOUT_SECONDS) -> SendmailReport:
    """Hand every letter waiting in the outbox of a game directory, or in every outbox of a
    referee home (its own and each game's), to `sendmail`, each once (see the module docstring);
    return what was sent and what was not. Never raises for a letter sendmail refuses."""
    report = SendmailReport(sendmail)
    with _outboxes(directory) as outboxes:
        for outbox, game in outboxes:
            # The game's lock: no two `referee send` (nor another command) work on its outbox at once.
            with game.lock(guard=False) if game is not None else nullcontext():
                _send_one_outbox(outbox, sendmail, timeout, report)
    return report


def _send_one_outbox(outbox: Path, sendmail: Path, timeout: float, report: SendmailReport) -> None:
    for path in pending(outbox):
        handed, problem = _hand_over(path, sendmail, timeout)
        if handed is None:
            report.failed.append(f"{path.name}: {problem}")
            continue
        kept = keep_sent(outbox, path)
        report.sent.append(Handed(kept, handed.message_id, handed.recipients))


@contextmanager
def _outboxes(directory: Path) -> Iterator[list[tuple[Path, GameDir | None]]]:
    """Yield the outboxes of a game directory or a referee home, each with its game (None: the
    home's own); a home's run lock is held meanwhile, so that `referee run` sends none of them."""
    home = Home(directory)
    if not home.config_path.exists():
        game = GameDir(directory).require()
        yield [(game.outbox, game)]
        return
    with home_lock(home) as taken:
        if not taken:
            raise LockedError(
                f"a `referee run` is working on {directory}", hints=("wait for it to finish and try again",)
            )
        yield [(home.outbox, None), *((GameDir(path).outbox, GameDir(path)) for path in home.game_dirs())]


def _hand_over(path: Path, sendmail: Path, timeout: float) -> tuple[Handed | None, str]:
    """Run sendmail on one letter; return the letter handed over, or None and why not."""
    raw = path.read_bytes()
    headers = BytesParser(policy=policy.default).parsebytes(raw, headersonly=True)
    message_id = str(headers.get("Message-ID", path.name))
    recipients = tuple(address for _, address in getaddresses([str(v) for v in headers.get_all("To", [])]) if address)
    if not recipients:
        return None, "the letter names no recipient (no To: header); nothing was handed to sendmail"
    sender = parseaddr(str(headers.get("From", "")))[1]
    command = [str(sendmail), "-i", *(["-f", sender] if sender else []), "--", *recipients]
    try:
        done = subprocess.run(command, input=raw, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return None, f"{sendmail} did not finish in {timeout:.0f} s; the letter stays in the outbox"
    except OSError as exc:
        return None, f"{sendmail} could not be started: {exc.strerror or exc}"
    if done.returncode != 0:
        said = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
        meaning = EXIT_MEANINGS.get(done.returncode, "refused")
        detail = f": {said[-1]}" if said else ""
        return None, f"{sendmail.name} exited {done.returncode}, {meaning}{detail}; the letter stays in the outbox"
    return Handed(path, message_id, recipients), ""
