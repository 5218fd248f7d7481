"""An opened game directory: its configuration, its game module, the referee's signing key, its
schedule and its letterhead; and how commands name one of its phases (TURN/PHASE).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from referee.errors import RefereeError
from referee.game.attendance import game_schedule, home_defaults
from referee.game.config import GameConfig, parse_config
from referee.game.deadlines import Schedule
from referee.game.journal import GameDir, unmade_error
from referee.game.registry import find_game
from referee.kit.contract import GameModule
from referee.letters.post import Letterhead
from referee.protocol.hidden import game_commitment
from referee.protocol.signatures import NAMESPACE_REFEREE, load_private_key, sign
from referee.protocol.yamlsafe import load_strict


@dataclass
class Game:
    """An opened game directory: its configuration, module and signing key."""

    dir: GameDir
    config: GameConfig
    module: GameModule

    @classmethod
    def open(cls, path: Path) -> Game:
        """Open the game in `path`, or raise StateError if there is none."""
        game_dir = GameDir(path).require()
        if not game_dir.config.exists():
            raise unmade_error(game_dir)
        data = load_strict(game_dir.config.read_text(encoding="utf-8"))
        config = parse_config(data, game_dir.path, str(game_dir.config))
        return cls(game_dir, config, find_game(config.module))

    @cached_property
    def referee_key_line(self) -> str:
        """The referee's public key line, as letters print it."""
        return self.dir.public_key.read_text(encoding="utf-8").strip()

    @property
    def hidden_commit(self) -> str | None:
        """The commitment to the game's hidden-draw secret, which every notice states."""
        secret = self.dir.hidden_secret()
        return game_commitment(secret) if secret else None

    @cached_property
    def schedule(self) -> Schedule:
        """The game's schedule: its game.yaml `schedule:` over its referee home's defaults (a game
        directory in HOME/games/ has a home); read once per command, not once per letter."""
        return game_schedule(self.config, home_defaults(self.dir.path))

    @cached_property
    def _private_key(self) -> Any:
        return load_private_key(self.dir.key)

    def sign(self, data: bytes) -> str:
        """Return the referee's `pbem-referee` signature of `data`."""
        return sign(data, self._private_key, NAMESPACE_REFEREE)

    @cached_property
    def letterhead(self) -> Letterhead:
        """What every letter of this game shares (its referee, players and folders), for `referee.letters`."""
        return Letterhead(
            game=self.config.game,
            title=self.config.title,
            referee_name=self.config.referee_name,
            referee_email=self.config.referee_email,
            referee_key=self.referee_key_line,
            sign=self.sign,
            mail_dir=self.dir.mail,
            outbox=self.dir.outbox,
            players=self.config.players,
            module=self.module,
        )

    def envelope(self, digest: str) -> dict[str, Any]:
        """Return the stored state with this hash (the core's envelope around the module's state)."""
        return self.dir.load_state(digest)


def parse_expect(text: str) -> tuple[int, str]:
    """Parse `TURN/PHASE` as `--expect` takes it."""
    turn, _, phase = text.partition("/")
    if not turn.isdigit() or not phase:
        raise RefereeError(f"--expect {text!r} is not TURN/PHASE", hints=("for example: --expect 3/round",))
    return int(turn), phase
