"""A JSONPath expression compiled once: `compile_query` -> `Query`.

Every expression is parsed by jsonpath-ng's extended parser (ng.py): its grammar decides
what is valid, how names are spelled (``$.01`` is the field ``"1"``, ``$['a\\nb']`` is the
field ``"anb"``), and how segments associate (``|`` binds tighter than ``.``, so
``$.a|$.b`` is ``$.(a|$).b``). The plain-Python evaluator (fast.py) takes the AST when it
can (planner.py); jsonpath-ng evaluates the rest (ng.py). The one exception: an expression
of plain names, ``*`` and indexes (``$.a.b[*].c``, plain.py) is planned from its text, the
plan its AST would give, and jsonpath-ng is loaded only if that query is ever asked where
its matches are (`find_located`); a run whose queries are all such never loads it (~20 ms).

Two rules make a query safe for a release gate:

* Evaluation never turns a problem into "no match": ``find`` raises
  ``QueryEvaluationError`` saying what went wrong, and the interpreter fails the check.
* Every regular expression jsonpath-ng would run (``=~`` operands, ``sub(/re/, x)``) is
  compiled when the query is (regexes.py); a bad pattern is a ``QueryError`` at the
  pattern's column.
"""

from __future__ import annotations

import functools
import re
import warnings
from typing import Any

from . import plain
from .errors import QueryError, QueryEvaluationError, query_error, reason
from .fast import Finder, evaluator

# AST depth jsonpath-ng's recursive find() can evaluate well inside Python's stack; only
# queries the plain-Python evaluator cannot take are held to it.
MAX_JSONPATH_NG_DEPTH = 100


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

    def __init__(self, expression: str, path: Any, found: tuple[Finder, bool] | None) -> None:
        """`path`: jsonpath-ng's AST (None: parsed when first needed); `found`: the
        plain-Python evaluator of it and whether it is `fast`, None when there is none."""
        self.expression = expression
        self._path = path
        self._find: Finder | None = None
        # Whether it reads the normalized view (`$.view...`) rather than the raw trace.
        self.view = reads_view(expression)
        # `fast`: only plain child/index/wildcard/descendant steps (the common shapes).
        self.fast = False
        if found is not None:
            self._find, self.fast = found

    @property
    def path(self) -> Any:
        """jsonpath-ng's AST of the expression (parsed now if the query was planned from
        its text)."""
        if self._path is None:
            from . import ng

            self._path = ng.parse(self.expression)
        return self._path

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
            from . import ng  # loaded: only a query jsonpath-ng parsed has no _find

            return [match.value for match in ng.find_matches(self._path, document)]
        except Exception as exc:  # RecursionError and MemoryError included
            raise QueryEvaluationError(self.expression, reason(exc)) from None

    def find_located(self, document: Any) -> list[tuple[str | None, Any]]:
        """Each match as (its concrete JSONPath, its value), for people writing specs (the
        `query` command). The values are `find`'s (so the same errors); each path comes from
        jsonpath-ng's own evaluation, the reference semantics. When that cannot be had for a
        match (a `len` or `sub()` result, an evaluation jsonpath-ng cannot finish, or one that
        disagrees with `find`), its path is None: a value is never shown at a wrong place."""
        from .located import located

        return located(self.path, self.find(document), document)

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
def _compile_cached(expression: str) -> Query:
    if not expression.strip():
        raise QueryError(expression, 1, "empty expression: expected a JSONPath such as '$.a.b'")
    planned = plain.plan(expression)
    if planned is not None:
        return Query(expression, None, evaluator(planned))
    return _parsed(expression)


def _parsed(expression: str) -> Query:
    """The Query of an expression jsonpath-ng's parser reads (and the checks after it)."""
    from . import ng
    from .planner import native
    from .regexes import guard_regexes, intersection_column, parse_time_regex_error

    try:
        with warnings.catch_warnings():
            # Deprecated-but-valid syntax (`|` unions, bare words in filters) must not
            # fail compilation when warnings are configured as errors.
            warnings.simplefilter("ignore", DeprecationWarning)
            path = ng.parse(expression)
    except RecursionError:
        raise QueryError(expression, 1, "expression is nested too deeply") from None
    except re.error as exc:  # a `sub()` pattern, compiled by the parser
        raise parse_time_regex_error(expression, exc) from None
    except Exception as exc:
        raise query_error(expression, exc) from None
    depth = 0
    for node, level in ng.walk(path):
        if type(node) is ng.Operation:
            node.__class__ = ng.StrictOperation
        if type(node) is ng.Intersect:
            raise QueryError(
                expression,
                intersection_column(expression),
                "`&` (intersection) is not implemented by jsonpath-ng: it cannot be evaluated",
            )
        depth = max(depth, level)
    guard_regexes(expression, path)
    query = Query(expression, path, native(path))
    if not query.native and depth > MAX_JSONPATH_NG_DEPTH:
        raise QueryError(
            expression,
            1,
            f"the expression nests {depth} levels deep; jsonpath-ng evaluates it recursively"
            f" and at most {MAX_JSONPATH_NG_DEPTH} levels are allowed (split it into shorter"
            " expressions)",
        )
    return query
