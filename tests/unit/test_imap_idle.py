"""`Mailbox.idle`: a change the server announces is never dropped, whenever it comes.

The real server's IDLE is exercised by tests/mail/test_watch.py; this pins the one window a live
test cannot aim at: an EXISTS sent after `idle_check` timed out, which arrives with DONE's answer.
"""

from __future__ import annotations

from typing import Any

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
    try:
        _mailbox(client).idle(0.01)
    except TimeoutError:
        pass
    assert not client.in_idle
