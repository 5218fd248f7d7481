"""Commands players send by mail besides orders. The first word of the body names the command;
the subject line is ignored. A command that only reads (help, status, report) is read as coming
from the player whose registered address sent it, and its answer goes to that registered
address, never elsewhere: a forged sender can at worst make the referee write to the real
player. A command that changes a game (absent, back, dispute) is done only when it comes as a
command file signed with the player's key (`referee.mail.command_files`); unsigned, the player
is sent a ready-to-sign file instead. An address that plays in no game gets a short note, as
often as the stranger limiter allows (`referee.mail.strangers`).
"""

from __future__ import annotations

from datetime import date, datetime
from fnmatch import fnmatch
from pathlib import Path

from referee.game.attendance import declare_absence, declare_back, game_schedule, open_deadline
from referee.game.journal import GameDir
from referee.game.status import status, status_text
from referee.letters.kept import kept_exists, kept_names, kept_time, read_kept
from referee.letters.outbox import Attachment
from referee.letters.post import filed_name
from referee.mail.command_files import CHANGING, SIGN_HINT, CommandFile, ready_to_sign
from referee.mail.directory import Directory, Seat
from referee.mail.disputes import open_dispute
from referee.mail.home import Home, HomeConfig
from referee.mail.ledger import Ledger
from referee.mail.message import Command, Incoming
from referee.mail.replies import Answer, Section, post_reply
from referee.mail.strangers import answer_sender, reply_allowed

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

GAME may be left out when you play in one game only.

absent, back and dispute change a game, so they count only when signed with your key, like
orders. Mail the command as above and the referee answers with a ready-to-sign command.yaml;
sign it and attach both files (or paste the file above its armored signature):
  ssh-keygen -Y sign -f ~/.ssh/id_ed25519 -n pbem-command command.yaml
  (or: referee sign command.yaml --key ~/.ssh/id_ed25519)
A signed command file is used once: its nonce line must be new each time."""

STRANGER_HELP = "This referee plays games by mail with registered players only: to join one, ask its referee."


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


def run_command(
    home: Home,
    config: HomeConfig,
    directory: Directory,
    incoming: Incoming,
    now: datetime,
    ledger: Ledger,
    signed: CommandFile | None = None,
) -> Answer:
    """Carry out a command mail, or a signed command file it carries; post the answer; return
    where the mail belongs."""
    command = signed.command if signed is not None else incoming.command
    assert command is not None
    name = command.name
    seats = [signed.seat] if signed is not None else directory.seats_of(incoming.sender)
    if not seats:
        if name == "help":
            subject, lines = "How to play by mail", [STRANGER_HELP]
            sent = answer_sender(home, config, ledger, directory, incoming, now, subject, lines)
        else:
            sent = answer_sender(
                home,
                config,
                ledger,
                directory,
                incoming,
                now,
                f"'{name}': this address plays in no game here",
                [f"{incoming.sender} plays in no game run by this referee: write from the address you play under."],
            )
        return Answer("rejected", f"{name} from an unregistered address" + ("" if sent else " (not answered)"))
    if name == "help":
        _reply(home, config, incoming, seats[0].email, "How to play by mail", [], help_sections())
        return Answer("processed", "help sent")
    chosen, rest, problem = _pick(seats, command.args)
    if problem:
        _reply(home, config, incoming, seats[0].email, f"'{name}': which game?", [problem], help_sections())
        return Answer("rejected", f"{name}: game not named")
    if name == "status":
        return _status(home, config, directory, incoming, chosen, now)
    if name == "report":
        return _report(home, config, incoming, chosen[0])
    if name in CHANGING:
        usage = _usage_problem(command, rest)
        if usage is not None:
            _reply(home, config, incoming, chosen[0].email, f"[{chosen[0].game}] {name} not done", [usage])
            return Answer("rejected", f"{name}: {usage}")
        if signed is None:
            # Anyone can forge a player's From line: a day's requests to sign are limited like replies to strangers.
            if not reply_allowed(ledger, f"sign-request:{chosen[0].email}", now):
                return Answer("rejected", f"{name} for {chosen[0].player}: not signed (not answered: today's limit)")
            return _ask_for_signature(home, config, incoming, chosen[0], Command(name, rest, command.text))
    if name in ("absent", "back"):
        return _absence(home, config, directory, incoming, chosen[0], command, rest)
    if name == "dispute":
        return open_dispute(home, config, incoming, chosen[0], rest, now, command)
    raise AssertionError(f"command {name} has no handler")  # COMMANDS and this function list the same names


def _usage_problem(command: Command, rest: tuple[str, ...]) -> str | None:
    """Return what is wrong with a changing command's words, before anyone is asked to sign it."""
    if command.name == "absent" and _until(rest) is None:
        return "Write the day you are back as: absent GAME until YYYY-MM-DD (for example: until 2026-12-24)."
    if command.name == "dispute" and not rest:
        return (
            "Name the roll (its label, as in your report) or the event, then your reason: dispute GAME LABEL REASON..."
        )
    return None


def _until(rest: tuple[str, ...]) -> date | None:
    words = [w.lower() for w in rest]
    if words[:1] == ["until"] and len(words) >= 2:
        try:
            return date.fromisoformat(words[1])
        except ValueError:
            return None
    return None


def _ask_for_signature(home: Home, config: HomeConfig, incoming: Incoming, seat: Seat, command: Command) -> Answer:
    """Answer an unsigned changing command with the command file to sign, to the registered address."""
    line = " ".join([command.name, seat.game, *command.args])
    _reply(
        home,
        config,
        incoming,
        seat.email,
        f"[{seat.game}] sign to confirm: {command.name}",
        [
            f"The referee received '{line}' for {seat.player} in {seat.game}, without your signature. "
            "A command that changes a game counts only when it is signed with your key, because anyone can "
            "write a From line: nothing was done.",
            "If you sent it: sign the attached command.yaml as it is and mail it back with its signature "
            "(command.yaml and command.yaml.sig attached, or the file pasted into a plain-text mail above its "
            "armored signature). The file works once. If you did not send it, ignore this letter.",
        ],
        [
            Section(
                "How to sign command.yaml", f"  {SIGN_HINT}\nor\n  referee sign command.yaml --key ~/.ssh/id_ed25519\n"
            )
        ],
        [Attachment("command.yaml", ready_to_sign(seat, command), "application/yaml", public=True)],
    )
    return Answer("rejected", f"{command.name} for {seat.player} in {seat.game}: not signed, asked to sign")


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
    """Return the path of the player's last report, kept as a file or in a pack of letters."""
    mail = GameDir(seat.path).mail
    for folder in sorted((p for p in mail.iterdir() if p.is_dir()), reverse=True) if mail.is_dir() else []:
        reports = [folder / n for n in kept_names(folder) if fnmatch(n, f"{seat.player}.report*.txt")]
        if reports:
            return max(reports, key=kept_time)
    return None


def _report(home: Home, config: HomeConfig, incoming: Incoming, seat: Seat) -> Answer:
    text_path = _latest_report(seat)
    if text_path is None:
        _reply(
            home, config, incoming, seat.email, f"[{seat.game}] no report yet", ["No phase has been adjudicated yet."]
        )
        return Answer("processed", "report: none yet")
    text = read_kept(text_path).decode("utf-8")
    own = [text_path, text_path.with_name(text_path.name + ".sig")]
    own += [text_path.parent / n for n in kept_names(text_path.parent) if fnmatch(n, f"{seat.player}.view-after*.yaml")]
    record = GameDir(seat.path).records / f"{text_path.parent.name}.json"
    # Named as the report named them when it was first sent; the record keeps its own name.
    attachments = [
        Attachment(filed_name(seat.game, text_path.parent.name, p.name), read_kept(p)) for p in own if kept_exists(p)
    ]
    attachments += [
        Attachment(p.name, p.read_bytes(), public=True)
        for p in (record, record.with_name(record.name + ".sig"))
        if p.exists()
    ]
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
    until = _until(rest)
    assert until is not None  # checked by _usage_problem
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
