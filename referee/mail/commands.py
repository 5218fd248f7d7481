"""Commands players send by mail besides orders. The first word of the body names the command;
the subject line is ignored. A command is read as coming from the player whose registered
address sent it, and its answer goes to that registered address, never elsewhere: a forged
sender can at worst make the referee write to the real player.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

from referee.game.attendance import declare_absence, declare_back, game_schedule, open_deadline
from referee.game.journal import GameDir
from referee.game.status import status, status_text
from referee.letters.outbox import Attachment
from referee.mail.directory import Directory, Seat
from referee.mail.disputes import open_dispute
from referee.mail.home import Home, HomeConfig
from referee.mail.message import Command, Incoming
from referee.mail.replies import Answer, Section, post_reply

HELP = """\
Orders: attach your order file and its signature (orders.yaml and orders.yaml.sig, made with
  ssh-keygen -Y sign -f ~/.ssh/id_ed25519 -n pbem-orders orders.yaml), or paste the order file
  into the body of a plain-text mail followed by the armored signature.

Commands: the first word of the mail body (the subject line is ignored).
  help                          this list
  status [GAME]                 your games: the open phase, who is awaited, the deadline
  report [GAME]                 your last report, again
  absent GAME until YYYY-MM-DD  you will be away: your game's default orders stand for you
                                until that day (orders you do send still count)
  back GAME                     you are back sooner than you said
  dispute GAME LABEL REASON...  ask the referee to review a roll (its label) or an event

GAME may be left out when you play in one game only."""


def _reply(
    home: Home,
    config: HomeConfig,
    incoming: Incoming,
    to: str,
    subject: str,
    paragraphs: list[str],
    sections: list[Section] | None = None,
    attachments: list[Attachment] | None = None,
) -> None:
    post_reply(
        home,
        config,
        to,
        subject,
        paragraphs,
        f"answer/{incoming.sha256}",
        in_reply_to=incoming.message_id,
        sections=sections,
        attachments=attachments,
    )


def help_sections() -> list[Section]:
    return [Section("How to play by mail", HELP)]


def _pick(seats: list[Seat], args: tuple[str, ...]) -> tuple[list[Seat], tuple[str, ...], str | None]:
    """Return the seats a command is about (GAME given, or the only game) and the remaining words."""
    if args and any(seat.game == args[0] for seat in seats):
        return [seat for seat in seats if seat.game == args[0]], args[1:], None
    if len(seats) == 1:
        return seats, args, None
    games = ", ".join(sorted(seat.game for seat in seats))
    return [], args, f"You play in several games ({games}): name the game after the command."


def run_command(home: Home, config: HomeConfig, directory: Directory, incoming: Incoming, now: datetime) -> Answer:
    """Carry out a command mail; post the answer; return where the mail belongs."""
    command = incoming.command
    assert command is not None and incoming.sender is not None
    seats = directory.seats_of(incoming.sender)
    name = command.name
    if name == "help":
        _reply(home, config, incoming, incoming.sender, "How to play by mail", [], help_sections())
        return Answer("processed", "help sent")
    if not seats:
        _reply(
            home,
            config,
            incoming,
            incoming.sender,
            f"'{name}': this address plays in no game here",
            [
                f"The address {incoming.sender} is not registered for any game run by this referee, "
                "so there is nothing to tell it. If you play under another address, write from that one."
            ],
            help_sections(),
        )
        return Answer("rejected", f"{name} from an unregistered address")
    chosen, rest, problem = _pick(seats, command.args)
    if problem:
        _reply(home, config, incoming, seats[0].email, f"'{name}': which game?", [problem], help_sections())
        return Answer("rejected", f"{name}: game not named")
    if name == "status":
        return _status(home, config, directory, incoming, chosen, now)
    if name == "report":
        return _report(home, config, incoming, chosen[0])
    if name in ("absent", "back"):
        return _absence(home, config, directory, incoming, chosen[0], command, rest)
    if name == "dispute":
        return open_dispute(home, config, incoming, chosen[0], rest, now)
    raise AssertionError(f"command {name} has no handler")  # COMMANDS and this function list the same names


def _status(
    home: Home, config: HomeConfig, directory: Directory, incoming: Incoming, seats: list[Seat], now: datetime
) -> Answer:
    sections = []
    for seat in seats:
        body = status_text(status(seat.path))
        schedule = game_schedule(directory.configs[seat.game], config.defaults)
        deadline = open_deadline(GameDir(seat.path), schedule)
        if deadline is not None:
            body += f"deadline  {schedule.local(deadline)}\n"
        sections.append(Section(f"{seat.game} (you play {seat.player})", body))
    _reply(home, config, incoming, seats[0].email, "Status of your games", [], sections)
    return Answer("processed", f"status of {', '.join(s.game for s in seats)}")


def _latest_report(seat: Seat) -> Path | None:
    reports = sorted(
        (GameDir(seat.path).mail).glob(f"*/{seat.player}.report*.txt"), key=lambda p: (p.parent.name, p.stat().st_mtime)
    )
    return reports[-1] if reports else None


def _report(home: Home, config: HomeConfig, incoming: Incoming, seat: Seat) -> Answer:
    text_path = _latest_report(seat)
    if text_path is None:
        _reply(
            home, config, incoming, seat.email, f"[{seat.game}] no report yet", ["No phase has been adjudicated yet."]
        )
        return Answer("processed", "report: none yet")
    text = text_path.read_text(encoding="utf-8")
    files = [text_path, text_path.with_name(text_path.name + ".sig")]
    files += sorted(text_path.parent.glob(f"{seat.player}.view-after*.yaml"))
    record = GameDir(seat.path).records / f"{text_path.parent.name}.json"
    files += [record, record.with_name(record.name + ".sig")]
    attachments = [Attachment(p.name, p.read_bytes()) for p in files if p.exists()]
    _reply(
        home,
        config,
        incoming,
        seat.email,
        f"[{seat.game}] your last report ({text_path.parent.name}), again",
        ["Your last report follows, as it was signed and sent; the signed text and the record are attached."],
        [Section(text_path.name, text)],
        attachments,
    )
    return Answer("processed", f"report {text_path.parent.name} sent again to {seat.player}")


def _absence(
    home: Home,
    config: HomeConfig,
    directory: Directory,
    incoming: Incoming,
    seat: Seat,
    command: Command,
    rest: tuple[str, ...],
) -> Answer:
    game_dir = GameDir(seat.path)
    source = f"mail:{incoming.sha256}"
    if command.name == "back":
        declare_back(game_dir, seat.player, "declared")
        _reply(home, config, incoming, seat.email, f"[{seat.game}] welcome back", ["You are awaited again."])
        return Answer("processed", f"{seat.player} back in {seat.game}")
    until: date | None = None
    words = [w.lower() for w in rest]
    if words[:1] == ["until"] and len(words) >= 2:
        try:
            until = date.fromisoformat(words[1])
        except ValueError:
            until = None
    if until is None:
        _reply(
            home,
            config,
            incoming,
            seat.email,
            f"[{seat.game}] absence not recorded",
            ["Write the day you are back as: absent GAME until YYYY-MM-DD (for example: until 2026-12-24)."],
        )
        return Answer("rejected", "absent: no date")
    declare_absence(game_dir, seat.player, until, "declared", source)
    _reply(
        home,
        config,
        incoming,
        seat.email,
        f"[{seat.game}] absence recorded until {until.isoformat()}",
        [
            f"Until {until.isoformat()} the game will not wait for {seat.player}: the game's default orders stand "
            "for you when a phase is adjudicated. Orders you do send still count. Mail 'back' to end it sooner."
        ],
    )
    return Answer("processed", f"{seat.player} absent in {seat.game} until {until.isoformat()}")
