"""The installed games, listed explicitly (the core finds a game by id here)."""

from games import moderator

GAMES = (moderator.GAME,)
