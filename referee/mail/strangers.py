"""Replies to whoever sent a mail, when that may be anyone: the From line is not proof, so every
such reply passes one limiter (REPLIES_PER_STRANGER_PER_DAY per address and day, counted in the
mail ledger) and a reply to an address that plays in no game here is a short note pointing to
`help`, never larger than what it answers by much. Nobody can use the referee to flood a third
party, and two robots cannot loop.
"""

from __future__ import annotations

from datetime import datetime

from referee.mail.directory import Directory
from referee.mail.home import Home, HomeConfig
from referee.mail.ledger import Ledger
from referee.mail.message import Incoming
from referee.mail.replies import Section, post_reply

REPLIES_PER_STRANGER_PER_DAY = 5


def reply_allowed(ledger: Ledger, address: str, now: datetime) -> bool:
    """Count one reply to `address` today; return False once today's limit is reached."""
    with ledger.transaction():
        return ledger.reply_allowed(address.lower(), now.date().isoformat(), REPLIES_PER_STRANGER_PER_DAY)


def answer_sender(
    home: Home,
    config: HomeConfig,
    ledger: Ledger,
    directory: Directory,
    incoming: Incoming,
    now: datetime,
    subject: str,
    lines: list[str],
    sections: list[Section] | None = None,
    key: str = "answer",
) -> bool:
    """Reply to the mail's sender if it is safe (a real address, not machine mail, not too often
    today); a player gets `sections` too, a stranger only `lines`, as plain text. Return whether it went."""
    if incoming.sender is None or incoming.automatic:
        return False
    if not reply_allowed(ledger, incoming.sender, now):
        return False
    stranger = not directory.seats_of(incoming.sender)
    post_reply(
        home,
        config,
        incoming.sender,
        subject,
        lines,  # the letter's footer points to 'help'; a stranger gets no more
        f"{key}/{incoming.sha256}",
        in_reply_to=incoming.message_id,
        sections=None if stranger else sections,
        plain=stranger,
    )
    return True
