"""Sending the outboxes with smtplib: every letter in an outbox's new/ is sent and then moved to
cur/. A letter whose send fails for now (a 4xx) stays in new/ and waits out a back-off (1, 2,
4... minutes, at most 6 hours); when the server cannot be reached at all the pass stops at once
and tries again on the next one. A letter the server refuses for good (a 5xx) is not tried
again: it is kept in failed/, marked failed in the ledger, and reported so that the referee is
told (`referee.mail.undeliverable`). Nothing is dropped.

A crash in the instant between the server's acceptance and the rename would send that letter
again on the next pass; it carries the same Message-ID, which mail clients use to show it once.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from referee.mail.home import MailAccount
from referee.mail.ledger import Ledger

if TYPE_CHECKING:
    import smtplib

CRLF = re.compile(rb"\r?\n")  # the outbox keeps letters with LF; SMTP wants CRLF
SET_UP_PROBLEM = re.compile(r"(?i)\b5\.7\.\d+|relay|authenticat")  # a 5xx that is about us, not the letter


@dataclass(frozen=True)
class Refusal:
    """A letter the SMTP server refused for good: where it is kept now, to whom, and why."""

    outbox: Path
    path: Path
    message_id: str
    recipients: tuple[str, ...]
    subject: str
    error: str


@dataclass
class SendReport:
    sent: int = 0
    waiting: int = 0  # left in an outbox for a later pass (back-off, or the server is down)
    failed: list[str] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)  # refused for good (5xx): never retried
    delivered_to: set[tuple[Path, str]] = field(default_factory=set)  # (outbox, address) sent to


def pending(outbox: Path) -> list[Path]:
    """Return the letters waiting in an outbox, oldest first."""
    folder = outbox / "new"
    if not folder.is_dir():
        return []
    return sorted(folder.iterdir(), key=lambda p: (p.stat().st_mtime_ns, p.name))


class UntrustedCertificateError(ConnectionError):
    """The SMTP server's certificate is not trusted; its text says what to set (ca_file)."""


def _connect(account: MailAccount) -> smtplib.SMTP:
    import smtplib  # deferred, with ssl: loaded when letters are sent, not in an idle pass
    import ssl

    context = account.tls_context()
    try:
        if account.security == "ssl":
            client: smtplib.SMTP = smtplib.SMTP_SSL(
                account.host, account.port, timeout=account.timeout, context=context
            )
        else:
            client = smtplib.SMTP(account.host, account.port, timeout=account.timeout)
            if account.security == "starttls":
                client.starttls(context=context)
    except ssl.SSLCertVerificationError as exc:
        message, hints = account.untrusted(exc)
        raise UntrustedCertificateError("; ".join([message, *hints])) from None
    if account.username is not None:
        client.login(account.username, account.password() or "")
    return client


def drain(account: MailAccount, outboxes: list[Path], ledger: Ledger, sender: str, now: datetime) -> SendReport:
    """Send every due letter of every outbox; never raises for a mail problem."""
    import smtplib  # deferred, with the email package: loaded when letters are sent, not in an idle pass
    from email import policy
    from email.parser import BytesParser
    from email.utils import getaddresses

    report = SendReport()
    letters = [(outbox, path) for outbox in outboxes for path in pending(outbox)]
    client: smtplib.SMTP | None = None
    parser = BytesParser(policy=policy.default)
    try:
        for index, (outbox, path) in enumerate(letters):
            raw = path.read_bytes()
            headers = parser.parsebytes(raw, headersonly=True)
            message_id = str(headers.get("Message-ID", path.name))
            if ledger.was_sent(message_id):  # sent, then crashed before the rename: finish the rename only
                _mark_sent(outbox, path)
                continue
            if ledger.send_refused(message_id):  # refused for good, then crashed before the move
                _mark_failed(outbox, path)
                continue
            if not ledger.send_due(message_id, now):
                report.waiting += 1
                continue
            recipients = [address for _, address in getaddresses([str(v) for v in headers.get_all("To", [])])]
            try:
                if client is None:
                    client = _connect(account)
                refused = client.sendmail(sender, recipients, CRLF.sub(b"\r\n", raw))
            except (smtplib.SMTPRecipientsRefused, smtplib.SMTPSenderRefused, smtplib.SMTPDataError) as exc:
                if _permanent(exc):
                    subject = str(headers.get("Subject", ""))
                    refusal = Refusal(outbox, path, message_id, tuple(recipients), subject, _describe(exc))
                    with ledger.transaction():
                        ledger.send_failed_for_good(message_id, refusal.error, now)
                    refusal = replace(refusal, path=_mark_failed(outbox, path))
                    report.refused.append(refusal)
                    continue
                with ledger.transaction():
                    retry = ledger.send_failed(message_id, str(exc), now)
                report.failed.append(f"{path.name}: refused by the server ({exc}); retried after {retry:%H:%M} UTC")
                continue
            except (TimeoutError, OSError, smtplib.SMTPException) as exc:
                # The server is unreachable or dropped us: this letter and the rest wait for the next pass.
                with ledger.transaction():
                    for _, later in letters[index:]:
                        later_id = str(parser.parsebytes(later.read_bytes(), headersonly=True).get("Message-ID"))
                        ledger.send_failed(later_id, str(exc), now)
                report.waiting += len(letters) - index
                report.failed.append(f"cannot send through {account.describe()}: {exc}")
                client = None
                break
            with ledger.transaction():
                ledger.send_done(message_id, now)
            _mark_sent(outbox, path)
            report.sent += 1
            report.delivered_to.update((outbox, address.lower()) for address in recipients if address not in refused)
            if refused:
                report.failed.append(f"{path.name}: some recipients refused: {', '.join(refused)}")
    finally:
        if client is not None:
            try:
                client.quit()
            except (OSError, smtplib.SMTPException):
                pass
    return report


def _permanent(exc: smtplib.SMTPException) -> bool:
    """Return whether the server refused this letter for good (5xx), not for now (4xx).

    A refusal of our own sender address, or one about relaying or authentication (enhanced
    status 5.7.x), says the referee's mail set-up is wrong, not the letter: every letter would
    meet it, so it is retried and reported, and no player is marked unreachable for it."""
    import smtplib  # deferred (see drain); loaded already when a letter was refused

    if isinstance(exc, smtplib.SMTPSenderRefused):
        return False
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        answers = list(exc.recipients.values())
    else:
        answers = [(getattr(exc, "smtp_code", 0), getattr(exc, "smtp_error", b""))]
    return bool(answers) and all(
        isinstance(code, int) and 500 <= code < 600 and not SET_UP_PROBLEM.search(_text(message))
        for code, message in answers
    )


def _describe(exc: smtplib.SMTPException) -> str:
    import smtplib  # deferred (see drain); loaded already when a letter was refused

    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return "; ".join(
            f"{address}: {code} {_text(message)}" for address, (code, message) in sorted(exc.recipients.items())
        )
    return f"{getattr(exc, 'smtp_code', '?')} {_text(getattr(exc, 'smtp_error', b''))}"


def _text(message: bytes | str) -> str:
    return (message.decode("utf-8", "replace") if isinstance(message, bytes) else str(message)).replace("\n", " ")


def _mark_failed(outbox: Path, path: Path) -> Path:
    """Keep a letter refused for good in the outbox's failed/ (for the referee to look at)."""
    (outbox / "failed").mkdir(exist_ok=True)
    kept = outbox / "failed" / path.name
    os.replace(path, kept)
    return kept


def _mark_sent(outbox: Path, path: Path) -> None:
    # deferred: smtplib, the email package and the letters' outbox load when letters are sent, not in an idle pass
    from referee.letters.outbox import keep_sent

    # The same name as in new/: `referee.letters.outbox.post` looks for it there to never post a letter twice.
    keep_sent(outbox, path)
