"""clash-of-sovereigns: Clash of Sovereigns (GMT, 2024), a card-driven game of the War of the
Austrian Succession for 2 to 4 players: seasons and power turns, a deck per power seat, sealed
standing reactions, Major Battles with sealed Tac cards, and the optional rules 22.1-22.10."""

from games.clash_of_sovereigns import rules, standing
from games.clash_of_sovereigns.supplies import SUPPLIES
from referee.kit import GameModule

GAME = GameModule(
    id="clash-of-sovereigns",
    title="Clash of Sovereigns: the War of the Austrian Succession, 1740-48",
    version="1",
    scenarios=rules.seats.SCENARIOS,
    roles=rules.roles,
    setup=rules.setup,
    phase=rules.phase,
    validate=rules.validate,
    resolve=rules.resolve,
    view=rules.view,
    check=rules.check,
    secrets=rules.secrets,
    in_play=rules.in_play,
    options=rules.OPTIONS,
    description=rules.__doc__ or "",
    standing=standing.standing,
    example=standing.example,
    supplies=SUPPLIES,
)
