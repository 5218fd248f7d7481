"""Letters from the referee's home rather than from one game: answers to commands, replies to
strangers and to unreadable mail, alerts to the referee. They go to HOME/outbox, with
Message-IDs made from what they answer, so that handling the same mail twice posts one letter.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.home import Home, HomeConfig
from referee.outbox import Attachment, Letter, make_message_id, post
from referee.reports import render


@dataclass(frozen=True)
class Section:
    title: str
    body: str


def post_reply(
    home: Home,
    config: HomeConfig,
    to: str,
    subject: str,
    paragraphs: list[str],
    key: str,
    in_reply_to: str | None = None,
    sections: list[Section] | None = None,
    attachments: list[Attachment] | None = None,
    auto_submitted: str = "auto-replied",
) -> Path:
    """Post a letter to `to` in the home's outbox; `key` names it uniquely (e.g. the mail it answers)."""
    context = {
        "title": subject,
        "paragraphs": paragraphs,
        "sections": sections or [],
        "referee_name": config.referee_name,
        "referee_email": config.referee_email,
    }
    text, html = render("reply", context)
    letter = Letter(
        to=to,
        subject=subject,
        text=text,
        html=html,
        message_id=make_message_id(config.referee_email.rpartition("@")[2], "referee", key),
        in_reply_to=in_reply_to,
        auto_submitted=auto_submitted,
        attachments=attachments or [],
    )
    return post(home.outbox, letter, config.referee_email, config.referee_name)


def alert_referee(home: Home, config: HomeConfig, subject: str, paragraphs: list[str], key: str) -> Path:
    """Tell the referee something needs them (a held phase, a game waiting, a dispute, a failure)."""
    return post_reply(
        home, config, config.alerts_to, subject, paragraphs, f"alert/{key}", auto_submitted="auto-generated"
    )
