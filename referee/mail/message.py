"""Reading one incoming mail: who sent it, whether it is automatic traffic, the order files it
carries (attachments with a detached .sig, or pasted inline above an armored signature), or
the command it asks for. Nothing here trusts the subject line, and nothing raises on bad mail:
what cannot be read becomes a problem the sender is told about.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import getaddresses, parseaddr

from referee.protocol.canonical import sha256_hex
from referee.protocol.orders import canonical_text

BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"
ORDER_SUFFIXES = (".yaml", ".yml", ".txt", ".order", ".orders")
COMMANDS = ("help", "status", "report", "absent", "back", "dispute")
BOUNCE_SENDERS = re.compile(r"^(mailer-daemon|postmaster|no-?reply|do-?not-?reply)@", re.IGNORECASE)
MAX_TEXT_CHARS = 1_000_000
MAX_MESSAGE_ID = 250  # RFC 5322 allows 998 per line; real ones are under 100


@dataclass(frozen=True)
class OrderPart:
    """One order file found in a mail, with the ways its bytes may have been signed.

    `candidates` holds, best first, the byte strings the signature may cover: an attachment's
    exact bytes, or for pasted orders the canonical text (and the same from the first `game:`
    line, for a player who wrote a greeting above the file).
    """

    origin: str
    candidates: tuple[bytes, ...]
    signature: bytes | None


@dataclass(frozen=True)
class Command:
    """A request by mail: `help`, `status GAME`, `report GAME`, `absent GAME until DATE`..."""

    name: str
    args: tuple[str, ...]
    text: str  # the whole body, for commands that carry a reason (dispute)


@dataclass
class Incoming:
    """An incoming mail, read."""

    sha256: str
    size: int
    message_id: str | None
    sender: str | None  # the From address, lower-cased domain; None if there is none
    automatic: str | None = None  # why this is machine traffic that must never be answered
    orders: list[OrderPart] = field(default_factory=list)
    command: Command | None = None
    problems: list[str] = field(default_factory=list)


def _header(message: Message, name: str) -> str:
    try:
        value = message.get(name)
    except Exception:  # a header the parser cannot even represent is the same as a broken one
        return ""
    return str(value).strip() if value is not None else ""


def clean_message_id(value: str | None) -> str | None:
    """Return a Message-ID safe to store and to write into In-Reply-To and References: printable
    ASCII without spaces, in angle brackets, not over-long; None if nothing usable is left.
    A stranger's header may decode to CR/LF (a header injection) or hold anything else."""
    if not value:
        return None
    core = "".join(c for c in value.strip().split()[0] if "!" <= c <= "~" and c not in "<>") if value.strip() else ""
    return f"<{core}>" if core and len(core) <= MAX_MESSAGE_ID else None


def _address(value: str) -> str | None:
    _, address = parseaddr(value)
    if "@" not in address or any(c.isspace() for c in address):
        return None
    local, _, domain = address.rpartition("@")
    return f"{local}@{domain.lower()}"


def automatic_reason(message: Message, own_address: str) -> str | None:
    """Return why a mail is automatic traffic (RFC 3834 and common practice), or None."""
    auto = _header(message, "Auto-Submitted").lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    precedence = _header(message, "Precedence").lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"Precedence: {precedence}"
    if _header(message, "List-Id") or _header(message, "List-Unsubscribe"):
        return "mailing-list traffic"
    loops = [value.strip().lower() for value in (message.get_all("X-Loop") or [])]
    if own_address.lower() in loops:
        return "X-Loop: our own mail came back"
    if _header(message, "X-Autoreply") or _header(message, "X-Autorespond"):
        return "an auto-reply"
    if message.get_content_type() == "multipart/report":
        return "a delivery or read report"
    if _header(message, "Return-Path") == "<>":
        return "a bounce (empty Return-Path)"
    sender = _address(_header(message, "From")) or ""
    if BOUNCE_SENDERS.match(sender):
        return f"sent by {sender}"
    return None


def unflow(text: str, delsp: bool) -> str:
    """Undo format=flowed (RFC 3676): a line ending in a space continues on the next; a line
    starting with a space was space-stuffed. Quoted lines are left as they are: orders are not."""
    out: list[str] = []
    pending = ""
    for line in text.split("\n"):
        line = line.removesuffix("\r")
        if line.startswith(" "):
            line = line[1:]
        if line.endswith(" ") and line != "-- ":
            pending += line[:-1] if delsp else line
            continue
        out.append(pending + line)
        pending = ""
    if pending:
        out.append(pending)
    return "\n".join(out)


def _text_of(part: Message) -> str:
    content = part.get_content() if isinstance(part, EmailMessage) else part.get_payload(decode=True)
    text = content if isinstance(content, str) else bytes(content or b"").decode("utf-8", "replace")
    if _param(part, "format") == "flowed":
        text = unflow(text, _param(part, "delsp") == "yes")
    return text[:MAX_TEXT_CHARS]


def _param(part: Message, name: str) -> str:
    value = part.get_param(name, "")
    return value.lower() if isinstance(value, str) else ""


def _strip_html(markup: str) -> str:
    markup = re.sub(r"(?is)<(script|style).*?</\1>", "", markup)
    markup = re.sub(r"(?i)<br\s*/?>|</p>|</div>", "\n", markup)
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def _inline_orders(text: str) -> tuple[list[OrderPart], list[str]]:
    """Find orders pasted above armored signatures; each block's text runs from the previous one."""
    parts: list[OrderPart] = []
    rest = text.replace("\r\n", "\n")
    index = 0
    while BEGIN in rest:
        before, _, after = rest.partition(BEGIN)
        if END not in after:
            return parts, ["an armored signature starts but never ends (-----END SSH SIGNATURE----- is missing)"]
        armor, _, rest = after.partition(END)
        index += 1
        order_text = canonical_text(before.strip("\n"))
        candidates = [order_text.encode("utf-8")]
        lines = order_text.split("\n")
        first = next((i for i, line in enumerate(lines) if line.startswith("game:")), 0)
        if first:
            candidates.append("\n".join(lines[first:]).encode("utf-8"))
        parts.append(OrderPart(f"pasted orders #{index}", tuple(candidates), f"{BEGIN}{armor}{END}\n".encode()))
    return parts, []


def _attached_orders(message: Message) -> tuple[list[OrderPart], list[str]]:
    files: dict[str, bytes] = {}
    for part in message.walk():
        if part.is_multipart():
            continue
        name = part.get_filename()
        if not name:
            continue
        try:
            data = part.get_payload(decode=True)
        except Exception:
            data = None
        files[name.strip()] = data if isinstance(data, bytes) else b""
    orders = {n: d for n, d in files.items() if n.lower().endswith(ORDER_SUFFIXES)}
    signatures = {n: d for n, d in files.items() if n.lower().endswith((".sig", ".asc"))}
    problems: list[str] = []
    parts: list[OrderPart] = []
    for name, data in sorted(orders.items()):
        stem = name.rsplit(".", 1)[0]
        signature = signatures.get(f"{name}.sig") or signatures.get(f"{stem}.sig")
        if signature is None and len(orders) == 1 and len(signatures) == 1:
            signature = next(iter(signatures.values()))  # one file and one signature, whatever their names
        parts.append(OrderPart(f"attachment {name}", (data,), signature))
    if signatures and not orders:
        problems.append(
            f"the mail carries a signature ({', '.join(sorted(signatures))}) but no order file: "
            "attach the order file (a .yaml file) beside its .sig"
        )
    return parts, problems


def _command(text: str) -> Command | None:
    for line in text.splitlines():
        words = line.strip().split()
        if not words:
            continue
        name = words[0].lower().rstrip(":")
        return Command(name, tuple(words[1:]), text) if name in COMMANDS else None
    return None


def read_message(raw: bytes, own_address: str) -> Incoming:
    """Read a raw mail; never raises on bad input."""
    incoming = Incoming(sha256_hex(raw), len(raw), None, None)
    try:
        message = BytesParser(policy=policy.default).parsebytes(raw)
    except Exception as exc:  # the parser is lenient, but a mail is anything a stranger sends
        incoming.problems.append(f"the mail could not be read as MIME ({type(exc).__name__})")
        return incoming
    incoming.message_id = clean_message_id(_header(message, "Message-ID"))
    from_values = message.get_all("From") or []
    addresses = [a for _, a in getaddresses([str(v) for v in from_values]) if a]
    incoming.sender = _address(addresses[0]) if len(addresses) == 1 else None
    incoming.automatic = automatic_reason(message, own_address)
    if incoming.automatic:
        return incoming
    if message.defects:
        kinds = sorted({type(d).__name__ for d in message.defects})
        if any("Boundary" in k or "StartBoundary" in k for k in kinds):
            incoming.problems.append(f"the mail's MIME structure is broken ({', '.join(kinds)})")
    attached, problems = _attached_orders(message)
    incoming.orders += attached
    incoming.problems += problems
    plain, markup = [], []
    for part in message.walk():
        if part.is_multipart() or part.get_filename() or part.get_content_disposition() == "attachment":
            continue
        kind = part.get_content_type()
        try:
            if kind == "text/plain":
                plain.append(_text_of(part))
            elif kind == "text/html":
                markup.append(_text_of(part))
        except (LookupError, UnicodeError) as exc:
            charset = part.get_content_charset() or "unknown"
            incoming.problems.append(f"a text part is in a character set that cannot be read ({charset}: {exc})")
    text = "\n".join(plain)
    if not plain and markup:
        if any(BEGIN in m for m in markup):
            incoming.problems.append(
                "the mail has only an HTML part, which mangles pasted orders: send it as plain text, "
                "or attach the order file and its .sig"
            )
        text = _strip_html("\n".join(markup))
    elif plain:
        inline, problems = _inline_orders(text)
        incoming.orders += inline
        incoming.problems += problems
    if not incoming.orders:
        incoming.command = _command(text)
    return incoming
