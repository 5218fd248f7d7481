"""Posting a game's letters: render, sign, keep under GAMEDIR/mail/ and put in the outbox.

The game hands over plain values: a `Letterhead` (who writes, to whom, where letters are kept,
how to sign) and, per letter, what it says (a template context). Nothing here knows the game's
engine; `referee.game.announce` decides what each letter says.

In the mail, a letter's own files are named after the game and the folder they are kept in
(`GAME-0003-t2-movement-PLAYER.report.txt`), so that a player who saves every letter's files in
one folder keeps them all; the files every player gets (records, reveals) keep the names the
protocol gives them. Every letter of a game threads under the player's first notice, whose
Message-ID is derived from the game and the player alone.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from referee.files import atomic_write, link_or_write, pending_data, pending_write
from referee.kit.contract import GameModule
from referee.letters.encryption import seal_letter
from referee.letters.kept import ACKS_PACK_PREFIX, PACK_PREFIX, gathered, keep_packed, read_kept
from referee.letters.outbox import Attachment, Letter, make_message_id, post
from referee.letters.render import render
from referee.protocol.records import PROTOCOL
from referee.protocol.signatures import PublicKey


class Recipient(Protocol):
    """A player as letters need them: their name, address and key, and whether to encrypt."""

    @property
    def name(self) -> str: ...

    @property
    def email(self) -> str: ...

    @property
    def key(self) -> PublicKey: ...

    @property
    def encrypt(self) -> bool: ...


@dataclass(frozen=True)
class Letterhead:
    """What every letter of one game shares: its game, its referee, its players and its folders."""

    game: str
    title: str
    referee_name: str
    referee_email: str
    referee_key: str  # the referee's public key line, printed in letters
    sign: Callable[[bytes], str]  # the referee's `pbem-referee` signature of a letter's text
    mail_dir: Path  # GAMEDIR/mail: every letter is kept here as text, signature and gzipped HTML
    outbox: Path
    players: Sequence[Recipient]
    module: GameModule | None = None  # whose own templates a letter may include
    unreachable: Sequence[str] = ()  # players whose mail bounces: the others' letters say so
    packed: bool = False  # letters kept in packs (`referee.letters.kept`): a game begun since
    acks_packed: bool = False  # a folder's acknowledgements kept in one pack (`acks-`): a game begun later

    def player(self, name: str | None) -> Recipient | None:
        """Return the player with this name, or None."""
        return next((p for p in self.players if p.name == name), None) if name else None

    def message_id(self, *parts: str) -> str:
        """Return the deterministic Message-ID of this game's letter named by `parts`."""
        return make_message_id(self.referee_email.rpartition("@")[2], self.game, *parts)

    def thread_id(self, player: str | None) -> str:
        """Return the Message-ID of `player`'s first notice of this game, which every later letter
        to them names in References: derived, so that no letter needs to look it up."""
        return self.message_id("thread", player or "unknown")

    def filed(self, folder: str, filename: str) -> str:
        """Return the name a letter's own file kept as FOLDER/FILENAME carries in the mail."""
        return filed_name(self.game, folder, filename)

    def common(self, player: str | None) -> dict[str, Any]:
        """Return what every letter's template is given, for the letter to `player`."""
        return {
            "game": self.game,
            "title": self.title,
            "player": player,
            "protocol": PROTOCOL,
            "referee_key": self.referee_key,
            "referee_email": self.referee_email,
            "unreachable": [name for name in self.unreachable if name != player],
        }


# The HTML a letter was sent with is kept gzipped (`NAME.html.gz`): it is not what the referee
# signs (the text is), it is the largest file of a letter, and the pages of one phase's letters
# repeat the same page shell. Games before this kept it plain (`NAME.html`); both are read.
KEPT_HTML_SUFFIX = ".gz"


def keep_html(html: str) -> bytes:
    """Return the bytes a letter's HTML is kept as: gzip without a time or a name, so that the
    same letter always keeps the same bytes. Level 6, zlib's default: a long phase's report
    compressed five times faster than at 9, 13% larger (a short letter the same, 0.5% larger)."""
    return gzip.compress(html.encode("utf-8"), compresslevel=6, mtime=0)


def read_kept_html(path: Path) -> str:
    """Return the HTML a letter was sent with, kept as `path` (NAME.html): plain by an older game,
    as NAME.html.gz since, or in a pack of letters (`referee.letters.kept`) by a game begun since."""
    packed = path.with_name(path.name + KEPT_HTML_SUFFIX)
    if packed.exists():
        return gzip.decompress(packed.read_bytes()).decode("utf-8")
    return read_kept(path).decode("utf-8")


# Files kept lately, by content: a report's view after the phase is, byte for byte, the view
# the next phase's notice attaches, written moments later by the same adjudication.
_recently_kept: dict[tuple[Path, str], Path] = {}
RECENTLY_KEPT = 256


def keep_file(mail_dir: Path, path: Path, data: bytes) -> None:
    """Keep a letter's attachment as `path`: as a hard link to a file kept lately under
    `mail_dir` with the same bytes (the disk holds them once), else written."""
    digest = hashlib.sha256(data).hexdigest()
    earlier = _recently_kept.get((mail_dir, digest))
    if earlier is None or earlier == path or not _holds(earlier, data):
        atomic_write(path, data)
    else:
        link_or_write(earlier, path, data)
    _recently_kept.pop((mail_dir, digest), None)
    _recently_kept[(mail_dir, digest)] = path
    while len(_recently_kept) > RECENTLY_KEPT:
        del _recently_kept[next(iter(_recently_kept))]


def _holds(path: Path, data: bytes) -> bool:
    if pending_write(path):  # written in the open group (an adjudication's letters land together)
        return pending_data(path) == data
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def filed_name(game: str, folder: str, filename: str) -> str:
    """Return `filename` as a letter's attachment: prefixed by the game and the folder under mail/
    it is kept in (the phase's `0003-t2-movement`, or `changes`, `disputes`, `reveals`), so that
    the files of two turns never share a name."""
    return f"{game}-{folder}-{filename}"


def deliver(
    head: Letterhead,
    player: str | None,
    folder: str,
    name: str,
    subject: str,
    kind: str,
    context: dict[str, Any],
    message_id: str,
    attachments: list[Attachment],
    in_reply_to: str | None = None,
    fallback_address: str | None = None,
) -> Path:
    """Render, sign, keep and post one letter; return the path of its signed text (in a game
    whose letters are packed, the path it is read by: `referee.letters.kept.read_kept`).

    The letter goes to the player's registered address; `fallback_address` is used only when
    the letter concerns no known player (a mail whose signature matched no one). A player who
    asked for encryption gets it sealed to their key; the copies kept here stay plain. In the
    mail the letter's signed text and its private attachments carry `head.filed` names; the
    template is told the signed text's as `signed_name`.
    """
    signed_name = head.filed(folder, name)
    text, html = render(kind, {**context, "signed_name": signed_name}, head.module)
    text_bytes = text.encode("utf-8")
    signature = head.sign(text_bytes).encode()
    base = head.mail_dir / folder
    text_path = base / f"{name}.txt"
    if head.packed:
        members = {f"{name}.txt": text_bytes, f"{name}.txt.sig": signature, f"{name}.html": html.encode("utf-8")}
        prefix = ACKS_PACK_PREFIX if kind == "ack" and head.acks_packed else PACK_PREFIX
        keep_packed(base, {**members, **{item.filename: item.data for item in attachments if item.kept}}, prefix)
    else:
        atomic_write(text_path, text_bytes)
        atomic_write(base / f"{name}.txt.sig", signature)
        atomic_write(base / f"{name}.html{KEPT_HTML_SUFFIX}", keep_html(html))
        for item in attachments:
            if item.kept:
                keep_file(head.mail_dir, base / item.filename, item.data)
    recipient = head.player(player)
    address = recipient.email if recipient is not None else fallback_address
    if address is not None:
        letter = Letter(
            to=address,
            subject=subject,
            text=text,
            html=html,
            message_id=message_id,
            in_reply_to=in_reply_to,
            thread=head.thread_id(player) if player is not None else None,
            auto_submitted="auto-replied" if kind == "ack" else "auto-generated",
            attachments=[
                Attachment(f"{signed_name}.txt", text_bytes, "text/plain"),
                Attachment(f"{signed_name}.txt.sig", signature, "application/octet-stream"),
                *(
                    item if item.public else replace(item, filename=head.filed(folder, item.filename))
                    for item in attachments
                ),
            ],
        )
        if recipient is not None and recipient.encrypt:
            letter = seal_letter(letter, [recipient.key], recipient.name, head.referee_name, head.referee_email)
        post(head.outbox, letter, head.referee_email, head.referee_name)
    return text_path


def to_every_player(
    head: Letterhead,
    folder: str,
    name: str,
    subject: str,
    kind: str,
    context: Callable[[str], dict[str, Any]],
    attachments: Sequence[Attachment] = (),
) -> list[Path]:
    """Post letter `kind` to every player, kept as GAMEDIR/mail/FOLDER/PLAYER.NAME; return the paths."""
    with gathered():
        return [
            deliver(
                head,
                player.name,
                folder,
                f"{player.name}.{name}",
                subject,
                kind,
                {**head.common(player.name), **context(player.name)},
                head.message_id(folder, name, player.name),
                list(attachments),
            )
            for player in head.players
        ]
