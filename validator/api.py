"""The library API (see docs/library-api.md): load a suite once, evaluate traces anywhere,
build the report from all their runs.

    from validator import load_suite, evaluate_trace, evaluate_partition, report_from_runs

Nothing here prints or speaks in command-line words: errors are `ProblemsFound` (files
with errors, each problem located) and `UsageError` (a path that does not exist).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .evaluation.compaction import Compactor
from .evaluation.evaluator import Evaluator, evaluate_trace
from .evaluation.grouping import group_results
from .inputs import DEFAULT_PACKS, find_case_files, spec_folders
from .loading.schema import load_schema
from .loading.suite import load_suite_and_problems
from .loading.suite import read_specs as _load_specs
from .model import Suite, default_plan
from .problems import ERROR, ProblemsFound
from .report.document import build_report
from .results import RunResult

__all__ = [
    "Suite",
    "case_schema",
    "evaluate_partition",
    "evaluate_trace",
    "load_suite",
    "report_from_runs",
]


def load_suite(
    cases: str | Path,
    specs: str | Path | list[str | Path] | None = None,
    packs: tuple[str, ...] = DEFAULT_PACKS,
) -> Suite:
    """Validate and compile a suite once; raise ProblemsFound listing every error.

    `cases`: a case file or a folder of them. `specs`: spec folder(s) adding to or
    overriding the standard specs; None: the standard specs only (unlike the command line,
    the working folder's specs/ is not read). `packs`: the standard spec packs to load
    (`()`: none). The suite is plain, picklable data.
    """
    given = [Path(s) for s in ([specs] if isinstance(specs, (str, Path)) else specs or [])]
    loaded = load_suite_and_problems(find_case_files(Path(cases)), spec_folders(given, packs))
    if loaded.suite is None:
        raise ProblemsFound([p for p in loaded.problems if p.severity == ERROR])
    return loaded.suite


def case_schema(specs: list[Path] | None = None) -> dict[str, Any]:
    """The JSON Schema of a case file for the standard specs plus `specs` folders (None: the
    working folder's specs/ when there is one): the core keys, every input the specs
    declare, and as required what a case with no `checks` needs."""
    loaded = _load_specs(spec_folders(specs))
    if loaded.problems and any(p.severity == ERROR for p in loaded.problems):
        raise ProblemsFound([p for p in loaded.problems if p.severity == ERROR])
    schema = loaded.format.full(default_plan(loaded.specs))
    schema.update(
        {k: v for k, v in load_schema("case").items() if k in ("$id", "title", "description")}
    )
    return schema


def evaluate_partition(suite: Suite, traces: Iterable[Any]) -> list[RunResult]:
    """Evaluate a batch of parsed traces: a Dask/Ray partition, a multiprocessing chunk.

    Each item is a trace (a dict, matched to its case by its `caseId`) or a `(name, trace)`
    pair, the name being reported as the run's `fixture`. Returns the runs in order, plain
    picklable data, keeping only what the report shows: the first run of each case and its
    first run that did not pass in full, of the others their status, verdict, failed checks
    and counts (use `evaluate_trace` for every detail of every run). Concatenate partitions
    in order and pass them to `report_from_runs`.
    """
    compact = Compactor()
    evaluator = Evaluator(suite)
    out = []
    for item in traces:
        name, trace = item if isinstance(item, tuple) and len(item) == 2 else (None, item)
        out.append(compact(evaluator.evaluate(trace, fixture=name)))
    return out


def report_from_runs(
    suite: Suite, runs: Iterable[RunResult], inputs: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The report document, as `report.json` holds it (plain JSON data), from runs
    evaluated anywhere.

    `runs` is every run in trace order (partitions concatenated in order): the report is the
    same as the command line's for the same traces in the same order, however they were
    split. A case that no run names is `not_run`; a run naming no case of the suite is listed
    under `unmatched_traces`. Write it with `json.dump`, or render it in any format with
    `validator.report.write_reports(Report.from_dict(document), ...)`.
    """
    compact = Compactor()
    cases, unmatched = group_results(suite, (compact(run) for run in runs))
    return build_report(cases, unmatched, inputs).as_dict()
