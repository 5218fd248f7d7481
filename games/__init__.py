"""The installed games, listed explicitly (the core finds a game by id here)."""

from games import cest_la_guerre, moderator, polemos_obb

GAMES = (moderator.GAME, polemos_obb.GAME, cest_la_guerre.GAME)
