"""The run's one parallel phase: each worker reads the case files it is given and, in the
same pass, evaluates the traces of the cases it has just read; this process judges the
records they send back (the cross-file rules) and makes the report from their runs.

Before, a run forked three times and waited three times: the case files were read in
processes (a join), the cross-file rules, the plan and the first trace ran here alone,
then the traces were evaluated (a join), then the reports written. Here the case files and
the traces share one pool (`processes.ordered_map`), so the workers never wait for this
process between the two.

It works when each trace file is found by its name (the default fixtures layout): a
worker that has read a case's id finds the files named after it without waiting for the
other case files. Before forking, this process lists the fixtures folder once as if every
name were a case id (the pre-plan: a directory listing, no case file read). After the join,
the run's real plan is made from the suite, as always, and compared case by case with the
jobs the workers used: a case whose jobs differ (a `fixture:` key picks a file of another
case, a case id a file name does not give) or whose workers died on it gets its runs made
the usual way (`evaluation.runner.evaluate_all`), so the reports are those of any other
`--jobs`, byte for byte. A file with an error is read, never evaluated; an error found only
across files (two files with one id) stops the run with the same problems, and the runs
made meanwhile are dropped.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from ..dataclass import dataclass
from ..evaluation.compaction import Compactor
from ..evaluation.runner import DEFAULT_CHUNK, evaluate_all
from ..evaluation.tracefile import reads_whole_files
from ..evaluation.worker import Worker
from ..inputs import CONTENT, Job, Plan, display_path, plan_fixtures
from ..loading.config import Config
from ..loading.suite import (
    CaseFile,
    CaseReader,
    LoadResult,
    Specs,
    case_reader,
    fields_of,
    read_specs,
    suite_from,
)
from ..model import Case, Spec, Suite, TraceFields, TraceSettings
from ..problems import ERROR, WARNING, ProblemsFound
from ..processes import Workers, ordered_map, usable_cores
from ..report.document import RowFields
from ..results import PASS, RunResult
from . import ends_after_command
from .progress import Progress, ProgressBar

# Case files per batch sent to a worker: with a trace or two each, ~30 ms of work, as a
# chunk of traces (evaluation.runner.DEFAULT_CHUNK) is.
FUSED_UNIT = 8

# Trace files of one case above which its traces are evaluated after the join, a chunk at a
# time (evaluation.runner.DEFAULT_CHUNK) like any run's, rather than all in one batch.
MAX_FUSED_RUNS = 4 * DEFAULT_CHUNK

# Trace files of the whole run above which it has the usual two phases: this process holds
# the phase's runs until the join (compacted: ~0.3 KB each), where the usual evaluation
# streams them into each case's compact rows as they come, so memory stays flat.
MAX_FUSED_TRACES = 20_000


def checked(loaded: LoadResult) -> Suite:
    """The suite of a load; its warnings printed, and any error raised as ProblemsFound."""
    for problem in loaded.problems:
        if problem.severity == WARNING:
            print(problem.format(), file=sys.stderr)
    errors = [p for p in loaded.problems if p.severity == ERROR]
    if errors or loaded.suite is None:
        raise ProblemsFound(errors)
    return loaded.suite


@dataclass(fast_init=True)
class Read:
    """One case file, read in a worker, and the runs of its case's traces when it was
    evaluated there (None: not evaluated there, its traces are the usual path's)."""

    path: Path
    record: CaseFile | None  # None: its workers died; read again in this process
    jobs: tuple[Job, ...] = ()  # the jobs its runs come from, as the pre-plan gave them
    runs: list[RunResult] | None = None


# What a worker sends back for one case file of its batch, in the batch's order: the file's
# record and, when its case was evaluated there, the runs. Not its path nor its jobs: this
# process knows both (the batch it sent, its pre-plan) and puts them back (`_received`);
# unpickled here, they were ~10 % of what came back (a Path and a tuple of Jobs a file).
Sent = tuple[CaseFile | None, list[RunResult] | None]


@dataclass(frozen=True)
class Unit:
    """What a worker does with a batch of case files: reads each, then evaluates the
    traces the pre-plan gives each case read without error. Plain data: inherited by a
    forked worker, pickled where there is no fork."""

    reader: CaseReader
    specs: dict[str, Spec]
    fields: TraceFields
    default_checks: tuple[str, ...] | None
    fail_severity: str
    settings: TraceSettings
    jobs: dict[str, tuple[Job, ...]]  # case id (a name in the fixtures) -> its jobs
    max_bytes: int
    root: Path | None
    # The run's case files, in order. A batch is a list of places in it: a worker is
    # sent a few integers, not Paths (pickled and rebuilt, ~40 us a batch each way).
    paths: tuple[Path, ...]

    def __call__(self, batch: list[int]) -> list[Sent]:
        records = [self.reader(self.paths[index]) for index in batch]
        cases: dict[str, Case] = {}
        for record in records:
            case = _evaluable(record)
            if case is not None and case.id in self.jobs:
                cases.setdefault(case.id, case)  # a second file with its id: an error anyway
        if not cases:
            return [(record, None) for record in records]
        worker, compact = self._worker(cases), Compactor(RowFields())
        out: list[Sent] = []
        for record in records:
            case = _evaluable(record)
            runs = None
            if case is not None and cases.get(case.id) is case:
                jobs = self.jobs[case.id]
                runs = [compact(run) for job in jobs for run in worker.runs(job, compact)]
            out.append((record, runs))
        return out

    def warm(self, index: int) -> None:
        """Read one case file and evaluate the first of its traces, and drop what they give:
        what that imports and builds on first use is inherited by the workers forked next.
        Not the whole file's work: a case may have a hundred traces, which this process
        would evaluate alone, and the file is read again with its batch."""
        case = _evaluable(self.reader(self.paths[index]))
        if case is not None and case.id in self.jobs:
            self._worker({case.id: case}).runs(self.jobs[case.id][0])

    def describe(self, batch: list[int]) -> str:
        """A batch as a note names it: its first and last case files."""
        return f"{display_path(self.paths[batch[0]])} .. {display_path(self.paths[batch[-1]])}"

    def _worker(self, cases: dict[str, Case]) -> Worker:
        """A worker evaluating the traces of `cases`, a suite of these cases alone."""
        suite = Suite(cases, self.specs, self.fields, self.default_checks, self.settings)
        suite.fail_severity = self.fail_severity
        return Worker(suite, self.max_bytes, self.root, self.settings)


def _evaluable(record: CaseFile | None) -> Case | None:
    """The case of a file read without error whose traces its name finds (not one whose
    `fixture:` key picks them: the plan of the whole suite decides those)."""
    if record is None or record.case is None or record.pick is not None:
        return None
    return record.case


def _unit(unit: Unit) -> Callable[[list[int]], list[Sent]]:
    return unit


def _given_up(batch: list[int], deaths: list[str]) -> list[Sent]:
    return [(None, None) for _ in batch]


@dataclass
class Options:
    """What the fused phase needs of `run`'s options."""

    fixtures: Path
    settings: TraceSettings
    follow_symlinks: bool
    max_bytes: int
    fail_severity: str
    jobs: int | None


@dataclass(frozen=True)
class PrePlan:
    """The fixtures folder listed before any case file is read."""

    jobs: dict[str, tuple[Job, ...]]  # name taken for a case id -> its jobs, for the phase
    traces: int  # trace files of every name, those left to after the join included
    plan: Plan  # the listing, planned as if each name were a case that picks no file
    names: tuple[str, ...]  # those names, sorted
    # Every job of that plan, in order: the run's own jobs when the listing is its plan
    # (run.listing), made once. The phase's jobs above are these very objects.
    made: tuple[Job, ...] = ()


def pre_plan(options: Options) -> PrePlan | None:
    """Each name of the fixtures folder taken for a case id -> the jobs of its files (a
    case with more than MAX_FUSED_RUNS left out: the usual path evaluates its traces after
    the join); None when a trace there names its own case (JSON Lines at the top): the
    usual path then."""
    fixtures, settings = options.fixtures, options.settings
    try:
        keys = sorted({_key(entry) for entry in os.scandir(fixtures)})
    except OSError:
        return None
    plan = plan_fixtures(
        keys,
        fixtures,
        display_path(fixtures),
        set(keys),
        options.follow_symlinks,
        patterns=settings.pattern,
        by_name=True,
        picks={},
        format=settings.format,
        whole_files=reads_whole_files(settings),
        ignore=settings.ignore,
    )
    plan.max_bytes = options.max_bytes
    if any(src.how == CONTENT for src in plan.sources):
        return None
    made = tuple(plan.jobs())
    jobs: dict[str, list[Job]] = {}
    for job in made:
        if job.case_id is not None and job.unmatched is None:
            jobs.setdefault(job.case_id, []).append(job)
    # A case with more traces than a few chunks is left to the usual path, which spreads
    # them over the workers a chunk at a time (in one batch they would keep one worker
    # busy while the others wait at the join).
    traces = sum(len(found) for found in jobs.values())
    if traces > MAX_FUSED_TRACES:
        return None
    kept = {c: tuple(found) for c, found in jobs.items() if len(found) <= MAX_FUSED_RUNS}
    return PrePlan(kept, traces, plan, tuple(keys), made)


def _key(entry: os.DirEntry[str]) -> str:
    """The case id a top-level entry's name gives (as `inputs.plan_fixtures` reads it)."""
    name = entry.name
    if entry.is_dir():
        return name
    return name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name


@dataclass
class Fused:
    """The suite, and the runs the workers made, by case."""

    suite: Suite
    reads: list[Read]
    # What showed the progress while the workers evaluated (a bar, or lines off a terminal).
    bar: Progress | None = None
    listing: PrePlan | None = None  # the fixtures folder as listed before the phase

    def runs(self, jobs: Iterator[Job], rest: Rest) -> Iterator[RunResult]:
        """Every run of the real plan's `jobs`: those the workers made for a case whose jobs
        are exactly the plan's, and the others from `rest` (the usual evaluation), told how
        many came before them."""
        planned = list(jobs)  # file jobs only (no JSON Lines line): a list of names
        kept = self._kept(planned)
        compact = Compactor()
        done = 0
        for runs in kept.values():
            done += len(runs)
            for run in runs:
                yield compact(run)
        others = (job for job in planned if job.case_id not in kept or job.more_cases)
        for run in rest(others, done):
            yield compact(run)

    def _kept(self, planned: list[Job]) -> dict[str, list[RunResult]]:
        """The runs of each case whose jobs in the real plan are the very jobs its worker
        evaluated (same files, same order, no other case sharing one)."""
        by_case: dict[str, list[Job]] = {}
        for job in planned:
            for case_id in (job.case_id, *job.more_cases):
                if case_id is not None:
                    by_case.setdefault(case_id, []).append(job)
        kept: dict[str, list[RunResult]] = {}
        for read in self.reads:
            case = _evaluable(read.record)
            if case is None or read.runs is None or case.id not in self.suite.cases:
                continue
            if tuple(by_case.get(case.id, ())) == read.jobs:
                kept[case.id] = read.runs
        return kept


def fused_phase(
    options: Options,
    case_paths: list[Path],
    folders: list[Path],
    config: Config | None,
    make_bar: Callable[[int], Progress | None] | None = None,
    notify: Callable[[str], None] | None = None,
) -> Fused | None:
    """Read the case files and evaluate their traces in one pool; None when this run
    cannot (the usual path then: see the module's docstring). Raises ProblemsFound as
    loading does."""
    wanted = _processes(options, len(case_paths))
    listed = pre_plan(options) if wanted > 1 else None
    if listed is None:
        return None
    jobs = listed.jobs
    specs = read_specs(folders)
    unit = _unit_for(options, specs, config, jobs, tuple(case_paths))
    if unit is None:
        return None  # no usable trace fields: loading says why, the usual way
    batches = _batches(case_paths, jobs)
    spec = Workers(
        _unit, (unit,), unit.describe, _given_up, noun="case files", fate=_FATE, warm=unit.warm
    )
    # Against every trace of the listing: those of a case left to after the join come last.
    bar = make_bar(listed.traces) if make_bar else None
    reads: list[Read] = []
    done = failed = 0
    lasting = ends_after_command()
    try:
        # Results come back in the order of the batches: each is the file of the same place.
        sent = ordered_map(unit, batches, wanted, spec, None, notify or _stderr)
        for index, (record, runs) in zip((i for b in batches for i in b), sent, strict=True):
            read = _received(case_paths[index], record, runs, unit, jobs)
            reads.append(read)
            if lasting:
                # What came back lives until the process ends right after the command: frozen
                # as it comes (a constant-time move), no collection of the young objects
                # walks it (three of ~48,000 objects each, in this process, for 2,000 cases).
                # A batch's evaluator, a cycle of ~50 objects, is then left to that end too.
                gc.freeze()
            if read.runs:
                done += len(read.runs)
                failed += sum(run.status != PASS for run in read.runs)
            if bar is not None:
                bar(done, failed)
        return Fused(_suite(reads, specs, config), reads, bar, listed)
    except BaseException:  # problems in the case files, Ctrl-C: the bar is erased first
        if bar is not None:
            bar.close()
        raise


def _received(
    path: Path,
    record: CaseFile | None,
    runs: list[RunResult] | None,
    unit: Unit,
    jobs: dict[str, tuple[Job, ...]],
) -> Read:
    """The case file at `path` as a worker sent it back: read here when its workers died
    (its traces are then the usual path's); else, when its case was evaluated, with the
    jobs the pre-plan gave it, this process's own objects (the run's jobs are these very
    ones when the listing is its plan)."""
    if record is None:
        return Read(path, unit.reader(path))
    case = _evaluable(record)
    if runs is None or case is None:
        return Read(path, record)
    return Read(path, record, jobs[case.id], runs)


def _batches(paths: list[Path], jobs: dict[str, tuple[Job, ...]]) -> list[list[int]]:
    """The case files (their places in `paths`) in batches of about a chunk of traces each
    (FUSED_UNIT files at most), each file weighed by the traces named after its file name
    (a guess: a case's id is known once its file is read; a wrong guess costs balance
    only)."""
    out: list[list[int]] = []
    batch: list[int] = []
    weight = 0
    for index, path in enumerate(paths):
        batch.append(index)
        weight += max(1, len(jobs.get(path.stem, ())))
        if len(batch) >= FUSED_UNIT or weight >= DEFAULT_CHUNK:
            out.append(batch)
            batch, weight = [], 0
    if batch:
        out.append(batch)
    return out


def _processes(options: Options, files: int) -> int:
    """How many processes the phase has: as many as --jobs asks (the usable cores by
    default), when the cores and the case files allow that many; else 1 (not for this run:
    the usual path lowers --jobs with its note)."""
    cores = usable_cores()
    wanted = min(options.jobs or cores, cores)
    if (options.jobs is not None and options.jobs > cores) or files < FUSED_UNIT * wanted:
        return 1
    return wanted if options.fixtures.is_dir() else 1


def _unit_for(
    options: Options,
    specs: Specs,
    config: Config | None,
    jobs: dict[str, tuple[Job, ...]],
    paths: tuple[Path, ...],
) -> Unit | None:
    fields = fields_of(specs.specs)
    if fields is None:
        return None
    return Unit(
        case_reader(specs, config),
        specs.specs,
        fields,
        config.checks if config is not None else None,
        options.fail_severity,
        options.settings,
        jobs,
        options.max_bytes,
        None if options.follow_symlinks else options.fixtures,
        paths,
    )


_FATE = "are read here, and their traces evaluated again a chunk at a time"


def _suite(reads: list[Read], specs: Specs, config: Config | None) -> Suite:
    records = [read.record for read in reads if read.record is not None]
    return checked(suite_from(records, specs, config))


def _stderr(text: str) -> None:
    print(text, file=sys.stderr)


# The usual evaluation of the jobs the workers did not do, given how many runs came before.
Rest = Callable[[Iterator[Job], int], Iterator[RunResult]]


def rest_of(suite: Suite, options: Options, root: Path | None, bar: Progress | None = None) -> Rest:
    """The usual evaluation, for the jobs the workers did not do (files no case claims,
    cases whose jobs changed, cases with more trace files than a batch takes), with as many
    processes as it needs. A terminal's `bar` goes on moving with them (off a terminal,
    the live log goes on with the progress lines)."""

    def rest(jobs: Iterator[Job], before: int) -> Iterator[RunResult]:
        listed = list(jobs)
        # Processes only for enough chunks to give each one (no "--jobs lowered" note).
        many = len(listed) >= (options.jobs or usable_cores()) * DEFAULT_CHUNK
        moved = (lambda done: bar(before + done)) if isinstance(bar, ProgressBar) else None
        return evaluate_all(
            suite,
            iter(listed),
            options.jobs if many else 1,
            max_bytes=options.max_bytes,
            root=root,
            progress=moved,
            settings=options.settings,
        )

    return rest
