"""Outcomes: plain, picklable result data. Evaluation produces these; reporters only read them.

A *run* is one trace evaluated against its case. A *case* has one run, or several when the
agent was run repeatedly (issue: pass^k). Statuses are exactly: pass, fail, not_run, error.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

PASS = "pass"
FAIL = "fail"
SKIPPED = "skipped"
NOT_RUN = "not_run"
ERROR = "error"
STATUSES = (PASS, FAIL, NOT_RUN, ERROR)


@dataclass(slots=True)
class ClauseResult:
    name: str
    status: str  # pass | fail | skipped
    message: str
    details: dict[str, Any] | None = (
        None  # coverage figures and the like, when the predicate has any
    )


@dataclass(slots=True)
class CheckResult:
    check: str
    status: str  # pass | fail | skipped
    message: str
    clauses: list[ClauseResult] = field(default_factory=list)
    report_as: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"check": self.check, "status": self.status, "message": self.message}
        if len(self.clauses) > 1:
            out["clauses"] = [
                {"name": c.name, "status": c.status, "message": c.message} for c in self.clauses
            ]
        details = self.details
        if details:
            out["details"] = details
        return out

    @property
    def details(self) -> dict[str, Any]:
        """The details of the first clause that has any (coverage figures and the like)."""
        for clause in self.clauses:
            if clause.details:
                return clause.details
        return {}


@dataclass(slots=True)
class RunResult:
    """One trace evaluated against its case."""

    case_id: str
    status: str
    # Why the trace could not be evaluated (error, not_run). A failed run's reason is derived
    # from its failed checks instead (see `reason`): thousands of runs share a few check names.
    error_reason: str | None = None
    fixture: str | None = None
    verdict: str | None = None
    verdict_key: str | None = None  # for the distribution: the verdict, MISSING or INVALID
    checks: list[CheckResult] = field(default_factory=list)
    tool_call_count: int | None = None
    duration_ms: float | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def reason(self) -> str | None:
        """Why the run did not pass, in one line; None when it passed."""
        if self.error_reason is None and self.status == FAIL:
            failed = [c.check for c in self.checks if c.status == FAIL]
            return f"{len(failed)} check(s) failed: {', '.join(failed)}"
        return self.error_reason

    @property
    def failed_checks(self) -> list[dict[str, str]]:
        return [{"check": c.check, "message": c.message} for c in self.checks if c.status == FAIL]

    @property
    def evaluated(self) -> bool:
        return self.status in (PASS, FAIL)

    def row(self) -> dict[str, Any]:
        """This run's entry in its case's `runs.items`."""
        return {
            "fixture": self.fixture,
            "status": self.status,
            "reason": self.reason,
            "verdict": self.verdict,
            "failed_checks": self.failed_checks,
            "tool_call_count": self.tool_call_count,
            "duration_ms": self.duration_ms,
        }

    def as_dict(self) -> dict[str, Any]:
        fields = self._report_fields()
        return {"fixture": self.fixture, "status": self.status, "reason": self.reason, **fields}

    def _report_fields(self) -> dict[str, Any]:
        """Every report field of this run but fixture, status and reason, in one pass over
        its checks (a report of thousands of cases calls this for each)."""
        checks, failed = [], []
        coverage: dict[str, dict[str, Any]] = {}  # report_as -> the first applied check's details
        for check in self.checks:
            checks.append(check.as_dict())
            if check.status == FAIL:
                failed.append({"check": check.check, "message": check.message})
            if check.report_as is not None and check.status != SKIPPED:
                coverage.setdefault(check.report_as, check.details)
        return {
            "verdict": self.verdict,
            "failed_checks": failed,
            "checks": checks,
            "evidence_coverage": _evidence(coverage.get("evidence_coverage")),
            "keyword_coverage": _keywords(coverage.get("keyword_coverage")),
            "tool_call_count": self.tool_call_count,
            "duration_ms": self.duration_ms,
            "notes": list(self.notes),
        }


def _evidence(details: dict[str, Any] | None) -> dict[str, Any] | None:
    if not details:
        return None
    keys = ("required", "found", "missing", "ratio")
    return {k: details.get(k) for k in keys}


def _keywords(details: dict[str, Any] | None) -> dict[str, Any] | None:
    if not details:
        return None
    return {
        "matched": details.get("matched", []),
        "missing": details.get("missing", []),
        "required": details.get("required"),
        "total": details.get("total"),
    }


@dataclass(slots=True)
class CaseResult:
    """A case and its runs. Its status is pass only when every run passed (pass^k)."""

    case_id: str
    runs: list[RunResult]
    file: str | None = None
    tags: list[str] = field(default_factory=list)
    # Set when the case never got a run (no fixture) or its fixtures are unusable as a whole.
    status_override: str | None = None
    reason_override: str | None = None

    @property
    def status(self) -> str:
        if self.status_override:
            return self.status_override
        statuses = [r.status for r in self.runs]
        if not statuses:
            return NOT_RUN
        for s in (ERROR, NOT_RUN, FAIL):
            if s in statuses:
                return s
        return PASS

    @property
    def representative(self) -> RunResult | None:
        """The run the case-level fields describe: the first that did not pass, else the first."""
        for run in self.runs:
            if run.status != PASS:
                return run
        return self.runs[0] if self.runs else None

    @property
    def reason(self) -> str | None:
        if self.reason_override:
            return self.reason_override
        run = self.representative
        if run is None:
            return None
        if len(self.runs) > 1 and run.reason:
            return f"{run.fixture}: {run.reason}"
        return run.reason

    @property
    def passed_runs(self) -> int:
        return sum(r.status == PASS for r in self.runs)

    @property
    def flaky(self) -> bool:
        statuses = {r.status for r in self.runs}
        return PASS in statuses and FAIL in statuses

    def as_dict(self, lazy_rows: bool = False) -> dict[str, Any]:
        """The case's row of the report; `lazy_rows`: its runs' rows as a `RunRows` view."""
        run = self.representative
        status = self.status
        out: dict[str, Any] = {
            "case_id": self.case_id,
            "status": status,
            "reason": self.reason,
        }
        fields = (run or RunResult(self.case_id, status))._report_fields()
        out["verdict"] = fields["verdict"]
        out["failed_checks"] = fields["failed_checks"]
        out["checks"] = fields["checks"]
        out["evidence_coverage"] = fields["evidence_coverage"]
        out["keyword_coverage"] = fields["keyword_coverage"]
        out["tool_call_count"] = fields["tool_call_count"]
        out["duration_ms"] = fields["duration_ms"]
        out["fixture"] = run.fixture if run else None
        out["notes"] = fields["notes"]
        out["tags"] = list(self.tags)
        total = len(self.runs)
        passed = self.passed_runs
        out["run_pass_rate"] = round(passed / total, 4) if total else None
        out["flaky"] = self.flaky
        out["runs"] = {"total": total, "passed": passed}
        if total > 1:
            out["runs"]["items"] = RunRows(self.runs) if lazy_rows else [r.row() for r in self.runs]
        return out


class RunRows(Sequence[dict[str, Any]]):
    """A case's `runs.items`, each row made from its run when read instead of stored.

    A case with 10,000 runs would otherwise hold 10,000 row dicts beside its 10,000 runs
    for as long as the report lives. It reads as a list of row dicts; the JSON reporter
    encodes it as one (`reporting.json_report`). Reports handed to library users are
    built with plain lists (`build_report(lazy_rows=False)`).
    """

    __slots__ = ("_runs",)

    def __init__(self, runs: list[RunResult]) -> None:
        self._runs = runs

    def __len__(self) -> int:
        return len(self._runs)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [run.row() for run in self._runs[index]]
        return self._runs[index].row()

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for run in self._runs:
            yield run.row()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RunRows({len(self._runs)} runs)"
