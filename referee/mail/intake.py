"""Mail intake, exactly once: fetch, store, handle, move.

1. Fetch new messages (UIDs above the last stored one, in batches: one FETCH per batch).
2. Store each raw message durably (HOME/spool/SHA256.eml: written, synced and renamed with the
   rest of its fetch batch) and record it in the ledger, with its UID, before anything else
   happens to it.
3. Handle each stored message, in batches made durable together (`referee.mail.batch`): route
   its orders to their games (`referee.game.engine.submit`, which handles one mail once, by its
   source) or answer its command; record the outcome. That the handling starts is committed
   first (the batch's), and HOME/handling names the mail in hand: a message whose handling
   started and never finished killed the process (a crash in a parser, memory, a hang ended
   by cron's timeout), so the next pass sets it aside unhandled, moves it to the rejected
   folder and alerts the referee, and every other mail goes on. A mail over the MIME limits
   (`referee.mail.bounds`) is refused before the email parser reads it.
4. Move handled messages on the server to the processed or rejected folder (one MOVE per batch).

A crash between any two steps repeats the later steps only: a message already stored is found
by its SHA-256 (or by its Message-ID and the same content less the relays' trace headers) and
not stored again, a message already handled is not handled again, and a copy not yet moved is
moved by the next pass. A new mail that reuses an old Message-ID is handled as the new mail it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from referee.errors import RefereeError
from referee.files import atomic_write, group_commit
from referee.game.results import Receipt
from referee.mail.batch import Batch, Marker
from referee.mail.directory import Directory
from referee.mail.home import Home, HomeConfig
from referee.mail.imap import Mailbox
from referee.mail.ledger import Ledger, StoredMessage
from referee.protocol.canonical import sha256_hex
from referee.protocol.display import printable
from referee.protocol.signatures import NAMESPACE_ORDERS, verify

if TYPE_CHECKING:  # the handling's types: their modules load when a mail is handled (see below)
    from email.message import Message

    from referee.mail.command_files import CommandFileError  # deferred, as above
    from referee.mail.message import Incoming, OrderPart  # deferred, as above
    from referee.mail.replies import Answer  # deferred, as above

BATCH_MESSAGES = 200
# Mails handled and made durable together (`referee.mail.batch`): as many as a fetch stores, so
# that a pass of one fetch batch pays each game's commit and the letters' syncs once.
HANDLE_BATCH = BATCH_MESSAGES
MARKER_FILE = "handling"
BATCH_BYTES = 32 * 1024 * 1024
__all__ = ["fetch_and_store", "handle_stored", "move_handled"]
TRACE_HEADERS = {
    b"received", b"return-path", b"delivered-to", b"x-original-to", b"authentication-results",
    b"arc-seal", b"arc-message-signature", b"arc-authentication-results", b"x-received", b"x-spam-status",
    b"x-spam-score", b"x-spam-flag", b"x-virus-scanned",
}  # fmt: skip
GAME_LINE = re.compile(rb"^game:[ \t]*['\"]?([A-Za-z0-9_.-]+)", re.MULTILINE)
PLAYER_LINE = re.compile(rb"^player:[ \t]*['\"]?([A-Za-z0-9_.-]+)", re.MULTILINE)
KEY_PROBLEMS = ("refused.signature", "refused.key-unknown", "refused.key-other-player")


@dataclass
class IntakeReport:
    fetched: int = 0
    stored: int = 0
    duplicates: int = 0
    handled: int = 0
    set_aside: int = 0
    moved: int = 0
    outcomes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def spool_name(sha256: str) -> str:
    return f"{sha256}.eml"


# -- 1 and 2: fetch and store ----------------------------------------------------------


def fetch_and_store(
    home: Home,
    config: HomeConfig,
    ledger: Ledger,
    mailbox: Mailbox,
    now: datetime,
    report: IntakeReport,
    after_store: Callable[[], None] = lambda: None,
) -> None:
    """Store every new message of the inbox; `after_store` is a test's hook to crash right there."""
    assert config.imap is not None
    inbox = config.imap.folders["inbox"]
    selected = mailbox.select(inbox)
    position = ledger.position(inbox)
    # A new UIDVALIDITY means the server renumbered the folder: read it all again; what was
    # already stored is recognised by its bytes or Message-ID.
    last_uid = position[1] if position and position[0] == selected.uidvalidity else 0
    uids = mailbox.uids_after(last_uid)
    if not uids:
        return
    sizes = mailbox.sizes(uids)
    for batch in _batches([uid for uid in uids if uid in sizes], sizes, config.max_message_bytes):
        small = [uid for uid in batch if sizes[uid] <= config.max_message_bytes]
        large = [uid for uid in batch if sizes[uid] > config.max_message_bytes]
        raws = mailbox.fetch(small)
        raws.update({uid: _oversized(header, sizes[uid]) for uid, header in mailbox.fetch_headers(large).items()})
        report.fetched += len(raws)
        stored = []
        with group_commit():  # the batch's spool files are durable, with two syncs, before the ledger names them
            for uid in batch:
                raw = raws.get(uid)
                if raw is not None:  # gone since the search (another client expunged it): nothing to keep
                    stored.append((uid, raw, _store_file(home, raw)))
        with ledger.transaction():
            for uid, raw, sha in stored:
                incoming_id = _message_id(raw)
                known = ledger.find(sha, None) or _same_mail(home, ledger, incoming_id, raw)
                if known is None:
                    ledger.add(sha, incoming_id, len(raw), spool_name(sha), now)
                    report.stored += 1
                elif known.sha256 != sha:  # the same mail relayed again (new trace headers): kept, not handled twice
                    ledger.add(sha, incoming_id, len(raw), spool_name(sha), now, duplicate_of=known.sha256)
                    report.duplicates += 1
                else:
                    report.duplicates += 1
                ledger.add_copy(inbox, selected.uidvalidity, uid, sha)
            ledger.set_position(inbox, selected.uidvalidity, max(batch))
        after_store()


def _batches(uids: list[int], sizes: dict[int, int], limit: int) -> list[list[int]]:
    batches: list[list[int]] = [[]]
    total = 0
    for uid in uids:
        size = min(sizes[uid], limit)
        if batches[-1] and (len(batches[-1]) >= BATCH_MESSAGES or total + size > BATCH_BYTES):
            batches.append([])
            total = 0
        batches[-1].append(uid)
        total += size
    return [batch for batch in batches if batch]


def _oversized(header: bytes, size: int) -> bytes:
    """Keep the header of a message too large to fetch, with a note of its size."""
    return header.rstrip(b"\r\n") + f"\r\nX-Referee-Oversized: {size}\r\n\r\n".encode()


def _store_file(home: Home, raw: bytes) -> str:
    sha = sha256_hex(raw)
    path = home.spool / spool_name(sha)
    if not path.exists():
        atomic_write(path, raw)
    return sha


def _message_id(raw: bytes) -> str | None:
    # deferred: handling a mail loads the email package and the letters layer; an idle pass handles none
    from referee.mail.message import clean_message_id

    match = re.search(rb"(?im)^message-id:[ \t]*(<[^>\r\n]{1,900}>)", raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0])
    return clean_message_id(match[1].decode("ascii", "replace")) if match else None


def content_key(raw: bytes) -> str:
    """Return the SHA-256 of a mail without the trace headers that relays add on the way (Received,
    Return-Path, Delivered-To...): the same mail delivered twice has one key, another mail another."""
    lines = raw.replace(b"\r\n", b"\n").split(b"\n")
    kept: list[bytes] = []
    skipping = False
    for index, line in enumerate(lines):
        if line == b"":
            kept += lines[index:]
            break
        if line[:1] in (b" ", b"\t"):  # a folded continuation of the header above
            if not skipping:
                kept.append(line)
            continue
        skipping = line.split(b":", 1)[0].strip().lower() in TRACE_HEADERS
        if not skipping:
            kept.append(line)
    return sha256_hex(b"\n".join(kept))


def _same_mail(home: Home, ledger: Ledger, message_id: str | None, raw: bytes) -> StoredMessage | None:
    """Return the stored mail this one is a relayed copy of: the same Message-ID and the same content
    less trace headers. A new mail that reuses an old Message-ID is no copy of it."""
    if message_id is None:
        return None
    key = content_key(raw)
    for stored in ledger.with_message_id(message_id):
        try:
            if content_key((home.spool / stored.file).read_bytes()) == key:
                return stored
        except OSError:
            continue
    return None


# -- 3: handle -------------------------------------------------------------------------


def handle_stored(
    home: Home,
    config: HomeConfig,
    ledger: Ledger,
    now: datetime,
    report: IntakeReport,
    directory: Directory | None,
    while_handling: Callable[[StoredMessage], None] = lambda message: None,
) -> Directory | None:
    """Handle every stored message not yet handled, in batches (`referee.mail.batch`); return the
    directory if it was needed.

    `while_handling` is a test's hook, called once a message's handling has started."""
    marker_path = home.path / MARKER_FILE
    _after_a_dead_batch(ledger, marker_path, now)
    waiting = ledger.with_status("stored")
    if waiting and directory is None:
        directory = Directory.load(home)
    fresh = []
    for message in waiting:
        attempts = ledger.unfinished_attempts(message.sha256)
        if attempts:
            set_aside(home, config, ledger, message, attempts, now, report)
        else:
            fresh.append(message)
    if not fresh:
        return directory
    with Marker(marker_path) as marker:
        for start in range(0, len(fresh), HANDLE_BATCH):
            _handle_batch(
                home,
                config,
                ledger,
                now,
                report,
                directory or Directory(),
                fresh[start : start + HANDLE_BATCH],
                marker,
                while_handling,
            )
    return directory


def _after_a_dead_batch(ledger: Ledger, marker_path: Path, now: datetime) -> None:
    """After a pass that died in a batch: the mail it was handling counts as a handling that
    never finished (it is set aside); the batch's other mails are handled again as new."""
    started = ledger.batch_started()
    if not started:
        return
    in_hand = Marker.read(marker_path)
    with ledger.transaction():
        if in_hand in started:
            ledger.start_handling(in_hand, now)
        ledger.end_batch()


def _handle_batch(
    home: Home,
    config: HomeConfig,
    ledger: Ledger,
    now: datetime,
    report: IntakeReport,
    directory: Directory,
    messages: list[StoredMessage],
    marker: Marker,
    while_handling: Callable[[StoredMessage], None],
) -> None:
    """Handle `messages` as one batch: one ledger commit before, letters landed together, one
    commit per game touched, one ledger commit after (see `referee.mail.batch`)."""
    with ledger.transaction():
        ledger.start_batch([message.sha256 for message in messages], now)
    batch = Batch()
    answers: list[tuple[StoredMessage, Answer]] = []
    try:
        with group_commit():
            for message in messages:
                marker.write(message.sha256)
                try:
                    while_handling(message)
                    answer = handle_message(home, config, directory, ledger, message, now, batch)
                except RefereeError as exc:  # a game that cannot take mail now: the message waits for the next pass
                    report.errors.append(f"{message.sha256[:12]}: {exc.message}")
                    continue
                except Exception as exc:  # a bug met by one mail must not stop the others; it stays stored
                    report.errors.append(f"{message.sha256[:12]}: unexpected {type(exc).__name__}: {exc}")
                    continue
                answers.append((message, answer))
            marker.clear()  # every mail's handling finished: none of them is to blame for what follows
            batch.commit()
    except BaseException as exc:  # Ctrl-C, or the disk failing at the commit: the batch's mails stay stored
        batch.rollback()
        marker.clear()
        with ledger.transaction():
            ledger.end_batch()
        if not isinstance(exc, Exception):
            raise
        report.errors.append(f"{len(messages)} mail(s) left for the next pass: {type(exc).__name__}: {exc}")
        return
    with ledger.transaction():
        for message, answer in answers:
            ledger.mark_handled(message.sha256, answer.destination, {"summary": answer.summary}, now)
            ledger.finish_handling(message.sha256, now)
        ledger.end_batch()
    for message, answer in answers:
        report.handled += 1
        report.outcomes.append(f"{message.sha256[:12]} {answer.destination}: {answer.summary}")


def set_aside(
    home: Home,
    config: HomeConfig,
    ledger: Ledger,
    message: StoredMessage,
    attempts: int,
    now: datetime,
    report: IntakeReport,
) -> None:
    """Give up on a mail whose handling never finished: alert the referee, then file it as rejected."""
    # deferred: handling a mail loads the email package and the letters layer; an idle pass handles none
    from referee.mail.bounds import first_header
    from referee.mail.replies import alert_referee  # deferred, as above

    folder = config.imap.folders["rejected"] if config.imap is not None else "the rejected folder"
    try:  # whatever the mail holds, setting it aside must not fail in turn
        header = first_header((home.spool / message.file).read_bytes())
        described = [
            f"{name}: {printable(_field(header, name))[:200] or '(none)'}" for name in ("From", "Subject", "Message-ID")
        ]
    except Exception:
        described = ["(its header could not be read)"]
    # Posted before the ledger commits: after a crash in between, the next pass posts the same
    # letter again (its Message-ID comes from the mail), which the outbox keeps once.
    alert_referee(
        home,
        config,
        "A mail was set aside: handling it stopped `referee run`",
        [
            f"Handling this mail started {attempts} time(s) and never finished: the process died while "
            "handling it (a crash, a kill, running out of memory, or a timeout). So that it cannot stop "
            "every pass, the referee set it aside unhandled and handled the other mail.",
            *described,
            f"It is moved to {folder}; the referee's copy is {home.spool / message.file}. Nothing of it "
            "reached a game unless its acknowledgement was sent. If it carried orders, ask the sender to "
            "send them again in a plain mail, or enter them with `referee submit`; and please report the "
            "mail to the referee's maintainers.",
        ],
        f"set-aside/{message.sha256}",
    )
    summary = f"set aside: its handling started {attempts} time(s) and never finished"
    with ledger.transaction():
        ledger.set_aside(message.sha256, {"summary": summary, "attempts": attempts}, now)
    report.set_aside += 1
    report.outcomes.append(f"{message.sha256[:12]} rejected: {summary}")


def _field(header: Message, name: str) -> str:
    try:
        return str(header.get(name, "") or "")
    except Exception:  # a field the email package cannot represent: as good as none
        return ""


def handle_message(
    home: Home,
    config: HomeConfig,
    directory: Directory,
    ledger: Ledger,
    message: StoredMessage,
    now: datetime,
    batch: Batch | None = None,
) -> Answer:
    """Decide what one stored mail is and act on it; return where it belongs on the server.

    Orders go into the `batch`'s games, committed by its caller; any other kind of mail first
    commits the batch, since what it does (a command, a bounce) opens games of its own. Without
    a batch the mail is a batch of its own, committed here."""
    if batch is not None:
        return _handle_message(home, config, directory, ledger, message, now, batch)
    alone = Batch()
    try:
        answer = _handle_message(home, config, directory, ledger, message, now, alone)
    except BaseException:
        alone.rollback()
        raise
    alone.commit()
    return answer


def _handle_message(
    home: Home,
    config: HomeConfig,
    directory: Directory,
    ledger: Ledger,
    message: StoredMessage,
    now: datetime,
    batch: Batch,
) -> Answer:
    # deferred: handling a mail loads the email package and the letters layer; an idle pass handles none
    from referee.mail.bounds import mime_excess
    from referee.mail.command_files import is_command_file  # deferred, as above
    from referee.mail.commands import run_command  # deferred, as above
    from referee.mail.message import read_message  # deferred, as above
    from referee.mail.replies import Answer  # deferred, as above
    from referee.mail.undeliverable import handle_bounce, mail_from  # deferred, as above

    raw = (home.spool / message.file).read_bytes()
    excess = mime_excess(raw)
    if excess is not None:  # refused before the email parser reads it
        unread = _unread(raw, message, config.referee_email)
        if unread.automatic:
            return Answer("rejected", f"ignored: {unread.automatic}")
        _answer_stranger(
            home, config, ledger, directory, unread, now, "Your mail could not be read", [excess.describe()]
        )
        return Answer("rejected", f"over the MIME limits: {excess.what}")
    incoming = read_message(raw, config.referee_email)
    orders_only = not incoming.automatic and bool(incoming.orders) and not any(map(is_command_file, incoming.orders))
    if not orders_only:
        batch.commit()
    if incoming.automatic:
        bounce = handle_bounce(home, config, directory, ledger, raw, now)
        return bounce or Answer("rejected", f"ignored: {incoming.automatic}")
    if orders_only:
        mail_from(directory, incoming.sender, lambda path: batch.game(path).dir, batch.reachable)
    else:
        mail_from(directory, incoming.sender)
    if b"\r\nX-Referee-Oversized: " in raw.split(b"\r\n\r\n", 1)[0] + b"\r\n":
        limit = config.max_message_bytes // (1024 * 1024)
        _answer_stranger(
            home,
            config,
            ledger,
            directory,
            incoming,
            now,
            "Your mail is too large",
            [
                f"Your mail was over {limit} MiB, so the referee kept its header only and read nothing in it. "
                "An order file is a few kilobytes: send it with its .sig and nothing else."
            ],
        )
        return Answer("rejected", "too large")
    commands = [part for part in incoming.orders if is_command_file(part)]
    if commands:
        answers = [_signed_command(home, config, directory, ledger, incoming, part, now) for part in commands]
        incoming.orders = [part for part in incoming.orders if part not in commands]
        if incoming.orders:
            answers.append(_route_orders(home, config, directory, ledger, incoming, now, batch))
        done = any(answer.destination == "processed" for answer in answers)
        return Answer("processed" if done else "rejected", "; ".join(answer.summary for answer in answers))
    if incoming.orders:
        return _route_orders(home, config, directory, ledger, incoming, now, batch)
    if incoming.problems:
        _answer_stranger(
            home, config, ledger, directory, incoming, now, "Your mail could not be read", incoming.problems
        )
        return Answer("rejected", "; ".join(incoming.problems))
    if incoming.command and incoming.sender:
        return run_command(home, config, directory, incoming, now, ledger)
    _answer_stranger(
        home,
        config,
        ledger,
        directory,
        incoming,
        now,
        "Your mail carried no orders and no command",
        [
            "The referee found neither an order file (attached with its .sig, or pasted above an armored "
            "signature) nor a command as the first word of the body. What it understands:"
        ],
    )
    return Answer("rejected", "no orders, no command")


def _answer_stranger(
    home: Home,
    config: HomeConfig,
    ledger: Ledger,
    directory: Directory,
    incoming: Incoming,
    now: datetime,
    subject: str,
    lines: list[str],
) -> None:
    """Reply to the sender if it is safe (see `referee.mail.strangers`), a player with the help."""
    # deferred: handling a mail loads the email package and the letters layer; an idle pass handles none
    from referee.mail.commands import help_sections
    from referee.mail.strangers import answer_sender  # deferred, as above

    answer_sender(home, config, ledger, directory, incoming, now, subject, lines, help_sections())


def _signed_command(
    home: Home,
    config: HomeConfig,
    directory: Directory,
    ledger: Ledger,
    incoming: Incoming,
    part: OrderPart,
    now: datetime,
) -> Answer:
    """Carry out a signed command file once; refuse it (to the player it names, and briefly to the
    sender) when its signature or contents do not hold or it was used before."""
    # deferred: handling a mail loads the email package and the letters layer; an idle pass handles none
    from referee.mail.command_files import CommandFileError, read_command_file
    from referee.mail.commands import run_command  # deferred, as above
    from referee.mail.replies import Answer  # deferred, as above

    try:
        signed = read_command_file(directory, part)
    except CommandFileError as exc:
        _refuse_command(home, config, ledger, directory, incoming, now, exc)
        return Answer("rejected", f"{part.origin}: command refused: {exc.message}")
    seat = signed.seat
    with ledger.transaction():
        used = ledger.use_command(seat.game, seat.player, signed.nonce, signed.sha256, incoming.sha256, now)
    if used is not None:
        replay = CommandFileError(
            f"this command file was already used (on {used[:16]}): a signed command counts once. To do it "
            "again, change its nonce line and sign it again",
            seat,
        )
        _refuse_command(home, config, ledger, directory, incoming, now, replay)
        return Answer("rejected", f"{part.origin}: command refused: replayed")
    return run_command(home, config, directory, incoming, now, ledger, signed)


def _refuse_command(
    home: Home,
    config: HomeConfig,
    ledger: Ledger,
    directory: Directory,
    incoming: Incoming,
    now: datetime,
    exc: CommandFileError,
) -> None:
    # deferred: handling a mail loads the email package and the letters layer; an idle pass handles none
    from referee.mail.replies import post_reply
    from referee.mail.strangers import answer_sender  # deferred, as above

    subject = "Your command was not done"  # the sender's copy: short, and limited like any reply to strangers
    if exc.seat is not None:
        post_reply(
            home,
            config,
            exc.seat.email,
            f"[{exc.seat.game}] command REFUSED",
            [
                f"A command file for {exc.seat.player} in {exc.seat.game} was refused: {exc.message}.",
                "Nothing changed.",
            ],
            f"answer/{incoming.sha256}",
            in_reply_to=incoming.message_id,
        )
        if incoming.sender and incoming.sender.lower() == exc.seat.email.lower():
            return
    lines = [f"Refused: {exc.message}."]
    answer_sender(home, config, ledger, directory, incoming, now, subject, lines, key="refused-to-sender")


def _unread(raw: bytes, message: StoredMessage, own_address: str) -> Incoming:
    """Return what can be known of a mail without parsing its body: who sent it, and whether
    it is machine traffic (never answered)."""
    # deferred: handling a mail loads the email package and the letters layer; an idle pass handles none
    from email.utils import parseaddr

    from referee.mail.bounds import first_header  # deferred, as above
    from referee.mail.message import Incoming, automatic_reason  # deferred, as above

    header = first_header(raw)
    _, address = parseaddr(_field(header, "From"))
    local, _, domain = address.rpartition("@")
    sender = f"{local}@{domain.lower()}" if local and domain and not any(c.isspace() for c in address) else None
    try:
        automatic = automatic_reason(header, own_address)
    except Exception:  # a header too broken to tell: never answer it
        automatic = "a header that cannot be read"
    return Incoming(
        sha256=message.sha256, size=len(raw), message_id=message.message_id, sender=sender, automatic=automatic
    )


def signed_form(part: OrderPart, namespace: str = NAMESPACE_ORDERS) -> bytes | None:
    """Return the form of an order file that its signature covers, or None when none is."""
    if not part.signature:
        return None
    for candidate in part.candidates:
        try:
            verify(candidate, part.signature, namespace)
            return candidate
        except RefereeError:
            continue
    return None


def _signed_bytes(part: OrderPart) -> bytes:
    """Return the candidate bytes the signature covers (the first one if none does: refused later)."""
    if len(part.candidates) == 1:
        return part.candidates[0]  # submit checks the signature itself
    return signed_form(part) or part.candidates[0]


def _route_orders(
    home: Home,
    config: HomeConfig,
    directory: Directory,
    ledger: Ledger,
    incoming: Incoming,
    now: datetime,
    batch: Batch,
) -> Answer:
    # deferred: handling a mail loads the email package and the letters layer; an idle pass handles none
    from referee.mail.replies import Answer

    verdicts: list[str] = []
    accepted = 0
    unknown: list[str] = []
    for index, part in enumerate(incoming.orders):
        raw = _signed_bytes(part)
        match = GAME_LINE.search(raw)
        game = match[1].decode() if match else None
        path = directory.games.get(game) if game else None
        if path is None:
            unknown.append(f"{part.origin}: " + (f"no game '{game}' is run here" if game else "no 'game:' line"))
            continue
        # No `sender`: a file signed by no registered key is answered below, within the limiter.
        from referee.game.engine import submit  # deferred: an idle pass submits nothing

        receipt = submit(
            path,
            raw,
            part.signature,
            in_reply_to=incoming.message_id,
            source=f"mail:{incoming.sha256}:{index}",
            opened=batch.game(path),
        )
        if receipt.already_handled:
            verdicts.append(f"{part.origin}: already handled")
            accepted += 1
            continue
        if not receipt.accepted and any(p.code in KEY_PROBLEMS for p in receipt.problems):
            _refuse_signature(home, config, directory, ledger, incoming, now, game or "", raw, receipt)
        accepted += receipt.accepted
        verdict = "accepted" if receipt.accepted else "refused: " + "; ".join(p.code for p in receipt.problems)
        verdicts.append(f"{part.origin} -> {game} {receipt.player or '?'}: {verdict}")
    if unknown:
        games = sorted({seat.game for seat in directory.seats_of(incoming.sender)})
        lines = [
            "The referee could not tell which game these orders are for:",
            *unknown,
            f"Your games: {', '.join(games)}." if games else "Write the game's name on the order file's 'game:' line.",
        ]
        _answer_stranger(home, config, ledger, directory, incoming, now, "Orders for an unknown game", lines)
        verdicts += unknown
    return Answer("processed" if accepted else "rejected", "; ".join(verdicts))


def _refuse_signature(
    home: Home,
    config: HomeConfig,
    directory: Directory,
    ledger: Ledger,
    incoming: Incoming,
    now: datetime,
    game: str,
    raw: bytes,
    receipt: Receipt,
) -> None:
    """Tell of orders whose signature is not the registered player's: the player the file names
    (at their registered address, when the acknowledgement did not go there) and, briefly, the
    sender (a player writing from a new machine learns why). Both within the limiter."""
    # deferred: handling a mail loads the email package and the letters layer; an idle pass handles none
    from referee.mail.replies import post_reply
    from referee.mail.strangers import answer_sender, reply_allowed  # deferred, as above

    reasons = "; ".join(p.message[:300] for p in receipt.problems[:5])
    subject = f"[{game}] orders REFUSED ({receipt.sha256[:12]})"
    named = PLAYER_LINE.search(raw)
    seat = directory.seat(game, named[1].decode()) if named else None
    acknowledged = directory.seat(game, receipt.player) if receipt.player else None
    told = {acknowledged.email.lower()} if acknowledged else set()
    if seat is not None and seat.email.lower() not in told and reply_allowed(ledger, seat.email, now):
        post_reply(
            home,
            config,
            seat.email,
            subject,
            [f"Orders for {seat.player} in {game} came from {incoming.sender or 'an unknown sender'} and were "
             f"refused: {reasons}.", "Nothing changed. If they were yours, sign with your registered key."],
            f"refused/{incoming.sha256}/{receipt.sha256}",
            in_reply_to=incoming.message_id,
        )  # fmt: skip
        told.add(seat.email.lower())
    if incoming.sender and incoming.sender.lower() not in told:
        lines = [f"Your orders for {game} were refused: {reasons}."]
        answer_sender(home, config, ledger, directory, incoming, now, subject, lines, key=f"refused/{receipt.sha256}")


# -- 4: move ---------------------------------------------------------------------------


def move_handled(
    config: HomeConfig, ledger: Ledger, mailbox: Mailbox, now: datetime, report: IntakeReport, use_move: bool = True
) -> None:
    """Move every handled message still in the inbox to its folder: one command per folder."""
    assert config.imap is not None
    folders = config.imap.folders
    selected = mailbox.select(folders["inbox"])
    for destination, copies in ledger.copies_to_move(folders["inbox"], selected.uidvalidity).items():
        uids = [uid for uid, _ in copies]
        mailbox.move(uids, folders[destination], use_move=use_move)
        with ledger.transaction():
            ledger.mark_moved(folders["inbox"], selected.uidvalidity, uids, now)
        report.moved += len(uids)
