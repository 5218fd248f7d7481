"""`Mailbox.idle` and the watch's wait: a change the server announces is never dropped, whenever
it comes, and mail already waiting wakes a pass without making the watch spin.

The real server's IDLE is exercised by tests/mail/test_watch.py; this pins the one window a live
test cannot aim at: an EXISTS sent after `idle_check` timed out, which arrives with DONE's answer.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from referee.mail.imap import Mailbox


class ScriptedIdle:
    """An IMAP client stand-in whose IDLE answers as scripted."""

    def __init__(self, during: list[Any], before_done: list[Any]) -> None:
        self.during, self.before_done = during, before_done
        self.in_idle = False

    def idle(self) -> None:
        self.in_idle = True

    def idle_check(self, timeout: float) -> list[Any]:
        return self.during

    def idle_done(self) -> tuple[bytes, list[Any]]:
        self.in_idle = False
        return b"Idle completed", self.before_done


def _mailbox(client: ScriptedIdle) -> Mailbox:
    mailbox = Mailbox.__new__(Mailbox)
    mailbox._client = client
    return mailbox


def test_a_new_message_announced_with_done_wakes_the_watcher() -> None:
    client = ScriptedIdle(during=[], before_done=[(4, b"EXISTS")])
    assert _mailbox(client).idle(0.01)
    assert not client.in_idle


def test_a_new_message_announced_during_idle_wakes_the_watcher() -> None:
    assert _mailbox(ScriptedIdle(during=[(4, b"EXISTS")], before_done=[])).idle(0.01)


def test_other_responses_do_not_wake_it() -> None:
    assert not _mailbox(ScriptedIdle(during=[(3, b"EXPUNGE")], before_done=[(b"OK", b"Still here")])).idle(0.01)


def test_idle_is_left_even_when_the_check_fails() -> None:
    class Broken(ScriptedIdle):
        def idle_check(self, timeout: float) -> list[Any]:
            raise TimeoutError("the connection dropped")

    client = Broken(during=[], before_done=[])
    with pytest.raises(TimeoutError):  # the watch retries a failed connection: the failure goes up
        _mailbox(client).idle(0.01)
    assert not client.in_idle


def test_mail_a_pass_cannot_store_wakes_one_pass_at_once_not_every_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mail found past the stored position wakes a pass at once; when that pass stores nothing
    (a full disk) the watch idles as usual instead of waking pass after pass with no pause."""
    from referee.mail import run

    passes: list[int] = []
    waits: list[tuple[int, int] | None] = []

    class Stuck:
        """A mailbox whose inbox keeps one message the passes never store."""

        def __init__(self, account: object) -> None:
            pass

        def __enter__(self) -> Stuck:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

    def wait(mailbox: object, inbox: str, read_up_to: tuple[int, int] | None, *rest: object) -> str:
        waits.append(read_up_to)
        return "waiting" if read_up_to is not None else "tick"

    class Config:
        imap = SimpleNamespace(folders={"inbox": "INBOX"}, describe=lambda: "imap")

    home = SimpleNamespace(load_config=Config)
    monkeypatch.setattr(run, "run_pass", lambda home: passes.append(1) or run.PassReport())
    monkeypatch.setattr(run, "_stored_position", lambda home, inbox: (7, 41))
    monkeypatch.setattr(run, "Mailbox", Stuck)
    monkeypatch.setattr(run, "_wait_for_mail", wait)
    run.watch(home, stop=lambda: len(passes) >= 4)  # type: ignore[arg-type]
    assert waits == [(7, 41), None, None, None]
