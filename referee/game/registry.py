"""The installed games, found by id (an explicit list in `games.GAMES`, like godip's variants)."""

from __future__ import annotations

import importlib

from referee.errors import ConfigError
from referee.kit import GameModule


def all_games() -> tuple[GameModule, ...]:
    """Return every installed game module."""
    import games  # deferred: the games read their data files at import, which only opening a game needs

    return tuple(games.GAMES)


def find_game(game_id: str) -> GameModule:
    """Return the game module with this id, or raise ConfigError naming the installed ones."""
    import games  # deferred, as above

    if "GAMES" not in vars(games) and game_id in games.PACKAGES:  # not all loaded (nor replaced by a test)
        game: GameModule = importlib.import_module(games.PACKAGES[game_id]).GAME
        if game.id == game_id:
            return game
    for game in all_games():
        if game.id == game_id:
            return game
    known = ", ".join(game.id for game in all_games())
    raise ConfigError(f"no game module named '{game_id}'", hints=(f"installed games: {known}",))
