"""Every installed game keeps the contract: pure rules, imports only through referee.kit,
JSON-canonical states, views built for each role, and invariants that hold in play."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
import yaml
from play import dice_for, phase_orders, players_of

import games
from referee.kit import WHENS
from referee.kit.schema import check as schema_check
from referee.kit.schema import check_schema
from referee.protocol.canonical import canonical_json

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN_IN_GAMES = {"random", "time", "datetime", "os", "pathlib", "logging", "requests", "subprocess", "socket"}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_games_import_only_referee_api_and_nothing_impure() -> None:
    for path in (ROOT / "games").rglob("*.py"):
        for name in imports_of(path):
            top = name.split(".")[0]
            assert top not in FORBIDDEN_IN_GAMES, f"{path} imports {name}: game rules must be pure"
            if top == "referee":
                assert name == "referee.kit" or name.startswith("referee.kit."), (
                    f"{path} imports {name}: games use referee.kit (and its submodules) only"
                )


def test_core_never_imports_a_game_by_name() -> None:
    for path in (ROOT / "referee").rglob("*.py"):
        for name in imports_of(path):
            assert not name.startswith("games."), f"{path} imports {name}: the core reads games.GAMES"


def test_no_game_opens_files() -> None:
    for path in (ROOT / "games").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = {
            node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        assert "open" not in calls, f"{path} opens a file: data arrives through referee.kit.load_data"


@pytest.mark.parametrize("game", games.GAMES, ids=lambda g: g.id)
def test_game_ids_map_to_packages(game: Any) -> None:
    assert game.id.replace("-", "_") in {p.name for p in (ROOT / "games").iterdir() if p.is_dir()}


def freeze(value: Any) -> Any:
    """A deep read-only copy: a module that mutates its input fails loudly."""
    if isinstance(value, dict):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    if isinstance(value, MappingProxyType | dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [thaw(v) for v in value]
    return value


@pytest.mark.parametrize("game", games.GAMES, ids=lambda g: g.id)
def test_random_play_keeps_invariants_and_purity(game: Any) -> None:
    """A bounded play: each phase's example orders (or defaults), real dice fixed by phase."""
    for scenario in game.scenarios:
        players = players_of(game, scenario, {"rounds": 6})
        state = game.setup(scenario, list(players), {"rounds": 6})
        for step in range(20):
            spec = game.phase(state)
            if spec is None:
                break
            assert game.check(state) == []
            check_schema(spec.schema)  # a module's schema is well formed
            orders = {role: phase_orders(spec) for role in spec.active}
            for role, order in orders.items():
                assert game.validate(state, role, order) == [], f"{game.id}: its own example orders are refused"
            before = canonical_json(state)
            new_state, events = game.resolve(freeze(state), orders, dice_for(bytes([step]), spec.turn, spec.name))
            assert canonical_json(state) == before, "resolve changed its input"
            state = json.loads(canonical_json(thaw(new_state)))
            for event in events:
                canonical_json(event.as_dict())
            for role in (*players, None):
                canonical_json(game.view(state, role))
            assert_in_play_names_no_secret(game, state)
        assert game.check(state) == []


def assert_in_play_names_no_secret(game: Any, state: Any) -> None:
    """`in_play` is told to every player by a forced reveal: places and counts, no hidden value."""
    if game.in_play is None:
        return
    told = " ".join(item.what for item in game.in_play(state))
    for pointer, _ in game.secrets(state):
        value: Any = state
        for part in pointer.lstrip("/").split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            value = value[int(part)] if isinstance(value, list) else value[part]
        if isinstance(value, str) and len(value) >= 6:
            assert value not in told, f"{game.id}: in_play tells {pointer} to every player"


@pytest.mark.parametrize("game", games.GAMES, ids=lambda g: g.id)
def test_what_the_referee_may_supply_is_declared_soundly(game: Any) -> None:
    """Every module declares its needs (issue 15): unique ids, sound shapes, templates and examples
    that are supply files of that shape, and a pure `supply` that takes each example where it may."""
    supplies = game.supplies
    assert supplies is not None, f"{game.id} declares no Supplies (GameModule.supplies)"
    ids = [need.id for need in supplies.needs]
    assert len(ids) == len(set(ids)), f"{game.id}: a need id is declared twice"
    for need in supplies.needs:
        check_schema(need.shape)
        assert need.title and need.book and need.needed_by
        for text in (need.template, need.example):
            document = yaml.safe_load(text)
            assert document["supplies"] == need.id, f"{game.id} {need.id}: the file supplies {document['supplies']}"
            assert schema_check(document["data"], need.shape, "data") == [], f"{game.id} {need.id}"
        assert "NOT THE BOOK'S VALUES" in need.example.splitlines()[0], f"{need.id}'s example must say so first"
        assert "placeholder, not the book's" in need.template
    for scenario in game.scenarios:
        players = players_of(game, scenario)
        state = json.loads(canonical_json(game.setup(scenario, list(players), {})))
        said = supplies.wanted(freeze(state))
        assert sorted(w.need for w in said) == sorted(ids), f"{game.id}: wanted() names each need once"
        assert all(w.when in WHENS for w in said)
        for item in said:
            if item.when == "never":
                continue
            data = yaml.safe_load(supplies.by_id[item.need].example)["data"]
            before = canonical_json(state)
            new, problems = supplies.supply(freeze(state), item.need, freeze(data))
            assert problems == [], f"{game.id} {item.need}: its own example is refused: {problems}"
            assert canonical_json(state) == before, "supply changed its input"
            new = json.loads(canonical_json(thaw(new)))
            assert game.check(new) == []
            for role in (*players, None):
                canonical_json(game.view(new, role))
            again = {w.need: w.when for w in supplies.wanted(new)}
            assert again[item.need] in ("supplied", "default", "later", "now"), again
