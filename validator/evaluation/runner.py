"""The run: find each case's traces, evaluate them (in parallel when asked), group the results.

Traces are read one at a time, in the worker that evaluates them, so memory does not grow
with the number of traces; only the small per-run result rows are kept.
"""

from __future__ import annotations

import json
import math
import re
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..inputs import AMBIGUOUS, OUTSIDE, Job, Plan
from ..model import Suite
from ..results import ERROR, FAIL, NOT_RUN, PASS, CaseResult, CheckResult, RunResult
from ..traces import DEFAULT_MAX_TRACE_BYTES, TraceError, parse_trace, read_trace_file
from .evaluator import Evaluator


def guess_case_id(job: Job) -> str | None:
    """For a JSON Lines trace that cannot be parsed: the caseId it seems to name, if any
    (JSON escapes decoded, so `"c\\u0032"` names case c2, as a parsed line would)."""
    match = _CASE_ID.search(job.text or "")
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
    """Reads, parses and evaluates traces: one per process (this one, or a pool's)."""

    def __init__(
        self, suite: Suite, max_bytes: int = DEFAULT_MAX_TRACE_BYTES, root: Path | None = None
    ) -> None:
        self.evaluator = Evaluator(suite)
        self.max_bytes = max_bytes
        self.root = root

    def __call__(self, job: Job) -> RunResult:
        """Read, parse and evaluate one trace. Never raises."""
        try:
            if job.path is not None:
                parsed = read_trace_file(job.path, self.root, self.max_bytes)
            else:
                raw = (job.text or "").encode("utf-8", errors="surrogateescape")
                if len(raw) > self.max_bytes:
                    raise TraceError(
                        f"the line is {len(raw)} bytes, over the limit of {self.max_bytes} bytes"
                    )
                parsed = parse_trace(raw)
        except TraceError as exc:
            case_id = job.case_id or guess_case_id(job) or "?"
            return RunResult(case_id, ERROR, str(exc), job.fixture)
        except MemoryError:
            reason = "not enough memory to read and parse this trace: raise the memory limit, or split the trace"
            return RunResult(job.case_id or guess_case_id(job) or "?", ERROR, reason, job.fixture)
        except Exception as exc:  # a bug must cost one trace, not the run
            reason = f"internal error while reading this trace (please report it as a bug): {exc!r}"
            return RunResult(job.case_id or "?", ERROR, reason, job.fixture)
        run = self.evaluator.evaluate(parsed.document, job.case_id, job.fixture)
        run.notes[:0] = parsed.notes
        return run

    def chunk(self, jobs: list[Job]) -> list[RunResult]:
        """Evaluate a chunk. Runs that cannot be their case's representative are compacted
        here already (see `Compactor`), so less is sent back to the parent."""
        compact = Compactor()
        return [compact(self(job)) for job in jobs]


# A pool worker's own Worker, set by its initializer (never in the parent process).
_POOL_WORKER: Worker | None = None


def _init_pool_worker(suite: Suite, max_bytes: int, root: Path | None) -> None:
    global _POOL_WORKER
    _POOL_WORKER = Worker(suite, max_bytes, root)


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
) -> Iterator[RunResult]:
    """Evaluate jobs in order, reading each trace only when its turn comes.

    With workers > 1, `workers` processes evaluate: this one and `workers - 1` forked ones.
    Jobs go out in chunks, every `workers`-th chunk evaluated here, and only a bounded window
    of chunks is in flight, so a huge JSON Lines file is never all in memory. Results come
    back in the order of the jobs, identical whatever the number of workers; runs that cannot
    represent their case are compacted (`Compactor`). When all jobs fit in one chunk, no
    process is started."""
    compact = Compactor()
    done = 0
    batches = _chunks(jobs, chunk or DEFAULT_CHUNK)
    first = next(batches, None)
    second = next(batches, None) if workers > 1 and first is not None else None
    here = Worker(suite, max_bytes, root)
    if second is None:  # one process: a handful of jobs, or --jobs 1
        for job in _chain(first, batches):
            done += 1
            yield compact(here(job))
            if progress:
                progress(done)
        return
    import multiprocessing
    from concurrent.futures import Future, ProcessPoolExecutor

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    window: deque[list[Job] | Future[list[RunResult]]] = deque()
    with ProcessPoolExecutor(
        workers - 1, context, _init_pool_worker, (suite, max_bytes, root)
    ) as pool:

        def drain(limit: int) -> Iterator[RunResult]:
            nonlocal done
            while len(window) > limit:
                entry = window.popleft()
                results = here.chunk(entry) if isinstance(entry, list) else entry.result()
                for run in results:
                    yield compact(run)
                done += len(results)
                if progress:
                    progress(done)

        assert first is not None  # a second chunk means there was a first
        batches_all = _chain_batches(first, second, batches)
        for index, batch in enumerate(batches_all):
            local = index % workers == 0
            window.append(batch if local else pool.submit(_pool_chunk, batch))
            yield from drain(workers * 4)
        yield from drain(0)


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
    min_run_pass_rate: Fraction | None = None,
) -> tuple[list[CaseResult], list[RunResult]]:
    """Case results sorted by id, plus runs that match no case (JSON Lines).

    `plan`: the fixtures folder's plan, for the cases it found no trace for (None: the
    traces came from JSON Lines or the library); `no_run`: the reason given to any other
    case that got no run. Runs of the case ids in `ignore` (cases a
    --case/--tag selection left out) are dropped: they match a case, just not one that was
    asked for. `min_run_pass_rate` (run --min-run-pass-rate): the share of runs that must
    pass in every case that sets neither min_passes nor min_pass_rate."""
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
        if plan is not None and case_id in plan.missing:
            kind = plan.missing[case_id]
            result.status_override = ERROR if kind in (AMBIGUOUS, OUTSIDE) else NOT_RUN
            result.reason_override = plan.missing_reason(case_id)
        elif not result.runs:
            result.status_override = NOT_RUN
            result.reason_override = no_run
        else:
            result.required_passes, note = required_passes(
                case.fields, len(result.runs), min_run_pass_rate
            )
            if note:
                result.notes.append(note)
        results.append(result)
    return results, unmatched


def required_passes(
    fields: Mapping[str, Any], runs: int, default_rate: Fraction | None = None
) -> tuple[int | None, str | None]:
    """How many of a case's `runs` must pass, and a note when that is more than it has.

    From the case's `min_passes` (a count) and `min_pass_rate` (a share, rounded up to whole
    runs, computed exactly: 0.7 of 10 runs is 7, never 8); both written: both must hold.
    Neither: `default_rate` when given, else None (every run must pass)."""
    count, rate = fields.get("min_passes"), fields.get("min_pass_rate")
    if isinstance(count, float) and count.is_integer():  # `8.0`: the schema's integer too
        count = int(count)
    if count is None and rate is None:
        rate = default_rate
    needed: list[int] = []
    if isinstance(rate, (int, float, Fraction)) and not isinstance(rate, bool):
        # repr: the decimal the author wrote (0.7), not the binary float nearest to it.
        exact = rate if isinstance(rate, Fraction) else Fraction(repr(rate))
        needed.append(math.ceil(exact * runs))
    if isinstance(count, int) and not isinstance(count, bool):
        needed.append(count)
    if not needed:
        return None, None
    required = max(needed)
    if isinstance(count, int) and count > runs:
        return required, (
            f"min_passes is {count} but the case has {runs} run(s): it cannot pass until it"
            f" has at least {count} runs"
        )
    return required, None
