"""The run's evaluation: each case's traces, in chunks, evaluated in this process or, with
--jobs N, in worker processes too (validator.processes starts and ends them).

Traces are read one at a time, in the worker that evaluates them, so memory does not grow
with the number of traces; only the small per-run result rows are kept (`Compactor`).
The results are grouped by case in `grouping`; a job is read and evaluated in `worker`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, islice
from pathlib import Path

from ..inputs import Job
from ..model import Suite, TraceSettings
from ..processes import Workers, ordered_map, usable_cores
from ..results import ERROR, RunResult
from ..traces import DEFAULT_MAX_TRACE_BYTES
from .compaction import Compactor
from .worker import Worker, chunk_evaluator, guess_case_id

# Jobs per chunk sent to a worker: ~30 ms of work for a 20 KB trace, so the pickling and
# queueing cost per chunk is small, yet a run of a few hundred traces still spreads evenly.
DEFAULT_CHUNK = 32


def note_on_stderr(text: str) -> None:
    print(text, file=sys.stderr)


def evaluate_all(
    suite: Suite,
    jobs: Iterable[Job],
    workers: int | None,
    *,
    max_bytes: int = DEFAULT_MAX_TRACE_BYTES,
    root: Path | None = None,
    chunk: int | None = None,
    progress: Callable[[int], None] | None = None,
    notify: Callable[[str], None] = note_on_stderr,
    settings: TraceSettings | None = None,
    aside: frozenset[str] = frozenset(),
    kept: Callable[[RunResult], None] | None = None,
) -> Iterator[RunResult]:
    """Evaluate jobs in order, reading each file only when its turn comes.

    With workers > 1, up to `workers` processes evaluate: this one and forked ones. Never
    more than the usable cores, nor than one per chunk: the first `workers` chunks are read
    before any process is started, so the count is known without counting a JSON Lines file
    first (None: as many as the usable cores, without a note). Jobs go out in chunks, each
    worker kept busy and this process evaluating one whenever it would otherwise wait (see
    `processes.ordered_map`), and only a bounded window of chunks is in flight, so a huge
    JSON Lines file is never all in memory. Results come back in the order of the jobs,
    identical whatever the number of workers; runs that cannot represent their case are
    compacted (`Compactor`). A worker that dies (the out-of-memory killer) costs nothing but
    time: its chunk is evaluated again in a new worker, and only if that one dies too do its
    traces become errors (see `processes.Pool`). `notify` gets one line per such event, and one when
    fewer processes than `workers` are used. `aside`: case ids of the whole suite whose traces
    are set aside unevaluated (another shard's, cases not selected; see `Worker`). `kept`:
    given each run the compaction keeps whole, as it comes (see `Compactor`)."""
    size = chunk or DEFAULT_CHUNK
    batches = _chunks(jobs, size)
    cores = usable_cores()
    wanted = min(workers or cores, cores)
    ahead = list(islice(batches, wanted))
    count = max(1, min(wanted, len(ahead)))
    if workers is not None and count < workers:
        notify(_lowered(workers, count, cores, ahead, size))
    compact = Compactor(kept)
    here = Worker(suite, max_bytes, root, settings, aside)
    everything = chain(ahead, batches)
    if count > 1:
        spec = Workers(
            chunk_evaluator, (suite, max_bytes, root, settings, aside), _traces, _dead_runs
        )
        runs = ordered_map(here.chunk, everything, count, spec, progress, notify)
    else:
        runs = _serial(here, everything, progress, compact)
    for run in runs:
        yield compact(run)


def _lowered(requested: int, count: int, cores: int, ahead: list[list[Job]], size: int) -> str:
    reasons = []
    if cores < requested:
        reasons.append(f"{cores} usable core{'s' if cores != 1 else ''}")
    if len(ahead) < min(requested, cores):  # the input ended within the chunks read ahead
        traces = sum(len(batch) for batch in ahead)
        reasons.append(f"{traces} trace{'s' if traces != 1 else ''}, up to {size} per process")
    return f"note: --jobs {requested} lowered to {count} ({'; '.join(reasons)})"


def _serial(
    here: Worker,
    batches: Iterable[list[Job]],
    progress: Callable[[int], None] | None,
    compact: Compactor,
) -> Iterator[RunResult]:
    """One process: a handful of jobs, or --jobs 1. `compact`: the compaction each run is
    given to once yielded, which says how briefly the next ones may be evaluated."""
    done = 0
    for batch in batches:
        for job in batch:
            done += 1
            yield from here.runs(job, compact)
            if progress:
                progress(done)


def _traces(jobs: list[Job]) -> str:
    return f"{jobs[0].fixture} .. {jobs[-1].fixture}"


def _dead_runs(jobs: list[Job], deaths: list[str]) -> list[RunResult]:
    first, last = deaths[0], deaths[-1]
    again = "" if last == first else f" ({last})"
    others = len(jobs) - 1
    culprit = f"this trace or one of the {others} evaluated with it" if others else "this trace"
    reason = (
        f"the worker evaluating this trace died ({first}); retried once, its worker died"
        f" again{again}: the cause is {culprit}"
    )
    return [
        RunResult(job.case_id or guess_case_id(job) or "?", ERROR, reason, job.fixture)
        for job in jobs
    ]


def _chunks(jobs: Iterable[Job], size: int) -> Iterator[list[Job]]:
    batch: list[Job] = []
    for job in jobs:
        batch.append(job)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
