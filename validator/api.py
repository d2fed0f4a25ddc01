"""The library API (see docs/library-api.md): load a suite once, evaluate traces anywhere,
build the report from all their runs.

    from validator import load_suite, evaluate_trace, evaluate_partition, report_from_runs
    from validator import write_reports

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
from .problems import ERROR, ProblemsFound, UsageError
from .report import REPORTERS
from .report import write_reports as _write_report_set
from .report.document import Report, build_report
from .report.timing import Timing, reproducible
from .results import RunResult

__all__ = [
    "Suite",
    "case_schema",
    "evaluate_partition",
    "evaluate_trace",
    "load_suite",
    "report_from_runs",
    "write_reports",
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


class ReportDocument(dict[str, Any]):
    """What `report_from_runs` returns: report.json's document, a plain dict (json.dump it,
    compare it, pickle it), that also keeps the report it was made from, so that
    `write_reports` can write every format with what a dict alone does not hold: where each
    failed check's input is in the case files (SARIF) and how long each trace took to check
    (JUnit)."""

    report: Report | None = None


def report_from_runs(
    suite: Suite, runs: Iterable[RunResult], inputs: dict[str, Any] | None = None
) -> ReportDocument:
    """The report document, as `report.json` holds it (plain JSON data), from runs
    evaluated anywhere.

    `runs` is every run in trace order (partitions concatenated in order): the report is the
    same as the command line's for the same traces in the same order, however they were
    split. A case that no run names is `not_run`; a run naming no case of the suite is listed
    under `unmatched_traces`. Write it with `json.dump`, or in any format with
    `write_reports(document, "reports", ["json", "md", "junit", "sarif", "html"])`.
    """
    from .commands.locate import FileSources

    compact = Compactor()
    timing = None if reproducible() else Timing()
    watched = timing.watch(runs) if timing is not None else runs
    cases, unmatched = group_results(suite, (compact(run) for run in watched))
    report = build_report(cases, unmatched, inputs)
    if timing is not None:
        timing.total = sum(timing.runs.values())  # the checking, wherever it ran
    report.timing = timing
    report.sources = FileSources(suite)
    document = ReportDocument(report.as_dict())
    document.report = report
    return document


def write_reports(
    document: dict[str, Any] | Report,
    out_dir: str | Path,
    formats: Iterable[str] = ("json", "md"),
) -> list[Path]:
    """Write the report set: `formats` among json, md, junit, html, sarif (REPORTERS), into
    `out_dir`, all or none (atomically). `document`: what `report_from_runs` returns (every
    format with all it can say), or any report.json document read back (`json.load`: SARIF
    then places findings at the trace files only, and JUnit has no times). Returns the paths
    written; raises UsageError for an unknown format or a folder that cannot be written."""
    wanted = list(dict.fromkeys(formats))
    unknown = [name for name in wanted if name not in REPORTERS]
    if unknown:
        raise UsageError(
            f"unknown report format {unknown[0]!r}", f"use some of: {', '.join(REPORTERS)}"
        )
    if isinstance(document, Report):
        report = document
    else:
        kept = getattr(document, "report", None)
        report = kept if isinstance(kept, Report) else Report.from_dict(dict(document))
    return _write_report_set(report, Path(out_dir), wanted)
