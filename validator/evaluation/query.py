"""Compiled JSONPath queries with a plain-Python evaluator.

Check specs evaluate the same handful of JSONPath expressions against many trace
documents. jsonpath-ng is the reference semantics, but its ``find`` builds a
``DatumInContext`` (with a full parent chain) for every node it visits, which costs
~6 us for ``$.a.b.c``, milliseconds for ``$..name`` on a trace and tens of seconds for
``$..[?(@.status == 'error')]`` on a 50 MB trace; it also recurses once per segment, so
a long expression or a deep document overflows Python's stack. The same answers are
computed here with dict/list access, iteratively.

Every expression is always parsed by ``jsonpath_ng.ext.parse``: its grammar decides
what is valid, how names are spelled (``$.01`` is the field ``"1"``, ``$['a\\nb']``
is the field ``"anb"``), and how segments associate (``|`` binds tighter than ``.``,
so ``$.a|$.b`` is ``$.(a|$).b``). The evaluator is derived from the *parsed AST*, not
from a second grammar, so it can only differ from jsonpath-ng in evaluation, and
evaluation of each node type mirrors jsonpath-ng 1.16 (see the ``_step_*`` helpers):
children, indexes, wildcards, descendants, unions, ``$`` anywhere, filters (comparisons,
``=~``, ``!``, ``&&``, ``||``). Other nodes that do not look at a node's parents
(slices, several names, `len`, `sub()`, ...) are evaluated by jsonpath-ng one segment at
a time; an AST with a node that does (```parent```, ```path```, sorting) is evaluated
by jsonpath-ng as a whole.

Two rules make a query safe for a release gate:

* Evaluation never turns a problem into "no match": ``find`` raises
  ``QueryEvaluationError`` saying what went wrong, and the interpreter fails the check.
* Every regular expression jsonpath-ng would run (``=~`` operands, ``sub(/re/, x)``) is
  compiled when the query is, by ``validator.saferegex`` (linear time, Python's
  meaning); a bad pattern is a ``QueryError`` at the pattern's column.

One evaluation may produce at most ``NODE_BUDGET`` values (intermediate ones included);
past that it fails with a reason instead of growing without bound (chains of
``|$`` re-rooting double the values at every step).

The plan is fixed at compile time, so ``jsonpath_ng.jsonpath.auto_id_field`` (a
global that changes Fields/Wildcard semantics) must keep its default ``None``.
"""

from __future__ import annotations

import functools
import re
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jsonpath_ng.jsonpath as _jp
from jsonpath_ng.ext import filter as _filter
from jsonpath_ng.ext import iterable as _iterable
from jsonpath_ng.ext import string as _string
from jsonpath_ng.ext.arithmetic import Operation as _Operation
from jsonpath_ng.ext.filter import EQUALITY_ONLY_OPERATOR_MAP as _EQUALITY_ONLY
from jsonpath_ng.ext.filter import _compare
from jsonpath_ng.ext.parser import ExtendedJsonPathParser as _ExtendedParser

from ..problems import kind_of, show
from .saferegex import RegexError, SafeRegex, compile_safe

__all__ = ["NODE_BUDGET", "Query", "QueryError", "QueryEvaluationError", "compile_query"]

# Values one evaluation may produce, intermediate ones included. A 50 MB trace holds ~6
# million nodes, so only a runaway expression (or `$..*` on an extreme trace) gets near it;
# reaching it takes seconds, not minutes, and the list of values stays under ~100 MB.
NODE_BUDGET = 10_000_000
# AST depth jsonpath-ng's recursive find() can evaluate well inside Python's stack; only
# queries the plain-Python evaluator cannot take are held to it.
MAX_JSONPATH_NG_DEPTH = 100


class QueryError(ValueError):
    """A JSONPath expression that does not compile.

    Carries the failing column so spec loaders can point at the exact character in
    the YAML file instead of echoing jsonpath-ng's parser-internal message.
    """

    expression: str
    column: int
    message: str

    def __init__(self, expression: str, column: int, message: str) -> None:
        self.expression = expression
        self.column = column
        self.message = message
        super().__init__(f"invalid JSONPath {expression!r}: {message} (column {column})")

    def __reduce__(self) -> tuple[Any, ...]:
        # The default reduce would call __init__ with the formatted string only.
        return (type(self), (self.expression, self.column, self.message))

    def caret_lines(self, indent: str = "  ") -> list[str]:
        """The expression and a caret under the failing column, ready to print.

        Newlines and tabs are shown as spaces so that one character of the
        expression is one column of output and the caret stays aligned.
        """
        shown = self.expression.translate(_ONE_COLUMN)
        return [indent + shown, indent + " " * (max(self.column, 1) - 1) + "^"]


_ONE_COLUMN = str.maketrans({"\n": " ", "\r": " ", "\t": " ", "\f": " ", "\v": " "})


class QueryEvaluationError(Exception):
    """A compiled query that could not be evaluated on one document.

    Never to be read as "no match": a check that cannot evaluate its query must fail (an
    `absent` check would otherwise pass on a trace it could not look at). `reason` says
    what went wrong in plain words.
    """

    expression: str
    reason: str

    def __init__(self, expression: str, reason: str) -> None:
        self.expression = expression
        self.reason = reason
        super().__init__(f"cannot evaluate the JSONPath {expression} on this trace: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.expression, self.reason))


class _Unevaluable(Exception):
    """Raised inside an evaluation with the plain reason for QueryEvaluationError."""


class _StrictOperation(_Operation):
    """jsonpath-ng's arithmetic (`$.a + $.b`), except that values that do not combine (a
    number plus text) or sides that cannot be paired are an evaluation error with the
    types named, never an empty result read as "nothing found"."""

    def find(self, datum: Any) -> list[Any]:
        sides = [
            [m.value for m in side.find(datum)] if isinstance(side, _jp.JSONPath) else [side]
            for side in (self.left, self.right)
        ]
        left, right = sides
        if not left or not right:
            return []  # one side found nothing: so does the sum
        if not isinstance(self.left, _jp.JSONPath):  # a number: it goes with every value
            left = left * len(right)
        elif not isinstance(self.right, _jp.JSONPath):
            right = right * len(left)
        elif len(left) != len(right):
            raise _Unevaluable(
                f"`{self.op_symbol}` pairs the values of its two sides one to one, and they"
                f" match {len(left)} and {len(right)} values"
            )
        out = []
        for one, two in zip(left, right, strict=True):
            try:
                out.append(self.op(one, two))
            except TypeError:
                raise _Unevaluable(
                    f"the types do not {_VERBS[self.op_symbol]}: {kind_of(one)} {show(one)}"
                    f" {self.op_symbol} {kind_of(two)} {show(two)}"
                ) from None
        return [_jp.DatumInContext.wrap(value) for value in out]


_VERBS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide"}


# --------------------------------------------------------------------------- errors

_AT_LINE_COL = re.compile(r"at (\d+):(\d+)")
_LEXER_LINE_COL = re.compile(r"line (\d+), col (\d+)")
_NEAR_TOKEN = re.compile(r"near token (.*) \((\S+)\)$", re.DOTALL)
_UNEXPECTED_CHAR = re.compile(r"Unexpected character: (.)", re.DOTALL)


def _absolute_column(expression: str, line: int, col: int) -> int:
    """Turn jsonpath-ng's (line, col) into a 1-based column of the whole string.

    jsonpath-ng's lexer reports ``col`` as ``lexpos - latest_newline``, where
    ``latest_newline`` is the index of the last newline itself (0 on line 1), so the
    0-based offset is ``newline_index + col`` on later lines and ``col`` on line 1.
    """
    offset = col
    if line > 1:
        newline_index = -1
        for _ in range(line - 1):
            newline_index = expression.find("\n", newline_index + 1)
            if newline_index < 0:
                return len(expression) + 1
        offset = newline_index + col
    return min(max(offset, 0), len(expression)) + 1


def _query_error(expression: str, exc: BaseException) -> QueryError:
    """Translate a jsonpath-ng exception into a QueryError with a column."""
    text = str(exc).strip()
    end = len(expression) + 1
    if "near the end of string" in text:
        return QueryError(expression, end, "unexpected end of expression: is a ']' or ')' missing?")
    if "Unexpected EOF in string literal" in text:
        return QueryError(
            expression, end, "unterminated quoted name or `operator`: a closing quote is missing"
        )
    lexer_pos = _LEXER_LINE_COL.search(text)
    if lexer_pos:
        column = _absolute_column(expression, int(lexer_pos[1]), int(lexer_pos[2]))
        char = _UNEXPECTED_CHAR.search(text)
        message = f"unexpected character {char[1]!r}" if char else text
        return QueryError(expression, column, message)
    parser_pos = _AT_LINE_COL.search(text)
    if parser_pos:
        column = _absolute_column(expression, int(parser_pos[1]), int(parser_pos[2]))
        token = _NEAR_TOKEN.search(text)
        if token and token[2] in ("WHERE", "WHERENOT"):
            message = f"unexpected reserved word {token[1]!r}: quote it as ['{token[1]}']"
        elif token:
            message = f"unexpected {token[1]!r}"
        elif text.startswith("Unknown named operator"):
            message = text.split(" at ")[0].replace("Unknown", "unknown")
            # jsonpath-ng reports the closing backquote; point at the opening one.
            opening = expression.rfind("`", 0, column - 1)
            if expression[column - 1 : column] == "`" and opening >= 0:
                column = opening + 1
        else:
            message = text
        return QueryError(expression, column, message)
    # Semantic errors raised by grammar actions (e.g. a regex against a query,
    # a bad `sub()` pattern) carry no position: point at the start.
    message = text[:1].lower() + text[1:] if text else type(exc).__name__
    return QueryError(expression, 1, message)


# --------------------------------------------------------------------------- the AST


def _children(node: Any) -> list[Any]:
    """The sub-expressions of a jsonpath-ng node (whatever its class), in source order."""
    out = []
    for name in ("left", "right", "target", "value"):
        child = getattr(node, name, None)
        if isinstance(child, _jp.JSONPath):
            out.append(child)
    for name in ("expressions", "operands"):
        items = getattr(node, name, None)
        for item in items if isinstance(items, list) else ():
            item = item[0] if isinstance(item, tuple) else item  # SortedThis: (path, reverse)
            if isinstance(item, _jp.JSONPath):
                out.append(item)
    return out


def _walk(path: Any) -> Iterator[tuple[Any, int]]:
    """Every node with its depth, without recursion (a 5,000-way union nests 5,000 deep)."""
    stack = [(path, 1)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        stack.extend((child, depth + 1) for child in reversed(_children(node)))


# Nodes whose find() looks only at the value it is given, never at parents or the root,
# so one segment can be evaluated by jsonpath-ng on a bare value. (Root, Parent, `path`,
# sorting - which returns a bare datum, not a list - and unknown nodes are not.)
_CONTEXT_FREE = frozenset(
    {
        _jp.Child,
        _jp.Descendants,
        _jp.Fields,
        _jp.Index,
        _jp.Slice,
        _jp.Wildcard,
        _jp.This,
        _jp._Union,
        _jp.Where,
        _jp.WhereNot,
        _filter.Filter,
        _filter.Expression,
        _filter.And,
        _filter.Or,
        _iterable.Len,
        _iterable.Keys,
        _string.Sub,
        _string.Split,
        _string.Str,
        _Operation,
        _StrictOperation,
    }
)


def _context_free(node: Any) -> bool:
    return all(type(n) in _CONTEXT_FREE or type(n) is _SafeMatch for n, _ in _walk(node))


# --------------------------------------------------------------------------- regexes


@dataclass
class _Literal:
    """A quoted or bare token of the expression, decoded as jsonpath-ng's lexer does."""

    start: int  # index of its first character (the opening quote, if quoted)
    value: str
    offsets: list[int]  # index in the expression of each character of `value`

    def column(self, index: int) -> int:
        """The 1-based column of character `index` of the value (or just after it)."""
        if 0 <= index < len(self.offsets):
            return self.offsets[index] + 1
        return (self.offsets[-1] + 2) if self.offsets else self.start + 1


_BARE_OPERAND = re.compile(r"-?\d+(?:\.\d+)?|@?[A-Za-z_][A-Za-z0-9_@\-]*")


def _read_quoted(expression: str, start: int) -> tuple[_Literal, int]:
    # jsonpath-ng's lexer: inside quotes, a backslash keeps the character after it.
    quote, i = expression[start], start + 1
    value: list[str] = []
    offsets: list[int] = []
    while i < len(expression) and expression[i] != quote:
        at = i  # an escaped character is located at its backslash
        if expression[i] == "\\" and i + 1 < len(expression):
            i += 1
        value.append(expression[i])
        offsets.append(at)
        i += 1
    return _Literal(start, "".join(value), offsets), i + 1


def _scan_literals(expression: str) -> tuple[list[_Literal], list[_Literal]]:
    """The operands of `=~` and the backquoted operators, in source order, with where each
    character of their decoded text is in the expression (for a caret under a pattern)."""
    quoted: dict[int, _Literal] = {}
    after_match_operator: list[int] = []
    i = 0
    while i < len(expression):
        if expression[i] in "'\"`":
            literal, i = _read_quoted(expression, i)
            quoted[literal.start] = literal
        elif expression.startswith("=~", i):
            after_match_operator.append(i + 2)
            i += 2
        else:
            i += 1
    operands = []
    for j in after_match_operator:
        while j < len(expression) and expression[j] in " \t\r\n":
            j += 1
        bare = _BARE_OPERAND.match(expression, j)
        text = bare.group() if bare and j not in quoted else ""
        operands.append(quoted.get(j) or _Literal(j, text, list(range(j, j + len(text)))))
    backquoted = [lit for start, lit in quoted.items() if expression[start] == "`"]
    return operands, backquoted


class _SafeMatch(_filter.Expression):
    """An `=~` comparison whose pattern runs on the linear-time engine (same results as
    jsonpath-ng's: only text values can match, `re.search` semantics)."""

    regex: SafeRegex

    def find(self, datum: Any) -> list[Any]:
        search = self.regex.search
        found = self.target.find(_jp.DatumInContext.wrap(datum))
        return [match for match in found if isinstance(match.value, str) and search(match.value)]


class _SafeSubstitution:
    """Stands in for the `re` pattern of a jsonpath-ng Sub node: Sub.find calls
    ``self.regex.sub(self.repl, value)``."""

    __slots__ = ("_substitute",)

    def __init__(self, substitute: Callable[[str], str]) -> None:
        self._substitute = substitute

    def sub(self, _repl: str, value: Any) -> str:
        if not isinstance(value, str):
            shown = "" if value is None else f" {show(value)}"
            raise _Unevaluable(f"`sub()` applies to text, found {kind_of(value)}{shown}")
        return self._substitute(value)


def _take(literals: list[_Literal], value: str) -> _Literal | None:
    """The first unused token whose decoded text is `value` (and mark it used)."""
    for i, literal in enumerate(literals):
        if literal.value == value:
            return literals.pop(i)
    return None


def _guard_match(expression: str, node: Any, operands: list[_Literal]) -> None:
    pattern = node.value
    if not isinstance(pattern, str):
        literal = operands.pop(0) if operands else None
        column = literal.start + 1 if literal else 1
        raise QueryError(
            expression,
            column,
            f"the pattern after =~ must be quoted text, not {pattern!r}",
        )
    literal = _take(operands, pattern)
    try:
        regex = compile_safe(pattern)
    except RegexError as exc:
        column = literal.column(exc.column - 1) if literal else 1
        raise QueryError(
            expression, column, f"invalid regular expression {pattern!r}: {exc.message}"
        ) from None
    node.__class__ = _SafeMatch  # same data, find() on the linear-time engine
    node.regex = regex


def _sub_parts(method: str) -> tuple[int, int]:
    """Where Sub's pattern and replacement start in its operator text, found as
    jsonpath-ng's Sub splits it (it strips both)."""
    body = _string._SUB_BODY.match(method)
    parts = _string._SUB_PARTS.fullmatch(body.group(1)) if body else None
    if body is None or parts is None:
        return 0, 0
    raw_expr, raw_repl = parts.group(1), parts.group(2)
    expr_at = body.start(1) + parts.start(1) + len(raw_expr) - len(raw_expr.lstrip())
    repl_at = body.start(1) + parts.start(2) + len(raw_repl) - len(raw_repl.lstrip())
    return expr_at, repl_at


def _sub_error(
    expression: str, exc: RegexError, literal: _Literal | None, method: str
) -> QueryError:
    expr_at, repl_at = _sub_parts(method)
    at = repl_at if exc.part == "replacement" else expr_at
    column = literal.column(at + exc.column - 1) if literal else 1
    what = "replacement" if exc.part == "replacement" else "regular expression"
    return QueryError(expression, column, f"invalid {what} {exc.text!r} in sub(): {exc.message}")


def _guard_sub(expression: str, node: Any, backquoted: list[_Literal]) -> None:
    literal = _take(backquoted, node.method)
    try:
        substitute = compile_safe(node.expr).substitution(node.repl)
    except RegexError as exc:
        raise _sub_error(expression, exc, literal, node.method) from None
    node.regex = _SafeSubstitution(substitute)


def _guard_regexes(expression: str, path: Any) -> None:
    """Compile every regex the AST holds with the linear-time engine, in place; a bad or
    unsupported one is a QueryError at its column."""
    nodes = [
        node
        for node, _ in _walk(path)
        if (type(node) is _filter.Expression and node.op == "=~") or type(node) is _string.Sub
    ]
    if not nodes:
        return
    operands, backquoted = _scan_literals(expression)
    for node in nodes:
        if type(node) is _string.Sub:
            _guard_sub(expression, node, backquoted)
        else:
            _guard_match(expression, node, operands)


def _parse_time_regex_error(expression: str, exc: re.error) -> QueryError:
    """jsonpath-ng compiles `sub()` patterns with `re` while parsing: point at the one."""
    for literal in _scan_literals(expression)[1]:
        body = _string._SUB_BODY.match(literal.value)
        parts = _string._SUB_PARTS.fullmatch(body.group(1)) if body else None
        if parts is None:
            continue
        try:
            compile_safe(parts.group(1).strip())
        except RegexError as error:
            return _sub_error(expression, error, literal, literal.value)
    return QueryError(expression, 1, f"invalid regular expression: {exc}")


def _intersection_column(expression: str) -> int:
    """The column of a `&` outside brackets and quotes (an intersection, not a filter's and)."""
    depth, i = 0, 0
    while i < len(expression):
        char = expression[i]
        if char in "'\"`":
            i = _read_quoted(expression, i)[1]
            continue
        depth += (char == "[") - (char == "]")
        if char == "&" and depth == 0:
            return i + 1
        i += 1
    return 1


# ------------------------------------------------------------------------ evaluation
#
# A plan is a list of steps; each maps the current list of matched values to the next
# one (a flat-map), given the document root (for `$`). jsonpath-ng's Child(L, R) is
# flat-map composition and Descendants(L, R) is "flat-map pre-order walk, then flat-map
# R"; flat-map composition is associative, so any nesting of Child/Descendants flattens
# into one left-to-right list of steps with the same results in the same order.

_MISSING = object()

Step = Callable[[list[Any], Any], list[Any]]
Predicate = Callable[[Any, Any], bool]
Finder = Callable[[Any, Any], list[Any]]


class _NotPlannable(Exception):
    """An AST node the plain-Python evaluator has no exact equivalent for."""


def _step_field(name: str) -> Step:
    # Mirrors Fields.get_field_datum: ``value.get(name, NOT_SET)``; anything without a
    # usable ``get`` (list, str, number, None) yields nothing; a key whose value is
    # None *is* a match.
    def step(nodes: list[Any], root: Any) -> list[Any]:
        missing = _MISSING
        return [
            value
            for node in nodes
            if isinstance(node, dict) and (value := node.get(name, missing)) is not missing
        ]

    return step


def _step_index(index: int) -> Step:
    # Mirrors Index._find_base: only lists/tuples, negative indexes count from the
    # end, out-of-range indexes (and ``[N]`` on a dict) yield nothing.
    def step(nodes: list[Any], root: Any) -> list[Any]:
        return [
            node[index]
            for node in nodes
            if isinstance(node, (list, tuple)) and -len(node) <= index < len(node)
        ]

    return step


def _step_wildcard(nodes: list[Any], root: Any) -> list[Any]:
    # Mirrors Wildcard.find: array elements, object member values in insertion
    # order, nothing for scalars (a string is *not* iterated).
    out: list[Any] = []
    for node in nodes:
        if isinstance(node, (list, tuple)):
            out.extend(node)
        elif isinstance(node, dict):
            out.extend(node.values())
    return out


def _step_root(nodes: list[Any], root: Any) -> list[Any]:
    # Mirrors Root.find on a datum: it climbs the context chain to the document, so
    # every value becomes the document once.
    return [root] * len(nodes)


def _step_descend(nodes: list[Any], root: Any) -> list[Any]:
    # Mirrors Descendants.find: every node itself followed by all its descendants,
    # depth-first pre-order, children of lists and dicts only (not tuples), using an
    # explicit stack so arbitrarily deep documents cannot hit the recursion limit.
    out: list[Any] = []
    stack = nodes[::-1]
    append = out.append
    pop = stack.pop
    extend = stack.extend
    while stack:
        node = pop()
        append(node)
        if isinstance(node, list):
            extend(node[::-1])
        elif isinstance(node, dict):
            extend(reversed(node.values()))
    return out


def _step_descend_field(name: str) -> Step:
    # ``..name`` fused: the same pre-order walk as _step_descend followed by
    # _step_field, without materialising the list of every node.
    def step(nodes: list[Any], root: Any) -> list[Any]:
        out: list[Any] = []
        append = out.append
        stack = nodes[::-1]
        pop = stack.pop
        extend = stack.extend
        missing = _MISSING
        while stack:
            node = pop()
            if isinstance(node, dict):
                value = node.get(name, missing)
                if value is not missing:
                    append(value)
                extend(reversed(node.values()))
            elif isinstance(node, list):
                extend(node[::-1])
        return out

    return step


def _step_filter(test: Predicate) -> Step:
    # Mirrors Filter.find: the members of a dict (in order) or the items of a list that
    # pass every expression; nothing for anything else (tuples and strings included).
    def step(nodes: list[Any], root: Any) -> list[Any]:
        out: list[Any] = []
        for node in nodes:
            if isinstance(node, dict):
                out.extend(value for value in node.values() if test(value, root))
            elif isinstance(node, list):
                out.extend(value for value in node if test(value, root))
        return out

    return step


def _step_descend_filter(test: Predicate) -> Step:
    # ``..[?(...)]`` fused: for each node of the pre-order walk, its children that pass
    # (Descendants.find applies the Filter to every node it visits).
    def step(nodes: list[Any], root: Any) -> list[Any]:
        out: list[Any] = []
        append = out.append
        containers = (dict, list)
        # Only containers go on the stack: a scalar has no children to test.
        stack = [node for node in reversed(nodes) if isinstance(node, containers)]
        while stack:
            node = stack.pop()
            children = node.values() if isinstance(node, dict) else node
            for value in children:
                if test(value, root):
                    append(value)
            stack.extend([value for value in reversed(children) if isinstance(value, containers)])
        return out

    return step


def _step_union(branches: list[Finder]) -> Step:
    # Mirrors _Union.find: per value, the left side's matches then the right side's.
    def step(nodes: list[Any], root: Any) -> list[Any]:
        out: list[Any] = []
        for node in nodes:
            for branch in branches:
                out.extend(branch(node, root))
            if len(out) > NODE_BUDGET:
                raise _over_budget()
        return out

    return step


def _step_jsonpath(node: Any) -> Step:
    # A context-free segment: jsonpath-ng evaluates it on each bare value.
    find = node.find
    wrap = _jp.DatumInContext

    def step(nodes: list[Any], root: Any) -> list[Any]:
        return [match.value for value in nodes for match in find(wrap(value))]

    return step


def _over_budget() -> _Unevaluable:
    return _Unevaluable(
        f"it produces more than {NODE_BUDGET:,} values (a runaway expression, e.g. a long"
        " chain of `|` unions, each of which also re-reads the whole document)"
    )


# ----------------------------------------------------------------------- filter tests


def _value_test(op: Any, literal: Any, regex: SafeRegex | None) -> Callable[[Any], bool]:
    """Whether one value found by a filter's target satisfies `op literal`, as in
    jsonpath-ng's Expression.find (RFC 9535 comparisons)."""
    if op == "=~":
        assert regex is not None
        search = regex.search
        return lambda value: isinstance(value, str) and search(value)
    if literal is None:  # `== null`: only None is equal to it
        equal_null = _EQUALITY_ONLY[op]
        return lambda value: equal_null(value is None)
    equality_only = _EQUALITY_ONLY[op]
    if isinstance(literal, bool):
        return lambda value: equality_only(value is literal)
    if isinstance(literal, str) and op in ("==", "=", "!="):
        # The common case, spelled out: text equals only text (what _compare computes).
        negate = op == "!="
        return lambda value: (isinstance(value, str) and value == literal) != negate
    return lambda value: (
        equality_only(value is literal) if isinstance(value, bool) else _compare(op, value, literal)
    )


def _comparison(expression: Any) -> Predicate:
    # Not `leftmost`: a `$` in a filter is the document, not the candidate value.
    target = _finder(_plan(expression.target, False))
    op = expression.op
    if op == "!":
        return lambda value, root: not target(value, root)
    if op is None:  # existence
        return lambda value, root: bool(target(value, root))
    test = _value_test(op, expression.value, getattr(expression, "regex", None))
    when_absent = op == "!="  # a missing member is "not equal" to anything
    name = _single_name(expression.target)
    if name is not None:
        # `@.name OP literal`, the usual filter: one dict lookup, no intermediate lists.
        missing = _MISSING

        def member_predicate(value: Any, root: Any) -> bool:
            if not isinstance(value, dict):
                return when_absent
            item = value.get(name, missing)
            return when_absent if item is missing else bool(test(item))

        return member_predicate

    def predicate(value: Any, root: Any) -> bool:
        found = target(value, root)
        if not found:
            return when_absent
        return any(test(item) for item in found)

    return predicate


def _single_name(target: Any) -> str | None:
    """`name` when a filter's target is `@.name` or a bare `name`."""
    if type(target) is _jp.Child and type(target.left) is _jp.This:
        target = target.right
    if type(target) is _jp.Fields and _single_field(target):
        return str(target.fields[0])
    return None


def _query_comparison(expression: Any) -> Predicate:
    # Mirrors Expression._find_with_query_operand: `@.a == @.b`, `@.a < $.limit`. Two
    # empty results are equal; an empty result equals nothing else.
    target = _finder(_plan(expression.target, False))
    other = _finder(_plan(expression.value, False))
    op = expression.op
    when_empty = _EQUALITY_ONLY[op]

    def predicate(value: Any, root: Any) -> bool:
        found = target(value, root)
        values = other(value, root)
        if not found or not values:
            return bool(when_empty(not found and not values))
        return any(_compare(op, item, against) for item in found for against in values)

    return predicate


def _predicate(expression: Any) -> Predicate:
    """A filter expression as a test of one candidate value."""
    kind = type(expression)
    if kind in (_filter.And, _filter.Or):
        tests = [_predicate(operand) for operand in expression.operands]
        if kind is _filter.And:
            return lambda value, root: all(test(value, root) for test in tests)
        return lambda value, root: any(test(value, root) for test in tests)
    if kind in (_filter.Expression, _SafeMatch):
        if isinstance(expression.value, _jp.JSONPath):
            return _query_comparison(expression)
        return _comparison(expression)
    if _context_free(expression):  # e.g. a comparison of two queries: @.a == @.b
        find = expression.find
        return lambda value, root: bool(find(value))
    raise _NotPlannable


def _filter_predicate(node: Any) -> Predicate:
    tests = [_predicate(expression) for expression in node.expressions]
    if len(tests) == 1:
        return tests[0]
    return lambda value, root: all(test(value, root) for test in tests)


# ----------------------------------------------------------------------------- plans

# Step kinds the original fast path had; `Query.fast` reports whether only these are used.
_PLAIN = frozenset({"field", "index", "wildcard", "descend"})


def _plan(node: Any, leftmost: bool) -> list[tuple[str, Any]]:
    """Flatten a jsonpath-ng AST into (kind, argument) steps; raises _NotPlannable.

    Child and Descendants chains are walked without recursion, so thousands of segments
    plan fine. Exact type checks on purpose: ext subclasses (Filter, SortedThis, Len, ...)
    must not be mistaken for the node they inherit from.
    """
    spine = []
    while type(node) in (_jp.Child, _jp.Descendants):
        spine.append(node)
        node = node.left
    out = _plan_segment(node, leftmost)
    for parent in reversed(spine):
        if type(parent) is _jp.Descendants:
            out.append(("descend", None))
        out.extend(_plan(parent.right, False))
    return out


def _plan_segment(node: Any, leftmost: bool) -> list[tuple[str, Any]]:
    planner = _SEGMENT_PLANNERS.get(type(node))
    plan = planner(node, leftmost) if planner is not None else None
    if plan is not None:
        return plan
    if type(node) in _CONTEXT_FREE and _context_free(node) and _jp.auto_id_field is None:
        return [("jsonpath", node)]  # e.g. a slice or several names: jsonpath-ng, per value
    raise _NotPlannable


def _plan_root(node: Any, leftmost: bool) -> list[tuple[str, Any]]:
    # The leading `$` is the document itself; elsewhere it jumps back to it.
    return [] if leftmost else [("root", None)]


def _plan_fields(node: Any, leftmost: bool) -> list[tuple[str, Any]] | None:
    return [("field", node.fields[0])] if _single_field(node) else None


def _plan_index(node: Any, leftmost: bool) -> list[tuple[str, Any]] | None:
    single = len(node.indices) == 1 and isinstance(node.indices[0], int)
    return [("index", node.indices[0])] if single else None


def _plan_wildcard(node: Any, leftmost: bool) -> list[tuple[str, Any]] | None:
    return [("wildcard", None)] if _jp.auto_id_field is None else None


def _plan_union(node: Any, leftmost: bool) -> list[tuple[str, Any]]:
    return [("union", [_finder(_plan(b, leftmost)) for b in _union_branches(node)])]


_SEGMENT_PLANNERS: dict[type, Callable[[Any, bool], list[tuple[str, Any]] | None]] = {
    _jp.Root: _plan_root,
    _jp.This: lambda node, leftmost: [("this", None)],
    _jp.Fields: _plan_fields,
    _jp.Index: _plan_index,
    _jp.Wildcard: _plan_wildcard,
    _filter.Filter: lambda node, leftmost: [("filter", _filter_predicate(node))],
    _jp._Union: _plan_union,
}


def _single_field(node: Any) -> bool:
    if len(node.fields) != 1 or node._deprecated_wildcard_use:
        return False
    name = node.fields[0]
    return isinstance(name, str) and name != _jp.auto_id_field


def _union_branches(node: Any) -> list[Any]:
    """The operands of nested unions, left to right (`a|b|c` nests either way)."""
    branches = []
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is _jp._Union:
            stack.extend((current.right, current.left))
        else:
            branches.append(current)
    return branches


_SIMPLE_STEPS: dict[str, Callable[[Any], Step]] = {
    "field": _step_field,
    "index": _step_index,
    "filter": _step_filter,
    "union": _step_union,
    "jsonpath": _step_jsonpath,
}
_FIXED_STEPS: dict[str, Step] = {
    "wildcard": _step_wildcard,
    "root": _step_root,
    "descend": _step_descend,
}
_FUSED_AFTER_DESCEND: dict[str, Callable[[Any], Step]] = {
    "field": _step_descend_field,
    "filter": _step_descend_filter,
}


def _build_steps(plan: list[tuple[str, Any]]) -> list[Step]:
    plan = [entry for entry in plan if entry[0] != "this"]  # `@` is the value itself
    steps: list[Step] = []
    i = 0
    while i < len(plan):
        kind, arg = plan[i]
        following = plan[i + 1][0] if i + 1 < len(plan) else None
        if kind == "descend" and following in _FUSED_AFTER_DESCEND:
            steps.append(_FUSED_AFTER_DESCEND[following](plan[i + 1][1]))
            i += 2
            continue
        steps.append(_FIXED_STEPS[kind] if kind in _FIXED_STEPS else _SIMPLE_STEPS[kind](arg))
        i += 1
    return steps


def _finder(plan: list[tuple[str, Any]]) -> Finder:
    """A function (value, root) -> matches for a plan."""
    if all(kind in ("field", "this") for kind, _ in plan):
        return _field_chain(tuple(arg for kind, arg in plan if kind == "field"))
    return _step_chain(_build_steps(plan))


def _field_chain(names: tuple[str, ...]) -> Finder:
    # ``$.a.b.c``: at most one match, so walk without building intermediate lists.
    def find(document: Any, root: Any) -> list[Any]:
        node = document
        for name in names:
            if not isinstance(node, dict):
                return []
            node = node.get(name, _MISSING)
            if node is _MISSING:
                return []
        return [node]

    return find


def _step_chain(steps: list[Step]) -> Finder:
    def find(document: Any, root: Any) -> list[Any]:
        nodes = [document]
        produced = 0
        for step in steps:
            nodes = step(nodes, root)
            if not nodes:
                break
            produced += len(nodes)
            if produced > NODE_BUDGET:
                raise _over_budget()
        return nodes

    return find


# ------------------------------------------------------------------------- queries


def _reason(exc: BaseException) -> str:
    """What went wrong, in plain words, for QueryEvaluationError."""
    if isinstance(exc, _Unevaluable):
        return str(exc)
    if isinstance(exc, RecursionError):
        return "the trace is nested too deeply for this expression (deeper than Python's recursion limit)"
    if isinstance(exc, MemoryError):
        return "it needs more memory than is available"
    if isinstance(exc, ZeroDivisionError):
        return "it divides by zero"
    if isinstance(exc, AssertionError):  # jsonpath-ng's Parent on the document root
        return "`parent` was applied to the document itself, which has no parent"
    if isinstance(exc, TypeError):
        return f"it compares or combines values of different types ({exc})"
    return f"{type(exc).__name__}: {exc}" if not isinstance(exc, ValueError) else str(exc)


def reads_view(expression: str) -> bool:
    """Whether a JSONPath reads the normalized view (`$.view...`) rather than the raw trace."""
    return expression == "$.view" or expression.startswith(("$.view.", "$.view["))


class Query:
    """One compiled JSONPath expression.

    Obtain instances from :func:`compile_query`, which memoizes them, so that a spec
    mentioning the same path in many checks parses it once per process.
    """

    expression: str
    fast: bool

    __slots__ = ("_find", "_path", "expression", "fast", "view")

    def __init__(self, expression: str, path: _jp.JSONPath) -> None:
        self.expression = expression
        self._path = path
        self._find: Finder | None = None
        # Whether it reads the normalized view (`$.view...`) rather than the raw trace.
        self.view = reads_view(expression)
        # `fast`: only plain child/index/wildcard/descendant steps (the common shapes).
        self.fast = False
        try:
            plan = _plan(path, True)
        except (_NotPlannable, RecursionError):
            # RecursionError: a right-nested AST too deep to plan; jsonpath-ng takes it (and
            # compile_query refuses those too deep for it).
            return
        self._find = _finder(plan)
        self.fast = all(kind in _PLAIN for kind, _ in plan)

    @property
    def native(self) -> bool:
        """Whether the plain-Python evaluator takes this query (else jsonpath-ng does)."""
        return self._find is not None

    def find(self, document: Any) -> list[Any]:
        """All matched values, in jsonpath-ng order.

        Falsy values (``0``, ``""``, ``False``, ``[]``, ``None``) are matches like any
        other. Raises QueryEvaluationError when the query cannot be evaluated on this
        document (e.g. ```sub()``` on a number, a document nested deeper than Python's
        recursion limit for jsonpath-ng, more than NODE_BUDGET values): that is never
        "nothing matched".
        """
        try:
            if self._find is not None:
                return self._find(document, document)
            matches: Any = self._path.find(document)
            # Some ext nodes (SortedThis) return a bare datum instead of a list.
            if isinstance(matches, _jp.DatumInContext):
                matches = [matches]
            return [match.value for match in matches]
        except Exception as exc:  # RecursionError and MemoryError included
            raise QueryEvaluationError(self.expression, _reason(exc)) from None

    def find_located(self, document: Any) -> list[tuple[str | None, Any]]:
        """Each match as (its concrete JSONPath, its value), for people writing specs (the
        `query` command). The values are `find`'s (so the same errors); each path comes from
        jsonpath-ng's own evaluation, the reference semantics. When that cannot be had for a
        match (a `len` or `sub()` result, an evaluation jsonpath-ng cannot finish, or one that
        disagrees with `find`), its path is None: a value is never shown at a wrong place."""
        values = self.find(document)
        if not values:
            return []
        try:
            matches: Any = self._path.find(document)
            if isinstance(matches, _jp.DatumInContext):
                matches = [matches]
            paths = [_concrete_path(match) for match in matches]
            agree = len(matches) == len(values) and all(
                m.value is v or (type(m.value) is type(v) and m.value == v)
                for m, v in zip(matches, values, strict=True)
            )
        except Exception:  # RecursionError included: the values stand without their paths
            agree = False
        if not agree:
            return [(None, value) for value in values]
        return list(zip(paths, values, strict=True))

    def __reduce__(self) -> tuple[Any, ...]:
        # Worker processes receive the suite pickled: send the text and compile it again
        # there (once per process, memoized) instead of pickling closures and parse trees.
        return (compile_query, (self.expression,))

    def __repr__(self) -> str:
        return f"Query({self.expression!r}, fast={self.fast})"


def compile_query(expression: str) -> Query:
    """Compile (or fetch the memoized) Query for ``expression``.

    Raises QueryError for a non-string, an empty/blank string, anything jsonpath-ng's
    extended parser rejects, a regular expression that is invalid or has no exact
    linear-time form, an intersection (`&`, which jsonpath-ng cannot evaluate), and an
    expression jsonpath-ng would have to evaluate nested deeper than
    MAX_JSONPATH_NG_DEPTH. Failures are not cached; valid expressions are, for the life
    of the process (specs hold a bounded set).
    """
    if not isinstance(expression, str):
        raise QueryError(
            repr(expression), 1, f"expression must be a string, not {type(expression).__name__}"
        )
    return _compile_cached(expression)


@functools.cache
def _parser() -> _ExtendedParser:
    """One parser for the process. `jsonpath_ng.ext.parse` builds a new one for every
    expression (loading PLY's tables: ~0.4 ms, five times the parse of a short path); the
    parser keeps no state between parses (each makes its own lexer and stacks), but PLY
    sets attributes while parsing, so threads (capture's workers) take turns."""
    return _ExtendedParser()


_PARSING = threading.Lock()


def _jsonpath_parse(expression: str) -> _jp.JSONPath:
    with _PARSING:
        return _parser().parse(expression)


@functools.cache
def _compile_cached(expression: str) -> Query:
    if not expression.strip():
        raise QueryError(expression, 1, "empty expression: expected a JSONPath such as '$.a.b'")
    try:
        with warnings.catch_warnings():
            # Deprecated-but-valid syntax (`|` unions, bare words in filters) must not
            # fail compilation when warnings are configured as errors.
            warnings.simplefilter("ignore", DeprecationWarning)
            path = _jsonpath_parse(expression)
    except RecursionError:
        raise QueryError(expression, 1, "expression is nested too deeply") from None
    except re.error as exc:  # a `sub()` pattern, compiled by the parser
        raise _parse_time_regex_error(expression, exc) from None
    except Exception as exc:
        raise _query_error(expression, exc) from None
    depth = 0
    for node, level in _walk(path):
        if type(node) is _Operation:
            node.__class__ = _StrictOperation
        if type(node) is _jp._Intersect:
            raise QueryError(
                expression,
                _intersection_column(expression),
                "`&` (intersection) is not implemented by jsonpath-ng: it cannot be evaluated",
            )
        depth = max(depth, level)
    _guard_regexes(expression, path)
    query = Query(expression, path)
    if not query.native and depth > MAX_JSONPATH_NG_DEPTH:
        raise QueryError(
            expression,
            1,
            f"the expression nests {depth} levels deep; jsonpath-ng evaluates it recursively"
            f" and at most {MAX_JSONPATH_NG_DEPTH} levels are allowed (split it into shorter"
            " expressions)",
        )
    return query


_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _concrete_path(datum: Any) -> str | None:
    """`$.a[0]['b c']` for a jsonpath-ng match: its chain of contexts from the root, each a
    field name or a (non-negative) index; None when a step is not one, or when the value is
    computed rather than found (`len`, `sub()`, `sorted`)."""
    chain = []
    while datum is not None:
        chain.append(datum)
        datum = datum.context
    if not isinstance(chain[-1].path, _jp.Root):  # a computed value (`sub()`, `sorted`)
        return None
    out = ["$"]
    for node in reversed(chain):
        step = node.path
        if isinstance(step, (_jp.Root, _jp.This)):
            continue
        if isinstance(step, _jp.Fields) and len(step.fields) == 1:
            name = step.fields[0]
            if _PLAIN_NAME.match(name):
                out.append(f".{name}")
            else:
                quoted = name.replace("\\", "\\\\").replace("'", "\\'")
                out.append(f"['{quoted}']")
        elif isinstance(step, _jp.Index) and len(step.indices) == 1:
            index = step.indices[0]
            parent = node.context.value if node.context is not None else None
            if index < 0 and isinstance(parent, list):
                index += len(parent)
            out.append(f"[{index}]")
        else:
            return None
    return "".join(out)


class FirstOf:
    """Several compiled queries tried in turn: the matches of the first one that matches
    anything. The trace-fields spec writes one as a list (`tool_calls: [$.toolInvocations,
    $.view.tool_calls]`: the trace's own field, else the normalized view's), so that the
    report's columns work on every trace shape. `TraceContext.find` gives each alternative
    its own document (the trace, or the view for `$.view...`); `find` on one document tries
    them all on it."""

    __slots__ = ("alternatives", "expression")

    def __init__(self, alternatives: tuple[Query, ...]) -> None:
        self.alternatives = alternatives
        self.expression = ", else ".join(q.expression for q in alternatives)

    def find(self, document: Any) -> list[Any]:
        for query in self.alternatives:
            found = query.find(document)
            if found:
                return found
        return []
