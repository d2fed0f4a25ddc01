"""Compiled JSONPath queries with a plain-Python fast path.

Check specs evaluate the same handful of JSONPath expressions against many trace
documents. jsonpath-ng is the reference semantics, but its ``find`` builds a
``DatumInContext`` (with a full parent chain) for every node it visits, which costs
~6 us for ``$.a.b.c`` and milliseconds for ``$..name`` on a trace. Most spec
expressions are plain child/index/wildcard/descendant chains, and for those the
same answer can be computed with dict/list access in a fraction of the time.

Every expression is always parsed by ``jsonpath_ng.ext.parse``: its grammar decides
what is valid, how names are spelled (``$.01`` is the field ``"1"``, ``$['a\\nb']``
is the field ``"anb"``), and how segments associate. The fast path is then derived
from the *parsed AST*, not from a second hand-written grammar, so it can only differ
from jsonpath-ng in evaluation, and evaluation of each supported node type mirrors
jsonpath-ng 1.16 line by line (see the ``_step_*`` helpers). ASTs containing any
other node type are evaluated by jsonpath-ng itself.

The plan is fixed at compile time, so ``jsonpath_ng.jsonpath.auto_id_field`` (a
global that changes Fields/Wildcard semantics) must keep its default ``None``.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Callable
from typing import Any

import jsonpath_ng.jsonpath as _jp
from jsonpath_ng.ext import parse as _jsonpath_parse

__all__ = ["Query", "QueryError", "compile_query"]


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


# ------------------------------------------------------------------ fast-path steps
#
# A fast plan is a list of steps; each maps the current list of matched nodes to the
# next one (a flat-map). jsonpath-ng's Child(L, R) is flat-map composition, and
# Descendants(L, R) is "flat-map pre-order-walk, then flat-map R". Flat-map
# composition is associative, so any nesting of Child/Descendants over the supported
# leaves flattens into one left-to-right list of steps with the same results in the
# same order.

_MISSING = object()

Step = Callable[[list[Any]], list[Any]]


def _step_field(name: str) -> Step:
    # Mirrors Fields.get_field_datum: ``value.get(name, NOT_SET)``; anything without a
    # usable ``get`` (list, str, number, None) yields nothing; a key whose value is
    # None *is* a match.
    def step(nodes: list[Any]) -> list[Any]:
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
    def step(nodes: list[Any]) -> list[Any]:
        return [
            node[index]
            for node in nodes
            if isinstance(node, (list, tuple)) and -len(node) <= index < len(node)
        ]

    return step


def _step_wildcard(nodes: list[Any]) -> list[Any]:
    # Mirrors Wildcard.find: array elements, object member values in insertion
    # order, nothing for scalars (a string is *not* iterated).
    out: list[Any] = []
    for node in nodes:
        if isinstance(node, (list, tuple)):
            out.extend(node)
        elif isinstance(node, dict):
            out.extend(node.values())
    return out


def _step_descend(nodes: list[Any]) -> list[Any]:
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
    def step(nodes: list[Any]) -> list[Any]:
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


class _NotFast(Exception):
    """Raised while planning when an AST node has no exact fast equivalent."""


def _plan(node: _jp.JSONPath, leftmost: bool, out: list[tuple[str, Any]]) -> None:
    """Flatten a jsonpath-ng AST into ``out`` as (kind, argument) steps.

    Exact type checks on purpose: ext subclasses (Filter, SortedThis, Len, ...) and
    anything else must not be mistaken for the node they inherit from.
    """
    kind = type(node)
    if kind is _jp.Root:
        # Root anywhere but the start jumps back to the document root; only the
        # leading ``$`` is a no-op on the document.
        if not leftmost:
            raise _NotFast
    elif kind is _jp.Child:
        _plan(node.left, leftmost, out)
        _plan(node.right, False, out)
    elif kind is _jp.Descendants:
        _plan(node.left, leftmost, out)
        out.append(("descend", None))
        _plan(node.right, False, out)
    elif kind is _jp.Fields:
        if len(node.fields) != 1 or node._deprecated_wildcard_use:
            raise _NotFast
        (name,) = node.fields
        if not isinstance(name, str) or name == _jp.auto_id_field:
            raise _NotFast
        out.append(("field", name))
    elif kind is _jp.Index:
        if len(node.indices) != 1 or not isinstance(node.indices[0], int):
            raise _NotFast
        out.append(("index", node.indices[0]))
    elif kind is _jp.Wildcard:
        if _jp.auto_id_field is not None:
            raise _NotFast
        out.append(("wildcard", None))
    else:
        raise _NotFast


def _build_steps(plan: list[tuple[str, Any]]) -> list[Step]:
    steps: list[Step] = []
    i = 0
    while i < len(plan):
        kind, arg = plan[i]
        if kind == "descend":
            if i + 1 < len(plan) and plan[i + 1][0] == "field":
                steps.append(_step_descend_field(plan[i + 1][1]))
                i += 2
                continue
            steps.append(_step_descend)
        elif kind == "field":
            steps.append(_step_field(arg))
        elif kind == "index":
            steps.append(_step_index(arg))
        else:
            steps.append(_step_wildcard)
        i += 1
    return steps


def _field_chain(names: tuple[str, ...]) -> Callable[[Any], list[Any]]:
    # ``$.a.b.c``: at most one match, so walk without building intermediate lists.
    def find(document: Any) -> list[Any]:
        node = document
        for name in names:
            if not isinstance(node, dict):
                return []
            node = node.get(name, _MISSING)
            if node is _MISSING:
                return []
        return [node]

    return find


def _step_chain(steps: list[Step]) -> Callable[[Any], list[Any]]:
    def find(document: Any) -> list[Any]:
        nodes = [document]
        for step in steps:
            nodes = step(nodes)
            if not nodes:
                break
        return nodes

    return find


# ------------------------------------------------------------------------- queries


class Query:
    """One compiled JSONPath expression.

    Obtain instances from :func:`compile_query`, which memoizes them, so that a spec
    mentioning the same path in many checks parses it once per process.
    """

    expression: str
    fast: bool

    __slots__ = ("_fast_find", "_path", "expression", "fast")

    def __init__(self, expression: str, path: _jp.JSONPath) -> None:
        self.expression = expression
        self._path = path
        self._fast_find: Callable[[Any], list[Any]] | None = None
        plan: list[tuple[str, Any]] = []
        try:
            _plan(path, True, plan)
        except (_NotFast, RecursionError):
            # RecursionError: thousands of segments nest the AST too deeply to walk;
            # such a query is left to jsonpath-ng, whose find() is then guarded too.
            pass
        else:
            if all(kind == "field" for kind, _ in plan):
                self._fast_find = _field_chain(tuple(arg for _, arg in plan))
            else:
                self._fast_find = _step_chain(_build_steps(plan))
        self.fast = self._fast_find is not None

    def find(self, document: Any) -> list[Any]:
        """All matched values, in jsonpath-ng order; never raises.

        Falsy values (``0``, ``""``, ``False``, ``[]``, ``None``) are matches like any
        other. The fast path is iterative and cannot overflow the stack. On the
        jsonpath-ng path, a ``RecursionError`` (document nested deeper than Python's
        recursion limit) or any other exception jsonpath-ng raises while evaluating an
        odd document (e.g. a filter comparing incomparable types) yields ``[]``: a
        check must be able to report "nothing matched" rather than crash the run.
        """
        if self._fast_find is not None:
            return self._fast_find(document)
        try:
            matches: Any = self._path.find(document)
            # Some ext nodes (SortedThis) return a bare datum instead of a list.
            if isinstance(matches, _jp.DatumInContext):
                matches = [matches]
            return [match.value for match in matches]
        except Exception:  # RecursionError included
            return []

    def __reduce__(self) -> tuple[Any, ...]:
        # Worker processes receive the suite pickled: send the text and compile it again
        # there (once per process, memoized) instead of pickling closures and parse trees.
        return (compile_query, (self.expression,))

    def __repr__(self) -> str:
        return f"Query({self.expression!r}, fast={self.fast})"


def compile_query(expression: str) -> Query:
    """Compile (or fetch the memoized) Query for ``expression``.

    Raises QueryError for a non-string, an empty/blank string, or anything
    jsonpath-ng's extended parser rejects. Failures are not cached; valid
    expressions are, for the life of the process (specs hold a bounded set).
    """
    if not isinstance(expression, str):
        raise QueryError(
            repr(expression), 1, f"expression must be a string, not {type(expression).__name__}"
        )
    return _compile_cached(expression)


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
    except Exception as exc:
        raise _query_error(expression, exc) from None
    return Query(expression, path)
