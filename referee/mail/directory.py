"""Who plays where: every game in the referee's home by id, and every player's address."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from referee.errors import RefereeError
from referee.game.config import GameConfig, parse_config
from referee.game.journal import GameDir
from referee.mail.home import Home
from referee.protocol.yamlsafe import load_strict


@dataclass(frozen=True)
class Seat:
    """One player's place in one game."""

    game: str
    path: Path
    player: str
    email: str


@dataclass
class Directory:
    games: dict[str, Path] = field(default_factory=dict)
    configs: dict[str, GameConfig] = field(default_factory=dict)
    seats: dict[str, list[Seat]] = field(default_factory=dict)  # by lower-cased address
    broken: dict[Path, str] = field(default_factory=dict)  # game folders whose configuration cannot be read

    @classmethod
    def load(cls, home: Home) -> Directory:
        directory = cls()
        for path in home.game_dirs():
            game_dir = GameDir(path)
            try:
                data = load_strict(game_dir.config.read_text(encoding="utf-8"))
                config = parse_config(data, path, str(game_dir.config))
            except (RefereeError, OSError, ValueError) as exc:
                directory.broken[path] = str(exc)
                continue
            directory.games[config.game] = path
            directory.configs[config.game] = config
            for player in config.players:
                seat = Seat(config.game, path, player.name, player.email)
                directory.seats.setdefault(player.email.lower(), []).append(seat)
        return directory

    def seat(self, game: str, player: str) -> Seat | None:
        """Return the seat of `player` in `game`, if both exist."""
        config = self.configs.get(game)
        found = config.player(player) if config is not None else None
        return Seat(game, self.games[game], found.name, found.email) if found is not None else None

    def seats_of(self, address: str | None) -> list[Seat]:
        return list(self.seats.get(address.lower(), [])) if address else []
