"""Disputes by mail: a player names a roll label (or an event) and gives a reason; the dispute is
recorded in the game's journal, the referee is alerted, and the player gets its number.
Resolving it (`referee dispute resolve`, in referee.game.disputes) tells every player.
"""

from __future__ import annotations

from datetime import datetime

from referee.game.disputes import disputes, find_roll
from referee.game.journal import GameDir
from referee.mail.directory import Seat
from referee.mail.home import Home, HomeConfig
from referee.mail.message import Command, Incoming
from referee.mail.replies import Answer, alert_referee, post_reply

MAX_REASON = 4000


def open_dispute(
    home: Home,
    config: HomeConfig,
    incoming: Incoming,
    seat: Seat,
    words: tuple[str, ...],
    now: datetime,
    command: Command | None = None,
) -> Answer:
    game_dir = GameDir(seat.path)
    if not words:
        post_reply(
            home,
            config,
            seat.email,
            f"[{seat.game}] dispute not recorded",
            [
                "Name the roll (its label, as in your report) or the event, then your reason: "
                "dispute GAME LABEL REASON..."
            ],
            f"answer/{incoming.sha256}",
            in_reply_to=incoming.message_id,
        )
        return Answer("rejected", "dispute: nothing named")
    label = words[0]
    reason = " ".join(words[1:]).strip()
    command = command or incoming.command
    command_text = command.text if command else ""
    if not reason:
        reason = "\n".join(command_text.strip().splitlines()[1:]).strip()
    reason = reason[:MAX_REASON] or "(no reason given)"
    record = find_roll(game_dir, label)
    source = f"mail:{incoming.sha256}"
    with game_dir.lock(), game_dir.transaction():
        existing = [d for d in disputes(game_dir) if d.get("source") == source]
        number = existing[0]["number"] if existing else len(disputes(game_dir)) + 1
        if not existing:
            data = {"number": number, "player": seat.player, "label": label, "record": record, "reason": reason}
            game_dir.log("dispute.opened", {**data, "source": source}, player=seat.player)
    where = (
        f"roll '{label}' in {record}"
        if record
        else f"'{label}' (no roll has this label: the referee reads it as an event)"
    )
    alert_referee(
        home,
        config,
        f"[{seat.game}] dispute #{number} from {seat.player}",
        [
            f"{seat.player} disputes {where}.",
            f"Reason: {reason}",
            f"Look with: referee explain {seat.path} {label}" if record else "Look at the reports of the phase named.",
            f"Resolve with: referee dispute resolve {seat.path} {number} --upheld --note '...' "
            f"(or --overridden after `referee override`); every player is told.",
        ],
        f"dispute/{seat.game}/{number}",
    )
    post_reply(
        home,
        config,
        seat.email,
        f"[{seat.game}] dispute #{number} recorded",
        [
            f"Your dispute of {where} is recorded as #{number}, with your reason:",
            reason,
            "The referee has been told. The resolution, with its evidence, will go to every player.",
        ],
        f"answer/{incoming.sha256}",
        in_reply_to=incoming.message_id,
    )
    return Answer("processed", f"dispute #{number} opened by {seat.player} in {seat.game}")
