"""The run: find each case's traces, evaluate them (in parallel when asked), group the results.

Traces are read one at a time, in the worker that evaluates them, so memory does not grow
with the number of traces; only the small per-run result rows are kept.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from .loading.traces import (
    DEFAULT_MAX_TRACE_BYTES,
    TraceError,
    parse_trace,
    read_trace_file,
)
from .outcomes import ERROR, FAIL, NOT_RUN, PASS, CaseResult, CheckResult, RunResult
from .problems import UsageError
from .suite import Suite


@dataclass(frozen=True)
class Job:
    """One trace to evaluate: a file, or one line of a JSON Lines file (carried as text)."""

    case_id: str | None  # None: the trace's own caseId decides (JSON Lines)
    fixture: str  # how the report names it
    path: str | None = None
    text: str | None = None
    problem: str | None = None  # why it cannot be evaluated, known before reading (a line too long)


@dataclass
class Plan:
    """What a fixtures folder holds for each case, and the cases it holds nothing usable for."""

    fixtures: Path | None = None
    shown: str = ""
    # Per case with traces: its id and its run files (None: the single file <id>.json).
    # Names only: Job objects are made one at a time, so a folder of 100,000 traces does not
    # hold 100,000 jobs in memory.
    sources: list[tuple[str, list[str] | None]] = field(default_factory=list)
    # Cases that get no run, with the status and reason to report.
    unrun: dict[str, tuple[str, str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def job_count(self) -> int:
        return sum(1 if runs is None else len(runs) for _, runs in self.sources)

    def jobs(self) -> Iterator[Job]:
        assert self.fixtures is not None
        for case_id, runs in self.sources:
            if runs is None:
                path = self.fixtures / f"{case_id}.json"
                yield Job(case_id, f"{self.shown}/{case_id}.json", str(path))
                continue
            for name in runs:
                path = self.fixtures / case_id / name
                yield Job(case_id, f"{self.shown}/{case_id}/{name}", str(path))


def plan_directory(
    suite: Suite, fixtures: Path, shown: str, known: Collection[str] | None = None
) -> Plan:
    """`FIXTURES/<id>.json` (one run) or `FIXTURES/<id>/*.json` (several runs) per case.

    `known` is every case id of the suite before a --case/--tag selection: fixtures of cases
    left out on purpose are not warned about."""
    plan = Plan(fixtures, shown)
    for case_id in suite.cases:
        single = fixtures / f"{case_id}.json"
        folder = fixtures / case_id
        has_single = os.path.lexists(single)
        has_folder = folder.is_dir()
        if has_single and has_folder:
            plan.unrun[case_id] = (
                ERROR,
                f"ambiguous fixtures: both {shown}/{case_id}.json and {shown}/{case_id}/ exist; keep one",
            )
        elif has_single:
            plan.sources.append((case_id, None))
        elif has_folder:
            runs = sorted(
                (name for name in os.listdir(folder) if name.endswith(".json")), key=run_order
            )
            if runs:
                plan.sources.append((case_id, runs))
            else:
                plan.unrun[case_id] = (
                    NOT_RUN,
                    f"no trace fixture: {shown}/{case_id}/ holds no *.json file",
                )
        else:
            plan.unrun[case_id] = (
                NOT_RUN,
                f"no trace fixture: looked for {shown}/{case_id}.json and {shown}/{case_id}/*.json",
            )
    known = set(suite.cases if known is None else known)
    for entry in sorted(fixtures.iterdir()):
        stem = entry.name[:-5] if entry.name.endswith(".json") else entry.name
        if (entry.name.endswith(".json") or entry.is_dir()) and stem not in known:
            plan.warnings.append(f"{shown}/{entry.name}: matches no case id, not evaluated")
    return plan


_DIGITS = re.compile(r"(\d+)")


def run_order(name: str) -> tuple[tuple[int | str, ...], str]:
    """Sort key for a case's run files: numbers in names compare as numbers, so `run2.json`
    comes before `run10.json`; names equal as numbers (`run01`, `run1`) keep plain order.

    Splitting on digit runs puts text at even positions and numbers at odd ones, so two keys
    never compare a number with text."""
    parts = tuple(int(piece) if i % 2 else piece for i, piece in enumerate(_DIGITS.split(name)))
    return parts, name


_CASE_ID = re.compile(r'"caseId"\s*:\s*"((?:[^"\\]|\\.)*)"')


def iter_jsonl(path: Path, shown: str, max_bytes: int | None = None) -> Iterator[Job]:
    """One job per non-blank line, read lazily; the line's caseId picks its case.

    A line longer than `max_bytes` (default: the limit `evaluate_all` runs with, read when
    the first line is) is read no further than the limit plus one byte; the rest is skipped
    in small reads while its size is counted, and the line becomes a job reporting it. So a
    1 GiB line costs the limit in memory, not 2 GiB."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed by the generator
    except OSError as exc:
        raise UsageError(f"cannot read {shown}: {exc.strerror or exc}") from None
    limit = _MAX_BYTES if max_bytes is None else max_bytes
    with handle:
        number = 0
        while raw := handle.readline(limit + 1):
            number += 1
            if len(raw) > limit:
                yield _long_line(handle, raw, limit, f"{shown}:{number}")
            elif raw.strip():
                text = raw.decode("utf-8", errors="surrogateescape")
                yield Job(None, f"{shown}:{number}", text=text)


_SKIP_CHUNK = 1024 * 1024


def _long_line(handle: BinaryIO, head: bytes, limit: int, fixture: str) -> Job:
    """A job for a line over the limit: the rest of it is read and dropped, counting."""
    size = len(head)
    chunk = head
    while not chunk.endswith(b"\n"):
        chunk = handle.readline(_SKIP_CHUNK)
        if not chunk:
            break
        size += len(chunk)
    problem = (
        f"the line is {size} bytes, over the limit of {limit} bytes; raise --max-trace-bytes"
        " to evaluate it"
    )
    # The start of the line is kept only to find the caseId it names.
    start = head[:4096].decode("utf-8", errors="surrogateescape")
    return Job(None, fixture, text=start, problem=problem)


def guess_case_id(job: Job) -> str | None:
    """For a JSON Lines trace that cannot be parsed: the caseId it seems to name, if any."""
    match = _CASE_ID.search(job.text or "")
    # Bytes that are not UTF-8 were decoded as lone surrogates: not text a report can hold.
    return _LONE_SURROGATE.sub("\ufffd", match.group(1)) if match else None


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


# --------------------------------------------------------------------------------------------
# Evaluation, in this process or in workers

_SUITE: Suite | None = None
_MAX_BYTES = DEFAULT_MAX_TRACE_BYTES
_ROOT: Path | None = None


def _init_worker(suite: Suite, max_bytes: int, root: Path | None) -> None:
    global _SUITE, _MAX_BYTES, _ROOT
    _SUITE, _MAX_BYTES, _ROOT = suite, max_bytes, root


def evaluate_job(job: Job) -> RunResult:
    """Read, parse and evaluate one trace. Never raises."""
    suite = _SUITE
    assert suite is not None
    if job.problem is not None:
        return RunResult(job.case_id or guess_case_id(job) or "?", ERROR, job.problem, job.fixture)
    try:
        if job.path is not None:
            parsed = read_trace_file(job.path, _ROOT, _MAX_BYTES)
        else:
            raw = (job.text or "").encode("utf-8", errors="surrogateescape")
            if len(raw) > _MAX_BYTES:
                raise TraceError(
                    f"the line is {len(raw)} bytes, over the limit of {_MAX_BYTES} bytes"
                )
            parsed = parse_trace(raw)
    except TraceError as exc:
        case_id = job.case_id or guess_case_id(job) or "?"
        return RunResult(case_id, ERROR, str(exc), job.fixture)
    except Exception as exc:  # a bug must cost one trace, not the run
        reason = f"internal error while reading this trace (please report it as a bug): {exc!r}"
        return RunResult(job.case_id or "?", ERROR, reason, job.fixture)
    run = suite.evaluate(parsed.document, job.case_id, job.fixture)
    run.notes[:0] = parsed.notes
    return run


def _evaluate_chunk(jobs: list[Job]) -> list[RunResult]:
    """Evaluate a chunk in a worker. Runs that cannot be their case's representative are
    compacted here already (see `_Compactor`), so less is sent back to the parent."""
    compact = _Compactor()
    return [compact(evaluate_job(job)) for job in jobs]


# Jobs per chunk sent to a worker: ~30 ms of work for a 20 KB trace, so the pickling and
# queueing cost per chunk is small, yet a run of a few hundred traces still spreads evenly.
DEFAULT_CHUNK = 32


class _Compactor:
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
    represent their case are compacted (`_Compactor`). When all jobs fit in one chunk, no
    process is started."""
    compact = _Compactor()
    done = 0
    # Before the first job is read: a JSON Lines reader takes its line limit from here.
    _init_worker(suite, max_bytes, root)
    batches = _chunks(jobs, chunk or DEFAULT_CHUNK)
    first = next(batches, None)
    second = next(batches, None) if workers > 1 and first is not None else None
    if second is None:  # one process: a handful of jobs, or --jobs 1
        for job in _chain(first, batches):
            done += 1
            yield compact(evaluate_job(job))
            if progress:
                progress(done)
        return
    import multiprocessing
    from concurrent.futures import Future, ProcessPoolExecutor

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    window: deque[list[Job] | Future[list[RunResult]]] = deque()
    with ProcessPoolExecutor(workers - 1, context, _init_worker, (suite, max_bytes, root)) as pool:

        def drain(limit: int) -> Iterator[RunResult]:
            nonlocal done
            while len(window) > limit:
                entry = window.popleft()
                results = _evaluate_chunk(entry) if isinstance(entry, list) else entry.result()
                for run in results:
                    yield compact(run)
                done += len(results)
                if progress:
                    progress(done)

        batches_all = _chain_batches(first, second, batches)
        for index, batch in enumerate(batches_all):
            local = index % workers == 0
            window.append(batch if local else pool.submit(_evaluate_chunk, batch))
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


def count_lines(path: Path) -> int | None:
    """Non-blank lines of a JSON Lines file (for a progress bar's total); None if unreadable.

    Read in blocks, not lines, so one huge line is never held whole."""
    count = 0
    blank = True  # the line being read has only whitespace so far
    try:
        with open(path, "rb") as handle:
            while block := handle.read(_SKIP_CHUNK):
                *ended, rest = block.split(b"\n")
                for piece in ended:
                    count += not (blank and not piece.strip())
                    blank = True
                blank = blank and not rest.strip()
    except OSError:
        return None
    return count + (not blank)


def group_results(
    suite: Suite,
    runs: Iterable[RunResult],
    plan_unrun: dict[str, tuple[str, str]],
    ignore: Collection[str] = (),
) -> tuple[list[CaseResult], list[RunResult]]:
    """Case results sorted by id, plus runs that match no case (JSON Lines).

    Runs of the case ids in `ignore` (cases a --case/--tag selection left out) are dropped:
    they match a case, just not one that was asked for."""
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
        if case_id in plan_unrun:
            result.status_override, result.reason_override = plan_unrun[case_id]
        elif not result.runs:
            result.status_override = NOT_RUN
            result.reason_override = "no trace in the JSON Lines input names this case"
        results.append(result)
    return results, unmatched
