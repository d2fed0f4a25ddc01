"""Safe YAML loading that keeps the line and column of every key and value.

A file written in the YAML people write by hand is read by `yamlsubset`, without a parser,
into the same data and positions. Any other file takes the full path: we compose the YAML
node graph (`yamlfast`: libyaml through `ruamel.yaml.clib` when it is installed, about five
times faster than the pure-Python parser) and build plain Python data from it ourselves.
Doing the construction here, rather than in ruamel's constructor, is what lets us:

- remember a position for every key and value, so schema errors point at the exact node;
- report a duplicate key at its second occurrence, as a problem rather than an exception;
- refuse every tag that is not a plain YAML type (`!!python/object...` is never constructed);
- bound what anchors and aliases may expand to (a "billion laughs" file is rejected quickly);
- find a value a ` #` comment left empty, at the `#` (only the node tree says it is empty).

It is over 600 lines because it is one concept: a YAML text to positioned data, with every
problem the text itself has; splitting the builder from the document would only move the
positions between two modules that both need them.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterator
from dataclasses import field
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

from .. import codes
from ..dataclass import dataclass
from ..files import FileRefused, read_file
from ..problems import ERROR, WARNING, Problem, ProblemsFound, has_lone_surrogate
from . import yamlsubset
from .slips import (
    comment_cuts,
    dash_slips,
    deeper_key,
    emptied_by_comment,
    flow_comment_slips,
    syntax_slips,
)
from .yamlfast import composer

# A case or spec file has a few dozen values; these bounds only stop hostile files.
MAX_NODES = 20_000
MAX_DEPTH = 100
MAX_FILE_BYTES = 4 * 1024 * 1024
EMPTY_FILE = (
    "the file is empty (or holds only comments): a case file holds keys such as `id:` and"
    " `question:`, one a line, and a spec file `id:`, `query:` and `predicate:`; for an"
    " example, `python -m validator init example` writes example/cases/example.yaml (or see"
    " cases/mysql-slow-query.yaml in the trace-validator repository)"
)

_STD = "tag:yaml.org,2002:"
# The standard tags the builder compares every node's tag with, made once.
_MAP, _SEQ, _MERGE = _STD + "map", _STD + "seq", _STD + "merge"
_STR, _INT, _FLOAT = _STD + "str", _STD + "int", _STD + "float"
_BOOL, _NULL, _TIMESTAMP = _STD + "bool", _STD + "null", _STD + "timestamp"
PathKey = tuple[str | int, ...]


class Position(NamedTuple):
    """Where a key or value starts in a file (a tuple: one is made for every node)."""

    line: int  # 1-based
    column: int  # 1-based


@dataclass(fast_init=True)
class YamlDocument:
    """A loaded YAML file: its plain data and where each part of it was written.

    Where a part is written is read from the composed node tree when it is asked for (a
    valid file's positions are rarely read: building a table of every node's position for
    each file cost a fifth of loading it), or, for a file `yamlsubset` read (no node tree),
    from the positions it recorded; `values` and `keys` are those tables, made on first
    use."""

    file: str
    data: Any
    root: Any = field(default=None, repr=False)  # the composed node tree (None: see `written`)
    # Problems found while reading that do not stop the file from being checked further
    # (a duplicate key: the first value is kept). Validators report them with their own.
    problems: list[Problem] = field(default_factory=list)
    source: str = field(default="", repr=False)  # the text, for placing a character in a value
    # Where each line starts, in a file with a line break editors do not count (see
    # `_Builder`); None in the common case, where the parser's lines are the editor's.
    lines: list[int] | None = field(default=None, repr=False)
    # Where each value and key starts, by path, as `yamlsubset` read them: (line, column),
    # for a file read without a node tree (`root` is None then).
    written: tuple[yamlsubset.Places, yamlsubset.Places] | None = field(
        default=None, repr=False, compare=False
    )
    _top: dict[str, tuple[Any, Any]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def value_at(self, path: PathKey) -> Position:
        """Where the value at `path` is written, or its nearest written ancestor (an alias's
        value is where its anchor's is: `place` is where a problem about it goes)."""
        if self.root is None:
            return self._written_at(path, False)
        node, _, _ = self._walk(path)
        return self._pos(node)

    def place(self, path: PathKey) -> Position:
        """Where a problem about the value at `path` goes: the value, or the alias
        (`forbidden_keywords: *rc`) that brought it there."""
        alias = self.alias_on(path)
        return alias[0] if alias is not None else self.value_at(path)

    def alias_on(self, path: PathKey) -> tuple[Position, str, int] | None:
        """(where the alias is, its anchor's name, the anchor's line) when the value at `path`
        is reached through an alias (`*rc`), else None: the value's node is the anchor's, so
        it starts before the key that names it."""
        node, key_node = self.root, None
        for step in path:
            child = _child(node, step) if node is not None else None
            if child is None:
                return None
            node, key_node = child
            if key_node is None:
                continue
            value_at, key_pos = self._pos(node), self._pos(key_node)
            if value_at < key_pos:  # the value is written before its key: an alias
                lines = self.source.split("\n")
                text = lines[key_pos.line - 1] if key_pos.line <= len(lines) else ""
                star = text.find("*", key_pos.column)
                name = re.match(r"\*([^\s,\]\}]+)", text[star:]) if star >= 0 else None
                where = Position(key_pos.line, star + 1) if star >= 0 else key_pos
                return where, name.group(1) if name else "", value_at.line
        return None

    def problem(
        self, path: PathKey, severity: str, code: str, message: str, *, key: bool = False
    ) -> Problem:
        """A problem placed on the value at `path` (or on its key, with `key=True`); one
        reached through an alias says so, at the alias, naming the anchor it repeats."""
        at = self.key_at(path) if key else self.place(path)
        note = "" if key else self.alias_note(path)
        return Problem(self.file, at.line, at.column, severity, code, message + note)

    def alias_note(self, path: PathKey) -> str:
        """` (this value comes through the alias *rc, ...)` for a value reached through an
        alias, said beside a problem placed at the alias; "" for any other value."""
        alias = self.alias_on(path)
        if alias is None:
            return ""
        _, name, anchor = alias
        return (
            f" (this value comes through the alias *{name}, which repeats the value"
            f" anchored as &{name} at line {anchor})"
        )

    def char_at(self, path: PathKey, chars: str) -> Position:
        """Where the first of `chars` stands in the value at `path` (a value on one line),
        else where the value starts."""
        at = self.value_at(path)
        lines = self.source.split("\n")
        if 0 < at.line <= len(lines):
            line = lines[at.line - 1]
            found = [i for i in (line.find(c, at.column - 1) for c in chars) if i >= 0]
            if found:
                return Position(at.line, min(found) + 1)
        return at

    def path_at(self, line: int, column: int) -> PathKey | None:
        """The path of the value written last before `column` on `line` (the value a
        character there belongs to), or None when no value starts on that line before it."""
        found: tuple[int, PathKey] | None = None
        for path, at in self.values.items():
            if at.line == line and at.column <= column and (found is None or at.column >= found[0]):
                found = (at.column, path)
        return found[1] if found else None

    def key_at(self, path: PathKey) -> Position:
        """Where the key of the entry at `path` is written (falls back to the value)."""
        if self.root is None:
            return self._written_at(path, True)
        node, key_node, reached = self._walk(path)
        return self._pos(key_node if reached and key_node is not None else node)

    @cached_property
    def values(self) -> dict[PathKey, Position]:
        """Every path -> where its value starts."""
        return self._tables[0]

    @cached_property
    def keys(self) -> dict[PathKey, Position]:
        """The path of every mapping entry -> where its key starts."""
        return self._tables[1]

    @cached_property
    def _tables(self) -> tuple[dict[PathKey, Position], dict[PathKey, Position]]:
        values: dict[PathKey, Position] = {}
        keys: dict[PathKey, Position] = {}
        if self.root is None:
            written_values, written_keys = self.written or ({}, {})
            values = {path: Position(*at) for path, at in written_values.items()}
            keys = {path: Position(*at) for path, at in written_keys.items()}
            return values, keys
        stack: list[tuple[Any, PathKey]] = [(self.root, ())]
        while stack:
            node, path = stack.pop()
            values.setdefault(path, self._pos(node))
            if len(path) >= MAX_DEPTH:
                continue
            if node.id == "mapping":
                for key, key_node, value_node in _entries(node):
                    keys[(*path, key)] = self._pos(key_node)
                    stack.append((value_node, (*path, key)))
            elif node.id == "sequence":
                stack.extend((item, (*path, i)) for i, item in enumerate(node.value))
        return values, keys

    def _written_at(self, path: PathKey, key: bool) -> Position:
        """`value_at` (or `key_at`, with `key`) of a file read without a node tree: from the
        positions its reader recorded (no aliases there: a value is where it is written)."""
        values, keys = self.written or ({}, {})
        if key and path in keys:
            return Position(*keys[path])
        for end in range(min(len(path), MAX_DEPTH), -1, -1):
            at = values.get(path[:end])
            if at is not None:
                return Position(*at)
        return Position(1, 1)

    def _walk(self, path: PathKey) -> tuple[Any, Any, bool]:
        """The node at the longest written prefix of `path` (at most MAX_DEPTH steps, as
        deep as the data is built), the key node of its entry (None for the top or a list
        item), and whether that prefix is all of `path`."""
        node, key_node = self.root, None
        for depth, step in enumerate(path):
            if depth == 0 and type(step) is str and node.id == "mapping":
                child = self._top_entries().get(step)  # most paths start with a top key
            else:
                child = _child(node, step) if depth < MAX_DEPTH else None
            if child is None:
                return node, key_node, False
            node, key_node = child
        return node, key_node, True

    def _top_entries(self) -> dict[str, tuple[Any, Any]]:
        """The top mapping's entries by key: (value node, key node), as `_child` finds them."""
        if self._top is None:
            self._top = {}
            for key_node, value_node in self.root.value:
                if key_node.id == "scalar" and key_node.tag != _MERGE:
                    self._top.setdefault(str(key_node.value), (value_node, key_node))
        return self._top

    def _pos(self, node: Any) -> Position:
        if node is None:
            return Position(1, 1)
        return _node_position(node, self.lines)


def _entries(node: Any) -> Iterator[tuple[str, Any, Any]]:
    """A mapping node's entries as the data holds them: (key, key node, value node) of each
    plain key's first occurrence (a duplicate, a merge key or a non-text key is not data)."""
    seen: set[str] = set()
    for key_node, value_node in node.value:
        if key_node.id != "scalar" or key_node.tag == _MERGE:
            continue
        key = str(key_node.value)
        if key not in seen:
            seen.add(key)
            yield key, key_node, value_node


def _child(node: Any, step: str | int) -> tuple[Any, Any] | None:
    """(value node, key node or None) of the entry or item `step` of `node`, if written."""
    if node.id == "mapping":
        if isinstance(step, str):
            for key_node, value_node in node.value:
                if (
                    key_node.id == "scalar"
                    and str(key_node.value) == step
                    and key_node.tag != _MERGE
                ):
                    return value_node, key_node
        return None
    if node.id == "sequence" and isinstance(step, int) and 0 <= step < len(node.value):
        return node.value[step], None
    return None


def _node_position(node: Any, lines: list[int] | None) -> Position:
    """Where a node starts, as the 1-based line and column an editor shows."""
    mark = node.start_mark
    if lines is None:  # the common case, kept cheap
        return Position(mark.line + 1, mark.column + 1)
    return Position(*_mark_position(mark, lines))


# Hints for the YAML mistakes people make most; matched against the parser's own words.
_HINTS = (
    (
        "cannot start any token",
        "indent with spaces, not tabs, and quote text that starts with @ or `",
    ),
    (
        "mapping values are not allowed",
        "a value contains ': ' (put the whole value in quotes), or this line is indented"
        " more than the key above it",
    ),
    (
        "could not find expected ':'",
        "each line needs 'key: value' (a key, a colon, a space, the value), or '- ' for a"
        " list entry; check the indentation",
    ),
    ("found unexpected end of stream", "a quote or bracket is not closed"),
    ("did not find expected ',' or ']'", "a list written in [ ] is not closed with ']'"),
    ("did not find expected ',' or '}'", "a set of keys written in { } is not closed with '}'"),
    (
        "expected <block end>",
        "check the indentation: entries of one list, or keys of one block, line up",
    ),
    (
        "did not find expected key",
        "check the indentation: keys of one block start at the same column",
    ),
    ("did not find expected '-' indicator", "list entries start with '- ' at the same indentation"),
    ("expected a single document", "a file holds one case or spec: remove the extra '---'"),
    ("found undefined alias", "an alias (*name) needs an anchor (&name) written before it"),
)


def load_yaml(path: Path, display: str | None = None) -> YamlDocument:
    """Load one YAML file whose top level must be a mapping.

    Raises `ProblemsFound` with positioned problems when the file cannot be used at all.
    """
    name = display or str(path)
    try:
        raw = read_file(path, MAX_FILE_BYTES, "file", name)
    except FileRefused as exc:
        code = codes.FILE_TOO_LARGE if "-byte limit" in exc.why else codes.UNREADABLE
        fix = (
            ": a case or spec file is a few kilobytes; is this the right file?"
            if code == codes.FILE_TOO_LARGE
            else ""
        )
        raise ProblemsFound(
            [_problem(name, 1, 1, code, f"cannot read file: {exc.why}{fix}")]
        ) from None
    return load_yaml_text(raw, name)


def _text(raw: bytes | str, name: str) -> str:
    """The file's text, or ProblemsFound when it is not UTF-8 text or holds no mapping."""
    if isinstance(raw, bytes):
        if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
            raise ProblemsFound(
                [_problem(name, 1, 1, codes.NOT_UTF8, "file is UTF-16 text: save it as UTF-8")]
            )
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line, col = _line_col(raw, exc.start)
            raise ProblemsFound(
                [
                    _problem(
                        name,
                        line,
                        col,
                        codes.NOT_UTF8,
                        "file is not UTF-8 text: save it with UTF-8 encoding",
                    )
                ]
            ) from None
    else:
        text = raw
    if "\x00" in text:
        line, col = _line_col_text(text, text.index("\x00"))
        utf16 = (
            " (every other byte is zero: is it UTF-16? save it as UTF-8)"
            if text.count("\x00") * 3 > len(text)
            else ""
        )
        raise ProblemsFound(
            [
                _problem(
                    name,
                    line,
                    col,
                    codes.NOT_UTF8,
                    f"file holds a NUL character (a zero byte) at line {line}, column {col}:"
                    f" case and spec files are plain text{utf16}",
                )
            ]
        )
    if not text.strip() or all(
        not ln.strip() or ln.lstrip().startswith("#") for ln in text.splitlines()
    ):
        raise ProblemsFound([_problem(name, 1, 1, codes.EMPTY_FILE, EMPTY_FILE)])
    return text


def load_yaml_text(raw: bytes | str, name: str, *, top: type = dict) -> YamlDocument:
    """Like `load_yaml`, from bytes or text already in memory. `top=list`: the file must hold
    a list instead of a mapping (a quarantine file)."""
    text = _text(raw, name)
    found = syntax_slips(text)
    if not found:  # the YAML people write by hand is read without a parser
        fast = yamlsubset.read(text)
        if fast is not None and isinstance(fast[0], top):
            data, values, keys = fast
            return YamlDocument(name, data, None, _cuts(name, text), text, None, (values, keys))
    slips = [_problem(name, s.line, s.column, s.code, s.message) for s in found]
    try:
        node = _compose(text, name)
    except ProblemsFound as exc:
        _slips_instead(exc, slips, text, name)
        raise
    if node is None:
        raise ProblemsFound([_problem(name, 1, 1, codes.EMPTY_FILE, EMPTY_FILE)])
    builder = _Builder(name, text)
    try:
        data = builder.build(node, 0)
    except _Abandon:
        data = None
    if builder.problems or slips:
        raise ProblemsFound([*slips, *builder.problems])
    if not isinstance(data, top):
        _wrong_top(name, data, builder._pos(node), top)
    return YamlDocument(name, data, node, [*builder.soft, *_cuts(name, text)], text, builder.lines)


def _cuts(name: str, text: str) -> list[Problem]:
    """The warnings on values a ` #` may have cut short (`comment_cuts`)."""
    return [Problem(name, s.line, s.column, WARNING, s.code, s.message) for s in comment_cuts(text)]


def _slips_instead(exc: ProblemsFound, slips: list[Problem], text: str, name: str) -> None:
    """The parser notices a slip later than where it is (often on the next line): raise the
    slips at or before its error, each at its character, saying what to type instead."""
    first = exc.problems[0]
    slips = sorted(
        [
            *slips,
            *(_problem(name, s.line, s.column, s.code, s.message, s.fix) for s in dash_slips(text)),
        ],
        key=lambda p: (p.line, p.column),
    )
    if slips and slips[0].line <= first.line:
        raise ProblemsFound(slips) from None
    flow = [s for s in flow_comment_slips(text) if s.line <= first.line]
    if flow:  # a comment that swallowed a value and its closing bracket
        found = [_problem(name, s.line, s.column, s.code, s.message) for s in flow]
        raise ProblemsFound(found) from None


def _wrong_top(name: str, data: Any, pos: Position, top: type) -> None:
    """Raise the problem of a file whose top level is not `top` (a mapping, or a list)."""
    if top is dict:
        kind = "a list" if isinstance(data, list) else "a single value"
        code, message = (
            codes.NOT_A_MAPPING,
            f"the file holds {kind}; it must be 'key: value' lines, one key a line"
            " (id: ..., question: ...), not starting with '- '",
        )
    else:
        kind = "a mapping" if isinstance(data, dict) else "a single value"
        code, message = (
            codes.WRONG_TYPE,
            f"the file holds {kind}; it must be a list of entries, each line starting with '- '",
        )
    raise ProblemsFound([_problem(name, pos.line, pos.column, code, message)])


def _compose(text: str, name: str) -> Any:
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        return composer().compose(text)
    except MarkedYAMLError as exc:
        raise ProblemsFound([_syntax_problem(exc, text, name)]) from None
    except (YAMLError, ValueError, RecursionError) as exc:
        raise ProblemsFound(
            [_problem(name, 1, 1, codes.YAML_SYNTAX, f"YAML syntax error: {exc}")]
        ) from None


def _syntax_problem(exc: Any, text: str, name: str) -> Problem:
    """A parser error, placed where the parser noticed it, with a hint for common mistakes."""
    starts = _line_starts(text) if _ODD_BREAKS.search(text) else None
    mark = exc.problem_mark or exc.context_mark
    line, col = _mark_position(mark, starts) if mark is not None else (1, 1)
    what = " ".join(str(s) for s in (exc.context, exc.problem) if s)
    hint = _hint(what, text, mark, exc.context_mark, starts)
    fix = ""
    if hint.startswith(_UNCLOSED) and exc.context_mark is not None:
        line, col = _mark_position(exc.context_mark, starts)  # where the one to close is
        fix = _closed_line(text, line, col)
    if mark is not None and any(w in what for w in _INDENT_WORDS):
        deeper = deeper_key(text, line)
        if deeper is not None:
            line, col, hint, fix = deeper.line, deeper.column, deeper.message, deeper.fix
    # The parser's own words come last, beside the plain explanation, never alone.
    plain = hint or "this line is not valid YAML: check its indentation and its quotes"
    msg = f"YAML syntax error: {plain} (YAML's own words: {what})"
    return _problem(name, line, col, codes.YAML_SYNTAX, msg, fix)


def _closed_line(text: str, line: int, col: int) -> str:
    """The line with the quote or bracket opened at `col` closed at its end, when it opens
    there and nothing after it on that line could be a comment: the line to paste."""
    lines = text.split("\n")
    if not 0 < line <= len(lines):
        return ""
    written = lines[line - 1].rstrip()
    opened = written[col - 1 : col]
    closing = {'"': '"', "'": "'", "[": "]", "{": "}"}.get(opened, "")
    if not closing or " #" in written[col:]:
        return ""
    return written.strip() + closing


# The hints of a quote or bracket not closed: the problem is placed where it was opened.
_UNCLOSED = ("the quote ", "the list opened", "the set of 'key: value' entries opened")

# Parser errors that an over-indented key causes.
_INDENT_WORDS = (
    "did not find expected key",
    "did not find expected '-' indicator",
    "mapping values are not allowed",
    "expected <block end>",
)


def _mark_position(mark: Any, starts: list[int] | None) -> tuple[int, int]:
    """A parser mark as the 1-based line and column an editor shows (see `_Builder._pos`)."""
    if starts is None:
        return mark.line + 1, mark.column + 1
    line = bisect.bisect_right(starts, mark.index)
    return line, mark.index - starts[line - 1] + 1


def _hint(what: str, text: str, mark: Any, opened: Any, starts: list[int] | None) -> str:
    hint = next((h for key, h in _HINTS if key in what), "")
    if mark is not None and _char_at(text, mark.line, mark.column) == "\t":
        return "this is a tab character: YAML indents with spaces only; replace it with spaces"
    unclosed = any(w in what for w in ("quoted scalar", "flow sequence", "flow mapping"))
    if (
        hint
        and unclosed
        and opened is not None
        and mark is not None
        and (opened.line, opened.column) != (mark.line, mark.column)
    ):
        return _unclosed(hint, what, text, mark, opened, starts)
    return hint


def _unclosed(hint: str, what: str, text: str, mark: Any, opened: Any, starts: Any) -> str:
    """A quote or bracket the parser saw opened and not closed: which one, and where to
    close it; a [ ] or { } closed on its own line but broken inside is said as that."""
    line, col = _mark_position(opened, starts)
    char = _char_at(text, opened.line, opened.column)
    if "quoted scalar" in what and char in ('"', "'"):
        return (
            f"the quote {char} opened at line {line}, column {col} is not closed: end the"
            f" value with {char} on line {line}"
        )
    closing = {"[": "]", "{": "}"}.get(char)
    if closing is None:
        return f"{hint} (the one opened at line {line}, column {col})"
    if mark.line == opened.line:  # closed, but broken inside
        shape = "list [ ]" if char == "[" else "{ } of 'key: value' entries"
        return (
            f"in the {shape} opened at column {col}, entries are separated by ', ' and it"
            f" ends with {closing}; something else stands here: add the ',' or quote the"
            " entry"
        )
    what_opened = "list" if char == "[" else "set of 'key: value' entries"
    return (
        f"the {what_opened} opened with {char} at line {line}, column {col} is not"
        f" closed: end it with {closing} (a ',' between entries)"
    )


class _Abandon(Exception):
    """Stops building a document that is already known to be unusable."""


class _Builder:
    """Turns composed nodes into plain data, recording problems (positions are read from
    the nodes when a problem or a caller asks for one: see `YamlDocument`)."""

    def __init__(self, name: str, text: str = "") -> None:
        self.name = name
        # YAML parsers count NEL, U+2028 and U+2029 as line breaks; editors do not. In a file
        # that has one, positions are computed from the character offset instead, so every
        # later line is still reported where the author sees it.
        self.lines = _line_starts(text) if _ODD_BREAKS.search(text) else None
        self.problems: list[Problem] = []  # the file cannot be used
        self.soft: list[Problem] = []  # reported, but the file can still be checked
        self.count = 0
        composing = composer()
        self._scalars = composing.scalars  # ruamel's own rules for YAML 1.2 ints, floats, bools
        self._tag_of = composing.tag_of
        # The file's lines, when a ` #` may have emptied a value (see `_emptied`).
        self._lines = text.split("\n") if "#" in text and self.lines is None else None

    def _add(self, node: Any, code: str, message: str) -> None:
        pos = self._pos(node)
        self.problems.append(_problem(self.name, pos.line, pos.column, code, message))

    def build(self, node: Any, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            self._add(
                node,
                codes.YAML_TOO_LARGE,
                f"the file expands to more than {MAX_NODES} values (nested anchors and aliases?):"
                " write the values out plainly",
            )
            raise _Abandon
        if depth > MAX_DEPTH:
            if not any(p.code == codes.YAML_TOO_DEEP for p in self.problems):
                self._add(
                    node,
                    codes.YAML_TOO_DEEP,
                    f"values are nested more than {MAX_DEPTH} levels deep: write them out flatter",
                )
            return None
        tag = self._tag_of(node)
        kind = node.id
        if kind == "mapping":
            if tag != _MAP:
                return self._bad_tag(node)
            return self._mapping(node, depth)
        if kind == "sequence":
            if tag != _SEQ:
                return self._bad_tag(node)
            items = [self.build(item, depth + 1) for item in node.value]
            if self._lines is not None and None in items:
                for item in node.value:
                    self._emptied(item, item.start_mark)
            return items
        return self._scalar(node, tag)

    def _emptied(self, node: Any, mark: Any, after: str = "-") -> None:
        """A value left empty by a comment right after its `:` (`after` ":", `mark` the
        key's end) or its list dash (`mark` the empty value's start): an error at the `#`.
        As for a value cut by ` #` (`comment_cuts`), a `#` followed by a space or another
        `#` reads as a comment the author meant (`key:  # none`), and is left alone."""
        if node.id != "scalar" or node.value != "" or node.style not in (None, ""):
            return
        if not 0 <= mark.line < len(self._lines or ()):
            return
        line = (self._lines or [])[mark.line]
        rest = line[mark.column :]
        if after == ":":
            found = re.match(r"\s*:\s+#(?=[^\s#])", rest)
        elif line[: mark.column].rstrip().endswith("-"):
            found = re.match(r"\s*#(?=[^\s#])", rest)
        else:
            found = None
        if found is None:
            return
        slip = emptied_by_comment(line, mark.line + 1, mark.column + found.end() - 1)
        self.soft.append(_problem(self.name, slip.line, slip.column, slip.code, slip.message))

    def _mapping(self, node: Any, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.id != "scalar":
                self._add(
                    key_node,
                    codes.YAML_UNSUPPORTED,
                    "a key must be plain text, not a list or a set of 'key: value' entries",
                )
                continue
            if self._tag_of(key_node) == _MERGE:
                self._add(
                    key_node,
                    codes.YAML_UNSUPPORTED,
                    "merge keys ('<<') are not supported: write the entries out",
                )
                continue
            key = str(key_node.value)
            if key in out:
                self._duplicate(node, key, key_node)
                continue
            out[key] = value = self.build(value_node, depth + 1)
            if value is None and self._lines is not None:
                self._emptied(value_node, key_node.end_mark, ":")
        return out

    def _duplicate(self, node: Any, key: str, again: Any) -> None:
        first = next(k for k, _ in node.value if k.id == "scalar" and str(k.value) == key)
        pos, was = self._pos(again), self._pos(first)
        self.soft.append(
            _problem(
                self.name,
                pos.line,
                pos.column,
                codes.DUPLICATE_KEY,
                f"duplicate key '{key}' (first written at line {was.line}): keep only one",
            )
        )

    def _scalar(self, node: Any, tag: str) -> Any:
        c = self._scalars
        try:
            if tag == _STR:
                return self._text(node)
            if tag == _INT:
                return c.construct_yaml_int(node)
            if tag == _FLOAT:
                value = c.construct_yaml_float(node)
                # .nan and .inf are not JSON numbers: keep the text, so schemas reject it.
                return value if math.isfinite(value) else str(node.value)
            if tag == _BOOL:
                return c.construct_yaml_bool(node)
            if tag == _NULL:
                return None
            if tag == _TIMESTAMP:
                return str(node.value)
        except (ValueError, TypeError, ArithmeticError):
            self._add(
                node, codes.YAML_SYNTAX, f"'{node.value}' is not a valid {tag.rsplit(':', 1)[-1]}"
            )
            return None
        return self._bad_tag(node)

    def _text(self, node: Any) -> str | None:
        value = str(node.value)
        if not has_lone_surrogate(value):
            return value
        self._add(
            node,
            codes.NOT_UTF8,
            "this text holds half of a character pair (a lone surrogate escape such as"
            " \\ud800), which no file or report can hold: write the character itself",
        )
        return None

    def _bad_tag(self, node: Any) -> None:
        tag = str(node.tag)
        shown = "!!" + tag[len(_STD) :] if tag.startswith(_STD) else tag
        self._add(
            node,
            codes.YAML_TAG,
            f"YAML tag '{shown}' is not allowed: these files hold only text, numbers, lists and 'key: value' entries; remove the tag",
        )
        return None

    def _pos(self, node: Any) -> Position:
        return _node_position(node, self.lines)


_ODD_BREAKS = re.compile("[\x85\u2028\u2029]")


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    return starts


def _char_at(text: str, line: int, column: int) -> str:
    """The character at a 0-based line and column of `text`, or an empty string."""
    lines = text.split("\n")
    if 0 <= line < len(lines) and 0 <= column < len(lines[line]):
        return lines[line][column]
    return ""


def _line_col_text(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _line_col(raw: bytes, offset: int) -> tuple[int, int]:
    before = raw[:offset]
    line = before.count(b"\n") + 1
    col = len(before) - (before.rfind(b"\n") + 1) + 1
    return line, col


def _problem(file: str, line: int, column: int, code: str, message: str, fix: str = "") -> Problem:
    return Problem(file, line, column, ERROR, code, message, fix=fix)
