"""`yamlsafe.dump` writes PyYAML's bytes: plain data is made into nodes directly and scalars'
tags resolved once per text (`_PlainDumper`), and the result is compared here with PyYAML's
own representer over varied values, also those it leaves to that representer."""

from __future__ import annotations

import random
from typing import Any

import yaml

from referee.protocol import yamlsafe

AWKWARD_TEXTS = [
    "",
    " ",
    "p1",
    "yes",
    "No",
    "null",
    "~",
    "true",
    "1",
    "-3",
    "0x1f",
    "1.5",
    "1e3",
    ".inf",
    "2026-11-28",
    "a: b",
    "- x",
    "#c",
    "x #c",
    "'q'",
    '"q"',
    "a\nb",
    "a\nb\n",
    "tab\there",
    "é ünï",
    "word " * 30,
    "x" * 200,
    "[1]",
    "{a: 1}",
    "&a",
    "*a",
    "!tag",
    "%",
    "@",
    "`",
    "?",
    ":",
    "a:",
    " lead",
    "trail ",
    "\u2028",
    "\x85",
]


def value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(10 if depth < 4 else 5)
    if kind == 0:
        return rng.choice(AWKWARD_TEXTS)
    if kind == 1:
        return rng.randrange(-(10**20), 10**20)
    if kind == 2:
        return rng.choice([True, False, None])
    if kind == 3:
        return f"p{rng.randrange(40)}"
    if kind == 4:
        return rng.choice(AWKWARD_TEXTS) + rng.choice(AWKWARD_TEXTS)
    if kind < 7:
        return [value(rng, depth + 1) for _ in range(rng.randrange(5))]
    keys = [rng.choice(AWKWARD_TEXTS + ["game", "you", "round"]) for _ in range(rng.randrange(5))]
    return {key: value(rng, depth + 1) for key in keys}


def pyyaml(data: Any) -> str:
    return yaml.dump(data, Dumper=yamlsafe._BaseDumper, sort_keys=False, allow_unicode=True, default_flow_style=False)


def test_a_dump_is_the_text_pyyaml_writes() -> None:
    rng = random.Random(23)
    for _ in range(600):
        data = {"game": "moderator", "you": "p1", "data": value(rng)}
        assert yamlsafe.dump(data) == pyyaml(data)
        top = value(rng)
        assert yamlsafe.dump(top) == pyyaml(top)


def test_what_the_fast_path_leaves_goes_to_the_representer() -> None:
    shared = ["a", "b"]
    for data in ({"x": 1.5, "y": [0.1, float("inf")]}, {"one": shared, "two": shared}, {"t": (1, 2)}, {3: "int key"}):
        assert yamlsafe.dump(data) == pyyaml(data)
    assert "&id001" in yamlsafe.dump({"one": shared, "two": shared})  # an anchor and alias, as PyYAML writes


def test_a_mappings_yaml_is_its_entries_yaml_one_after_the_other() -> None:
    # What referee.letters.content relies on to dump the entries the players' views share once.
    rng = random.Random(5)
    for _ in range(1500):
        keys = [rng.choice([*AWKWARD_TEXTS, "game", "you", "x" * 200]) for _ in range(rng.randrange(1, 8))]
        data = {key: value(rng) for key in keys}
        assert yamlsafe.dump(data) == "".join(yamlsafe.dump({key: item}) for key, item in data.items())
