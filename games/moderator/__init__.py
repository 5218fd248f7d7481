"""moderator: a verifiable game journal for any wargame (roll requests, sealed declarations, notes,
decks of cards and hidden notes)."""

from games.moderator import rules, sequence, standing
from games.moderator.supplies import SUPPLIES
from referee.kit import GameModule

GAME = GameModule(
    id="moderator",
    title="Moderator: a verifiable journal for any wargame",
    version="2",  # 2: decks of cards and hidden notes
    scenarios=("open",),
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
    phase_deadlines=sequence.phase_deadlines,
)
