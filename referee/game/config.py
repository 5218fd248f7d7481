"""A game's configuration: module, scenario, options, the referee's tables, and the players."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import ConfigError, RefereeError
from referee.game.deadlines import parse_duration, parse_schedule
from referee.kit.tables import parse_tables
from referee.protocol.beacon import CHAIN_FIELDS, BeaconError, Chain
from referee.protocol.display import printable, shown
from referee.protocol.orders import NAME_PATTERN
from referee.protocol.signatures import PublicKey, load_public_key_file, parse_public_key
from referee.protocol.yamlsafe import StrictYAMLError, dump, load_strict

TOP_LEVEL = ("game", "module", "title", "scenario", "options", "tables", "referee", "players", "schedule", "beacon")
BEACON_FIELDS = (*CHAIN_FIELDS, "urls", "window", "timeout")
DEFAULT_BEACON_WINDOW = "72h"
DEFAULT_BEACON_TIMEOUT = 10
PLAYER_FIELDS = ("name", "email", "key", "key_file", "encrypt")
EMAIL = re.compile(r"^[^@\s<>]+@[^@\s<>]+\Z")  # \Z: `$` would let a final line break through
DEFAULT_REFEREE_EMAIL = "referee@localhost"


@dataclass(frozen=True)
class Player:
    """A player: the role they play (their name in order files), address and signing key, and
    whether their letters are encrypted to that key."""

    name: str
    email: str
    key: PublicKey
    encrypt: bool = False


@dataclass(frozen=True)
class BeaconConfig:
    """A game's public beacon (docs/protocol.md section 14): the drand chain, where to fetch its
    rounds, how long a phase without a deadline takes orders, and how long a fetch may take."""

    chain: Chain
    urls: tuple[str, ...]
    window: str = DEFAULT_BEACON_WINDOW
    timeout: int = DEFAULT_BEACON_TIMEOUT

    def as_data(self) -> dict[str, Any]:
        return {**self.chain.as_data(), "urls": list(self.urls), "window": self.window, "timeout": self.timeout}


@dataclass(frozen=True)
class GameConfig:
    """A game's configuration as `referee init` read it."""

    game: str
    module: str
    title: str
    scenario: str | None
    options: dict[str, Any]
    tables: dict[str, Any] | None
    referee_email: str
    referee_name: str
    players: tuple[Player, ...] = field(default=())
    schedule: dict[str, Any] = field(default_factory=dict)  # over the referee home's defaults
    beacon: BeaconConfig | None = None

    def player(self, name: str) -> Player | None:
        """Return the player with this name, or None."""
        return next((p for p in self.players if p.name == name), None)

    def player_by_key(self, key: PublicKey) -> Player | None:
        """Return the player who registered this key, or None."""
        return next((p for p in self.players if p.key == key), None)

    def module_options(self) -> dict[str, Any]:
        """Return the options given to the module: the configured ones plus the referee's tables."""
        return {**self.options, **({"tables": self.tables} if self.tables else {})}

    def as_data(self) -> dict[str, Any]:
        """Return the configuration as plain data with keys and tables inline (what the game directory keeps)."""
        return {
            "game": self.game,
            "module": self.module,
            "title": self.title,
            "scenario": self.scenario,
            "options": self.options,
            "tables": self.tables,
            "referee": {"email": self.referee_email, "name": self.referee_name},
            "players": [_player_data(p) for p in self.players],
            **({"schedule": self.schedule} if self.schedule else {}),
            **({"beacon": self.beacon.as_data()} if self.beacon else {}),
        }


def _player_data(player: Player) -> dict[str, Any]:
    data: dict[str, Any] = {"name": player.name, "email": player.email, "key": player.key.line()}
    if player.encrypt:  # only when asked, so that the game.yaml of every other game reads as before
        data["encrypt"] = True
    return data


def load_config_file(path: Path) -> GameConfig:
    """Read a configuration file; key files and a tables file are read relative to it."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the configuration {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text") from None
    try:
        data = load_strict(text)
    except StrictYAMLError as exc:
        raise ConfigError(
            f"{path}: {exc}", hints=("correct the YAML at that place (a backup or `git diff` shows what changed)",)
        ) from None
    return parse_config(data, Path(path).parent, str(path))


def parse_config(data: Any, base: Path, source: str) -> GameConfig:
    """Return the configuration in `data`, or raise ConfigError naming the file and field."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the configuration must be a YAML mapping (game:, module:, players: ...)")
    unknown = sorted(set(data) - set(TOP_LEVEL))
    if unknown:
        raise ConfigError(
            f"{source}: unknown field(s) {', '.join(unknown)}", hints=(f"known fields: {', '.join(TOP_LEVEL)}",)
        )
    game = _name(data, "game", source)
    module = _name(data, "module", source)
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise ConfigError(f"{source}: 'options' must be a mapping")
    referee = data.get("referee") or {}
    if not isinstance(referee, dict) or set(referee) - {"email", "name"}:
        raise ConfigError(f"{source}: 'referee' must be a mapping with 'email' and 'name'")
    referee_email = referee.get("email", DEFAULT_REFEREE_EMAIL)
    if not isinstance(referee_email, str) or not EMAIL.match(referee_email):
        raise ConfigError(f"{source}: referee.email {shown(referee_email)} is not an e-mail address")
    players = _players(data.get("players"), base, source)
    scenario = data.get("scenario")
    if scenario is not None and not isinstance(scenario, str):
        raise ConfigError(f"{source}: 'scenario' must be a name")
    schedule = data.get("schedule") or {}
    parse_schedule(schedule, f"{source}: schedule")  # a bad deadline is refused at init, not at the deadline
    return GameConfig(
        game=game,
        module=module,
        title=_one_line(data.get("title") or game, "title", source),
        scenario=scenario,
        options=options,
        tables=_tables(data.get("tables"), base, source),
        referee_email=referee_email,
        referee_name=_one_line(referee.get("name", "Referee"), "referee.name", source),
        players=players,
        schedule=schedule,
        beacon=_beacon(data.get("beacon"), f"{source}: beacon"),
    )


def _name(data: dict, key: str, source: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not NAME_PATTERN.match(value):
        raise ConfigError(
            f"{source}: '{key}' must be a name of lower-case letters, digits, '-', '_' or '.', got {shown(value)}"
        )
    return value


def _one_line(value: Any, key: str, source: str) -> str:
    """A title or a name that letters print and mail headers carry: one line of text."""
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise ConfigError(f"{source}: '{key}' must be a text, got {shown(value)}")
    text = str(value)
    if printable(text) != text:
        raise ConfigError(
            f"{source}: '{key}' holds a line break or another control character: {shown(text)}",
            hints=(f"write '{key}' on one line, without control characters",),
        )
    return text


def _players(entries: Any, base: Path, source: str) -> tuple[Player, ...]:
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{source}: 'players' must be a list of players (name, email, key or key_file)")
    players: list[Player] = []
    for index, entry in enumerate(entries):
        where = f"{source}: players[{index}]"
        if not isinstance(entry, dict) or set(entry) - set(PLAYER_FIELDS):
            raise ConfigError(f"{where} must be a mapping with only {', '.join(PLAYER_FIELDS)}")
        name = _name(entry, "name", where)
        email = entry.get("email")
        if not isinstance(email, str) or not EMAIL.match(email):
            raise ConfigError(f"{where} ({name}): 'email' {shown(email)} is not an e-mail address")
        try:
            if "key" in entry and isinstance(entry["key"], str):
                key = parse_public_key(entry["key"])
            elif isinstance(entry.get("key_file"), str):
                key = load_public_key_file(base / entry["key_file"])
            else:
                raise ConfigError(f"{where} ({name}): give 'key' (a public key line) or 'key_file' (a .pub file)")
        except RefereeError as exc:
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(f"{where} ({name}): {exc.message}", exc.hints) from None
        if any(p.name == name for p in players):
            raise ConfigError(f"{where}: the name '{name}' is used twice")
        if any(p.key == key for p in players):
            raise ConfigError(
                f"{where} ({name}): the same key is registered for two players",
                hints=("each player signs with a key of their own",),
            )
        players.append(Player(name, email, key, _encrypt(entry, key, f"{where} ({name})")))
    return tuple(players)


def _encrypt(entry: dict, key: PublicKey, where: str) -> bool:
    encrypt = entry.get("encrypt", False)
    if not isinstance(encrypt, bool):
        raise ConfigError(f"{where}: 'encrypt' must be true or false, got {shown(encrypt)}")
    if not encrypt:
        return False
    # deferred: the letters layer (email, templates) is not needed to read a game's configuration
    from referee.letters.encryption import UNSUPPORTED_KEY_HINT, can_encrypt_to

    if not can_encrypt_to(key):
        raise ConfigError(
            f"{where}: 'encrypt: true', but age cannot encrypt to this player's {key.key_type} key",
            hints=(UNSUPPORTED_KEY_HINT,),
        )
    return encrypt


def _tables(value: Any, base: Path, source: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if isinstance(value, str):
        path = base / value
        try:
            value = load_strict(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"{source}: cannot read the tables file {path}: {exc.strerror}") from None
        except StrictYAMLError as exc:
            raise ConfigError(f"{path}: {exc}") from None
        source = str(path)
    parse_tables(value, source)  # refuses a malformed table now, not in the middle of a game
    return value


def _beacon(value: Any, where: str) -> BeaconConfig | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - set(BEACON_FIELDS):
        raise ConfigError(
            f"{where} must be a mapping with only {', '.join(BEACON_FIELDS)}",
            hints=("see 'A public beacon' in docs/protocol.md for a drand chain's values",),
        )
    try:
        chain = Chain.from_data({key: value.get(key) for key in CHAIN_FIELDS if key in value})
    except BeaconError as exc:
        raise ConfigError(f"{where}: {exc}", hints=("the chain's values are at <url>/<chain_hash>/info",)) from None
    urls = value.get("urls")
    if isinstance(urls, str):
        urls = [urls]
    if not isinstance(urls, list) or not urls or not all(_is_http_url(url) for url in urls):
        raise ConfigError(f"{where}: 'urls' must list the http(s) addresses to fetch rounds from")
    window = value.get("window", DEFAULT_BEACON_WINDOW)
    parse_duration(window, f"{where}: window")
    timeout = value.get("timeout", DEFAULT_BEACON_TIMEOUT)
    if not isinstance(timeout, int) or isinstance(timeout, bool) or not 1 <= timeout <= 300:
        raise ConfigError(f"{where}: 'timeout' must be a number of seconds from 1 to 300")
    return BeaconConfig(chain, tuple(url.rstrip("/") for url in urls), window, timeout)


def _is_http_url(url: Any) -> bool:
    return isinstance(url, str) and url.startswith(("http://", "https://")) and not any(c.isspace() for c in url)


def config_yaml(config: GameConfig) -> bytes:
    """Return the configuration as the YAML the game directory keeps."""
    return dump(config.as_data()).encode("utf-8")
