"""The report document: case results plus aggregates, as one plain JSON-ready mapping.

Every reporter (JSON, Markdown, JUnit, HTML) formats this one document and decides nothing;
its shape is described by the shipped `report` JSON Schema and is stable across versions
(`schema_version` changes when a key changes meaning).
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from . import __version__
from .outcomes import ERROR, FAIL, NOT_RUN, PASS, STATUSES, CaseResult, RunResult

SCHEMA_VERSION = 1


def generated_at() -> str:
    """UTC time of the run; SOURCE_DATE_EPOCH pins it for reproducible reports."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    seconds = int(epoch) if epoch.isdigit() else int(time.time())
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _avg(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def summarize(cases: list[CaseResult]) -> dict[str, Any]:
    """Aggregates over cases (statuses) and over every evaluated run (verdicts, costs)."""
    total = len(cases)
    statuses = Counter(c.status for c in cases)
    runs = [r for c in cases for r in c.runs]
    evaluated = [r for r in runs if r.evaluated]
    verdicts = Counter(r.verdict_key or "MISSING" for r in evaluated)
    with_runs = [c for c in cases if c.runs]
    return {
        "total": total,
        "passed": statuses[PASS],
        "failed": statuses[FAIL],
        "not_run": statuses[NOT_RUN],
        "errored": statuses[ERROR],
        "pass_rate": round(statuses[PASS] / total, 4) if total else 0.0,
        "verdict_distribution": dict(sorted(verdicts.items())),
        "avg_tool_calls": _avg(
            [r.tool_call_count for r in evaluated if r.tool_call_count is not None]
        ),
        "avg_duration_ms": _avg([r.duration_ms for r in evaluated if r.duration_ms is not None]),
        "runs": {
            "total": len(runs),
            "evaluated": len(evaluated),
            "passed": sum(r.status == PASS for r in runs),
        },
        "pass_hat_k": round(sum(c.status == PASS for c in cases) / total, 4) if total else 0.0,
        "pass_at_k": round(sum(c.passed_runs > 0 for c in with_runs) / total, 4) if total else 0.0,
        "flaky_cases": sum(c.flaky for c in cases),
    }


@dataclass(frozen=True)
class Baseline:
    """An earlier report to compare with (already checked by `baseline_problem`)."""

    document: dict[str, Any]
    source: str  # how the report names it
    keep: Callable[[dict[str, Any]], bool] | None = None  # the current case selection


def build_report(
    cases: list[CaseResult],
    unmatched: Iterable[RunResult] = (),
    inputs: dict[str, Any] | None = None,
    baseline: Baseline | None = None,
    lazy_rows: bool = False,
) -> dict[str, Any]:
    """The whole report document; with a baseline, `comparison` follows `summary`.

    `lazy_rows`: each multi-run case's `runs.items` is a `RunRows` view made from its runs
    when read (the reporters accept it), so the document costs no memory per run beyond
    the runs themselves. Off, the document is plain JSON-ready data throughout."""
    report: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "trace-validator", "version": __version__},
        "generated_at": generated_at(),
        "inputs": inputs or {},
        "summary": summarize(cases),
    }
    case_dicts = [c.as_dict(lazy_rows) for c in cases]
    if baseline is not None:
        current = {"summary": report["summary"], "cases": case_dicts}
        report["comparison"] = compare(current, baseline.document, baseline.source, baseline.keep)
    report["cases"] = case_dicts
    report["unmatched_traces"] = [
        {"fixture": r.fixture, "case_id": r.case_id, "status": r.status, "reason": r.reason}
        for r in unmatched
    ]
    return report


FAIL_ON = ("any", "regression", "never")


def baseline_problem(document: Any) -> str | None:
    """Why an earlier report cannot serve as a baseline, or None when it can."""
    if not isinstance(document, dict):
        return "it is not a report.json object"
    tool = document.get("tool")
    if "schema_version" not in document or not isinstance(tool, dict):
        return "it is not a trace-validator report.json (no schema_version or tool)"
    version = document["schema_version"]
    if version != SCHEMA_VERSION:
        return (
            f"it uses report schema version {version!r}, this version reads {SCHEMA_VERSION}:"
            " produce the baseline again with this version"
        )
    cases = document.get("cases")
    if not isinstance(cases, list):
        return "its 'cases' is not a list"
    seen: set[str] = set()
    for index, case in enumerate(cases):
        where = f"cases[{index}]"
        if not isinstance(case, dict) or not isinstance(case.get("case_id"), str):
            return f"{where} has no text 'case_id'"
        if case.get("status") not in STATUSES:
            return f"{where} ({case['case_id']}) has an unknown status {case.get('status')!r}"
        if case["case_id"] in seen:
            return f"case '{case['case_id']}' appears twice"
        seen.add(case["case_id"])
    return None


def _evaluated_runs(case: dict[str, Any]) -> list[dict[str, Any]]:
    """A report case's evaluated runs (pass or fail), as the report tells them."""
    runs = case.get("runs")
    items = runs.get("items") if isinstance(runs, dict) else None
    if isinstance(items, list):
        return [r for r in items if isinstance(r, dict) and r.get("status") in (PASS, FAIL)]
    return [case] if case.get("status") in (PASS, FAIL) else []


def _numbers(runs: list[dict[str, Any]], key: str) -> list[float]:
    return [
        r[key]
        for r in runs
        if isinstance(r.get(key), (int, float)) and not isinstance(r.get(key), bool)
    ]


def metrics_of(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Pass rate and averages recomputed from a report's case list (same rules as summarize)."""
    total = len(cases)
    passed = sum(c["status"] == PASS for c in cases)
    runs = [r for c in cases for r in _evaluated_runs(c)]
    return {
        "total": total,
        "passed": passed,
        "pass_rate": round(passed / total, 4) if total else 0.0,
        "avg_tool_calls": _avg(_numbers(runs, "tool_call_count")),
        "avg_duration_ms": _avg(_numbers(runs, "duration_ms")),
    }


def _change(after: float | None, before: float | None, digits: int) -> float | None:
    if after is None or before is None:
        return None
    return round(after - before, digits)


def compare(
    report: dict[str, Any],
    baseline: dict[str, Any],
    source: str,
    keep: Callable[[dict[str, Any]], bool] | None = None,
) -> dict[str, Any]:
    """What changed since `baseline` (a valid earlier report): the `comparison` section.

    `keep` restricts the baseline to the cases the current run selected (--case/--tag), so
    cases left out on purpose are not reported as removed. Regressions: passed before, not
    now. Fixes: did not pass before, pass now. Averages are over evaluated runs, as in the
    summary; a change is null when either side has no value.
    """
    before_cases = [c for c in baseline["cases"] if keep is None or keep(c)]
    before = {c["case_id"]: c for c in before_cases}
    now = {c["case_id"]: c for c in report["cases"]}
    regressions, fixes = [], []
    for case_id in sorted(set(before) & set(now)):
        old, new = before[case_id]["status"], now[case_id]["status"]
        item = {"case_id": case_id, "before": old, "after": new}
        if old == PASS and new != PASS:
            regressions.append({**item, "reason": now[case_id].get("reason")})
        elif old != PASS and new == PASS:
            fixes.append(item)
    base = metrics_of(before_cases)
    summary = report["summary"]
    return {
        "baseline": source,
        "baseline_generated_at": baseline.get("generated_at"),
        "baseline_summary": base,
        "regressions": regressions,
        "fixes": fixes,
        "new_cases": [
            {"case_id": i, "status": now[i]["status"]} for i in sorted(set(now) - set(before))
        ],
        "removed_cases": [
            {"case_id": i, "status": before[i]["status"]} for i in sorted(set(before) - set(now))
        ],
        "delta": {
            "pass_rate": _change(summary["pass_rate"], base["pass_rate"], 4),
            "avg_tool_calls": _change(summary["avg_tool_calls"], base["avg_tool_calls"], 3),
            "avg_duration_ms": _change(summary["avg_duration_ms"], base["avg_duration_ms"], 3),
        },
    }


def exit_decision(
    report: dict[str, Any], fail_on: str = "any", min_pass_rate: Fraction | None = None
) -> tuple[int, list[str]]:
    """The exit status (0 or 1) and, when 1 comes from a gate other than `any`, why.

    `any`: 1 unless every case passed and every trace matched a case. `regression`: 1 only
    when a case that passed in the baseline does not pass now. `never`: 0. Whatever the
    mode, a pass rate below `min_pass_rate` (compared exactly, as a fraction) makes it 1.
    """
    summary = report["summary"]
    reasons: list[str] = []
    if fail_on == "any":
        failed = summary["total"] != summary["passed"] or bool(report.get("unmatched_traces"))
    elif fail_on == "regression":
        regressions = (report.get("comparison") or {}).get("regressions") or []
        failed = bool(regressions)
        if failed:
            names = ", ".join(r["case_id"] for r in regressions)
            reasons.append(f"{len(regressions)} regression(s) since the baseline: {names}")
    elif fail_on == "never":
        failed = False
    else:
        raise ValueError(f"unknown fail_on {fail_on!r}")
    if min_pass_rate is not None and summary["total"]:
        rate = Fraction(summary["passed"], summary["total"])
        if rate < min_pass_rate:
            failed = True
            reasons.append(
                f"pass rate {float(rate) * 100:.1f}% is below --min-pass-rate"
                f" {float(min_pass_rate) * 100:.1f}%"
            )
    return (1 if failed else 0), reasons


def exit_status(
    report: dict[str, Any], fail_on: str = "any", min_pass_rate: Fraction | None = None
) -> int:
    """0 when the run passes its gate (by default: every case passed and every trace matched
    a case), else 1."""
    return exit_decision(report, fail_on, min_pass_rate)[0]
