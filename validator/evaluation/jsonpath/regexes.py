"""The regular expressions of a query, run on the linear-time engine.

jsonpath-ng would run every `=~` pattern and `sub(/re/, x)` with Python's `re` (a pattern
like `^(a+)+$` could hang a run). Each is compiled when the query is, by
`validator.saferegex` (linear time, Python's meaning), and put in place in the AST; a bad
pattern is a QueryError at the pattern's column, found by reading the expression's quoted
tokens as jsonpath-ng's lexer does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ...dataclass import dataclass
from ...problems import kind_of, show
from ..saferegex import RegexError, SafeRegex, compile_safe
from . import ng
from .errors import QueryError


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


class SafeMatch(ng.Expression):
    """An `=~` comparison whose pattern runs on the linear-time engine (same results as
    jsonpath-ng's: only text values can match, `re.search` semantics)."""

    regex: SafeRegex

    def find(self, datum: Any) -> list[Any]:
        search = self.regex.search
        found = self.target.find(ng.DatumInContext.wrap(datum))
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
            raise ng.Unevaluable(f"`sub()` applies to text, found {kind_of(value)}{shown}")
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
    node.__class__ = SafeMatch  # same data, find() on the linear-time engine
    node.regex = regex


def _sub_parts(method: str) -> tuple[int, int]:
    """Where Sub's pattern and replacement start in its operator text, found as
    jsonpath-ng's Sub splits it (it strips both)."""
    body = ng.SUB_BODY.match(method)
    parts = ng.SUB_PARTS.fullmatch(body.group(1)) if body else None
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


def guard_regexes(expression: str, path: Any) -> None:
    """Compile every regex the AST holds with the linear-time engine, in place; a bad or
    unsupported one is a QueryError at its column."""
    nodes = [
        node
        for node, _ in ng.walk(path)
        if (type(node) is ng.Expression and node.op == "=~") or type(node) is ng.Sub
    ]
    if not nodes:
        return
    operands, backquoted = _scan_literals(expression)
    for node in nodes:
        if type(node) is ng.Sub:
            _guard_sub(expression, node, backquoted)
        else:
            _guard_match(expression, node, operands)


def parse_time_regex_error(expression: str, exc: re.error) -> QueryError:
    """jsonpath-ng compiles `sub()` patterns with `re` while parsing: point at the one."""
    for literal in _scan_literals(expression)[1]:
        body = ng.SUB_BODY.match(literal.value)
        parts = ng.SUB_PARTS.fullmatch(body.group(1)) if body else None
        if parts is None:
            continue
        try:
            compile_safe(parts.group(1).strip())
        except RegexError as error:
            return _sub_error(expression, error, literal, literal.value)
    return QueryError(expression, 1, f"invalid regular expression: {exc}")


def intersection_column(expression: str) -> int:
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
