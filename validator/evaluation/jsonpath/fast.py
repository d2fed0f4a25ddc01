"""The plain-Python JSONPath evaluator: the same answers as jsonpath-ng's `find`, faster.

jsonpath-ng's ``find`` builds a ``DatumInContext`` (with a full parent chain) for every node
it visits, which costs ~6 us for ``$.a.b.c``, milliseconds for ``$..name`` on a trace and
tens of seconds for ``$..[?(@.status == 'error')]`` on a 50 MB trace; it also recurses once
per segment, so a long expression or a deep document overflows Python's stack. The same
answers are computed here with dict/list access, iteratively.

The evaluator is derived from jsonpath-ng's *parsed AST* (`plan`), not from a second
grammar, so it can only differ from jsonpath-ng in evaluation, and evaluation of each node
type mirrors jsonpath-ng (see the ``_step_*`` helpers): children, indexes, wildcards,
descendants, unions, ``$`` anywhere, filters (comparisons, ``=~``, ``!``, ``&&``, ``||``).
Other nodes that do not look at a node's parents (slices, several names, `len`, `sub()`,
...) are evaluated by jsonpath-ng one segment at a time; an AST with a node that does
(```parent```, ```path```, sorting) is not planned (`native` is None) and jsonpath-ng
evaluates it as a whole. The oracle is jsonpath-ng itself: tests/unit/evaluation/jsonpath/test_oracle.py
compares the two on the compliance suite and on generated expressions and documents.

One evaluation may produce at most ``NODE_BUDGET`` values (intermediate ones included);
past that it fails with a reason instead of growing without bound (chains of ``|$``
re-rooting double the values at every step).

The plan is fixed at compile time, so ``jsonpath_ng.jsonpath.auto_id_field`` (a global
that changes Fields/Wildcard semantics) must keep its default ``None``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..saferegex import SafeRegex
from . import ng
from .ng import EQUALITY_ONLY, compare
from .regexes import SafeMatch

# Values one evaluation may produce, intermediate ones included. A 50 MB trace holds ~6
# million nodes, so only a runaway expression (or `$..*` on an extreme trace) gets near it;
# reaching it takes seconds, not minutes, and the list of values stays under ~100 MB.
NODE_BUDGET = 10_000_000


def native(path: Any) -> tuple[Finder, bool] | None:
    """The evaluator of a parsed path, and whether it uses only the plain steps (child,
    index, wildcard, descendants: `Query.fast`); None when jsonpath-ng must evaluate it."""
    try:
        plan = _plan(path, True)
    except (_NotPlannable, RecursionError):
        # RecursionError: a right-nested AST too deep to plan; jsonpath-ng takes it (and
        # compile_query refuses those too deep for it).
        return None
    return _finder(plan), all(kind in _PLAIN for kind, _ in plan)


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
    wrap = ng.DatumInContext

    def step(nodes: list[Any], root: Any) -> list[Any]:
        return [match.value for value in nodes for match in find(wrap(value))]

    return step


def _over_budget() -> ng.Unevaluable:
    return ng.Unevaluable(
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
    if type(target) is ng.Child and type(target.left) is ng.This:
        target = target.right
    if type(target) is ng.Fields and _single_field(target):
        return str(target.fields[0])
    return None


def _query_comparison(expression: Any) -> Predicate:
    # Mirrors Expression._find_with_query_operand: `@.a == @.b`, `@.a < $.limit`. Two
    # empty results are equal; an empty result equals nothing else.
    target = _finder(_plan(expression.target, False))
    other = _finder(_plan(expression.value, False))
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

# Step kinds the original fast path had; `Query.fast` reports whether only these are used.
_PLAIN = frozenset({"field", "index", "wildcard", "descend"})


def _plan(node: Any, leftmost: bool) -> list[tuple[str, Any]]:
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
    return [("union", [_finder(_plan(b, leftmost)) for b in _union_branches(node)])]


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
