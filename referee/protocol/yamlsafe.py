"""Strict YAML reading for untrusted input: no anchors or aliases, no duplicate keys,
no timestamps or binary, only plain JSON-like data (the libyaml C parser when present).

libyaml composes nested collections by recursion in C, where Python's recursion limit does not
reach: a few kilobytes of `[[[[...` crash the process. So before any parser sees the text,
`referee.protocol.yamlbounds` measures it in one flat pass (size, nesting, values, anchors).
"""

from __future__ import annotations

import math
from typing import Any

import yaml

from referee.protocol.display import shown
from referee.protocol.yamlbounds import UNTRUSTED, Excess, Limits, measure

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class StrictYAMLError(ValueError):
    """The text is not acceptable YAML; the message says where and why."""


class YAMLLimitError(StrictYAMLError):
    """The text is over one of the limits checked before parsing; `excess` says which and by how much."""

    def __init__(self, excess: Excess) -> None:
        super().__init__(excess.describe("the YAML"))
        self.excess = excess


class _StrictLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe loader that refuses duplicate keys and reads dates as plain text."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._plain_tags: dict[str, str] = {}

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        # A plain scalar's tag depends on its text alone (this loader has no path resolvers): an
        # order file repeats its keys and values for every roll, and each cost a regex search.
        if kind is yaml.ScalarNode and implicit[0] and not self.yaml_path_resolvers:
            tag = self._plain_tags.get(value)
            if tag is None:
                tag = self._plain_tags[value] = super().resolve(kind, value, implicit)
            return tag
        return super().resolve(kind, value, implicit)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise StrictYAMLError(f"line {key_node.start_mark.line + 1}: key {shown(key)} must be a text")
            if key in seen:
                raise StrictYAMLError(f"line {key_node.start_mark.line + 1}: key '{key}' appears twice")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


# Dates become text, so that order files hold only data that survives JSON and hashing.
_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}


def _refuse_tag(loader: Any, node: yaml.Node) -> Any:
    raise StrictYAMLError(f"line {node.start_mark.line + 1}: the YAML tag {node.tag} is not allowed here")


_StrictLoader.add_constructor(None, _refuse_tag)  # type: ignore[arg-type]
for _tag in (
    "tag:yaml.org,2002:binary",
    "tag:yaml.org,2002:set",
    "tag:yaml.org,2002:omap",
    "tag:yaml.org,2002:pairs",
    "tag:yaml.org,2002:timestamp",
):
    _StrictLoader.add_constructor(_tag, _refuse_tag)


def load_strict(text: str, limits: Limits = UNTRUSTED) -> Any:
    """Return the single YAML document in `text` as plain data, or raise StrictYAMLError.

    The text is measured against `limits` first (YAMLLimitError), so no parser ever sees a
    document nested deeper, larger or with more values than they allow, or any anchor or alias.
    """
    excess = measure(text, limits)
    if excess is not None:
        raise YAMLLimitError(excess)
    loader = _StrictLoader(text)
    try:
        # One parse: the document is composed into nodes once, checked, then constructed.
        node = loader.get_single_node()
        value = _plain(loader, node, limits.depth) if node is not None else None
    except StrictYAMLError:
        raise
    except yaml.MarkedYAMLError as exc:
        where = f"line {exc.problem_mark.line + 1}, column {exc.problem_mark.column + 1}: " if exc.problem_mark else ""
        raise StrictYAMLError(f"{where}{exc.problem or exc.context or 'not valid YAML'}") from None
    except yaml.YAMLError as exc:
        raise StrictYAMLError(f"not valid YAML: {exc}") from None
    except RecursionError:
        raise StrictYAMLError("the YAML is nested too deeply") from None
    except ValueError:  # int() refuses numbers of thousands of digits
        raise StrictYAMLError("the YAML holds a number with thousands of digits") from None
    finally:
        loader.dispose()
    return value


_TAG = "tag:yaml.org,2002:"
_SCALARS = {_TAG + "null", _TAG + "bool", _TAG + "int", _TAG + "float"}


class _Unusual(Exception):
    """What the direct ways leave to PyYAML: a node to its constructor (a merge key `<<`, say), a
    value to its representer (a float, a subclass, a list that appears twice)."""


def _plain(loader: Any, root: yaml.Node, most: int) -> Any:
    """Return the plain data of the composed document `root`, checked as `load_strict` promises.

    Plain data is built straight from the nodes, in one walk that also refuses aliases, keys
    that are not text or appear twice, nesting deeper than `most` and numbers that are not
    finite: PyYAML's generic constructor cost twice as much for an order file of many rolls.
    A node it does not know (merge keys, odd tags) goes to that constructor, checked after.
    """
    seen: set[int] = set()

    def build(node: yaml.Node, enclosing: int) -> Any:
        if id(node) in seen:  # the composer makes an alias the very node its anchor names
            raise StrictYAMLError(f"line {node.start_mark.line + 1}: {_ALIASES}")
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if node.tag == _TAG + "str":
                return node.value
            if node.tag not in _SCALARS:
                raise _Unusual
            value = loader.yaml_constructors[node.tag](loader, node)
            if isinstance(value, float) and not math.isfinite(value):
                raise StrictYAMLError("numbers must be finite (no .nan or .inf)")
            return value
        if enclosing >= most:
            raise StrictYAMLError(f"the YAML nests more than {most} levels deep")
        if isinstance(node, yaml.SequenceNode) and node.tag == _TAG + "seq":
            return [build(item, enclosing + 1) for item in node.value]
        if not (isinstance(node, yaml.MappingNode) and node.tag == _TAG + "map"):
            raise _Unusual
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag in (_TAG + "merge", _TAG + "value"):
                raise _Unusual
            key = build(key_node, enclosing + 1)
            if not isinstance(key, str):
                raise StrictYAMLError(f"line {key_node.start_mark.line + 1}: key {shown(key)} must be a text")
            if key in mapping:
                raise StrictYAMLError(f"line {key_node.start_mark.line + 1}: key '{key}' appears twice")
            mapping[key] = build(value_node, enclosing + 1)
        return mapping

    try:
        return build(root, 0)
    except _Unusual:
        _refuse_aliases(root)
        value = loader.construct_document(root)
        _check_plain(value, 0, most)
        return value


_ALIASES = "YAML anchors and aliases (& and *) are not allowed; write the value out in full"


def _refuse_aliases(root: yaml.Node) -> None:
    """Refuse a node met twice: the composer makes an alias the very node its anchor names, so a
    repeat is an alias (the measure refuses the `&` and `*` it sees; this is the exact check)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            line = node.start_mark.line + 1 if node.start_mark else "?"
            raise StrictYAMLError(
                f"line {line}: YAML anchors and aliases (& and *) are not allowed; write the value out in full"
            )
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, item in node.value:
                stack += (key, item)
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value


def _check_plain(value: Any, enclosing: int, most: int) -> None:
    if isinstance(value, (dict, list)):
        if enclosing >= most:  # the measure over-counts, so this seldom fires; it is the exact check
            raise StrictYAMLError(f"the YAML nests more than {most} levels deep")
        for item in value.values() if isinstance(value, dict) else value:
            _check_plain(item, enclosing + 1, most)
    elif isinstance(value, float) and not math.isfinite(value):
        raise StrictYAMLError("numbers must be finite (no .nan or .inf)")


def dump(value: Any) -> str:
    """Return `value` as block-style YAML with keys in the order given (libyaml when present)."""
    return yaml.dump(value, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True, default_flow_style=False)


_TAGS = {str: _TAG + "str", int: _TAG + "int", bool: _TAG + "bool", type(None): _TAG + "null"}
_MAP_TAG, _SEQ_TAG = _TAG + "map", _TAG + "seq"
_resolved: dict[tuple[str, Any], str] = {}
RESOLVED_KEPT = 4096


class _PlainDumper(_BaseDumper):  # type: ignore[misc,valid-type]
    """The dumper of `dump`, giving PyYAML's bytes for less: each player's view is dumped on an
    adjudication's path. Plain data (dicts, lists, texts, whole numbers, booleans, None) is made
    into nodes here, as the safe representer makes them, not through its generic dispatch with
    alias tracking; and a scalar's implicit tag is resolved once per text, not twice per scalar
    written (a pure function of the text without path resolvers, which no dumper here has).
    Anything else goes through the representer (`tests/unit/test_yaml_dump.py` compares both)."""

    def represent(self, data: Any) -> None:
        try:
            node = _node(data, set())
        except (_Unusual, RecursionError):
            super().represent(data)
            return
        self.serialize(node)

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is not yaml.ScalarNode or self.yaml_path_resolvers:
            return super().resolve(kind, value, implicit)
        key = (value, implicit)
        tag = _resolved.get(key)
        if tag is None:
            tag = super().resolve(kind, value, implicit)
            if len(_resolved) >= RESOLVED_KEPT:
                _resolved.clear()
            _resolved[key] = tag
        return tag


def _node(value: Any, seen: set[int]) -> Any:
    kind = type(value)
    if kind is dict or kind is list:
        if id(value) in seen:  # the representer writes a shared collection as an anchor and alias
            raise _Unusual
        seen.add(id(value))
        if kind is dict:
            items = [(_node(key, seen), _node(item, seen)) for key, item in value.items()]
            return yaml.MappingNode(_MAP_TAG, items, flow_style=False)
        return yaml.SequenceNode(_SEQ_TAG, [_node(item, seen) for item in value], flow_style=False)
    tag = _TAGS.get(kind)
    if tag is None:
        raise _Unusual
    text = (
        value
        if kind is str
        else "null"
        if value is None
        else ("true" if value else "false")
        if kind is bool
        else str(value)
    )
    return yaml.ScalarNode(tag, text)
