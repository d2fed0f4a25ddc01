"""jsonpath-ng, read in this one module: its parser, its AST classes, its evaluation.

jsonpath-ng is the reference semantics of every query: its extended parser decides what is
valid, and its `find` is the oracle the plain-Python evaluator (fast.py) mirrors and is
tested against (tests/unit/evaluation/jsonpath/test_oracle.py). The evaluator mirrors more than jsonpath-ng
promises: the union and intersection nodes, its comparison function and its equality table
(RFC 9535 comparisons), the `sub()` operator's patterns. Those names are read here and
nowhere else; other modules use the public names below.

The names were checked against the releases in `dependencies.SUPPORTED` (pyproject.toml pins
the same range). When the installed jsonpath-ng lacks one, importing this module raises
`UnsupportedDependency` naming the installed version, not an ImportError.
"""

from __future__ import annotations

import functools
import importlib
import threading
from collections.abc import Iterator
from typing import Any

from ...dependencies import UnsupportedDependency
from ...problems import kind_of, show
from .errors import Unevaluable

PURPOSE = "the JSONPath evaluator reads its AST classes and comparison rules"

# module -> the names of it the evaluator reads (a leading underscore: not public there)
READ = {
    "jsonpath_ng.jsonpath": (
        "JSONPath DatumInContext Root This Child Descendants Fields Index Slice Wildcard"
        " Where WhereNot _Union _Intersect auto_id_field"
    ),
    "jsonpath_ng.ext.filter": "Filter Expression And Or EQUALITY_ONLY_OPERATOR_MAP _compare",
    "jsonpath_ng.ext.iterable": "Len Keys",
    "jsonpath_ng.ext.string": "Sub Split Str _SUB_BODY _SUB_PARTS",
    "jsonpath_ng.ext.arithmetic": "Operation",
    "jsonpath_ng.ext.parser": "ExtendedJsonPathParser",
}


def missing_names() -> list[str]:
    """The names in READ the installed jsonpath-ng lacks (`module.name`), in READ's order."""
    missing = []
    failures: set[str] = set()  # one failed import is named once, not for every module after
    for module_name, names in READ.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            if str(exc) not in failures:
                missing.append(f"{module_name} (importing it fails: {exc})")
            failures.add(str(exc))
            continue
        missing.extend(f"{module_name}.{n}" for n in names.split() if not hasattr(module, n))
    if not missing:
        fields = importlib.import_module("jsonpath_ng.jsonpath").Fields("a")
        if not hasattr(fields, "_deprecated_wildcard_use"):
            missing.append("jsonpath_ng.jsonpath.Fields._deprecated_wildcard_use")
    return missing


def require() -> None:
    """Raise UnsupportedDependency when the installed jsonpath-ng lacks a name in READ."""
    missing = missing_names()
    if missing:
        raise UnsupportedDependency("jsonpath-ng", missing, PURPOSE)


require()

import jsonpath_ng.jsonpath as _jp  # noqa: E402 - only once require() has passed
from jsonpath_ng.ext import arithmetic as _arithmetic  # noqa: E402
from jsonpath_ng.ext import filter as _filter  # noqa: E402
from jsonpath_ng.ext import iterable as _iterable  # noqa: E402
from jsonpath_ng.ext import string as _string  # noqa: E402
from jsonpath_ng.ext.parser import ExtendedJsonPathParser  # noqa: E402

# The AST classes, by the names the rest of the package uses.
JSONPath = _jp.JSONPath
DatumInContext = _jp.DatumInContext
Root, This, Child, Descendants = _jp.Root, _jp.This, _jp.Child, _jp.Descendants
Fields, Index, Slice, Wildcard = _jp.Fields, _jp.Index, _jp.Slice, _jp.Wildcard
Where, WhereNot = _jp.Where, _jp.WhereNot
Union, Intersect = _jp._Union, _jp._Intersect
Filter, Expression, And, Or = _filter.Filter, _filter.Expression, _filter.And, _filter.Or
Len, Keys = _iterable.Len, _iterable.Keys
Sub, Split, Str = _string.Sub, _string.Split, _string.Str
Operation = _arithmetic.Operation

# Filter comparisons: `compare(op, left, right)` for two values, and, per operator, what an
# equality of identity (`== null`, `== true`) means (`!=` negates it; `<` is always False).
compare = _filter._compare
EQUALITY_ONLY = _filter.EQUALITY_ONLY_OPERATOR_MAP
# How the Sub node splits its operator text `sub(/pattern/, replacement)`.
SUB_BODY = _string._SUB_BODY
SUB_PARTS = _string._SUB_PARTS


def auto_id_field() -> Any:
    """jsonpath-ng's global that changes Fields/Wildcard semantics (must stay None)."""
    return _jp.auto_id_field


def deprecated_wildcard(node: Any) -> bool:
    """Whether a Fields node is the deprecated `*` spelling (not one plain name)."""
    return bool(node._deprecated_wildcard_use)


# --------------------------------------------------------------------------- parsing


@functools.cache
def _parser() -> Any:
    """One parser for the process. `jsonpath_ng.ext.parse` builds a new one for every
    expression (loading PLY's tables: ~0.4 ms, five times the parse of a short path); the
    parser keeps no state between parses (each makes its own lexer and stacks), but PLY
    sets attributes while parsing, so threads (capture's workers) take turns."""
    return ExtendedJsonPathParser()


_PARSING = threading.Lock()


def parse(expression: str) -> Any:
    """jsonpath-ng's extended parse of `expression` (its exceptions as they are)."""
    with _PARSING:
        return _parser().parse(expression)


# --------------------------------------------------------------------------- the AST


def _children(node: Any) -> list[Any]:
    """The sub-expressions of a jsonpath-ng node (whatever its class), in source order."""
    out = []
    for name in ("left", "right", "target", "value"):
        child = getattr(node, name, None)
        if isinstance(child, JSONPath):
            out.append(child)
    for name in ("expressions", "operands"):
        items = getattr(node, name, None)
        for item in items if isinstance(items, list) else ():
            item = item[0] if isinstance(item, tuple) else item  # SortedThis: (path, reverse)
            if isinstance(item, JSONPath):
                out.append(item)
    return out


def walk(path: Any) -> Iterator[tuple[Any, int]]:
    """Every node with its depth, without recursion (a 5,000-way union nests 5,000 deep)."""
    stack = [(path, 1)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        stack.extend((child, depth + 1) for child in reversed(_children(node)))


# --------------------------------------------------------------------------- evaluation


class StrictOperation(Operation):  # type: ignore[misc, valid-type]
    """jsonpath-ng's arithmetic (`$.a + $.b`), except that values that do not combine (a
    number plus text) or sides that cannot be paired are an evaluation error with the
    types named, never an empty result read as "nothing found"."""

    def find(self, datum: Any) -> list[Any]:
        sides = [
            [m.value for m in side.find(datum)] if isinstance(side, JSONPath) else [side]
            for side in (self.left, self.right)
        ]
        left, right = sides
        if not left or not right:
            return []  # one side found nothing: so does the sum
        if not isinstance(self.left, JSONPath):  # a number: it goes with every value
            left = left * len(right)
        elif not isinstance(self.right, JSONPath):
            right = right * len(left)
        elif len(left) != len(right):
            raise Unevaluable(
                f"`{self.op_symbol}` pairs the values of its two sides one to one, and they"
                f" match {len(left)} and {len(right)} values"
            )
        out = []
        for one, two in zip(left, right, strict=True):
            try:
                out.append(self.op(one, two))
            except TypeError:
                raise Unevaluable(
                    f"the types do not {_VERBS[self.op_symbol]}: {kind_of(one)} {show(one)}"
                    f" {self.op_symbol} {kind_of(two)} {show(two)}"
                ) from None
        return [DatumInContext.wrap(value) for value in out]


_VERBS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide"}


def find_matches(path: Any, document: Any) -> list[Any]:
    """jsonpath-ng's own evaluation of a parsed path: its matches (DatumInContext, with the
    chain of contexts that locates each), in its order. Raises what jsonpath-ng raises."""
    matches: Any = path.find(document)
    # Some ext nodes (SortedThis) return a bare datum instead of a list.
    if isinstance(matches, DatumInContext):
        matches = [matches]
    return list(matches)
