"""The plain-Python JSONPath evaluator: the same answers as jsonpath-ng's `find`, faster.

jsonpath-ng's ``find`` builds a ``DatumInContext`` (with a full parent chain) for every node
it visits, which costs ~6 us for ``$.a.b.c``, milliseconds for ``$..name`` on a trace and
tens of seconds for ``$..[?(@.status == 'error')]`` on a 50 MB trace; it also recurses once
per segment, so a long expression or a deep document overflows Python's stack. The same
answers are computed here with dict/list access, iteratively.

What is evaluated is a *plan*: a list of (kind, argument) steps. Plans come from
jsonpath-ng's parsed AST (planner.py), so the evaluator can only differ from jsonpath-ng in
evaluation, and evaluation of each step mirrors jsonpath-ng's node (see the ``_step_*``
helpers): children, indexes, wildcards, descendants, unions, ``$`` anywhere, filters; a
segment jsonpath-ng must evaluate itself is a ``jsonpath`` step. The plainest expressions
(``$.a.b[*].c``) are planned from their text (plain.py), each plan the one the AST gives.
The oracle is jsonpath-ng itself: tests/unit/evaluation/jsonpath/test_oracle.py compares
the two on the compliance suite and on generated expressions and documents.

One evaluation may produce at most ``NODE_BUDGET`` values (intermediate ones included);
past that it fails with a reason instead of growing without bound (chains of ``|$``
re-rooting double the values at every step).

Nothing here imports jsonpath-ng: a run whose queries are all plain never loads it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import Unevaluable

# Values one evaluation may produce, intermediate ones included. A 50 MB trace holds ~6
# million nodes, so only a runaway expression (or `$..*` on an extreme trace) gets near it;
# reaching it takes seconds, not minutes, and the list of values stays under ~100 MB.
NODE_BUDGET = 10_000_000

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

Plan = list[tuple[str, Any]]

# Step kinds of the first evaluator (child, index, wildcard, descendants): `Query.fast`
# says whether a plan uses only these.
PLAIN = frozenset({"field", "index", "wildcard", "descend"})


def evaluator(plan: Plan) -> tuple[Finder, bool]:
    """The function evaluating `plan`, and whether it uses only the PLAIN steps."""
    return finder(plan), all(kind in PLAIN for kind, _ in plan)


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
    # A context-free segment: jsonpath-ng evaluates it on each bare value. Only a query
    # jsonpath-ng parsed has one, so its module is loaded already.
    from . import ng

    find = node.find
    wrap = ng.DatumInContext

    def step(nodes: list[Any], root: Any) -> list[Any]:
        return [match.value for value in nodes for match in find(wrap(value))]

    return step


def _over_budget() -> Unevaluable:
    return Unevaluable(
        f"it produces more than {NODE_BUDGET:,} values (a runaway expression, e.g. a long"
        " chain of `|` unions, each of which also re-reads the whole document)"
    )


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


def _build_steps(plan: Plan) -> list[Step]:
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


def finder(plan: Plan) -> Finder:
    """A function (value, root) -> matches for a plan."""
    if all(kind in ("field", "this") for kind, _ in plan):
        return _field_chain(tuple(arg for kind, arg in plan if kind == "field"))
    kinds = [kind for kind, _ in plan]
    if kinds[-2:] == ["wildcard", "field"] and all(kind == "field" for kind in kinds[:-2]):
        return _records_chain(tuple(arg for _, arg in plan[:-2]), plan[-1][1])
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


def _records_chain(head: tuple[str, ...], name: str) -> Finder:
    # ``$.a.b[*].c``, a field of each record of a list: the head found by _field_chain,
    # then the wildcard's and the field's steps in one comprehension. The same matches as
    # the step chain, and the same budget: each head name produces one value.
    walk = _field_chain(head)

    def find(document: Any, root: Any) -> list[Any]:
        at = walk(document, root)
        if not at:
            return []
        node = at[0]
        if isinstance(node, (list, tuple)):
            members: Any = node
        elif isinstance(node, dict):
            members = node.values()
        else:
            return []
        if not members:
            return []
        produced = len(head) + len(members)
        if produced > NODE_BUDGET:
            raise _over_budget()
        missing = _MISSING
        found = [
            value
            for member in members
            if isinstance(member, dict) and (value := member.get(name, missing)) is not missing
        ]
        if found and produced + len(found) > NODE_BUDGET:
            raise _over_budget()
        return found

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
