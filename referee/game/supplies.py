"""What a game's referee supplies from their own copy of the rules (the module declares it:
`referee.kit.needs`): reading a supply file, what is missing now and later, and a phase held
because it waits on its referee.

A supply file names one need and gives its data:

    supplies: morale          # the need's id (`referee missing GAMEDIR` lists them)
    data:                     # what the need's shape asks for
      factors: {alice: 2, bob: 3}

Supplying is an override (`referee.game.override`, kind `supply`): signed, in the journal,
applied every time the open phase is adjudicated, in its record and its reports.

A phase waits on its referee when the module says a need is wanted `now`, or when its
`resolve` raises NotSupplied: the adjudication is held instead of failing, every player gets
one letter saying what the game waits for, and `referee run` alerts the referee once.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee import kit
from referee.errors import RefereeError, StateError
from referee.game.glance import ALERTED_EVENT, HELD_EVENT, held_of
from referee.game.journal import GameDir, OpenPhase
from referee.game.registry import find_game
from referee.kit import GameModule, Need, Wanted
from referee.kit.schema import check
from referee.protocol.canonical import canonical_json
from referee.protocol.problems import Problem

if TYPE_CHECKING:  # opening a game reads its game.yaml and keys: `referee status` needs neither
    from referee.game.opened import Game

FILE_KEYS = ("supplies", "data", "game")


class SupplyRefusedError(RefereeError):
    """A supply file was refused, nothing changed; `problems` names every mistake by its path."""

    def __init__(self, message: str, problems: list[Problem], hints: tuple[str, ...] | list[str] = ()) -> None:
        super().__init__(message, hints)
        self.problems = problems


class WaitingOnReferee(StateError):
    """The open phase cannot be adjudicated until its referee supplies data (`needs`)."""

    exit_code = 4

    def __init__(self, game_path: Path, phase: OpenPhase, needs: list[Need], why: str) -> None:
        titles = "; ".join(f"{need.title} ({need.book})" for need in needs)
        super().__init__(
            f"turn {phase.turn} '{phase.phase}' waits on its referee for {titles}: {why}",
            hints=tuple(hint for need in needs for hint in _supply_hints(game_path, need)),
        )
        self.phase = phase
        self.needs = needs
        self.why = why
        self.first = False  # True when this adjudication held the phase (letters sent now)


# -- the module's needs --------------------------------------------------------------------


def declared(module: GameModule) -> dict[str, Need]:
    """Return the needs the module declares, by id (none when it needs nothing)."""
    return dict(module.supplies.by_id) if module.supplies is not None else {}


def wanted(module: GameModule, state: Any) -> list[Wanted]:
    """Return when each declared need matters for `state` (a need the module leaves out: never)."""
    if module.supplies is None:
        return []
    said = {w.need: w for w in module.supplies.wanted(state)}
    return [said.get(need.id, Wanted(need.id, "never")) for need in module.supplies.needs]


def wanted_now(module: GameModule, state: Any) -> list[Wanted]:
    """Return the needs without which the phase that `state` opens cannot be adjudicated (a need
    wanted now that does not block only refuses the orders that need it: the phase goes on)."""
    return [w for w in wanted(module, state) if w.when == "now" and w.blocks]


def supply_commands(game_path: Path | str, need: Need) -> tuple[str, str]:
    """Return the two commands that supply `need`: the template to fill in, then the supply."""
    path = shlex.quote(str(game_path))
    file = shlex.quote(need.id.replace("/", "-") + ".yaml")
    return (
        f"referee supply --template {shlex.quote(need.id)} {path} > {file}",
        f"referee supply {path} {file} --reason '...'",
    )


def _supply_hints(game_path: Path | str, need: Need) -> list[str]:
    """Return the two commands that supply `need`, as hints saying what to do between them."""
    template, supply = supply_commands(game_path, need)
    return [f"write the template: {template}", f"fill it in from {need.book}, then: {supply}"]


def template_text(module: GameModule, need_id: str) -> str:
    """Return the supply file to fill in for `need_id`: its header and the need's commented skeleton."""
    need = find_need(module, need_id)
    head = [
        f"# {module.title}: {need.title}",
        f"# From the rulebook: {need.book}. Needed by: {need.needed_by}.",
        "# Fill in the values from your own copy of the rules; the game never invents them.",
    ]
    if need.results:
        head.append(f"# Results the game can apply: {', '.join(need.results)}")
    return "\n".join(head) + "\n" + supply_file_text(need.id, need.template)


def supply_file_text(need_id: str, text: str) -> str:
    """Return a need's template or example as a whole supply file: `text` is the data part (as
    `Need` holds it), or already a whole file naming the need."""
    if re.search(rf"^supplies:\s*{re.escape(need_id)}\s*(#.*)?$", text, re.MULTILINE):
        return text
    body = "".join(f"  {line}\n" if line.strip() else "\n" for line in text.splitlines())
    return f"supplies: {need_id}\ndata:\n" + body


def module_of(game_path: Path | None, module_id: str | None) -> GameModule:
    """Return the game module of the game at `game_path`, or the installed module `module_id`."""
    if game_path is not None:
        from referee.game.opened import Game  # deferred: see TYPE_CHECKING above

        return Game.open(game_path).module
    if module_id is None:
        raise RefereeError(
            "name the game: GAMEDIR, or --game MODULE", hints=("referee supply --list --game moderator",)
        )
    return find_game(module_id)


def needs_text(module: GameModule) -> str:
    """Return every need the module declares, with its page and the step that reads it."""
    needs = declared(module)
    if not needs:
        return f"{module.id}: nothing to supply (its rules are complete, or it has its own defaults)\n"
    lines = [f"{module.id}: what its referee supplies from their own copy of the rules"]
    for need in needs.values():
        lines.append(f"  {need.id} ({need.kind}): {need.title} ({need.book}), needed by {need.needed_by}")
    lines.append(f"the file to fill in: referee supply --template NEED --game {module.id}")
    return "\n".join(lines) + "\n"


def find_need(module: GameModule, need_id: str) -> Need:
    """Return the need `need_id` of `module`, or raise naming the ones it declares."""
    needs = declared(module)
    if need_id not in needs:
        known = ", ".join(needs) or "none: this game needs nothing supplied"
        raise RefereeError(f"game module {module.id} declares no need '{need_id}'", hints=(f"its needs: {known}",))
    return needs[need_id]


# -- a supply file -------------------------------------------------------------------------


def read_supply_file(module: GameModule, game: str, raw: bytes, name: str) -> tuple[Need, Any]:
    """Return the need a supply file names and its data, checked against the need's shape;
    raise SupplyRefusedError listing every problem, each with its path into the file."""
    refused = f"{name} was refused: nothing changed"
    from referee.protocol.yamlsafe import StrictYAMLError, load_strict  # deferred: `referee status` parses no YAML

    try:
        content = load_strict(raw.decode("utf-8"))
    except (UnicodeDecodeError, StrictYAMLError) as error:
        raise SupplyRefusedError(refused, [Problem("invalid.yaml", name, f"not YAML text: {error}")]) from None
    if not isinstance(content, dict):
        raise SupplyRefusedError(
            refused, [Problem("invalid.file", name, "a supply file is a mapping with 'supplies' and 'data'")]
        )
    problems = [
        Problem("invalid.key", str(key), f"a supply file has no '{key}' (it holds {', '.join(FILE_KEYS)})")
        for key in content
        if key not in FILE_KEYS
    ]
    if "game" in content and content["game"] != game:
        problems.append(Problem("invalid.game", "game", f"this file is for game {content['game']!r}, not {game!r}"))
    needs = declared(module)
    need_id = content.get("supplies")
    need = needs.get(need_id) if isinstance(need_id, str) else None
    if need is None:
        known = ", ".join(needs) or "none"
        if need_id is None:
            problems.append(Problem("invalid.need", "supplies", f"is missing: name the need supplied ({known})"))
        else:
            problems.append(
                Problem("invalid.need", "supplies", f"{need_id!r} is not a need of {module.id}; its needs: {known}")
            )
    if "data" not in content:
        problems.append(Problem("invalid.data", "data", "is missing: give the data under 'data:'"))
    else:
        try:  # what the journal and the record keep: JSON (a YAML date or an integer key would change)
            content["data"] = json.loads(canonical_json(content["data"]))
        except (TypeError, ValueError):
            problems.append(Problem("invalid.data", "data", "holds a value JSON cannot carry (a date?): quote it"))
        else:
            if need is not None:
                problems += check(content["data"], need.shape, "data")
    if problems:
        hints = [f"the template: referee supply --template {need.id} --game {module.id}"] if need else []
        raise SupplyRefusedError(refused, problems, hints)
    assert need is not None
    return need, content["data"]


def module_problems(module: GameModule, state: Any, need: Need, data: Any) -> list[Problem]:
    """Return the module's own problems with `data` for `need` in `state` (empty: it takes it)."""
    assert module.supplies is not None
    _, problems = module.supplies.supply(copy.deepcopy(state), need.id, copy.deepcopy(data))
    return list(problems)


# -- what is missing -----------------------------------------------------------------------


@dataclass
class Missing:
    """What a game's referee may supply, and when each part is needed."""

    game: str
    module: str
    phase: str | None  # the open phase (TURN/PHASE), None when the game is over
    needs: list[dict[str, Any]] = field(default_factory=list)
    held: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"game": self.game, "module": self.module, "phase": self.phase, "held": self.held, "needs": self.needs}


def missing(path: Path) -> Missing:
    """Return what the game at `path` may be supplied, with when and why for its open phase."""
    from referee.game.opened import Game  # deferred: see TYPE_CHECKING above

    game = Game.open(path)
    return _missing(path, game.dir, game.config.game, game.module)


def _missing(path: Path, game_dir: GameDir, game_id: str, module: GameModule) -> Missing:
    """Return what the game in `game_dir` may be supplied: from its journal and states alone."""
    phase = game_dir.open_phase()
    state = game_dir.load_state(phase.state_before if phase else game_dir.current_state_hash())["state"]
    said = {w.need: w for w in wanted(module, state)}
    result = Missing(game_id, module.id, phase.ident if phase else None)
    result.held = hold = held(game_dir, phase) if phase else None
    if hold is not None:  # a need found missing by a step, not foreseen, is wanted now
        said.update({need_id: Wanted(need_id, "now", hold["why"]) for need_id in hold["needs"]})
    for need in declared(module).values():
        when = said[need.id] if phase else Wanted(need.id, "never", "the game is over")
        template, supply = supply_commands(path, need)
        result.needs.append(
            {
                "need": need.id,
                "title": need.title,
                "book": need.book,
                "kind": need.kind,
                "needed_by": need.needed_by,
                "when": when.when,
                "why": when.why,
                "template": template,
                "supply": supply,
            }
        )
    return result


def missing_text(info: Missing) -> str:
    """Return `referee missing` as lines for a terminal, the needs of `now` first."""
    lines = [f"game      {info.game} ({info.module}), open: {info.phase or 'none, the game is over'}"]
    if info.held:
        lines.append(f"HELD      the open phase waits on you for: {', '.join(info.held['needs'])}")
    if not info.needs:
        return "\n".join([*lines, "needs     none: this game's rules are complete"]) + "\n"
    order = {"now": 0, "later": 1, "default": 2, "supplied": 3, "never": 4}
    for need in sorted(info.needs, key=lambda n: order.get(n["when"], 5)):
        said = f"{need['need']}: {need['title']} ({need['book']}), needed by {need['needed_by']}"
        lines.append(f"{need['when']:<9} {said}")
        if need["why"]:
            lines.append(f"          why: {need['why']}")
        if need["when"] in ("now", "later", "default"):
            lines.append(f"          template: {need['template']}")
            lines.append(f"          supply:   {need['supply']}")
    return "\n".join(lines) + "\n"


def needs_when(path: Path | str, module_id: str, state_hash: str) -> tuple[list[str], list[list[str]]] | None:
    """Return when each need the module declares matters for the state `state_hash` ([[need id,
    when], ...] in the module's order), with the files that answer depends on (the game's
    package, the kit: `referee.game.glance` keeps it while they are unchanged); None when the
    game's module or state cannot be read (`referee missing` says what is wrong)."""
    try:  # the game's module and journal, not Game.open: its game.yaml and keys cost a YAML parser
        # and the cryptography library at start-up, and `referee status` shows neither
        game_dir = GameDir(Path(path)).require()
        module = find_game(module_id)
        said = {w.need: w.when for w in wanted(module, game_dir.load_state(state_hash)["state"])}
        return _code_of(module), [[need.id, said[need.id]] for need in declared(module).values()]
    except (RefereeError, KeyError):
        return None


def _code_of(module: GameModule) -> list[str]:
    """Return the files and folders whose code answers `wanted` for `module`: its game's package
    (or module file) and the kit."""
    found = [os.path.dirname(kit.__file__ or "")]
    if module.supplies is not None:
        name = module.supplies.wanted.__module__
        top = sys.modules.get(".".join(name.split(".")[:2])) or sys.modules.get(name)
        where = getattr(top, "__file__", None) or ""
        found.append(os.path.dirname(where) if os.path.basename(where) == "__init__.py" else where)
    return found


# -- a phase held --------------------------------------------------------------------------


def held(game_dir: GameDir, phase: OpenPhase) -> dict[str, Any] | None:
    """Return the hold of the open phase, if it waits on its referee (`glance.held_of`)."""
    return held_of(game_dir.db, phase.turn, phase.phase, phase.generation, phase.state_before)


def mark_alerted(game_dir: GameDir, phase: OpenPhase) -> None:
    """Note in the journal that the referee was mailed about the open phase's hold."""
    with game_dir.lock(), game_dir.transaction():
        data = {"state": phase.state_before, "generation": phase.generation}
        game_dir.log(ALERTED_EVENT, data, phase.turn, phase.phase)


def waiting_error(game: Game, phase: OpenPhase, need_ids: list[str], why: str) -> WaitingOnReferee:
    """Return the error saying the open phase waits on its referee for `need_ids`."""
    needs = declared(game.module)
    unknown = [n for n in need_ids if n not in needs]
    if unknown:  # the referee could not supply it: say whose mistake it is
        raise StateError(
            f"game module {game.module.id} needs '{', '.join(unknown)}', which it does not declare ({why}): "
            "this is a bug in the game module",
            hints=("the module's supplies must declare every need its steps ask for (referee.kit.needs)",),
        )
    return WaitingOnReferee(game.dir.path, phase, [needs[n] for n in need_ids], why)


def hold(game: Game, phase: OpenPhase, waiting: WaitingOnReferee) -> WaitingOnReferee:
    """Hold the open phase: tell every player once what the game waits for, and mark the hold
    in the journal (with the game's lock held). Return `waiting`, `first` set when new."""
    if held(game.dir, phase) is None:
        from referee.game.announce import post_waiting  # the letters layer: only for a hold

        post_waiting(game, phase, waiting.needs, waiting.why)
        with game.dir.transaction():
            data = {
                "needs": [n.id for n in waiting.needs],
                "why": waiting.why,
                "state": phase.state_before,
                "generation": phase.generation,
            }
            game.dir.log(HELD_EVENT, data, phase.turn, phase.phase)
        waiting.first = True
    return waiting
