"""empires-in-arms: Empires in Arms (Napoleonic grand strategy, 1805-1815) run as a procedure
journal, with the 23 optional rules of chapter 12.0 adjudicated by the module. See README.md for
what is from the book, what the referee supplies, and the options."""

from games.empires_in_arms import rules, standing
from games.empires_in_arms.supplies import SUPPLIES
from referee.kit import GameModule
from referee.kit.procedure import sequence

GAME = GameModule(
    id="empires-in-arms",
    title="Empires in Arms, with the chapter 12.0 optional rules",
    version="1",
    scenarios=rules.SCENARIOS,
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
    standing=standing.standing,
    example=standing.example,
    supplies=SUPPLIES,
    phase_deadlines=sequence.phase_deadlines,
)
