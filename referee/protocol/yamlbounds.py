"""Measuring YAML before it is parsed: size, nesting depth, number of values, anchors and aliases.

libyaml builds nested collections by recursion in C, beyond the reach of Python's recursion
limit, so a file of 50 KB of `[[[[...` kills the process before any check on the parsed data
can run. `measure` reads the text once, line by line, with no recursion and in linear time,
and says which limit the text is over, if any. It understands just enough YAML to count: block
indentation and the `- `, `? ` and `key:` indicators, flow brackets, quoted scalars (which may
span lines), block scalars (`|`, `>`), comments and document markers.

The measure may count more than the parser would build (a continuation line of a plain scalar
counts as a level), never fewer: a text it passes is no deeper than its figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# libyaml's line breaks; str.splitlines() knows more (form feed, ...), which libyaml reads as text.
_LINE_BREAK = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")
_FLOW_STOP = re.compile(r"[\[\]{},:?#\"'&*!]")
_DOUBLE_QUOTED_STOP = re.compile(r'\\.|\\$|"')
_SINGLE_QUOTED_STOP = re.compile(r"''|'")
_COMMENT = re.compile(r"(?:^|[ \t])#")
_KEY_INDICATOR = re.compile(r":(?=[ \t]|$)")
_BLOCK_SCALAR = re.compile(r"[|>]([1-9]?)[+-]?([1-9]?)[ \t]*(?:#.*)?$")


@dataclass(frozen=True)
class Limits:
    """How much YAML a reader accepts: characters, nesting levels, values (scalars and collections)."""

    chars: int
    depth: int
    values: int


# For YAML the referee did not write. A game's data files are the largest it reads (21 KB,
# about 3,000 values, 6 levels); order files have their own, tighter limits (protocol.orders).
UNTRUSTED = Limits(chars=4 * 1024 * 1024, depth=64, values=200_000)


@dataclass(frozen=True)
class Excess:
    """The first limit a text is over: `kind` is size, depth, values or alias."""

    kind: str
    found: int
    limit: int
    line: int = 0

    def describe(self, subject: str) -> str:
        """Say what is wrong with `subject` ("the YAML", "your order file") and what is allowed."""
        if self.kind == "size":
            return f"{subject} is {self.found:,} characters long; at most {self.limit:,} are allowed"
        if self.kind == "depth":
            return f"{subject} nests {self.found:,} levels deep; at most {self.limit:,} are allowed"
        if self.kind == "values":
            return f"{subject} holds {self.found:,} values or more; at most {self.limit:,} are allowed"
        return f"line {self.line}: YAML anchors and aliases (& and *) are not allowed; write the value out in full"


def measure(text: str, limits: Limits) -> Excess | None:
    """Return the first limit `text` is over (anchors and aliases are never allowed), or None."""
    if len(text) > limits.chars:
        return Excess("size", len(text), limits.chars)
    scan = _Scan()
    for number, line in enumerate(_LINE_BREAK.split(text), start=1):
        scan.line(line, number)
        if scan.alias_line:
            return Excess("alias", 1, 0, scan.alias_line)
    if scan.depth > limits.depth:
        return Excess("depth", scan.depth, limits.depth)
    if scan.values > limits.values:
        return Excess("values", scan.values, limits.values)
    return None


@dataclass
class _Entry:
    """A block collection still open: the column of its indicator, its level, and its kind:
    'seq' (`- `), 'map' (`key:`) or 'key' (`? ` and `: `, a mapping's explicit key and value)."""

    column: int
    level: int
    kind: str


class _Scan:
    def __init__(self) -> None:
        self.entries: list[_Entry] = []
        # Open flow collections, innermost last: the bracket, and whether a `key: value` pair in
        # a sequence opened a one-pair mapping inside it (`[a: [b]]` is three levels deep).
        self.brackets: list[list[Any]] = []
        self.flow_level = 0  # the level of the innermost open flow collection (or just outside)
        self.node_start = True  # in flow: the next character begins a node
        self.quote = ""  # the quote character of a quoted scalar spanning lines
        self.scalar_parent: int | None = None  # in a block scalar: its parent's column
        self.scalar_indent: int | None = None  # ...and its content's indentation, once known
        self.depth = 0
        self.values = 0
        self.alias_line = 0
        self.number = 0

    # -- one line ------------------------------------------------------------------------

    def line(self, line: str, number: int) -> None:
        self.number = number
        start = 0
        if self.quote:
            end = self._quote_end(line, 0, self.quote)
            if end is None:
                return
            self.quote, self.node_start = "", False
            start = end
            if not self.brackets:  # the rest of a line after a multi-line quoted scalar
                self._loose(line, start, self.entries[-1].level if self.entries else 0)
                return
        if self.brackets:
            self._flow(line, start)
            return
        if self.scalar_parent is not None and self._in_block_scalar(line):
            return
        self._block(line)

    def _in_block_scalar(self, line: str) -> bool:
        content = line.lstrip(" ")
        if not content.strip(" \t"):
            return True
        indent = len(line) - len(content)
        assert self.scalar_parent is not None
        if self.scalar_indent is None and indent > self.scalar_parent:
            self.scalar_indent = indent
        if self.scalar_indent is not None and indent >= self.scalar_indent:
            return True
        self.scalar_parent = self.scalar_indent = None
        return False

    def _block(self, line: str) -> None:
        content = line.lstrip(" ")
        column = len(line) - len(content)
        if not content.strip(" \t") or content.startswith("#"):
            return
        if column == 0 and line.startswith(("---", "...")) and line[3:4] in ("", " ", "\t"):
            self.entries.clear()
            self._value(line, 3, 1, -1)
            return
        if column == 0 and line.startswith("%"):
            return
        indicator = content[:1] in ("-", "?", ":") and content[1:2] in ("", " ", "\t")
        kind = ("seq" if content[0] == "-" else "key") if indicator else "map"
        self._node(line, column, self._place(column, kind))

    def _place(self, column: int, kind: str) -> int:
        """Return the level of the collection a line's first indicator at `column` belongs to."""
        entries = self.entries
        while entries and entries[-1].column > column:
            entries.pop()
        if not entries or entries[-1].column < column:
            return entries[-1].level + 1 if entries else 1
        top = entries[-1]
        if top.kind == kind:
            entries.pop()
            return top.level
        if kind == "seq":  # `key:` (or `?`) then `- item` in the same column: the sequence is its value
            return top.level + 1
        entries.pop()  # a key after such a sequence: a sibling of the key before it
        if entries and entries[-1].column == column:
            return entries.pop().level
        return top.level

    def _node(self, line: str, at: int, level: int) -> None:
        """Read the indicators and nodes of a block line from column `at`, the first at `level`."""
        while True:
            at = self._properties(line, at)
            if line[at : at + 1] in ("-", "?", ":") and line[at + 1 : at + 2] in ("", " ", "\t"):
                self._open(_Entry(at, level, "seq" if line[at] == "-" else "key"))
                level += 1
                at = _skip_blanks(line, at + 1)
                if at >= len(line) or line[at] == "#":
                    return
                continue
            break
        first = line[at : at + 1]
        if first in ("[", "{"):
            self._start_flow(line, at, level)
            return
        if first in ('"', "'"):
            end = self._quote_end(line, at + 1, first)
            self.values += 1
            if end is None:
                self.quote = first
                return
            after = _skip_blanks(line, end)
            if _KEY_INDICATOR.match(line, after):
                self._open(_Entry(at, level, "map"))
                self._value(line, after + 1, level + 1, at)
            else:
                self._loose(line, end, level)
            return
        comment = _COMMENT.search(line, at)
        key = _KEY_INDICATOR.search(line, at, comment.start() if comment else len(line))
        if key is None:
            self.values += 1  # a plain scalar, perhaps the first line of several
            return
        self._open(_Entry(at, level, "map"))
        self.values += 1
        self._value(line, key.end(), level + 1, at)

    def _value(self, line: str, at: int, level: int, parent: int) -> None:
        """Read the value after `key:` (or `---`) on a block line; a collection there is at `level`."""
        at = self._properties(line, _skip_blanks(line, at))
        if at >= len(line) or line[at] == "#":
            return
        self.values += 1
        first = line[at]
        if first in ("[", "{"):
            self._start_flow(line, at, level)
        elif first in ('"', "'"):
            end = self._quote_end(line, at + 1, first)
            if end is None:
                self.quote = first
            else:
                self._loose(line, end, level)
        elif _BLOCK_SCALAR.match(line, at):
            match = _BLOCK_SCALAR.match(line, at)
            assert match is not None
            step = match[1] or match[2]
            self.scalar_parent = self.entries[-1].column if self.entries else -1
            self.scalar_indent = self.scalar_parent + int(step) if step else None
            if self.scalar_indent is not None and self.scalar_indent < 0:
                self.scalar_indent = 0

    def _properties(self, line: str, at: int) -> int:
        """Skip tags at a node's start; note an anchor or alias there."""
        while at < len(line) and line[at] == "!":
            while at < len(line) and line[at] not in " \t":
                at += 1
            at = _skip_blanks(line, at)
        if line[at : at + 1] in ("&", "*"):
            self.alias_line = self.alias_line or self.number
        return at

    def _open(self, entry: _Entry) -> None:
        self.entries.append(entry)
        self.values += 1
        self.depth = max(self.depth, entry.level)

    # -- flow collections and what follows a closed one -----------------------------------

    def _start_flow(self, line: str, at: int, level: int) -> None:
        self.brackets, self.flow_level, self.node_start = [], level - 1, True
        self._flow(line, at)

    def _loose(self, line: str, at: int, level: int) -> None:
        """Count brackets in the rest of a line as if they opened flow collections at `level`."""
        self.brackets, self.flow_level, self.node_start = [], level, False
        self._flow(line, at)

    def _flow(self, line: str, at: int) -> None:
        while True:
            stop = _FLOW_STOP.search(line, at)
            end = stop.start() if stop else len(line)
            if line[at:end].strip(" \t"):
                self.node_start = False
            if stop is None:
                return
            char, at = stop[0], end + 1
            if char in "[{":
                self.brackets.append([char, False])
                self.flow_level += 1
                self.values += 1
                self.depth = max(self.depth, self.flow_level)
                self.node_start = True
            elif char in "]}":
                if self.brackets:
                    self.flow_level -= 1 + self.brackets.pop()[1]
                self.node_start = False
            elif char == ":" or (char == "?" and self.node_start):
                self._pair_in_sequence()
                self.node_start = True
            elif char == ",":
                self.values += 1
                if self.brackets and self.brackets[-1][1]:  # the one-pair mapping ends
                    self.brackets[-1][1] = False
                    self.flow_level -= 1
                self.node_start = True
            elif char == "#":
                if end == 0 or line[end - 1] in " \t":
                    return
                self.node_start = False
            elif char in "&*":
                if self.node_start:
                    self.alias_line = self.alias_line or self.number
                self.node_start = False
            elif char == "!":  # a tag: the node starts after it
                while at < len(line) and line[at] not in " \t,[]{}":
                    at += 1
            elif self.node_start:  # a quote opening a quoted scalar
                closed = self._quote_end(line, at, char)
                self.values += 1
                self.node_start = False
                if closed is None:
                    self.quote = char
                    return
                at = closed
            else:
                self.node_start = False

    def _pair_in_sequence(self) -> None:
        """A `key: value` pair straight inside `[...]` is a mapping of one pair, a level deeper."""
        if self.brackets and self.brackets[-1][0] == "[" and not self.brackets[-1][1]:
            self.brackets[-1][1] = True
            self.flow_level += 1
            self.depth = max(self.depth, self.flow_level)

    @staticmethod
    def _quote_end(line: str, at: int, quote: str) -> int | None:
        """Return the index after the closing `quote` from `at`, or None if the scalar goes on."""
        pattern = _DOUBLE_QUOTED_STOP if quote == '"' else _SINGLE_QUOTED_STOP
        while True:
            stop = pattern.search(line, at)
            if stop is None:
                return None
            if stop[0] == quote:
                return stop.end()
            at = stop.end()


def _skip_blanks(line: str, at: int) -> int:
    while at < len(line) and line[at] in " \t":
        at += 1
    return at
