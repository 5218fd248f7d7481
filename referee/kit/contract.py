"""The game module contract: what a game is (`GameModule`), what the core hands it (`Dice`) and
what it hands back (`PhaseSpec`, `Event`, `Problem`). Games import it through `referee.kit`.

A game module is a value (`GameModule`) holding pure functions over plain data:

    setup(scenario, players, options) -> state
    phase(state) -> PhaseSpec, or None when the game is over
    validate(state, player, orders) -> list[Problem]          (empty: accepted)
    resolve(state, orders_by_player, dice) -> (state, events)  (must not mutate `state`)
    view(state, player or None) -> dict                        (None: the public view)
    check(state) -> list[str]                                  (broken invariants, for tests)
    secrets(state) -> list[Secret]                             (hidden fields, for the leak test)
    in_play(state) -> list[InPlay]                             (hidden draws still hiding something)
    picture(view, player, events) -> scene or None             (a picture of the table: kit.tabletop.picture)
    board(view, player) -> board scene or None                 (a picture of a player's forces: kit.boards)
    supplies: needs, wanted(state), supply(state, need, data)  (what the referee supplies: referee.kit.needs)
    standing(state, player) -> list[Fact]                      (where a player stands, for their letters)
    example(state, player) -> Example or None                  (a player's own order form)

`view` is the only way a letter learns the state. `secrets` names each hidden leaf of the
state (a JSON pointer) with the roles entitled to see it; the contract tests put a marker in
each and fail if one reaches anyone else's view, notice or report.

`standing` says where a player stands, in a few short facts every notice and report shows
near its top: their points, their hand, their units and their state, what is awaited from them.
`example` fills in the open phase's order form for one player, with their own ids and legal
choices and a note on what each field takes ("1 to 7: your TP"); without it (or when it gives
None) the form is the phase's `example`. Its `fields`, when given, narrow the form and the
field reference of that player's notice to what they may give (a phase whose seats give
different fields). Both are drawn from the player's own view, never from
what it hides: the leak test changes every hidden leaf a player may not see and fails if either
answer changes.

`picture` draws the table for a player's letters (a scene, `referee.kit.tabletop.picture`):
it is handed that player's view and, in a report, the events of the phase they see (none in a
notice), never the state, so a picture can show nothing their letter does not already say.

`board` draws where a player's forces stand (an army board: rows of boxes coloured by state,
`referee.kit.boards`) for their notices and reports, from their view alone, like `picture`.

`in_play` names the hidden draws whose values some player still may not know (a deck with
cards in hands or in its draw pile, a sealed note not yet opened), so that `referee reveal
--draw` can refuse to open them mid-game. A module that leaves it out (None) is asked
`secrets` instead: any hidden leaf left in its state makes every hidden draw count as in play.

`setup` gets no dice on purpose: the first commitment is published only when the first
phase opens, so any random set-up belongs in a game's first adjudicated phase, where every
player can check it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from referee.kit.needs import Supplies, data_text
from referee.protocol.hidden import Hidden
from referee.protocol.problems import Problem

Role = str
Label = str
# A hidden leaf of a game's state: its JSON pointer ("/units/3/strength") and the roles that
# may see it (none: only the referee, until a rule reveals it).
Secret = tuple[str, tuple[Role, ...]]
T = TypeVar("T")


@dataclass(frozen=True)
class InPlay:
    """A hidden draw that still hides something from some player: revealing its key now would
    open `what` to every player. `what` is told to every player if the referee reveals it
    anyway, so it names places and counts, never a hidden value."""

    label: Label  # the hidden draw's label (`deck/events/shuffle-1`); * and ? match several
    what: str  # e.g. "the draw pile of events (5 cards) to every player"


@dataclass(frozen=True)
class Fact:
    """One fact of where a player stands: what it is, what it says, and any items listed under it.

    E.g. Fact("Tempo points", "7") or Fact("Your hand", "2 cards", ("Ambush", "Forced march")).
    `table`, when given, is shown under it as a table: its first row the headings, every row as
    many cells; a text letter aligns its columns (keep a row within 72 characters), an HTML one
    draws a <table>.
    """

    name: str
    value: str = ""
    items: tuple[str, ...] = ()
    table: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class Example:
    """A player's own order form for the open phase: `orders` filled in with their ids and legal
    choices (orders the rules accept as sent, where the phase allows), and `notes` saying what a
    field takes, by its path in the order file ("orders.bid": "1 to 7: your TP",
    "orders.allocate[0].general": "one of yours: ..."). A field without a note is described
    by its schema."""

    orders: Any
    notes: Mapping[str, str] = field(default_factory=dict)
    # The top-level order fields this player may give now, when fewer than the phase's schema
    # takes from all its players (a mover's card, an opponent's reactions); the form and the
    # reference in their notice name only these. None: every field of the schema.
    fields: tuple[str, ...] | None = None


ANY_MAPPING: Mapping[str, Any] = {"type": "map", "fields": {}}


class Dice(Protocol):
    """The only randomness a module may use. Every draw is labelled and publicly recorded."""

    def roll(self, spec: str, *, label: Label) -> list[int]:
        """Roll `2d6`, `1d10`, `1d10z` (a d10 read 0-9)...; return each die's value."""
        ...

    def uniform(self, n: int, *, label: Label) -> int:
        """Return an unbiased integer in 0..n-1."""
        ...

    def shuffle(self, items: Sequence[T], *, label: Label) -> list[T]:
        """Return `items` in a shuffled order."""
        ...

    # Hidden draws: the record commits to each value without showing it. Give an owner
    # `hidden.opening(i)` in an event's data["openings"] (a list) visible to them, and everyone
    # in an event visible to all when a rule makes the value public.

    def hidden_roll(self, spec: str, *, label: Label) -> Hidden:
        """Roll dice only some may see (a hidden unit's strength)."""
        ...

    def hidden_uniform(self, n: int, *, label: Label) -> Hidden:
        """Draw an integer in 0..n-1 only some may see (a secret random pick)."""
        ...

    def hidden_shuffle(self, items: Sequence[str], *, label: Label, source: Mapping[str, Any] | None = None) -> Hidden:
        """Shuffle ids (a deck of cards) in secret, taken sorted; the record commits to each
        position and says what was shuffled (`source`: see referee.protocol.cards)."""
        ...

    def move_card(
        self,
        deck: str,
        position: tuple[str, int],
        source: str,
        to: str,
        *,
        secret: bool = False,
        pick: str | None = None,
    ) -> None:
        """List a card's move from one place to another by the committed position it holds;
        `pick` names the roll that chose it among the cards of its hand (a random take)."""
        ...

    def seal(self, values: Sequence[Any], *, label: Label) -> Hidden:
        """Commit to values chosen in secret (a sealed choice), to be opened later."""
        ...


@dataclass(frozen=True)
class PhaseSpec:
    """The phase now open: who must send orders, in what shape, and what stands if they don't."""

    turn: int
    name: str
    active: tuple[Role, ...]
    sealed: bool = True
    schema: Mapping[str, Any] = field(default_factory=lambda: dict(ANY_MAPPING))
    default_orders: Any = field(default_factory=dict)
    example: Any = None
    title: str = ""


@dataclass(frozen=True)
class Event:
    """Something that happened in adjudication; `text` is the sentence reports show.

    Secrecy is decided here, when the event is made: `visible_to` is "all" or the roles
    that may see it. Two keys of `data` mean something to the core: "openings" (a list of
    `Hidden.opening(i)`) gives those who see the event the proofs of hidden values, and the
    record lists them; "reveals" (a list of JSON pointers) declares hidden leaves of the state
    that a rule makes known to those who see it, which the leak test then allows.
    """

    kind: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)
    visible_to: Literal["all"] | tuple[Role, ...] = "all"

    def is_visible_to(self, role: Role | None) -> bool:
        """Return whether `role` (None: the public) may see this event."""
        return self.visible_to == "all" or (role is not None and role in self.visible_to)

    def as_dict(self) -> dict[str, Any]:
        """Return the event as plain data."""
        visible = "all" if self.visible_to == "all" else list(self.visible_to)
        return {"kind": self.kind, "text": self.text, "data": dict(self.data), "visible_to": visible}


@dataclass(frozen=True)
class GameModule:
    """A game: its identity and its pure rule functions (see the module docstring)."""

    id: str
    title: str
    version: str
    scenarios: tuple[str, ...]
    roles: Callable[[str, Mapping[str, Any]], tuple[Role, ...] | None]
    setup: Callable[[str, Sequence[Role], Mapping[str, Any]], Any]
    phase: Callable[[Any], PhaseSpec | None]
    validate: Callable[[Any, Role, Any], list[Problem]]
    resolve: Callable[[Any, Mapping[Role, Any], Dice], tuple[Any, list[Event]]]
    view: Callable[[Any, Role | None], dict[str, Any]]
    check: Callable[[Any], list[str]]
    options: Mapping[str, str] = field(default_factory=dict)
    description: str = ""
    secrets: Callable[[Any], list[Secret]] = field(default=lambda state: [])
    in_play: Callable[[Any], list[InPlay]] | None = None
    # A package (e.g. "games.polemos_obb") whose templates/ folder has events.txt.j2 and
    # events.html.j2: the game's own rendering of a report's "What happened" section.
    templates: str | None = None
    # What the rulebook leaves out and the game's referee supplies (referee.kit.needs).
    supplies: Supplies | None = None
    # Where a player stands, from their view only (see the module docstring); None: nothing shown.
    standing: Callable[[Any, Role], list[Fact]] | None = None
    # A player's own order form for the open phase; None (or a None answer): the phase's example.
    example: Callable[[Any, Role], Example | None] | None = None
    # Options a new game starts with unless its configuration sets them: `referee init` writes
    # them into the game's game.yaml, where they are pinned. A rule that changes for new games
    # takes an option here, so that games begun before (whose configuration lacks it) keep the
    # rule they began with, and their states still replay in `referee audit`.
    new_game_options: Mapping[str, Any] = field(default_factory=dict)
    # The view a letter attaches (letter format 2), when it must be smaller than `view`: bounded
    # by the game, not by how much happened in the last phase (the record keeps that). None: `view`.
    letter_view: Callable[[Any, Role], dict[str, Any]] | None = None
    # Deadlines the game's options give its phases, by phase name ("48h", "friday 18:00"); fixed
    # by the configuration, never by the state. A deadline the game's `schedule:` names for the
    # phase wins over them; they win over the schedule's default (referee.game.deadlines).
    phase_deadlines: Callable[[Mapping[str, Any]], Mapping[str, str]] | None = None
    # A picture of the table for a player's notices and reports (see the module docstring): from
    # their view and the events they see (as dicts, `Event.as_dict`); None: the letter has none.
    picture: Callable[[Mapping[str, Any], Role | None, Sequence[Mapping[str, Any]]], dict[str, Any] | None] | None = (
        None
    )
    # A board of where a player's forces stand, from their view (see the module docstring); None: none.
    board: Callable[[Mapping[str, Any], Role | None], dict[str, Any] | None] | None = None


def load_data(package: str, name: str) -> Any:
    """Return the YAML data file `name` from the `data/` folder of the game package `package`."""
    from referee.protocol.yamlsafe import load_strict  # deferred: a game without data files loads no YAML parser

    return load_strict(data_text(package, name))
