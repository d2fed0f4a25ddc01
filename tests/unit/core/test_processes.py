"""Worker processes: how many are started, and what a worker's death costs.

A worker is made to die by a patched `Worker.chunk` that SIGKILLs its own process (the
patch is inherited by the fork), as the out-of-memory killer would.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, Workspace, good_trace, run_cli, set_verdict

import validator.report as report_module
from validator import processes
from validator.api import load_suite
from validator.evaluation.runner import evaluate_all
from validator.evaluation.worker import Worker
from validator.inputs import Job
from validator.results import RunResult

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork"), reason="worker deaths are simulated in forked workers"
)


def _four_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the machine: the cores this process may use (see processes.usable_cores)."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)


def _jobs(count: int) -> list[Job]:
    jobs = []
    for i in range(count):
        trace = good_trace(f"case-{i % 3}")
        if i % 5 == 1:
            set_verdict(trace, "REVISE")
        jobs.append(Job(None, f"t:{i}", text=json.dumps(trace) if i % 11 else "{oops"))
    return jobs


@pytest.fixture
def suite(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> Any:
    _four_cores(monkeypatch)
    for c in range(3):
        ws.case(GOOD_CASE, id=f"case-{c}", name=f"case-{c}")
    return load_suite(ws.cases, specs=[])


def _kill_on(monkeypatch: pytest.MonkeyPatch, fixture: str, marker: Path | None = None) -> None:
    """Workers die on the chunk holding `fixture`: always, or (with `marker`) the first
    time only."""
    parent = os.getpid()
    real = Worker.chunk

    def deadly(self: Worker, jobs: list[Job]) -> list[RunResult]:
        in_worker = os.getpid() != parent and any(job.fixture == fixture for job in jobs)
        if in_worker and (marker is None or not marker.exists()):
            if marker is not None:
                marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return real(self, jobs)

    monkeypatch.setattr(Worker, "chunk", deadly)


def test_a_worker_killed_once_costs_nothing_but_time(
    suite: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs = _jobs(90)
    serial = list(evaluate_all(suite, jobs, 1, chunk=4))
    # The first job is a chunk of its own, evaluated before any fork; the next chunk (1..3)
    # is the first the worker is sent, which is never taken back (see _Pool.take_back).
    _kill_on(monkeypatch, "t:2", tmp_path / "killed")
    notes: list[str] = []
    parallel = list(evaluate_all(suite, jobs, 2, chunk=4, notify=notes.append))
    assert (tmp_path / "killed").exists(), "the worker holding t:2 was killed"
    assert parallel == serial
    assert len(notes) == 1 and "killed by signal 9" in notes[0], notes
    assert "evaluated again" in notes[0]


def test_a_chunk_whose_worker_dies_twice_becomes_errors_and_the_rest_completes(
    suite: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs = _jobs(300)
    serial = list(evaluate_all(suite, jobs, 1, chunk=4))
    # With 3 processes, the two workers are sent the chunks after the first job's, each
    # worker's first (never taken back) being 1..3 or 4..7.
    _kill_on(monkeypatch, "t:5")
    notes: list[str] = []
    parallel = list(evaluate_all(suite, jobs, 3, chunk=4, notify=notes.append))
    assert [r.fixture for r in parallel] == [f"t:{i}" for i in range(300)]
    dead = [r for r in parallel if r.fixture in {"t:4", "t:5", "t:6", "t:7"}]
    assert [r.status for r in dead] == ["error"] * 4
    assert dead[0].reason == (
        "the worker evaluating this trace died (killed by signal 9, SIGKILL: out of memory?);"
        " retried once, its worker died again: the cause is this trace or one of the 3"
        " evaluated with it"
    )
    assert [r.case_id for r in dead] == [s.case_id for s in serial[4:8]]
    # Which later runs are kept whole depends on the statuses before them (Compactor): the
    # rest is compared by what the report shows of every run.
    shown = [(r.fixture, r.status, r.reason, r.verdict, r.tool_call_count) for r in parallel]
    expected = [(r.fixture, r.status, r.reason, r.verdict, r.tool_call_count) for r in serial]
    assert shown[:4] == expected[:4] and shown[8:] == expected[8:]
    assert len(notes) == 2 and "reported as errors" in notes[1], notes


def _count_forks(monkeypatch: pytest.MonkeyPatch, fail_after: int | None = None) -> list[int]:
    forks: list[int] = []
    real = os.fork

    def fork() -> int:
        if fail_after is not None and len(forks) >= fail_after:
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        if len(forks) >= 8:  # a test must not fork thousands of processes when it fails
            raise AssertionError(f"fork number {len(forks) + 1}")
        forks.append(1)
        return real()

    monkeypatch.setattr(os, "fork", fork)
    return forks


def _folder(ws: Workspace, traces: int) -> None:
    ws.case()
    for i in range(traces):
        trace = good_trace() if i % 4 else set_verdict(good_trace(), "REVISE")
        ws.trace("db-slow", trace, name=f"db-slow/run-{i:04d}.json")


def _run(ws: Workspace, *args: str) -> Any:
    out = ws.root / f"out-{'-'.join(args) or 'default'}"
    result = run_cli(
        "run", "--fixtures", "fixtures", "--out", str(out), *args, cwd=ws.root
    )  # fmt: skip
    return result, (out / "report.json").read_bytes() + (out / "report.md").read_bytes()


@pytest.mark.parametrize(
    ("traces", "jobs", "forks", "note"),
    [
        (40, "64", 1, "note: --jobs 64 lowered to 2 (4 usable cores; 40 traces, up to 32 per process)"),
        (200, "10000", 3, "note: --jobs 10000 lowered to 4 (4 usable cores)"),
        (20, "3", 0, "note: --jobs 3 lowered to 1 (20 traces, up to 32 per process)"),
        (200, "3", 2, None),
        (40, None, 1, None),  # the default asks for the usable cores: no note
    ],
)  # fmt: skip
def test_jobs_is_capped_by_the_cores_and_the_work(
    ws: Workspace,
    monkeypatch: pytest.MonkeyPatch,
    traces: int,
    jobs: str | None,
    forks: int,
    note: str | None,
) -> None:
    _four_cores(monkeypatch)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setattr(report_module, "CONCURRENT_MIN_ROWS", 10**9)  # forks: workers only
    _folder(ws, traces)
    _, serial = _run(ws, "--jobs", "1")
    counted = _count_forks(monkeypatch)
    result, reports = _run(ws, *(("--jobs", jobs) if jobs else ()))
    assert result.code == 1, result.err
    assert len(counted) == forks
    notes = [line for line in result.err.splitlines() if line.startswith("note:")]
    assert notes == ([note] if note else [])
    assert reports == serial


@pytest.mark.parametrize(("fail_after", "started"), [(0, 0), (1, 1)])
def test_a_fork_that_fails_means_fewer_workers_not_an_error(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, fail_after: int, started: int
) -> None:
    _four_cores(monkeypatch)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    _folder(ws, 300)
    _, serial = _run(ws, "--jobs", "1")
    _count_forks(monkeypatch, fail_after=fail_after)
    result, reports = _run(ws, "--jobs", "4")
    assert result.code == 1, result.err
    assert reports == serial
    processes = "process" if started == 0 else "processes"
    assert (
        f"note: could start only {started} of 3 worker processes (Resource temporarily"
        f" unavailable); continuing with {started + 1} {processes}" in result.err
    ), result.err
    assert "internal error" not in result.err


def test_a_batch_a_worker_has_done_is_not_taken_back_before_its_results_arrive(
    suite: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's results reach this process late (its sender is slow): a batch it has
    done, no longer running, looks unbegun from here until they arrive. Taking it back
    then would do it twice; each job is done once."""
    jobs = _jobs(40)
    serial = list(evaluate_all(suite, jobs, 1, chunk=4))
    parent, log = os.getpid(), tmp_path / "done.log"
    real_chunk, real_send = Worker.chunk, processes._send_all

    def chunk(self: Worker, batch: list[Job]) -> list[RunResult]:
        with log.open("a") as out:
            out.write(" ".join(job.fixture or "" for job in batch) + "\n")
        if os.getpid() == parent:
            time.sleep(0.05)  # this process is slower than the worker at its own batches
        return real_chunk(self, batch)

    def late(results: Any, outbox: Any) -> None:
        def slow_send(item: Any) -> None:
            time.sleep(0.2)
            results.send(item)

        class Late:
            send = staticmethod(slow_send)

        real_send(Late(), outbox)

    monkeypatch.setattr(Worker, "chunk", chunk)
    monkeypatch.setattr(processes, "_send_all", late)
    parallel = list(evaluate_all(suite, jobs, 2, chunk=4))
    assert parallel == serial
    done = log.read_text().split()
    assert sorted(done) == sorted(f"t:{i}" for i in range(40)), "each job once"


def test_a_slow_worker_holds_nothing_up_its_unbegun_chunk_is_taken_back(
    suite: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker is sent chunks 1 (t:1..3) and 2 (t:4..7) first, and stays in chunk 1 until
    this process has evaluated t:4: this process does every other chunk meanwhile, takes
    chunk 2 back, and the worker, told to skip it, does not evaluate it."""
    jobs = _jobs(40)
    serial = list(evaluate_all(suite, jobs, 1, chunk=4))
    parent = os.getpid()
    marker, log = tmp_path / "took-back", tmp_path / "worker.log"
    real = Worker.chunk
    here: list[str] = []

    def chunk(self: Worker, batch: list[Job]) -> list[RunResult]:
        names = [job.fixture for job in batch]
        if os.getpid() == parent:
            here.extend(names)
            runs = real(self, batch)
            if "t:4" in names:
                marker.touch()
            return runs
        with log.open("a") as out:
            out.write(" ".join(names) + "\n")
        deadline = time.monotonic() + 20
        while "t:1" in names and not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return real(self, batch)

    monkeypatch.setattr(Worker, "chunk", chunk)
    parallel = list(evaluate_all(suite, jobs, 2, chunk=4))
    assert parallel == serial
    done_there = log.read_text().split()
    assert done_there[:3] == ["t:1", "t:2", "t:3"], "the worker began with chunk 1"
    assert {"t:4", "t:5", "t:6", "t:7"} <= set(here), "chunk 2 was taken back"
    assert "t:4" not in done_there, "and skipped by the worker"
    assert sorted(here + done_there) == sorted(f"t:{i}" for i in range(40)), "each job once"
