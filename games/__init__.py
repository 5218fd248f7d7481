"""The installed games, listed explicitly (the core finds a game by id here)."""

from games import moderator, polemos_obb

GAMES = (moderator.GAME, polemos_obb.GAME)
