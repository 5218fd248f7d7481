"""polemos-obb: Polemos, War of the Spanish Succession, "Obstinate and Bloody Battle" (Chris Grice).

Sealed Tempo bids, every die of combat, morale and the risk to generals rolled by a neutral
referee; in new games the battlefield is on the referee's table (option battlefield).
See README.md for what is from the book, what is reconstructed, the options and what the referee must supply.
"""

from games.polemos_obb import board_view, picture, rules, standing
from games.polemos_obb.options import NEW_GAME_OPTIONS
from games.polemos_obb.supplies import SUPPLIES
from referee.kit import GameModule

GAME = GameModule(
    id="polemos-obb",
    title='Polemos: "Obstinate and Bloody Battle" (War of the Spanish Succession)',
    version="1",
    scenarios=("combat-example", "danube-demo"),
    roles=rules.roles,
    setup=rules.setup,
    phase=rules.phase,
    validate=rules.validate,
    resolve=rules.resolve,
    view=rules.view,
    check=rules.check,
    secrets=rules.secrets,
    options=rules.OPTIONS,
    description=rules.__doc__ or "",
    templates="games.polemos_obb",
    standing=standing.standing,
    example=standing.example,
    supplies=SUPPLIES,
    new_game_options=NEW_GAME_OPTIONS,
    board=board_view.board_picture,
    picture=picture.picture,
)
