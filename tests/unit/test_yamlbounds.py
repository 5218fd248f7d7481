"""Tests for referee.protocol.yamlbounds: YAML measured before any parser sees it (issue 14)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.protocol.orders import ORDER_LIMITS, order_file_problems
from referee.protocol.yamlbounds import UNTRUSTED, Limits, measure
from referee.protocol.yamlsafe import StrictYAMLError, YAMLLimitError, load_strict

ROOT = Path(__file__).resolve().parents[2]
HEAD = "game: g1\nturn: 1\nphase: round\nplayer: alice\norders:\n"


def depth_of(value: object) -> int:
    """The nesting depth of parsed YAML."""
    if isinstance(value, dict):
        return 1 + max([depth_of(x) for x in value.values()] + [0])
    if isinstance(value, list):
        return 1 + max([depth_of(x) for x in value] + [0])
    return 0


def composed_depth(text: str) -> int:
    """The nesting depth of the collections the parser builds (keys included), by the pure-Python
    composer, which does not crash on depth."""
    deepest, todo = 0, [(yaml.compose(text, Loader=yaml.SafeLoader), 0)]
    while todo:
        node, above = todo.pop()
        if isinstance(node, yaml.SequenceNode):
            todo += [(item, above + 1) for item in node.value]
        elif isinstance(node, yaml.MappingNode):
            todo += [(item, above + 1) for pair in node.value for item in pair]
        else:
            continue
        deepest = max(deepest, above + 1)
    return deepest


def measured_depth(text: str) -> int:
    excess = measure(text, Limits(chars=10**9, depth=0, values=10**9))
    return excess.found if excess is not None and excess.kind == "depth" else 0


@pytest.mark.parametrize(
    "text, depth",
    [
        ("a: 1\n", 1),
        ("a:\n  b:\n    c: [1, {d: [2]}]\n", 6),
        ("- - - x\n", 3),
        ("a:\n- b:\n  - c\n", 4),
        ("- a: 1\n  b: {c: 2}\n", 3),
        ("a: |\n  [[[[\n   {{{{\nb: 1\n", 1),
        ('a: \'[[[[\'\nb: "{{\\"{{"\n', 1),
        ("a: 'it''s [\n  still quoted ['\nb: [1]\n", 2),
        ("--- [[1]]\n", 2),
        ("a: [1, # a comment [[[[\n  2]\n", 2),
        ("? [a]\n: b\n", 2),
    ],
)
def test_depth_is_counted_exactly_on_plain_shapes(text: str, depth: int) -> None:
    assert composed_depth(text) == depth
    assert measured_depth(text) == depth


def test_every_yaml_file_of_the_project_is_measured_at_its_true_depth() -> None:
    files = [*ROOT.glob("games/**/*.yaml"), *ROOT.glob("tests/golden/**/*.yaml")]
    assert len(files) > 50
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert measured_depth(text) == composed_depth(text), path
        assert measure(text, UNTRUSTED) is None, path


def test_the_order_file_that_crashed_libyaml_is_refused_in_a_subprocess_that_survives() -> None:
    """50 KB of brackets made libyaml recurse in C until the process died (SIGSEGV, issue 14)."""
    driver = textwrap.dedent(
        """
        from referee.protocol.orders import order_file_problems
        raw = b"HEAD" + b"  note: " + b"[" * 25000 + b"]" * 25000 + b"\\n"
        (problem,) = order_file_problems(raw)
        print(problem.code, problem.message)
        """
    ).replace("HEAD", HEAD.replace("\n", "\\n"))
    run = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, (run.returncode, run.stderr)
    assert run.stdout.startswith("invalid.too-deep your order file nests 25,002 levels deep; at most 64 are allowed")


@pytest.mark.parametrize(
    "body, kind",
    [
        ("  note: " + "[" * 70 + "]" * 70 + "\n", "depth"),
        ("  note: " + "{a: " * 70 + "1" + "}" * 70 + "\n", "depth"),
        ("".join("  " * (i + 1) + f"k{i}:\n" for i in range(70)), "depth"),
        ("  note: [" + "1," * 10_001 + "1]\n", "values"),
    ],
)
def test_order_files_over_the_limits_get_a_problem_saying_so(body: str, kind: str) -> None:
    (problem,) = order_file_problems((HEAD + body).encode())
    assert problem.code == {"depth": "invalid.too-deep", "values": "invalid.too-many-values"}[kind]
    limit = ORDER_LIMITS.depth if kind == "depth" else ORDER_LIMITS.values
    assert f"at most {limit:,} are allowed" in problem.message and "your order file" in problem.message


@pytest.mark.parametrize(
    "text",
    ["a: &x 1\nb: *x\n", "a: [&x 1, *x]\n", "- &a\n  - 1\n", "a: !!str &x b\n", "a: {b: *x}\n"],
)
def test_anchors_and_aliases_are_refused_before_parsing(text: str) -> None:
    with pytest.raises(YAMLLimitError, match="anchors and aliases"):
        load_strict(text)


def test_a_billion_laughs_is_refused_before_it_expands() -> None:
    lol = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    lol += "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
    with pytest.raises(YAMLLimitError) as raised:
        load_strict(lol)
    assert raised.value.excess.kind == "alias" and raised.value.excess.line == 1


def test_the_exact_check_after_parsing_agrees_with_the_limit() -> None:
    ok = "a: " + "[" * 63 + "]" * 63 + "\n"
    assert depth_of(load_strict(ok)) == 64
    with pytest.raises(StrictYAMLError, match="64"):
        load_strict("a: " + "[" * 64 + "]" * 64 + "\n")


# Text near YAML's syntax: indicators, quotes, block scalars, comments, documents, line breaks.
PIECES = st.sampled_from(
    [*"[]{}-?:, \n'\"|>#!ab1\t", "- ", ": ", "\n  ", "\n    ", "|\n", ">2\n", "'a'", '"a\\"b"', "\r\n", "--- "]
)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(PIECES, max_size=60).map("".join))
def test_the_measure_never_counts_fewer_levels_than_the_parser_builds(text: str) -> None:
    try:
        depth = composed_depth(text)
    except yaml.YAMLError:
        return
    excess = measure(text, Limits(chars=10**9, depth=0, values=10**9))
    if excess is not None and excess.kind == "alias":
        return
    assert measured_depth(text) >= depth


def test_a_plain_scalar_is_resolved_once_a_document(monkeypatch: pytest.MonkeyPatch) -> None:
    resolved: list[str] = []
    original = yaml.resolver.BaseResolver.resolve

    def counting(self: Any, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode and implicit[0]:  # plain, not quoted
            resolved.append(value)
        return original(self, kind, value, implicit)

    monkeypatch.setattr(yaml.resolver.BaseResolver, "resolve", counting)
    rolls = "".join(f"  - {{label: r{i}, dice: 2d6, purpose: roll, n: {i % 2}, t: yes}}\n" for i in range(100))
    data = load_strict("rolls:\n" + rolls + "other: '2d6'\n")
    assert data["rolls"][7] == {"label": "r7", "dice": "2d6", "purpose": "roll", "n": 1, "t": True}
    assert data["other"] == "2d6"
    # rolls, other, label, dice, purpose, n, t, 2d6, roll, 0, 1, yes and r0..r99: each text once
    assert len(resolved) == len(set(resolved)) == 12 + 100
