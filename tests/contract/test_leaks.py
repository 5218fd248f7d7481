"""The generic leak test: every game module, present and future, keeps its secrets.

A module's `secrets(state)` names each hidden leaf of its state (a JSON pointer) and the roles
entitled to see it. For states reached by bounded play (tests/contract/play.py), for each role
and the public, this test builds the *world* that role must not tell from the real one: every
leaf the role is not entitled to is changed, keeping its type ("LEAKMARK0007Q" for a text or a
null, a 9-digit 731xxxxxx for a number, a bool flipped). Then:

- views: the role's view of the world holds no marker and is its view of the real state (a view
  must not even depend on what it hides);
- notices: the notice the core would mail (the real templates through letters.notice_context,
  with a real game directory) holds no marker and reads the same;
- pictures (a game's `picture` of the table and its `board`): the scene drawn for the role (plain
  data in mm, so a hidden position shows as itself) and its SVG are searched with the notice and
  the report; a notice's picture must read the same (it is part of the notice), and a report's
  picture must be the same when the role's view after is: a face-down card and a dummy at one
  place are drawn alike;
- where the role stands and its own order form (the module's `standing` and `example` hooks,
  asked directly as well as through the notice) hold no marker and are the same;
- resolution: the world is resolved with the orders the real state was (the phase's example
  orders, or a bot's that name nothing hidden) and real dice with a hidden key. An event the
  role sees, the public record and its report (announce.report_context) may hold a marker only
  if the rules revealed it: it is in the role's view after, or an event it sees names it in
  data["reveals"]. And when the role's view after is as in the real game, so must be its
  events and the record's draws, but for what is revealed so. The record is the core's, with
  its real hashes and commitments (`phase_record`, `public_state`): nothing in it is replaced.
  That a commitment cannot be matched by guessing is tests/contract/test_guessing.py's part.

A world must still play the same game: where a marker makes the rules raise (a card's type is
a key into the troop data) or changes the example orders (a disordered card would not move),
that group of leaves (the pointer with list indices as *) is demoted, from a marker to another
value such leaves hold (checked by comparison only), then to no change. The test asserts that
most hidden leaves stay changed and most worlds resolve, so a module cannot dodge it.

Last, the core never goes around `view`: each game, wrapped so its state carries a canary
entitled to nobody, is played through the real engine and CLI with signed orders, and nothing
it writes (states and the journal aside) nor what its commands print may hold the canary.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import itertools
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
from click.testing import CliRunner
from play import CONFIG_OPTIONS, Reached, canonical, dice_for, phase_orders, players_of, reach

import games
from referee.cli import cli
from referee.game.announce import notice_context, order_template, report_context
from referee.game.engine import init_game
from referee.game.journal import OpenPhase
from referee.game.opened import Game
from referee.game.results import Outcome
from referee.game.states import public_state, state_hash, state_scheme, wrap_state
from referee.kit import Event, GameModule, PhaseSpec, Secret
from referee.letters.render import render
from referee.protocol.canonical import canonical_json, pretty_json, sha256_hex
from referee.protocol.dice import commitment
from referee.protocol.hidden import game_commitment
from referee.protocol.records import phase_record, public_openings
from referee.protocol.signatures import NAMESPACE_ORDERS, generate_keypair, load_private_key, sign
from referee.protocol.yamlsafe import dump

T = TypeVar("T")
TEXT_MARK = "LEAKMARK{:04d}Q"
NUMBER_BASE = 731_000_000
FOUND_TEXT = re.compile(r"LEAKMARK\d{4}Q", re.IGNORECASE)
FOUND_NUMBER = re.compile(r"(?<![0-9])731\d{6}(?![0-9])")
MARK, SWAP, KEEP = 0, 1, 2  # how a hidden leaf is changed in a world: marker, another value, not at all
LEVELS = ("marker", "another value", "unchanged")
STATES_PER_GAME = 36  # bounded: the whole file runs in well under 30 s
SEED = b"leak-test"
CANARY_KEY, CANARY = "zz_canary", "CANARYLEAK"


def default_secrets(game: GameModule) -> bool:
    """Return whether a module keeps the contract's default `secrets` (it declares none)."""
    return game.secrets is GameModule.__dataclass_fields__["secrets"].default


# -- hidden leaves -------------------------------------------------------------------------------

Path_ = tuple[str | int, ...]


@dataclass(frozen=True)
class Leaf:
    """One hidden scalar of a state: where it is, its value, who may see it, and its group."""

    path: Path_
    value: Any
    entitled: frozenset[str]
    declared: str  # the pointer `secrets` gave (a leaf inside it, for a list or map)

    @property
    def group(self) -> str:
        """The leaf's pointer with every list index as *: leaves of one kind across the state."""
        return "".join("/*" if isinstance(p, int) else "/" + escape(p) for p in self.path)

    @property
    def pointer(self) -> str:
        """The leaf's JSON pointer."""
        return "".join("/" + escape(str(p)) for p in self.path)


def escape(token: str) -> str:
    """Return a JSON pointer token (RFC 6901: "~" as ~0, "/" as ~1)."""
    return token.replace("~", "~0").replace("/", "~1")


def parse_pointer(state: Any, pointer: str) -> Path_:
    """Return the path a JSON pointer names in `state`; fail if it names nothing there."""
    assert pointer.startswith("/"), f"secret pointer {pointer!r} does not start with /"
    path: list[str | int] = []
    node = state
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            assert token.isdigit() and int(token) < len(node), f"secret pointer {pointer!r}: no item {token}"
            path.append(int(token))
            node = node[int(token)]
        else:
            assert isinstance(node, dict) and token in node, f"secret pointer {pointer!r}: no key {token!r}"
            path.append(token)
            node = node[token]
    return tuple(path)


def get(state: Any, path: Path_) -> Any:
    """Return the value at `path`."""
    for part in path:
        state = state[part]
    return state


def put(state: Any, path: Path_, value: Any) -> None:
    """Set the value at `path` (which must exist)."""
    get(state, path[:-1])[path[-1]] = value


def hidden_leaves(game: GameModule, state: Any) -> list[Leaf]:
    """Return the scalar leaves `secrets` declares (a list or map declared is taken leaf by leaf)."""
    entitled: dict[Path_, set[str]] = {}
    declared: dict[Path_, str] = {}
    secrets: list[Secret] = game.secrets(state)
    for pointer, roles in secrets:
        for path in scalar_paths(state, parse_pointer(state, pointer)):
            entitled.setdefault(path, set()).update(roles)  # listed twice: the more permissive
            declared.setdefault(path, pointer)
    return [Leaf(p, get(state, p), frozenset(entitled[p]), declared[p]) for p in entitled]


def scalar_paths(state: Any, path: Path_) -> Iterable[Path_]:
    """Yield the paths of the scalars at or under `path`."""
    value = get(state, path)
    if isinstance(value, dict):
        for key in value:
            yield from scalar_paths(state, (*path, key))
    elif isinstance(value, list):
        for index in range(len(value)):
            yield from scalar_paths(state, (*path, index))
    else:
        yield path


# -- worlds: a state with the leaves a role may not see changed -----------------------------------


@dataclass
class World:
    """A changed copy of a state: its markers (as found in text) and how each group changed."""

    state: Any
    marks: dict[str, Leaf] = field(default_factory=dict)
    changed: dict[str, int] = field(default_factory=dict)  # group -> level, for groups that changed
    levels_used: list[int] = field(default_factory=list)  # per leaf: the level it really got

    def unmarked(self, value: Any) -> Any:
        """Return plain data with every marker put back to the value it stands for."""
        if isinstance(value, dict):
            return {k: self.unmarked(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.unmarked(v) for v in value]
        if isinstance(value, str) and (leaf := self.marks.get(value.lower())) is not None:
            return leaf.value
        if isinstance(value, str):
            return FOUND_TEXT.sub(
                lambda m: str(self.marks[m[0].lower()].value) if m[0].lower() in self.marks else m[0], value
            )
        if isinstance(value, int) and not isinstance(value, bool) and (leaf := self.marks.get(str(value))) is not None:
            return leaf.value
        return value

    def found(self, text: str) -> list[Leaf]:
        """Return the leaves whose markers occur in `text` (numbers as whole numbers only)."""
        hits = {m.lower() for m in FOUND_TEXT.findall(text)} | set(FOUND_NUMBER.findall(text))
        return [self.marks[m] for m in sorted(hits) if m in self.marks]


def build_world(
    state: Any, leaves: Sequence[Leaf], pools: dict[str, list[Any]], levels: dict[str, int], only: str | None = None
) -> World:
    """Return `state` with each leaf changed as its group's level says (`only`: that group alone)."""
    world = World(canonical(state))  # a deep copy, faster than copy.deepcopy
    numbers = itertools.count()
    for leaf in leaves:
        level = KEEP if only is not None and leaf.group != only else levels.get(leaf.group, MARK)
        value, new = leaf.value, leaf.value
        if level == MARK:
            if isinstance(value, bool):
                new = not value
            elif isinstance(value, int | float):
                n = next(numbers)
                new = type(value)(NUMBER_BASE + n)
                world.marks[str(NUMBER_BASE + n)] = leaf
            elif value is None or isinstance(value, str):
                n = next(numbers)
                new = TEXT_MARK.format(n)
                world.marks[new.lower()] = leaf
        elif level == SWAP and value is not None and not isinstance(value, bool):
            pool = [v for v in pools[leaf.group] if type(v) is type(value)]
            if len(pool) > 1:
                new = pool[(pool.index(value) + 1) % len(pool)]
        if new != value or type(new) is not type(value):
            put(world.state, leaf.path, new)
            world.changed[leaf.group] = level
            world.levels_used.append(level)
        else:
            world.levels_used.append(KEEP)
    return world


def pools_of(leaves: Sequence[Leaf]) -> dict[str, list[Any]]:
    """Return, per group, the distinct values its hidden leaves hold (what a swap picks from)."""
    pools: dict[str, list[Any]] = {}
    for leaf in leaves:
        pool = pools.setdefault(leaf.group, [])
        if leaf.value not in pool:
            pool.append(leaf.value)
    return {group: sorted(pool, key=repr) for group, pool in pools.items()}


@dataclass
class Settler:
    """The levels of one game's groups, lowered when a marker makes the rules raise."""

    levels: dict[str, int] = field(default_factory=dict)
    why: dict[str, str] = field(default_factory=dict)

    def settle(
        self, state: Any, leaves: Sequence[Leaf], pools: dict[str, list[Any]], compute: Callable[[World], T]
    ) -> tuple[World, T]:
        """Return the world and what `compute` gives in it, lowering the level of every group
        that makes `compute` raise by itself; raise if the raise has no single group to blame."""
        while True:
            world = build_world(state, leaves, pools, self.levels)
            try:
                return world, compute(world)
            except Exception:
                blamed = {}
                for group in sorted(world.changed):
                    try:
                        compute(build_world(state, leaves, pools, self.levels, only=group))
                    except Exception as error:
                        blamed[group] = f"{type(error).__name__}: {error}"
                if not blamed:
                    raise
                for group, message in blamed.items():
                    level = world.changed[group] + 1
                    self.levels[group] = level
                    self.why[group] = f"{LEVELS[level]} ({LEVELS[level - 1]} raised {message[:120]})"


# -- letters, rendered by the core's own functions -------------------------------------------------


def write_config(game: GameModule, root: Path, name: str) -> Path:
    """Write a game configuration for `game`'s first scenario, with keyed players; return it."""
    scenario = game.scenarios[0]
    (root / "keys").mkdir(parents=True)
    options = {"rounds": 3, **(CONFIG_OPTIONS[game.id]() if game.id in CONFIG_OPTIONS else {})}
    lines = [f"game: {name}", f"module: {game.id}", f"scenario: {scenario}", f"title: {name}"]
    lines.append(f"options: {json.dumps(options)}")  # JSON is YAML
    lines += ["referee: {email: referee@example.org, name: Test Referee}", "players:"]
    for player in players_of(game, scenario, {"rounds": 3}):
        generate_keypair(root / "keys" / player, comment=f"{player}@example.org")
        lines.append(f"  - {{name: {player}, email: {player}@example.org, key_file: keys/{player}.pub}}")
    (root / "game.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root / "game.yaml"


def letters_game(game: GameModule, root: Path) -> Game:
    """Return a real core `Game` (its directory, journal, keys) whose module is `game`."""
    init_game(root / "game", write_config(game, root / "setup", "leak-test"))
    return dataclasses.replace(Game.open(root / "game"), module=game)


def open_phase(spec: PhaseSpec) -> OpenPhase:
    """Return a journal row for the phase `spec` opens."""
    return OpenPhase(
        1, spec.turn, spec.name, "c" * 64, "b" * 64, "2024-01-01T00:00:00Z", tuple(spec.active), None, None, None
    )


def record_of(
    core: Game, spec: PhaseSpec, state: Any, new: Any, orders: dict[str, Any], dice: Any, events: list[Event]
) -> dict[str, Any]:
    """Return the public record of a phase as adjudication.phase_outcome writes it, with real
    values: the states named by the core's commitments (protocol section 15), the orders by the
    hashes of the files a player would send (the notice's form with these orders), the seed's."""
    before = wrap_state(core, state, spec, None)
    after = wrap_state(core, new, core.module.phase(new), state_hash(before))
    seed = hashlib.sha256(SEED + f"/{spec.turn}/{spec.name}".encode()).digest()
    files = {}
    for player in orders:
        head = order_template(core, open_phase(spec), spec, player).partition("\norders:")[0]
        files[player] = sha256_hex((head + "\n" + dump({"orders": orders[player]})).encode())
    secret = core.dir.hidden_secret()
    assert secret is not None
    return phase_record(
        game=core.config.game,
        turn=spec.turn,
        phase=spec.name,
        commit=commitment(seed),
        server_seed=seed,
        orders=files,
        rolls=dice.rolls,
        state_before=public_state(core, before),
        state_after=public_state(core, after),
        next_commit=commitment(hashlib.sha256(seed).digest()) if core.module.phase(new) else None,
        hidden_commit=game_commitment(secret),
        hidden=dice.hidden.entries,
        opened=public_openings(events),
        card_moves=dice.hidden.moves,
        state_scheme=state_scheme(core),
    )


# -- what a role gets ------------------------------------------------------------------------------


def text_of(value: Any) -> str:
    """Return plain data as canonical JSON text."""
    return canonical_json(value).decode("utf-8")


@dataclass
class After:
    """What a role gets from resolving a phase: events it sees, the record, its view and report."""

    orders: dict[str, Any]
    events: list[dict[str, Any]]
    record: dict[str, Any]
    view: str
    report: str
    picture: str = ""  # the report's picture: its scene and its SVG

    def public_part(self) -> str:
        """Return what must be the same in a world the role cannot tell apart: events and draws."""
        events = [{**e, "data": _without_salts(e["data"])} for e in self.events]
        draws = {
            "rolls": self.record["rolls"],
            "hidden": [{"label": h["label"], "spec": h["spec"]} for h in self.record.get("hidden", [])],
            "opened": [{k: v for k, v in o.items() if k != "salt"} for o in self.record.get("opened", [])],
        }
        return text_of({"events": events, "draws": draws})


def picture_of(context: dict[str, Any]) -> str:
    """Return a letter's pictures as text to search and compare: for the table (`picture`) and
    the board (`board_picture`), the scene the game drew (plain data, in mm: a hidden position
    shows as the number it is) and the SVG the letter embeds."""
    drawn = (context.get(key) for key in ("picture", "board_picture"))
    return "\n".join(text_of(picture["scene"]) + "\n" + picture["svg"] for picture in drawn if picture is not None)


def _without_salts(data: dict[str, Any]) -> dict[str, Any]:
    if "openings" not in data:
        return data
    openings = [{k: v for k, v in o.items() if k not in ("salt", "commitment")} for o in data["openings"]]
    return {**data, "openings": openings}


def revealed_by(events: list[dict[str, Any]], leaves: list[Leaf]) -> list[Leaf]:
    """Return the leaves an event declares the rules made public (data["reveals"]: pointers to
    them or to a map or list holding them)."""
    pointers = {p for e in events for p in e["data"].get("reveals", ())}
    return [leaf for leaf in leaves if any(leaf.pointer == p or leaf.pointer.startswith(p + "/") for p in pointers)]


def own_hooks(module: GameModule, state: Any, role: str) -> dict[str, Any]:
    """Return what the module's `standing` and `example` hooks give `role`, as plain data."""
    standing = [dataclasses.asdict(fact) for fact in module.standing(state, role)] if module.standing else []
    example = module.example(state, role) if module.example else None
    form = {"orders": example.orders, "notes": dict(example.notes)} if example is not None else None
    return {"standing": standing, "example": form}


class DriftError(Exception):
    """A changed world in which the phase's example orders differ: its play is another game."""


@dataclass
class Checker:
    """Checks one game: its module, a real core game to write letters with, and what it found."""

    module: GameModule
    core: Game
    leaks: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)  # worlds whose resolution raised
    resolved: int = 0
    compared: int = 0  # resolved worlds whose view after matched the real one: events compared
    levels_before: list[int] = field(default_factory=list)
    levels_after: list[int] = field(default_factory=list)
    static: Settler = field(default_factory=Settler)
    dynamic: Settler = field(default_factory=Settler)

    def leak(self, where: str, role: str | None, what: str, leaves: Iterable[Leaf]) -> None:
        """Record that `role` got something it may not see."""
        named = {f"{leaf.pointer} (for {', '.join(sorted(leaf.entitled)) or 'nobody'})" for leaf in leaves}
        self.leaks.append(f"{where}: {role or 'the public'} {what}: {', '.join(sorted(named))}")

    def before(self, state: Any, role: str | None) -> tuple[str, str, str]:
        """Return what `role` gets while the phase is open: its view, its notice (text, HTML
        and the attached view, rendered by the core's announce.notice_context), and what the
        module's own hooks say of it (where it stands, its order form with its notes)."""
        view = text_of(self.module.view(state, role))
        spec = self.module.phase(state)
        if role is None or spec is None:
            return view, "", ""
        context, view_bytes = notice_context(self.core, open_phase(spec), spec, state, role)
        notice = "\n".join((*render("notice", context, self.module), view_bytes.decode("utf-8"), picture_of(context)))
        return view, notice, text_of(own_hooks(self.module, state, role))

    def resolve(self, state: Any, given: dict[str, Any] | None = None) -> tuple[dict[str, Any], Outcome]:
        """Resolve the open phase with the `given` orders (by default its example orders) and
        real dice (with a hidden key); return the orders and the outcome, as adjudication has it."""
        spec = self.module.phase(state)
        assert spec is not None
        orders = copy.deepcopy(given) if given is not None else {r: phase_orders(spec) for r in spec.active}
        dice = dice_for(SEED, spec.turn, spec.name)
        new_state, events = self.module.resolve(state, orders, dice)
        new = canonical(new_state)
        following = self.module.phase(new)
        record = record_of(self.core, spec, state, new, orders, dice, events)
        envelope = {"state": new, "over": following is None, "turn": following and following.turn}
        envelope["phase"] = following and following.name
        return orders, Outcome(
            phase=open_phase(spec),
            record=record,
            record_bytes=pretty_json(record),
            events=events,
            defaulted=[],
            envelope=envelope,
            opening=None,  # type: ignore[arg-type]  # reports never read it
        )

    def after(
        self,
        state: Any,
        role: str | None,
        given: dict[str, Any] | None,
        done: tuple[dict[str, Any], Outcome] | None = None,
    ) -> After:
        """Return what `role` gets from resolving the open phase with the `given` orders (`done`:
        resolved already), its report rendered by the core's announce.report_context."""
        orders, outcome = done or self.resolve(state, given)
        record = outcome.record
        seen = [e.as_dict() for e in outcome.events if e.is_visible_to(role)]
        view = text_of(self.module.view(outcome.envelope["state"], role))
        if role is None:
            return After(orders, seen, record, view, "")
        context, attachments = report_context(self.core, outcome, role)
        letter = (*render("report", context, self.module), *(a.data.decode("utf-8") for a in attachments))
        return After(orders, seen, record, view, "\n".join(letter), picture_of(context))

    def check_state(self, item: Reached) -> None:
        """Check one state for every role and the public (see the module docstring)."""
        leaves = hidden_leaves(self.module, item.state)
        pools = pools_of(leaves)
        done = self.resolve(item.state, item.orders)
        for role in (*item.players, None):
            mine = [leaf for leaf in leaves if role is None or role not in leaf.entitled]
            if mine:
                self._check_before(item, role, mine, pools)
                self._check_after(item, role, mine, pools, self.after(item.state, role, item.orders, done))

    def _check_before(self, item: Reached, role: str | None, mine: list[Leaf], pools: dict[str, list[Any]]) -> None:
        state, where = item.state, item.origin
        view, notice, hooks = self.before(state, role)
        world, (marked_view, marked_notice, marked_hooks) = self.static.settle(
            state, mine, pools, lambda w: self.before(w.state, role)
        )
        self.levels_before += world.levels_used
        for index, what, real, marked in (
            (0, "view", view, marked_view),
            (1, "notice", notice, marked_notice),
            (2, "standing or order form", hooks, marked_hooks),
        ):
            if found := world.found(marked):
                self.leak(where, role, f"gets in its {what}", found)
            elif marked != real:

                def differs(w: World, i: int = index, expected: str = real) -> bool:
                    return self.before(w.state, role)[i] != expected

                self.leak(where, role, f"gets a {what} that depends on", self._culprits(state, mine, pools, differs))

    def _check_after(
        self, item: Reached, role: str | None, mine: list[Leaf], pools: dict[str, list[Any]], real: After
    ) -> None:
        state, where = item.state, item.origin
        for group, level in self.static.levels.items():  # what breaks a view or notice breaks this too
            self.dynamic.levels[group] = max(level, self.dynamic.levels.get(group, MARK))

        def resolved(world: World) -> After:
            after = self.after(world.state, role, item.orders)
            if world.unmarked(after.orders) != real.orders:
                raise DriftError(f"the example orders became {text_of(after.orders)[:80]}")
            return after

        try:
            world, after = self.dynamic.settle(state, mine, pools, resolved)
        except Exception as error:
            self.unresolved.append(f"{where} ({role or 'the public'}): {type(error).__name__}: {error}")
            return
        self.resolved += 1
        self.levels_after += world.levels_used
        revealed = world.found(after.view) + revealed_by(after.events, mine) + revealed_by(real.events, mine)
        for what, text in (
            ("an event", text_of(after.events)),
            ("the record", text_of(after.record)),
            ("its report", after.report),
            ("its report's picture", after.picture),
        ):
            if extra := [leaf for leaf in world.found(text) if leaf not in revealed]:
                self.leak(where, role, f"gets in {what}, its view after not showing them", extra)
        if after.view != real.view:
            return  # the rules revealed something of what changed: the events may differ
        self.compared += 1
        if after.picture != real.picture:

            def drawn_apart(w: World) -> bool:
                other = self.after(w.state, role, item.orders)
                return other.view == real.view and other.picture != real.picture

            culprits = [leaf for leaf in self._culprits(state, mine, pools, drawn_apart) if leaf not in revealed]
            if culprits:
                self.leak(where, role, "gets a picture that depends, its view after unchanged, on", culprits)
        if after.public_part() != real.public_part():

            def differs(w: World) -> bool:
                other = self.after(w.state, role, item.orders)
                return other.view == real.view and other.public_part() != real.public_part()

            culprits = [leaf for leaf in self._culprits(state, mine, pools, differs) if leaf not in revealed]
            if culprits:
                self.leak(where, role, "gets events or draws that depend, its view after unchanged, on", culprits)

    def _culprits(
        self, state: Any, leaves: list[Leaf], pools: dict[str, list[Any]], differs: Callable[[World], bool]
    ) -> list[Leaf]:
        """Return the leaves of the groups whose change alone makes `differs` true (or raise)."""
        blamed = []
        for group in sorted({leaf.group for leaf in leaves}):
            try:
                guilty = differs(build_world(state, leaves, pools, self.dynamic.levels, only=group))
            except Exception:
                guilty = True
            blamed += [leaf for leaf in leaves if leaf.group == group] if guilty else []
        return blamed or leaves

    def demoted(self) -> str:
        """Return the groups of leaves that could not carry a marker, and why."""
        why = {**self.static.why, **self.dynamic.why}
        return "".join(f"\n    {group}: {reason}" for group, reason in sorted(why.items()))


def sample(game: GameModule, reached: list[Reached], limit: int) -> list[Reached]:
    """Return at most `limit` states, evenly spread, three quarters of them with secrets."""
    rich = [r for r in reached if game.secrets(r.state)]
    plain = [r for r in reached if not game.secrets(r.state)]
    chosen = _spread(rich, max(limit * 3 // 4, limit - len(plain)))
    return chosen + _spread(plain, limit - len(chosen))


def _spread(items: list[Reached], count: int) -> list[Reached]:
    if count >= len(items):
        return list(items)
    return [items[i * len(items) // count] for i in range(count)] if count > 0 else []


GAME_IDS = [g.id for g in games.GAMES]


def _game(game_id: str) -> GameModule:
    return next(g for g in games.GAMES if g.id == game_id)


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[Checker, list[Reached]]]:
    """Return a function: game id -> (its checker, run over sampled states; every state reached)."""
    done: dict[str, tuple[Checker, list[Reached]]] = {}

    def check(game_id: str) -> tuple[Checker, list[Reached]]:
        if game_id not in done:
            game = _game(game_id)
            reached = reach(game)
            checker = Checker(game, letters_game(game, tmp_path_factory.mktemp(game_id)))
            for item in sample(game, reached, STATES_PER_GAME):
                checker.check_state(item)
            done[game_id] = checker, reached
        return done[game_id]

    return check


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_play_reaches_states_with_secrets(
    game_id: str, checked: Callable[[str], tuple[Checker, list[Reached]]]
) -> None:
    """A game that declares secrets must reach some, or its leak test would test nothing."""
    game = _game(game_id)
    _, reached = checked(game_id)
    assert reached, f"{game_id}: bounded play reached no open phase"
    if not default_secrets(game):
        assert any(game.secrets(r.state) for r in reached), (
            f"{game_id} declares secrets, but none of the {len(reached)} states its plays reach has any: "
            "give its phases examples that reach them, or a test bot (tests/contract/play.py BOTS)"
        )


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_no_hidden_leaf_reaches_a_role_not_entitled(
    game_id: str, checked: Callable[[str], tuple[Checker, list[Reached]]]
) -> None:
    """Views, notices, events, the record and reports keep every hidden leaf (see the docstring)."""
    checker, _ = checked(game_id)
    leaks = "\n  ".join(checker.leaks[:25])
    assert not checker.leaks, f"{game_id} leaks ({len(checker.leaks)}):\n  {leaks}{checker.demoted()}"
    worlds = checker.resolved + len(checker.unresolved)
    assert len(checker.unresolved) <= worlds // 4, (
        f"{game_id}: resolving the marked state raised in {len(checker.unresolved)} of {worlds} worlds:\n  "
        + "\n  ".join(checker.unresolved[:10])
    )
    assert checker.compared >= checker.resolved // 2, (
        f"{game_id}: only {checker.compared} of {checker.resolved} resolved worlds left the view after as it was, "
        "so few events were compared"
    )
    for when, used in (("views and notices", checker.levels_before), ("resolution", checker.levels_after)):
        kept = used.count(KEEP)
        assert kept <= len(used) // 2, (
            f"{game_id}: in {when}, {kept} of {len(used)} hidden leaves could not be changed at all; "
            f"the groups demoted:{checker.demoted()}"
        )


# -- the core never goes around view ------------------------------------------------------------------


def with_canary(game: GameModule) -> GameModule:
    """Return `game` whose state also carries a canary entitled to nobody (its own view unchanged)."""

    def setup(scenario: str, players: Sequence[str], options: Any) -> Any:
        return {**game.setup(scenario, players, options), CANARY_KEY: CANARY}

    def resolve(state: Any, orders: Any, dice: Any) -> tuple[Any, list[Event]]:
        new, events = game.resolve(state, orders, dice)
        return {**new, CANARY_KEY: CANARY}, events  # kept in every state, whatever the module copies

    def secrets(state: Any) -> list[Secret]:
        return [*game.secrets(state), ("/" + CANARY_KEY, ())]

    return dataclasses.replace(game, setup=setup, resolve=resolve, secrets=secrets)


def _order_file(game_name: str, turn: int, phase: str, player: str, orders: Any) -> bytes:
    head = dump({"game": game_name, "turn": turn, "phase": phase, "player": player, "seq": 1})
    return (head + dump({"orders": orders})).encode("utf-8")


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_core_mails_nothing_but_views(game_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A canary in the state, hidden by the game's own view, reaches no letter, record or output."""
    game = with_canary(_game(game_id))
    monkeypatch.setattr(games, "GAMES", tuple(game if g.id == game_id else g for g in games.GAMES))
    config = write_config(game, tmp_path / "setup", "canary")
    game_dir = tmp_path / "game"
    runner = CliRunner()
    printed = []

    def referee(*args: str | Path) -> Any:
        result = runner.invoke(cli, [str(a) for a in args])
        printed.append(result.output + (repr(result.exception) if result.exception else ""))
        return result

    assert referee("init", game_dir, "--config", config).exit_code == 0, printed[-1]
    for _ in range(6):
        opened = Game.open(game_dir)
        phase = opened.dir.open_phase()
        if phase is None:
            break
        state = opened.envelope(phase.state_before)["state"]
        spec = game.phase(state)
        assert spec is not None and state[CANARY_KEY] == CANARY
        for player in spec.active:
            raw = _order_file("canary", phase.turn, phase.phase, player, phase_orders(spec))
            order = tmp_path / f"{player}-{phase.seq}.yaml"
            order.write_bytes(raw)
            order.with_name(order.name + ".sig").write_text(
                sign(raw, load_private_key(config.parent / "keys" / player), NAMESPACE_ORDERS), encoding="utf-8"
            )
            referee("submit", game_dir, order)
        assert referee("adjudicate", game_dir, "--force").exit_code == 0, printed[-1]
        referee("status", game_dir)
    assert (game_dir / "records").is_dir() and (game_dir / "mail").is_dir()
    exempt = {"states", "journal.sqlite", "journal.sqlite-wal", "journal.sqlite-shm"}
    written = [p for p in game_dir.rglob("*") if p.is_file() and p.relative_to(game_dir).parts[0] not in exempt]
    assert any(p.relative_to(game_dir).parts[0] == "outbox" for p in written)
    leaked = [str(p.relative_to(game_dir)) for p in written if CANARY.encode() in p.read_bytes()]
    assert not leaked, f"{game_id}: the canary, hidden by the view, is in {leaked}"
    assert not [out for out in printed if CANARY in out], f"{game_id}: a command printed the canary"
