"""The generic leak test: every game module, present and future, keeps its secrets.

A module's `secrets(state)` names each hidden leaf of its state (a JSON pointer) and the roles
entitled to see it. For states reached by bounded play (tests/contract/play.py), and for each
role and the public, this test builds the *world* that role must not tell apart from the real
one: every leaf the role is not entitled to gets a marker of its own type ("LEAKMARK0007Q", a
9-digit 731xxxxxx, a flipped bool, a text for a null). Then:

- views: the role's view of the marked world holds no marker and equals its view of the real
  state (a view must not even depend on what it hides);
- notices: the letter the core would mail (the real templates, through letters.notice_context)
  holds no marker and reads the same;
- resolution: the marked world is resolved with the phase's example orders and real dice (with
  a hidden key). An event the role sees, the public record and the role's report may hold a
  marker only if the rules revealed it (it is in the role's view after); and when the role's
  view after is the same as in the real game, so must be its events and the record's draws.

Where a marker breaks a rule (a card's type is a key into the troop data), that group of
leaves (the pointer with list indices as *) is demoted: from a marker to another value the same
leaves hold elsewhere (checked by comparison only), then to no change. The test asserts most
hidden leaves stay changed, so a module cannot dodge it by crashing.

Last, the core never goes around `view`: each game, wrapped so its state carries a canary
entitled to nobody, is played through the real engine and CLI, and nothing it writes for
players, nor what its commands print, may hold the canary.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest
from click.testing import CliRunner
from play import Reached, canonical, dice_for, phase_orders, players_of, reach

import games
from referee import PROTOCOL
from referee.adjudication import Outcome, public_openings
from referee.api import Event, GameModule, PhaseSpec, Secret
from referee.canonical import canonical_json, pretty_json
from referee.cli import cli
from referee.engine import Game
from referee.journal import OpenPhase
from referee.letters import notice_context, report_context
from referee.reports import render
from referee.signatures import NAMESPACE_ORDERS, generate_keypair, load_private_key, sign
from referee.yamlsafe import dump

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
    world = World(copy.deepcopy(state))
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
                for group, error in blamed.items():
                    level = world.changed[group] + 1
                    self.levels[group] = level
                    self.why[group] = f"{LEVELS[level]} ({LEVELS[level - 1]} raised {error[:120]})"


# -- letters, rendered by the core's own functions -------------------------------------------------


def harness(game: GameModule) -> Any:
    """Return the least of a core `Game` that notice_context and report_context read."""
    config = SimpleNamespace(
        game="leak-test", title="Leak test", referee_email="referee@example.org", referee_name="Referee", players=[]
    )
    return SimpleNamespace(
        config=config,
        module=game,
        referee_key_line="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIleaktest referee@leak-test",
        hidden_commit="0" * 64,
        schedule=SimpleNamespace(rule=lambda phase: None),
        dir=None,
    )


def open_phase(spec: PhaseSpec) -> OpenPhase:
    """Return a journal row for the phase `spec` opens."""
    return OpenPhase(
        1, spec.turn, spec.name, "c" * 64, "b" * 64, "2024-01-01T00:00:00Z", tuple(spec.active), None, None, None
    )


def notice_text(game: GameModule, state: Any, spec: PhaseSpec | None, player: str) -> str:
    """Return the notice `player` would get (text, HTML and the attached view), or "" when over."""
    if spec is None:
        return ""
    context, view_bytes = notice_context(harness(game), open_phase(spec), spec, state, player)
    text, html = render("notice", context)
    return "\n".join((text, html, view_bytes.decode("utf-8")))


def record_of(spec: PhaseSpec, orders: dict[str, Any], dice: Any, events: list[Event]) -> dict[str, Any]:
    """Return the public record of a phase, as adjudication writes it (seed fields faked)."""
    return {
        "protocol": PROTOCOL,
        "game": "leak-test",
        "turn": spec.turn,
        "phase": spec.name,
        "commit": "c" * 64,
        "server_seed": "5" * 64,
        "beacon": None,
        "orders": [{"player": p, "sha256": "0" * 64} for p in sorted(orders)],
        "rolls": dice.rolls,
        "state_before": "b" * 64,
        "state_after": "a" * 64,
        "next_commit": "n" * 64,
        "hidden": dice.hidden.entries,
        "opened": public_openings(events),
    }


def report_text(
    game: GameModule, spec: PhaseSpec, record: dict[str, Any], events: list[Event], new: Any, player: str
) -> str:
    """Return the report `player` would get: text, HTML, the attached view and the record."""
    after = game.phase(new)
    envelope = {"state": new, "over": after is None, "turn": after and after.turn, "phase": after and after.name}
    record_bytes = pretty_json(record)
    outcome = Outcome(open_phase(spec), record, record_bytes, events, [], envelope, None)  # type: ignore[arg-type]
    context, attachments = report_context(harness(game), outcome, player)
    text, html = render("report", context)
    return "\n".join((text, html, *(a.data.decode("utf-8") for a in attachments), record_bytes.decode("utf-8")))


# -- what a role gets ------------------------------------------------------------------------------


def text_of(value: Any) -> str:
    """Return plain data as canonical JSON text."""
    return canonical_json(value).decode("utf-8")


def before_outputs(game: GameModule, state: Any, role: str | None) -> tuple[str, str]:
    """Return what `role` gets while the phase is open: its view and its notice."""
    view = text_of(game.view(state, role))
    return view, notice_text(game, state, game.phase(state), role) if role is not None else ""


@dataclass
class After:
    """What `role` gets from resolving a phase: events it sees, the record, its view and report."""

    orders: dict[str, Any]
    events: list[dict[str, Any]]
    record: dict[str, Any]
    view: str
    report: str

    def public_part(self) -> str:
        """Return what must be the same in a world the role cannot tell apart: events and draws."""
        events = [{**e, "data": _without_salts(e["data"])} for e in self.events]
        draws = {
            "rolls": self.record["rolls"],
            "hidden": [{"label": h["label"], "spec": h["spec"]} for h in self.record["hidden"]],
            "opened": [{k: v for k, v in o.items() if k != "salt"} for o in self.record["opened"]],
        }
        return text_of({"events": events, "draws": draws})


def _without_salts(data: dict[str, Any]) -> dict[str, Any]:
    if "openings" not in data:
        return data
    openings = [{k: v for k, v in o.items() if k not in ("salt", "commitment")} for o in data["openings"]]
    return {**data, "openings": openings}


def after_outputs(game: GameModule, state: Any, role: str | None) -> After:
    """Resolve the open phase with its example orders and real dice; return what `role` gets."""
    spec = game.phase(state)
    assert spec is not None
    orders = {r: phase_orders(spec) for r in spec.active}
    dice = dice_for(SEED, spec.turn, spec.name)
    new_state, events = game.resolve(state, orders, dice)
    new = canonical(new_state)
    seen = [e for e in events if e.is_visible_to(role)]
    record = record_of(spec, orders, dice, events)
    report = report_text(game, spec, record, events, new, role) if role is not None else ""
    return After(orders, [e.as_dict() for e in seen], record, text_of(game.view(new, role)), report)


class DriftError(Exception):
    """A changed world in which the phase's example orders differ: its play is another game."""


# -- the run over one game --------------------------------------------------------------------------


@dataclass
class LeakRun:
    """What checking one game found."""

    states: int = 0
    with_secrets: int = 0
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
        listed = ", ".join(
            sorted({f"{leaf.pointer} (for {', '.join(sorted(leaf.entitled)) or 'nobody'})" for leaf in leaves})
        )
        self.leaks.append(f"{where}: {role or 'the public'} {what}: {listed}")


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


def check_state(game: GameModule, item: Reached, run: LeakRun) -> None:
    """Check one state for every role and the public (see the module docstring)."""
    state, where = item.state, item.origin
    leaves = hidden_leaves(game, state)
    pools = pools_of(leaves)
    real_after: dict[str | None, After] = {}
    for role in (*item.players, None):
        mine = [leaf for leaf in leaves if role is None or role not in leaf.entitled]
        if not mine:
            continue
        view, notice = before_outputs(game, state, role)
        world, (marked_view, marked_notice) = run.static.settle(
            state, mine, pools, lambda w, r=role: before_outputs(game, w.state, r)
        )
        run.levels_before += world.levels_used
        if found := world.found(marked_view):
            run.leak(where, role, "sees in its view", found)
        elif marked_view != view:
            run.leak(
                where,
                role,
                "has a view that depends on",
                _culprits(state, mine, pools, run.static, lambda w, r=role: text_of(game.view(w.state, r)), view),
            )
        if found := world.found(marked_notice):
            run.leak(where, role, "is mailed in its notice", found)
        elif marked_notice != notice:
            run.leak(
                where,
                role,
                "gets a notice that depends on",
                _culprits(
                    state, mine, pools, run.static, lambda w, r=role: before_outputs(game, w.state, r)[1], notice
                ),
            )
        _check_resolution(game, item, role, mine, pools, run, real_after)


def _check_resolution(
    game: GameModule,
    item: Reached,
    role: str | None,
    mine: list[Leaf],
    pools: dict[str, list[Any]],
    run: LeakRun,
    real_after: dict[str | None, After],
) -> None:
    state, where = item.state, item.origin
    for group, level in run.static.levels.items():  # what breaks a view or a notice breaks resolution too
        run.dynamic.levels[group] = max(level, run.dynamic.levels.get(group, MARK))
    if role not in real_after:
        real_after[role] = after_outputs(game, state, role)
    real = real_after[role]

    def resolved(world: World) -> After:
        after = after_outputs(game, world.state, role)
        if world.unmarked(after.orders) != real.orders:
            raise DriftError(f"the example orders became {text_of(after.orders)[:80]}")
        return after

    try:
        world, after = run.dynamic.settle(state, mine, pools, resolved)
    except Exception as error:
        run.unresolved.append(f"{where} ({role or 'public'}): {type(error).__name__}: {error}")
        return
    run.resolved += 1
    run.levels_after += world.levels_used
    revealed = world.found(after.view)
    for what, text in (
        ("sees in an event", text_of(after.events)),
        ("gets in the public record", text_of(after.record)),
        ("is mailed in its report", after.report),
    ):
        if extra := [leaf for leaf in world.found(text) if leaf not in revealed]:
            run.leak(where, role, what + " (its view after does not show it)", extra)
    if after.view != real.view:
        return  # the rules revealed something of what changed: the events may differ
    run.compared += 1
    if after.public_part() != real.public_part():

        def differs(w: World) -> str:
            other = after_outputs(game, w.state, role)
            return "same" if other.view != real.view or other.public_part() == real.public_part() else "differs"

        culprits = _culprits(state, mine, pools, run.dynamic, differs, "same")
        run.leak(where, role, "gets events or draws (its view after unchanged) that depend on", culprits)


def _culprits(
    state: Any,
    leaves: list[Leaf],
    pools: dict[str, list[Any]],
    settler: Settler,
    compute: Callable[[World], str],
    expected: str,
) -> list[Leaf]:
    """Return the leaves of the groups that change `compute` by themselves."""
    groups = sorted({leaf.group for leaf in leaves})
    blamed = []
    for group in groups:
        try:
            differs = compute(build_world(state, leaves, pools, settler.levels, only=group)) != expected
        except Exception:
            differs = True
        if differs:
            blamed += [leaf for leaf in leaves if leaf.group == group]
    return blamed or leaves


@functools.cache
def leak_run(game_id: str) -> tuple[LeakRun, list[Reached]]:
    """Return what checking the game found, and the states its plays reached."""
    game = next(g for g in games.GAMES if g.id == game_id)
    reached = reach(game)
    run = LeakRun(states=len(reached), with_secrets=sum(1 for r in reached if game.secrets(r.state)))
    for item in sample(game, reached, STATES_PER_GAME):
        check_state(game, item, run)
    return run, reached


GAME_IDS = [g.id for g in games.GAMES]


def _game(game_id: str) -> GameModule:
    return next(g for g in games.GAMES if g.id == game_id)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_play_reaches_states_with_secrets(game_id: str) -> None:
    """A game that declares secrets must reach some, or its leak test would test nothing."""
    game = _game(game_id)
    run, reached = leak_run(game_id)
    assert reached, f"{game_id}: bounded play reached no open phase"
    if not default_secrets(game):
        assert run.with_secrets, (
            f"{game_id} declares secrets, but none of the {len(reached)} states its plays reach has any: "
            "give its phases examples that reach them, or a test bot (tests/contract/play.py BOTS)"
        )


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_no_hidden_leaf_reaches_a_role_not_entitled(game_id: str) -> None:
    """Views, notices, events, the record and reports keep every hidden leaf (see the docstring)."""
    run, _ = leak_run(game_id)
    demoted = "".join(f"\n    {group}: {why}" for group, why in sorted({**run.static.why, **run.dynamic.why}.items()))
    assert not run.leaks, f"{game_id} leaks ({len(run.leaks)}):\n  " + "\n  ".join(run.leaks[:25]) + demoted
    worlds = run.resolved + len(run.unresolved)
    assert len(run.unresolved) <= worlds // 4, (
        f"{game_id}: resolving the marked state raised in {len(run.unresolved)} of {worlds} worlds:\n  "
        + "\n  ".join(run.unresolved[:10])
    )
    for when, used in (("views and notices", run.levels_before), ("resolution", run.levels_after)):
        kept = used.count(KEEP)
        assert kept <= len(used) // 2, (
            f"{game_id}: in {when}, {kept} of {len(used)} hidden leaves could not be changed at all; "
            f"the groups demoted:{demoted}"
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
    scenario = game.scenarios[0]
    players = players_of(game, scenario, {"rounds": 3})
    setup = tmp_path / "setup"
    (setup / "keys").mkdir(parents=True)
    lines = [
        "game: canary",
        f"module: {game_id}",
        f"scenario: {scenario}",
        "title: Canary",
        "options: {rounds: 3}",
        "referee: {email: referee@example.org, name: Test Referee}",
        "players:",
    ]
    for player in players:
        generate_keypair(setup / "keys" / player, comment=f"{player}@example.org")
        lines.append(f"  - {{name: {player}, email: {player}@example.org, key_file: keys/{player}.pub}}")
    (setup / "game.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    game_dir = tmp_path / "game"
    runner = CliRunner()
    printed = []

    def referee(*args: str | Path) -> Any:
        result = runner.invoke(cli, [str(a) for a in args])
        printed.append(result.output + (repr(result.exception) if result.exception else ""))
        return result

    assert referee("init", game_dir, "--config", setup / "game.yaml").exit_code == 0, printed[-1]
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
                sign(raw, load_private_key(setup / "keys" / player), NAMESPACE_ORDERS), encoding="utf-8"
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
