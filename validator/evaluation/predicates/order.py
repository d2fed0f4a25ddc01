"""Order and sequences: which items (tool calls, steps) occur, in which order
(`sequence`, `precedes`), and how a step names an item (a typed value or a glob).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from typing import Any

from ..context import TraceContext
from .declare import Outcome, Param, predicate, show
from .matchers import MATCH, UNSURE, judge_entry
from .values import field_of, name_matches


def ordered_items(values: list[Any]) -> list[Any]:
    """The ordered list a trajectory predicate reads: one matched list is that list (as
    `$.toolInvocations` gives), several matches are the list (as `$.view.tool_calls[*]`)."""
    if len(values) == 1 and isinstance(values[0], list):
        return list(values[0])
    return list(values)


def step_matches(step: Any, item: Any, key: str | None) -> bool:
    """A step names an item: equal as typed JSON values, or a case-sensitive glob for text."""
    if key is not None:
        item = field_of(item, key)
    return name_matches(step, item)


def label_of(item: Any, key: str | None) -> Any:
    return field_of(item, key) if key is not None else item


# fits(s, i): whether step s may use item i.
Fits = Callable[[int, int], bool]


def _fitter(
    steps: list[Any],
    items: list[Any],
    key: str | None,
    args_key: str,
    ctx: TraceContext,
    lenient: bool,
) -> Fits:
    """Whether step s fits item i: a name or glob compared with the item (or its `key`
    field); a call entry judged as call-matches judges a call. An entry whose call cannot
    be judged fits only when `lenient` (so it never helps the check pass)."""
    name_key = key or "name"

    def fits(s: int, i: int) -> bool:
        step = steps[s]
        if isinstance(step, dict):
            status, _ = judge_entry(items[i], step, name_key, args_key, ctx)
            return status == MATCH or (lenient and status == UNSURE)
        return step_matches(step, items[i], key)

    return fits


def _kinds(labels: list[Any], steps: list[Any]) -> list[Any]:
    """For each item, a key shared only by items every step judges alike, or None: with
    steps that are names or globs, an item is judged by its (typed) label alone."""
    if any(isinstance(s, dict) for s in steps):
        return [None] * len(labels)
    out: list[Any] = []
    for label in labels:
        if isinstance(label, bool) or label is None:
            out.append(("b", label))
        elif isinstance(label, (int, float)):
            out.append(("n", label))  # 1 and 1.0 are one number, as `same` says
        elif isinstance(label, str):
            out.append(("s", label))
        else:
            out.append(None)  # a list or an object: judged on its own
    return out


def _matching(steps: int, items: int, fits: Fits, kinds: list[Any]) -> list[int | None]:
    """A maximum matching of steps to distinct items, so the result never depends on the
    order of the steps, globs included: each entry is the index of the item a step uses,
    or None when the step is left unmatched.

    Bounded for long traces: each item is judged once per step at most (once per kind of
    item, for names and globs), and items every step judges alike form one group with a
    capacity, so the memory is O(items) plus the groups; the augmenting paths run over the
    groups, not the items."""
    groups = _groups(steps, items, fits, kinds)
    signatures = list(groups)
    room = [len(groups[g]) for g in signatures]
    held: list[list[int]] = [[] for _ in signatures]  # the steps each group holds
    where: list[int | None] = [None] * steps  # the group each step uses
    reach = [sum(room[g] for g, sig in enumerate(signatures) if sig >> s & 1) for s in range(steps)]
    for step in sorted(range(steps), key=lambda s: reach[s]):
        _augment(step, signatures, room, held, where)
    used: list[int | None] = [None] * steps
    for g, holders in enumerate(held):
        for step, item in zip(sorted(holders), groups[signatures[g]], strict=False):
            used[step] = item
    return used


def _groups(steps: int, items: int, fits: Fits, kinds: list[Any]) -> dict[int, list[int]]:
    """The items by the steps they fit (a bit per step), each kind of item judged once."""
    groups: dict[int, list[int]] = {}
    seen: dict[Any, int] = {}
    for i in range(items):
        kind = kinds[i]
        signature = seen.get(kind) if kind is not None else None
        if signature is None:
            signature = sum(1 << s for s in range(steps) if fits(s, i))
            if kind is not None:
                seen[kind] = signature
        if signature:
            groups.setdefault(signature, []).append(i)
    return groups


def _augment(
    step: int,
    signatures: list[int],
    room: list[int],
    held: list[list[int]],
    where: list[int | None],
) -> None:
    """Place `step` in a group with room, moving placed steps along a shortest path of
    groups (breadth first, no recursion) when that frees one; nothing when none does."""
    came_from: dict[int, int] = {}  # group -> the step that reached it
    queue, visited = deque([step]), {step}
    found: int | None = None
    while queue and found is None:
        current = queue.popleft()
        for g, signature in enumerate(signatures):
            if not signature >> current & 1 or g in came_from:
                continue
            came_from[g] = current
            if len(held[g]) < room[g]:
                found = g
                break
            for other in held[g]:
                if other not in visited:
                    visited.add(other)
                    queue.append(other)
    at = found
    while at is not None:
        mover = came_from[at]
        before = where[mover]
        held[at].append(mover)
        where[mover] = at
        if before is not None:
            held[before].remove(mover)
        at = before


def _in_order(steps: int, items: int, fits: Fits) -> list[int]:
    """The items the leading steps use in order (each at a later item than the one before):
    as many as occur. Taking the earliest item that fits each step is optimal for a
    subsequence, globs included."""
    at = 0
    used: list[int] = []
    for step in range(steps):
        while at < items and not fits(step, at):
            at += 1
        if at == items:
            return used
        used.append(at)
        at += 1
    return used


def step_text(step: Any) -> str:
    """A step as a person reads it: a name, or a call entry as name(arg=value, ...)."""
    if not isinstance(step, dict):
        return str(step)
    args = step.get("args")
    if isinstance(args, dict):
        inner = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
    else:
        inner = "" if args is None else json.dumps(args, ensure_ascii=False)
    return f"{step.get('name', '*')}({inner})"


def _shown_steps(steps: list[Any]) -> str:
    return ", ".join(step_text(s) for s in steps) or "none"


def _shown(step: Any) -> str:
    return show(step) if not isinstance(step, dict) else step_text(step)


@predicate(
    "sequence",
    zero="exact and in-order fail unless steps is empty; contains fails; only passes",
    gives=("found", "expected", "missing", "count"),
    steps=Param(
        "steps",
        required=True,
        doc="the expected items, in order: names, globs, or call entries {name, args, mode,"
        " defaults, ignore}",
    ),
    mode=Param(
        "text",
        default="in-order",
        doc="exact, in-order, contains or only",
        choices=("exact", "in-order", "contains", "only"),
    ),
    key=Param("optional-text", doc="read this field of each item (e.g. name for call objects)"),
    present=Param("bool", default=True, doc="false: the steps must not occur in that mode"),
    args_key=Param(
        "text", default="arguments", doc="the field holding a call's arguments (call entries)"
    ),
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

    A step may be a call entry `{name, args, mode, defaults, ignore}`, judged on a call object
    as `call-matches` judges it (query the calls, `$.view.tool_calls[*]`, with `key: name` for
    the steps that are names): "`get_weather(city=London)`, then `get_weather(city=SF)`". A
    call that cannot be judged never fits a step. `present: false` turns the check round: the
    steps must not occur in that mode ("never `search_orders` then `compose_reply`"), and the
    message names the calls that formed the forbidden order; a call that cannot be judged
    counts as fitting there, so it never helps that pass either. Empty steps forbid nothing.
    """
    steps, key, mode = list(args["steps"]), args["key"], args["mode"]
    items = ordered_items(values)
    labels = [_label(i, key, steps) for i in items]
    if not args["present"]:
        return _forbidden(steps, items, labels, args, ctx)
    fits = _fitter(steps, items, key, args["args_key"], ctx, lenient=False)
    return _SEQUENCE_MODES[mode](steps, items, labels, fits)


def _label(item: Any, key: str | None, steps: list[Any]) -> Any:
    if key is None and isinstance(item, dict) and any(isinstance(s, dict) for s in steps):
        return item.get("name")  # call objects matched by call entries: their names
    return label_of(item, key)


def _only(steps: list[Any], items: list[Any], labels: list[Any], fits: Fits) -> Outcome:
    bad = [i for i in range(len(items)) if not any(fits(s, i) for s in range(len(steps)))]
    if bad:
        index = bad[0]
        return Outcome(
            False,
            f"item {index} is {show(labels[index])}, which is not one of the allowed"
            f" steps ({_shown_steps(steps)})",
            {"index": index, "items": labels},
            {"found": labels[index], "expected": steps},
        )
    every = "the one item is allowed" if len(items) == 1 else f"all {len(items)} items are allowed"
    return Outcome(True, every, {"items": labels})


def _contains(steps: list[Any], items: list[Any], labels: list[Any], fits: Fits) -> Outcome:
    used = _matching(len(steps), len(items), fits, _kinds(labels, steps))
    missing = [s for s, i in zip(steps, used, strict=True) if i is None]
    if missing:
        return Outcome(
            False,
            f"missing {_shown_steps(missing)} (each step needs an item of its own); found:"
            f" {show(labels, 200)}",
            {"missing": missing, "items": labels},
            {"missing": missing, "found": labels, "expected": steps},
        )
    every = "the one step occurs" if len(steps) == 1 else f"all {len(steps)} steps occur"
    return Outcome(True, every, {"items": labels})


def _agree(agree: int) -> str:
    """`they differ at item 0`, `the first item agrees; they differ at item 1`, ..."""
    if agree == 0:
        return "they differ at item 0"
    first = "the first item agrees" if agree == 1 else f"the first {agree} items agree"
    return f"{first}; they differ at item {agree}"


def _exact(steps: list[Any], items: list[Any], labels: list[Any], fits: Fits) -> Outcome:
    pairs = min(len(steps), len(items))
    agree = next((i for i in range(pairs) if not fits(i, i)), pairs)
    if len(items) == len(steps) and agree == pairs:
        return Outcome(True, f"exactly {_shown_steps(steps)}", {"items": labels})
    return Outcome(
        False,
        f"expected exactly {_shown_steps(steps)}; found {show(labels, 200)} ({_agree(agree)})",
        {"index": agree, "items": labels},
        {"found": labels, "expected": steps, "count": agree},
    )


def _out_of_order(steps: list[Any], done: int) -> str:
    """Where the order breaks: `"b" does not occur` (the first step), or `the first 2
    steps ("a", "b") occur in order, but "c" does not occur after them`."""
    if done == 0:
        return f"{_shown(steps[0])} does not occur"
    first = "the first step" if done == 1 else f"the first {done} steps"
    verb, them = ("occurs", "it") if done == 1 else ("occur", "them")
    return (
        f"{first} ({_shown_steps(steps[:done])}) {verb} in order, but {_shown(steps[done])}"
        f" does not occur after {them}"
    )


def _ordered(steps: list[Any], items: list[Any], labels: list[Any], fits: Fits) -> Outcome:
    done = len(_in_order(len(steps), len(items), fits))
    if done < len(steps):
        return Outcome(
            False,
            f"{_out_of_order(steps, done)}; found {show(labels, 200)}",
            {"satisfied": done, "items": labels},
            {"found": labels, "expected": steps, "missing": steps[done:], "count": done},
        )
    return Outcome(True, f"{_shown_steps(steps)} occur in order", {"items": labels})


_SEQUENCE_MODES: dict[str, Callable[[list[Any], list[Any], list[Any], Fits], Outcome]] = {
    "only": _only,
    "contains": _contains,
    "exact": _exact,
    "in-order": _ordered,
}


def _formed_by(mode: str, written: list[Any], labels: list[Any], fits: Fits) -> list[int] | None:
    """The items that make the steps occur in `mode` (the forbidden order), or None."""
    steps, items = len(written), len(labels)
    if mode == "in-order":
        used = _in_order(steps, items, fits)
        return used if len(used) == steps else None
    if mode == "contains":
        matched = _matching(steps, items, fits, _kinds(labels, written))
        return sorted(i for i in matched if i is not None) if None not in matched else None
    if mode == "exact":
        return (
            list(range(items)) if items == steps and all(fits(i, i) for i in range(items)) else None
        )
    every = all(any(fits(s, i) for s in range(steps)) for i in range(items))
    return list(range(items)) if every else None


def _forbidden(
    steps: list[Any], items: list[Any], labels: list[Any], args: dict[str, Any], ctx: TraceContext
) -> Outcome:
    """`present: false`: passes when the steps do not occur in the mode; a call that cannot
    be judged counts as fitting, so the check fails when the order may be there."""
    mode, what = args["mode"], f"{_shown_steps(steps)} ({args['mode']})"
    if not steps:
        return Outcome(True, "no steps: nothing is forbidden", {"items": labels})
    lenient = _fitter(steps, items, args["key"], args["args_key"], ctx, lenient=True)
    formed = _formed_by(mode, steps, labels, lenient)
    if formed is None:
        return Outcome(True, f"the forbidden order {what} does not occur", {"items": labels})
    strict = _fitter(steps, items, args["key"], args["args_key"], ctx, lenient=False)
    calls = ", ".join(
        f"{'call' if isinstance(items[i], dict) else 'item'} {i} ({labels[i]})" for i in formed
    )
    sure = _formed_by(mode, steps, labels, strict) is not None
    head = "occurs" if sure else "may occur (a call could not be judged)"
    return Outcome(
        False,
        f"the forbidden order {what} {head}: {calls or 'no items'}",
        {"calls": formed, "items": labels},
        {"found": [labels[i] for i in formed], "expected": steps, "count": len(formed)},
    )


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
