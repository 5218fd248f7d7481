"""A referee home wired to real servers: Dovecot (IMAP) and aiosmtpd (SMTP) on loopback."""

from __future__ import annotations

import itertools
import shutil
import smtplib
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import pytest

from referee.game.engine import init_game
from referee.mail.home import Home
from referee.mail.run import PassReport, run_pass
from referee.protocol.signatures import (
    NAMESPACE_COMMANDS,
    NAMESPACE_ORDERS,
    generate_keypair,
    load_private_key,
    sign,
)

from conftest import GAME_ID, TABLES, indent
from mailservers import Dovecot, SmtpServer, dovecot_available

REFEREE = "referee@example.org"
ALERTS = "gm@example.org"
PASSWORD_ENV = "REFEREE_TEST_IMAP_PASSWORD"
_users = itertools.count(1)


@pytest.fixture(scope="session")
def dovecot() -> Iterator[Dovecot]:
    if not dovecot_available():
        pytest.skip("Dovecot is not installed: scripts/test installs dovecot-imapd")
    # Not under pytest's private tmp folder: Dovecot's own users must be able to reach the files.
    root = Path(tempfile.mkdtemp(prefix="referee-dovecot-"))
    root.chmod(0o755)
    server = Dovecot(root).start()
    yield server
    server.stop()
    shutil.rmtree(root, ignore_errors=True)


@dataclass
class MailWorld:
    """A referee home with one game, its IMAP account and an SMTP server, and the players' keys."""

    home: Home
    dovecot: Dovecot
    smtp: SmtpServer
    user: str
    keys: dict[str, Path]
    players: tuple[str, ...]
    game_dirs: dict[str, Path] = field(default_factory=dict)

    def address(self, player: str) -> str:
        return f"{player}@example.org"

    def order(self, player: str, turn: int, orders: str, seq: int | None = None, game: str = GAME_ID) -> bytes:
        head = f"game: {game}\nturn: {turn}\nphase: round\nplayer: {player}\n"
        head += f"seq: {seq}\n" if seq is not None else ""
        return (head + "orders:\n" + indent(orders if orders.endswith("\n") else orders + "\n")).encode()

    def signature(self, player: str, raw: bytes) -> bytes:
        return sign(raw, load_private_key(self.keys[player]), NAMESPACE_ORDERS).encode()

    def orders_mail(
        self, player: str, raw: bytes, inline: bool = False, sender: str | None = None, **headers: str
    ) -> bytes:
        """Return a player's mail carrying a signed order file (attached, or pasted inline)."""
        message = EmailMessage()
        message["From"] = sender or self.address(player)
        message["To"] = REFEREE
        message["Subject"] = "orders"
        message["Message-ID"] = make_msgid(domain="example.org")
        for name, value in headers.items():
            message[name.replace("_", "-")] = value
        signature = self.signature(player, raw)
        if inline:
            message.set_content(raw.decode() + signature.decode())
        else:
            message.set_content("My orders are attached.\n")
            message.add_attachment(raw, maintype="application", subtype="yaml", filename="orders.yaml")
            message.add_attachment(
                signature, maintype="application", subtype="octet-stream", filename="orders.yaml.sig"
            )
        return bytes(message)

    def command_file(self, player: str, line: str, game: str = GAME_ID, nonce: str | None = None) -> bytes:
        """Return a command file (docs/mail.md) for `line`, e.g. "absent until 2026-12-24"."""
        nonce = nonce or make_msgid().strip("<>").split("@")[0]
        return f"game: {game}\nplayer: {player}\ncommand: {line}\nnonce: {nonce}\n".encode()

    def command_mail(self, player: str, raw: bytes, signer: str | None = None, sender: str | None = None) -> bytes:
        """Return a mail carrying a command file and its signature (pbem-command) by `signer`'s key."""
        message = EmailMessage()
        message["From"] = sender or self.address(player)
        message["To"] = REFEREE
        message["Subject"] = "command"
        message["Message-ID"] = make_msgid(domain="example.org")
        message.set_content("My command is attached.\n")
        signature = sign(raw, load_private_key(self.keys[signer or player]), NAMESPACE_COMMANDS).encode()
        message.add_attachment(raw, maintype="application", subtype="yaml", filename="command.yaml")
        message.add_attachment(signature, maintype="application", subtype="octet-stream", filename="command.yaml.sig")
        return bytes(message)

    def text_mail(self, sender: str, body: str, **headers: str) -> bytes:
        message = EmailMessage()
        message["From"] = sender
        message["To"] = REFEREE
        message["Subject"] = "hello"
        message["Message-ID"] = make_msgid(domain="example.org")
        for name, value in headers.items():
            message[name.replace("_", "-")] = value
        message.set_content(body)
        return bytes(message)

    def deliver(self, raw: bytes) -> None:
        """Put a mail straight into the referee's INBOX."""
        self.dovecot.deliver(self.user, raw)

    def send(self, raw: bytes, sender: str) -> None:
        """Send a mail through the SMTP server, as a player's mail client would."""
        with smtplib.SMTP("127.0.0.1", self.smtp.port) as client:
            client.sendmail(sender, [REFEREE], raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))

    def run(self, **kwargs: Any) -> PassReport:
        report = run_pass(self.home, **kwargs)
        assert not report.skipped
        return report

    def folder(self, name: str) -> list[bytes]:
        """Return the raw messages in INBOX, or in the default Processed or Rejected folder."""
        folder = name if name == "INBOX" else f"Referee.{name}"  # Dovecot's maildir separator is "."
        return self.dovecot.messages(self.user, folder)

    def letters(self, player: str) -> list[Any]:
        return self.smtp.letters_to(self.address(player))


def write_home(home: Path, imap_port: int, smtp_port: int, user: str, extra: str = "") -> Home:
    referee_home = Home(home)
    referee_home.create()
    referee_home.config_path.write_text(
        f"""referee:
  email: {REFEREE}
  name: Test Referee
  alerts: {ALERTS}
imap:
  host: 127.0.0.1
  port: {imap_port}
  security: none
  username: {user}
  password_env: {PASSWORD_ENV}
smtp:
  host: 127.0.0.1
  port: {smtp_port}
  security: none
{extra}"""
    )
    return referee_home


def add_game(
    world: MailWorld,
    name: str,
    players: Sequence[str],
    schedule: str = "",
    setup: Path | None = None,
    extra: Sequence[str] = (),
) -> Path:
    setup = setup or world.home.path.parent / f"setup-{name}"
    (setup / "keys").mkdir(parents=True, exist_ok=True)
    for player in players:
        if player not in world.keys:
            world.keys[player] = setup / "keys" / player
            generate_keypair(world.keys[player], comment=f"{player}@example.org")
    lines = [
        f"game: {name}",
        "module: moderator",
        "title: Mail test game",
        "options: {}",
        f"referee: {{email: {REFEREE}, name: Test Referee}}",
        "players:",
        *(
            f"  - {{name: {p}, email: {p}@example.org, key: '{world.keys[p].with_suffix('.pub').read_text().strip()}'}}"
            for p in players
        ),
        "tables: tables.yaml",
    ]
    if schedule:
        lines.append("schedule:\n" + indent(schedule))
    lines += extra  # more game.yaml lines, e.g. a beacon
    (setup / "tables.yaml").write_text(TABLES)
    (setup / "game.yaml").write_text("\n".join(lines) + "\n")
    game_dir = world.home.games_dir / name
    init_game(game_dir, setup / "game.yaml")
    world.game_dirs[name] = game_dir
    return game_dir


@pytest.fixture
def mail_world(tmp_path: Path, dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch) -> Iterator[MailWorld]:
    """A home with game GAME_ID (alice, bob, carol), an empty referee mailbox and an SMTP server."""
    user = f"referee{next(_users)}"
    monkeypatch.setenv(PASSWORD_ENV, dovecot.password)
    smtp = SmtpServer(dovecot, {REFEREE: user}).start()
    home = write_home(tmp_path / "home", dovecot.port, smtp.port, user)
    world = MailWorld(home, dovecot, smtp, user, {}, ("alice", "bob", "carol"))
    add_game(world, GAME_ID, world.players)
    world.run()  # sends the first phase's notices, so each test sees only the letters it causes
    smtp.clear()
    yield world
    smtp.stop()
