"""`run`, end to end: inputs -> suite -> plan -> evaluation -> report document -> files."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from .loading.cases import case_files
from .loading.suite import LoadResult, display_path, load_suite, standard_specs_dir
from .loading.traces import JSONL_SUFFIXES
from .problems import ERROR, WARNING, ProblemsFound, UsageError
from .reporting import write_reports
from .runner import Plan, evaluate_all, group_results, iter_jsonl, plan_directory
from .summary import build_report, exit_status


@dataclass
class RunOptions:
    cases: Path
    specs: list[Path] | None
    fixtures: Path
    out: Path
    jobs: int = 1
    max_trace_bytes: int = 64 * 1024 * 1024
    quiet: bool = False
    formats: tuple[str, ...] = ("json", "md")


def spec_folders(given: list[Path] | None) -> list[Path]:
    """The standard specs first, then the user's folders (later ones override by id)."""
    folders = [standard_specs_dir()]
    if given is None:
        local = Path("specs")
        candidates = [local] if local.is_dir() else []
    else:
        candidates = list(given)
        for folder in candidates:
            if not folder.is_dir():
                raise UsageError(f"spec folder {folder} does not exist (or is not a folder)")
    seen = {folders[0].resolve()}
    for folder in candidates:
        if folder.resolve() not in seen:
            seen.add(folder.resolve())
            folders.append(folder)
    return folders


def find_case_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise UsageError(
            f"cases folder {path} does not exist: pass --cases with the folder of your case files"
        )
    files = case_files(path)
    if not files:
        raise UsageError(f"no case files (*.yaml, *.yml) in {path}: nothing to evaluate")
    return files


def load_checked(case_paths: list[Path], folders: list[Path]) -> LoadResult:
    """Load the suite, print warnings, and raise ProblemsFound when there is any error."""
    loaded = load_suite(case_paths, folders)
    warnings = [p for p in loaded.problems if p.severity == WARNING]
    errors = [p for p in loaded.problems if p.severity == ERROR]
    for problem in warnings:
        print(problem.format(), file=sys.stderr)
    if errors or loaded.suite is None:
        raise ProblemsFound(errors)
    return loaded


def execute_run(options: RunOptions) -> int:
    folders = spec_folders(options.specs)
    loaded = load_checked(find_case_files(options.cases), folders)
    suite = loaded.suite
    assert suite is not None
    fixtures = options.fixtures
    shown = display_path(fixtures)
    if fixtures.is_file() and fixtures.suffix in JSONL_SUFFIXES:
        plan = Plan([])
        jobs = iter_jsonl(fixtures, shown)
        root = None
    elif fixtures.is_dir():
        plan = plan_directory(suite, fixtures, shown)
        jobs = iter(plan.jobs)
        root = fixtures
    else:
        raise UsageError(
            f"fixtures {fixtures} is neither a folder nor a .jsonl file: pass --fixtures with"
            " the folder of saved traces"
        )
    for warning in plan.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    runs = evaluate_all(suite, jobs, options.jobs, max_bytes=options.max_trace_bytes, root=root)
    cases, unmatched = group_results(suite, runs, plan.unrun)
    inputs = {
        "cases": display_path(options.cases),
        "specs": [display_path(f) if f != folders[0] else "(standard)" for f in folders],
        "fixtures": shown,
    }
    report = build_report(cases, unmatched, inputs)
    written = write_reports(report, options.out, list(options.formats))
    _print_summary(report, written, options.quiet)
    return exit_status(report)


def _print_summary(report: dict, written: list[Path], quiet: bool) -> None:
    s = report["summary"]
    if not quiet:
        for case in report["cases"]:
            if case["status"] != "pass":
                print(f"{case['status'].upper():8} {case['case_id']}: {case['reason']}")
        for trace in report["unmatched_traces"]:
            print(f"{'UNMATCHED':8} {trace['fixture']}: {trace['reason']}")
    print(
        f"{s['total']} cases: {s['passed']} passed, {s['failed']} failed, {s['not_run']} not run,"
        f" {s['errored']} errors (pass rate {s['pass_rate'] * 100:.1f}%)"
    )
    if not quiet:
        print("reports: " + ", ".join(display_path(p) for p in written))
