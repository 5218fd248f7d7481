"""Real mail servers on loopback for the tests and the benchmark.

- `Dovecot`: Debian's dovecot-imapd, started with a throw-away configuration under a temporary
  folder (its own base_dir, one password for all, maildirs), listening on a free loopback port.
- `SmtpServer`: aiosmtpd, acting as the players' and the referee's mail system: a letter to an
  address that has an IMAP account is delivered into that account's INBOX (IMAP APPEND);
  every other letter is kept in `delivered` for the test to read.
- `FlakyProxy`: a TCP proxy that can cut a connection after N bytes from the server, to drop
  an IMAP connection in the middle of a FETCH, or cut every connection at once.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

DOVECOT = shutil.which("dovecot") or "/usr/sbin/dovecot"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {seconds} s")


def dovecot_available() -> bool:
    return Path(DOVECOT).exists()


@dataclass
class Dovecot:
    """A private Dovecot IMAP server: any user name logs in with `password` and gets its own maildir."""

    root: Path
    port: int = 0
    password: str = "imap-secret"  # every account's: a test makes a fresh account by using a new name
    tls: tuple[Path, Path] | None = None  # (certificate chain, key), PEM: STARTTLS on `port`, IMAPS on `tls_port`
    tls_port: int = 0

    def start(self) -> Dovecot:
        self.port = self.port or free_port()
        ssl_settings, imaps = "ssl = no", ""
        if self.tls is not None:
            self.tls_port = self.tls_port or free_port()
            ssl_settings = f"ssl = yes\nssl_cert = <{self.tls[0]}\nssl_key = <{self.tls[1]}"
            imaps = (
                f"  inet_listener imaps {{\n    address = 127.0.0.1\n    port = {self.tls_port}\n    ssl = yes\n  }}\n"
            )
        for folder in ("run", "state", "home"):
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        root_user = os.geteuid() == 0
        if root_user:
            # Dovecot refuses to run its login processes as root: use the package's own users.
            internal, login, mail_user = "dovecot", "dovenull", "dovecot"
            shutil.chown(self.root / "home", mail_user, mail_user)
        else:
            internal = login = mail_user = _current_user()
        config = f"""
base_dir = {self.root}/run
state_dir = {self.root}/state
log_path = {self.root}/dovecot.log
protocols = imap
listen = 127.0.0.1
{ssl_settings}
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 1
first_valid_gid = 1
default_internal_user = {internal}
default_login_user = {login}
mail_location = maildir:~/Maildir
passdb {{
  driver = static
  args = password={self.password}
}}
userdb {{
  driver = static
  args = uid={mail_user} gid={mail_user} home={self.root}/home/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.port}
  }}
{imaps}  chroot =
}}
service anvil {{
  chroot =
}}
"""
        (self.root / "dovecot.conf").write_text(config)
        subprocess.run([DOVECOT, "-c", str(self.root / "dovecot.conf")], check=True)
        wait_for_port(self.port)
        if self.tls_port:
            wait_for_port(self.tls_port)
        return self

    def stop(self) -> None:
        pid_file = self.root / "run" / "master.pid"
        if pid_file.exists():
            try:
                os.kill(int(pid_file.read_text().strip()), signal.SIGTERM)
            except (ProcessLookupError, ValueError):
                pass
            for _ in range(100):
                if not pid_file.exists():
                    break
                time.sleep(0.05)

    def client(self, user: str, port: int | None = None) -> Any:
        from imapclient import IMAPClient

        client = IMAPClient("127.0.0.1", port=port or self.port, ssl=False, timeout=30)
        client.login(user, self.password)
        return client

    def deliver(self, user: str, raw: bytes, folder: str = "INBOX") -> None:
        """Put a message into a user's folder, as the mail system's delivery would."""
        client = self.client(user)
        try:
            client.append(folder, raw)
        finally:
            client.logout()

    def messages(self, user: str, folder: str) -> list[bytes]:
        """Return the raw messages in a user's folder (empty if the folder does not exist)."""
        client = self.client(user)
        try:
            if not client.folder_exists(folder):
                return []
            client.select_folder(folder, readonly=True)
            uids = client.search(["ALL"])
            found = client.fetch(uids, ["BODY.PEEK[]"]) if uids else {}
            return [bytes(found[uid][b"BODY[]"]) for uid in sorted(found)]
        finally:
            client.logout()


def _current_user() -> str:
    import pwd

    return pwd.getpwuid(os.geteuid()).pw_name


class _Delivery:
    """aiosmtpd handler: letters to an IMAP user go into their INBOX; the rest are kept here."""

    def __init__(self, dovecot: Dovecot | None, mailboxes: dict[str, str]) -> None:
        self.dovecot = dovecot
        self.mailboxes = mailboxes  # address -> IMAP user
        self.delivered: list[tuple[str, bytes]] = []
        self.lock = threading.Lock()
        self.refuse: dict[str, str] = {}  # address -> the SMTP reply that refuses it at RCPT, e.g. "550 ..."
        self.refused: list[str] = []  # every address refused so far, once per attempt

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        answer = self.refuse.get(address.lower())
        if answer is not None:
            with self.lock:
                self.refused.append(address.lower())
            return answer
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw = bytes(envelope.original_content or envelope.content)
        for address in envelope.rcpt_tos:
            user = self.mailboxes.get(address.lower())
            if user is not None and self.dovecot is not None:
                self.dovecot.deliver(user, raw)
            else:
                with self.lock:
                    self.delivered.append((address.lower(), raw))
        return "250 OK"


@dataclass
class SmtpServer:
    """A loopback SMTP server (aiosmtpd) that can be stopped and started again on its port."""

    dovecot: Dovecot | None = None
    mailboxes: dict[str, str] = field(default_factory=dict)
    port: int = 0
    login: tuple[str, str] | None = None  # require SMTP AUTH with this user and password
    tls_context: Any = None  # an ssl.SSLContext: offer STARTTLS with it
    _controller: Any = None
    handler: _Delivery | None = None

    def start(self) -> SmtpServer:
        from aiosmtpd.controller import Controller

        self.port = self.port or free_port()
        if self.handler is None:
            self.handler = _Delivery(self.dovecot, self.mailboxes)
        options: dict[str, Any] = {}
        if self.login is not None:
            from aiosmtpd.smtp import AuthResult

            expected = self.login

            def authenticate(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> Any:
                given = (data.login.decode(), data.password.decode()) if hasattr(data, "login") else None
                return AuthResult(success=given == expected)

            options = {"authenticator": authenticate, "auth_require_tls": False, "auth_required": True}
        if self.tls_context is not None:
            options["tls_context"] = self.tls_context
        self._controller = Controller(self.handler, hostname="127.0.0.1", port=self.port, **options)
        self._controller.start()
        return self

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    @property
    def delivered(self) -> list[tuple[str, bytes]]:
        assert self.handler is not None
        with self.handler.lock:
            return list(self.handler.delivered)

    def clear(self) -> None:
        assert self.handler is not None
        with self.handler.lock:
            self.handler.delivered.clear()

    def letters_to(self, address: str) -> list[Any]:
        """Return the parsed letters delivered to `address`, in order."""
        return [message_from_bytes(raw, policy=policy.default) for to, raw in self.delivered if to == address.lower()]


class FlakyProxy:
    """A TCP proxy to a loopback port; `cut_after(n)` drops the next connection after the
    server has sent n more bytes through it."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self._cut_after: int | None = None
        self.cuts = 0
        self._open: list[socket.socket] = []
        self._server = socket.create_server(("127.0.0.1", self.port))
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def cut_after(self, n: int) -> None:
        self._cut_after = n

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            self._open += [client, upstream]
            budget = self._cut_after
            self._cut_after = None
            threading.Thread(target=self._pipe, args=(client, upstream, None), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, budget), daemon=True).start()

    def _pipe(self, source: socket.socket, target: socket.socket, budget: int | None) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if budget is not None:
                    if len(data) >= budget:
                        target.sendall(data[:budget])
                        self.cuts += 1
                        break
                    budget -= len(data)
                target.sendall(data)
        except OSError:
            pass
        for sock in (source, target):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def drop_all(self) -> None:
        """Cut every open connection at once, without a word to either side (a network failure)."""
        sockets, self._open = self._open, []
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        self._server.close()


@contextmanager
def running(dovecot: Dovecot) -> Iterator[Dovecot]:
    dovecot.start()
    try:
        yield dovecot
    finally:
        dovecot.stop()
