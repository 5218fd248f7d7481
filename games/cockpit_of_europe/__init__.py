"""cockpit-of-europe: Cockpit of Europe (Lace Wars series, exclusive rules, 3rd edition), the War
of the Austrian Succession in Flanders, 1744-1748, for two players: what the exclusive rules fix
adjudicated, the board and the series procedures journalled (README.md)."""

from games.cockpit_of_europe import rules, standing, views
from games.cockpit_of_europe.model import OPTIONS, SCENARIOS, roles
from games.cockpit_of_europe.supplies import SUPPLIES
from referee.kit import GameModule

GAME = GameModule(
    id="cockpit-of-europe",
    title="Cockpit of Europe",
    version="1",
    scenarios=tuple(SCENARIOS),
    roles=roles,
    setup=rules.setup,
    phase=rules.phase,
    validate=rules.validate,
    resolve=rules.resolve,
    view=views.view,
    check=rules.check,
    secrets=views.secrets,
    in_play=views.in_play,
    options=OPTIONS,
    description=rules.__doc__ or "",
    standing=standing.standing,
    example=standing.example,
    supplies=SUPPLIES,
)
