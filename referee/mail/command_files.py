"""Signed command files: how a player proves that a command which changes a game (absent, back,
dispute) is theirs. A mail's From line proves nothing, so such a command counts only when it
comes as a small YAML file signed with the player's key, attached or pasted like orders:

    game: blenheim
    player: marlborough
    command: absent until 2026-12-24
    nonce: 7f3a9c2e41d0b5a6

signed with `ssh-keygen -Y sign -f ~/.ssh/id_ed25519 -n pbem-command command.yaml` (or
`referee sign command.yaml`). Its own namespace keeps an order signature from being replayed as
a command; the nonce, remembered in the mail ledger, keeps a command file from being used twice.
The signature is checked before the YAML is parsed, and the file is small.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass

from referee.errors import RefereeError
from referee.mail.directory import Directory, Seat
from referee.mail.message import Command, OrderPart
from referee.protocol.canonical import sha256_hex
from referee.protocol.signatures import NAMESPACE_COMMANDS, verify
from referee.protocol.yamlsafe import StrictYAMLError, load_strict

CHANGING = ("absent", "back", "dispute")  # commands that change a game: signed, or not done
COMMAND_LINE = re.compile(rb"^command:", re.MULTILINE)
FIELDS = ("game", "player", "command", "reason", "nonce")
MAX_COMMAND_FILE = 8 * 1024
MIN_NONCE, MAX_NONCE = 8, 200
MAX_LINE, MAX_REASON = 1000, 4000  # a ready-to-sign file stays well under MAX_COMMAND_FILE
PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 ._/+-]*")
SIGN_HINT = "ssh-keygen -Y sign -f ~/.ssh/id_ed25519 -n pbem-command command.yaml"


def is_command_file(part: OrderPart) -> bool:
    """Return whether a signed file found in a mail is a command file rather than orders."""
    return any(COMMAND_LINE.search(candidate) for candidate in part.candidates)


@dataclass(frozen=True)
class CommandFile:
    """A command file whose signature is checked: the seat whose key signed it, and what it asks."""

    seat: Seat
    command: Command
    nonce: str
    sha256: str


class CommandFileError(RefereeError):
    """A command file that is not signed by the player it names, or cannot be read.

    `seat` is the player the file names, when it names one (their registered address is told)."""

    def __init__(self, message: str, seat: Seat | None = None, wrong_key: bool = False) -> None:
        super().__init__(message)
        self.seat = seat
        self.wrong_key = wrong_key


def _named_seat(directory: Directory, raw: bytes) -> Seat | None:
    """Return the seat a file names by its `game:` and `player:` lines, read without YAML."""
    game = re.search(rb"^game:[ \t]*['\"]?([A-Za-z0-9_.-]+)", raw, re.MULTILINE)
    player = re.search(rb"^player:[ \t]*['\"]?([A-Za-z0-9_.-]+)", raw, re.MULTILINE)
    if game is None or player is None:
        return None
    return directory.seat(game[1].decode(), player[1].decode())


def read_command_file(directory: Directory, part: OrderPart) -> CommandFile:
    """Check a command file's signature, then read it; raise CommandFileError saying what is wrong."""
    raw = part.candidates[0]
    named = _named_seat(directory, raw)
    if any(len(candidate) > MAX_COMMAND_FILE for candidate in part.candidates):
        raise CommandFileError(f"the command file is over {MAX_COMMAND_FILE} bytes: a command is a few lines", named)
    if not part.signature:
        raise CommandFileError(f"the command file came without its signature: sign it with `{SIGN_HINT}`", named)
    key, problem = None, ""
    for candidate in part.candidates:
        try:
            key = verify(candidate, part.signature, NAMESPACE_COMMANDS)
            raw = candidate
            break
        except RefereeError as exc:
            problem = exc.message
    if key is None:
        raise CommandFileError(
            f"the command file's signature does not check ({problem}); sign it with `{SIGN_HINT}` "
            "(the namespace is pbem-command, not pbem-orders)",
            named,
        )
    named = _named_seat(directory, raw)
    if named is None:
        raise CommandFileError("the command file names no game and player of this referee (game: and player:)")
    config = directory.configs[named.game]
    signer = config.player_by_key(key)
    if signer is None or signer.name != named.player:
        raise CommandFileError(
            f"the command file names {named.player} in {named.game} but is signed with key {key.fingerprint}, "
            f"which is not the key registered for {named.player}: sign it with your registered key",
            named,
            wrong_key=True,
        )
    command, nonce = _parse(raw, named)
    return CommandFile(named, command, nonce, sha256_hex(raw))


def _parse(raw: bytes, seat: Seat) -> tuple[Command, str]:
    try:
        data = load_strict(raw.decode("utf-8"))
    except (StrictYAMLError, UnicodeDecodeError) as exc:
        raise CommandFileError(f"the command file is not readable YAML: {exc}", seat) from None
    if isinstance(data, dict) and isinstance(data.get("nonce"), int):
        data["nonce"] = str(data["nonce"])  # a nonce of digits only
    if not isinstance(data, dict) or any(not isinstance(v, str) for v in data.values()):
        raise CommandFileError("the command file must be lines of NAME: TEXT (" + ", ".join(FIELDS) + ")", seat)
    unknown = sorted(str(k) for k in set(data) - set(FIELDS))
    if unknown:
        raise CommandFileError(f"the command file has fields the referee does not know: {', '.join(unknown)}", seat)
    words = data.get("command", "").split()
    if not words or words[0].lower() not in CHANGING:
        raise CommandFileError(f"the command file's 'command:' must be one of: {', '.join(CHANGING)}", seat)
    if words[1:2] == [seat.game]:
        words = words[:1] + words[2:]  # the game may be named again, as in a mail body
    nonce = data.get("nonce", "").strip()
    if not MIN_NONCE <= len(nonce) <= MAX_NONCE:
        raise CommandFileError(
            f"the command file needs a 'nonce:' of {MIN_NONCE} to {MAX_NONCE} characters, new for every command "
            "(any random word, or the date and time)",
            seat,
        )
    reason = data.get("reason", "").strip()
    line = " ".join(words)
    return Command(words[0].lower(), tuple(words[1:]), f"{line}\n{reason}" if reason else line), nonce


def ready_to_sign(seat: Seat, command: Command) -> bytes:
    """Return a command file for `command`, with a fresh nonce, for the player to sign and send."""
    _, _, reason = command.text.partition("\n")
    line = " ".join([command.name, *command.args])[:MAX_LINE]
    lines = [f"game: {seat.game}", f"player: {seat.player}", f"command: {_scalar(line)}"]
    reason = reason.strip()[:MAX_REASON]
    if command.name == "dispute" and reason and len(command.args) <= 1:
        lines.append("reason: |\n" + "\n".join(f"  {text}".rstrip() for text in reason.splitlines()))
    lines.append(f"nonce: {secrets.token_hex(8)}")
    return ("\n".join(lines) + "\n").encode()


def _scalar(text: str) -> str:
    """Return `text` as a YAML scalar: plain when that is safe, else double-quoted (JSON is YAML)."""
    return text if PLAIN.fullmatch(text) else json.dumps(text)
