"""Numbers and budgets: matched numbers, or their aggregate, compared with bounds
(`compare`); durations with units and ISO-8601 timestamps read in milliseconds
(`evaluation.amounts`), and every figure a message shows in the unit the spec names.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ...problems import kind_of
from ...shares import share_of
from ..amounts import UNIT_MS, UNITS, duration_ms, duration_unit, timestamp_ms
from ..context import TraceContext
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


def _nearest_rank(sorted_values: list[float], percent: int) -> float:
    """The nearest-rank percentile, as the report's (`shares.share_of`: exact, rounded up)."""
    rank = max(1, share_of(Fraction(percent, 100), len(sorted_values)))
    return sorted_values[rank - 1]


_AGGREGATES: dict[str, Callable[[list[float]], float]] = {
    "sum": lambda v: math.fsum(v),
    "min": min,
    "max": max,
    "mean": lambda v: math.fsum(v) / len(v),
    "p50": lambda v: _nearest_rank(sorted(v), 50),
    "p95": lambda v: _nearest_rank(sorted(v), 95),
    "p99": lambda v: _nearest_rank(sorted(v), 99),
    "span": lambda v: max(v) - min(v),
}
AGGREGATES = ("each", "count", *_AGGREGATES)
# The aggregates that take timestamps: `span` gives milliseconds, the others a timestamp.
_OF_TIMESTAMPS = ("each", "min", "max", "span")
_ZONELESS = "note: timestamps without a zone are read as UTC"


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
    value=Param(
        "optional-amount", doc="the bound (a number, a duration such as 30s, or a timestamp)"
    ),
    min=Param("optional-amount", doc="the lower bound, with between (inclusive)"),
    max=Param("optional-amount", doc="the upper bound, with between (inclusive)"),
    aggregate=Param(
        "text",
        default="each",
        doc="each, count, sum, min, max, mean, p50, p95, p99 or span (largest minus smallest)",
        choices=AGGREGATES,
    ),
    unit=Param(
        "optional-text",
        doc="ms, s or min (also m, h): the unit of the trace's numbers, and of every message",
        choices=UNITS,
    ),
    missing=Param(
        "text", default="fail", doc="fail or pass when there is no number", choices=("fail", "pass")
    ),
)
def compare(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the matched numbers (or their aggregate) satisfy `op` against the bound.

    `each` (the default) compares every matched value; `count` the number of matches (0 for
    none); `sum`, `min`, `max`, `mean`, the nearest-rank percentiles `p50`, `p95`, `p99` and
    `span` (the largest minus the smallest) one figure. Bounds are inclusive for `le`, `ge`
    and `between`. A bound may carry a unit (`30s`, `500ms`, `5min`); `unit: s` (or `ms`,
    `min`) says the trace's numbers are in that unit, and then a bound without a unit is in
    it too; otherwise numbers compared with a bound that has a unit are read in milliseconds,
    as the `$.view` duration fields are. Messages show every figure in the spec's unit:
    `unit:` when given, else the unit the bound is written in. ISO-8601 timestamps
    (`2025-04-30T16:32:54.707474`, with or without a zone; without one, read as UTC and noted)
    are accepted by `each`, `min`, `max` (compared with a timestamp bound) and `span` (in
    milliseconds: `value: 5min`). A matched value that is neither fails with its type, and
    so do zero matches (except for `count`): never a silent pass; `missing: pass` opts out
    for zero matches.
    """
    op, aggregate, unit = args["op"], args["aggregate"], args["unit"]
    raw_bounds = (args["min"], args["max"]) if op == "between" else (args["value"],) * 2
    if any(b is None for b in raw_bounds):
        need = "min and max" if op == "between" else "value"
        return Outcome(
            False, f"op {op} needs {need} (numbers, durations such as 30s, or timestamps)"
        )
    if aggregate == "count":
        if any(not isinstance(b, (int, float)) for b in raw_bounds):
            return Outcome(False, "aggregate count compares with a number of matches, such as 3")
        return _judge(_Figures([float(len(values))], "count"), op, raw_bounds, _Scale(None))
    found = _read(values, aggregate, args["missing"] == "pass")
    if isinstance(found, Outcome):
        return found
    scale = _scale_of(unit, found, raw_bounds)
    if not found.timed:
        found.figures = [f * scale.of_values for f in found.figures]
    return _judge(found, op, raw_bounds, scale)


def _scale_of(unit: str | None, found: _Figures, raw_bounds: tuple[Any, ...]) -> _Scale:
    """Milliseconds when anything names time (`unit:`, a bound's unit, timestamps), shown in
    `unit`, else in the bound's unit; plain numbers otherwise."""
    timed = unit is not None or found.timed or any(duration_ms(b) is not None for b in raw_bounds)
    display = unit or next(filter(None, map(duration_unit, raw_bounds)), "ms" if timed else None)
    return _Scale(display, UNIT_MS[unit or "ms"] if timed else 1.0)


class _Scale:
    """How figures are read and shown: `of_values` multiplies a trace number (or a bound
    without a unit) into the comparison's scale; `unit` is the unit messages show."""

    def __init__(self, unit: str | None, of_values: float = 1.0) -> None:
        self.unit, self.of_values = unit, of_values

    def show(self, figure: float) -> str:
        if self.unit is None:
            return _num(figure)
        return f"{_num(figure / UNIT_MS[self.unit])} {self.unit}"


class _Figures:
    """The figures to compare, what they are called (value, sum, span, ...), whether they are
    times (timestamps, or a span of them, already in milliseconds), and for timestamps the
    text each was read from."""

    def __init__(
        self, figures: list[float], what: str, timed: bool = False, stamps: list[str] | None = None
    ) -> None:
        self.figures, self.what, self.timed, self.stamps = figures, what, timed, stamps
        self.zoneless = False


def _read(values: list[Any], aggregate: str, missing_passes: bool) -> _Figures | Outcome:
    """The figures of the matched values under `aggregate`; an Outcome for no value (it
    passes with `missing: pass`), for a value that is neither a number nor a timestamp, or
    for a mix of the two."""
    sorted_out = _numbers_and_stamps(values)
    if isinstance(sorted_out, Outcome):
        return sorted_out
    numbers, stamps, zoneless = sorted_out
    what = "value" if aggregate == "each" else aggregate
    if stamps:
        return _of_stamps(stamps, aggregate, what, zoneless)
    if not numbers:
        return Outcome(
            missing_passes,
            "no number found" + ("" if missing_passes else "; expected one to compare"),
            facts={},
        )
    if aggregate == "each":
        return _Figures(numbers, what)
    return _Figures([_AGGREGATES[aggregate](numbers)], what)


def _numbers_and_stamps(
    values: list[Any],
) -> tuple[list[float], list[tuple[float, str]], bool] | Outcome:
    """The numbers and the timestamps (in ms, with their text) among the values, and whether
    a timestamp had no zone; an Outcome for any other value, or for both kinds together."""
    numbers: list[float] = []
    stamps: list[tuple[float, str]] = []
    zoneless = False
    for value in values:
        if value is None:
            continue
        stamp = timestamp_ms(value)
        if stamp is not None:
            stamps.append((stamp[0], value))
            zoneless = zoneless or not stamp[1]
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not is_finite(value):
            return Outcome(
                False, f"found {kind_of(value)} {show(value)}; expected a number or a timestamp"
            )
        else:
            numbers.append(float(value))
    if numbers and stamps:
        return Outcome(False, "found numbers and timestamps together; expected one or the other")
    return numbers, stamps, zoneless


def _of_stamps(
    stamps: list[tuple[float, str]], aggregate: str, what: str, zoneless: bool
) -> _Figures | Outcome:
    if aggregate not in _OF_TIMESTAMPS:
        return Outcome(
            False,
            f"found timestamps, which aggregate {aggregate} cannot take:"
            " use span (their duration), min, max or each",
        )
    if aggregate == "span":
        moments = [t for t, _ in stamps]
        figures = _Figures([max(moments) - min(moments)], what, True)
    elif aggregate == "each":
        figures = _Figures([t for t, _ in stamps], what, True, [s for _, s in stamps])
    else:
        chosen = (min if aggregate == "min" else max)(stamps)
        figures = _Figures([chosen[0]], what, True, [chosen[1]])
    figures.zoneless = zoneless
    return figures


def _bound_of(raw: Any, figures: _Figures, scale: _Scale) -> tuple[float, str] | str:
    """A bound on the comparison's scale and as a message shows it, or why it does not fit:
    a timestamp compares with timestamps, anything else with numbers and spans."""
    stamp = timestamp_ms(raw)
    if stamp is None and figures.stamps is not None:
        return (
            f"the bound {show(raw)} is not a timestamp, but the {figures.what} is one:"
            " write a timestamp bound, or use aggregate: span for how long they cover"
        )
    if stamp is not None and figures.stamps is None:
        return (
            f"the bound {show(raw)} is a timestamp, but the {figures.what} is a number:"
            " write a number, or a duration such as 5min"
        )
    if stamp is not None:
        figures.zoneless = figures.zoneless or not stamp[1]
        return stamp[0], str(raw)
    duration = duration_ms(raw)
    if duration is not None:
        return duration, scale.show(duration)
    number = float(raw) * scale.of_values
    return number, scale.show(number)


def _judge(figures: _Figures, op: str, raw_bounds: tuple[Any, ...], scale: _Scale) -> Outcome:
    bounds: list[tuple[float, str]] = []
    for raw in raw_bounds:
        bound = _bound_of(raw, figures, scale)
        if isinstance(bound, str):
            return Outcome(False, bound)
        bounds.append(bound)
    (low, low_shown), (high, high_shown) = bounds
    note = f" ({_ZONELESS})" if figures.zoneless else ""
    details = {"notes": [_ZONELESS.removeprefix("note: ")]} if figures.zoneless else {}
    expected = (
        f"between {low_shown} and {high_shown}"
        if op == "between"
        else f"{OP_WORDS[op]} {low_shown}"
    )
    for index, figure in enumerate(figures.figures):
        ok = low <= figure <= high if op == "between" else OPS[op](figure, low)
        if not ok:
            shown = figures.stamps[index] if figures.stamps else scale.show(figure)
            where = (
                f" (match {index})" if figures.what == "value" and len(figures.figures) > 1 else ""
            )
            return Outcome(
                False,
                f"the {figures.what} is {shown}{where}; expected {expected}{note}",
                {"value": figure, **details},
                {"found": shown, "expected": expected},
            )
    if len(figures.figures) == 1:
        shown = figures.stamps[0] if figures.stamps else scale.show(figures.figures[0])
    else:
        shown = f"all {len(figures.figures)} values"
    return Outcome(
        True,
        f"the {figures.what} {shown} is within bounds{note}",
        {"value": figures.figures[0], **details},
    )


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
