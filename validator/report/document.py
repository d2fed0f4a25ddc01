"""The report document, shaped in one place from result records.

Every reporter (JSON, Markdown, JUnit, HTML) formats this one document and decides nothing;
its shape is described by the shipped `report` JSON Schema and is stable across versions
(`schema_version` changes when a key changes meaning).

A `Report` holds the document's head (everything but the case rows) and makes the case
rows when a reporter reads them, so a case with 10,000 runs does not hold 10,000 run rows
for as long as the report lives. `Report.as_dict()` is the plain JSON document (what
`report.json` holds and what the library returns); `Report.from_dict` reads one back, so a
report can be rendered again in any format from its JSON.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from ..dataclass import dataclass
from ..display import one_line
from ..results import FAIL, SKIPPED, CaseResult, CheckResult, RunResult
from ..version import __version__
from .columns import COLUMNS
from .metrics import summarize
from .reliability import wilson_interval
from .sources import Sources
from .timing import Timing
from .unread import summary_unread

SCHEMA_VERSION = 1
TOOL_NAME = "trace-validator"


def _pinned() -> int | None:
    """SOURCE_DATE_EPOCH as a time the calendar can show, or None (unset or unusable)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    # plain ASCII digits only: "²".isdigit() is True, and int() refuses it
    if not (epoch.isascii() and epoch.isdigit()):
        return None
    try:
        time.gmtime(int(epoch))
    except (OverflowError, OSError, ValueError):  # a pinned time no calendar can show
        return None
    return int(epoch)


def source_date_note() -> str | None:
    """Why a SOURCE_DATE_EPOCH that is set is not used (the report has the current time)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not epoch or _pinned() is not None:
        return None
    return (
        f"SOURCE_DATE_EPOCH={one_line(epoch)[:40]!r} is not a whole number of seconds since"
        " 1970 (e.g. SOURCE_DATE_EPOCH=1700000000): the report has the current time"
    )


def generated_at() -> str:
    """UTC time of the run; SOURCE_DATE_EPOCH pins it for reproducible reports."""
    seconds = _pinned()
    return time.strftime(
        "%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(time.time()) if seconds is None else seconds)
    )


# --------------------------------------------------------------------------------------------
# Rows


def _check_row(check: CheckResult, details: dict[str, Any] | None) -> dict[str, Any]:
    """A check's entry in its case row's `checks`; `details`: check.details."""
    out: dict[str, Any] = {
        "check": check.check,
        "status": check.status,
        "message": check.message,
        "severity": check.severity,
    }
    clauses = check.clauses
    if len(clauses) > 1:
        out["clauses"] = [
            {"name": c.name, "status": c.status, "message": c.message} for c in clauses
        ]
    if details:
        out["details"] = details
    if check.unexamined:
        out["examined"] = 0
    return out


def _failed(run: RunResult) -> list[dict[str, str]]:
    return [{"check": c.check, "message": c.message} for c in run.checks if c.failed_blocking]


def _warned(check: CheckResult) -> dict[str, str]:
    return {"check": check.check, "message": check.message, "severity": check.severity}


def _warnings(run: RunResult) -> list[dict[str, str]]:
    """The failed checks that did not fail the run (severity warning or info)."""
    return [_warned(c) for c in run.checks if c.failed_nonblocking]


def _counts(run: RunResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "checks_applied": run.checks_applied,
        "checks_skipped": run.checks_skipped,
        "vacuous": run.vacuous,
    }
    if run.checks_unexamined:  # only then: a run that examined everything keeps its bytes
        out["checks_unexamined"] = run.checks_unexamined
    return out


def run_row(run: RunResult) -> dict[str, Any]:
    """A run's entry in its case's `runs.items`."""
    return {
        "fixture": run.fixture,
        "status": run.status,
        "reason": run.reason,
        "verdict": run.verdict,
        "failed_checks": _failed(run),
        "failed_warnings": _warnings(run),
        "tool_call_count": run.tool_call_count,
        "duration_ms": run.duration_ms,
        **_counts(run),
        **({"unread": list(run.unread)} if run.unread else {}),
    }


class SkippedRows:
    """The entry of each skipped check, made once per result: a check a case sets off
    (`when_input`) is one result shared by every case of its plan (`Evaluator`), so a
    report of 2,000 such cases makes its entry once, not 2,000 times. Each result is held
    with its entry, so its id is not reused while the memo lives."""

    def __init__(self) -> None:
        self._made: dict[int, tuple[CheckResult, dict[str, Any]]] = {}

    def __call__(self, check: CheckResult, details: dict[str, Any] | None) -> dict[str, Any]:
        made = self._made.get(id(check))
        if made is None:
            made = self._made[id(check)] = (check, _check_row(check, details))
        return made[1]


class RowFields:
    """Makes each run's case-row fields as the compaction keeps it whole (`Compactor`'s
    `kept`), into `run.row_fields`. In a worker process (`--jobs 2`) that is work done in
    parallel instead of by the first process after the join (the rows built there: ~68 ->
    ~30 ms for 2,000 cases); in one process it costs what making them with the report
    would. Its memo of skipped checks' entries holds the kept runs' only (two a case at
    most), so it stays bounded.
    """

    def __init__(self) -> None:
        self._skipped = SkippedRows()

    def __call__(self, run: RunResult) -> None:
        run.row_fields = _made_fields(run, self._skipped)


def _run_fields(run: RunResult, skipped: SkippedRows | None = None) -> dict[str, Any]:
    """Every case-row field that describes its representative run (`row_fields` when it
    was made as the run was kept)."""
    made = run.row_fields
    return _made_fields(run, skipped) if made is None else made


def _made_fields(run: RunResult, skipped: SkippedRows | None) -> dict[str, Any]:
    """The run's case-row fields, in one pass over its checks (a report of thousands of
    cases makes this for each; `skipped`: the entries of skipped checks made so far)."""
    checks, failed, warned = [], [], []
    coverage: dict[str, dict[str, Any]] = {}  # report_as -> the first applied check's details
    for check in run.checks:
        details = check.details  # found once, for the row and the columns
        status = check.status
        if status == SKIPPED and skipped is not None:
            checks.append(skipped(check, details))
        else:
            checks.append(_check_row(check, details))
        if status == FAIL:
            if check.blocking:
                failed.append({"check": check.check, "message": check.message})
            else:
                warned.append(_warned(check))
        if check.report_as is not None and status != SKIPPED:
            coverage.setdefault(check.report_as, details)
    return {
        "verdict": run.verdict,
        "failed_checks": failed,
        "failed_warnings": warned,
        "checks": checks,
        **{name: column.value(coverage.get(name)) for name, column in COLUMNS.items()},
        "tool_call_count": run.tool_call_count,
        "duration_ms": run.duration_ms,
        "fixture": run.fixture,
        "notes": list(run.notes),
        **_counts(run),
    }


_NO_RUN = RunResult("", "")


def case_row(
    case: CaseResult,
    with_items: bool = True,
    quarantined: str | None = None,
    skipped: SkippedRows | None = None,
) -> dict[str, Any]:
    """The case's row of the report. `with_items=False` leaves a multi-run case's
    `runs.items` out (a `Report` adds them when the row is read). `quarantined`: the reason
    the quarantine file gives, when the case is in it. `skipped`: shared by the rows of one
    report (the entries of its skipped checks, each made once)."""
    run = case.representative
    out = _case_head(case)
    out.update(_run_fields(run or _NO_RUN, skipped))
    if case.notes:
        out["notes"] = [*case.notes, *out["notes"]]
    out["tags"] = list(case.tags)
    total = len(case.runs)
    passed = case.passed_runs
    out["run_pass_rate"] = round(passed / total, 4) if total else None
    out["run_pass_interval"] = wilson_interval(passed, total)
    out["flaky"] = case.flaky
    out["vacuous_runs"] = case.vacuous_runs
    if case.unexamined_runs:
        out["unexamined_runs"] = case.unexamined_runs
    if case.unread is not None:  # only when the view left something unread
        out["unread"] = case.unread.as_dict()
    out["runs"] = {"total": total, "passed": passed}
    if case.required_passes is not None:
        out["runs"]["required"] = case.required_passes
    if quarantined is not None:
        out["quarantined"] = quarantined
    if total > 1 and with_items:
        out["runs"]["items"] = [run_row(r) for r in case.runs]
    return out


def _case_head(case: CaseResult) -> dict[str, Any]:
    return {"case_id": case.case_id, "status": case.status, "reason": case.reason}


def case_line(
    case: CaseResult, quarantined: str | None = None, checks: bool = False
) -> dict[str, Any]:
    """The fields of the case's row that its line in the run's output shows
    (`commands.summary.print_case`), made as `case_row` makes them: id, status, reason,
    `quarantined` when given and, with `checks` (-v), its representative run's checks.
    A run prints each case's line as soon as the case is decided; the whole row, made
    there for every case, cost more than the report's rows."""
    out = _case_head(case)
    if quarantined is not None:
        out["quarantined"] = quarantined
    if checks:
        run = case.representative or _NO_RUN
        out["checks"] = [_check_row(check, check.details) for check in run.checks]
    return out


def unmatched_row(run: RunResult) -> dict[str, Any]:
    return {
        "fixture": run.fixture,
        "case_id": run.case_id,
        "status": run.status,
        "reason": run.reason,
    }


# --------------------------------------------------------------------------------------------
# The document


@dataclass
class Report:
    """The report document: `head` (schema_version, tool, generated_at, inputs, summary and,
    with a baseline, comparison), the case rows (`cases()`), and `unmatched`; `extras`, when
    set, is read by the HTML reporter only."""

    head: dict[str, Any]
    rows: list[dict[str, Any]]  # case rows; a multi-run case's without runs.items
    unmatched: list[dict[str, Any]] = field(default_factory=list)
    # For each row, its runs when the row's runs.items is made on reading (else None).
    items: list[Callable[[], list[dict[str, Any]]] | None] | None = None
    # Where checks' inputs are in the case and trace files (SARIF, annotations); None for a
    # report read back from JSON. Never part of the document.
    sources: Sources | None = None
    # HTML-only side channel: case id -> what the traces say beyond the rows (question,
    # answer, tool calls; the shape is in report/extras.py). None unless the command
    # collected it (it does when html is among the formats). Never part of `as_dict()`, so
    # report.json and the other formats are the same with or without it.
    extras: dict[str, dict[str, Any]] | None = None
    # SARIF only: the folder its URIs are relative to (None: the repository root, found
    # from the working folder) and the URL its rules' helpUri start with (None: docs/).
    sarif_root: Path | None = None
    sarif_docs_url: str | None = None
    # JUnit only: the seconds spent checking each run and the whole run's (report/timing.py);
    # None when not measured (a report read back from JSON, or SOURCE_DATE_EPOCH set).
    timing: Timing | None = None
    # run/merge --history DIR: each case's statuses across earlier reports and this run,
    # the cases that changed and the flaky ones (report/history.py); None without the flag.
    # Part of the document (report.json's `history`, after the head).
    history: dict[str, Any] | None = None

    @property
    def summary(self) -> dict[str, Any]:
        summary: dict[str, Any] = self.head["summary"]
        return summary

    def cases(
        self, only: Callable[[dict[str, Any]], bool] | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every case row, complete, in report order (made one at a time when lazy); with
        `only`, the rows it keeps (judged on the row without its runs' items, which are made
        only for the rows kept)."""
        if self.items is None:
            yield from (row for row in self.rows if only is None or only(row))
            return
        for row, make in zip(self.rows, self.items, strict=True):
            if only is not None and not only(row):
                continue
            if make is None:
                yield row
            else:
                yield {**row, "runs": {**row["runs"], "items": make()}}

    def as_dict(self) -> dict[str, Any]:
        """The whole document as plain JSON data (report.json's content)."""
        history = {} if self.history is None else {"history": self.history}
        return {
            **self.head,
            **history,
            "cases": list(self.cases()),
            "unmatched_traces": self.unmatched,
        }

    @classmethod
    def from_dict(cls, document: dict[str, Any]) -> Report:
        body = ("cases", "unmatched_traces", "history")
        head = {k: v for k, v in document.items() if k not in body}
        history = document.get("history")
        return cls(
            head,
            list(document.get("cases") or []),
            list(document.get("unmatched_traces") or []),
            history=history if isinstance(history, dict) else None,
        )


def check_counts(cases: Sequence[CaseResult]) -> dict[str, int]:
    """The vacuity guard's and the severities' totals over every run of the report (each
    case's `Runs` keeps its totals as runs are appended)."""
    return {
        "checks_applied": sum(c.runs.totals[0] for c in cases),
        "checks_skipped": sum(c.runs.totals[1] for c in cases),
        "vacuous_runs": sum(c.vacuous_runs for c in cases),
        "vacuous_cases": sum(c.vacuous_runs > 0 for c in cases),
        "failed_warnings": sum(c.runs.totals[2] for c in cases),
        "checks_unexamined": sum(c.runs.unexamined_checks for c in cases),
        "unexamined_runs": sum(c.unexamined_runs for c in cases),
    }


def _items_of(case: CaseResult) -> Callable[[], list[dict[str, Any]]] | None:
    if len(case.runs) <= 1:
        return None
    runs = case.runs
    return lambda: [run_row(r) for r in runs]


Comparison = Callable[[dict[str, Any], list[dict[str, Any]], dict[str, Any]], dict[str, Any]]


def build_report(
    cases: list[CaseResult],
    unmatched: Iterable[RunResult] = (),
    inputs: dict[str, Any] | None = None,
    comparison: Comparison | None = None,
    unused: Iterable[tuple[str, str]] = (),
    *,
    ks: Sequence[int] | None = None,
    quarantine: Mapping[str, str] | None = None,
) -> Report:
    """The report of a run.

    `comparison`, given the summary, the case rows and the summary of the cases the gates
    judge (those not quarantined), returns the `comparison` section (see `report.baseline`).
    `unused`: (file, why) of every file under the fixtures folder the run did not use.
    `ks`: the k of pass^k / pass@k (default: 1 to the fewest runs of a case). `quarantine`:
    case id -> reason, for the cases that are reported but never fail the run."""
    quarantine = quarantine or {}
    summary = summarize(cases, ks)
    summary.update(check_counts(cases))
    unread = summary_unread(cases)
    if unread is not None:  # only when a view left something unread
        summary["unread"] = unread
    summary["quarantined"] = [
        {"case_id": c.case_id, "reason": quarantine[c.case_id], "status": c.status}
        for c in cases
        if c.case_id in quarantine
    ]
    head: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": __version__},
        "generated_at": generated_at(),
        "inputs": inputs or {},
        "summary": summary,
    }
    skipped = SkippedRows()
    rows = [case_row(c, False, quarantine.get(c.case_id), skipped) for c in cases]
    if comparison is not None:
        judged = [c for c in cases if c.case_id not in quarantine]
        gated = summarize(judged, ks) if len(judged) < len(cases) else summary
        head["comparison"] = comparison(summary, rows, gated)
    head["unused_files"] = [{"file": file, "reason": why} for file, why in unused]
    items = [_items_of(c) for c in cases]
    return Report(head, rows, [unmatched_row(r) for r in unmatched], items)
