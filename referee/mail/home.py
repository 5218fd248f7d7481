"""The referee's home: one folder holding many games and one configuration file.

    $REFEREE_HOME (default ~/.local/share/pbem-referee, or under $XDG_DATA_HOME)
      referee.yaml      the referee's address, mail accounts, defaults for every game
      games/NAME/       one game directory per game (made by `referee init`)
      spool/            every incoming message, raw, as SHA256.eml (nothing is ever dropped)
      outbox/           letters that concern no game: replies to strangers, alerts to the referee
      intake.sqlite     the mail ledger: which message was stored, handled and moved
      .idle-pass        what the last idle pass read, for the next to compare (referee.mail.idle)

Passwords never live in referee.yaml: it names an environment variable or a file readable by
the referee alone, and `MailAccount` never prints them.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.errors import ConfigError
from referee.game.attendance import HOME_CONFIG_NAME, check_defaults
from referee.game.config import EMAIL
from referee.game.journal import GameDir
from referee.mail.idle import home_folder
from referee.protocol.yamlsafe import StrictYAMLError, load_strict

if TYPE_CHECKING:  # ssl is loaded when a TLS context is built: a pass over `security: none` builds none
    import ssl

HOME_ENV = "REFEREE_HOME"
CONFIG_NAME = HOME_CONFIG_NAME
SECURITY = ("ssl", "starttls", "none")
DEFAULT_PORTS = {("imap", "ssl"): 993, ("imap", "starttls"): 143, ("imap", "none"): 143}
DEFAULT_PORTS |= {("smtp", "ssl"): 465, ("smtp", "starttls"): 587, ("smtp", "none"): 25}
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

EXAMPLE_CONFIG = """\
# The referee's home configuration (see README, "Running games from a mailbox").
referee:
  email: referee@example.org        # the address players send orders to
  name: The Referee
  alerts: you@example.org           # where held phases, waiting games and failures are reported
imap:
  host: imap.example.org
  security: ssl                     # ssl (port 993), starttls (143) or none (loopback tests only)
  username: referee@example.org
  password_env: REFEREE_IMAP_PASSWORD   # or password_file: /path/readable/by/you/only
  # ca_file: /etc/referee/private-ca.pem  # trust this CA too (a server with a private CA's certificate)
  inbox: INBOX
  processed: Referee/Processed      # handled mail is moved here
  rejected: Referee/Rejected        # refused, ignored or unreadable mail is moved here
smtp:
  host: smtp.example.org
  security: starttls                # ssl (465), starttls (587) or none (loopback tests only)
  username: referee@example.org
  password_env: REFEREE_SMTP_PASSWORD
defaults:                           # every game's schedule, unless its game.yaml says otherwise
  timezone: UTC
  deadline: 72h                     # or a weekday and time: "sunday 20:00"
  grace: 1h
  reminders: [24h]
  missed_orders: wait               # wait | default | absent
  absent_after: 2
  hold_if_missing: 0.5
"""


def default_home() -> Path:
    """Return the home from $REFEREE_HOME, else $XDG_DATA_HOME/pbem-referee, else ~/.local/share/pbem-referee."""
    return Path(home_folder())


@dataclass(frozen=True)
class MailAccount:
    """A mail server account; the password is read when needed and never shown."""

    protocol: str  # "imap" or "smtp"
    host: str
    port: int
    security: str
    username: str | None
    password_env: str | None = None
    password_file: Path | None = None
    folders: dict[str, str] = field(default_factory=dict)
    timeout: float = 60.0
    ca_file: Path | None = None  # PEM certificates of the CAs to trust, instead of the system's

    def tls_context(self) -> ssl.SSLContext | None:
        """Return the TLS context for this account: the system's CAs, or those of `ca_file`; None
        for `security: none`, which never uses one (building one reads every system CA: 64 ms a pass)."""
        if self.security == "none":
            return None
        import ssl

        return ssl.create_default_context(cafile=str(self.ca_file) if self.ca_file else None)

    def untrusted(self, exc: ssl.SSLCertVerificationError) -> tuple[str, tuple[str, ...]]:
        """Return the message and hints for a server certificate this account does not trust."""
        reason = exc.verify_message or exc.reason or str(exc)
        trusted = f"the CAs in {self.ca_file}" if self.ca_file else "the system's CAs"
        hint = (
            f"check that {self.host} is the right server and that ca_file holds its CA"
            if self.ca_file
            else f"if the server's certificate comes from a private CA, set ca_file: /path/to/ca.pem "
            f"under {self.protocol}: in referee.yaml (or SSL_CERT_FILE=/path/to/ca.pem in the environment)"
        )
        message = (
            f"the {self.protocol.upper()} server {self.host}:{self.port} presented a certificate not "
            f"trusted by {trusted} ({reason})"
        )
        return message, (hint,)

    def password(self) -> str | None:
        """Return the password from its environment variable or file, or raise ConfigError."""
        if self.password_env:
            value = os.environ.get(self.password_env)
            if value is None:
                raise ConfigError(
                    f"the {self.protocol} password is to come from ${self.password_env}, which is not set",
                    hints=(f"export {self.password_env}=... in the environment that runs `referee run`",),
                )
            return value
        if self.password_file:
            check_private_file(self.password_file, f"the {self.protocol} password file")
            return self.password_file.read_text(encoding="utf-8").strip()
        return None

    def __repr__(self) -> str:
        return f"MailAccount({self.protocol}://{self.username or ''}@{self.host}:{self.port}, {self.security})"

    def describe(self) -> str:
        """Return where the account points, for logs and messages (never the password)."""
        return f"{self.protocol} {self.host}:{self.port} ({self.security}) as {self.username or 'nobody'}"


@dataclass(frozen=True)
class HomeConfig:
    """referee.yaml, parsed."""

    referee_email: str
    referee_name: str
    imap: MailAccount | None
    smtp: MailAccount | None
    defaults: dict[str, Any]
    max_message_bytes: int = 25 * 1024 * 1024
    alert_email: str = ""  # where alerts for the human referee go (default: referee.email)

    @property
    def alerts_to(self) -> str:
        return self.alert_email or self.referee_email


def check_private_file(path: Path, what: str) -> None:
    """Refuse a secret file that others may read: a password must not leak through permissions."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc.strerror}") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigError(
            f"{what} {path} may be read by other users (mode {stat.S_IMODE(mode):o})",
            hints=(f"chmod 600 {path}",),
        )


@dataclass(frozen=True)
class Home:
    """A referee home folder (see the module docstring for its layout)."""

    path: Path

    @property
    def config_path(self) -> Path:
        return self.path / CONFIG_NAME

    @property
    def games_dir(self) -> Path:
        return self.path / "games"

    @property
    def spool(self) -> Path:
        return self.path / "spool"

    @property
    def outbox(self) -> Path:
        return self.path / "outbox"

    @property
    def ledger_path(self) -> Path:
        return self.path / "intake.sqlite"

    @property
    def lock_path(self) -> Path:
        return self.path / "run.lock"

    def create(self) -> Path:
        """Make the home with an example configuration (kept if one exists); return the config path."""
        self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
        for folder in (self.games_dir, self.spool, self.outbox):
            folder.mkdir(exist_ok=True, mode=0o700)
        if not self.config_path.exists():
            self.config_path.write_text(EXAMPLE_CONFIG, encoding="utf-8")
            os.chmod(self.config_path, 0o600)
        return self.config_path

    def load_config(self) -> HomeConfig:
        """Read referee.yaml, or raise ConfigError saying how to make one."""
        if not self.config_path.exists():
            raise ConfigError(
                f"there is no referee home configuration at {self.config_path}",
                hints=(
                    f"create one with: referee home init --home {self.path}",
                    f"or point ${HOME_ENV} (or --home) at your referee home",
                ),
            )
        try:
            data = load_strict(self.config_path.read_text(encoding="utf-8"))
        except StrictYAMLError as exc:
            raise ConfigError(f"{self.config_path}: {exc}") from None
        return parse_home_config(data, str(self.config_path))

    def game_dirs(self) -> Iterator[Path]:
        """Yield every game directory in the home, in name order (one that lost its journal too,
        so that the pass reports it rather than skipping the game without a word)."""
        if not self.games_dir.is_dir():
            return
        for path in sorted(self.games_dir.iterdir()):
            if GameDir(path).looks_like_a_game():
                yield path


def parse_home_config(data: Any, source: str) -> HomeConfig:
    """Return the home configuration in `data`, or raise ConfigError naming the field."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the configuration must be a YAML mapping (referee:, imap:, smtp:, defaults:)")
    unknown = sorted(set(data) - {"referee", "imap", "smtp", "defaults", "max_message_bytes"})
    if unknown:
        raise ConfigError(f"{source}: unknown field(s) {', '.join(unknown)}")
    referee = data.get("referee") or {}
    email = referee.get("email") if isinstance(referee, dict) else None
    if not isinstance(email, str) or not EMAIL.match(email):
        raise ConfigError(f"{source}: referee.email must be the address players write to, got {email!r}")
    defaults = check_defaults(data.get("defaults") or {}, source)
    limit = data.get("max_message_bytes", 25 * 1024 * 1024)
    if not isinstance(limit, int) or limit < 1024 * 1024:
        raise ConfigError(f"{source}: max_message_bytes must be a whole number of bytes, at least 1 MiB")
    alerts = referee.get("alerts", email)
    if not isinstance(alerts, str) or not EMAIL.match(alerts):
        raise ConfigError(f"{source}: referee.alerts must be the address where you want alerts, got {alerts!r}")
    return HomeConfig(
        alert_email=alerts,
        referee_email=email,
        referee_name=str(referee.get("name", "Referee")),
        imap=_account(data.get("imap"), "imap", source),
        smtp=_account(data.get("smtp"), "smtp", source),
        defaults=defaults,
        max_message_bytes=limit,
    )


FOLDER_DEFAULTS = {"inbox": "INBOX", "processed": "Referee/Processed", "rejected": "Referee/Rejected"}


def _account(value: Any, protocol: str, source: str) -> MailAccount | None:
    if value is None:
        return None
    where = f"{source}: {protocol}"
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a mapping (host, port, security, username, password_env...)")
    if "password" in value:
        raise ConfigError(
            f"{where}: a password may not be written in the configuration file",
            hints=("use password_env: VARIABLE, or password_file: PATH (chmod 600)",),
        )
    fields = {"host", "port", "security", "username", "password_env", "password_file", "timeout", "ca_file"}
    if protocol == "imap":
        fields |= set(FOLDER_DEFAULTS)
    unknown = sorted(set(value) - fields)
    if unknown:
        raise ConfigError(
            f"{where}: unknown field(s) {', '.join(unknown)}", hints=(f"known: {', '.join(sorted(fields))}",)
        )
    host = value.get("host")
    if not isinstance(host, str) or not host:
        raise ConfigError(f"{where}.host must be the server's name")
    security = value.get("security", "ssl")
    if security not in SECURITY:
        raise ConfigError(f"{where}.security must be one of {', '.join(SECURITY)}, got {security!r}")
    port = value.get("port", DEFAULT_PORTS[(protocol, security)])
    if not isinstance(port, int) or not 0 < port < 65536:
        raise ConfigError(f"{where}.port must be a port number, got {port!r}")
    env = value.get("password_env")
    if env is not None and (not isinstance(env, str) or not ENV_NAME.match(env)):
        raise ConfigError(f"{where}.password_env must name an environment variable, got {env!r}")
    secret_file = value.get("password_file")
    if secret_file is not None and not isinstance(secret_file, str):
        raise ConfigError(f"{where}.password_file must be a path")
    timeout = value.get("timeout", 60)
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise ConfigError(f"{where}.timeout must be a number of seconds")
    folders = (
        {name: value.get(name, default) for name, default in FOLDER_DEFAULTS.items()} if protocol == "imap" else {}
    )
    for name, folder in folders.items():
        if not isinstance(folder, str) or not folder:
            raise ConfigError(f"{where}.{name} must be a folder name")
    username = value.get("username")
    ca_file = _ca_file(value.get("ca_file"), where)
    return MailAccount(
        protocol=protocol,
        host=host,
        port=port,
        security=security,
        username=str(username) if username is not None else None,
        password_env=env,
        password_file=Path(secret_file).expanduser() if secret_file else None,
        folders=folders,
        timeout=float(timeout),
        ca_file=ca_file,
    )


def _ca_file(value: Any, where: str) -> Path | None:
    """Return the CA file to trust, checked now: a bad one is found at load, not at 3 a.m."""
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}.ca_file must be the path of a PEM file of CA certificates")
    path = Path(value).expanduser()
    import ssl  # deferred, as in tls_context

    try:
        ssl.create_default_context(cafile=str(path))
    except FileNotFoundError:
        raise ConfigError(
            f"{where}.ca_file: there is no file {path}",
            hints=("give the path of the PEM file of your CA's certificate (absolute, or starting with ~)",),
        ) from None
    except OSError as exc:
        if isinstance(exc, ssl.SSLError):
            raise ConfigError(
                f"{where}.ca_file: {path} holds no PEM certificate the referee can read ({exc.reason or exc})",
                hints=("it must hold one or more -----BEGIN CERTIFICATE----- blocks (PEM), not a key or DER file",),
            ) from None
        raise ConfigError(
            f"{where}.ca_file: cannot read {path}: {exc.strerror or exc}",
            hints=(f"make it readable by the user that runs the referee (chmod 644 {path})",),
        ) from None
    return path
