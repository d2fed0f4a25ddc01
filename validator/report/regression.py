"""Metric gates against a baseline: `--max-regression METRIC:LIMIT`.

A limit says how far a summary figure may move in its worse direction since the baseline:

    pass_rate:-0.02          the pass rate may fall by at most 0.02 (absolute)
    avg_duration_ms:+20%     the average duration may rise by at most 20 % of the baseline's
    avg_tool_calls:+1        the average number of tool calls may rise by at most 1

The sign may be left out (it is the metric's worse direction); the other sign is a mistake
(a limit on improving makes no sense), so it is refused. Both sides' figures come from the
one summary function (`metrics.summarize`), this run's and the baseline's rows alike, and are
compared exactly (as the decimals the report shows, not as binary floats). A figure missing
on either side (a metric this version does not compute, an older baseline, or no run that
had the value) fails the gate with a message saying which side lacks it: a gate that cannot
be checked never passes silently.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from ..dataclass import dataclass
from ..problems import did_you_mean

HIGHER, LOWER = "higher", "lower"


@dataclass(frozen=True)
class Metric:
    """A figure a baseline compares, and which way is better."""

    name: str
    better: str  # HIGHER or LOWER
    doc: str
    digits: int = 3  # how the change is rounded in the report


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("pass_rate", HIGHER, "cases passed / cases", 4),
        Metric("pass_hat_k", HIGHER, "cases whose every run passed / cases", 4),
        Metric("pass_at_k", HIGHER, "cases with a passing run / cases", 4),
        Metric("avg_tool_calls", LOWER, "mean tool calls per evaluated run"),
        Metric("p95_tool_calls", LOWER, "95th percentile (nearest rank) of tool calls"),
        Metric("avg_duration_ms", LOWER, "mean duration of the evaluated runs"),
        Metric("p50_duration_ms", LOWER, "median (nearest rank) duration"),
        Metric("p95_duration_ms", LOWER, "95th percentile (nearest rank) duration"),
        Metric("avg_total_tokens", LOWER, "mean tokens per run (where traces record them)"),
        Metric("avg_cost", LOWER, "mean cost per run (where traces record it)"),
    )
}

EXAMPLES = "e.g. pass_rate:-0.02, avg_duration_ms:+20% or avg_tool_calls:+1"


@dataclass(frozen=True)
class MetricLimit:
    """How much a figure may worsen against the baseline (`--max-regression`)."""

    metric: str
    amount: Fraction  # >= 0, in the metric's worse direction
    relative: bool  # amount is a share of the baseline's value

    @property
    def text(self) -> str:
        """The limit as the report shows it: signed in the worse direction."""
        sign = "-" if METRICS[self.metric].better == HIGHER else "+"
        shown = self.amount * 100 if self.relative else self.amount
        number = format(Decimal(shown.numerator) / Decimal(shown.denominator), "f")
        if "." in number:
            number = number.rstrip("0").rstrip(".")
        return f"{sign}{number}{'%' if self.relative else ''}"


def parse_limit(text: str) -> MetricLimit:
    """`METRIC:LIMIT` -> a MetricLimit. Raises ValueError with a message for the user."""
    names = ", ".join(METRICS)
    metric, colon, raw = text.partition(":")
    metric = metric.strip()
    if not colon:
        raise ValueError(f"'{text}' is not METRIC:LIMIT ({EXAMPLES}); metrics: {names}")
    if metric not in METRICS:
        raise ValueError(
            f"unknown metric '{metric}'{did_you_mean(metric, METRICS)}; metrics: {names}"
        )
    return _amount(METRICS[metric], raw.strip(), text)


def _amount(metric: Metric, raw: str, text: str) -> MetricLimit:
    relative = raw.endswith("%")
    number = raw[:-1].strip() if relative else raw
    worse = "-" if metric.better == HIGHER else "+"
    sign = number[:1] if number[:1] in "+-" and number else ""
    if sign and sign != worse:
        verb = "fall" if worse == "-" else "rise"
        raise ValueError(
            f"'{text}': {metric.name} is better {metric.better}, so its limit is how far it may"
            f" {verb}: write {metric.name}:{worse}{number[1:]}{'%' if relative else ''}"
        )
    try:
        value = Fraction(Decimal(number[len(sign) :]))
    except (InvalidOperation, ValueError):
        raise ValueError(f"'{text}': the limit '{raw}' is not a number ({EXAMPLES})") from None
    if value < 0 or number[len(sign) :][:1] in "+-":
        raise ValueError(f"'{text}': give the limit once, with one sign ({EXAMPLES})")
    return MetricLimit(metric.name, value / 100 if relative else value, relative)


def _exact(value: Any) -> Fraction | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
    except (ValueError, OverflowError):  # NaN or infinity: not a figure
        return None


def _missing(metric: str, before: Fraction | None, now: Fraction | None) -> str:
    if before is None and now is None:
        where = "neither in the baseline nor in this run"
    elif before is None:
        where = "not in the baseline"
    else:
        where = "not in this run"
    return (
        f"{metric} is {where} (no evaluated run had the figure, or the report that should"
        " have it does not compute it): the gate cannot be checked, so it fails"
    )


def check_limit(
    limit: MetricLimit, baseline: dict[str, Any], now: dict[str, Any]
) -> dict[str, Any]:
    """One entry of `comparison.gates`: both figures, the change, and whether it held."""
    metric = METRICS[limit.metric]
    before, after = _exact(baseline.get(limit.metric)), _exact(now.get(limit.metric))
    entry: dict[str, Any] = {
        "metric": limit.metric,
        "limit": limit.text,
        "baseline": baseline.get(limit.metric),
        "now": now.get(limit.metric),
    }
    if before is None or after is None:
        return {
            **entry,
            "change": None,
            "passed": False,
            "message": _missing(limit.metric, before, after),
        }
    change = after - before
    worsening = change if metric.better == LOWER else -change
    allowed = limit.amount * abs(before) if limit.relative else limit.amount
    passed = worsening <= allowed
    return {
        **entry,
        "change": float(round(change, metric.digits)),
        "passed": passed,
        "message": _message(limit, before, after, passed),
    }


def _message(limit: MetricLimit, before: Fraction, after: Fraction, passed: bool) -> str:
    """Both figures, and the change in the unit the limit was given in: a share of the
    baseline (`-14.3%`) for `+20%`, the metric's own unit (`-0.1429`) for `-0.02`, so the
    change and the limit can be compared as they stand."""
    if after == before:
        shown = f"{limit.metric} stayed at {_show(after)}"
    else:
        verb = "rose" if after > before else "fell"
        shown = f"{limit.metric} {verb} from {_show(before)} to {_show(after)}"
    change = _change_words(limit, before, after, passed)
    verdict = "within" if passed else "more than"
    return f"{shown}{change}: {verdict} the {limit.text} allowed"


_DIGITS = 4  # the figures a gate message shows


def _rounded(value: Fraction, digits: int = _DIGITS) -> Fraction:
    return Fraction(round(value, digits))


def _show(value: Fraction, digits: int = _DIGITS) -> str:
    text = f"{float(_rounded(value, digits)):.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _change_words(limit: MetricLimit, before: Fraction, after: Fraction, passed: bool) -> str:
    """` (-0.1429)` or ` (+20.0%)`: the change as the limit is written. An absolute change is
    the difference of the two figures as shown, so the three add up; when that rounds onto
    the limit itself, more digits show which side of it the change is."""
    if after == before or (limit.relative and not before):
        return ""
    limit_shown = limit.amount * 100 if limit.relative else limit.amount
    for digits in (1 if limit.relative else _DIGITS, 6, 10):
        if limit.relative:
            exact = (after - before) / abs(before) * 100
            number = _rounded(exact, digits)
        else:
            number = _rounded(after, digits) - _rounded(before, digits)
        # a failed gate never shows a change that reads as the limit (or inside it)
        if passed or abs(number) > limit_shown:
            break
    if limit.relative and digits == 1:
        text = f"{abs(float(number)):.1f}"  # a share always with its one decimal: 20.0%
    else:
        text = _show(abs(number), digits)
    sign = "+" if number > 0 else "-"
    return f" ({sign}{text}{'%' if limit.relative else ''})"


def shown_figures(gate: dict[str, Any]) -> tuple[str, str, str]:
    """A `comparison.gates` entry's baseline, now and change as a table shows them: to four
    decimals, the change the difference of the two figures shown (they add up)."""
    before, after = _exact(gate.get("baseline")), _exact(gate.get("now"))
    shown = [_grouped(_rounded(v)) if v is not None else "—" for v in (before, after)]
    if before is None or after is None:
        return shown[0], shown[1], "—"
    return shown[0], shown[1], _grouped(_rounded(after) - _rounded(before))


def _grouped(value: Fraction) -> str:
    text = f"{float(value):,.{_DIGITS}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def check_limits(
    limits: tuple[MetricLimit, ...], baseline: dict[str, Any], now: dict[str, Any]
) -> list[dict[str, Any]]:
    return [check_limit(limit, baseline, now) for limit in limits]
