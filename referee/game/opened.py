"""An opened game directory: its configuration, its game module, the referee's signing key, its
schedule and its letterhead; and how commands name one of its phases (TURN/PHASE).
"""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.errors import KeyFileError, RefereeError
from referee.game.attendance import game_schedule, home_defaults
from referee.game.config import GameConfig, load_config_file
from referee.game.deadlines import Schedule
from referee.game.journal import GameDir, OpenPhase, unmade_error
from referee.game.pinning import check_module_version, check_pinned, pin
from referee.game.registry import find_game
from referee.game.unreachable import unreachable_players
from referee.kit.contract import GameModule
from referee.protocol.hidden import game_commitment
from referee.protocol.signatures import (
    NAMESPACE_REFEREE,
    PublicKey,
    load_private_key,
    load_public_key_file,
    public_key_of,
    sign,
)

if TYPE_CHECKING:  # the letters layer (email, templates) loads when a letter is written, not when a game opens
    from referee.letters.post import Letterhead


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
        game_dir.db  # noqa: B018 - opening the journal checks it: a lost or damaged one is refused here
        if not game_dir.config.exists():
            raise unmade_error(game_dir)
        config = load_config_file(game_dir.config)  # a YAML error names the file, line and column
        check_pinned(game_dir, config)
        game = cls(game_dir, config, find_game(config.module))
        check_module_version(game_dir, game.module)
        if pin(game_dir, config):  # a game made before the pin (and its letters kept a file each), on first open
            for phase in game_dir.phases():
                if any((game_dir.mail / phase.folder).glob("*.notice.txt")):
                    game.keep_notice_deadline(phase)
        return game

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

    def keep_notice_deadline(self, phase: OpenPhase) -> None:
        """Record in the journal the deadline rule the phase's notices state (the first time only),
        so that a later change of the schedule or of the home's defaults changes no notice sent."""
        self.dir.keep_meta(_deadline_key(phase), json.dumps(self.schedule.rule(phase.phase)))

    def notice_deadline(self, phase: OpenPhase) -> str | None:
        """Return the deadline rule the phase's notices state: the one recorded when they were
        written, or (for a phase being opened) the rule of the schedule in force now."""
        recorded = self.dir.get_meta(_deadline_key(phase))
        if recorded is None:
            return self.schedule.rule(phase.phase)
        rule = json.loads(recorded)
        return rule if isinstance(rule, str) else None

    @cached_property
    def _private_key(self) -> tuple[Any, PublicKey]:
        """The referee's signing key, once it is known to be private and to match referee.pub,
        with that public key (which every signature carries)."""
        path = self.dir.key
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = 0o600  # load_private_key says the key is missing, and how to make one
        if mode & 0o077:
            raise KeyFileError(
                f"the referee's key {path} can be read by others (mode {mode:04o}): the referee will not sign "
                "with a key that may have been copied",
                hints=(f"make it private: chmod 600 {path}", "if others may have copied it, start a new game"),
            )
        key = load_private_key(path)
        public = load_public_key_file(self.dir.public_key)
        if public_key_of(key) != public:
            raise KeyFileError(
                f"the referee's key {path} does not match {self.dir.public_key} ({public.fingerprint}): "
                "the players check every letter against referee.pub, so nothing signed with it would verify",
                hints=(
                    f"restore the key pair of this game (both files) from a backup of {self.dir.path}",
                    f"`ssh-keygen -y -f {path}` prints the public key that matches the private one",
                ),
            )
        return key, public

    def sign(self, data: bytes) -> str:
        """Return the referee's `pbem-referee` signature of `data`."""
        key, public = self._private_key
        return sign(data, key, NAMESPACE_REFEREE, public)

    @cached_property
    def letterhead(self) -> Letterhead:
        """What every letter of this game shares (its referee, players and folders), for `referee.letters`."""
        from referee.letters.post import Letterhead  # deferred: see TYPE_CHECKING above

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
            unreachable=tuple(sorted(unreachable_players(self.dir))),
            packed=self.dir.letters_packed,
            acks_packed=self.dir.acks_packed,
        )

    def envelope(self, digest: str) -> dict[str, Any]:
        """Return the stored state with this hash (the core's envelope around the module's state)."""
        return self.dir.load_state(digest)


def _deadline_key(phase: OpenPhase) -> str:
    return f"notice.deadline:{phase.folder}"


def parse_expect(text: str) -> tuple[int, str]:
    """Parse `TURN/PHASE` as `--expect` takes it."""
    turn, _, phase = text.partition("/")
    if not turn.isdigit() or not phase:
        raise RefereeError(f"--expect {text!r} is not TURN/PHASE", hints=("for example: --expect 3/round",))
    return int(turn), phase
