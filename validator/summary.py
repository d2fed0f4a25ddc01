"""The report document: case results plus aggregates, as one plain JSON-ready mapping.

Every reporter (JSON, Markdown, JUnit, HTML) formats this one document and decides nothing;
its shape is described by the shipped `report` JSON Schema and is stable across versions
(`schema_version` changes when a key changes meaning).
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Iterable
from typing import Any

from . import __version__
from .outcomes import ERROR, FAIL, NOT_RUN, PASS, CaseResult, RunResult

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


def build_report(
    cases: list[CaseResult],
    unmatched: Iterable[RunResult] = (),
    inputs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The whole report document."""
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "trace-validator", "version": __version__},
        "generated_at": generated_at(),
        "inputs": inputs or {},
        "summary": summarize(cases),
        "cases": [c.as_dict() for c in cases],
        "unmatched_traces": [
            {"fixture": r.fixture, "case_id": r.case_id, "status": r.status, "reason": r.reason}
            for r in unmatched
        ],
    }


def exit_status(report: dict[str, Any]) -> int:
    """0 when every case passed and every trace matched a case, else 1."""
    summary = report["summary"]
    ok = summary["total"] == summary["passed"] and not report.get("unmatched_traces")
    return 0 if ok else 1
