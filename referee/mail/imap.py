"""The referee's mailbox over IMAP (imapclient): one method per thing intake needs, each one
round trip for a whole batch of messages, with capability checks before MOVE and UIDPLUS.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from referee.errors import RefereeError
from referee.mail.home import MailAccount


class MailboxError(RefereeError):
    """The IMAP server could not be reached or refused what was asked."""


class MailboxLoginError(MailboxError):
    """The IMAP server refused the login: only the operator can mend it (password, username)."""


class MailboxCertificateError(MailboxError):
    """The IMAP server's certificate was not trusted: only the operator can mend it (ca_file)."""


@dataclass(frozen=True)
class Selected:
    folder: str
    uidvalidity: int
    uidnext: int | None


class Mailbox:
    """A connection to the referee's IMAP account (use as a context manager)."""

    def __init__(self, account: MailAccount) -> None:
        self.account = account
        self._client: Any = None
        self._separator: str | None = None

    def __enter__(self) -> Mailbox:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def client(self) -> Any:
        if self._client is None:
            raise MailboxError("the IMAP connection is not open")
        return self._client

    def connect(self) -> None:
        """Connect and log in, or raise MailboxError saying what failed (never the password)."""
        from imapclient import IMAPClient  # deferred for start-up speed: only a pass that reads mail loads it
        from imapclient.exceptions import IMAPClientError, LoginError

        account = self.account
        context = account.tls_context()
        try:
            client = IMAPClient(
                account.host,
                port=account.port,
                ssl=account.security == "ssl",
                ssl_context=context if account.security == "ssl" else None,
                timeout=account.timeout,
            )
            if account.security == "starttls":
                client.starttls(context)
            if account.username is not None:
                client.login(account.username, account.password() or "")
        except LoginError as exc:
            if "UNAVAILABLE" in str(exc).upper():  # RFC 5530: the server cannot check logins just now
                raise MailboxError(
                    f"the IMAP server cannot log in anyone just now ({account.describe()}): {exc}"
                ) from None
            raise MailboxLoginError(
                f"the IMAP server refused the login for {account.describe()}",
                hints=("check the username and the password's environment variable or file",),
            ) from None
        except ssl.SSLCertVerificationError as exc:
            message, hints = account.untrusted(exc)
            raise MailboxCertificateError(message, hints=hints) from None
        except (TimeoutError, OSError, IMAPClientError, ssl.SSLError) as exc:
            raise MailboxError(f"cannot reach the IMAP server ({account.describe()}): {exc}") from None
        self._client = client

    def close(self) -> None:
        if self._client is not None:
            try:
                self._client.logout()
            except Exception:  # the connection may already be gone; closing must not fail
                pass
            self._client = None

    def has(self, capability: str) -> bool:
        return bool(self.client.has_capability(capability))

    def folder_name(self, folder: str) -> str:
        """Return a configured folder name ("Referee/Processed") with the server's own hierarchy
        separator: "/" for Gmail, "." for Dovecot's and Courier's maildirs."""
        if self._separator is None:
            separator = "/"
            try:
                personal = self.client.namespace().personal
                if personal and personal[0][1]:
                    separator = personal[0][1]
            except Exception:  # a server without NAMESPACE (RFC 2342): keep "/"
                pass
            self._separator = separator.decode() if isinstance(separator, bytes) else str(separator)
        return folder.replace("/", self._separator)

    def ensure_folders(self, folders: Iterable[str]) -> None:
        """Create the processed and rejected folders when they are missing."""
        for folder in folders:
            name = self.folder_name(folder)
            if not self.client.folder_exists(name):
                self.client.create_folder(name)

    def select(self, folder: str) -> Selected:
        info = self.client.select_folder(folder)
        return Selected(folder, int(info[b"UIDVALIDITY"]), int(info[b"UIDNEXT"]) if b"UIDNEXT" in info else None)

    def uids_after(self, last_uid: int) -> list[int]:
        """Return the UIDs above `last_uid`, in order (`N:*` also matches the highest UID, so filter)."""
        return sorted(uid for uid in self.client.search(["UID", f"{last_uid + 1}:*"]) if uid > last_uid)

    def all_uids(self) -> list[int]:
        return sorted(self.client.search(["ALL"]))

    def sizes(self, uids: Sequence[int]) -> dict[int, int]:
        """Return each message's size, for all of them in one FETCH."""
        if not uids:
            return {}
        found = self.client.fetch(list(uids), ["RFC822.SIZE"])
        return {uid: int(data[b"RFC822.SIZE"]) for uid, data in found.items()}

    def fetch(self, uids: Sequence[int]) -> dict[int, bytes]:
        """Return the raw messages, in one FETCH, without setting \\Seen (BODY.PEEK[])."""
        if not uids:
            return {}
        found = self.client.fetch(list(uids), ["BODY.PEEK[]"])
        return {uid: bytes(data[b"BODY[]"]) for uid, data in found.items() if b"BODY[]" in data}

    def fetch_headers(self, uids: Sequence[int]) -> dict[int, bytes]:
        """Return only the header of each message (for one too large to fetch whole)."""
        if not uids:
            return {}
        found = self.client.fetch(list(uids), ["BODY.PEEK[HEADER]"])
        return {uid: bytes(data[b"BODY[HEADER]"]) for uid, data in found.items() if b"BODY[HEADER]" in data}

    def move(self, uids: Sequence[int], folder: str, use_move: bool = True) -> None:
        """Move messages to `folder`: MOVE where the server has it, else COPY + \\Deleted + UID EXPUNGE."""
        if not uids:
            return
        folder = self.folder_name(folder)
        if use_move and self.has("MOVE"):
            self.client.move(list(uids), folder)
            return
        self.client.copy(list(uids), folder)
        self.client.add_flags(list(uids), [b"\\Deleted"], silent=True)
        if self.has("UIDPLUS"):
            self.client.uid_expunge(list(uids))
        else:  # without UIDPLUS an EXPUNGE also removes messages others marked deleted: rare, and said here
            self.client.expunge()

    def idle(self, seconds: float) -> bool:
        """Wait up to `seconds` in IMAP IDLE; return whether the server announced a change."""
        client = self.client
        client.idle()
        responses: list[Any] = []
        try:
            responses += client.idle_check(timeout=seconds)
        finally:
            # What the server sent between the check's timeout and DONE comes with DONE's answer,
            # and it will not be announced again: a change there counts as much as one before.
            _, before_done = client.idle_done()
            responses += before_done
        return any(len(r) >= 2 and r[1] in (b"EXISTS", b"RECENT") for r in responses)
