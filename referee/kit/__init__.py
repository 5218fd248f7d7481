"""The kit: the one surface game modules import (`from referee.kit import ...`).

It holds the game module contract (`GameModule`, `PhaseSpec`, `Event`, the `Dice` a module
draws from), the shared die-roll table engine, decks of cards, sealed choices and order schemas,
board pictures (`boards`: rows of labelled boxes coloured by state), the tabletop's geometry
(`tabletop`: not loaded here, so games without a table never import shapely; a game writes
`from referee.kit import tabletop`), and re-exports the few protocol
values a module touches (`Problem`, `Hidden`, dice specs, `thaw`).
It may import the protocol (`referee.protocol`) and the ground (`referee.errors`), never the
letters, the game directory's life or the mail; games import nothing else of `referee`.
"""

from referee.errors import GameDataError
from referee.kit import boards, decks, schema
from referee.kit.contract import (
    Dice,
    Event,
    Example,
    Fact,
    GameModule,
    InPlay,
    Label,
    PhaseSpec,
    Role,
    Secret,
    load_data,
)
from referee.kit.needs import WHENS, Need, NotSupplied, Supplies, Wanted, When, load_text, packaged_need, placeholders
from referee.kit.sealed import all_in, box_secrets, box_view, reveal_choices, seal_choice, sealed_box, waiting_for
from referee.kit.tables import Lookup, MissingTableError, Table, Tables, parse_tables, require
from referee.protocol.canonical import thaw
from referee.protocol.dice import DiceError, DiceSpec, parse_spec
from referee.protocol.hidden import Hidden
from referee.protocol.problems import Problem

__all__ = [
    "Dice",
    "DiceError",
    "DiceSpec",
    "Event",
    "Example",
    "Fact",
    "GameDataError",
    "GameModule",
    "Hidden",
    "InPlay",
    "Label",
    "Lookup",
    "Need",
    "NotSupplied",
    "MissingTableError",
    "PhaseSpec",
    "Problem",
    "Role",
    "Secret",
    "Supplies",
    "Table",
    "WHENS",
    "Wanted",
    "When",
    "Tables",
    "all_in",
    "box_secrets",
    "boards",
    "box_view",
    "decks",
    "load_data",
    "load_text",
    "packaged_need",
    "parse_spec",
    "parse_tables",
    "placeholders",
    "require",
    "reveal_choices",
    "seal_choice",
    "schema",
    "sealed_box",
    "thaw",
    "waiting_for",
]
