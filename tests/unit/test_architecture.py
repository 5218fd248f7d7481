"""The core's layers, read from the code (docs/architecture.md).

Every import counts here: at the top of a module, inside a function, under TYPE_CHECKING. The
same rules are checked by import-linter (`lint-imports`, contracts in pyproject.toml) in
scripts/test; this test says which edge breaks them without it.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Top to bottom: a module imports only modules of its own layer or of the layers below it.
LAYERS = (
    ("referee.__main__",),
    ("referee.cli",),
    ("referee.demo",),
    ("referee.signing",),
    ("referee.mail",),
    ("referee.game",),
    ("referee.letters",),
    ("referee.kit",),
    ("referee.errors", "referee.files"),
    ("referee.protocol",),
)
PACKAGES = ("referee.protocol", "referee.kit", "referee.letters", "referee.game", "referee.mail")
# What the protocol may import besides itself: a player's checker can be lifted out of it whole.
PROTOCOL_MAY_IMPORT = {"cryptography", "yaml"}
# orjson writes and reads a big phase's JSON where its bytes are json's (referee.protocol.canonical),
# imported inside the function that needs it, and optional: without it the same bytes come slower.
FAST_JSON = ("orjson", "referee.protocol.canonical")
# drand_verify checks a public beacon's signature, and only referee.protocol.beacon may import
# it, inside the function that checks a round: records without a beacon need nothing more.
BEACON_LIBRARY = ("drand_verify", "referee.protocol.beacon")
# Imports of referee modules inside a function are deferred for start-up speed (`referee status`
# loads what it shows, issue 23): the command line defers each command's; elsewhere each says why
# in a comment on its line or the line above. (The layer and circle checks below see them too.)
DEFERRED_OK = {"referee.__main__", "referee.cli"}


def _modules(package: str) -> dict[str, Path]:
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


CORE = _modules("referee")
GAMES = _modules("games")


def _imports(name: str, path: Path) -> list[tuple[str, int, bool]]:
    """Return (imported module, line, inside a function) for every import in the module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    in_function = {
        id(node)
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
    }
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in CORE else base for alias in node.names]
        else:
            continue
        found += [(target, node.lineno, id(node) in in_function) for target in targets]
    return found


def _owner(target: str) -> str | None:
    """Return the core module a dotted import names (a module, or a name in one), if any."""
    while target:
        if target in CORE:
            return target
        target = target.rpartition(".")[0]
    return None


def _edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {name: set() for name in CORE}
    for name, path in CORE.items():
        for target, _, _ in _imports(name, path):
            owner = _owner(target)
            if owner is not None and owner != name and owner != "referee":
                edges[name].add(owner)
    return edges


def _layer(module: str) -> int | None:
    for index, layer in enumerate(LAYERS):
        if any(module == top or module.startswith(top + ".") for top in layer):
            return index
    return None


def test_every_core_module_has_a_layer() -> None:
    homeless = [name for name in CORE if name != "referee" and _layer(name) is None]
    assert not homeless, f"modules outside every layer (add them to a package, or to LAYERS): {homeless}"


def test_no_layer_imports_a_higher_one() -> None:
    wrong = []
    for name, targets in _edges().items():
        for target in targets:
            mine, theirs = _layer(name), _layer(target)
            if mine is not None and theirs is not None and theirs < mine:
                wrong.append(f"{name} imports {target}")
    assert not wrong, "imports against the layers (cli -> mail -> game -> letters -> kit -> protocol):\n" + "\n".join(
        sorted(wrong)
    )


def test_no_import_circle_among_the_core_modules() -> None:
    edges = _edges()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(edges[module]):
            if state.get(target) == 1:
                circles.append(path[path.index(target) :] + [target])
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(edges)))
    for module in sorted(edges):
        if module not in state:
            visit(module)
    assert not circles, "import circles:\n" + "\n".join(" -> ".join(circle) for circle in circles)


def test_the_protocol_needs_nothing_outside_itself() -> None:
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    wrong = []
    for name, path in CORE.items():
        if not name.startswith("referee.protocol"):
            continue
        for target, line, deferred in _imports(name, path):
            top = target.partition(".")[0]
            inside = target == "referee.protocol" or target.startswith("referee.protocol.")
            beacon = (top, name) == BEACON_LIBRARY and deferred
            fast_json = (top, name) == FAST_JSON and deferred
            if not (inside or beacon or fast_json or top in stdlib or top in PROTOCOL_MAY_IMPORT):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    allowed = "the stdlib, cryptography, yaml (and drand_verify, orjson)"
    assert not wrong, f"the protocol imports more than {allowed}:\n" + "\n".join(wrong)


def test_games_import_only_the_kit() -> None:
    wrong = []
    for name, path in GAMES.items():
        for target, line, _ in _imports(name, path):
            if target.partition(".")[0] == "referee" and not (
                target == "referee.kit" or target.startswith("referee.kit.")
            ):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not wrong, "games import only referee.kit:\n" + "\n".join(wrong)


def test_no_core_import_hides_in_a_function_without_saying_why() -> None:
    hidden = []
    for name, path in CORE.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        for target, line, deferred in _imports(name, path):
            said = "#" in lines[line - 1] or lines[line - 2].strip().startswith("#")
            if name not in DEFERRED_OK and deferred and _owner(target) not in (None, "referee") and not said:
                hidden.append(f"{path.relative_to(ROOT)}:{line} imports {target} inside a function, saying not why")
    assert not hidden, "\n".join(hidden)


@pytest.mark.parametrize("package", PACKAGES)
def test_each_layer_says_what_it_holds_and_may_import(package: str) -> None:
    docstring = ast.get_docstring(ast.parse(CORE[package].read_text(encoding="utf-8"))) or ""
    assert "import" in docstring and len(docstring) > 200, f"{package}/__init__.py needs its paragraph"


def test_the_checker_sees_a_circle_and_a_wrong_way_import(tmp_path: Path) -> None:
    """The rules above are not vacuous: a planted circle and a planted upward import are found."""
    global CORE
    saved = CORE
    planted = tmp_path / "letters_probe.py"
    planted.write_text("def f():\n    from referee.mail import run\n", encoding="utf-8")
    circle = tmp_path / "protocol_probe.py"
    circle.write_text("from referee.protocol import verify\n", encoding="utf-8")
    try:
        CORE = {**saved, "referee.letters.probe": planted}
        with pytest.raises(AssertionError, match="referee.letters.probe imports referee.mail.run"):
            test_no_layer_imports_a_higher_one()
        CORE = {**saved, "referee.protocol.dice": circle}
        with pytest.raises(AssertionError, match="import circles"):
            test_no_import_circle_among_the_core_modules()
    finally:
        CORE = saved
