"""What a game's rulebook leaves out, declared by the game module: the data its referee supplies.

Every seed rulebook lacks something (a table on a missing page, a factor the scenario never
prints). A module never invents it: it declares each such part as a `Need`, says for a given
state when it is needed (`Wanted`), and takes the referee's data through a pure `supply`
function. The core does the rest (`referee supply`, `referee missing`, holding a phase that
waits on its referee, the record and the letters).

A module that reaches a step without the data it needs raises `NotSupplied` naming the need;
the core then holds the phase and asks the referee, instead of failing.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from referee.kit.tables import MissingTableError
from referee.protocol.problems import Problem

# When a need matters, for one state of one game:
#   now      the open phase cannot be adjudicated without it
#   later    a later step of this game will need it (or may, e.g. when a division is spent)
#   never    nothing in this scenario reads it
#   default  the game uses its own reconstruction or the extraction's default until it is supplied
#   supplied the referee has supplied it
When = Literal["now", "later", "never", "default", "supplied"]
WHENS: tuple[When, ...] = ("now", "later", "never", "default", "supplied")


@dataclass(frozen=True)
class Need:
    """One part of the rules the game's referee supplies from their own copy of the book."""

    id: str  # the name the referee supplies it under: "army_morale", "tables/bombardment"
    title: str  # what it is, for a sentence: "the critical morale factor of each army"
    book: str  # where the rulebook prints it: "Army morale, p. 30"
    needed_by: str  # the step that reads it: "a division becoming spent"
    shape: Mapping[str, Any]  # a referee.kit.schema schema the supplied data must fit
    # The data part of a supply file (what goes under `data:`), as YAML text; `referee supply
    # --template` puts it under `supplies: ID` (a text that already starts so is taken whole).
    template: str  # a commented YAML skeleton to fill in (never the book's values)
    example: str = ""  # a filled-in example, marked as an example, for the docs; `referee supply` accepts it
    kind: Literal["table", "option", "data"] = "data"
    results: tuple[str, ...] = ()  # for a table: the results the game can apply


@dataclass(frozen=True)
class Wanted:
    """When one need matters for a given state, and why (shown to the referee and the players)."""

    need: str  # a Need.id
    when: When
    why: str = ""  # "the Franco-Bavarian army has a spent division this phase"
    # For `now`: True when the phase cannot be adjudicated without it (hold the phase); False
    # when only orders that need it are refused this phase and the phase goes on without them.
    blocks: bool = True


@dataclass(frozen=True)
class Supplies:
    """A module's part of the mechanism (GameModule.supplies; None: the game needs nothing).

    needs:  every part the module may ask for, declared once.
    wanted(state) -> list[Wanted]: when each matters for this state; needs left out are "never".
    supply(state, need_id, data) -> (new_state, problems): pure, must not mutate `state`.
        `data` already fits the need's `shape`; the module checks the rest (results it can
        apply, ids that exist in this game) and returns problems instead of a state when it
        refuses. Each problem's path points into the supplied file.
    """

    needs: tuple[Need, ...]
    wanted: Callable[[Any], list[Wanted]]
    supply: Callable[[Any, str, Any], tuple[Any, list[Problem]]]
    by_id: Mapping[str, Need] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", {need.id: need for need in self.needs})


class NotSupplied(MissingTableError):
    """A step needs data the game's referee has not supplied yet: the phase waits for it."""

    def __init__(self, need: str, message: str, hints: tuple[str, ...] | list[str] = ()) -> None:
        super().__init__(message, hints=hints)
        self.need = need


def packaged_need(
    package: str,
    id: str,
    title: str,
    book: str,
    needed_by: str,
    shape: Mapping[str, Any],
    kind: Literal["table", "option", "data"] = "data",
    file: str | None = None,
    results: tuple[str, ...] = (),
) -> Need:
    """Return a Need whose template and example are the game package's data files
    `templates/FILE.yaml` and `examples/FILE.yaml` (FILE: the need's id unless given)."""
    name = file or id
    return Need(
        id=id,
        title=title,
        book=book,
        needed_by=needed_by,
        shape=shape,
        template=load_text(package, f"templates/{name}.yaml"),
        example=load_text(package, f"examples/{name}.yaml"),
        kind=kind,
        results=results,
    )


def load_text(package: str, name: str) -> str:
    """Return the text of `name` in the `data/` folder of a game package, comments kept (templates, examples)."""
    return data_text(package, name)


def data_text(package: str, name: str) -> str:
    """Return the text of the file `name` in the `data/` folder of the game package `package`."""
    found = importlib.util.find_spec(package)
    folders = list(found.submodule_search_locations or ()) if found else []
    # A package installed as files (the usual case) is read from its folder: importlib.resources
    # would load zipfile, tempfile, shutil and the compression modules at every start-up, as games
    # read their data files at import.
    if len(folders) == 1 and (Path(folders[0]) / "data" / name).is_file():
        return (Path(folders[0]) / "data" / name).read_text(encoding="utf-8")
    from importlib import resources  # a package in a zip file, or another loader

    return resources.files(package).joinpath("data", name).read_text(encoding="utf-8")


# A template's texts start with PLACEHOLDER ("FILL IN: the table's name") and its made-up keys
# with PLACEHOLDER_KEY ("FILL-IN-army-id"), so that a template supplied unfilled is refused.
PLACEHOLDER = "FILL IN"
PLACEHOLDER_KEY = "FILL-IN"


def placeholders(data: Any, path: str = "data") -> list[Problem]:
    """Return a problem for each of a template's placeholders still in `data` (empty: none left)."""
    found: list[Problem] = []
    stack = [(data, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str) and item.startswith(PLACEHOLDER):
            found.append(
                Problem("invalid.supply.placeholder", where, f"still holds the template's {item!r}: fill it in")
            )
        elif isinstance(item, Mapping):
            for key, value in item.items():
                if isinstance(key, str) and key.startswith(PLACEHOLDER_KEY):
                    found.append(
                        Problem("invalid.supply.placeholder", f"{where}.{key}", "is the template's placeholder")
                    )
                stack.append((value, f"{where}.{key}"))
        elif isinstance(item, (list, tuple)):
            stack.extend((value, f"{where}[{index}]") for index, value in enumerate(item))
    return sorted(found, key=lambda problem: problem.path)
