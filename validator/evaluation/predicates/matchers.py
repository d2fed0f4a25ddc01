"""The argument matchers of `call-matches`: how one call's arguments are judged against
`args` (a literal, or a mapping of operators) and `mode`.

A call is judged MATCH, MISS or UNSURE: unsure when it cannot be told (the arguments are
not JSON, a `regex` meets a number, the item is not a call object). An unsure call never
helps a check pass: the quantifier's verdict must be the same however the unsure calls
would have gone, or the check fails saying which call could not be judged.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from fnmatch import fnmatchcase
from typing import Any

from ...problems import kind_of
from ..context import TraceContext
from ..params import MATCHER_OPERATORS, field_steps, schema_validator, whole_arguments
from ..saferegex import compile_safe
from .declare import show
from .numbers import OP_WORDS, OPS, is_finite
from .values import deep_same, field_of, name_matches


def parse_arguments(value: Any) -> tuple[Any, str | None]:
    """Arguments as an object: JSON text (OpenAI writes arguments as a string) is parsed;
    text that does not parse stays text, with the reason."""
    if not isinstance(value, str):
        return value, None
    try:
        return json.loads(value), None
    except ValueError as exc:
        return value, f"the arguments are not JSON ({exc})"


MATCH, MISS, UNSURE = "match", "miss", "unsure"
_MISSING = object()  # an argument path that leads nowhere
Judgement = tuple[str, str]  # (MATCH | MISS | UNSURE, why, in words)


def _at_path(arguments: Any, steps: list[str]) -> Any:
    """The argument at a dotted path (a step of digits indexes a list), or _MISSING."""
    value = arguments
    for step in steps:
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        else:
            return _MISSING
    return value


def _op_in(value: Any, operand: Any, ctx: TraceContext) -> Judgement:
    if any(deep_same(value, option) for option in operand):
        return MATCH, f"is {show(value)}"
    return MISS, f"is {show(value)}, not one of {show(operand, 100)}"


def _op_bound(op: str) -> Callable[[Any, Any, TraceContext], Judgement]:
    def judge(value: Any, operand: Any, ctx: TraceContext) -> Judgement:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not is_finite(value):
            return UNSURE, f"is {kind_of(value)} {show(value)}, not a number to compare"
        if OPS[op](value, operand):
            return MATCH, f"is {show(value)}"
        return MISS, f"is {show(value)}; expected {OP_WORDS[op]} {show(operand)}"

    return judge


def _op_regex(value: Any, operand: Any, ctx: TraceContext) -> Judgement:
    if not isinstance(value, str):
        return UNSURE, f"is {kind_of(value)} {show(value)}, not text for regex {show(operand)}"
    if compile_safe(operand).fullmatch(value):
        return MATCH, f"{show(value)} matches {show(operand)}"
    return MISS, f"{show(value)} does not fully match regex {show(operand)}"


def _op_contains(value: Any, operand: Any, ctx: TraceContext) -> Judgement:
    if not isinstance(value, str):
        return UNSURE, f"is {kind_of(value)} {show(value)}, not text to search for {show(operand)}"
    wanted = ctx.text(operand, False)
    if wanted and wanted in ctx.text(value, False):
        return MATCH, f"{show(value)} contains {show(operand)}"
    return MISS, f"{show(value)} does not contain {show(operand)}"


def _op_schema(value: Any, operand: Any, ctx: TraceContext) -> Judgement:
    from referencing.exceptions import Unresolvable

    try:
        error = next(iter(schema_validator(operand).iter_errors(value)), None)
    except Unresolvable as exc:  # lint refuses such a schema; a case-bound one may slip by
        return UNSURE, f"cannot be checked against the schema ({exc})"
    except RecursionError:  # {$ref: "#"}: a schema that refers to itself without end
        return UNSURE, "cannot be checked against the schema: its $ref refers to itself endlessly"
    if error is None:
        return MATCH, f"{show(value)} fits the schema"
    return MISS, f"{show(value)} does not fit the schema: {error.message}"


def _op_equals(value: Any, operand: Any, ctx: TraceContext) -> Judgement:
    if deep_same(value, operand):
        return MATCH, f"is {show(value)}"
    return MISS, f"is {show(value)}, not {show(operand, 100)}"


# Each operator of `params.MATCHER_OPERATORS`, judged on a present argument value (`absent`
# and `optional` are judged before: they are about whether there is a value).
_OPERATORS: dict[str, Callable[[Any, Any, TraceContext], Judgement]] = {
    "in": _op_in,
    **{op: _op_bound(op) for op in ("gt", "ge", "lt", "le")},
    "regex": _op_regex,
    "contains": _op_contains,
    "json-schema": _op_schema,
    "equals": _op_equals,
}
assert set(_OPERATORS) | {"absent", "optional"} == set(MATCHER_OPERATORS), "one entry each"
# Operators that read a null as a value (JSON Schema `type: null`, `in: [null]`,
# `equals: null`); the others find no value in a null, as everywhere else.
_NULL_IS_A_VALUE = frozenset({"in", "json-schema", "equals"})
# `partial` is the first name of `superset`.
_MODE_NAMES = {"partial": "superset"}


def _judge_field(
    arguments: Any, field: str, matcher: Any, ctx: TraceContext, subset: bool
) -> Judgement:
    value = _at_path(arguments, field_steps(field))
    where = f"argument '{field}'"
    gone = value is _MISSING or value is None
    if subset and gone and not (isinstance(matcher, dict) and "absent" in matcher):
        return MATCH, f"{where} is absent (mode subset: a listed argument may be missing)"
    return _judge_value(where, value, matcher, ctx)


def _judge_value(where: str, value: Any, matcher: Any, ctx: TraceContext) -> Judgement:
    if isinstance(matcher, dict) and "absent" in matcher:
        return _judge_absent(where, value, bool(matcher["absent"]))
    if isinstance(matcher, dict) and "optional" in matcher:
        if value is _MISSING or value is None:
            return MATCH, f"{where} is absent (optional)"
        return _judge_value(where, value, matcher["optional"], ctx)
    if value is _MISSING:
        return MISS, f"{where} is missing"
    if not isinstance(matcher, dict):
        if deep_same(value, matcher):
            return MATCH, f"{where} is {show(value)}"
        return MISS, f"{where} is {show(value)}, not {show(matcher)}"
    return _judge_operators(where, value, matcher, ctx)


def _judge_absent(where: str, value: Any, absent: bool) -> Judgement:
    """`absent: true`: missing or null (null is no value); `absent: false`: anything else."""
    gone = value is _MISSING or value is None
    if gone is absent:
        return MATCH, f"{where} is {'absent' if gone else 'present'}"
    shown = "absent" if gone else f"present ({show(value)})"
    return MISS, f"{where} is {shown}; expected it {'absent' if absent else 'present'}"


def _judge_operators(
    where: str, value: Any, matcher: dict[str, Any], ctx: TraceContext
) -> Judgement:
    """All operators must hold: any miss decides; else any unsure one leaves it unsure."""
    unsure = None
    held: list[str] = []
    for op, operand in matcher.items():
        if value is None and op not in _NULL_IS_A_VALUE:
            return MISS, f"{where} is null"
        status, why = _OPERATORS[op](value, operand, ctx)
        if status == MISS:
            return MISS, f"{where} {why}"
        if status == UNSURE and unsure is None:
            unsure = (UNSURE, f"{where} {why}")
        held.append(why)
    return unsure or (MATCH, f"{where} {' and '.join(dict.fromkeys(held))}")


def _extra_arguments(arguments: dict[str, Any], fields: list[str]) -> list[str]:
    """Arguments no matcher lists (exact and subset modes), as paths: at the top level, and
    inside each object a listed path goes through. An argument whose value is null counts
    as absent."""
    listed: dict[tuple[str, ...], set[str]] = {(): set()}
    for field in fields:
        steps = field_steps(field)
        for depth in range(len(steps)):
            listed.setdefault(tuple(steps[:depth]), set()).add(steps[depth])
    extra = []
    for prefix, names in listed.items():
        node = _at_path(arguments, list(prefix))
        if isinstance(node, dict):
            extra += [
                ".".join((*prefix, k)) for k, v in node.items() if k not in names and v is not None
            ]
    return extra


def ignored(path: str, patterns: list[str]) -> bool:
    """Whether an `ignore` entry names the argument at `path`: the whole dotted path, or
    (for an entry without a dot) its last step, so `*_id` is ignored at any depth."""
    last = path.rsplit(".", 1)[-1]
    return any(
        fnmatchcase(path, pattern) or ("." not in pattern and fnmatchcase(last, pattern))
        for pattern in patterns
    )


def _without_ignored(value: Any, patterns: list[str], prefix: str = "") -> Any:
    """`value` with every object key at a path `patterns` ignores left out, at any depth."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if not ignored(path, patterns):
                out[key] = _without_ignored(item, patterns, path)
        return out
    if isinstance(value, list):
        return [_without_ignored(item, patterns, prefix) for item in value]
    return value


def _with_defaults(arguments: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """The arguments with each default put where the argument is missing or null (a null is
    read as missing); a path through a value that is not an object is left as it is."""
    filled = copy.deepcopy(arguments)
    for field, default in defaults.items():
        steps = field_steps(field)
        node: Any = filled
        for step in steps[:-1]:
            if isinstance(node, dict) and node.get(step) is None:
                node[step] = {}
            node = node.get(step) if isinstance(node, dict) else None
        if isinstance(node, dict) and node.get(steps[-1]) is None:
            node[steps[-1]] = copy.deepcopy(default)
    return filled


def judge_arguments(call: dict[str, Any], args: dict[str, Any], ctx: TraceContext) -> Judgement:
    """One call's arguments against an entry: `args`, `mode`, and (when given) `defaults`
    and `ignore`; `args_key` names the field holding the arguments."""
    matchers = args["args"]
    mode = _MODE_NAMES.get(args["mode"], args["mode"])
    defaults, patterns = args.get("defaults") or {}, args.get("ignore") or []
    whole, expected = whole_arguments(matchers)
    if not whole and not matchers and mode == "superset":
        return MATCH, "any arguments"
    arguments = _arguments_of(call, args["args_key"], lists=whole)
    if isinstance(arguments, tuple):
        return arguments
    if defaults and isinstance(arguments, dict):
        arguments = _with_defaults(arguments, defaults)
    if whole:
        return _judge_whole(arguments, expected, patterns)
    if mode != "superset" and defaults:  # a default counts as listed, expecting itself
        matchers = {**{f: {"equals": v} for f, v in defaults.items()}, **(matchers or {})}
    return _judge_listed(arguments, matchers or {}, mode, patterns, ctx)


def _judge_listed(
    arguments: dict[str, Any],
    matchers: dict[str, Any],
    mode: str,
    patterns: list[str],
    ctx: TraceContext,
) -> Judgement:
    """Each listed argument judged (ignored ones left out), then, in exact and subset modes,
    the arguments no matcher lists: any miss decides, else any unsure one."""
    subset = mode == "subset"
    judged = [
        _judge_field(arguments, field, matcher, ctx, subset)
        for field, matcher in matchers.items()
        if not (patterns and ignored(field, patterns))
    ]
    if mode in ("exact", "subset"):
        extra = [e for e in _extra_arguments(arguments, list(matchers)) if not ignored(e, patterns)]
        if extra:
            judged.append((MISS, f"argument {show(extra[0])} is not listed (mode {mode})"))
    for wanted in (MISS, UNSURE):
        first = next((j for j in judged if j[0] == wanted), None)
        if first is not None:
            return first
    return MATCH, "; ".join(why for _, why in judged) or "no arguments"


def _judge_whole(arguments: Any, expected: Any, patterns: list[str]) -> Judgement:
    """The arguments compared whole and typed with `expected` (ignored keys left out)."""
    if patterns:
        arguments, expected = (_without_ignored(v, patterns) for v in (arguments, expected))
    if deep_same(arguments, expected):
        return MATCH, f"the arguments are {show(arguments, 100)}"
    return MISS, f"the arguments are {show(arguments, 100)}, not {show(expected, 100)}"


def _arguments_of(call: dict[str, Any], key: str, lists: bool = False) -> Any:
    """A call's arguments as an object (or, with `lists`, a list too; JSON text parsed;
    none recorded: no arguments), or the unsure judgement saying why they cannot be read."""
    arguments, problem = parse_arguments(field_of(call, key))
    if problem is not None:
        return UNSURE, problem
    if arguments is None:
        return {}
    if not isinstance(arguments, dict) and not (lists and isinstance(arguments, list)):
        return UNSURE, f"its arguments are {kind_of(arguments)} {show(arguments)}, not an object"
    return arguments


def judge_entry(
    item: Any, entry: dict[str, Any], name_key: str, args_key: str, ctx: TraceContext
) -> Judgement:
    """Whether `item` is the call a call entry ({name, args, mode, defaults, ignore})
    describes: a sequence step written as a call."""
    if not isinstance(item, dict):
        return UNSURE, f"it is {kind_of(item)} {show(item)}, not a call object"
    wanted = entry.get("name")
    if wanted is not None:
        name = field_of(item, name_key)
        if not isinstance(name, str):
            return UNSURE, f"it has no name (its '{name_key}' is {show(name)})"
        if not name_matches(wanted, name):
            return MISS, f"it is named {show(name)}"
    one = {
        "args": entry.get("args"),
        "mode": entry.get("mode", "superset"),
        "defaults": entry.get("defaults"),
        "ignore": entry.get("ignore"),
        "args_key": args_key,
    }
    return judge_arguments(item, one, ctx)
