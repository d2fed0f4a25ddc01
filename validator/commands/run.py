"""`run`, end to end: inputs -> suite -> traces -> evaluation -> report document -> files."""

from __future__ import annotations

import os
import re
import shlex
import sys
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from fractions import Fraction
from pathlib import Path
from typing import Any, TextIO

from ..display import one_line
from ..evaluation.grouping import group_results
from ..evaluation.runner import evaluate_all
from ..inputs import (
    DEFAULT_PACKS,
    ORPHAN,
    Job,
    Plan,
    display_path,
    find_case_files,
    is_standard,
    plan_fixtures,
    run_order,
    spec_folders,
)
from ..loading.config import Config
from ..loading.quarantine import Quarantine
from ..loading.suite import load_suite
from ..model import Suite, TraceSettings
from ..problems import ERROR, WARNING, ProblemsFound, UsageError, did_you_mean
from ..processes import usable_cores
from ..report import (
    DEFAULT_FORMATS,
    REPORTERS,
    ExtraFile,
    append_step_summary,
    write_reports,
)
from ..report.baseline import Baseline, load_baseline
from ..report.document import Report, build_report
from ..report.gate import exit_decision
from ..report.regression import MetricLimit
from ..report.shard import Shard
from ..results import ERROR as RUN_ERROR
from ..results import RunResult
from ..traces import DEFAULT_MAX_TRACE_BYTES
from . import gating
from .extras import collect_extras
from .locate import FileSources
from .sharding import ShardFile, shard_baseline, shard_reports_unmatched, shard_suite
from .strays import find_misnamed, mark_misnamed


@dataclass
class RunOptions:
    cases: Path
    specs: list[Path] | None
    fixtures: Path
    out: Path
    jobs: int | None = 1  # processes; None: the usable cores (see evaluate_all)
    max_trace_bytes: int = DEFAULT_MAX_TRACE_BYTES
    quiet: bool = False
    formats: tuple[str, ...] = DEFAULT_FORMATS
    baseline: Path | None = None
    fail_on: str = "any"
    fail_vacuous: bool = False  # --fail-on ...,vacuous
    fail_severity: str = "error"  # --fail-severity
    min_pass_rate: Fraction | None = None
    case_patterns: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    follow_symlinks: bool = False
    config: Config | None = None  # the suite config (its `checks` are the default checks)
    packs: tuple[str, ...] = DEFAULT_PACKS
    traces: TraceSettings = field(default_factory=TraceSettings)
    ks: tuple[int, ...] | None = None  # --k
    min_run_pass_rate: Fraction | None = None
    quarantine: Path | None = None
    max_regression: tuple[MetricLimit, ...] = ()
    annotations: bool | None = None  # None: when GITHUB_ACTIONS=true
    shard: Shard | None = None  # --shard I/N: this shard's cases only, and a shard file
    # run --capture: the runs whose capture failed, (case id, fixture, why): each is a run
    # in error, in place of any older trace left at its fixture.
    capture_failures: tuple[tuple[str, str, str], ...] = ()
    command: str | None = None  # the command line, as the reports show it (command_line)


def load_checked(
    case_paths: list[Path],
    folders: list[Path],
    config: Config | None = None,
    processes: int | None = 1,
) -> Suite:
    """The suite; warnings are printed, and any error raises ProblemsFound. `processes`:
    how many read the case files (None: the usable cores), as many as will evaluate."""
    count = min(processes or usable_cores(), usable_cores())
    loaded = load_suite(case_paths, folders, config, count)
    for problem in loaded.problems:
        if problem.severity == WARNING:
            print(problem.format(), file=sys.stderr)
    errors = [p for p in loaded.problems if p.severity == ERROR]
    if errors or loaded.suite is None:
        raise ProblemsFound(errors)
    return loaded.suite


def read_baseline(path: Path, keep: Selection) -> Baseline:
    """--baseline: a report.json, or a folder holding one. Raises UsageError."""
    if path.is_dir():
        path = path / "report.json"
    shown = display_path(path)
    document = load_baseline(path, shown)
    return Baseline(document, shown, keep.keeps if keep else None)


@dataclass(frozen=True)
class Selection:
    """--case patterns (fnmatch globs) and --tag names. Within a flag any entry may match;
    with both flags a case must match a --case pattern and carry a --tag."""

    patterns: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.patterns or self.tags)

    def matches(self, case_id: str, tags: Iterable[str]) -> bool:
        if self.patterns and not any(fnmatchcase(case_id, p) for p in self.patterns):
            return False
        return not self.tags or bool(set(self.tags) & set(tags))

    def keeps(self, case: dict[str, Any]) -> bool:
        """For a case of a baseline report."""
        tags = case.get("tags")
        tags = tags if isinstance(tags, list) else []
        return self.matches(case["case_id"], [t for t in tags if isinstance(t, str)])

    def as_dict(self) -> dict[str, list[str]]:
        return {"cases": list(self.patterns), "tags": list(self.tags)}


def _known(names: list[str], limit: int = 8) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def select_cases(suite: Suite, selection: Selection) -> Suite:
    """The suite restricted to the selected cases. Raises UsageError naming any --case or
    --tag that matches nothing (with the closest id or tag), or a selection left empty."""
    if not selection:
        return suite
    _each_matches(suite, selection)
    chosen = {c for c, case in suite.cases.items() if selection.matches(c, case.tags)}
    if not chosen:
        parts = (
            " or ".join(f"--case '{p}'" for p in selection.patterns),
            " or ".join(f"--tag '{t}'" for t in selection.tags),
        )
        asked = " and ".join(part for part in parts if part)
        raise UsageError(f"no case matches {asked}: each matches some case, but none matches all")
    return suite.restricted(chosen)


def _each_matches(suite: Suite, selection: Selection) -> None:
    ids = list(suite.cases)
    for pattern in selection.patterns:
        if not any(fnmatchcase(case_id, pattern) for case_id in ids):
            hint = did_you_mean(pattern, ids) or f"; case ids: {_known(ids)}"
            raise UsageError(f"--case '{pattern}' matches no case{hint}")
    all_tags = sorted({t for case in suite.cases.values() for t in case.tags})
    for tag in selection.tags:
        if tag not in all_tags:
            hint = did_you_mean(tag, all_tags) or (
                f"; tags in use: {_known(all_tags)}" if all_tags else "; no case has tags"
            )
            raise UsageError(f"--tag '{tag}' matches no case{hint}")


PROGRESS_MIN_TRACES = 200


class ProgressBar:
    """`evaluating [#####-----] 412/1000` on one terminal line, redrawn at most 10 times a
    second and erased when done."""

    def __init__(
        self,
        total: int,
        stream: TextIO,
        width: int = 30,
        label: str = "evaluating",
        unit: str = "traces",
    ) -> None:
        self.label = label
        self.unit = unit
        self.total = max(total, 1)
        self.stream = stream
        self.width = width
        self.last = 0.0
        self.shown = 0

    def __call__(self, done: int) -> None:
        now = time.monotonic()
        if done < self.total and now - self.last < 0.1:
            return
        self.last = now
        fraction = min(done / self.total, 1.0)
        filled = int(self.width * fraction)
        line = (
            f"{self.label} [{'#' * filled}{'-' * (self.width - filled)}]"
            f" {done}/{self.total} {self.unit} {fraction * 100:3.0f}%"
        )
        self.stream.write("\r" + line)
        self.stream.flush()
        self.shown = len(line)

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * self.shown + "\r")
            self.stream.flush()


def _interactive(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed, or not a real stream
        return False


def make_progress(
    total: int | None, quiet: bool, stream: TextIO | None = None
) -> ProgressBar | None:
    """A progress bar when the stream (stderr) is a terminal and the run has over ~200
    traces; None otherwise, so logs and pipes stay clean."""
    stream = stream or sys.stderr
    if quiet or total is None or total <= PROGRESS_MIN_TRACES or not _interactive(stream):
        return None
    return ProgressBar(total, stream)


@dataclass
class Traces:
    """Where a run's traces come from: the plan of the fixtures folder (or file)."""

    jobs: Iterator[Job]
    shown: str
    plan: Plan
    root: Path | None = None  # the folder no trace may be read outside of
    total: int | None = None  # for the progress bar; None when unknown


def find_traces(
    options: RunOptions, suite: Suite, full: Suite, elsewhere: Collection[str] = ()
) -> Traces:
    """The plan of the fixtures: every file a trace of some case, or unused (with why)."""
    fixtures = options.fixtures
    shown = display_path(fixtures)
    if not (fixtures.is_dir() or fixtures.is_file()):
        what = "does not exist" if not fixtures.exists() else "is not a regular file or folder"
        raise UsageError(
            f"fixtures {fixtures} {what}",
            "pass --fixtures with the folder (or file) of saved traces",
        )
    settings = options.traces
    plan = plan_fixtures(
        list(suite.cases),
        fixtures,
        shown,
        set(full.cases),
        options.follow_symlinks,
        patterns=settings.pattern,
        by_name=settings.case_id is None,
        picks=picks_of(full),
        format=settings.format,
        elsewhere=elsewhere,
    )
    # A single file named on purpose is read wherever it is; a folder's traces stay in it.
    plan.max_bytes = options.max_trace_bytes
    root = None if options.follow_symlinks or plan.single else fixtures
    warn_strays(plan, full, root, options.max_trace_bytes)
    # Counting JSON Lines lines costs a read of the file: only when a bar could be shown.
    wanted = _interactive(sys.stderr) and not options.quiet
    return Traces(plan.jobs(), shown, plan, root, plan.job_count if wanted else None)


def warn_strays(plan: Plan, full: Suite, root: Path | None, max_bytes: int) -> None:
    """A warning on stderr for each trace file that matches no case; one whose case id field
    names a case is misnamed, which its reason (report.json's unmatched_traces) and the
    case's not-run reason say too."""
    mark_misnamed(plan, find_misnamed(plan, full.fields, set(full.cases), root, max_bytes))
    for src in plan.sources:
        if src.how == ORPHAN:
            print(f"warning: {one_line(plan.label(src.rel))}: {one_line(src.reason or '')}",
                  file=sys.stderr)  # fmt: skip


def picks_of(suite: Suite) -> dict[str, str]:
    """Each case's `fixture:` key, for the cases that have one."""
    return {
        case_id: case.fields["fixture"]
        for case_id, case in suite.cases.items()
        if isinstance(case.fields.get("fixture"), str)
    }


class LeftOut:
    """Watches the runs go by for traces of cases a --case/--tag selection left out: a file
    all of whose traces are theirs was not used, and is listed as such."""

    def __init__(self, left_out: set[str]) -> None:
        self.left_out = left_out
        self.used: set[str] = set()
        self.skipped: dict[str, list[str]] = {}  # file -> the left-out cases it has traces of

    def watch(self, runs: Iterable[RunResult]) -> Iterator[RunResult]:
        if not self.left_out:  # no selection: nothing to watch for, nothing to remember
            yield from runs
            return
        for run in runs:
            source = run.source or run.fixture or ""
            if run.case_id in self.left_out:
                cases = self.skipped.setdefault(source, [])
                if run.case_id not in cases:
                    cases.append(run.case_id)
            else:
                self.used.add(source)
            yield run

    def unused(self) -> list[tuple[str, str]]:
        return [
            (file, f"its traces are of cases not selected (--case/--tag): {_known(cases)}")
            for file, cases in self.skipped.items()
            if file not in self.used
        ]


def no_run_reason(options: RunOptions, traces: Traces) -> str:
    """Why a case got no run when its plan did not say already."""
    if options.traces.case_id is not None:
        return (
            f"no trace under {traces.shown} has this case's id (traces.case_id:"
            f" {options.traces.case_id})"
        )
    if traces.plan.single:
        return f"no trace in {traces.shown} names this case"
    return "no trace was evaluated for this case"


def with_capture_failures(
    runs: Iterable[RunResult], failures: tuple[tuple[str, str, str], ...]
) -> Iterator[RunResult]:
    """The runs, each failed capture a run in error (not a silent not_run), replacing an
    older trace left at its place (--overwrite keeps the old file when a capture fails)."""
    failed = {fixture for _, fixture, _ in failures}
    for run in runs:
        if (run.source or run.fixture) not in failed:
            yield run
    for case_id, fixture, reason in failures:
        yield RunResult(
            case_id, RUN_ERROR, error_reason=f"capture failed: {reason}", fixture=fixture
        )


def _baseline(
    options: RunOptions, selection: Selection, quarantine: Quarantine | None
) -> Baseline | None:
    """--baseline read, with the regression limits and the quarantined cases it judges by."""
    if not options.baseline:
        return None
    baseline = read_baseline(options.baseline, selection)
    held = frozenset(quarantine.entries) if quarantine else frozenset()
    return replace(baseline, limits=options.max_regression, quarantined=held)


def execute_run(options: RunOptions) -> int:
    selection = Selection(tuple(options.case_patterns), tuple(options.tags))
    quarantine = gating.read_quarantine(options.quarantine) if options.quarantine else None
    baseline = _baseline(options, selection, quarantine)
    folders = spec_folders(options.specs, options.packs)
    # Keep the suite only: the YAML documents (positions of every node) are not needed once
    # the files are known to be valid, and would otherwise live for the whole run.
    full = load_checked(find_case_files(options.cases), folders, options.config, options.jobs)
    full.fail_severity = options.fail_severity
    gating.warn_unknown(quarantine, full.cases)
    chosen = select_cases(full, selection)
    suite = shard_suite(chosen, options.shard)  # `chosen` without --shard
    elsewhere = set(chosen.cases) - set(suite.cases)  # the other shards' cases
    traces = find_traces(options, suite, full, elsewhere)
    left_out = LeftOut(set(full.cases) - set(chosen.cases))
    bar = make_progress(traces.total, options.quiet)
    try:
        runs = evaluate_all(
            suite,
            traces.jobs,
            options.jobs,
            max_bytes=options.max_trace_bytes,
            root=traces.root,
            progress=bar,
            settings=options.traces,
        )
        if options.capture_failures:
            runs = with_capture_failures(runs, options.capture_failures)
        cases, unmatched = group_results(
            suite,
            left_out.watch(runs),
            traces.plan,
            left_out.left_out | elsewhere,
            no_run_reason(options, traces),
            options.min_run_pass_rate,
        )
    finally:
        if bar is not None:
            bar.close()
    if not shard_reports_unmatched(options.shard):
        unmatched = []
    gating.warn_thresholds(cases)
    inputs = _inputs(options, folders, traces.shown, selection, baseline)
    unused = sorted(traces.plan.unused + left_out.unused(), key=lambda u: run_order(u[0]))
    own = shard_baseline(baseline, options.shard)
    report = build_report(
        cases,
        unmatched,
        {**inputs, "shard": options.shard.text} if options.shard else inputs,
        own.comparison if own else None,
        unused,
        ks=options.ks,
        quarantine=quarantine.reasons if quarantine else None,
    )
    report.sources = FileSources(suite, options.max_trace_bytes)
    shard = ShardFile.of(options, chosen, inputs, quarantine, baseline, (cases, unmatched, unused))
    extra = [shard.extra(report)] if shard is not None else []
    if "html" in options.formats:  # the page shows answers and tool calls: read them again
        again = traces.plan.jobs() if traces.plan else iter([])
        report.extras = collect_extras(suite, cases, again, traces.root, options.max_trace_bytes)
    return _write_and_judge(report, options, extra)


def _write_and_judge(report: Report, options: RunOptions, extra: list[ExtraFile]) -> int:
    """Write the report set (atomically), say what it holds, and apply the gates."""
    # As many processes write the formats as evaluated the traces.
    processes = min(options.jobs or usable_cores(), usable_cores())
    written = write_reports(report, options.out, list(options.formats), extra, processes)
    _step_summary(report, written)
    allow = options.traces.allow_unmatched
    code, reasons = exit_decision(
        report, options.fail_on, options.min_pass_rate, allow, options.fail_vacuous
    )
    _print_summary(report, written, options.quiet, allow)
    gating.print_annotations(report, options.annotations)
    for reason in reasons:
        print(f"exit 1: {reason}")
    return code


def _inputs(
    options: RunOptions,
    folders: list[Path],
    shown: str,
    selection: Selection,
    baseline: Baseline | None,
) -> dict[str, Any]:
    inputs: dict[str, Any] = {
        "cases": display_path(options.cases),
        # The shared standard specs and their packs are one entry; `packs` names the packs.
        "specs": ["(standard)"] + [display_path(f) for f in folders if not is_standard(f)],
        "fixtures": shown,
        "packs": list(options.packs),
    }
    if options.config is not None:
        inputs["config"] = options.config.file
    changed = _changed_settings(options.traces)
    if changed:
        inputs["traces"] = changed
    if selection:
        inputs["selection"] = selection.as_dict()
    if baseline is not None:
        inputs["baseline"] = baseline.source
    if options.quarantine is not None:
        inputs["quarantine"] = display_path(options.quarantine)
    if options.command is not None:
        inputs["command"] = options.command
    return inputs


# Options that never change what a report says, so that reports stay byte-identical across
# them: where and in which formats it is written, how many processes, the terminal output,
# and which shard ran (a merged report shows the command of the unsharded run).
OUTPUT_OPTIONS = (
    "--out",
    "--format",
    "--jobs",
    "--quiet",
    "-q",
    "--shard",
    "--annotations",
    "--no-annotations",
)
_FLAGS = ("--quiet", "-q", "--annotations", "--no-annotations")  # the ones that take no value


def command_line(
    argv: Sequence[str], program: str = "python -m validator", options: Sequence[str] = ()
) -> str:
    """The command as the reports show it: the arguments as given (it is the user's own
    command, so nothing is hidden) less OUTPUT_OPTIONS and their values. `options`: every
    long option of the command, so that an abbreviation argparse accepts (`--jo 4`) is
    recognized as the option it stands for."""
    shown: list[str] = []
    skip = False
    for token in argv:
        if skip:
            skip = False
            continue
        option = _option_of(token.split("=", 1)[0], options)
        if option in OUTPUT_OPTIONS:
            skip = "=" not in token and option not in _FLAGS
            continue
        shown.append(token)
    return one_line(" ".join([program, shlex.join(shown)]) if shown else program)


def _option_of(name: str, options: Sequence[str]) -> str | None:
    """The option `name` stands for: itself, or the one long option it abbreviates."""
    if name in OUTPUT_OPTIONS or not name.startswith("--") or len(name) < 3:
        return name
    matches = [o for o in options if o.startswith(name)]
    return matches[0] if len(matches) == 1 else name


_GENERATED = re.compile(rb'"generated_at"\s*:\s*"([^"\\]{1,40})"')


def no_report_line(out: Path) -> str:
    """The last line of a run that could not be done: no report was written, and the
    reports already in `out` (if any) are an earlier run's, with when they were made (the
    `generated_at` of its report.json, else the files' modification time), so nobody reads
    them as this run's."""
    shown = one_line(display_path(out))
    try:
        found = [out / r.filename for r in REPORTERS.values() if (out / r.filename).is_file()]
    except OSError:
        found = []
    if not found:
        return f"no report was written (and the folder {shown} holds none from an earlier run)"
    names = ", ".join(p.name for p in found)
    return (
        f"no report was written; {shown} still holds the reports of an earlier run"
        f" ({names}, {_made(found)}), not of this one"
    )


def _made(files: list[Path]) -> str:
    """When the reports were made: report.json's generated_at, read from its first bytes
    (the head comes first), else the newest modification time."""
    for path in files:
        if path.name == REPORTERS["json"].filename:
            try:
                with path.open("rb") as handle:
                    match = _GENERATED.search(handle.read(65536))
            except OSError:
                match = None
            if match is not None:
                return f"generated {one_line(match.group(1).decode('utf-8', 'replace'))}"
    try:
        newest = max(p.stat().st_mtime for p in files)
    except (OSError, ValueError):
        return "of unknown time"
    return f"last modified {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(newest))}"


def _changed_settings(settings: TraceSettings) -> dict[str, Any]:
    """The `traces:` settings that differ from the defaults, as the config writes them."""
    default = TraceSettings()
    out: dict[str, Any] = {}
    for name in ("pattern", "format", "split", "case_id", "allow_unmatched"):
        value = getattr(settings, name)
        if value != getattr(default, name):
            out[name] = list(value) if isinstance(value, tuple) else value
    return out


def _step_summary(report: Report, written: list[Path]) -> None:
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY", "").strip()
    if step_summary and not append_step_summary(report, Path(step_summary), written):
        print(
            f"warning: cannot append the report to GITHUB_STEP_SUMMARY ({step_summary})",
            file=sys.stderr,
        )


def _print_comparison(report: Report) -> None:
    comp = report.head.get("comparison")
    if not comp:
        return
    change = comp["delta"]["pass_rate"]
    print(
        f"compared with {one_line(comp['baseline'])}: {len(comp['regressions'])} regression(s),"
        f" {len(comp['fixes'])} fix(es), {len(comp['new_cases'])} new,"
        f" {len(comp['removed_cases'])} removed; pass rate {change * 100:+.1f} points"
    )
    for item in comp["regressions"]:
        print(f"{'REGRESSED':9} {one_line(item['case_id'])}: {item['before']} -> {item['after']}")


def _print_summary(
    report: Report, written: list[Path], quiet: bool, allow_unmatched: bool = False
) -> None:
    s = report.summary
    unused = report.head.get("unused_files") or []
    if not quiet:
        for case in report.rows:
            if case["status"] != "pass":
                held = f" [quarantined: {case['quarantined']}]" if "quarantined" in case else ""
                line = f"{case['case_id']}: {case['reason']}{held}"
                print(f"{case['status'].upper():8} {one_line(line)}")
        for trace in report.unmatched:
            print(f"{'UNMATCHED':8} {one_line(trace['fixture'])}: {one_line(trace['reason'])}")
        for item in unused:
            print(f"{'UNUSED':8} {one_line(item['file'])}: {one_line(item['reason'])}")
    line = (
        f"{s['total']} cases: {s['passed']} passed, {s['failed']} failed, {s['not_run']} not run,"
        f" {s['errored']} errors (pass rate {s['pass_rate'] * 100:.1f}%)"
    )
    if report.unmatched:
        allowed = " (allowed: --allow-unmatched)" if allow_unmatched else ""
        line += f"; {len(report.unmatched)} trace(s) match no case{allowed}"
    if unused:
        line += f"; {_unused_line(unused)}"
    print(line)
    if not quiet:
        _print_comparison(report)
        print("reports: " + ", ".join(one_line(display_path(p)) for p in written))


def _unused_line(unused: list[dict[str, str]], limit: int = 5) -> str:
    """`2 file(s) not used: a (why), b (why)`, the first few; the report lists them all."""
    shown = ", ".join(one_line(f"{u['file']} ({u['reason']})") for u in unused[:limit])
    more = (
        f" and {len(unused) - limit} more (see unused_files in report.json)"
        if len(unused) > limit
        else ""
    )
    return f"{len(unused)} file(s) not used: {shown}{more}"
