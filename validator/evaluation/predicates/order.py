"""Order and sequences: which items (tool calls, steps) occur, in which order
(`sequence`, `precedes`), and how a step names an item (a typed value or a glob).
"""

from __future__ import annotations

from collections.abc import Callable
from fnmatch import fnmatchcase
from typing import Any

from ..context import TraceContext
from .declare import Outcome, Param, predicate, show
from .values import same


def ordered_items(values: list[Any]) -> list[Any]:
    """The ordered list a trajectory predicate reads: one matched list is that list (as
    `$.toolInvocations` gives), several matches are the list (as `$.view.tool_calls[*]`)."""
    if len(values) == 1 and isinstance(values[0], list):
        return list(values[0])
    return list(values)


def is_glob(step: Any) -> bool:
    return isinstance(step, str) and any(c in step for c in "*?[")


def step_matches(step: Any, item: Any, key: str | None) -> bool:
    """A step names an item: equal as typed JSON values, or a case-sensitive glob for text."""
    if key is not None:
        item = item.get(key) if isinstance(item, dict) else None
    if is_glob(step):
        return isinstance(item, str) and fnmatchcase(item, step)
    return same(step, item)


def label_of(item: Any, key: str | None) -> Any:
    return item.get(key) if key is not None and isinstance(item, dict) else item


def _matching(steps: list[Any], items: list[Any], key: str | None) -> list[int | None]:
    """A maximum matching of steps to distinct items (augmenting paths), so the result never
    depends on the order of the steps, globs included: each entry is the index of the item
    a step uses, or None when the step is left unmatched."""
    can = [[i for i, item in enumerate(items) if step_matches(s, item, key)] for s in steps]
    owner: dict[int, int] = {}  # item index -> step index

    def place(step: int, seen: set[int]) -> bool:
        for i in can[step]:
            if i in seen:
                continue
            seen.add(i)
            if i not in owner or place(owner[i], seen):
                owner[i] = step
                return True
        return False

    for step in sorted(range(len(steps)), key=lambda s: len(can[s])):
        place(step, set())
    used = {step: i for i, step in owner.items()}
    return [used.get(s) for s in range(len(steps))]


def _in_order(steps: list[Any], items: list[Any], key: str | None) -> int:
    """How many leading steps occur in order (each at a later item than the one before).
    Taking the earliest item that fits each step
    is optimal for a subsequence, globs included."""
    at = 0
    for done, step in enumerate(steps):
        while at < len(items) and not step_matches(step, items[at], key):
            at += 1
        if at == len(items):
            return done
        at += 1
    return len(steps)


def _shown_steps(steps: list[Any]) -> str:
    return ", ".join(str(s) for s in steps) or "none"


@predicate(
    "sequence",
    zero="exact and in-order fail unless steps is empty; contains fails; only passes",
    gives=("found", "expected", "missing", "count"),
    steps=Param("names", required=True, doc="the expected items, in order: names or globs"),
    mode=Param(
        "text",
        default="in-order",
        doc="exact, in-order, contains or only",
        choices=("exact", "in-order", "contains", "only"),
    ),
    key=Param("optional-text", doc="read this field of each item (e.g. name for call objects)"),
)
def sequence(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the ordered list the query gives fits `steps` as `mode` says.

    `exact`: the list is exactly the steps, one item per step. `in-order`: the steps occur in
    this order, other items may sit between them. `contains`: every step occurs, in any
    order; each step uses an item of its own, so steps `[a, a]` need two `a` calls (multiset
    inclusion). `only`: every item is one of the steps (an allow-list). A step is a typed JSON
    value (`1` is not `"1"`) or, for text, a case-sensitive glob (`mysql_*`); the unordered
    modes use a maximum matching, so their result never depends on the order of `steps`. The
    list is the one matched list, or the matches themselves (`$.view.tool_calls[*].name`).
    Zero items: `only` passes, `exact` and `in-order` pass only for empty steps, `contains`
    fails unless steps is empty.
    """
    steps, key, mode = list(args["steps"]), args["key"], args["mode"]
    items = ordered_items(values)
    labels = [label_of(i, key) for i in items]
    return _SEQUENCE_MODES[mode](steps, items, labels, key)


def _only(steps: list[Any], items: list[Any], labels: list[Any], key: str | None) -> Outcome:
    bad = [(i, x) for i, x in enumerate(items) if not any(step_matches(s, x, key) for s in steps)]
    if bad:
        index, item = bad[0]
        return Outcome(
            False,
            f"item {index} is {show(label_of(item, key))}, which is not one of the allowed"
            f" steps ({_shown_steps(steps)})",
            {"index": index, "items": labels},
            {"found": label_of(item, key), "expected": steps},
        )
    return Outcome(True, f"all {len(items)} items are allowed", {"items": labels})


def _contains(steps: list[Any], items: list[Any], labels: list[Any], key: str | None) -> Outcome:
    used = _matching(steps, items, key)
    missing = [s for s, i in zip(steps, used, strict=True) if i is None]
    if missing:
        return Outcome(
            False,
            f"missing {_shown_steps(missing)} (each step needs an item of its own); found:"
            f" {show(labels, 200)}",
            {"missing": missing, "items": labels},
            {"missing": missing, "found": labels, "expected": steps},
        )
    return Outcome(True, f"all {len(steps)} steps occur", {"items": labels})


def _exact(steps: list[Any], items: list[Any], labels: list[Any], key: str | None) -> Outcome:
    pairs = list(zip(steps, items, strict=False))
    agree = next((i for i, (s, x) in enumerate(pairs) if not step_matches(s, x, key)), len(pairs))
    if len(items) == len(steps) and agree == len(pairs):
        return Outcome(True, f"exactly {_shown_steps(steps)}", {"items": labels})
    return Outcome(
        False,
        f"expected exactly {_shown_steps(steps)}; found {show(labels, 200)} (the first"
        f" {agree} agree; they differ at item {agree})",
        {"index": agree, "items": labels},
        {"found": labels, "expected": steps, "count": agree},
    )


def _ordered(steps: list[Any], items: list[Any], labels: list[Any], key: str | None) -> Outcome:
    done = _in_order(steps, items, key)
    if done < len(steps):
        return Outcome(
            False,
            f"the first {done} step(s) ({_shown_steps(steps[:done])}) occur in order, but"
            f" {show(steps[done])} does not occur after them; found {show(labels, 200)}",
            {"satisfied": done, "items": labels},
            {"found": labels, "expected": steps, "missing": steps[done:], "count": done},
        )
    return Outcome(True, f"{_shown_steps(steps)} occur in order", {"items": labels})


_SEQUENCE_MODES: dict[str, Callable[[list[Any], list[Any], list[Any], str | None], Outcome]] = {
    "only": _only,
    "contains": _contains,
    "exact": _exact,
    "in-order": _ordered,
}


@predicate(
    "precedes",
    zero="`then` never occurring: passes, or fails with missing: fail",
    gives=("found", "expected"),
    first=Param("text", required=True, doc="the name (or glob) that must come first"),
    then=Param("text", required=True, doc="the name (or glob) that must come after it"),
    key=Param("optional-text", doc="read this field of each item (e.g. name for call objects)"),
    missing=Param(
        "text",
        default="pass",
        doc="pass or fail when `then` never occurs",
        choices=("pass", "fail"),
    ),
)
def precedes(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when every occurrence of `then` has a `first` somewhere before it.

    The list is read as for `sequence` (one matched list, or the matches themselves); zero
    matches mean no call ran. When `then` never occurs there is nothing to order:
    it passes, saying so, or fails with `missing: fail`. Names are typed values or globs, as
    for `sequence`.
    """
    items, key = ordered_items(values), args["key"]
    seen_first = False
    seen_then = False
    for index, item in enumerate(items):
        if step_matches(args["then"], item, key):
            seen_then = True
            if not seen_first:
                return Outcome(
                    False,
                    f"{show(args['then'])} ran at item {index} before any {show(args['first'])}",
                    {"index": index},
                    {"found": args["then"], "expected": args["first"]},
                )
        if step_matches(args["first"], item, key):
            seen_first = True
    if not seen_then:
        message = f"{show(args['then'])} never ran, so there is nothing to order"
        facts = {"found": args["then"], "expected": args["first"]}
        return Outcome(args["missing"] == "pass", message, facts=facts)
    return Outcome(True, f"every {show(args['then'])} comes after a {show(args['first'])}")
