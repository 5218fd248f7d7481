"""`referee run`: one unattended pass over the referee's home, for cron.

    1. intake     fetch, store, handle and move new mail (orders, commands)
    2. schedule   for every game: reminders, adjudication when orders are complete or the
                  deadline has passed, holds and alerts when too many orders are missing
    3. send       drain every outbox through SMTP; a letter refused for good alerts the referee
                  and marks its player unreachable (`referee.mail.undeliverable`)

The pass takes the home's lock without waiting: a second `referee run` started while one is
working leaves at once, so overlapping cron runs are safe. Every step is idempotent. The pass
reports what failed; a failure in one game or one message does not stop the others.
`watch` repeats passes, waking on IMAP IDLE as mail arrives, and outlives server restarts.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from referee.errors import ConfigError, RefereeError, system_error
from referee.game.attendance import absent_players, declare_absence, game_schedule, missed_in_a_row, phase_facts
from referee.game.beacons import BeaconPendingError
from referee.game.deadlines import (
    Adjudicate,
    AlertReferee,
    PhaseFacts,
    Remind,
    Schedule,
    newly_absent,
    next_change,
    plan,
)
from referee.game.journal import GameDir, OpenPhase
from referee.game.stamps import loaded_code
from referee.game.supplies import WaitingOnReferee, held, mark_alerted
from referee.mail.directory import Directory
from referee.mail.home import Home, HomeConfig, MailAccount
from referee.mail.idle import SETTLED_NS, forget, keep
from referee.mail.imap import Mailbox, MailboxCertificateError, MailboxLoginError
from referee.mail.intake import MARKER_FILE, IntakeReport, fetch_and_store, handle_stored, move_handled
from referee.mail.ledger import Ledger, StoredMessage
from referee.mail.smtp import SendReport, drain
from referee.protocol.display import printable
from referee.protocol.yamlsafe import load_strict

IDLE_RENEW_SECONDS = 25 * 60  # RFC 2177: a server may drop an IDLE after 29 minutes
BACKOFF_FIRST_SECONDS = 5.0
BACKOFF_CAP_SECONDS = 5 * 60.0
# What ends `watch`: retrying cannot help, the operator must change something.
NEEDS_OPERATOR = (ConfigError, MailboxLoginError, MailboxCertificateError)


@dataclass
class PassReport:
    skipped: bool = False
    intake: IntakeReport = field(default_factory=IntakeReport)
    games: list[str] = field(default_factory=list)  # what the schedule did, a line per act
    send: SendReport = field(default_factory=SendReport)
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.errors or self.intake.errors or self.send.failed)

    def lines(self) -> list[str]:
        if self.skipped:
            return ["another `referee run` is working on this home: nothing done"]
        intake = self.intake
        lines = [
            f"mail      {intake.fetched} fetched, {intake.stored} new, {intake.duplicates} seen before, "
            f"{intake.handled} handled, "
            + (f"{intake.set_aside} set aside, " if intake.set_aside else "")
            + f"{intake.moved} moved",
            *(f"  {line}" for line in intake.outcomes),
            *(f"games     {line}" for line in self.games),
            f"sent      {self.send.sent} letter(s)" + (f", {self.send.waiting} waiting" if self.send.waiting else ""),
        ]
        problems = [*self.intake.errors, *self.send.failed, *self.errors]
        return lines + [f"FAILED    {problem}" for problem in problems]

    @property
    def idle(self) -> bool:
        """Whether the pass found nothing to do and did nothing (what a kept summary answers for)."""
        intake, send = self.intake, self.send
        took = intake.fetched or intake.stored or intake.duplicates or intake.handled or intake.set_aside
        return not (self.skipped or not self.ok or self.games or took or intake.moved or intake.outcomes) and not (
            send.sent or send.waiting or send.refused
        )

    def shown(self, quiet: bool = False) -> list[str]:
        """Return the lines `referee run` prints: all of them, or with `quiet` the failures alone."""
        return [line for line in self.lines() if not quiet or line.startswith("FAILED")]


@contextmanager
def home_lock(home: Home) -> Iterator[bool]:
    """Hold the home's run lock if it is free; yield whether it was taken."""
    home.path.mkdir(parents=True, exist_ok=True)
    fd = os.open(home.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


@dataclass
class Hooks:
    """Places where a fault test may stop a pass (by raising, or by killing the process)."""

    after_store: Callable[[], None] = lambda: None
    before_move: Callable[[], None] = lambda: None
    while_handling: Callable[[StoredMessage], None] = lambda message: None


def run_pass(
    home: Home,
    now: datetime | None = None,
    mail: bool = True,
    use_move: bool = True,
    hooks: Hooks | None = None,
    keep_summary: bool = False,
    settle_ns: int = SETTLED_NS,
) -> PassReport:
    """Do one pass over the home (see the module docstring); never raises for a mail or game problem.
    With `keep_summary` (and the real clock), a pass that did nothing keeps what it found for the
    next pass to check instead of doing all of it again (`referee.mail.idle`), and any other pass
    removes what was kept; `settle_ns` is how long before the pass its files must have settled."""
    report = PassReport()
    hooks = hooks or Hooks()
    with home_lock(home) as taken:
        if not taken:
            report.skipped = True
            return report
        began_ns = time.time_ns()
        if keep_summary:  # a pass that fails half-way must not leave the last summary standing
            forget(str(home.path))
        config = home.load_config()
        for folder in (home.spool, home.outbox, home.games_dir):
            folder.mkdir(parents=True, exist_ok=True)
        ledger = Ledger(home.ledger_path)
        try:
            moment = now or datetime.now(UTC)
            directory = _intake(home, config, ledger, moment, mail, use_move, hooks, report)
            directory = directory or Directory.load(home)
            report.errors += [f"{path}: {problem}" for path, problem in directory.broken.items()]
            for game, path in sorted(directory.games.items()):
                try:
                    report.games += tend_game(home, config, directory, game, path, moment)
                except RefereeError as exc:
                    report.errors.append(f"{game}: {_one_line(exc)}")
                except (OSError, sqlite3.Error) as exc:  # a full or read-only disk: this game waits, the others go on
                    report.errors.append(f"{game}: {_one_line(system_error(exc))}")
            if mail and config.smtp is not None:
                outboxes = [home.outbox, *(GameDir(p).outbox for p in directory.games.values())]
                report.send = drain(config.smtp, outboxes, ledger, config.referee_email, moment)
                # deferred: letters load when one is written
                from referee.mail.undeliverable import after_send

                report.games += after_send(home, config, directory, report.send, moment)
                if report.send.refused:  # the alerts just written go now, not a pass later
                    alerts = drain(config.smtp, [home.outbox], ledger, config.referee_email, moment)
                    report.send.sent += alerts.sent
                    report.send.failed += alerts.failed
            summary = (
                _summary(home, config, directory, ledger, report, moment) if keep_summary and now is None else None
            )
        finally:
            ledger.close()
        if summary is not None:  # stamped with every connection closed: a journal's or the ledger's log is gone then
            keep(str(home.path), began_ns, mail=mail, settle_ns=settle_ns, **summary)
    return report


def _summary(
    home: Home, config: HomeConfig, directory: Directory, ledger: Ledger, report: PassReport, now: datetime
) -> dict[str, Any] | None:
    """Return what this pass read and until when nothing falls due, for `referee.mail.idle.keep`;
    None when the pass did something, or something is to be done now."""
    if not report.idle:
        return None
    until = None
    for game, path in directory.games.items():
        game_dir = GameDir(path)
        try:
            found = _schedule_now(config, directory, game, game_dir, now)
        finally:
            game_dir.close()
        if found is not None:
            schedule, facts = found[1], found[2]
            if plan(schedule, facts, now).actions:  # something to do (and said): no summary
                return None
            change = next_change(schedule, facts, now)
            until = change if until is None or change < until else until
    imap = config.imap
    position = ledger.position(imap.folders["inbox"]) if imap is not None else None
    outboxes = [home.outbox, *(GameDir(p).outbox for p in directory.games.values())] if config.smtp else []
    return {
        "until_ns": None if until is None else int(until.timestamp()) * 1_000_000_000,  # whole seconds, rounded down
        "files": _files_read(home, config),
        "folders": _code_ran(),
        "account": None if imap is None else _probe_account(imap),
        "position": list(position) if position else None,
        "outboxes": [str(outbox) for outbox in outboxes],
        "lines": [printable(line, one_line=False) for line in report.lines()],  # as `referee run` prints them
    }


def _files_read(home: Home, config: HomeConfig) -> list[str]:
    """Every file and folder an idle pass reads, or whose entries it lists."""
    found = [home.config_path, home.games_dir, home.spool, home.outbox, home.ledger_path]
    found += [Path(f"{home.ledger_path}-wal"), home.path / MARKER_FILE]
    for account in (config.imap, config.smtp):
        found += [p for p in (account.password_file, account.ca_file) if p is not None] if account else []
    for path in home.game_dirs():
        game_dir = GameDir(path)
        found += [game_dir.config, game_dir.journal_path, Path(f"{game_dir.journal_path}-wal")]
        found += [game_dir.key, game_dir.public_key]
        try:  # the files its game.yaml names: players' key files, a tables file
            data = load_strict(game_dir.config.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        named = [p.get("key_file") for p in data.get("players") or [] if isinstance(p, dict)] + [data.get("tables")]
        found += [path / name for name in named if isinstance(name, str)]
    return [str(p) for p in found]


def _code_ran() -> list[str]:
    """The code a pass ran: the referee's modules it loaded, and every game package it loaded
    (whole: its data files too)."""
    found = loaded_code()
    for name, module in sorted(sys.modules.items()):
        where = getattr(module, "__file__", None)
        if name == "games" and where:  # the list of installed games
            found.append(where)
        elif name.startswith("games.") and name.count(".") == 1 and where:
            found.append(os.path.dirname(where) if os.path.basename(where) == "__init__.py" else where)
    return found


def _probe_account(account: MailAccount) -> dict[str, object]:
    """The IMAP account as `referee.mail.imap_probe` reads it (plain values; never the password)."""
    return {
        "host": account.host,
        "port": account.port,
        "security": account.security,
        "username": account.username,
        "password_env": account.password_env,
        "password_file": None if account.password_file is None else str(account.password_file),
        "ca_file": None if account.ca_file is None else str(account.ca_file),
        "timeout": account.timeout,
        "inbox": account.folders["inbox"],
    }


def _one_line(error: RefereeError) -> str:
    """An error as one line of the pass's report, with its first hint (what to do)."""
    hint = f" (hint: {error.hints[0]})" if error.hints else ""
    return printable(f"{error.message}{hint}")


def _intake(
    home: Home,
    config: HomeConfig,
    ledger: Ledger,
    now: datetime,
    mail: bool,
    use_move: bool,
    hooks: Hooks,
    report: PassReport,
) -> Directory | None:
    directory: Directory | None = None
    if not (mail and config.imap is not None):
        return handle_stored(home, config, ledger, now, report.intake, directory, hooks.while_handling)
    try:
        with Mailbox(config.imap) as mailbox:
            mailbox.ensure_folders([config.imap.folders["processed"], config.imap.folders["rejected"]])
            fetch_and_store(home, config, ledger, mailbox, now, report.intake, hooks.after_store)
            directory = handle_stored(home, config, ledger, now, report.intake, directory, hooks.while_handling)
            hooks.before_move()
            move_handled(config, ledger, mailbox, now, report.intake, use_move)
    except RefereeError as exc:
        report.intake.errors.append("; ".join([exc.message, *exc.hints]))
    except OSError as exc:
        report.intake.errors.append(str(exc))
    except Exception as exc:  # imapclient's protocol errors: the next pass starts over from the ledger
        if type(exc).__module__.startswith(("imapclient", "imaplib")):
            report.intake.errors.append(f"IMAP: {exc}")
        else:
            raise
    # Messages stored by an earlier pass whose handling failed are handled even when IMAP is down.
    return handle_stored(home, config, ledger, now, report.intake, directory, hooks.while_handling)


def tend_game(home: Home, config: HomeConfig, directory: Directory, game: str, path: Path, now: datetime) -> list[str]:
    """Carry out one game's schedule now; return a line per thing done."""
    game_dir = GameDir(path)
    try:
        found = _schedule_now(config, directory, game, game_dir, now)
        if found is None:
            return []
        phase, schedule, facts = found
        done = []
        for action in plan(schedule, facts, now).actions:
            if isinstance(action, Remind):
                deadline = schedule.local(action.deadline)
                done.append(_remind(home, config, directory, game, game_dir, phase, action, deadline))
            elif isinstance(action, AlertReferee):
                done.append(_alert(home, config, game, game_dir, phase, action))
            elif isinstance(action, Adjudicate):
                hold = held(game_dir, phase)
                if hold is not None and hold["alerted"]:  # nothing changed since: no second try, no alert
                    needs = ", ".join(hold["needs"])
                    done.append(
                        f"{game}: turn {phase.turn} {phase.phase} held: waits on the referee for {needs} "
                        f"(`referee missing {path}`)"
                    )
                    continue
                done += _adjudicate(home, config, game, path, phase, action, schedule, now)
        return done
    finally:
        game_dir.close()


def _schedule_now(
    config: HomeConfig, directory: Directory, game: str, game_dir: GameDir, now: datetime
) -> tuple[OpenPhase, Schedule, PhaseFacts] | None:
    """Return the open phase of a game, its schedule and what `plan` needs to know of it now (None when over)."""
    phase = game_dir.open_phase()
    if phase is None:
        return None
    schedule = game_schedule(directory.configs[game], config.defaults)
    return phase, schedule, phase_facts(game_dir, phase, now.astimezone(schedule.timezone).date())


def _remind(
    home: Home,
    config: HomeConfig,
    directory: Directory,
    game: str,
    game_dir: GameDir,
    phase: OpenPhase,
    action: Remind,
    deadline: str,
) -> str:
    # deferred: letters load when one is written
    from referee.mail.replies import post_reply

    player = directory.configs[game].player(action.player)
    assert player is not None
    post_reply(
        home,
        config,
        player.email,
        f"[{game}] reminder: your orders for turn {phase.turn} '{phase.phase}' are due {deadline}",
        [
            f"The referee has no orders from {action.player} for turn {phase.turn} '{phase.phase}' of {game}, "
            f"due {deadline}. The phase notice you were sent holds an order form; mail 'status {game}' to see "
            "who is awaited."
        ],
        f"remind/{game}/{phase.stem}/{action.player}/{action.index}",
        auto_submitted="auto-generated",
    )
    with game_dir.lock(), game_dir.transaction():
        data = {"player": action.player, "index": action.index, "deadline": deadline}
        game_dir.log("schedule.remind", data, phase.turn, phase.phase, action.player)
    return f"{game}: reminded {action.player} (turn {phase.turn} {phase.phase})"


def _alert(home: Home, config: HomeConfig, game: str, game_dir: GameDir, phase: OpenPhase, action: AlertReferee) -> str:
    # deferred: letters load when one is written
    from referee.mail.replies import alert_referee

    missing = ", ".join(action.missing)
    if action.reason == "hold":
        subject = f"[{game}] HELD: turn {phase.turn} '{phase.phase}' is past its deadline with most orders missing"
        lines = [
            f"No orders came from {missing}. So many missing orders usually means broken mail, not absent "
            "players, so the phase is held: nothing was adjudicated.",
            f"Check the mailbox and `referee status {game_dir.path}`; then adjudicate by hand with "
            f"`referee adjudicate {game_dir.path} --force`, or wait for the orders.",
        ]
    else:
        subject = f"[{game}] turn {phase.turn} '{phase.phase}' is past its deadline and waits for you"
        lines = [
            f"No orders came from {missing}. This game's missed-orders policy is 'wait': decide, then run "
            f"`referee adjudicate {game_dir.path} --force` (default orders) or `referee become` for a player.",
        ]
    alert_referee(home, config, subject, lines, f"{game}/{phase.stem}/{action.reason}")
    with game_dir.lock(), game_dir.transaction():
        game_dir.log(
            "schedule.alert", {"reason": action.reason, "missing": list(action.missing)}, phase.turn, phase.phase
        )
    return f"{game}: {action.reason} - referee alerted (missing {missing})"


def _adjudicate(
    home: Home,
    config: HomeConfig,
    game: str,
    path: Path,
    phase: OpenPhase,
    action: Adjudicate,
    schedule: Schedule,
    now: datetime,
) -> list[str]:
    try:
        from referee.game.engine import adjudicate  # deferred: an idle pass adjudicates nothing

        result = adjudicate(path, expect=phase.ident, force=bool(action.defaulted))
    except BeaconPendingError as exc:  # not a failure: the next pass after the round tries again
        return [f"{game}: waits: {exc.message}"]
    except WaitingOnReferee as waiting:  # not a failure of the pass: held until the referee supplies the data
        game_dir = GameDir(path)
        try:  # alerted once per hold: the journal notes it after the alert is in the outbox
            hold = held(game_dir, waiting.phase)
            if hold is not None and not hold["alerted"]:
                _alert_waiting(home, config, game, phase, waiting)
                mark_alerted(game_dir, waiting.phase)
        finally:
            game_dir.close()
        return [f"{game}: turn {phase.turn} {phase.phase} held: {waiting.message}"]
    except RefereeError as exc:
        from referee.mail.replies import alert_referee  # deferred: letters load when one is written

        alert_referee(
            home,
            config,
            f"[{game}] could not adjudicate turn {phase.turn} '{phase.phase}'",
            [exc.message, *exc.hints],
            f"{game}/{phase.stem}/failed",
        )
        raise
    lines = [
        f"{game}: adjudicated turn {phase.turn} {phase.phase} ({action.reason}"
        + (f", default orders for {', '.join(result.defaulted)}" if result.defaulted else "")
        + f"), next {result.next_phase or 'none: game over'}"
    ]
    game_dir = GameDir(path)
    for player in newly_absent(schedule, missed_in_a_row(game_dir)):
        if player in result.defaulted and player not in absent_players(game_dir, now.date()):
            declare_absence(game_dir, player, None, "missed", f"missed:{phase.stem}")
            lines.append(f"{game}: {player} marked absent after missed phases")
    return lines


def _alert_waiting(home: Home, config: HomeConfig, game: str, phase: OpenPhase, waiting: WaitingOnReferee) -> None:
    """Tell the referee, once per hold, what the game waits for and the exact commands that supply it."""
    # deferred: letters load when one is written
    from referee.mail.replies import Section, alert_referee

    needs = "".join(f"  {need.id}: {need.title} ({need.book}), needed by {need.needed_by}\n" for need in waiting.needs)
    lines = [
        f"Turn {phase.turn} '{phase.phase}' of {game} cannot be adjudicated until you supply, from your own "
        f"copy of the rules, what its rulebook leaves out ({waiting.why.rstrip('.')}).",
        "Every player was told the game waits on you, and for what. Once you have supplied it, the next "
        "`referee run` adjudicates the phase as usual; `referee missing` lists what later phases need.",
    ]
    commands = "".join(f"  {hint}\n" for hint in waiting.hints)
    sections = [Section("What it waits for", needs), Section("How to supply it", commands)]
    subject = f"[{game}] turn {phase.turn} '{phase.phase}' waits on you: data to supply"
    key = f"{game}/{phase.stem}/waiting-{'-'.join(n.id for n in waiting.needs)}"
    alert_referee(home, config, subject, lines, key, sections)


def watch(
    home: Home,
    renew_seconds: float = IDLE_RENEW_SECONDS,
    tick_seconds: float = 60.0,
    stop: Callable[[], bool] = lambda: False,
    on_pass: Callable[[PassReport], None] = lambda report: None,
    log: Callable[[str], None] = lambda line: None,
    backoff_first: float = BACKOFF_FIRST_SECONDS,
    backoff_cap: float = BACKOFF_CAP_SECONDS,
) -> None:
    """Run passes until `stop()`: after each, wait in IMAP IDLE for new mail (renewed before the
    server's 29-minute limit), waking at least every `tick_seconds` for deadlines.

    A server restart, a dropped connection, a network or TLS failure is logged and retried after
    `backoff_first` seconds, doubling to at most `backoff_cap`; the first success after failures
    is logged too. Only what the operator must mend ends the watch, with its RefereeError: the
    configuration, a refused login, a server certificate not trusted.
    """
    failures = 0
    looked_past: tuple[int, int] | None = None  # the position after which mail last woke a pass at once
    while not stop():
        try:
            report = run_pass(home)
            on_pass(report)
            config = home.load_config()
            if config.imap is None:
                _pause(tick_seconds, stop)
                continue
            inbox = config.imap.folders["inbox"]
            position = None if report.skipped else _stored_position(home, inbox)
            # A pass that found mail past a position and could not store it (a full disk) must not
            # wake the next at once, and the next, and so on: the same position is looked past once.
            read_up_to = position if position != looked_past else None
            with Mailbox(config.imap) as mailbox:
                if failures:
                    log(f"connected again to {config.imap.describe()} after {failures} failure(s)")
                    failures = 0
                if _wait_for_mail(mailbox, inbox, read_up_to, renew_seconds, tick_seconds, stop) == "waiting":
                    looked_past = read_up_to
        except NEEDS_OPERATOR:
            raise
        except Exception as exc:  # whatever else failed is retried: an unattended watch must not end
            failures += 1
            delay = min(backoff_cap, backoff_first * 2 ** min(failures - 1, 30))
            log(f"{_describe(exc)}; trying again in {delay:g} s (failure {failures} in a row)")
            _pause(delay, stop)


def _stored_position(home: Home, inbox: str) -> tuple[int, int]:
    """The inbox's (UIDVALIDITY, last UID) that intake has stored up to; (0, 0) before any mail."""
    ledger = Ledger(home.ledger_path)
    try:
        return ledger.position(inbox) or (0, 0)
    finally:
        ledger.close()


def _wait_for_mail(
    mailbox: Mailbox,
    inbox: str,
    read_up_to: tuple[int, int] | None,
    renew_seconds: float,
    tick_seconds: float,
    stop: Callable[[], bool],
) -> str:
    """Return when mail arrives, after `tick_seconds`, or at `stop()`; raise if the connection fails.
    Say why: "waiting" (mail was in the inbox past `read_up_to` already), "arrived" or "tick".

    Mail that reached the inbox between the pass and this SELECT is already counted in SELECT's
    answer, so IDLE would never announce it: it is looked for first, past `read_up_to`, the position
    the pass stored up to (None after a skipped pass, whose position another process is moving,
    and after a pass that left that mail where it was: it is not looked for again).
    """
    selected = mailbox.select(inbox)
    if read_up_to is not None:
        uidvalidity, last_uid = read_up_to
        if mailbox.uids_after(last_uid if uidvalidity == selected.uidvalidity else 0):
            return "waiting"
    if not mailbox.has("IDLE"):  # a server without IDLE (RFC 2177) is polled once a tick
        _pause(tick_seconds, stop)
        return "tick"
    waited = 0.0
    while waited < tick_seconds and not stop():
        step = min(renew_seconds, tick_seconds - waited)
        started = time.monotonic()
        if mailbox.idle(step):
            return "arrived"
        waited += time.monotonic() - started
    return "tick"


def _pause(seconds: float, stop: Callable[[], bool]) -> None:
    """Sleep `seconds`, waking early when `stop()` turns true."""
    end = time.monotonic() + seconds
    while not stop() and (left := end - time.monotonic()) > 0:
        time.sleep(min(left, 0.5))


def _describe(exc: Exception) -> str:
    if isinstance(exc, RefereeError):
        return exc.message
    return f"{type(exc).__module__}.{type(exc).__name__}: {exc}".removeprefix("builtins.")
