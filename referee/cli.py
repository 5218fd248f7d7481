"""The `referee` command line: thin commands over the library; `main` is the one place that exits
(with the entry, `referee.__main__`, for the `status` and `run` it serves without click).

Exit codes: 0 ok; 1 refused or failed; 2 usage error, or no game in GAMEDIR; 3 verification found
problems; 4 the phase waits on its referee for data to supply (`referee missing`).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from referee import __version__
from referee.errors import AlreadyDone, RefereeError, error_lines, system_error
from referee.protocol.display import printable

# Each command imports the library it calls inside its own body: deferred for start-up speed, so
# that `referee status` or `referee --help` loads no cryptography, YAML or Jinja2. (The command
# line is the top layer: nothing imports it, so these imports dodge no circle.)


def _a_game(path: Path) -> Path:
    """Return `path`, or refuse in the one way every command does (exit 2) a GAMEDIR with no game."""
    from referee.game.journal import GameDir

    GameDir(path).require()
    return path


def _a_game_or_a_copy(path: Path) -> Path:
    """Like `_a_game`, for commands a player runs on their copy of a game (records/, referee.pub)."""
    from referee.errors import no_game_error

    if not any((path / name).exists() for name in ("journal.sqlite", "referee.pub", "records")):
        raise no_game_error(
            path,
            "records/, referee.pub or journal",
            hints=(
                "check the path: GAMEDIR is a game directory, or your copy of one: a directory holding "
                "referee.pub and records/ (the records mailed to you)",
            ),
        )
    return path


# A game directory: the one `referee init` made (GAMEDIR), or also a player's copy of its public
# files (COPY_GAMEDIR). Both refuse a path with no game in it before the command starts.
GAMEDIR = click.argument(
    "gamedir", type=click.Path(path_type=Path), callback=lambda _c, _p, path: path and _a_game(path)
)
COPY_GAMEDIR = click.argument(
    "gamedir", type=click.Path(path_type=Path), callback=lambda _c, _p, path: path and _a_game_or_a_copy(path)
)
JSON_OPTION = click.option(
    "--json", "as_json", is_flag=True, help="Print the result as JSON, for scripts (shapes: docs/json.md)."
)
NEW_GAMEDIR = click.argument("gamedir", type=click.Path(file_okay=False, path_type=Path))
OPERATION = click.option(
    "--operation",
    metavar="ID",
    help="Name this run (default: an id made from the command and its arguments); "
    "the same id again finishes it after a crash, or says it was done.",
)


# `referee --help` and docs/cli.md list the commands in these sections, in this order. A new
# command is one line here: tests/cli/test_cli_polish.py fails for a command that has none.
PLAYERS = "Players: keys, signing orders, checking the referee"
REFEREE = "Referee: running one game (GAMEDIR)"
MAIL_SERVICE = "Mail service: the referee's home of games"
TRYING = "Trying it out"
COMMAND_SECTIONS: dict[str, str] = {
    "keygen": PLAYERS,
    "sign": PLAYERS,
    "verify": PLAYERS,
    "explain": PLAYERS,
    "init": REFEREE,
    "status": REFEREE,
    "missing": REFEREE,
    "submit": REFEREE,
    "become": REFEREE,
    "supply": REFEREE,
    "preview": REFEREE,
    "adjudicate": REFEREE,
    "override": REFEREE,
    "rollback": REFEREE,
    "roll-forward": REFEREE,
    "reveal": REFEREE,
    "dispute": REFEREE,
    "audit": REFEREE,
    "home": MAIL_SERVICE,
    "run": MAIL_SERVICE,
    "send": MAIL_SERVICE,
    "demo": TRYING,
}
OTHER = "Other commands"


def command_sections(names: list[str]) -> list[tuple[str, list[str]]]:
    """Return the sections of the help with their commands among `names`, in the table's order."""
    order = list(COMMAND_SECTIONS)
    ranked = sorted(names, key=lambda name: order.index(name) if name in order else len(order))
    titles = list(dict.fromkeys(COMMAND_SECTIONS.values())) + [OTHER]
    found = [(title, [n for n in ranked if COMMAND_SECTIONS.get(n, OTHER) == title]) for title in titles]
    return [(title, members) for title, members in found if members]


class SectionedGroup(click.Group):
    """A command group whose help lists its commands by section (COMMAND_SECTIONS), not in one list."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Write each section of commands with their one-line summaries."""
        longest = max((len(name) for name in self.list_commands(ctx)), default=0)
        for title, names in command_sections(self.list_commands(ctx)):
            rows = []
            for name in names:
                command = self.get_command(ctx, name)
                if command is not None and not command.hidden:  # padded: one column across the sections
                    rows.append((name.ljust(longest), command.get_short_help_str(formatter.width - 6 - longest)))
            with formatter.section(title):
                formatter.write_dl(rows)


@click.group(
    cls=SectionedGroup,
    context_settings={"help_option_names": ["-h", "--help"], "auto_envvar_prefix": "REFEREE"},
)
@click.version_option(__version__, prog_name="referee")
def cli() -> None:
    """A neutral, verifiable play-by-email referee for wargames.

    Players sign YAML order files with OpenSSH; the referee commits to its dice seed
    before orders arrive and reveals it afterwards, so every roll can be checked offline.
    """


@cli.command()
@click.argument("keyfile", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--comment", default="", help="Comment stored at the end of the public key line.")
def keygen(keyfile: Path, comment: str) -> None:
    """Write a new ed25519 key pair: KEYFILE (private, mode 0600) and KEYFILE.pub.

    \b
    Example:
        referee keygen ~/.ssh/pbem_ed25519 --comment alice@example.org
    """
    from referee.protocol.signatures import generate_keypair

    key = generate_keypair(keyfile, comment)
    _say(f"wrote {keyfile} and {keyfile}.pub ({key.fingerprint})")
    _say(f"register this public key line with the referee:\n{key.line()}")


@cli.command()
@click.argument("orderfile", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option(
    "--key",
    "keyfile",
    required=True,
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Your OpenSSH private key (the one you registered); with --agent, KEY.pub names the agent's key.",
)
@click.option("--agent", is_flag=True, help="Sign with the key ssh-agent holds (after `ssh-add KEY`): no passphrase.")
def sign(orderfile: Path, keyfile: Path, agent: bool) -> None:
    """Sign an order file (namespace pbem-orders), writing ORDERFILE.sig.

    Fills in a random 'entropy' line first when the file has none. A command file (a
    'command:' line, no orders; see docs/mail.md) is signed in namespace pbem-command
    instead. The passphrase of an encrypted key is read from REFEREE_KEY_PASSPHRASE,
    else asked for on the terminal; with neither, the command fails at once and says
    how to give it. With --agent, ssh-agent signs (through ssh-keygen) and no
    passphrase is needed here.

    \b
    Example:
        referee sign orders.yaml --key ~/.ssh/id_ed25519
        ssh-add ~/.ssh/id_ed25519 && referee sign orders.yaml --key ~/.ssh/id_ed25519 --agent
    """
    from referee.signing import passphrase_asker, sign_order_file

    ask = passphrase_asker(keyfile, lambda: str(click.prompt("passphrase for the key", hide_input=True, err=True)))
    signature_path = sign_order_file(orderfile, keyfile, ask, agent)
    _say(f"signed {orderfile}: send it with {signature_path}")


@cli.command()
@NEW_GAMEDIR
@click.option(
    "--config",
    "config_file",
    required=True,
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="The game configuration (YAML): module, game id, scenario, options, players.",
)
@OPERATION
def init(gamedir: Path, config_file: Path, operation: str | None) -> None:
    """Create a game directory and open the first phase.

    Makes the referee's key pair, the journal, and the signed notice of the first
    phase (with its dice commitment) for every player, in GAMEDIR/outbox.

    \b
    Example:
        referee init blenheim --config blenheim.yaml
    """
    from referee.game.engine import init_game
    from referee.game.status import status_text

    _say(status_text(init_game(gamedir, config_file, operation)), nl=False)


@cli.command()
@GAMEDIR
@click.argument("orderfile", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option(
    "--sig",
    "sigfile",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="The detached signature (default: ORDERFILE.sig).",
)
def submit(gamedir: Path, orderfile: Path, sigfile: Path | None) -> None:
    """Accept or refuse a signed order file and write the acknowledgement.

    Exits 1 when the file is refused; a refused file changes nothing in the game.

    \b
    Example:
        referee submit blenheim orders.yaml --sig orders.yaml.sig
    """
    from referee.game.engine import read_signature_file
    from referee.game.engine import submit as submit_order

    receipt = submit_order(gamedir, orderfile.read_bytes(), read_signature_file(orderfile, sigfile))
    _show_receipt(receipt, orderfile)


def _show_receipt(receipt: Any, orderfile: Path) -> None:
    """Print the acknowledgement; a refusal then fails the command (exit 1)."""
    from referee.letters.kept import read_kept  # a file, or a member of a pack of letters

    _say(read_kept(receipt.letter).decode("utf-8") if receipt.letter else "", nl=False)
    if not receipt.accepted:
        raise RefereeError(f"{orderfile} was refused ({len(receipt.problems)} problem(s), listed above)")


@cli.command()
@GAMEDIR
@click.argument("player")
@click.argument("orderfile", type=click.Path(dir_okay=False, exists=True, path_type=Path))
def become(gamedir: Path, player: str, orderfile: Path) -> None:
    """Enter orders for PLAYER (absent, or by agreement), signed by the referee.

    ORDERFILE may hold just `orders:`: the game, turn, phase, player and seq it
    lacks are filled in for the open phase (seq: the one after PLAYER's standing
    orders); a header that names another player or phase is refused. The orders are
    recorded and announced as entered by the referee, and the acknowledgement goes
    to the player, who can replace them with their own file of a higher seq. A
    refusal is shown here only: nothing is sent to the player.

    \b
    Example:
        referee become blenheim tallard tallard-orders.yaml
    """
    from referee.errors import OrderRefusedError
    from referee.game.engine import submit as submit_order

    receipt = submit_order(gamedir, orderfile.read_bytes(), None, become=player)
    if receipt.filled:
        _say(f"filled in for the open phase: {', '.join(receipt.filled)}")
    if not receipt.accepted:
        raise OrderRefusedError(
            f"{orderfile} was refused; nothing was sent to {player}",
            [str(problem) for problem in receipt.problems],
            hints=("correct the file and run `referee become` again",),
        )
    _show_receipt(receipt, orderfile)


@cli.command()
@GAMEDIR
@click.option("--expect", metavar="TURN/PHASE", help="Act only if this phase is the open one (e.g. 3/round).")
@click.option("--force", is_flag=True, help="Adjudicate now, with the game's default orders for missing players.")
def adjudicate(gamedir: Path, expect: str | None, force: bool) -> None:
    """Adjudicate the open phase when every order is in.

    Writes the signed public record, each player's report and the next phase's notice.

    \b
    Example:
        referee adjudicate blenheim --expect 3/round
    """
    from referee.game.engine import adjudicate as run

    result = run(gamedir, expect, force)
    _say(
        f"adjudicated turn {result.phase.turn} '{result.phase.phase}': {result.rolls} roll(s), "
        f"{len(result.events)} event(s)"
    )
    if result.defaulted:
        _say(f"default orders used for: {', '.join(result.defaulted)}")
    _say(f"record: {result.record}")
    _say(f"reports: {result.reports[0].parent if result.reports else 'none'}")
    _say(f"next: {result.next_phase or 'the game is over'}")


@cli.command()
@GAMEDIR
@JSON_OPTION
@click.option(
    "--clock", "with_clock", is_flag=True, help="Also show how long each player took to answer, per phase and in total."
)
def status(gamedir: Path, as_json: bool, with_clock: bool) -> None:
    """Say the game, turn and phase, who is awaited, and the commitment.

    With --clock, the time each player took to answer in each phase (from the
    phase's notice to their last accepted orders; to the adjudication when they sent
    none) and in total: tournaments decide unfinished games by it.

    \b
    Example:
        referee status blenheim --json
        referee status blenheim --clock
    """
    from referee.game.status import clock, clock_text, status_shown, status_text

    info = status_shown(gamedir)
    if with_clock:
        info["clock"] = clock(gamedir)
    if as_json:
        _say(json.dumps(info, indent=2))
    else:
        _say(status_text(info) + (clock_text(info["clock"]) if with_clock else ""), nl=False)


@cli.command()
@GAMEDIR
@click.option("--force", is_flag=True, help="Preview with the game's default orders for missing players.")
def preview(gamedir: Path, force: bool) -> None:
    """Adjudicate the open phase on a scratch copy and show the reports; change nothing, send nothing.

    \b
    Example:
        referee preview blenheim --force
    """
    from referee.game.preview import preview as run_preview

    result = run_preview(gamedir, force)
    for name, text in result.reports:
        _say(f"===== {name} =====")
        _say(text)
    _say(f"preview of turn {result.adjudication.phase.ident}: nothing in {gamedir} changed, nothing was sent")


@cli.command()
@COPY_GAMEDIR
@click.option(
    "--final", is_flag=True, help="Also require the revealed game secret to prove every hidden draw (game over)."
)
@click.option(
    "--letters",
    type=click.Path(exists=True, path_type=Path),
    metavar="MAILDIR_OR_MBOX",
    help="Also hold the records to the letters you kept (a Maildir folder or an mbox file).",
)
@click.option("--player", metavar="NAME", help="Whose letters --letters holds (your player name).")
@click.option(
    "--identity",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="KEYFILE",
    help="Your SSH private key, to open letters sealed to you (encrypt: true).",
)
@JSON_OPTION
def verify(
    gamedir: Path, final: bool, letters: Path | None, player: str | None, identity: Path | None, as_json: bool
) -> None:
    """Re-derive every roll of every record and check signatures and chains.

    GAMEDIR needs only referee.pub and records/ (each record with its .sig), so a
    player can check a game from the records mailed to them; reveals of hidden
    draws go in reveals/. With --letters, the mail you kept is evidence too: each
    order the referee acknowledged must be in its phase's record, each notice's
    commitment (hidden commit, beacon round) its record's, each report's record
    the one published now, and each letter signed by the referee; a mismatch
    names the letter (Message-ID, date, subject). Exits 3 on any problem. A game
    with no phase adjudicated yet has nothing to verify: it says so and exits 0.

    \b
    Example:
        referee verify blenheim
        referee verify --final blenheim    # after `referee reveal --final`
        referee verify blenheim --letters ~/Mail/blenheim --player alice
        referee verify blenheim --letters game.mbox --player alice --identity ~/.ssh/id_ed25519
    """
    from referee.errors import VerificationError
    from referee.protocol.verify import verify_game_dir

    if (letters is None) != (player is None):
        raise click.UsageError("--letters and --player go together: whose letters, kept where")
    if identity is not None and letters is None:
        raise click.UsageError("--identity opens sealed letters: give --letters and --player too")
    if letters is None and not any((gamedir / "records").glob("*.json")):
        nothing = f"nothing to verify yet: no phase adjudicated in {gamedir} (no records in {gamedir / 'records'})"
        _say(json.dumps({"ok": True, "adjudicated": False, "records": 0}, indent=2) if as_json else nothing)
        return
    report = verify_game_dir(gamedir, final)
    kept = None
    if letters is not None and player is not None:
        from referee.protocol.evidence import verify_letters

        decrypt = None
        if identity is not None:
            from referee.letters.encryption import identity_decrypter

            decrypt = identity_decrypter(identity)
        kept = verify_letters(gamedir, letters, player, decrypt)
    problems = report.problems + (kept.problems if kept else [])
    if as_json:
        _say(json.dumps(_verify_json(report, kept, problems), indent=2))
    if problems:
        raise VerificationError(f"{len(problems)} problem(s) in {gamedir}", problems)
    if not as_json:
        _say("\n".join(_verify_lines(report, kept)))


def _verify_json(report: Any, kept: Any, problems: list[str]) -> dict[str, Any]:
    """Return what `verify --json` prints: the counts checked, and every problem (docs/json.md)."""
    from dataclasses import asdict

    return {
        "ok": not problems,
        "adjudicated": True,
        **{name: value for name, value in asdict(report).items() if name != "problems"},
        "problems": problems,
        "letters": asdict(kept) if kept is not None else None,
    }


def _verify_lines(report: Any, kept: Any) -> list[str]:
    """Return what `verify` prints when every check held."""
    superseded = f", and {report.superseded} superseded record(s)" if report.superseded else ""
    lines = [
        f"ok: {report.records} record(s), {report.rolls} roll(s), {report.orders} order hash(es) verified{superseded}"
    ]
    if report.openings or report.hidden_proven:
        lines.append(
            f"hidden draws: {report.openings} public opening(s) checked against their commitments, "
            f"{report.hidden_proven} draw(s) proven from what was revealed"
        )
    if report.beacons:
        lines.append(
            f"beacon: {report.beacons} round(s) of drand chain {report.beacon_chain} verified offline, "
            "each the round promised before its phase's orders closed (check the chain hash is the one you expect)"
        )
    if report.final:
        lines.append("final: the revealed game secret proves every hidden draw of the game")
    if kept is not None:
        lines.append(f"letters: {kept.summary()}; each agrees with the published records")
        lines += [f"  note: {note}" for note in kept.notes]
    return lines


@cli.command()
@GAMEDIR
@click.option("--draw", "patterns", multiple=True, metavar="LABEL", help="A hidden draw's label (* and ? match).")
@click.option("--final", is_flag=True, help="Reveal the game secret, proving every hidden draw (the game is over).")
@click.option(
    "--force", is_flag=True, help="Reveal a draw that still hides something (cards in hands, a sealed note) anyway."
)
@OPERATION
def reveal(gamedir: Path, patterns: tuple[str, ...], final: bool, force: bool, operation: str | None) -> None:
    """Publish hidden draws' keys (a finished deck) or, after the game, its hidden secret.

    Writes GAMEDIR/reveals/NNNN.json, signed, and sends it to every player, who can
    then check each revealed draw against its commitments with `referee verify`.
    While the game goes on, a draw still in play (a deck with cards in hands or in
    its draw pile, a hidden note not yet revealed) is refused, naming what it would
    open to whom; with --force it is revealed and the letter tells every player
    exactly what it opens.

    \b
    Example:
        referee reveal blenheim --draw 'deck/events/*'
        referee reveal blenheim --final
    """
    from referee.game.reveal import reveal as run_reveal

    if not patterns and not final:
        raise RefereeError("say what to reveal", hints=("--draw LABEL (wildcards allowed), or --final",))
    target = run_reveal(gamedir, patterns, final, operation, force)
    _say(f"revealed: {target} (sent to every player)")


@cli.command()
@COPY_GAMEDIR
@click.argument("label")
@click.option("--phase", metavar="TURN/PHASE", help="The phase of the roll, when its label was used in several.")
def explain(gamedir: Path, label: str, phase: str | None) -> None:
    """Explain one roll step by step: transcript, phase key, stream blocks, draws, table read.

    Works from the public record, so a player can check each step by hand.

    \b
    Example:
        referee explain blenheim roll/tallard/cavalry-charge
    """
    from referee.game.explain import explain as explain_roll

    _say(explain_roll(gamedir, label, phase), nl=False)


@cli.command()
@GAMEDIR
@click.argument("kind", type=click.Choice(("reroll", "result", "order", "state", "withdraw")))
@click.argument("target")
@click.argument("values", nargs=-1)
@click.option("--reason", required=True, help="Why: every player reads it, now and in the phase's report.")
@click.option("--phase", metavar="TURN/PHASE", help="The phase it changes (default: the roll's, or the open one).")
@OPERATION
def override(
    gamedir: Path,
    kind: str,
    target: str,
    values: tuple[str, ...],
    reason: str,
    phase: str | None,
    operation: str | None,
) -> None:
    """Re-roll, replace a result, correct a player's orders or edit the state, with a reason.

    Each override is signed by the referee, told to every player at once, and listed
    in the record and reports of the phase it changes. Overriding a phase already
    adjudicated rolls the game back to it and adjudicates it and the later ones again.

    \b
    KIND TARGET [VALUES]:
      reroll LABEL            roll again as LABEL/reroll-N (the first roll stays on record)
      result LABEL VALUE...   the roll counts as these values
      order PLAYER ORDERFILE  PLAYER's orders are executed as ORDERFILE says
      state PATH VALUE        set PATH (a JSON pointer: /units/0/strength) to VALUE (YAML)
      withdraw NUMBER         withdraw an earlier override

    \b
    Example:
        referee override blenheim reroll roll/tallard/charge --reason "the die fell off the table"
    """
    from referee.game.override import make_override, override_text

    order, order_file = None, None
    if kind == "order":
        if len(values) != 1:
            raise click.UsageError("order takes PLAYER ORDERFILE")
        order, order_file, values = _read_file(Path(values[0])), values[0], ()
    result = make_override(gamedir, kind, target, values, reason, phase, order, operation, order_file)
    _say(override_text(result), nl=False)


@cli.command()
@click.argument(
    "gamedir", required=False, type=click.Path(path_type=Path), callback=lambda _c, _p, path: path and _a_game(path)
)
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--reason", help="Why: every player reads it, in the phase's report.")
@click.option("--template", "need", metavar="NEED", help="Write the commented file to fill in for NEED.")
@click.option(
    "--game", "module_id", metavar="MODULE", help="The game module, for --template or --list without GAMEDIR."
)
@click.option("--list", "list_needs", is_flag=True, help="List what can be supplied (the module's needs).")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Write the template here.")
@OPERATION
def supply(
    gamedir: Path | None,
    file: Path | None,
    reason: str | None,
    need: str | None,
    module_id: str | None,
    list_needs: bool,
    output: Path | None,
    operation: str | None,
) -> None:
    """Supply data the rulebook leaves out (a table, a factor), at any point of a game.

    FILE names the need and gives its data (`supplies: NEED` and `data:`); it is
    checked against the need's shape and by the game, every problem listed, and
    nothing changes unless all is right. Then it is signed, kept in the journal,
    applied to the open phase (also one held waiting on you) and shown in its record
    and in every player's report. `referee override GAMEDIR withdraw N` withdraws it.

    \b
    Example:
        referee supply --template morale blenheim > morale.yaml
        referee supply blenheim morale.yaml --reason "Army morale, p. 30 of my copy"
        referee supply --list --game polemos-obb
    """
    from referee.game import supplies

    if need is not None or list_needs:
        if file is not None:
            raise click.UsageError("--template and --list take GAMEDIR or --game MODULE, not a FILE")
        module = supplies.module_of(gamedir, module_id)
        if list_needs:
            text = supplies.needs_text(module)
        else:
            text = supplies.template_text(module, need)  # type: ignore[arg-type]
        if output is not None:
            output.write_text(text, encoding="utf-8")
            _say(f"wrote {output}")
        else:
            _say(text, nl=False)
        return
    if gamedir is None or file is None or not reason:
        raise click.UsageError("supply takes GAMEDIR FILE --reason TEXT (or --template NEED, or --list)")
    from referee.game.override import make_supply, override_text

    result = make_supply(gamedir, _read_file(file), reason, str(file), operation)
    _say(override_text(result), nl=False)


@cli.command()
@GAMEDIR
@JSON_OPTION
def missing(gamedir: Path, as_json: bool) -> None:
    """List what the game's referee may supply: each need, when and why, its page, the commands.

    \b
    Example:
        referee missing blenheim --json
    """
    from referee.game.supplies import missing as read_missing
    from referee.game.supplies import missing_text

    info = read_missing(gamedir)
    _say(json.dumps(info.as_dict(), indent=2) if as_json else missing_text(info), nl=as_json)


def _read_file(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise RefereeError(f"cannot read {path}: {exc.strerror}") from None


@cli.command()
@GAMEDIR
@click.argument("phase", metavar="TURN/PHASE")
@click.option("--reason", required=True, help="Why: every player reads it.")
@click.option("--stay", is_flag=True, help="Stop at TURN/PHASE (to add overrides) instead of adjudicating again.")
@OPERATION
def rollback(gamedir: Path, phase: str, reason: str, stay: bool, operation: str | None) -> None:
    """Return to an earlier phase and adjudicate again from there, with the same seeds.

    Every player is told. Later records, orders and letters stay on record (records
    move to records/superseded/N/). Unless --stay, the phase and the later ones are
    adjudicated again from the orders on record: unchanged inputs give the same records.

    \b
    Example:
        referee rollback blenheim 3/round --reason "the morale table had a misprint"
    """
    from referee.game.rollback import rollback as run_rollback
    from referee.game.rollback import rollback_text

    _say(rollback_text(*run_rollback(gamedir, phase, reason, forward=not stay, operation=operation)), nl=False)


@cli.command("roll-forward")
@GAMEDIR
@OPERATION
def roll_forward(gamedir: Path, operation: str | None) -> None:
    """Adjudicate again each phase a rollback returned to, as it was adjudicated before.

    Stops at the first phase that waits for orders or whose orders no longer fit.

    \b
    Example:
        referee roll-forward blenheim
    """
    from referee.game.rollback import roll_forward as run_roll_forward
    from referee.game.rollback import roll_forward_text

    _say(roll_forward_text(run_roll_forward(gamedir, operation)), nl=False)


@cli.command()
@click.argument("gamedir", type=click.Path(path_type=Path))
@click.option(
    "--public",
    is_flag=True,
    help="GAMEDIR is a player's folder (records/, reveals/, replay.json, referee.pub): replay it without a journal.",
)
@JSON_OPTION
def audit(gamedir: Path, public: bool, as_json: bool) -> None:
    """Replay the whole game and confirm every state, record and report; exit 3 on a divergence.

    Starts from the configuration's set-up and replays each phase from the orders on
    record, the seeds and the overrides; the first divergence is named precisely
    (phase, file, field or roll, both values). Changes nothing.

    With --public, a player replays a finished game from what the letters attached: the
    records, the reveals and replay.json of the final reveal (protocol section 16). Every
    state commitment, draw and record must be what the game module's replay gives.

    \b
    Example:
        referee audit blenheim
        referee audit --public ~/games/blenheim
    """
    from dataclasses import asdict

    from referee.errors import VerificationError

    (_a_game_or_a_copy if public else _a_game)(gamedir)
    if public:
        from referee.game.public_audit import public_audit

        report: Any = public_audit(gamedir)
        problems = report.problems[:20]
    else:
        from referee.game.audit import audit as run_audit
        from referee.game.audit import phases_to_replay

        total = phases_to_replay(gamedir)
        if total > 5 and sys.stderr.isatty():
            with click.progressbar(length=total, label="replaying", file=sys.stderr) as bar:
                report = run_audit(gamedir, bar.update)
        else:
            report = run_audit(gamedir)
        problems = [] if report.ok else [str(report.divergence)]
    if as_json:
        _say(json.dumps({"ok": report.ok, "public": public, **asdict(report), "summary": report.summary()}, indent=2))
    if not report.ok:
        raise VerificationError(
            f"the {'public audit' if public else 'audit'} of {gamedir} found a divergence", problems
        )
    if not as_json:
        _say(f"ok: {report.summary()}")


@cli.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
def demo(directory: Path | None) -> None:
    """Play a three-player moderator game end to end, verify it, and show the reports.

    \b
    Example:
        referee demo ./demo-game
    """
    from referee.demo import run_demo

    run_demo(directory or Path("demo-game"), click.echo)


@cli.group()
def dispute() -> None:
    """Disputes players sent by mail (`dispute GAME LABEL REASON`): list and resolve them.

    \b
    Example:
        referee dispute list blenheim
        referee dispute resolve blenheim 2 --upheld --note "the roll checks out"
    """


@dispute.command("list")
@GAMEDIR
@JSON_OPTION
def dispute_list(gamedir: Path, as_json: bool) -> None:
    """List the game's disputes, open and resolved.

    \b
    Example:
        referee dispute list blenheim
    """
    from referee.game.disputes import disputes
    from referee.game.journal import GameDir

    found = disputes(GameDir(gamedir).require())
    if as_json:
        _say(json.dumps(found, indent=2))
        return
    if not found:
        _say("no disputes")
    for item in found:
        where = f"roll {item['label']} ({item['record']})" if item.get("record") else f"'{item['label']}'"
        _say(f"#{item['number']}  {item['state']:<10}  {item['player']}: {where}: {item['reason']}")


@dispute.command("resolve")
@GAMEDIR
@click.argument("number", type=int)
@click.option("--upheld", "outcome", flag_value="upheld", help="The result stands; the explanation goes to all.")
@click.option("--overridden", "outcome", flag_value="overridden", help="You changed it with `referee override`.")
@click.option("--note", default="", help="Your words to the players.")
def dispute_resolve(gamedir: Path, number: int, outcome: str | None, note: str) -> None:
    """Resolve a dispute and tell every player (with `explain`'s evidence when upheld).

    \b
    Example:
        referee dispute resolve blenheim 2 --upheld --note "the roll checks out"
    """
    from referee.game.disputes import resolve_dispute

    if outcome is None:
        raise click.UsageError("say how the dispute ends: --upheld or --overridden")
    letters = resolve_dispute(gamedir, number, outcome, note)
    _say(f"dispute #{number} {outcome}: {len(letters)} letter(s) in the outbox")


HOME_OPTION = click.option(
    "--home",
    "home_path",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="REFEREE_HOME",
    help="The referee home (default: $REFEREE_HOME, else ~/.local/share/pbem-referee).",
)


def _home(home_path: Path | None) -> Any:
    from referee.mail.home import Home, default_home

    return Home(home_path or default_home())


def _utc_now() -> str:
    from datetime import UTC, datetime

    return f"{datetime.now(UTC):%Y-%m-%d %H:%M:%S}Z"


@cli.group()
def home() -> None:
    """The referee's home: many games (HOME/games/NAME) and one mail configuration.

    \b
    Example:
        referee home init --home ~/referee
    """


@home.command("init")
@HOME_OPTION
def home_init(home_path: Path | None) -> None:
    """Create the home with an example referee.yaml to edit (an existing one is kept).

    \b
    Example:
        referee home init --home ~/referee
        referee init ~/referee/games/blenheim --config blenheim.yaml
    """
    config = _home(home_path).create()
    _say(f"home      {config.parent}")
    _say(f"config    {config} (edit it: the mail accounts, your address, the defaults)")
    _say(f"games     create them in {config.parent / 'games'}/NAME with `referee init`")


@cli.command()
@HOME_OPTION
@click.option(
    "--watch",
    is_flag=True,
    help="Keep going: wake on new mail (IMAP IDLE) and at least every minute; "
    "reconnect after server restarts (back-off up to 5 minutes, logged on stderr).",
)
@click.option("--no-mail", is_flag=True, help="Neither fetch nor send mail: only stored mail and the schedules.")
@click.option("--quiet", is_flag=True, help="Print only failures (for cron, which mails what a job prints).")
def run(home_path: Path | None, watch: bool, no_mail: bool, quiet: bool) -> int:
    """One unattended pass: take in mail, keep every game's schedule, send the outboxes.

    Safe to start from cron as often as you like: overlapping runs leave at once.
    Exits 1 when something failed (it is retried on the next pass).

    \b
    Example: a crontab line, every five minutes
        */5 * * * *  REFEREE_HOME=$HOME/referee referee run --quiet
    """
    from referee.mail.run import run_pass
    from referee.mail.run import watch as watch_home

    referee_home = _home(home_path)

    def show(report: Any) -> None:
        for line in report.shown(quiet):
            _say(line)

    if watch:
        watch_home(referee_home, on_pass=show, log=lambda line: click.echo(f"watch     {_utc_now()} {line}", err=True))
        return 0
    report = run_pass(referee_home, mail=not no_mail)
    show(report)
    return 0 if report.ok else 1


@cli.command()
@click.argument(
    "directories", metavar="GAMEDIR|HOME...", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path)
)
@click.option(
    "--sendmail",
    "program",
    metavar="PROGRAM",
    envvar="REFEREE_SENDMAIL",
    help="The sendmail program (default: sendmail on PATH, else /usr/sbin/sendmail).",
)
def send(directories: tuple[Path, ...], program: str | None) -> None:
    """Hand the letters waiting in a game's outbox (or a home's outboxes) to this machine's sendmail.

    For a referee without an SMTP account in referee.yaml: the machine's mail system (Postfix,
    Exim, msmtp-mta) sends them. Each letter goes once, moved to outbox/cur/ when sendmail took
    it; a letter sendmail refuses stays in outbox/new/ for the next `referee send` (exit 1).
    A referee home (a folder with referee.yaml) means its own outbox and every game's.

    \b
    Example:
        referee send blenheim
        referee send ~/referee          # a home: its own outbox and every game's
    """
    from referee.mail.sendmail import find_sendmail, send_outbox

    sendmail = find_sendmail(program)
    failed = 0
    for directory in directories:
        report = send_outbox(directory, sendmail)
        _say(f"sent      {len(report.sent)} letter(s) from {directory} through {sendmail}")
        for handed in report.sent:
            _say(f"  {', '.join(handed.recipients)}  {handed.message_id}")
        for problem in report.failed:
            _say(f"FAILED    {problem}")
        failed += len(report.failed)
    if failed:
        raise RefereeError(
            f"{failed} letter(s) not sent (listed above); they wait in the outbox",
            hints=(
                "mend what sendmail reported (its log: journalctl, /var/log/mail.log, ~/.msmtp.log), "
                "then run `referee send` again: what was sent is not sent twice",
            ),
        )


def main() -> None:
    """Run the command line; the one place that turns errors into exit codes."""
    try:
        code = cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        _say("referee: aborted", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except AlreadyDone as done:  # a re-run of a finished operation: not a failure
        click.echo(done.message)
        sys.exit(0)
    except RefereeError as exc:
        _show_error(exc)
    except (OSError, sqlite3.Error) as exc:  # a read-only or full disk, a permission: one line and a hint
        _show_error(system_error(exc))
    except KeyboardInterrupt:
        sys.exit(130)
    if isinstance(code, int) and code:
        sys.exit(code)


def _say(message: Any = "", nl: bool = True, err: bool = False) -> None:
    """Print to the terminal: every print goes through here, because player text (notes, purposes,
    disputes, attachment names, refusals) is among it, and a control or bidi character in it must
    not rewrite the referee's screen (they are spelled out: \\x1b, \\u202e)."""
    click.echo(printable(str(message), one_line=False), nl=nl, err=err)


def _show_error(exc: RefereeError) -> NoReturn:
    """Print an error, its problems and hints (player text among them, made safe), and exit."""
    for line in error_lines(exc):
        _say(line, err=True)
    sys.exit(exc.exit_code)
