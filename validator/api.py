"""The library API behind `validator.load_suite` (see README, "Library API")."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .app import find_case_files, spec_folders
from .loading.suite import load_suite as _load_suite
from .outcomes import NOT_RUN, RunResult
from .problems import ERROR, ProblemsFound
from .runner import _Compactor, group_results
from .suite import Suite
from .summary import build_report


def load_suite(cases: str | Path, specs: str | Path | list[str | Path] | None = None) -> Suite:
    """Validate and compile a suite once; raise ProblemsFound listing every error.

    `specs`: spec folder(s) adding to or overriding the standard specs; None: the standard
    specs only (unlike the command line, the working folder's specs/ is not read).
    """
    # A library call reads only the spec folders it is given: no implicit ./specs.
    given = [Path(s) for s in ([specs] if isinstance(specs, (str, Path)) else specs or [])]
    loaded = _load_suite(find_case_files(Path(cases)), spec_folders(given))
    if loaded.suite is None:
        raise ProblemsFound([p for p in loaded.problems if p.severity == ERROR])
    return loaded.suite


def evaluate_partition(suite: Suite, traces: Iterable[Any]) -> list[RunResult]:
    """Evaluate a batch of parsed traces: a Dask/Ray partition, a multiprocessing chunk.

    Each item is a trace (a dict, matched to its case by its `caseId`) or a `(name, trace)`
    pair, the name being reported as the run's `fixture`. Returns the runs in order, plain
    picklable data, keeping only what the report shows: the first run of each case and its
    first run that did not pass in full, of the others their status, verdict, failed checks
    and counts (use `suite.evaluate` for every detail of every run). Concatenate partitions
    in order and pass them to `report_from_runs`.
    """
    compact = _Compactor()
    out = []
    for item in traces:
        name, trace = item if isinstance(item, tuple) and len(item) == 2 else (None, item)
        out.append(compact(suite.evaluate(trace, fixture=name)))
    return out


def report_from_runs(
    suite: Suite, runs: Iterable[RunResult], inputs: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The report document, as `report.json` holds it, from runs evaluated anywhere.

    `runs` is every run in trace order (partitions concatenated in order): the report is the
    same as the command line's for the same traces in the same order, however they were
    split. A case that no run names is `not_run`; a run naming no case of the suite is listed
    under `unmatched_traces`. Write it with `validator.reporting.write_reports` or
    `json.dump`.
    """
    compact = _Compactor()
    kept = [compact(run) for run in runs]
    named = {run.case_id for run in kept}
    unrun = {
        case_id: (NOT_RUN, "no trace was evaluated for this case")
        for case_id in suite.cases
        if case_id not in named
    }
    cases, unmatched = group_results(suite, kept, unrun)
    return build_report(cases, unmatched, inputs)
