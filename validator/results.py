"""Results: plain, picklable records. Evaluation produces them; `report.document` shapes them
into the report's rows, and nothing else reads them.

A *run* is one trace evaluated against its case. A *case* has one run, or several when the
agent was run repeatedly (issue: pass^k). Statuses are exactly: pass, fail, not_run, error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PASS = "pass"
FAIL = "fail"
SKIPPED = "skipped"
NOT_RUN = "not_run"
ERROR = "error"
STATUSES = (PASS, FAIL, NOT_RUN, ERROR)

# A check's severity (its spec's `severity`, or the case's `severity_overrides`), most severe
# first. A failed check fails its run only when it is `blocking`: its severity is at least the
# run's --fail-severity (error by default), so a failed warning or info is reported and the run
# still passes.
SEVERITIES = ("error", "warning", "info")


@dataclass(slots=True)
class ClauseResult:
    name: str
    status: str  # pass | fail | skipped
    message: str
    details: dict[str, Any] | None = (
        None  # coverage figures and the like, when the predicate has any
    )
    # True when `message` is the spec author's sentence (a `message:` template): it says
    # what is wrong by itself, so a check of several clauses does not prefix it with the name.
    worded: bool = False


@dataclass(slots=True)
class CheckResult:
    check: str
    status: str  # pass | fail | skipped
    message: str
    clauses: list[ClauseResult] = field(default_factory=list)
    report_as: str | None = None
    severity: str = "error"
    blocking: bool = True  # a failure of this check fails the run (see SEVERITIES)

    @property
    def failed_blocking(self) -> bool:
        return self.status == FAIL and self.blocking

    @property
    def failed_nonblocking(self) -> bool:
        return self.status == FAIL and not self.blocking

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
    # The file the trace was read from, as shown (a trace's `fixture` may add its place in
    # the file: `x.jsonl:3`, `x.json#2`); None when it was not read from a file.
    source: str | None = None
    # How many of the run's checks were applied (passed or failed) and skipped (a guard, or
    # `when_input` naming an input the case does not set): kept as counts because compacted
    # runs drop their passing and skipped checks.
    checks_applied: int = 0
    checks_skipped: int = 0

    @property
    def vacuous(self) -> bool:
        """Passed without any check applied: every check was skipped (the vacuity guard)."""
        return self.status == PASS and self.checks_applied == 0

    @property
    def reason(self) -> str | None:
        """Why the run did not pass, in one line; None when it passed."""
        if self.error_reason is None and self.status == FAIL:
            failed = [c.check for c in self.checks if c.failed_blocking]
            return f"{len(failed)} check(s) failed: {', '.join(failed)}"
        return self.error_reason

    @property
    def evaluated(self) -> bool:
        return self.status in (PASS, FAIL)


@dataclass(slots=True)
class CaseResult:
    """A case and its runs. Its status is pass only when every run passed (pass^k), or, with
    `required_passes` set (the case's min_passes / min_pass_rate), when at least that many
    runs passed."""

    case_id: str
    runs: list[RunResult]
    file: str | None = None
    tags: list[str] = field(default_factory=list)
    # Set when the case never got a run (no fixture) or its fixtures are unusable as a whole.
    status_override: str | None = None
    reason_override: str | None = None
    # How many runs must pass (from min_passes / min_pass_rate); None: every run (pass^k).
    required_passes: int | None = None
    notes: list[str] = field(default_factory=list)  # about the case as a whole

    @property
    def status(self) -> str:
        if self.status_override:
            return self.status_override
        statuses = [r.status for r in self.runs]
        if not statuses:
            return NOT_RUN
        if self.required_passes is not None:
            # A threshold tolerates runs that did not pass, a run in error among them; when
            # too few passed, a run in error still makes it error (a broken trace is looked at).
            if self.passed_runs >= self.required_passes:
                return PASS
            return ERROR if ERROR in statuses else FAIL
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
        why = f"{run.fixture}: {run.reason}" if len(self.runs) > 1 and run.reason else run.reason
        if self.required_passes is None:
            return why
        count = (
            f"{self.passed_runs} of {len(self.runs)} runs passed ({self.required_passes} required)"
        )
        return f"{count}; {why}" if why and self.status != PASS else count

    @property
    def passed_runs(self) -> int:
        return sum(r.status == PASS for r in self.runs)

    @property
    def vacuous_runs(self) -> int:
        return sum(r.vacuous for r in self.runs)

    @property
    def flaky(self) -> bool:
        statuses = {r.status for r in self.runs}
        return PASS in statuses and FAIL in statuses
