"""What `run` prints while it evaluates: each case's line as soon as the case is decided,
in case order, and, off a terminal (CI logs), the progress lines (`progress.ProgressLines`).
Nothing with -q.

A case is decided once every trace file the plan gave it has been evaluated. That is known
only when each file holds one trace of one case (the default layout: FIXTURES/<id>.json,
FIXTURES/<id>/run-*.json, or a case's `fixture:` key); with JSON Lines, `traces.split` or
traces naming their case, every case is decided at the end, as before. After the one
parallel phase (commands/fused.py) the runs come all at once, when the progress lines have
been printed by that phase: every case is decided at the end then too. The lines printed
early are the very lines the summary would print (the same row, built as the report builds
it: `case_line`, the row's fields that the line shows), so the output is the same text, only
sooner; the summary prints the rest.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from typing import Any

from ..evaluation.grouping import required_passes
from ..inputs import HARD_KINDS, NAMED, ORPHAN, PICKED, Plan, format_of
from ..model import Suite
from ..report.document import case_line
from ..results import ERROR, NOT_RUN, PASS, CaseResult, RunResult, Runs
from .progress import ProgressLines
from .summary import Terminal, print_case


def expected_runs(plan: Plan, suite: Suite, unknown_counts: bool) -> dict[str, int] | None:
    """How many runs each case of `suite` gets from the plan; None when that is not known
    before reading the traces (a file with several traces, or traces naming their case)."""
    if unknown_counts or (plan.single and format_of(plan.shown, plan.format) == "jsonl"):
        return None
    counts = dict.fromkeys(suite.cases, 0)
    for src in plan.sources:
        if src.how == ORPHAN:
            continue
        if src.how not in (NAMED, PICKED) or len(src.cases) != 1:
            return None
        if format_of(src.rel or plan.shown, plan.format) == "jsonl":
            return None
        if src.cases[0] in counts:
            counts[src.cases[0]] += 1
    return counts


class LiveLog:
    """Watches the runs go by: prints each decided case's line (stdout) in case order, and
    the progress lines (stderr, off a terminal)."""

    def __init__(
        self,
        suite: Suite,
        plan: Plan,
        terminal: Terminal,
        *,
        unknown_counts: bool = False,
        quarantine: dict[str, str] | None = None,
        min_run_pass_rate: Fraction | None = None,
        lines: ProgressLines | None = None,
        pause: Callable[[], None] | None = None,
    ) -> None:
        self.suite, self.plan, self.terminal = suite, plan, terminal
        self.order = list(suite.cases)
        self.expected = None if terminal.quiet else expected_runs(plan, suite, unknown_counts)
        self.quarantine = quarantine or {}
        self.min_run_pass_rate = min_run_pass_rate
        self.runs: dict[str, list[RunResult]] = {}
        self.decided: dict[str, str] = {}  # case id -> its status
        self._rows: dict[str, dict[str, Any]] = {}  # decided, not yet printed
        self.printed = 0  # how many cases (in order) have had their line printed
        self.lines = lines  # off a terminal, the progress lines it goes on printing
        self.pause = pause  # erases the progress bar before a line is printed
        self.done = 0
        self.failed_runs = 0

    # -- the cases -------------------------------------------------------------------------

    def watch(self, runs: Iterable[RunResult]) -> Iterator[RunResult]:
        if self.expected is not None:
            for case_id, count in self.expected.items():
                if count == 0:
                    self._decide(case_id)
            self._print_ready()
        for run in runs:
            self.done += 1
            self.failed_runs += run.status != PASS
            if self.expected is not None and run.case_id in self.expected:
                held = self.runs.setdefault(run.case_id, [])
                held.append(run)
                if len(held) == self.expected[run.case_id]:
                    self._decide(run.case_id)
                    self._print_ready()
            self._progress()
            yield run

    def _decide(self, case_id: str) -> None:
        """The case's line (`case_line`), its result made as `group_results` makes it."""
        case = self.suite.cases[case_id]
        result = CaseResult(case_id, Runs(self.runs.pop(case_id, [])), case.file, case.tags)
        kind = self.plan.missing.get(case_id)
        if kind is not None and (kind in HARD_KINDS or not result.runs):
            result.status_override = ERROR if kind in HARD_KINDS else NOT_RUN
            result.reason_override = self.plan.missing_reason(case_id)
        elif not result.runs:
            return  # not from this plan's files: the end decides
        else:
            result.required_passes, note = required_passes(
                case.fields, len(result.runs), self.min_run_pass_rate
            )
            if note:
                result.notes.append(note)
        row = case_line(result, self.quarantine.get(case_id), self.terminal.verbose)
        self.decided[case_id] = row["status"]
        self._rows[case_id] = row

    def _print_ready(self) -> None:
        rows = self._rows
        while self.printed < len(self.order) and self.order[self.printed] in self.decided:
            row = rows.pop(self.order[self.printed])
            if row["status"] != "pass" or self.terminal.verbose:
                if self.pause is not None:
                    self.pause()
                print_case(row, self.terminal)
                sys.stdout.flush()
            self.printed += 1

    # -- the progress lines ----------------------------------------------------------------

    def _progress(self) -> None:
        if self.lines is not None:
            decided = len(self.decided) if self.expected is not None else None
            self.lines(self.done, self.failed_runs, decided)
