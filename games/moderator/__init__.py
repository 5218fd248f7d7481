"""moderator: a verifiable game journal for any wargame (roll requests, sealed declarations, notes)."""

from games.moderator import rules
from referee.api import GameModule

GAME = GameModule(
    id="moderator",
    title="Moderator: a verifiable journal for any wargame",
    version="1",
    scenarios=("open",),
    roles=rules.roles,
    setup=rules.setup,
    phase=rules.phase,
    validate=rules.validate,
    resolve=rules.resolve,
    view=rules.view,
    check=rules.check,
    options=rules.OPTIONS,
    description=rules.__doc__ or "",
)
