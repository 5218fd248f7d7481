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
        if node is not None:
            _refuse_aliases(node)
        value = loader.construct_document(node) if node is not None else None
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
    _check_plain(value, 0, limits.depth)
    return value


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
    return yaml.dump(value, Dumper=_BaseDumper, sort_keys=False, allow_unicode=True, default_flow_style=False)
