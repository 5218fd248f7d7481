"""Letters from the referee's home rather than from one game: answers to commands, replies to
strangers and to unreadable mail, alerts to the referee. They go to HOME/outbox, with
Message-IDs made from what they answer, so that handling the same mail twice posts one letter.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.letters.encryption import seal_letter
from referee.letters.outbox import Attachment, Letter, make_message_id, post
from referee.letters.render import render
from referee.mail.directory import Directory
from referee.mail.home import Home, HomeConfig
from referee.protocol.signatures import PublicKey


@dataclass(frozen=True)
class Section:
    title: str
    body: str


@dataclass(frozen=True)
class Answer:
    """What became of one incoming mail: the folder it is moved to, and a line for the log."""

    destination: str  # "processed" or "rejected"
    summary: str


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
    plain: bool = False,
) -> Path:
    """Post a letter to `to` in the home's outbox; `key` names it uniquely (e.g. the mail it answers).

    `plain` sends the text alone (a short note to a stranger: no HTML twin to double its size).
    A letter that carries private files (a report sent again) to the address of a player who
    asked for encryption is sealed: its body becomes a cover note and the files go as FILE.age.
    """
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
        html="" if plain else html,
        message_id=make_message_id(config.referee_email.rpartition("@")[2], "referee", key),
        in_reply_to=in_reply_to,
        auto_submitted=auto_submitted,
        attachments=attachments or [],
    )
    if any(not item.public for item in letter.attachments):
        keys = _encryption_keys(home, to)
        if keys:
            letter = seal_letter(letter, keys, None, config.referee_name, config.referee_email)
    return post(home.outbox, letter, config.referee_email, config.referee_name)


def _encryption_keys(home: Home, address: str) -> list[PublicKey]:
    """Return the keys of the players at `address` who asked for encryption.

    A reply names no game, and one address may play in several: the letter is encrypted to each
    such key, and any one of them opens it."""
    directory = Directory.load(home)
    keys: list[PublicKey] = []
    for seat in directory.seats_of(address):
        player = directory.configs[seat.game].player(seat.player)
        if player is not None and player.encrypt and player.key not in keys:
            keys.append(player.key)
    return keys


def alert_referee(
    home: Home, config: HomeConfig, subject: str, paragraphs: list[str], key: str, sections: list[Section] | None = None
) -> Path:
    """Tell the referee something needs them (a held phase, a game waiting, a dispute, a failure);
    `sections` hold lines kept as they are (commands to copy)."""
    return post_reply(
        home,
        config,
        config.alerts_to,
        subject,
        paragraphs,
        f"alert/{key}",
        sections=sections,
        auto_submitted="auto-generated",
    )
