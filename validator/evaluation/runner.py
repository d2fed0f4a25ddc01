"""The run: find each case's traces, evaluate them (in parallel when asked), group the results.

Traces are read one at a time, in the worker that evaluates them, so memory does not grow
with the number of traces; only the small per-run result rows are kept.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import sys
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import suppress
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from ..inputs import HARD_KINDS, Job, Plan
from ..model import Suite, TraceSettings
from ..results import (
    ERROR,
    FAIL,
    NOT_RUN,
    PASS,
    CaseResult,
    CheckResult,
    RunKinds,
    RunResult,
    Runs,
)
from ..signals import ORPHANED, become_child, signals_held
from ..traces import DEFAULT_MAX_TRACE_BYTES, ParsedTrace, TraceError, read_trace_file
from .evaluator import Evaluator
from .tracefile import CaseIdRule, Trace, TraceReader

if TYPE_CHECKING:  # concurrent.futures is imported only when a pool is started
    pass

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess


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

_Part = TypeVar("_Part")
_Out = TypeVar("_Out")


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
        self.settings = settings or suite.traces
        self.evaluator = Evaluator(suite, self.settings)
        self.max_bytes = max_bytes
        self.root = root
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
        elif job.problem is not None:  # known before reading: a JSON Lines line too long
            out = self._errors(job, job.problem, job.fixture)
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
        # Equal values of compacted runs, held once: runs that come back from a worker
        # process each bring their own copy of the case id, the status, the verdict and
        # every failed check (read-only from here on), and 100,000 runs share a few hundred.
        self._same: dict[Any, Any] = {}

    def __call__(self, run: RunResult) -> RunResult:
        kept = self._kept.get(run.case_id)
        if kept is None or (not kept and run.status != PASS):
            self._kept[run.case_id] = run.status != PASS
            return run
        return self.shrink(run)

    def shrink(self, run: RunResult) -> RunResult:
        """The run as one that does not represent its case: its values shared with other
        runs, its failed checks only, without clause details."""
        same = self._same
        run.case_id = same.setdefault(run.case_id, run.case_id)
        run.status = same.setdefault(run.status, run.status)
        run.verdict = same.setdefault(run.verdict, run.verdict)
        run.verdict_key = same.setdefault(run.verdict_key, run.verdict_key)
        run.source = same.setdefault(run.source, run.source)
        run.error_reason = same.setdefault(run.error_reason, run.error_reason)
        run.checks = [
            same.setdefault(
                (c.check, c.message, c.report_as, c.severity, c.blocking),
                CheckResult(
                    c.check,
                    c.status,
                    c.message,
                    report_as=c.report_as,
                    severity=c.severity,
                    blocking=c.blocking,
                ),
            )
            for c in run.checks
            if c.status == FAIL
        ]
        return run


# Jobs per chunk sent to a worker: ~30 ms of work for a 20 KB trace, so the pickling and
# queueing cost per chunk is small, yet a run of a few hundred traces still spreads evenly.
DEFAULT_CHUNK = 32

# Chunks a worker holds at a time: the one it evaluates and the next, so that it never waits
# for this process (busy with a chunk of its own) to send more.
DEPTH = 2

# How many times a chunk is evaluated again after the worker evaluating it died.
RETRIES = 1


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask, which containers and `taskset`
    narrow), not the machine's."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


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
) -> Iterator[RunResult]:
    """Evaluate jobs in order, reading each file only when its turn comes.

    With workers > 1, up to `workers` processes evaluate: this one and forked ones. Never
    more than the usable cores, nor than one per chunk: the first `workers` chunks are read
    before any process is started, so the count is known without counting a JSON Lines file
    first (None: as many as the usable cores, without a note). Jobs go out in chunks, each
    worker kept busy and this process evaluating one whenever it would otherwise wait (see
    `_Window`), and only a bounded window of chunks is in flight, so a huge
    JSON Lines file is never all in memory. Results come back in the order of the jobs,
    identical whatever the number of workers; runs that cannot represent their case are
    compacted (`Compactor`). A worker that dies (the out-of-memory killer) costs nothing but
    time: its chunk is evaluated again in a new worker, and only if that one dies too do its
    traces become errors (see `_Pool`). `notify` gets one line per such event, and one when
    fewer processes than `workers` are used."""
    size = chunk or DEFAULT_CHUNK
    batches = _chunks(jobs, size)
    cores = usable_cores()
    wanted = min(workers or cores, cores)
    ahead = list(islice(batches, wanted))
    count = max(1, min(wanted, len(ahead)))
    if workers is not None and count < workers:
        notify(_lowered(workers, count, cores, ahead, size))
    compact = Compactor()
    here = Worker(suite, max_bytes, root, settings)
    everything = chain(ahead, batches)
    if count > 1:
        args = (suite, max_bytes, root, settings)
        runs = _parallel(here, everything, count, args, progress, notify)
    else:
        runs = _serial(here, everything, progress)
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
    here: Worker, batches: Iterable[list[Job]], progress: Callable[[int], None] | None
) -> Iterator[RunResult]:
    """One process: a handful of jobs, or --jobs 1."""
    done = 0
    for batch in batches:
        for job in batch:
            done += 1
            yield from here.runs(job)
            if progress:
                progress(done)


def _parallel(
    here: Worker,
    batches: Iterable[list[Job]],
    count: int,
    args: tuple[Suite, int, Path | None, TraceSettings | None],
    progress: Callable[[int], None] | None,
    notify: Callable[[str], None],
) -> Iterator[RunResult]:
    pool = _Pool(args, notify)
    finished = False
    try:
        window = _Window(here, pool, iter(batches), progress)
        # The first trace is evaluated before any fork: what evaluation imports and builds
        # on first use (markdown-it, compiled patterns) is then inherited, not done twice.
        window.warm()
        window.limit = (pool.start(count - 1) + 1) * WINDOW_PER_PROCESS
        yield from window.results()
        finished = True
    finally:
        # Stopped early (an exception, SIGTERM, a consumer that stops reading): the workers'
        # results are of no use, so they are killed rather than waited for.
        pool.close(kill=not finished)


# Chunks in flight per process: the bound on how far reading runs ahead of the results.
WINDOW_PER_PROCESS = 4


class _Window:
    """The chunks in flight, oldest first, and who evaluates them.

    Balancing is dynamic: each worker is kept holding DEPTH chunks (the one it evaluates and
    the next, so it never waits for this process), and this process, which also collects
    results and makes the report, evaluates a chunk only when it would otherwise wait: the
    oldest chunk no worker holds, or, when no more can be read (the input is all read, or
    the window is full), one a worker holds but has not begun (see `_Pool.take_back`), so
    no process idles long at the end."""

    def __init__(
        self,
        here: Worker,
        pool: _Pool,
        source: Iterator[list[Job]],
        progress: Callable[[int], None] | None,
    ) -> None:
        self.chunks: deque[_Chunk] = deque()
        self.here = here
        self.pool = pool
        self.source: Iterator[list[Job]] | None = source  # None once it is exhausted
        self.progress = progress
        self.limit = WINDOW_PER_PROCESS
        self.seq = 0
        self.done = 0

    def _add(self, jobs: list[Job]) -> _Chunk:
        chunk = _Chunk(self.seq, jobs)
        self.seq += 1
        self.chunks.append(chunk)
        return chunk

    def warm(self) -> None:
        """Evaluate the first job here, as a chunk of its own (chunk bounds change nothing
        in the results: see `Compactor`); the rest of its batch is the next chunk."""
        batch = next(self.source, None) if self.source is not None else None
        if not batch:
            self.source = None
            return
        self._evaluate(self._add(batch[:1]))
        if batch[1:]:
            self._add(batch[1:])

    def _fill(self) -> None:
        while self.source is not None and len(self.chunks) < self.limit:
            batch = next(self.source, None)
            if batch is None:
                self.source = None
            else:
                self._add(batch)

    def _evaluate(self, chunk: _Chunk) -> None:
        chunk.results = self.here.chunk(chunk.jobs)
        chunk.remote = False

    def results(self) -> Iterator[RunResult]:
        """Every chunk's runs, in order."""
        while True:
            self._fill()
            self.pool.feed(c for c in self.chunks if c.results is None and not c.remote)
            while self.chunks and self.chunks[0].results is not None:
                yield from self._pop()
            if not self.chunks and self.source is None:
                return
            if self.chunks:
                self._step()

    def _step(self) -> None:
        """One thing to do while the oldest chunk is not done: take in results that have
        come, else evaluate a chunk here, else wait for a worker."""
        if self.pool.slots and self.pool.wait(timeout=0):
            return
        mine = next((c for c in self.chunks if c.results is None and not c.remote), None)
        if mine is None and (self.source is None or len(self.chunks) >= self.limit):
            mine = self.pool.take_back()  # nothing more to read, or not yet
        if mine is not None:
            self._evaluate(mine)
        else:
            self.pool.wait()

    def _pop(self) -> list[RunResult]:
        head = self.chunks.popleft()
        assert head.results is not None
        self.done += len(head.results)
        if self.progress:
            self.progress(self.done)
        return head.results


# --------------------------------------------------------------------------------------------
# Worker processes


@dataclass(eq=False)
class _Chunk:
    seq: int  # its place in the job order
    jobs: list[Job]
    results: list[RunResult] | None = None
    remote: bool = False  # held by a worker process; else evaluated here when its turn comes
    deaths: list[str] = field(default_factory=list)  # how each worker evaluating it died


@dataclass(eq=False)
class _Slot:
    """One worker process: chunks go out on `tasks`, results come back on `results`, both in
    the order the chunks were sent. `running` (shared memory) holds the `seq` of the chunk
    it is evaluating, -1 between chunks: written by the worker before and after each, so it
    is still right when the worker is killed, whatever its results pipe had sent by then."""

    process: BaseProcess
    tasks: Connection
    results: Connection
    running: Any  # multiprocessing.sharedctypes.RawValue("q")
    # The seq of a chunk this process took back (see `_Pool.take_back`): the worker skips
    # it, answering None, unless it had begun it.
    skip: Any
    held: deque[_Chunk] = field(default_factory=deque)

    def stop(self, kill: bool) -> str:
        """End the process (`kill`: at once, else once it has read the stop message) and
        say how it ended."""
        if kill:
            self.process.kill()
        self.process.join(_JOIN_SECONDS)
        cause = _cause(self.process.exitcode)
        if self.process.exitcode is None:
            self.process.kill()
            self.process.join()
        for end in (self.tasks, self.results):
            end.close()
        return cause


# Long enough for a worker told to stop (or killed) to exit, short enough not to hang a run.
_JOIN_SECONDS = 5.0

# Pools not yet closed, for `stop_workers` (the command line's last word on SIGTERM).
_LIVE: set[_Pool] = set()


def stop_workers() -> None:
    """Kill every worker process still running. A run's own cleanup does it when its
    generator is closed; this is for an exception raised between two of its results."""
    for pool in list(_LIVE):
        pool.close(kill=True)


class _Pool:
    """Worker processes, each a `_Slot`, each evaluating the chunks sent to it in order.

    Unlike concurrent.futures' pool, where one death fails every pending future, a worker's
    death is precisely attributed: `_Slot.running` names the chunk it was evaluating. That
    chunk is sent again, to a worker started in its place (or, if none can be started, to
    another, or evaluated here); when a chunk has seen RETRIES + 1 workers die evaluating
    it, its traces become errors. The other chunks it held are simply sent again (not those
    this process took back and evaluated: see `take_back`). A worker
    that dies between chunks is replaced as long as `spares` lasts (one per worker asked
    for), so a worker that cannot even start is not restarted for ever. Workers are forked
    from this process while it runs no other thread (no lock of another thread can be
    inherited held), and they die with it (see `signals.become_child`)."""

    def __init__(
        self,
        args: tuple[Suite, int, Path | None, TraceSettings | None],
        notify: Callable[[str], None],
    ):
        import multiprocessing

        self.fork = "fork" in multiprocessing.get_all_start_methods()
        self.context: Any = multiprocessing.get_context("fork" if self.fork else "spawn")
        self.args = args
        self.notify = notify
        self.slots: list[_Slot] = []
        self.spares = 0
        _LIVE.add(self)

    def start(self, count: int) -> int:
        """Start up to `count` workers; fewer (with a note) when the system refuses more."""
        self.spares = count
        for _ in range(count):
            error = self._start_one()
            if error:
                self.notify(
                    f"note: could start only {len(self.slots)} of {count} worker processes"
                    f" ({error}); continuing with {_processes(len(self.slots) + 1)}"
                )
                break
        return len(self.slots)

    def _start_one(self) -> str | None:
        """Fork one worker, first in `slots` (so a chunk sent again prefers it); None, or why
        it could not be started."""
        ends: list[Connection] = []
        try:
            tasks_in, tasks = self.context.Pipe(duplex=False)
            ends += (tasks_in, tasks)
            results, results_out = self.context.Pipe(duplex=False)
            ends += (results, results_out)
            _widen(tasks, results)
            running = self.context.RawValue("q", -1)
            skip = self.context.RawValue("q", -1)
            # A forked child inherits the parent's ends of the other workers' pipes: it
            # closes them (a spawned one gets nothing it was not given).
            inherited = [e for s in self.slots for e in (s.tasks, s.results)] if self.fork else []
            process = self.context.Process(
                target=_serve,
                args=(
                    tasks_in,
                    results_out,
                    [*inherited, tasks, results],
                    (running, skip),
                    *self.args,
                ),
                kwargs={"parent": os.getpid()},
                daemon=True,  # multiprocessing's exit handler kills any left
            )
            # A signal while forking would leave a child this process does not know about.
            with signals_held():
                process.start()
                self.slots.insert(0, _Slot(process, tasks, results, running, skip))
        except OSError as exc:  # EAGAIN, ENOMEM, EMFILE: a process or file limit, no memory
            for end in ends:
                end.close()
            return exc.strerror or str(exc)
        tasks_in.close()  # the child's ends: with these closed here, its death is an EOF
        results_out.close()
        return None

    def assign(self, chunk: _Chunk) -> None:
        """Send `chunk` to the worker holding the fewest; if none is left, it is this
        process's to evaluate."""
        while self.slots:
            slot = min(self.slots, key=lambda s: len(s.held))
            if self._send(slot, chunk):
                return
        chunk.remote = False

    def _send(self, slot: _Slot, chunk: _Chunk) -> bool:
        try:
            slot.tasks.send((chunk.seq, chunk.jobs))
        except OSError:  # the worker died since its last results
            self._lost(slot)
            return False
        slot.held.append(chunk)
        chunk.remote = True
        return True

    def feed(self, chunks: Iterable[_Chunk]) -> None:
        """Send chunks, oldest first, to every worker holding fewer than DEPTH."""
        for chunk in chunks:
            hungry = [s for s in self.slots if len(s.held) < DEPTH]
            if not hungry:
                return
            while hungry and not self._send(min(hungry, key=lambda s: len(s.held)), chunk):
                hungry = [s for s in self.slots if len(s.held) < DEPTH]

    def take_back(self) -> _Chunk | None:
        """A chunk some worker holds but has not begun (the last sent), for this process to
        evaluate instead; the worker is told to skip it. Never a chunk a worker died on:
        it may kill whoever evaluates it."""
        for slot in self.slots:
            if any(c.results is not None for c in slot.held):  # one taken back already
                continue
            waiting = list(slot.held)[1:]  # the first is begun, or about to be
            for chunk in reversed(waiting):
                if not chunk.deaths:
                    slot.skip.value = chunk.seq
                    if slot.running.value == chunk.seq:  # it has begun it meanwhile
                        return None
                    chunk.remote = False
                    return chunk
        return None

    def wait(self, timeout: float | None = None) -> bool:
        """Take in what workers sent (or notice that one died): block until there is
        something, or at most `timeout` seconds. True when there was."""
        from multiprocessing.connection import wait

        assert self.slots, "a chunk is held by a worker, so one is alive"
        ends = [end for s in self.slots for end in (s.results, s.process.sentinel)]
        ready = set(wait(ends, timeout))
        for slot in [s for s in self.slots if {s.results, s.process.sentinel} & ready]:
            if slot in self.slots:  # not found dead meanwhile, sending it another's chunk
                self._collect(slot)
        return bool(ready)

    def _collect(self, slot: _Slot) -> None:
        try:
            while slot.results.poll():
                seq, runs = slot.results.recv()
                chunk = slot.held.popleft()
                assert chunk.seq == seq, "a worker answers its chunks in the order sent"
                if chunk.results is None:  # else this process took it back and did it
                    chunk.results = runs  # None: skipped, so this process's to do
                    chunk.remote = False
        except Exception:  # EOF, or a message cut short: the worker died sending it
            self._lost(slot)
            return
        if not slot.process.is_alive():
            self._lost(slot)

    def _lost(self, slot: _Slot) -> None:
        """A worker died: blame the chunk it was evaluating, send the others again."""
        self.slots.remove(slot)
        cause = slot.stop(kill=True)
        held = [c for c in slot.held if c.results is None]  # not those taken back
        slot.held.clear()
        blamed = next((c for c in held if c.seq == slot.running.value), None)
        if blamed is not None:
            held.remove(blamed)
            if self._blame(blamed, cause):
                held.insert(0, blamed)  # first, so that it goes to the new worker
        elif held and self.spares > 0:
            self.spares -= 1
            self._replace(cause)
        else:
            self.notify(
                f"note: a worker process died between chunks ({cause}); continuing with"
                f" {_processes(len(self.slots) + 1)}"
            )
        for chunk in held:
            self.assign(chunk)

    def _blame(self, chunk: _Chunk, cause: str) -> bool:
        """Count a death against `chunk`; True when it is to be evaluated again."""
        chunk.deaths.append(cause)
        self._replace(cause)
        traces = f"{chunk.jobs[0].fixture} .. {chunk.jobs[-1].fixture}"
        if len(chunk.deaths) > RETRIES:
            self.notify(
                f"note: a worker process died again ({cause}) evaluating {traces}:"
                f" those {len(chunk.jobs)} traces are reported as errors"
            )
            chunk.results = _dead_runs(chunk)
            chunk.remote = False
            return False
        self.notify(
            f"note: a worker process died ({cause}) evaluating {traces}:"
            " they are evaluated again in a new one"
        )
        return True

    def _replace(self, cause: str) -> None:
        error = self._start_one()
        if error:
            self.notify(
                f"note: cannot start a worker process in place of one that died ({cause}):"
                f" {error}; continuing with {_processes(len(self.slots) + 1)}"
            )

    def close(self, kill: bool) -> None:
        """Stop every worker: told to stop and waited for, or (`kill`) killed."""
        if not kill:
            for slot in self.slots:
                with suppress(OSError):
                    slot.tasks.send(None)
        for slot in self.slots:
            slot.stop(kill)
        self.slots.clear()
        _LIVE.discard(self)


# A chunk of JSON Lines jobs carries its lines (32 x 20 KB): in a pipe of the default 64 KB,
# this process would wait on each send until the worker, busy evaluating, had read it piece
# by piece (its reader thread gets the GIL once per switch interval, 5 ms): at 10,000 traces
# that was half of this process's time. Linux lets a pipe hold up to 1 MiB unprivileged.
PIPE_BYTES = 1 << 20


def _widen(*ends: Connection) -> None:
    """Make each pipe hold PIPE_BYTES, where the system allows it (else it stays as it is)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)  # Linux only
    if setsize is None:  # pragma: no cover
        return
    for end in ends:
        with suppress(OSError):
            fcntl.fcntl(end.fileno(), setsize, PIPE_BYTES)


def _processes(count: int) -> str:
    return f"{count} process" if count == 1 else f"{count} processes"


def _cause(exitcode: int | None) -> str:
    """How a worker process ended, for a trace's reason."""
    if exitcode is None:
        return "it stopped answering"
    if exitcode > 0:
        return f"exit code {exitcode}"
    if exitcode == 0:
        return "it exited without a word"
    number = -exitcode
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"killed by signal {number}"
    oom = ": out of memory?" if number == getattr(signal, "SIGKILL", None) else ""
    return f"killed by signal {number}, {name}{oom}"


def _dead_runs(chunk: _Chunk) -> list[RunResult]:
    first, last = chunk.deaths[0], chunk.deaths[-1]
    again = "" if last == first else f" ({last})"
    others = len(chunk.jobs) - 1
    culprit = f"this trace or one of the {others} evaluated with it" if others else "this trace"
    reason = (
        f"the worker evaluating this trace died ({first}); retried once, its worker died"
        f" again{again}: the cause is {culprit}"
    )
    return [
        RunResult(job.case_id or guess_case_id(job) or "?", ERROR, reason, job.fixture)
        for job in chunk.jobs
    ]


# --------------------------------------------------------------------------------------------
# Inside a worker process


_PARENT_POLL_SECONDS = 0.25  # elsewhere than Linux, how soon a worker notices its parent died


def _serve(
    tasks: Connection,
    results: Connection,
    inherited: list[Connection],
    shared: tuple[Any, Any],
    suite: Suite,
    max_bytes: int,
    root: Path | None,
    settings: TraceSettings | None,
    *,
    parent: int,
) -> None:
    """A worker process's life: chunks in, results out, until told to stop.

    A reader thread takes chunks off the pipe as they come and a sender thread sends the
    results, so neither side ever waits on a full pipe while the other does too."""
    import queue
    import threading

    for end in inherited:  # the parent's ends of other workers' pipes, copied by the fork
        end.close()
    become_child(parent)  # signals held while forking (see _Pool._start_one)
    worker = Worker(suite, max_bytes, root, settings)
    inbox: queue.SimpleQueue[tuple[int, list[Job]] | None] = queue.SimpleQueue()
    outbox: queue.SimpleQueue[tuple[int, list[RunResult] | None] | None] = queue.SimpleQueue()
    threading.Thread(target=_receive, args=(tasks, inbox, parent), daemon=True).start()
    sender = threading.Thread(target=_send, args=(results, outbox), daemon=True)
    sender.start()
    running, skip = shared  # see _Slot
    while (task := inbox.get()) is not None:
        running.value = task[0]
        # Set before `skip` is read, as the parent sets `skip` before reading this: one of
        # the two sees the other's, so a chunk taken back is rarely evaluated twice (and
        # twice is only time: the parent keeps one result).
        runs = None if skip.value == task[0] else worker.chunk(task[1])
        running.value = -1
        outbox.put((task[0], runs))
    outbox.put(None)
    sender.join()


def _receive(tasks: Connection, inbox: Any, parent: int) -> None:
    try:
        while True:
            while not tasks.poll(_PARENT_POLL_SECONDS):
                if os.getppid() != parent:
                    os._exit(ORPHANED)
            task = tasks.recv()
            inbox.put(task)
            if task is None:
                return
    except (EOFError, OSError):  # the parent closed its end: it is gone, or ending the run
        os._exit(ORPHANED)


def _send(results: Connection, outbox: Any) -> None:
    while (item := outbox.get()) is not None:
        try:
            results.send(item)
        except OSError:  # the parent is gone
            os._exit(ORPHANED)


# --------------------------------------------------------------------------------------------
# One pass of work over parts, in forked processes (loading the case files)


def map_in_processes(work: Callable[[_Part], _Out], parts: list[_Part]) -> list[_Out]:
    """`[work(part) for part in parts]`, the first part in this process and each other in a
    forked one (`work` needs no pickling: the children are copies of this process).

    A part whose process fails in any way (an exception in `work`, a crash, the
    out-of-memory killer) is done again here, so an error is raised from here exactly as
    without the children; results are always in the order of `parts`. Without fork (not
    Linux/macOS) everything is done here."""
    if len(parts) < 2 or not hasattr(os, "fork"):
        return [work(part) for part in parts]
    children: list[tuple[int, int]] = []  # (pid, read end of its result pipe)
    try:
        for part in parts[1:]:
            try:
                _fork_part(work, part, children)
            except OSError:  # a process limit, no memory: the rest is done here
                break
        forked = len(children)
        out = [work(parts[0])]
        for i, part in enumerate(parts[1:]):
            if i >= forked:
                out.append(work(part))
                continue
            pid, end = children[0]
            data = _read_all(end)
            with signals_held():  # reaped and forgotten together: its pid is free from now on
                _, status = os.waitpid(pid, 0)
                os.close(end)
                children.pop(0)
            got = _unpickled(data) if os.waitstatus_to_exitcode(status) == 0 else None
            out.append(got[0] if got else work(part))
        return out
    finally:  # an error here (or Ctrl-C): no child outlives the call
        for pid, end in children:
            with suppress(OSError):
                os.close(end)
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with suppress(OSError):
                os.waitpid(pid, 0)


def _fork_part(work: Callable[[_Part], _Out], part: _Part, children: list[tuple[int, int]]) -> None:
    """Fork a child doing `part`, recorded in `children` as (pid, read end of its pipe)."""
    read_end, write_end = os.pipe()
    parent = os.getpid()
    try:
        with signals_held():  # a signal between the fork and recording the child would lose it
            pid = os.fork()
            if pid == 0:
                _child(work, part, read_end, write_end, parent)
            children.append((pid, read_end))
            os.close(write_end)
    except OSError:
        os.close(read_end)
        os.close(write_end)
        raise


def _child(
    work: Callable[[_Part], _Out], part: _Part, read_end: int, write_end: int, parent: int
) -> NoReturn:
    """A forked child: its answer on the pipe, or nothing (the parent then does the part
    itself), and out without the parent's cleanup (atexit, reports, temporary files)."""
    import pickle

    code = 1
    try:
        os.close(read_end)
        become_child(parent)
        data = pickle.dumps(work(part), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(data)
        code = 0
    finally:
        os._exit(code)


def _read_all(end: int) -> bytes:
    chunks = []
    with suppress(OSError):
        while block := os.read(end, 1 << 20):
            chunks.append(block)
    return b"".join(chunks)


def _unpickled(data: bytes) -> tuple[Any] | None:
    """A child's result, or None when it sent nothing whole."""
    import pickle

    try:
        return (pickle.loads(data),)
    except Exception:  # empty, or cut short
        return None


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
    by_case, unmatched = _by_case(suite, runs, ignore)
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
        else:
            result.required_passes, note = required_passes(
                case.fields, len(result.runs), min_run_pass_rate
            )
            if note:
                result.notes.append(note)
        results.append(result)
    return results, unmatched


def _by_case(
    suite: Suite, runs: Iterable[RunResult], ignore: Collection[str]
) -> tuple[dict[str, Runs], list[RunResult]]:
    """Each case's runs, in order, and the runs that match no case (less those in `ignore`)."""
    kinds = RunKinds()  # what runs have in common, held once for every case (see `Runs`)
    by_case = {case_id: Runs(kinds=kinds) for case_id in suite.cases}
    unmatched: list[RunResult] = []
    compact = Compactor()
    for run in runs:
        held = by_case.get(run.case_id)
        if held is None:
            if run.case_id not in ignore:
                unmatched.append(run)
            continue
        superseded = run.status != PASS and held.passed == len(held) > 0
        held.append(run)
        if superseded:
            # The case's first run that did not pass represents it from now on: its first
            # run becomes one of the many, and keeps what they keep (see Compactor).
            held.compact_first(compact.shrink(replace(held[0])))
    return by_case, unmatched


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
