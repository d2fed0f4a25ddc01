"""jsonpath-ng's parsed AST as a plan for the plain-Python evaluator (fast.py).

A Child/Descendants chain flattens into a left-to-right list of steps; each node becomes
the step that mirrors it (a field, an index, a wildcard, a union of sub-plans, a filter's
test compiled here from its expressions: comparisons, ``=~``, ``!``, ``&&``, ``||``).
Other nodes that do not look at a node's parents (slices, several names, `len`, `sub()`,
...) become a ``jsonpath`` step, which jsonpath-ng evaluates one segment at a time; an AST
with a node that does (```parent```, ```path```, sorting) is not planned (`native` is
None) and jsonpath-ng evaluates it as a whole.

The plan is fixed at compile time, so ``jsonpath_ng.jsonpath.auto_id_field`` (a global
that changes Fields/Wildcard semantics) must keep its default ``None``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..saferegex import SafeRegex
from . import ng
from .fast import Finder, Plan, Predicate, evaluator, finder
from .ng import EQUALITY_ONLY, compare
from .regexes import SafeMatch

_MISSING = object()


def native(path: Any) -> tuple[Finder, bool] | None:
    """The evaluator of a parsed path, and whether it uses only the plain steps (child,
    index, wildcard, descendants: `Query.fast`); None when jsonpath-ng must evaluate it."""
    try:
        plan = plan_of(path)
    except (_NotPlannable, RecursionError):
        # RecursionError: a right-nested AST too deep to plan; jsonpath-ng takes it (and
        # compile_query refuses those too deep for it).
        return None
    return evaluator(plan)


def plan_of(path: Any) -> Plan:
    """The plan of a whole parsed expression; raises _NotPlannable."""
    return _plan(path, True)


# Nodes whose find() looks only at the value it is given, never at parents or the root,
# so one segment can be evaluated by jsonpath-ng on a bare value. (Root, Parent, `path`,
# sorting - which returns a bare datum, not a list - and unknown nodes are not.)
_CONTEXT_FREE = frozenset(
    {
        ng.Child,
        ng.Descendants,
        ng.Fields,
        ng.Index,
        ng.Slice,
        ng.Wildcard,
        ng.This,
        ng.Union,
        ng.Where,
        ng.WhereNot,
        ng.Filter,
        ng.Expression,
        ng.And,
        ng.Or,
        ng.Len,
        ng.Keys,
        ng.Sub,
        ng.Split,
        ng.Str,
        ng.Operation,
        ng.StrictOperation,
    }
)


def _context_free(node: Any) -> bool:
    return all(type(n) in _CONTEXT_FREE or type(n) is SafeMatch for n, _ in ng.walk(node))


class _NotPlannable(Exception):
    """An AST node the plain-Python evaluator has no exact equivalent for."""


# ----------------------------------------------------------------------- filter tests


def _value_test(op: Any, literal: Any, regex: SafeRegex | None) -> Callable[[Any], bool]:
    """Whether one value found by a filter's target satisfies `op literal`, as in
    jsonpath-ng's Expression.find (RFC 9535 comparisons)."""
    if op == "=~":
        assert regex is not None
        search = regex.search
        return lambda value: isinstance(value, str) and search(value)
    if literal is None:  # `== null`: only None is equal to it
        equal_null = EQUALITY_ONLY[op]
        return lambda value: equal_null(value is None)
    equality_only = EQUALITY_ONLY[op]
    if isinstance(literal, bool):
        return lambda value: equality_only(value is literal)
    if isinstance(literal, str) and op in ("==", "=", "!="):
        # The common case, spelled out: text equals only text (what _compare computes).
        negate = op == "!="
        return lambda value: (isinstance(value, str) and value == literal) != negate
    return lambda value: (
        equality_only(value is literal) if isinstance(value, bool) else compare(op, value, literal)
    )


def _comparison(expression: Any) -> Predicate:
    # Not `leftmost`: a `$` in a filter is the document, not the candidate value.
    target = finder(_plan(expression.target, False))
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
    if type(target) is ng.Child and type(target.left) is ng.This:
        target = target.right
    if type(target) is ng.Fields and _single_field(target):
        return str(target.fields[0])
    return None


def _query_comparison(expression: Any) -> Predicate:
    # Mirrors Expression._find_with_query_operand: `@.a == @.b`, `@.a < $.limit`. Two
    # empty results are equal; an empty result equals nothing else.
    target = finder(_plan(expression.target, False))
    other = finder(_plan(expression.value, False))
    op = expression.op
    when_empty = EQUALITY_ONLY[op]

    def predicate(value: Any, root: Any) -> bool:
        found = target(value, root)
        values = other(value, root)
        if not found or not values:
            return bool(when_empty(not found and not values))
        return any(compare(op, item, against) for item in found for against in values)

    return predicate


def _predicate(expression: Any) -> Predicate:
    """A filter expression as a test of one candidate value."""
    kind = type(expression)
    if kind in (ng.And, ng.Or):
        tests = [_predicate(operand) for operand in expression.operands]
        if kind is ng.And:
            return lambda value, root: all(test(value, root) for test in tests)
        return lambda value, root: any(test(value, root) for test in tests)
    if kind in (ng.Expression, SafeMatch):
        if isinstance(expression.value, ng.JSONPath):
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


def _plan(node: Any, leftmost: bool) -> Plan:
    """Flatten a jsonpath-ng AST into (kind, argument) steps; raises _NotPlannable.

    Child and Descendants chains are walked without recursion, so thousands of segments
    plan fine. Exact type checks on purpose: ext subclasses (Filter, SortedThis, Len, ...)
    must not be mistaken for the node they inherit from.
    """
    spine = []
    while type(node) in (ng.Child, ng.Descendants):
        spine.append(node)
        node = node.left
    out = _plan_segment(node, leftmost)
    for parent in reversed(spine):
        if type(parent) is ng.Descendants:
            out.append(("descend", None))
        out.extend(_plan(parent.right, False))
    return out


def _plan_segment(node: Any, leftmost: bool) -> list[tuple[str, Any]]:
    planner = _SEGMENT_PLANNERS.get(type(node))
    plan = planner(node, leftmost) if planner is not None else None
    if plan is not None:
        return plan
    if type(node) in _CONTEXT_FREE and _context_free(node) and ng.auto_id_field() is None:
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
    return [("wildcard", None)] if ng.auto_id_field() is None else None


def _plan_union(node: Any, leftmost: bool) -> list[tuple[str, Any]]:
    return [("union", [finder(_plan(b, leftmost)) for b in _union_branches(node)])]


_SEGMENT_PLANNERS: dict[type, Callable[[Any, bool], list[tuple[str, Any]] | None]] = {
    ng.Root: _plan_root,
    ng.This: lambda node, leftmost: [("this", None)],
    ng.Fields: _plan_fields,
    ng.Index: _plan_index,
    ng.Wildcard: _plan_wildcard,
    ng.Filter: lambda node, leftmost: [("filter", _filter_predicate(node))],
    ng.Union: _plan_union,
}


def _single_field(node: Any) -> bool:
    if len(node.fields) != 1 or ng.deprecated_wildcard(node):
        return False
    name = node.fields[0]
    return isinstance(name, str) and name != ng.auto_id_field()


def _union_branches(node: Any) -> list[Any]:
    """The operands of nested unions, left to right (`a|b|c` nests either way)."""
    branches = []
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is ng.Union:
            stack.extend((current.right, current.left))
        else:
            branches.append(current)
    return branches
