"""The run: find each case's traces, evaluate them (in parallel when asked), group the results.

Traces are read one at a time, in the worker that evaluates them, so memory does not grow
with the number of traces; only the small per-run result rows are kept.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..inputs import HARD_KINDS, Job, Plan
from ..model import Suite, TraceSettings
from ..results import ERROR, FAIL, NOT_RUN, PASS, CaseResult, CheckResult, RunResult
from ..traces import DEFAULT_MAX_TRACE_BYTES, ParsedTrace, TraceError, read_trace_file
from .evaluator import Evaluator
from .tracefile import CaseIdRule, Trace, TraceReader

if TYPE_CHECKING:  # concurrent.futures is imported only when a pool is started
    from concurrent.futures import Future


def guess_case_id(job: Job, text: str | None = None) -> str | None:
    """For a JSON Lines trace that cannot be parsed (the job's line, or `text`): the caseId
    it seems to name, if any (JSON escapes decoded, so `"c\\u0032"` names case c2, as a
    parsed line would)."""
    match = _CASE_ID.search(text or job.text or "")
    if match is None:
        return None
    try:
        found = json.loads(f'"{match.group(1)}"')
    except ValueError:
        return match.group(1)
    return found if isinstance(found, str) else None


_CASE_ID = re.compile(r'"caseId"\s*:\s*"((?:[^"\\]|\\.)*)"')


# --------------------------------------------------------------------------------------------
# Evaluation, in this process or in workers


class Worker:
    """Reads, parses and evaluates traces: one per process (this one, or a pool's).

    A job is a file (or one JSON Lines line) read here, once, whatever it holds: one trace,
    or several (`traces.split`, OpenTelemetry exports), each for the case the plan gave the
    file, or for the case it names itself (`traces.case_id`, JSON Lines' case id). Its runs
    come back together, in file order, so results are in the same order for any --jobs."""

    def __init__(
        self,
        suite: Suite,
        max_bytes: int = DEFAULT_MAX_TRACE_BYTES,
        root: Path | None = None,
        settings: TraceSettings | None = None,
    ) -> None:
        self.evaluator = Evaluator(suite)
        self.max_bytes = max_bytes
        self.root = root
        self.settings = settings or TraceSettings()
        self.reader = TraceReader(self.settings, self._read_object, root, max_bytes)
        self.rule = CaseIdRule(self.settings.case_id) if self.settings.case_id else None

    def _read_object(self, path: str) -> ParsedTrace:
        # Looked up in this module when called, so tests can stand in for the disk.
        return read_trace_file(path, self.root, self.max_bytes)

    def __call__(self, job: Job) -> RunResult:
        """The run of a job that holds one trace (a JSON file, a JSON Lines line); for a
        file that may hold several, `runs` gives them all. Never raises."""
        return self.runs(job)[0]

    def runs(self, job: Job) -> list[RunResult]:
        """Read one job and evaluate each of its traces, in file order. Never raises."""
        if job.unmatched is not None:  # known from its name alone: not read
            out = [RunResult(job.case_id or "?", ERROR, job.unmatched, job.fixture)]
        else:
            out = self._read_and_evaluate(job)
        source = job.source or job.fixture
        for run in out:
            run.source = source
        return out

    def _read_and_evaluate(self, job: Job) -> list[RunResult]:
        out: list[RunResult] = []
        try:
            for trace in self.reader.traces(job):
                out.extend(self._trace_runs(job, trace))
        except TraceError as exc:
            out.extend(self._errors(job, str(exc), job.fixture))
        except MemoryError:
            reason = "not enough memory to read and parse this trace: raise the memory limit, or split the trace"
            out.extend(self._errors(job, reason, job.fixture))
        except Exception as exc:  # a bug must cost one file, not the run
            reason = f"internal error while reading this trace (please report it as a bug): {exc!r}"
            out.extend(self._errors(job, reason, job.fixture, guess=False))
        if not out:
            out.extend(self._errors(job, "the file holds no trace (only blank lines)", job.fixture))
        return out

    def _errors(
        self, job: Job, reason: str, label: str, guess: bool = True, text: str | None = None
    ) -> list[RunResult]:
        """An error run for each case the job is for (or the one a broken line seems to name)."""
        if job.case_id is not None:
            cases: tuple[str, ...] = (job.case_id, *job.more_cases)
        else:
            named = guess_case_id(job, text) if guess and self.rule is None else None
            cases = (named or "?",)
        return [RunResult(case_id, ERROR, reason, label) for case_id in cases]

    def _trace_runs(self, job: Job, trace: Trace) -> list[RunResult]:
        if trace.error is not None:
            return self._errors(job, trace.error, trace.label, text=trace.text)
        own_id = not job.picked
        cases: tuple[str | None, ...] = (job.case_id, *job.more_cases)
        if job.case_id is None and self.rule is not None:
            found, problem = self.rule.case_id(trace.document, job.path or job.source or "")
            if problem is not None:
                return [RunResult("?", ERROR, problem, trace.label)]
            cases, own_id = (found,), False  # traces.case_id replaces the trace's own id
        out = []
        for case_id in cases:
            run = self.evaluator.evaluate(
                trace.document, case_id, trace.label, trace.parent, own_id=own_id
            )
            run.notes[:0] = trace.notes
            out.append(run)
        return out

    def chunk(self, jobs: list[Job]) -> list[RunResult]:
        """Evaluate a chunk. Runs that cannot be their case's representative are compacted
        here already (see `Compactor`), so less is sent back to the parent."""
        compact = Compactor()
        return [compact(run) for job in jobs for run in self.runs(job)]


# A pool worker's own Worker, set by its initializer (never in the parent process).
_POOL_WORKER: Worker | None = None


def _init_pool_worker(
    suite: Suite, max_bytes: int, root: Path | None, settings: TraceSettings | None
) -> None:
    global _POOL_WORKER
    _POOL_WORKER = Worker(suite, max_bytes, root, settings)


def _pool_chunk(jobs: list[Job]) -> list[RunResult]:
    assert _POOL_WORKER is not None, "called outside a pool worker"
    return _POOL_WORKER.chunk(jobs)


# Jobs per chunk sent to a worker: ~30 ms of work for a 20 KB trace, so the pickling and
# queueing cost per chunk is small, yet a run of a few hundred traces still spreads evenly.
DEFAULT_CHUNK = 32


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

    def __init__(self) -> None:
        self._kept: dict[str, bool] = {}  # case id -> a run that did not pass is kept whole

    def __call__(self, run: RunResult) -> RunResult:
        kept = self._kept.get(run.case_id)
        if kept is None or (not kept and run.status != PASS):
            self._kept[run.case_id] = run.status != PASS
            return run
        if any(c.clauses or c.status != FAIL for c in run.checks):
            run.checks = [
                CheckResult(c.check, c.status, c.message, report_as=c.report_as)
                for c in run.checks
                if c.status == FAIL
            ]
        return run


def evaluate_all(
    suite: Suite,
    jobs: Iterable[Job],
    workers: int,
    *,
    max_bytes: int = DEFAULT_MAX_TRACE_BYTES,
    root: Path | None = None,
    chunk: int | None = None,
    progress: Callable[[int], None] | None = None,
    settings: TraceSettings | None = None,
) -> Iterator[RunResult]:
    """Evaluate jobs in order, reading each file only when its turn comes.

    With workers > 1, `workers` processes evaluate: this one and `workers - 1` forked ones.
    Jobs go out in chunks, every `workers`-th chunk evaluated here, and only a bounded window
    of chunks is in flight, so a huge JSON Lines file is never all in memory. Results come
    back in the order of the jobs (a file's runs in file order), identical whatever the
    number of workers; runs that cannot represent their case are compacted (`Compactor`).
    When all jobs fit in one chunk, no process is started. `progress` is told how many
    jobs are done."""
    compact = Compactor()
    batches = _chunks(jobs, chunk or DEFAULT_CHUNK)
    first = next(batches, None)
    second = next(batches, None) if workers > 1 and first is not None else None
    here = Worker(suite, max_bytes, root, settings)
    if second is None:  # one process: a handful of jobs, or --jobs 1
        for done, job in enumerate(_chain(first, batches), start=1):
            for run in here.runs(job):
                yield compact(run)
            if progress:
                progress(done)
        return
    assert first is not None  # a second chunk means there was a first
    pool_args = (suite, max_bytes, root, settings)
    parallel = _Parallel(here, workers, pool_args, compact, progress)
    yield from parallel.run(_chain_batches(first, second, batches))


class _Parallel:
    """The multi-process half of `evaluate_all`: a bounded window of chunks in flight, every
    `workers`-th chunk evaluated in this process, results drained in job order."""

    def __init__(
        self,
        here: Worker,
        workers: int,
        pool_args: tuple[Any, ...],
        compact: Compactor,
        progress: Callable[[int], None] | None,
    ) -> None:
        self.here = here
        self.workers = workers
        self.pool_args = pool_args
        self.compact = compact
        self.progress = progress
        self.done = 0
        self.window: deque[tuple[list[Job], Future[list[RunResult]] | None]] = deque()

    def run(self, batches: Iterator[list[Job]]) -> Iterator[RunResult]:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        context = multiprocessing.get_context(method)
        with ProcessPoolExecutor(
            self.workers - 1, context, _init_pool_worker, self.pool_args
        ) as pool:
            for index, batch in enumerate(batches):
                local = index % self.workers == 0
                self.window.append((batch, None if local else pool.submit(_pool_chunk, batch)))
                yield from self._drain(self.workers * 4)
            yield from self._drain(0)

    def _drain(self, limit: int) -> Iterator[RunResult]:
        while len(self.window) > limit:
            batch, future = self.window.popleft()
            results = self.here.chunk(batch) if future is None else future.result()
            for run in results:
                yield self.compact(run)
            self.done += len(batch)
            if self.progress:
                self.progress(self.done)


def _chain(first: list[Job] | None, rest: Iterator[list[Job]]) -> Iterator[Job]:
    if first is not None:
        yield from first
    for batch in rest:
        yield from batch


def _chain_batches(
    first: list[Job], second: list[Job], rest: Iterator[list[Job]]
) -> Iterator[list[Job]]:
    yield first
    yield second
    yield from rest


def _chunks(jobs: Iterable[Job], size: int) -> Iterator[list[Job]]:
    batch: list[Job] = []
    for job in jobs:
        batch.append(job)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def group_results(
    suite: Suite,
    runs: Iterable[RunResult],
    plan: Plan | None = None,
    ignore: Collection[str] = (),
    no_run: str = "no trace was evaluated for this case",
) -> tuple[list[CaseResult], list[RunResult]]:
    """Case results sorted by id, plus runs that match no case (JSON Lines).

    `plan`: the fixtures folder's plan, for the cases it found no trace for (None: the
    traces came from JSON Lines or the library); `no_run`: the reason given to any other
    case that got no run. Runs of the case ids in `ignore` (cases a
    --case/--tag selection left out) are dropped: they match a case, just not one that was
    asked for."""
    by_case: dict[str, list[RunResult]] = {case_id: [] for case_id in suite.cases}
    unmatched: list[RunResult] = []
    for run in runs:
        if run.case_id in by_case:
            by_case[run.case_id].append(run)
        elif run.case_id not in ignore:
            unmatched.append(run)
    results = []
    for case_id, case in suite.cases.items():
        result = CaseResult(case_id, by_case[case_id], case.file, case.tags)
        kind = plan.missing.get(case_id) if plan is not None else None
        if plan is not None and kind is not None and (kind in HARD_KINDS or not result.runs):
            result.status_override = ERROR if kind in HARD_KINDS else NOT_RUN
            result.reason_override = plan.missing_reason(case_id)
        elif not result.runs:
            result.status_override = NOT_RUN
            result.reason_override = no_run
        results.append(result)
    return results, unmatched
