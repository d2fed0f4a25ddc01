"""`run`, end to end: inputs -> suite -> traces -> evaluation -> report document -> files;
its flags (`build_parser`) and its entry from the command line (`main`). One concept, just
over 600 lines: each step reads the same RunOptions, and what each step does lives in its own
module (fused.py reads the cases and evaluates their traces in one parallel phase, live.py
prints while it evaluates, summary.py after, sharding.py the shard file)."""

from __future__ import annotations

import argparse
import gc
import shlex
import sys
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import field, replace
from pathlib import Path
from typing import Any

from ..dataclass import dataclass
from ..display import one_line
from ..evaluation.grouping import group_results
from ..evaluation.runner import DEFAULT_CHUNK, evaluate_all
from ..evaluation.tracefile import reads_whole_files
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
from ..loading.suite import load_suite_and_problems
from ..model import Suite, TraceSettings
from ..problems import ProblemsFound, UsageError
from ..processes import usable_cores
from ..report import (
    DEFAULT_FORMATS,
    EXTRAS,
    REPORTERS,
    TIMES,
    ExtraFile,
    check_out_dir,
    needed,
    write_reports,
)
from ..report.baseline import Baseline, load_baseline
from ..report.document import Report, RowFields, build_report, source_date_note
from ..report.gate import Gate, exit_decision
from ..report.history import DEFAULT_DEPTH, History, load_history
from ..report.shard import Shard
from ..report.timing import Timing, reproducible
from ..results import ERROR as RUN_ERROR
from ..results import RunResult
from ..traces import DEFAULT_MAX_TRACE_BYTES
from . import ends_after_command, gating, keep_to_exit, options
from .extras import collect_extras
from .fused import Fused, PrePlan, checked, fused_phase, rest_of
from .fused import Options as FusedOptions
from .layout import SuiteFlags, config_errors, read_config, resolve
from .live import LiveLog
from .locate import FileSources
from .progress import Progress, ProgressBar, ProgressLines, make_progress
from .selection import Selection, known, select_cases
from .sharding import ShardFile, shard_baseline, shard_reports_unmatched, shard_suite
from .strays import find_misnamed, mark_misnamed
from .summary import Terminal, print_summary, step_summary, terminal_of


@dataclass
class RunOptions:
    """Everything `run` was asked for, read from the flags and the config: the one typed
    home of the run's options (`explain` makes one too)."""

    cases: Path
    specs: list[Path] | None
    fixtures: Path
    out: Path
    jobs: int | None = 1  # processes; None: the usable cores (see evaluate_all)
    max_trace_bytes: int = DEFAULT_MAX_TRACE_BYTES
    terminal: Terminal = field(default_factory=Terminal)  # -q, -v, --color
    formats: tuple[str, ...] = DEFAULT_FORMATS
    baseline: Path | None = None
    # Every option that decides the exit code (its allow_unmatched is the traces settings').
    gate: Gate = field(default_factory=Gate)
    case_patterns: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    follow_symlinks: bool = False
    config: Config | None = None  # the suite config (its `checks` are the default checks)
    packs: tuple[str, ...] = DEFAULT_PACKS
    traces: TraceSettings = field(default_factory=TraceSettings)
    ks: tuple[int, ...] | None = None  # --k
    annotations: bool | None = None  # None: when GITHUB_ACTIONS=true
    shard: Shard | None = None  # --shard I/N: this shard's cases only, and a shard file
    # run --capture: the runs whose capture failed, (case id, fixture, why): each is a run
    # in error, in place of any older trace left at its fixture.
    capture_failures: tuple[tuple[str, str, str], ...] = ()
    command: str | None = None  # the command line, as the reports show it (command_line)
    sarif_root: Path | None = None  # --sarif-root; None: the repository root
    sarif_docs_url: str | None = None  # --sarif-docs-url
    step_summary: bool = True  # --no-step-summary: not appended to GITHUB_STEP_SUMMARY
    history: Path | None = None  # --history DIR: earlier report.json files
    history_depth: int = DEFAULT_DEPTH  # --history-depth N


def load_checked(
    case_paths: list[Path],
    folders: list[Path],
    config: Config | None = None,
    processes: int | None = 1,
) -> Suite:
    """The suite; warnings are printed, and any error raises ProblemsFound. `processes`:
    how many read the case files (None: the usable cores), as many as will evaluate."""
    count = min(processes or usable_cores(), usable_cores())
    return checked(load_suite_and_problems(case_paths, folders, config, count))


def read_baseline(path: Path, keep: Selection) -> Baseline:
    """--baseline: a report.json, or a folder holding one. Raises UsageError."""
    if path.is_dir():
        path = path / "report.json"
    shown = display_path(path)
    document = load_baseline(path, shown)
    return Baseline(document, shown, keep.keeps if keep else None)


@dataclass
class Traces:
    """Where a run's traces come from: the plan of the fixtures folder (or file)."""

    jobs: Iterator[Job]
    shown: str
    plan: Plan
    root: Path | None = None  # the folder no trace may be read outside of
    total: int | None = None  # for the progress bar; None when unknown


def find_traces(
    options: RunOptions,
    suite: Suite,
    full: Suite,
    elsewhere: Collection[str] = (),
    listed: PrePlan | None = None,
) -> Traces:
    """The plan of the fixtures: every file a trace of some case, or unused (with why).
    `listed`: that very plan and its jobs, made already (see `listing`): the folder is not
    walked again, nor its jobs made again."""
    fixtures = options.fixtures
    shown = display_path(fixtures)
    if not (fixtures.is_dir() or fixtures.is_file()):
        what = "does not exist" if not fixtures.exists() else "is not a regular file or folder"
        raise UsageError(
            f"fixtures {fixtures} {what}",
            "pass --fixtures with the folder (or file) of saved traces",
        )
    settings = options.traces
    if listed is not None:
        plan = listed.plan
    else:
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
            group=settings.group,
            whole_files=reads_whole_files(settings),
            elsewhere=elsewhere,
            ignore=settings.ignore,
        )
    # A single file named on purpose is read wherever it is; a folder's traces stay in it.
    plan.max_bytes = options.max_trace_bytes
    root = None if options.follow_symlinks or plan.single else fixtures
    warn_strays(plan, full, root, options.max_trace_bytes)
    # Counting JSON Lines lines costs a read of the file: only when progress is shown (a bar
    # on a terminal, a line every tenth of the traces off one), so never with -q.
    wanted = not options.terminal.quiet
    jobs = iter(listed.made) if listed is not None else plan.jobs()
    return Traces(jobs, shown, plan, root, plan.job_count if wanted else None)


def listing(fused: Fused | None, suite: Suite) -> PrePlan | None:
    """The fused phase's listing of the fixtures folder when it is the plan `find_traces`
    would make: listed for exactly the suite's case ids, none of which picks files by its
    `fixture:` key. (The other inputs of the plan are the same whenever the phase runs: the
    whole suite, no shard, traces named by their files, the same patterns and format.)"""
    if fused is None or fused.listing is None:
        return None
    names, full = fused.listing.names, fused.suite
    if not names == tuple(suite.cases) == tuple(full.cases) or picks_of(full):
        return None
    return fused.listing


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
            (file, f"its traces are of cases not selected (--case/--tag): {known(cases)}")
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
    return replace(baseline, limits=options.gate.max_regression, quarantined=held)


def read_history(folder: Path, depth: int, selection: Selection | None) -> History:
    """--history DIR read (its warnings said on stderr); the run's report gets its section.
    Raises UsageError when DIR is not a folder."""
    history = load_history(
        folder, display_path(folder), depth, selection.keeps if selection else None
    )
    for line in history.warnings():
        print(one_line(line), file=sys.stderr)
    return history


def _live_log(
    options: RunOptions,
    suite: Suite,
    traces: Traces,
    quarantine: Quarantine | None,
    bar: Progress | None,
    fused: bool,
) -> LiveLog:
    """What the run prints while it evaluates (see commands/live.py). After a fused phase
    (`fused`) its runs come all at once: no case is printed early then. That phase showed
    the progress of the traces it evaluated (its `bar`, or lines off a terminal); lines go
    on for those evaluated after it (a case with many traces, a case whose files the plan
    changed), against the run's whole total."""
    if fused and bar is not None:
        bar.retotal(traces.total)
    return LiveLog(
        suite,
        traces.plan,
        options.terminal,
        unknown_counts=fused or options.traces.split is not None or bool(options.capture_failures),
        quarantine=quarantine.reasons if quarantine else None,
        min_run_pass_rate=options.gate.min_run_pass_rate,
        lines=bar if isinstance(bar, ProgressLines) else None,
        pause=bar.close if bar is not None else None,
    )


def _watched(
    runs: Iterable[RunResult], options: RunOptions, timing: Timing | None, live: LiveLog
) -> Iterator[RunResult]:
    """The runs with the failed captures in, each one timed and shown as it goes by."""
    if options.capture_failures:
        runs = with_capture_failures(runs, options.capture_failures)
    if timing is not None:
        runs = timing.watch(runs)
    return _frozen_as_kept(live.watch(runs))


def _frozen_as_kept(runs: Iterable[RunResult]) -> Iterator[RunResult]:
    """The runs, unchanged. When the process ends right after the command, what has been
    made is frozen every chunk of runs (gc.freeze, a constant-time move): the runs are kept
    to the report, so the collector's young passes, which would walk each of them once more
    (two passes of ~9 ms over 2,000 cases), find only what the chunk made. The few cycles
    a chunk leaves (~15 objects) are left to the end of the process."""
    if not ends_after_command():
        yield from runs
        return
    for count, run in enumerate(runs, 1):
        if count % DEFAULT_CHUNK == 0:
            gc.freeze()
        yield run


def _timing(formats: Sequence[str]) -> Timing | None:
    """The run's timing, when a format shows it (JUnit) and the reports are not pinned: each
    run's time is held until the report is written, ~200 bytes a run."""
    return Timing() if needed(formats, TIMES) and not reproducible() else None


def execute_run(options: RunOptions) -> int:
    timing = _timing(options.formats)  # from the start: the run's whole time
    check_out_dir(options.out, options.fixtures)
    # The traces settings (the config's traces.allow_unmatched, or the flag) decide it.
    gate = replace(options.gate, allow_unmatched=bool(options.traces.allow_unmatched))
    options = replace(options, gate=gate)
    selection = Selection(tuple(options.case_patterns), tuple(options.tags))
    quarantine = gating.read_quarantine(Path(gate.quarantine)) if gate.quarantine else None
    baseline = _baseline(options, selection, quarantine)
    history = _history(options, selection)
    folders = spec_folders(options.specs, options.packs)
    # Keep the suite only: the YAML documents (positions of every node) are not needed once
    # the files are known to be valid, and would otherwise live for the whole run.
    case_paths = find_case_files(options.cases)
    # One parallel phase when it can: the case files read and their traces evaluated by the
    # same workers (see commands/fused.py); else loading, then evaluation.
    fused = _fused(options, selection, case_paths, folders)
    if fused is not None:
        full = fused.suite
    else:
        with _collector_paused():  # the suite lives to the end: no collection need walk it
            full = load_checked(case_paths, folders, options.config, options.jobs)
    full.fail_severity = gate.fail_severity
    gating.warn_unknown(quarantine, full.cases)
    chosen = select_cases(full, selection)
    suite = shard_suite(chosen, options.shard)  # `chosen` without --shard
    elsewhere = set(chosen.cases) - set(suite.cases)  # the other shards' cases
    traces = find_traces(options, suite, full, elsewhere, listing(fused, suite))
    left_out = LeftOut(set(full.cases) - set(chosen.cases))
    bar = fused.bar if fused else make_progress(traces.total, options.terminal.quiet)
    live = _live_log(options, suite, traces, quarantine, bar, fused is not None)
    try:
        runs = _evaluations(options, suite, traces, fused, left_out.left_out | elsewhere, bar)
        cases, unmatched = group_results(
            suite,
            left_out.watch(_watched(runs, options, timing, live)),
            traces.plan,
            left_out.left_out | elsewhere,
            no_run_reason(options, traces),
            gate.min_run_pass_rate,
        )
    finally:
        if bar is not None:
            bar.close()
    if timing is not None:
        timing.stop()
    if not shard_reports_unmatched(options.shard):
        unmatched = []
    gating.warn_thresholds(cases)
    # The report's rows and files hold no reference cycles: the collector, which would walk
    # every row made (a collection of ~40,000 objects, 15 ms, for 2,000 cases), waits until
    # they are written (the traces read again for the HTML page are not in the pause).
    with _collector_paused():
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
        report.sarif_root, report.sarif_docs_url = options.sarif_root, options.sarif_docs_url
        report.timing = timing
        report.history = history.section(report.rows) if history is not None else None
        shard = ShardFile.of(
            options, chosen, inputs, quarantine, baseline, (cases, unmatched, unused)
        )
        extra = [shard.extra(report)] if shard is not None else []
    if needed(options.formats, EXTRAS):  # the page shows answers and tool calls: read again
        again = traces.plan.jobs() if traces.plan else iter([])
        report.extras = collect_extras(
            suite, cases, again, traces.root, options.max_trace_bytes, options.traces
        )
    with _collector_paused():
        code = _write_and_judge(report, options, extra, live.printed)
    keep_to_exit(report, cases, fused, full, traces, live)  # freed by the process's end
    return code


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while the block runs. What the block made is left to
    the end of the process when that comes right after the command (gc.freeze: no collection
    walks it), else collected as usual afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if ends_after_command():
            gc.freeze()
        if enabled:
            gc.enable()


def _history(options: RunOptions, selection: Selection) -> History | None:
    """The earlier reports of `--history DIR`, read before anything is evaluated."""
    if not options.history:
        return None
    return read_history(options.history, options.history_depth, selection)


def _evaluations(
    options: RunOptions,
    suite: Suite,
    traces: Traces,
    fused: Fused | None,
    aside: set[str],
    bar: Progress | None,
) -> Iterable[RunResult]:
    """The runs: from the one parallel phase when it ran, else evaluated now."""
    if fused is not None:
        rest = rest_of(suite, _fused_options(options), traces.root, bar)
        return fused.runs(traces.jobs, rest)
    return evaluate_all(
        suite,
        traces.jobs,
        options.jobs,
        max_bytes=options.max_trace_bytes,
        root=traces.root,
        progress=bar if isinstance(bar, ProgressBar) else None,  # lines: the live log's
        settings=options.traces,
        aside=frozenset(aside),  # dropped when grouped
        kept=RowFields(),
    )


def _fused_options(options: RunOptions) -> FusedOptions:
    return FusedOptions(
        options.fixtures,
        options.traces,
        options.follow_symlinks,
        options.max_trace_bytes,
        options.gate.fail_severity,
        options.jobs,
    )


def _fused(
    options: RunOptions, selection: Selection, case_paths: list[Path], folders: list[Path]
) -> Fused | None:
    """The fused phase's suite and runs, when this run can have one: several processes, the
    whole suite (no selection, no shard), traces found by their file names."""
    if options.jobs == 1 or selection or options.shard is not None or options.capture_failures:
        return None
    if options.traces.case_id is not None or options.traces.group is not None:
        return None

    def bar(total: int) -> Progress | None:
        return make_progress(total, options.terminal.quiet)

    return fused_phase(_fused_options(options), case_paths, folders, options.config, bar)


def _write_and_judge(
    report: Report, options: RunOptions, extra: list[ExtraFile], printed: int = 0
) -> int:
    """Write the report set (atomically), say what it holds, and apply the gates."""
    # As many processes write the formats as evaluated the traces.
    processes = min(options.jobs or usable_cores(), usable_cores())
    note = source_date_note()
    if note is not None:
        print(f"note: {note}", file=sys.stderr)
    written = write_reports(report, options.out, list(options.formats), extra, processes)
    if options.step_summary:
        step_summary(report, written)
    code, reasons = exit_decision(report, options.gate)
    print_summary(report, written, options.terminal, _allowed_by(options), printed)
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
    if options.gate.quarantine is not None:
        inputs["quarantine"] = display_path(Path(options.gate.quarantine))
    gate = options.gate.to_json(changed_only=True)
    gate.pop("quarantine", None)  # shown as the file above
    gate.pop("allow_unmatched", None)  # shown in the traces settings above
    if gate:
        inputs["gate"] = gate
    if options.command is not None:
        inputs["command"] = options.command
    return inputs


# Options that never change what a report says, so that reports stay byte-identical across
# them: where and in which formats it is written, how many processes, the terminal output,
# and which shard ran (a merged report shows the command of the unsharded run).
_FLAGS = ("--quiet", "-q", "--annotations", "--no-annotations", "-v", "--verbose",
          "--step-summary", "--no-step-summary")  # fmt: skip
OUTPUT_OPTIONS = (*_FLAGS, "--out", "--format", "--jobs", "--shard", "--color", "--sarif-root",
                  "--sarif-docs-url")  # fmt: skip


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


def _changed_settings(settings: TraceSettings) -> dict[str, Any]:
    """The `traces:` settings that differ from the defaults, as the config writes them."""
    default = TraceSettings()
    out: dict[str, Any] = {}
    for name in ("pattern", "format", "split", "group", "case_id", "allow_unmatched"):
        value = getattr(settings, name)
        if value != getattr(default, name):
            out[name] = list(value) if isinstance(value, tuple) else value
    return out


# --------------------------------------------------------------------------------------------
# The command line


RUN_EPILOG = """\
examples:
  %(prog)s --cases my-cases --fixtures traces/ --out out/ --jobs 4
  %(prog)s --case 'mysql-*' --tag smoke --format json,md,junit,html
  %(prog)s --baseline main/report.json --fail-on regression
  %(prog)s --shard 2/4 --out shard-2      (then: merge shard-*)

exit codes: 0 every case passed (or the gate holds); 1 a case failed, was not run or
errored, or a gate did not hold; 2 usage error or invalid case/spec file; 130/143 interrupted.
Repeated runs, gates, sharding and every flag in detail: docs/cli.md and docs/CI.md.
"""


def build_parser(parser: argparse.ArgumentParser) -> None:
    """run's flags; the gate's are `gating.add_gate_arguments`'."""
    parser.description = "Evaluate each case's saved trace(s) and write the reports."
    parser.epilog = RUN_EPILOG
    parser.usage = "%(prog)s [options]"
    options.config_option(parser)
    options.path_option(parser, "--cases", "case folder or file (default: cases/)")
    options.path_option(parser, "--specs", "spec folder adding to the standard specs; repeatable")
    options.path_option(
        parser, "--fixtures", "folder of traces, or one file such as a .jsonl export"
    )
    parser.add_argument(
        "--out", default="reports", metavar="DIR", help="where reports go (default: reports/)"
    )
    parser.add_argument(
        "--jobs",
        type=options.positive_int,
        default=None,
        metavar="N",
        help="processes evaluating traces (default: usable cores)",
    )
    options.max_trace_bytes(parser, "refuse larger trace files (default: 64 MiB)")
    parser.add_argument(
        "--format",
        dest="formats",
        type=options.parse_formats,
        default=DEFAULT_FORMATS,
        metavar="LIST",
        help=f"formats: {','.join(REPORTERS)} (default: {','.join(DEFAULT_FORMATS)})",
    )
    options.selection(parser, "evaluate")
    parser.add_argument("--baseline", metavar="PATH", help="an earlier report.json to compare with")
    gating.add_gate_arguments(parser)
    parser.add_argument(
        "--k",
        dest="ks",
        type=gating.parse_ks,
        default=None,
        metavar="LIST",
        help="the k of pass^k and pass@k in the summary, e.g. 1,3,5",
    )
    options.annotations_option(parser)
    options.report_output_options(parser)
    options.history_options(parser)
    parser.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="read traces through links leading outside the fixtures",
    )
    parser.add_argument(
        "--allow-unmatched",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="traces that match no case do not fail the run",
    )
    parser.add_argument(
        "--shard",
        type=options.parse_shard,
        default=None,
        metavar="I/N",
        help="evaluate shard I of N of the cases, for `merge`",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the summary line")
    options.verbose_option(parser)
    options.color_option(parser, "the statuses")
    parser.add_argument(
        "--capture",
        action="store_true",
        help="capture missing traces from the config's target first",
    )
    options.capture_arguments(parser, with_selection=False)


def main(args: argparse.Namespace) -> int:
    """`run` from its parsed command line."""
    if args.fail_on == "regression" and not args.baseline:
        raise UsageError(
            "--fail-on regression needs --baseline PATH (the report.json of an earlier run)"
            " to know what regressed"
        )
    if not args.capture and (args.repeat is not None or args.overwrite):
        flag = "--repeat" if args.repeat is not None else "--overwrite"
        raise UsageError(
            f"{flag} is a capture option", f"add --capture, or run `{options.program()} capture`"
        )
    history, depth = options.history_of(args)
    if history is not None and args.shard is not None:
        raise UsageError(
            "--history is for the whole run, not one shard",
            "give --history DIR to `merge`, which writes the whole run's reports",
        )
    flags = SuiteFlags.of(args)
    config = read_config(flags)
    errors = config_errors(flags, config)
    if errors:
        raise ProblemsFound(errors)  # nothing is evaluated with a broken config
    layout = resolve(flags, config)
    failures = _capture_first(args) if args.capture else ()
    if args.max_regression and not args.baseline:
        raise UsageError(
            "--max-regression needs --baseline PATH (the report.json of an earlier run)"
            " to compare the figures with"
        )
    run = RunOptions(
        cases=layout.cases,
        specs=layout.specs,
        fixtures=layout.fixtures,
        out=Path(args.out),
        jobs=args.jobs,  # None: the usable cores (evaluate_all caps an explicit N, with a note)
        max_trace_bytes=args.max_trace_bytes,
        terminal=terminal_of(args),
        formats=args.formats,
        baseline=Path(args.baseline) if args.baseline else None,
        gate=gating.gate_of(args),
        case_patterns=list(args.case_patterns),
        tags=list(args.tags),
        follow_symlinks=args.follow_symlinks,
        config=config,
        packs=layout.packs,
        traces=layout.traces,
        ks=args.ks,
        annotations=args.annotations,
        shard=args.shard,
        capture_failures=failures,
        command=command_line(args.argv, args.program, args.long_options),
        sarif_root=options.sarif_root_of(args.sarif_root),
        sarif_docs_url=args.sarif_docs_url,
        step_summary=args.step_summary,
        history=history,
        history_depth=depth,
    )
    return execute_run(run)


def _allowed_by(options: RunOptions) -> str | None:
    """What lets unmatched traces pass, as the user wrote it: the config's setting (which
    the flag can only repeat), else the flag; None when they fail the run."""
    if not options.gate.allow_unmatched:
        return None
    config = options.config
    if config is not None and config.traces.allow_unmatched:
        return f"traces.allow_unmatched: true in {config.file}"
    return "--allow-unmatched"


def _capture_first(args: argparse.Namespace) -> tuple[tuple[str, str, str], ...]:
    """run --capture: the capture (its errors raise: exit 2, nothing evaluated), and the
    runs that failed to capture."""
    from .capture import capture_options, execute_capture

    return execute_capture(capture_options(args, "run --capture", warn=False)).failures()
