"""Letters that cannot be delivered: refused for good by the SMTP server (a 5xx), or sent and
then bounced (a delivery status notification, or the common shapes of bounce that quote the
original headers). Either way the referee is alerted, naming the game, the player and the
letter, and the player is marked unreachable in that game (`referee.game.unreachable`): `referee
status` shows it and the other players' letters say it. A later delivery to the player, or a
mail from them, clears it.

A bounce is matched to our letter by the original Message-ID it quotes (in the report's
message/rfc822 or text/rfc822-headers part, its References, or pasted headers), looked up
among the letters sent from the outboxes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from email import policy
from email.message import Message
from email.parser import BytesParser, HeaderParser
from email.utils import getaddresses
from pathlib import Path

from referee.game.journal import GameDir
from referee.game.unreachable import mark_reachable, mark_unreachable
from referee.letters.outbox import maildir_name, sent_copy
from referee.mail.directory import Directory
from referee.mail.home import Home, HomeConfig
from referee.mail.ledger import Ledger
from referee.mail.message import clean_message_id
from referee.mail.replies import Answer, alert_referee
from referee.mail.smtp import SendReport

QUOTED_ID = re.compile(r"(?im)^(?:message-id|references|in-reply-to):[ \t]*(<[^>\s]{1,250}>)")
BOUNCE_FROM = re.compile(r"\b(mailer-daemon|postmaster)@")
BOUNCE_SUBJECT = re.compile(r"undeliver|delivery (status|failure|has failed|failed)|returned mail|failure notice")
MAX_IDS = 20
KEPT_FOLDERS = ("cur", "failed", "new")


@dataclass(frozen=True)
class SentLetter:
    """One of our letters, found in an outbox by its Message-ID."""

    game: str | None  # None for the home's own letters
    message_id: str
    to: str
    subject: str


def after_send(home: Home, config: HomeConfig, directory: Directory, report: SendReport, now: datetime) -> list[str]:
    """Alert the referee of every letter refused for good; clear players delivered to. Return log lines."""
    lines = []
    for refusal in report.refused:
        game = _game_of(directory, refusal.outbox)
        for address in refusal.recipients:
            letter = SentLetter(game, refusal.message_id, address, refusal.subject)
            lines.append(
                letter_undeliverable(
                    home, config, directory, letter, f"refused by the SMTP server: {refusal.error}", now
                )
            )
    for outbox, address in sorted(report.delivered_to):
        game = _game_of(directory, outbox)
        if game is not None:
            for seat in directory.seats_of(address):
                if seat.game == game and _reachable(seat.path, seat.player, "a letter was delivered"):
                    lines.append(f"{game}: {seat.player} is reachable again (a letter was delivered)")
    return lines


def letter_undeliverable(
    home: Home, config: HomeConfig, directory: Directory, letter: SentLetter, reason: str, now: datetime
) -> str:
    """Alert the referee that `letter` to a player cannot be delivered and mark the player
    unreachable (in the letter's game; in all their games for a letter of the home's, such as a
    reminder); return a log line. A letter to a stranger is only filed: an alert for each would
    let anyone who forges From lines flood the referee."""
    seats = [s for s in directory.seats_of(letter.to) if letter.game in (None, s.game)]
    if not seats:
        return f"{letter.game or 'home'}: letter to {letter.to}, who plays in no game here, undeliverable: filed"
    players = ", ".join(sorted({seat.player for seat in seats}))
    games = ", ".join(sorted({seat.game for seat in seats}))
    who = f"{players} ({letter.to})"
    paragraphs = [
        f"A letter to {who} in {games} cannot be delivered.",
        f"Letter: {letter.subject or '(no subject)'} {letter.message_id}",
        f"Why: {reason[:500]}",
        "It will not be tried again. Check the address in the game's game.yaml (the player may have "
        "changed it) and reach the player another way.",
        "Until a letter reaches them or they mail the referee, `referee status` shows them as unreachable "
        "and the other players' letters say so.",
    ]
    where = f"[{letter.game}] " if letter.game else ""
    key = f"undeliverable/{letter.message_id}/{letter.to}"
    alert_referee(home, config, f"{where}undeliverable: letter to {who}", paragraphs, key)
    for seat in seats:
        game_dir = GameDir(seat.path)
        try:
            mark_unreachable(game_dir, seat.player, reason, f"{letter.subject} {letter.message_id}", now.isoformat())
        finally:
            game_dir.close()
    return f"{games}: letter to {who} undeliverable ({reason[:80]}): referee alerted"


def mail_from(
    directory: Directory,
    sender: str | None,
    game_dir: Callable[[Path], GameDir] | None = None,
    cleared: set[tuple[Path, str]] | None = None,
) -> None:
    """A mail from a player shows their address works: clear their unreachable marks.

    `game_dir` gives the journal of a game already open (mail intake's batch); `cleared` holds
    the seats (game path, player) already cleared while it stays open, which nothing marks again
    in the meantime: they are not read again."""
    for seat in directory.seats_of(sender):
        if game_dir is None:
            _reachable(seat.path, seat.player, "a mail came from them")
        elif cleared is None or (seat.path, seat.player) not in cleared:
            mark_reachable(game_dir(seat.path), seat.player, "a mail came from them")
            if cleared is not None:
                cleared.add((seat.path, seat.player))


def _reachable(path: Path, player: str, why: str) -> bool:
    game_dir = GameDir(path)
    try:
        return mark_reachable(game_dir, player, why)
    finally:
        game_dir.close()


def handle_bounce(
    home: Home, config: HomeConfig, directory: Directory, ledger: Ledger, raw: bytes, now: datetime
) -> Answer | None:
    """If `raw` is a bounce of one of our letters, alert and mark; return the mail's answer, else None."""
    message = BytesParser(policy=policy.compat32).parsebytes(raw)
    if not is_bounce(message):
        return None
    outboxes = [home.outbox, *(GameDir(path).outbox for path in directory.games.values())]
    for message_id in _quoted_ids(message, raw):
        letter = _find_letter(directory, outboxes, message_id)
        if letter is None:
            continue
        reason = f"bounced: {_diagnostic(message)}"
        with ledger.transaction():
            ledger.send_failed_for_good(message_id, reason, now)
        line = letter_undeliverable(home, config, directory, letter, reason, now)
        return Answer("rejected", line)
    return None


def is_bounce(message: Message) -> bool:
    """Return whether an automatic mail is a delivery failure (a DSN, or a mailer daemon's report)
    rather than, say, a holiday auto-reply, which quotes our letter too but says nothing of delivery."""
    if message.get_content_type() == "multipart/report":
        return str(message.get_param("report-type", "")).lower() == "delivery-status"
    sender = " ".join(str(message.get("From", "")).split()).lower()
    subject = " ".join(str(message.get("Subject", "")).split()).lower()
    return bool(BOUNCE_FROM.search(sender)) or bool(BOUNCE_SUBJECT.search(subject))


def _quoted_ids(message: Message, raw: bytes) -> list[str]:
    """Return the Message-IDs a bounce quotes, most telling first (never the bounce's own)."""
    own = clean_message_id(str(message.get("Message-ID", "")))
    found: list[str] = []
    for part in message.walk():
        kind = part.get_content_type()
        if kind == "message/rfc822":
            payload = part.get_payload()
            inner = payload[0] if isinstance(payload, list) and payload else None
            if isinstance(inner, Message):
                found.append(str(inner.get("Message-ID", "")))
        elif kind == "text/rfc822-headers":
            text = _text(part)
            found.append(str(HeaderParser().parsestr(text).get("Message-ID", "")))
    for name in ("References", "In-Reply-To"):
        found += str(message.get(name, "")).split()
    text = raw[:1_000_000].decode("utf-8", "replace")
    found += [match[1] for match in QUOTED_ID.finditer(text.split("\n\n", 1)[-1])]
    ids: list[str] = []
    for value in found:
        clean = clean_message_id(value)
        if clean and clean != own and clean not in ids:
            ids.append(clean)
    return ids[:MAX_IDS]


def _text(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if isinstance(payload, bytes):
        return payload.decode("utf-8", "replace")
    return str(part.get_payload())


def _diagnostic(message: Message) -> str:
    """Return the bounce's reason: the Diagnostic-Code or Status of a DSN, else its subject."""
    for part in message.walk():
        if part.get_content_type() == "message/delivery-status":
            fields: dict[str, str] = {}
            payload = part.get_payload()
            for block in payload if isinstance(payload, list) else []:
                if not isinstance(block, Message):
                    continue
                for name in ("Diagnostic-Code", "Status", "Action"):
                    if block.get(name) and name not in fields:
                        fields[name] = " ".join(str(block.get(name)).split())
            if fields:
                return ", ".join(f"{name} {value}" for name, value in fields.items())[:300]
    subject = " ".join(str(message.get("Subject", "")).split())
    return subject[:200] or "a delivery failure report"


def _find_letter(directory: Directory, outboxes: list[Path], message_id: str) -> SentLetter | None:
    name = maildir_name(message_id)
    for outbox in outboxes:
        found = next(((outbox / f / name).read_bytes() for f in KEPT_FOLDERS if (outbox / f / name).is_file()), None)
        if found is None:
            found = sent_copy(outbox, name)  # the headers of a letter sent, kept in the outbox's sent.sqlite
        if found is not None:
            headers = BytesParser(policy=policy.default).parsebytes(found, headersonly=True)
            to = [address for _, address in getaddresses([str(v) for v in headers.get_all("To", [])])]
            return SentLetter(
                _game_of(directory, outbox), message_id, to[0] if to else "", str(headers.get("Subject", ""))
            )
    return None


def _game_of(directory: Directory, outbox: Path) -> str | None:
    for game, path in directory.games.items():
        if GameDir(path).outbox == outbox:
            return game
    return None
