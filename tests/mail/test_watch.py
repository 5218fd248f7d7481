"""`referee run --watch`: IMAP IDLE wakes a pass as soon as mail arrives."""

from __future__ import annotations

import threading
import time

from referee.mail.run import watch

from mailworld import MailWorld

ROLL = "rolls: [{label: scout, dice: 2d6, purpose: scouting}]"


def test_idle_brings_an_acknowledgement_within_seconds(mail_world: MailWorld) -> None:
    stop = threading.Event()
    passes: list[object] = []
    worker = threading.Thread(
        target=watch,
        kwargs={"home": mail_world.home, "tick_seconds": 30, "stop": stop.is_set, "on_pass": passes.append},
        daemon=True,
    )
    worker.start()
    try:
        deadline = time.monotonic() + 10
        while not passes and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # the watcher is now in IDLE
        sent_at = time.monotonic()
        mail_world.deliver(mail_world.orders_mail("alice", mail_world.order("alice", 1, ROLL)))
        while time.monotonic() - sent_at < 15:
            if any("orders accepted" in x["Subject"] for x in mail_world.letters("alice")):
                break
            time.sleep(0.05)
        waited = time.monotonic() - sent_at
    finally:
        stop.set()
    assert any("orders accepted" in x["Subject"] for x in mail_world.letters("alice"))
    assert waited < 10, f"the acknowledgement took {waited:.1f} s: IDLE did not wake the watcher"
    worker.join(timeout=40)
