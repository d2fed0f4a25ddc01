"""Compaction: what the report never shows of a run is dropped as soon as the run is made, so
memory stays flat in the number of traces; and a run whose compaction is known before it is
evaluated is evaluated briefly, without making what would be dropped (`Compactor.brevity`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Literal

from ..results import FAIL, PASS, CheckResult, RunResult

# How a run is evaluated, by what its compaction will keep of it (`Compactor.brevity`). A
# brief evaluation makes the statuses and counts of the run's checks and its failed checks in
# full, but no message or detail of a check that passes, nor a result of one that is skipped:
# a compacted run keeps neither.
BRIEF: Final = "brief"  # compacted whatever its status
# Compacted if it passes; if it does not, it is kept whole, so its checks are evaluated again
# in full (on the same trace context: its queries and texts are not read twice).
BRIEF_IF_PASSES: Final = "brief if it passes"
Brevity = Literal["brief", "brief if it passes"] | None


class Compactor:
    """Drops what the report never shows of runs that cannot represent their case.

    The report describes a case by its first run that did not pass, else its first run (see
    `CaseResult.representative`), in full; of any other run it lists only the status, reason,
    verdict, failed checks and counts. So the first run of each case id and its first run
    that did not pass are kept whole, and every other run keeps only its failed checks,
    without clause details. That is what keeps memory flat in the number of traces: a case
    with 10,000 runs holds two full results and 9,998 small rows. Applied to any sub-sequence
    of the runs (a worker's chunk) it keeps a superset of what it keeps on the whole.
    """

    def __init__(self, kept: Callable[[RunResult], None] | None = None) -> None:
        # Called with each run kept whole that has no `row_fields` yet (the report's fields
        # of the run, made here: in a worker, in parallel; see report.document.RowFields).
        self._on_kept = kept
        self._kept: dict[str, bool] = {}  # case id -> a run that did not pass is kept whole
        # Equal values of compacted runs, held once: runs that come back from a worker
        # process each bring their own copy of the case id, the status, the verdict and
        # every failed check (read-only from here on), and 100,000 runs share a few hundred.
        self._same: dict[Any, Any] = {}

    def __call__(self, run: RunResult) -> RunResult:
        kept = self._kept.get(run.case_id)
        if kept is None or (not kept and run.status != PASS):
            self._kept[run.case_id] = run.status != PASS
            if self._on_kept is not None and run.row_fields is None:
                self._on_kept(run)
            return run
        return self.shrink(run)

    def brevity(self, case_id: str | None) -> Brevity:
        """How the next run of `case_id` may be evaluated, by what this compaction will keep
        of it: None (in full) for its case's first run, which is kept whole; BRIEF once a run
        of its case that did not pass is kept whole; else BRIEF_IF_PASSES. Runs of one case
        made before the last ones were compacted only ever get a fuller evaluation than the
        compaction needs (what it has seen of a case only grows), never a briefer one."""
        kept = self._kept.get(case_id) if case_id is not None else None
        if kept is None:
            return None
        return BRIEF if kept else BRIEF_IF_PASSES

    def shrink(self, run: RunResult) -> RunResult:
        """The run as one that does not represent its case: its values shared with other
        runs, its failed checks only, without clause details."""
        same = self._same
        run.row_fields = None  # it no longer represents its case
        run.case_id = same.setdefault(run.case_id, run.case_id)
        run.status = same.setdefault(run.status, run.status)
        run.verdict = same.setdefault(run.verdict, run.verdict)
        run.verdict_key = same.setdefault(run.verdict_key, run.verdict_key)
        run.source = same.setdefault(run.source, run.source)
        run.error_reason = same.setdefault(run.error_reason, run.error_reason)
        run.checks = [
            same.setdefault(
                (c.check, c.message, c.report_as, c.severity, c.blocking),
                CheckResult(
                    c.check,
                    c.status,
                    c.message,
                    report_as=c.report_as,
                    severity=c.severity,
                    blocking=c.blocking,
                ),
            )
            for c in run.checks
            if c.status == FAIL
        ]
        return run
