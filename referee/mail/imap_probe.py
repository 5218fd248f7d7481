"""Is there new mail? Asked of the IMAP server in one round trip, on a plain socket (a fast start).

An idle `referee run` (`referee.mail.idle`) needs one fact from the server: whether its inbox
holds mail past the position the ledger stored up to. imapclient costs about seven bare Python
starts to import (imaplib and ssl three), so the question is asked here with the standard
library's `_socket` alone: LOGIN, EXAMINE (read-only: nothing on the server changes), UID SEARCH
past the position and LOGOUT, sent together (pipelined, RFC 3501 5.5); STARTTLS or a TLS socket
when the account asks for TLS (then `ssl` is imported and a context built, as imapclient would).
Only the simplest shapes are taken: quoted strings of printable ASCII, answers without literals.
Anything else (a literal, a refusal, a greeting that is not OK, a name that would need encoding,
a timeout) is None: "cannot tell", and the full pass with imapclient runs and reports it in its
own words.
"""

from __future__ import annotations

import _socket  # socket's C half: `socket` itself builds enums at import (about a fifth of a bare start)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a fast start)
if TYPE_CHECKING:
    from typing import Any

MAX_LINE = 64 * 1024  # an answer line longer than this is not an idle server's: cannot tell


class _CannotTell(Exception):
    """The server answered in a shape this probe does not take."""


def mail_past(account: dict[str, Any], password: str | None, position: list[int] | None) -> bool | None:
    """Return whether the inbox holds mail past `position` ([UIDVALIDITY, last UID], or None before
    any mail: then any mail counts), or a renumbered inbox; None when the server's answers cannot
    tell (the full pass then asks it with imapclient)."""
    names = [account["host"], account["inbox"], *([account["username"]] if account["username"] is not None else [])]
    names.append(password or "")
    if not all(_quotable(name) for name in names):
        return None
    try:
        with _connect(account) as connection:
            return _ask(connection, account, password, position)
    except (OSError, _CannotTell, ValueError):
        return None


def _quotable(text: str) -> bool:
    return text.isascii() and text.isprintable() and "&" not in text  # "&" starts modified UTF-7


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _Connection:
    """Lines in and out of one socket, tagged commands, untagged answers collected."""

    def __init__(self, sock: Any) -> None:
        self.sock = sock
        self.buffer = b""
        self.tags = 0

    def __enter__(self) -> _Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()

    def line(self) -> bytes:
        while b"\r\n" not in self.buffer:
            chunk = self.sock.recv(MAX_LINE)
            if not chunk or len(self.buffer) > MAX_LINE:  # closed, or not an idle server's answer
                raise _CannotTell(self.buffer[:100])
            self.buffer += chunk
        text, self.buffer = self.buffer.split(b"\r\n", 1)
        if text.endswith(b"}"):  # a literal follows: not a shape taken here
            raise _CannotTell(text)
        return text

    def command(self, text: str) -> list[bytes]:
        """Send a command; return its untagged answers once it ends OK (else cannot tell)."""
        return self.pipelined([text])[0]

    def pipelined(self, texts: list[str], unanswered: str | None = None) -> list[list[bytes]]:
        """Send commands at once (RFC 3501 5.5: the server answers them in order) and `unanswered`
        after them, whose answer is not waited for; return each one's untagged answers once all
        ended OK (else cannot tell: a refused LOGIN makes the commands after it fail too)."""
        tags = [b"P%d" % (self.tags + index + 1) for index in range(len(texts) + 1)]
        self.tags += len(tags)
        lines = [tag + b" " + text.encode("ascii") + b"\r\n" for tag, text in zip(tags, texts, strict=False)]
        self.sock.sendall(
            b"".join(lines) + (tags[-1] + b" " + unanswered.encode("ascii") + b"\r\n" if unanswered else b"")
        )
        answers: list[list[bytes]] = []
        for tag in tags[: len(texts)]:
            untagged: list[bytes] = []
            while not (answer := self.line()).startswith(tag + b" "):
                if not answer.startswith(b"* "):  # a continuation request, another's tag: nothing here asks for one
                    raise _CannotTell(answer)
                untagged.append(answer[2:])
            if not answer[len(tag) + 1 :].upper().startswith(b"OK"):
                raise _CannotTell(answer)
            answers.append(untagged)
        return answers


def _connect(account: dict[str, Any]) -> _Connection:
    security = account["security"]
    sock = _plain(account) if security == "none" else _secure(account)
    try:
        connection = _Connection(sock)
        if not connection.line().upper().startswith(b"* OK"):  # PREAUTH or BYE: the full pass says
            raise _CannotTell("greeting")
        if security == "starttls":
            connection.command("STARTTLS")
            if connection.buffer:  # nothing may come between OK and the handshake
                raise _CannotTell("after STARTTLS")
            connection.sock = _tls(account).wrap_socket(sock, server_hostname=account["host"])
        return connection
    except BaseException:
        sock.close()
        raise


def _plain(account: dict[str, Any]) -> Any:
    """A TCP connection to the account's server (as socket.create_connection makes one)."""
    # The host as bytes: as text, the resolver's call loads the IDNA codec (about half a bare start).
    found = _socket.getaddrinfo(account["host"].encode("ascii"), account["port"], 0, _socket.SOCK_STREAM)
    failure: OSError = OSError(f"{account['host']} has no address")
    for family, kind, proto, _, address in found:
        sock = _socket.socket(family, kind, proto)
        sock.settimeout(account["timeout"])
        try:
            sock.connect(address)
            return sock
        except OSError as exc:
            sock.close()
            failure = exc
    raise failure


def _secure(account: dict[str, Any]) -> Any:
    """A TCP connection for TLS: STARTTLS on it, or TLS from the start (`security: ssl`)."""
    import socket  # deferred: TLS needs socket's Python half (ssl wraps it), a plain probe does not

    sock = socket.create_connection((account["host"], account["port"]), timeout=account["timeout"])
    if account["security"] == "ssl":
        return _tls(account).wrap_socket(sock, server_hostname=account["host"])
    return sock


def _tls(account: dict[str, Any]) -> Any:
    """A TLS context that trusts what the pass's (`MailAccount.tls_context`) trusts, or less: the
    CAs of `ca_file`; else the system's CAs from their hashed folder alone, each read when a
    certificate names it. The pass's context also reads the system's whole bundle first (about two
    bare starts); a certificate only the bundle vouches for is not verified here, and the full
    pass then runs."""
    import ssl  # deferred: only an account with TLS pays for it

    if account["ca_file"]:
        return ssl.create_default_context(cafile=account["ca_file"])
    return ssl.create_default_context(capath=ssl.get_default_verify_paths().capath)


def _ask(connection: _Connection, account: dict[str, Any], password: str | None, position: list[int] | None) -> bool:
    """LOGIN, EXAMINE, UID SEARCH past the position and LOGOUT, sent at once (one round trip)."""
    last_uid = position[1] if position is not None else 0
    login = (
        [f"LOGIN {_quoted(account['username'])} {_quoted(password or '')}"] if account["username"] is not None else []
    )
    commands = [*login, f"EXAMINE {_quoted(account['inbox'])}", f"UID SEARCH UID {last_uid + 1}:*"]
    *_, selected, found = connection.pipelined(commands, unanswered="LOGOUT")
    codes = [answer.upper() for answer in selected]
    uidvalidity = next(
        (int(c.split(b"[UIDVALIDITY ", 1)[1].split(b"]", 1)[0]) for c in codes if b"[UIDVALIDITY " in c), None
    )
    if uidvalidity is None:
        raise _CannotTell("no UIDVALIDITY")
    if position is not None and position[0] != uidvalidity:
        return True  # renumbered: the full pass reads the inbox again
    uids = [int(uid) for answer in found if answer.upper().startswith(b"SEARCH") for uid in answer.split()[1:]]
    return any(uid > last_uid for uid in uids)
