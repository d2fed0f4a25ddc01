"""The summary's figures, computed one way for this run's results and for a baseline report.

`summarize` reads anything shaped like a case result (`status`, `runs`, `passed_runs`,
`flaky`) whose runs are shaped like run results (`status`, `verdict_key`,
`tool_call_count`, `duration_ms`): the results of this run, or a baseline report's rows
through `baseline_cases`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import field
from typing import Any, Protocol

from ..dataclass import dataclass
from ..results import ERROR, FAIL, NOT_RUN, PASS, Runs
from .reliability import estimates, percentile


class RunLike(Protocol):
    status: str
    verdict_key: str | None
    tool_call_count: int | None
    duration_ms: float | None


class CaseLike(Protocol):
    @property
    def status(self) -> str: ...
    @property
    def runs(self) -> Sequence[RunLike]: ...
    @property
    def passed_runs(self) -> int: ...
    @property
    def flaky(self) -> bool: ...


def average(values: Sequence[float]) -> float | None:
    if not values:
        return None
    mean = sum(values) / len(values)
    if not math.isfinite(mean):  # the sum overflowed: divide first (each value is finite)
        mean = sum(v / len(values) for v in values)
    return round(mean, 3) if math.isfinite(mean) else None


def _share(count: int, total: int) -> float:
    return round(count / total, 4) if total else 0.0


def summarize(cases: Sequence[CaseLike], ks: Sequence[int] | None = None) -> dict[str, Any]:
    """Aggregates over cases (statuses) and over every evaluated run (verdicts, costs).

    `ks`: the k of pass^k and pass@k to estimate (default: 1 to the fewest runs a case has;
    see `reliability.estimates`)."""
    total = len(cases)
    statuses = Counter(c.status for c in cases)
    return {
        "total": total,
        "passed": statuses[PASS],
        "failed": statuses[FAIL],
        "not_run": statuses[NOT_RUN],
        "errored": statuses[ERROR],
        "pass_rate": _share(statuses[PASS], total),
        **_run_figures(cases),
        # All runs passed: not the pass count, since a case may pass on its min_passes.
        "pass_hat_k": _share(
            sum(bool(c.runs) and c.passed_runs == len(c.runs) for c in cases), total
        ),
        "pass_at_k": _share(sum(c.passed_runs > 0 for c in cases if c.runs), total),
        # Every run of a case counts (one in error as a run that did not pass).
        **estimates([(len(c.runs), c.passed_runs) for c in cases], ks),
        "flaky_cases": sum(c.flaky for c in cases),
    }


def _run_figures(cases: Sequence[CaseLike]) -> dict[str, Any]:
    """The figures over every run, read once run by run: a case's runs may be held
    compactly (`results.Runs`), so no list of every run of the report is made."""
    verdicts: Counter[str] = Counter()
    calls: list[int] = []
    durations: list[float] = []
    total = passed = 0
    for case in cases:
        runs = case.runs
        if isinstance(runs, Runs):
            figures: Iterable[tuple[str, str | None, Any, Any]] = runs.figures()
        else:
            figures = ((r.status, r.verdict_key, r.tool_call_count, r.duration_ms) for r in runs)
        for status, verdict_key, tool_calls, duration in figures:
            total += 1
            if status == PASS:
                passed += 1
            elif status != FAIL:
                continue
            verdicts[verdict_key or "MISSING"] += 1
            if tool_calls is not None:
                calls.append(tool_calls)
            if duration is not None:
                durations.append(duration)
    return {
        "verdict_distribution": dict(sorted(verdicts.items())),
        "avg_tool_calls": average(calls),
        "avg_duration_ms": average(durations),
        "p50_duration_ms": percentile(durations, 50),
        "p95_duration_ms": percentile(durations, 95),
        "p95_tool_calls": percentile(calls, 95),
        "runs": {"total": total, "evaluated": sum(verdicts.values()), "passed": passed},
    }


# --------------------------------------------------------------------------------------------
# A baseline report's rows, read as results


def _number(value: Any) -> float | None:
    # A baseline is another program's file: NaN, Infinity or 1e400 in it are not figures.
    if isinstance(value, int) and not isinstance(value, bool):
        return value if abs(value) < 2**63 else None
    if isinstance(value, float) and math.isfinite(value):
        return value
    return None


@dataclass(slots=True)
class _RowRun:
    """What the report's figures read of one run."""

    status: str
    verdict_key: str | None
    tool_call_count: Any
    duration_ms: Any


@dataclass
class _RowCase:
    """What the report's figures read of one case: its status and its runs."""

    status: str
    runs: list[_RowRun] = field(default_factory=list)

    @property
    def passed_runs(self) -> int:
        return sum(r.status == PASS for r in self.runs)

    @property
    def flaky(self) -> bool:
        statuses = {r.status for r in self.runs}
        return PASS in statuses and FAIL in statuses


def _row_run(row: dict[str, Any]) -> _RowRun:
    verdict = row.get("verdict")
    return _RowRun(
        str(row.get("status")),
        verdict if isinstance(verdict, str) else None,
        _number(row.get("tool_call_count")),
        _number(row.get("duration_ms")),
    )


def baseline_cases(rows: list[dict[str, Any]]) -> list[_RowCase]:
    """A report's case rows as case results: each run from `runs.items`, or the row itself
    when the case had a single run (the row then describes that run)."""
    out = []
    for row in rows:
        runs = row.get("runs")
        items = runs.get("items") if isinstance(runs, dict) else None
        if isinstance(items, list):
            listed = [_row_run(r) for r in items if isinstance(r, dict)]
        else:
            listed = _single_run(row)
        out.append(_RowCase(str(row.get("status")), listed))
    return out


def _single_run(row: dict[str, Any]) -> list[_RowRun]:
    """The one run a row without `runs.items` describes, as this run would count it.

    A row in error with one run (a broken trace) is that run, in error; a row with no run
    (not_run, an unusable fixture) has none. A case that passed on a threshold
    (`min_passes`, `min_pass_rate`) with its one run failing says so in `runs.passed`."""
    runs = row.get("runs")
    total = runs.get("total") if isinstance(runs, dict) else None
    passed = runs.get("passed") if isinstance(runs, dict) else None
    status = row.get("status")
    if total is None:  # a row without run counts: its status is its run's
        return [_row_run(row)] if status in (PASS, FAIL) else []
    if total != 1:
        return []
    run = _row_run(row)
    if passed == 1:
        run.status = PASS
    elif status == PASS:  # passed on a threshold of 0 runs
        run.status = FAIL
    return [run]
