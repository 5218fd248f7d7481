"""Players the referee cannot reach by mail: a letter to them was refused for good by the mail
server, or came back as a bounce. Kept in the journal's meta (`unreachable`: player -> since,
why, which letter), logged, shown by `referee status`, and named in the other players' letters;
cleared by a later delivery to the player or a mail from them.
"""

from __future__ import annotations

import json
from typing import Any

from referee.game.journal import GameDir

META_KEY = "unreachable"


def unreachable_players(game_dir: GameDir) -> dict[str, dict[str, Any]]:
    """Return the unreachable players: name -> {since, reason, letter}."""
    value = game_dir.get_meta(META_KEY)
    data = json.loads(value) if value else {}
    return data if isinstance(data, dict) else {}


def mark_unreachable(game_dir: GameDir, player: str, reason: str, letter: str, since: str) -> bool:
    """Record that mail to `player` cannot be delivered; return False if it was already recorded."""
    with game_dir.lock(), game_dir.transaction():
        players = unreachable_players(game_dir)
        if player in players:
            return False
        players[player] = {"since": since, "reason": reason[:300], "letter": letter[:200]}
        game_dir.set_meta(META_KEY, json.dumps(players, sort_keys=True))
        game_dir.log("player.unreachable", {"reason": reason[:300], "letter": letter[:200]}, player=player)
    return True


def mark_reachable(game_dir: GameDir, player: str, why: str) -> bool:
    """Clear `player`'s unreachable mark; return whether there was one."""
    if player not in unreachable_players(game_dir):
        return False
    with game_dir.lock(), game_dir.transaction():
        players = unreachable_players(game_dir)
        if players.pop(player, None) is None:
            return False
        game_dir.set_meta(META_KEY, json.dumps(players, sort_keys=True))
        game_dir.log("player.reachable", {"why": why}, player=player)
    return True
