"""Values: whether the query found a value, which one, and how many.

`exists`, `absent`, `in`, `not-in`, `equals` and `count`, and the typed JSON equality every
family compares with (`same`, `deep_same`): `1`, `1.0`, `true` and `"1"` are told apart by
type, not just value.
"""

from __future__ import annotations

import math
import re
from fnmatch import fnmatchcase
from typing import Any

from ...problems import counted, kind_of
from ..context import TraceContext
from ..text import normalize_plain
from .declare import Outcome, Param, predicate, show

NORMALIZE = ("text", "number")  # how `equals` may normalize before comparing


def non_null(values: list[Any]) -> list[Any]:
    return [v for v in values if v is not None]


def same(a: Any, b: Any) -> bool:
    """JSON equality: `1`, `1.0`, `true` and `"1"` are told apart by type, not just value."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def is_member(value: Any, options: list[Any]) -> bool:
    if type(value) is str:  # text equals only text: plain membership is exact
        return value in options
    return any(same(value, o) for o in options)


def field_of(item: Any, key: str) -> Any:
    """The field `key` of an item: the key itself when the item has it (`gen_ai.tool.name`),
    else a dotted path followed through objects (`function.name`; a step of digits indexes
    a list); None when it leads nowhere."""
    if not isinstance(item, dict):
        return None
    if key in item:
        return item[key]
    value: Any = item
    for step in key.split("."):
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        else:
            return None
    return value


def is_glob(step: Any) -> bool:
    return isinstance(step, str) and any(c in step for c in "*?[")


def name_matches(step: Any, value: Any) -> bool:
    """A step names a value: equal as typed JSON values, or a case-sensitive glob for text."""
    if is_glob(step):
        return isinstance(value, str) and fnmatchcase(value, step)
    return same(step, value)


def typed(value: Any) -> Any:
    """A found value for a message template: text as itself, any other value with its type,
    so `3 (a whole number)` is not read as the text "3"."""
    return value if isinstance(value, str) else f"{show(value)} ({kind_of(value)})"


def deep_same(a: Any, b: Any) -> bool:
    """Typed JSON equality (`same`) all the way down lists and objects."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(deep_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(deep_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return False
    return same(a, b)


@predicate("exists", zero="fail", pure=True)
def exists(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the query matches at least one value that is not null.

    Zero matches, or only nulls, fail. `0`, `""`, `false` and `[]` are values: they pass.
    """
    present = non_null(values)
    if present:
        return Outcome(True, f"found {show(present[0])}")
    if values:
        return Outcome(False, "the value is null, but a value is required", facts={})
    return Outcome(False, "nothing found, but a value is required", facts={})


@predicate("absent", zero="pass", gives=("found",), pure=True)
def absent(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the query matches nothing, or only nulls.

    Any other value fails, falsy ones included: `0`, `""`, `false` and `[]` are present.
    """
    present = non_null(values)
    if len(present) > 1:
        return Outcome(
            False,
            f"found {len(present)} values (the first: {show(present[0])}), but none is allowed",
            facts={"found": present[0]},
        )
    if present:
        return Outcome(
            False, f"found {show(present[0])}, but no value is allowed", facts={"found": present[0]}
        )
    return Outcome(True, "nothing found")


@predicate(
    "in",
    zero="fail",
    gives=("found", "expected"),
    pure=True,
    values=Param("scalar-list", required=True, doc="the allowed values"),
)
def in_(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the query matches at least one value and every match is one of `values`.

    Zero matches (or only nulls) fail: there is nothing to accept. Comparison is exact and by
    type: the number `1` is not the text `"1"`, and `true` is not `1`.
    """
    allowed = args["values"]
    present = non_null(values)
    if not present:
        return Outcome(
            False,
            f"nothing found, but one of {show(allowed, 200)} is required",
            facts={"expected": allowed},
        )
    bad = [v for v in present if not is_member(v, allowed)]
    if bad:
        kind = "" if isinstance(bad[0], str) else f" ({kind_of(bad[0])})"
        return Outcome(
            False,
            f"the value is {show(bad[0])}{kind}, which is not one of the allowed values"
            f" {show(allowed, 200)}",
            facts={"found": typed(bad[0]), "expected": allowed},
        )
    return Outcome(True, f"found {show(present[0])}")


@predicate(
    "not-in",
    zero="pass",
    gives=("found", "expected"),
    pure=True,
    values=Param("scalar-list", required=True, doc="the forbidden values"),
)
def not_in(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when no matched value is one of `values`.

    Zero matches pass (nothing forbidden is there); use `exists` to require a value.
    Comparison is exact and by type, as for `in`.
    """
    forbidden = args["values"]
    bad = [v for v in non_null(values) if is_member(v, forbidden)]
    if bad:
        return Outcome(
            False,
            f"the value is {show(bad[0])}, which is forbidden (forbidden: {show(forbidden, 200)})",
            facts={"found": bad[0], "expected": forbidden},
        )
    return Outcome(True, "no forbidden value")


@predicate(
    "equals",
    zero="fail",
    gives=("found", "expected"),
    value=Param("scalar", required=True, doc="the expected value"),
    normalize=Param(
        "optional-text",
        doc='text (compare text normalized as keywords are) or number (1541 = "1541" = 1541.0)',
        choices=NORMALIZE,
    ),
)
def equals(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the query matches at least one value and every match equals `value`.

    Zero matches fail. Comparison is exact and by type, as for `in`, unless `normalize` says
    otherwise: `normalize: text` compares text as keywords are matched (Unicode NFKC, case
    folded, whitespace collapsed, trimmed; a value that is not text is still compared by
    type); `normalize: number` reads numbers and text that is a decimal number (`1541`,
    `"1541"`, `1541.0`, `" 6.72e-05 "` are numbers; `"1,541"` and `true` are not) and compares
    them as numbers, and a value that is not a number fails. Bound to the trace
    (`value: {trace: $.true_answer}`), `value` is the path's single match.
    """
    expected, normalize = args["value"], args["normalize"]
    if not values:
        return Outcome(
            False,
            f"nothing found, but {show(expected)} is required",
            facts={"expected": expected},
        )
    if normalize == "number":
        return _equal_numbers(values, expected)
    if normalize == "text":
        key = normalize_plain(expected) if isinstance(expected, str) else None
        bad = [
            v for v in values if not (same(v, expected) or (key is not None and _text_is(v, key)))
        ]
        how = " (compared as normalized text)"
    else:
        bad, how = [v for v in values if not same(v, expected)], ""
    if bad:
        return Outcome(
            False,
            f"the value is {show(bad[0])}, but {show(expected)} is required{how}",
            facts={"found": typed(bad[0]), "expected": expected},
        )
    return Outcome(True, f"equals {show(expected)}{how}")


_DECIMAL = re.compile(r"\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*\Z")


def _text_is(value: Any, key: str) -> bool:
    return isinstance(value, str) and normalize_plain(value) == key


def as_number(value: Any) -> float | None:
    """A number, or text that is a decimal number, as a float; None for anything else."""
    if isinstance(value, bool):
        return None
    if not isinstance(value, (int, float)) and not (
        isinstance(value, str) and _DECIMAL.match(value)
    ):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _equal_numbers(values: list[Any], expected: Any) -> Outcome:
    target = as_number(expected)
    if target is None:
        return Outcome(
            False,
            f"parameter 'value' is {show(expected)} ({kind_of(expected)}), which is not a number:"
            " normalize: number compares numbers",
        )
    for value in values:
        number = as_number(value)
        if number is None:
            return Outcome(
                False,
                f"the value is {show(value)}, which is not a number, but {show(expected)}"
                " is required (normalize: number)",
                facts={"found": typed(value), "expected": expected},
            )
        if number != target:
            return Outcome(
                False,
                f"the value is {show(value)}, but {show(expected)} is required"
                " (compared as numbers)",
                facts={"found": typed(value), "expected": expected},
            )
    return Outcome(True, f"equals {show(expected)} (compared as numbers)")


@predicate(
    "count",
    zero="counts as 0",
    gives=("count", "expected"),
    min=Param("count", default=0, doc="fewest matches allowed"),
    max=Param("optional-count", doc="most matches allowed; no limit when unset"),
)
def count(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the number of matches is between `min` and `max` (inclusive).

    Every match counts, nulls included: `$.toolInvocations[*]` counts the tool calls. A query
    on the list itself (`$.toolInvocations`) matches once; add `[*]` to count its items.
    """
    n = len(values)
    low, high = args["min"], args["max"]
    if n < low or (high is not None and n > high):
        bound, wanted = _count_bound(low, high)
        return Outcome(
            False,
            f"found {counted(n, 'match')}, but {bound} {wanted}",
            {"count": n},
            {"count": n, "expected": bound},
        )
    return Outcome(True, counted(n, "match"), {"count": n})


def _count_bound(low: int, high: int | None) -> tuple[str, str]:
    """The matches `count` allows, and the verb that says so: `none`/`are allowed`,
    `at most 2`/`are allowed`, `exactly 3`/`are required`, `at least 1`/`is required`."""
    if high is None:
        return f"at least {low}", "is required" if low == 1 else "are required"
    if high == 0:
        return "none", "are allowed"
    if low == 0:
        return f"at most {high}", "is allowed" if high == 1 else "are allowed"
    if low == high:
        return f"exactly {low}", "is required" if low == 1 else "are required"
    return f"between {low} and {high}", "are required"
