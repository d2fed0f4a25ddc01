"""Numbers and budgets: matched numbers, or their aggregate, compared with bounds
(`compare`); durations with units read in milliseconds.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ...problems import kind_of
from ..context import TraceContext
from ..params import UNIT_MS, duration_ms
from .declare import Outcome, Param, predicate, show

OPS: dict[str, Callable[[float, float], bool]] = {
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
}
OP_WORDS = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "=", "ne": "!="}


def _nearest_rank(sorted_values: list[float], share: float) -> float:
    rank = max(1, math.ceil(share * len(sorted_values)))
    return sorted_values[rank - 1]


_AGGREGATES: dict[str, Callable[[list[float]], float]] = {
    "sum": lambda v: math.fsum(v),
    "min": min,
    "max": max,
    "mean": lambda v: math.fsum(v) / len(v),
    "p50": lambda v: _nearest_rank(sorted(v), 0.50),
    "p95": lambda v: _nearest_rank(sorted(v), 0.95),
    "p99": lambda v: _nearest_rank(sorted(v), 0.99),
}


def _bound(value: Any) -> float | None:
    """A bound as a number; a duration with a unit (`30s`) in milliseconds."""
    if isinstance(value, str):
        return duration_ms(value)
    return None if value is None else float(value)


def _numbers(values: list[Any], unit: str | None) -> tuple[list[float], list[Any]]:
    numbers, bad = [], []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not is_finite(value):
            bad.append(value)
        else:
            numbers.append(float(value) * (UNIT_MS[unit] if unit else 1))
    return numbers, bad


def is_finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


@predicate(
    "compare",
    zero="count is 0; any other aggregate fails (missing: pass to opt out)",
    gives=("found", "expected"),
    op=Param(
        "text",
        required=True,
        doc="lt, le, gt, ge, eq, ne or between",
        choices=("lt", "le", "gt", "ge", "eq", "ne", "between"),
    ),
    value=Param("optional-amount", doc="the bound (a number, or a duration such as 30s)"),
    min=Param("optional-amount", doc="the lower bound, with between (inclusive)"),
    max=Param("optional-amount", doc="the upper bound, with between (inclusive)"),
    aggregate=Param(
        "text",
        default="each",
        doc="each, count, sum, min, max, mean, p50, p95 or p99",
        choices=("each", "count", "sum", "min", "max", "mean", "p50", "p95", "p99"),
    ),
    unit=Param(
        "optional-text", doc="ms, s or m: the unit of the values, for bounds with units", choices=()
    ),
    missing=Param(
        "text", default="fail", doc="fail or pass when there is no number", choices=("fail", "pass")
    ),
)
def compare(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the matched numbers (or their aggregate) satisfy `op` against the bound.

    `each` (the default) compares every matched value; `count` the number of matches (0 for
    none); `sum`, `min`, `max`, `mean` and the nearest-rank percentiles `p50`, `p95`, `p99`
    one figure. Bounds are inclusive for `le`, `ge` and `between`. A bound may carry a unit
    (`30s`, `500ms`, `2m`): it is read in milliseconds, as the `$.view` duration fields are;
    for values in another unit, say so with `unit: s` (or `m`, `h`). A matched value that is not
    a number fails with its type, and so do zero matches (except for `count`): never a silent
    pass; `missing: pass` opts out for zero matches.
    """
    unit = args["unit"]
    if unit is not None and unit not in UNIT_MS:
        return Outcome(False, f"parameter 'unit' must be ms, s, m or h, found {show(unit)}")
    op, aggregate = args["op"], args["aggregate"]
    bounds = _bounds(op, args, unit)
    if isinstance(bounds, str):
        return Outcome(False, bounds)
    present = [v for v in values if v is not None]
    if aggregate == "count":
        figures: list[float] = [float(len(values))]
    else:
        numbers, bad = _numbers(present, unit)
        if bad:
            return Outcome(False, f"found {kind_of(bad[0])} {show(bad[0])}; expected a number")
        if not numbers:
            passed = args["missing"] == "pass"
            return Outcome(
                passed,
                "no number found" + ("" if passed else "; expected one to compare"),
                facts={},
            )
        figures = numbers if aggregate == "each" else [_AGGREGATES[aggregate](numbers)]
    return _judge(figures, op, bounds, aggregate)


def _bounds(op: str, args: dict[str, Any], unit: str | None) -> tuple[float, float] | str:
    if op == "between":
        low, high = (_bound(args[k]) for k in ("min", "max"))
        if low is None or high is None:
            return "op between needs min and max (numbers, or durations such as 30s)"
        return low, high
    bound = _bound(args["value"])
    if bound is None:
        return f"op {op} needs value (a number, or a duration such as 30s)"
    return bound, bound


def _judge(figures: list[float], op: str, bounds: tuple[float, float], aggregate: str) -> Outcome:
    low, high = bounds
    what = "value" if aggregate == "each" else aggregate
    for index, figure in enumerate(figures):
        ok = low <= figure <= high if op == "between" else OPS[op](figure, low)
        if not ok:
            expected = (
                f"between {_num(low)} and {_num(high)}"
                if op == "between"
                else f"{OP_WORDS[op]} {_num(low)}"
            )
            where = f" (match {index})" if aggregate == "each" and len(figures) > 1 else ""
            return Outcome(
                False,
                f"the {what} is {_num(figure)}{where}; expected {expected}",
                {"value": figure},
                {"found": _num(figure), "expected": expected},
            )
    shown = _num(figures[0]) if len(figures) == 1 else f"all {len(figures)} values"
    return Outcome(True, f"the {what} {shown} is within bounds", {"value": figures[0]})


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
