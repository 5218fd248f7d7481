"""Reading one incoming mail: who sent it, whether it is automatic traffic, the order files it
carries (attachments with a detached .sig, or pasted inline above an armored signature), or
the command it asks for. Nothing here trusts the subject line, and nothing raises on bad mail:
what cannot be read becomes a problem the sender is told about.

Mail clients change the files they carry: a text attachment goes out with CRLF line ends, in
quoted-printable or base64, tagged with a charset (sometimes transcoded to it), with a final
newline added or dropped. Each order file therefore comes with a few candidate byte strings,
the forms its signed original may have had; intake keeps the one the signature covers, and a
form no signature covers is never used.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field, replace
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import getaddresses, parseaddr

from referee.letters.headers import RememberedHeaders
from referee.protocol.canonical import sha256_hex
from referee.protocol.orders import canonical_text

BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"
ORDER_SUFFIXES = (".yaml", ".yml", ".txt", ".order", ".orders")
COMMANDS = ("help", "status", "report", "absent", "back", "dispute")
BOUNCE_SENDERS = re.compile(r"^(mailer-daemon|postmaster|no-?reply|do-?not-?reply)@", re.IGNORECASE)
MAX_TEXT_CHARS = 1_000_000
MAX_MESSAGE_ID = 250  # RFC 5322 allows 998 per line; real ones are under 100
GAME_LINE = re.compile(rb"^game:", re.MULTILINE)


READING = policy.default.clone(header_factory=RememberedHeaders())  # parsing: see RememberedHeaders


@dataclass(frozen=True)
class OrderPart:
    """One order file found in a mail, with the ways its bytes may have been signed.

    `candidates` holds, best first, the byte strings the signature may cover: an attachment's
    exact bytes, then the same with other line ends, final newline or charset (see
    `attachment_forms`); for pasted orders the canonical text (and the same from the first
    `game:` line, for a player who wrote a greeting above the file).
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


def _all_headers(message: Message, name: str) -> list[str]:
    try:
        return [str(value) for value in message.get_all(name) or []]
    except Exception:  # "From: a@" makes the header parser itself fail: no usable value
        return []


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
    loops = [value.strip().lower() for value in _all_headers(message, "X-Loop")]
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


def attachment_forms(data: bytes, charset: str | None = None) -> tuple[bytes, ...]:
    """Return the forms an attached file's signed original may have had, its exact bytes first.

    The others undo what mail clients do to text files: line ends made CRLF (or LF, or CR), a
    final newline added or dropped, a text transcoded to the charset the part is tagged with,
    trailing blanks removed. A handful of forms, so checking each against the signature is cheap.
    """
    texts = [data]
    if charset and charset.lower() not in ("utf-8", "utf8", "us-ascii", "ascii"):
        try:
            texts.append(data.decode(charset).encode("utf-8"))
        except (LookupError, UnicodeError, ValueError):  # an unknown charset name, or one with a NUL
            pass
    forms: list[bytes] = []
    for text in texts:
        lf = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        bare = lf.rstrip(b"\n")
        for variant in (
            text,
            lf,
            bare + b"\n",
            bare,
            bare.replace(b"\n", b"\r\n") + b"\r\n",
            bare.replace(b"\n", b"\r\n"),
        ):
            if variant not in forms:
                forms.append(variant)
        try:
            canonical = canonical_text(lf.decode("utf-8")).encode("utf-8")
        except UnicodeDecodeError:
            continue
        if canonical not in forms:
            forms.append(canonical)
    return tuple(forms)


def pasted_forms(text: str) -> tuple[bytes, ...]:
    """Return the canonical text of orders pasted in a body, and of the same from the first
    `game:` line and up to a `-- ` signature separator (for a greeting above or a footer below)."""
    order_text = canonical_text(text.strip("\n"))
    forms = [order_text]
    lines = order_text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.startswith("game:")), 0)
    if first:
        forms.append("\n".join(lines[first:]))
    # The signature separator "-- " has lost its space in the canonical text.
    footer = next((i for i in range(first, len(lines)) if lines[i] == "--"), None)
    if footer is not None:
        forms.append(canonical_text("\n".join(lines[first:footer])))
    return tuple(dict.fromkeys(form.encode("utf-8") for form in forms))


def _has_game_line(text: str) -> bool:
    return any(line.startswith("game:") for line in text.replace("\r", "\n").split("\n"))


def _inline_orders(text: str) -> tuple[list[OrderPart], list[bytes], list[str]]:
    """Find orders pasted above armored signatures; each block's text runs from the previous one.

    Return the pasted orders, the signatures pasted with no orders above them (kept for files
    attached without their .sig), and the problems."""
    parts: list[OrderPart] = []
    bare: list[bytes] = []
    rest = text.replace("\r\n", "\n")
    index = 0
    while BEGIN in rest:
        before, _, after = rest.partition(BEGIN)
        if END not in after:
            return parts, bare, ["an armored signature starts but never ends (-----END SSH SIGNATURE----- is missing)"]
        armor, _, rest = after.partition(END)
        signature = f"{BEGIN}{armor}{END}\n".encode()
        if not _has_game_line(before):
            bare.append(signature)
        index += 1
        parts.append(OrderPart(f"pasted orders #{index}", pasted_forms(before), signature))
    return parts, bare, []


def _is_signature(name: str, data: bytes) -> bool:
    return name.lower().endswith((".sig", ".asc")) or data.lstrip().startswith(BEGIN.encode())


def _signature_stem(name: str) -> str:
    """Return the file a signature's name says it signs: orders.yaml.sig (or orders.yaml.sig.txt,
    as some systems save it) -> orders.yaml."""
    lower = name.lower()
    for suffix in (".txt", ".asc", ".sig"):
        if lower.endswith(suffix):
            name, lower = name[: -len(suffix)], lower[: -len(suffix)]
    return name


def _attached_orders(message: Message) -> tuple[dict[str, OrderPart], dict[str, bytes]]:
    """Return the attached order files, by name (signature None when none came with it), and the
    attached signatures no order file claimed."""
    files: dict[str, tuple[bytes, str | None]] = {}
    for part in message.walk():
        if part.is_multipart():
            continue
        try:
            name = part.get_filename()
        except Exception:  # a parameter the parser cannot decode: not a file the referee can name
            name = None
        if not name:
            continue
        try:
            data = part.get_payload(decode=True)
            charset = part.get_content_charset()
        except Exception:  # a payload or charset parameter too broken to decode: an empty file
            data, charset = None, None
        files[name.strip()] = (data if isinstance(data, bytes) else b"", charset)
    signatures = {n: d for n, (d, _) in files.items() if _is_signature(n, d)}
    orders = {
        n: (d, charset)
        for n, (d, charset) in files.items()
        if n not in signatures and (n.lower().endswith(ORDER_SUFFIXES) or GAME_LINE.search(d[:65536]))
    }
    parts: dict[str, OrderPart] = {}
    claimed: set[str] = set()
    for name, (data, charset) in sorted(orders.items()):
        stem = name.rsplit(".", 1)[0]
        match = next((s for s in sorted(signatures) if _signature_stem(s) in (name, stem)), None)
        if match is None and len(orders) == 1 and len(signatures) == 1:
            match = next(iter(signatures))  # one file and one signature, whatever their names
        if match is not None:
            claimed.add(match)
        signature = signatures[match] if match is not None else None
        parts[name] = OrderPart(f"attachment {name}", attachment_forms(data, charset), signature)
    return parts, {n: d for n, d in signatures.items() if n not in claimed}


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
        message = BytesParser(policy=READING).parsebytes(raw)
    except Exception as exc:  # the parser is lenient, but a mail is anything a stranger sends
        incoming.problems.append(f"the mail could not be read as MIME ({type(exc).__name__})")
        return incoming
    incoming.message_id = clean_message_id(_header(message, "Message-ID"))
    addresses = [a for _, a in getaddresses(_all_headers(message, "From")) if a]
    incoming.sender = _address(addresses[0]) if len(addresses) == 1 else None
    incoming.automatic = automatic_reason(message, own_address)
    if incoming.automatic:
        return incoming
    if message.defects:
        kinds = sorted({type(d).__name__ for d in message.defects})
        if any("Boundary" in k or "StartBoundary" in k for k in kinds):
            incoming.problems.append(f"the mail's MIME structure is broken ({', '.join(kinds)})")
    attached, loose_signatures = _attached_orders(message)
    text, html_only = _body_text(message, incoming.problems)
    pasted, bare, problems = _inline_orders(text)
    incoming.problems += problems
    unsigned = [name for name, part in attached.items() if part.signature is None]
    if bare and len(bare) == len(unsigned):
        # Files attached, their signatures pasted in the body: pair them in order.
        for name, signature in zip(unsigned, bare, strict=True):
            attached[name] = replace(attached[name], signature=signature)
        pasted = [part for part in pasted if part.signature not in bare]
    if html_only and pasted:
        incoming.problems.append(
            "the mail has only an HTML part, which mangles pasted orders: send it as plain text, "
            "or attach the order file and its .sig"
        )
        pasted = []
    if loose_signatures and not attached and not pasted and _has_game_line(text) and not html_only:
        # Orders pasted in the body, their signature attached as a file.
        for signature in loose_signatures.values():
            pasted.append(OrderPart("pasted orders", pasted_forms(text), signature))
        loose_signatures = {}
    if loose_signatures and not attached:
        incoming.problems.append(
            f"the mail carries a signature ({', '.join(sorted(loose_signatures))}) but no order file: "
            "attach the order file (a .yaml file) beside its .sig, or paste it whole above the signature"
        )
    incoming.orders += list(attached.values()) + pasted
    if not incoming.orders and _has_tnef(message):
        incoming.problems.append(
            "Outlook packed the attachments into winmail.dat (Rich Text format), which the referee cannot "
            "open: send the mail in plain text or HTML format (Format Text > Plain Text) with the order "
            "file and its .sig attached"
        )
    if not incoming.orders:
        incoming.command = _command(text)
    return incoming


def _body_text(message: Message, problems: list[str]) -> tuple[str, bool]:
    """Return the mail's text (its plain parts, else its HTML made text) and whether it had only HTML."""
    plain, markup = [], []
    for part in message.walk():
        try:
            if part.is_multipart() or part.get_filename() or part.get_content_disposition() == "attachment":
                continue
            kind = part.get_content_type()
            if kind == "text/plain":
                plain.append(_text_of(part))
            elif kind == "text/html":
                markup.append(_text_of(part))
        except (LookupError, UnicodeError) as exc:
            charset = part.get_param("charset", "unknown")
            problems.append(f"a text part is in a character set that cannot be read ({charset}: {exc})")
        except Exception as exc:  # a part's headers too broken for the parser: said, and skipped
            problems.append(f"a part of the mail could not be read ({type(exc).__name__})")
    if not plain and markup:
        return _strip_html("\n".join(markup)), True
    return "\n".join(plain), False


def _has_tnef(message: Message) -> bool:
    for part in message.walk():
        try:
            name = (part.get_filename() or "").lower()
        except Exception:
            name = ""
        if part.get_content_type() == "application/ms-tnef" or name == "winmail.dat":
            return True
    return False
