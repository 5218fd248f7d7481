"""cest-la-guerre: C'est la Guerre (Cards of Combat), a battle of the age of muskets."""

from games.cest_la_guerre import picture, rules, standing
from games.cest_la_guerre.options import OPTIONS
from games.cest_la_guerre.supplies import SUPPLIES
from referee.kit import GameModule

GAME = GameModule(
    id="cest-la-guerre",
    title="C'est la Guerre (Cards of Combat): the age of muskets",
    version="2",
    scenarios=rules.SCENARIOS,
    roles=rules.roles,
    setup=rules.setup,
    phase=rules.phase,
    validate=rules.validate,
    resolve=rules.resolve,
    view=rules.view,
    check=rules.check,
    secrets=rules.secrets,
    options=OPTIONS,
    description=rules.__doc__ or "",
    templates="games.cest_la_guerre",
    standing=standing.standing,
    example=standing.example,
    supplies=SUPPLIES,
    picture=picture.picture,
)
