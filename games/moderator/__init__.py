"""moderator: a verifiable game journal for any wargame (roll requests, sealed declarations, notes,
decks of cards and hidden notes)."""

from games.moderator import rules, standing
from games.moderator.letter_view import letter_view
from games.moderator.supplies import SUPPLIES
from referee.kit import GameModule
from referee.kit.procedure import sequence

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
    letter_view=letter_view,
    supplies=SUPPLIES,
    new_game_options=rules.NEW_GAME_OPTIONS,
    phase_deadlines=sequence.phase_deadlines,
)
