"""Chaos through real processes: `python -m validator run --jobs 2`, its workers killed, the
run itself terminated or interrupted, a SIGTERM while the reports are written.

The corpus has 8 cases of 32 runs each, so with 2 processes and chunks of 32 each case is
one chunk, and the odd ones go to the worker. Case 1's traces are slow to evaluate (long
answers), so the worker is surely evaluating it when it is found busy; every other trace is
quick. Workers are found through /proc, so this is Linux only. Everything is bounded in
time; leftover processes are killed whatever happens.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, REPO, Workspace, good_trace, skip_if_sigint_ignored

LINUX = sys.platform.startswith("linux") and Path("/proc/self/stat").exists()
pytestmark = [
    pytest.mark.slow,  # chaos: processes killed and signalled mid-run
    pytest.mark.skipif(
        not LINUX, reason="worker processes are found and signalled through /proc (Linux)"
    ),
]
two_cores = pytest.mark.skipif(
    LINUX and len(os.sched_getaffinity(0)) < 2,
    reason="--jobs 2 needs 2 usable cores (it is lowered to 1 here: no worker to kill)",
)

ENV = dict(os.environ, PYTHONPATH=str(REPO), SOURCE_DATE_EPOCH="1700000000")
ENV.pop("GITHUB_STEP_SUMMARY", None)
CASES, RUNS = 8, 32
SLOW_CASE = "case-1"
BUSY_CPU_SECONDS = 0.1  # a worker that used this much is evaluating, not starting
SLOW_TRACE_SECONDS = 0.06  # CPU time for one trace of the slow case: ~2 s for its chunk
WAIT = 20.0  # seconds: the most any step may take (they take well under one)
ATTEMPTS = 3  # runs started to find a worker evaluating (see EndedFirst)


def _slow_answer(cases: Path) -> str:
    """An answer long enough that one trace takes SLOW_TRACE_SECONDS to evaluate here, so a
    chunk of them takes ~20 times the CPU time that marks a worker busy, however fast the
    text checks become (the length doubles until it is slow enough)."""
    from validator.api import load_suite
    from validator.evaluation.worker import Worker
    from validator.inputs import Job

    worker = Worker(load_suite(cases))
    worker(Job(SLOW_CASE, "warm-up", text=json.dumps(good_trace(SLOW_CASE))))  # first-use imports
    sentence = "A **slow query** on `orders` lacks an index: missing index on customer_ref. "
    repeats = 250
    while True:
        answer = sentence * repeats
        trace = json.dumps(good_trace(SLOW_CASE, finalAnswer=answer, executorAnswer=answer))
        job = Job(SLOW_CASE, "probe", text=trace)
        started = time.process_time()
        worker(job)
        if time.process_time() - started >= SLOW_TRACE_SECONDS or repeats >= 64_000:
            return answer
        repeats *= 2


@dataclass
class Corpus:
    root: Path
    reference: dict[str, Any]  # report.json of an undisturbed --jobs 2 run
    reference_files: dict[str, bytes]

    def command(self, out: Path, *extra: str, prelude: str | None = None) -> list[str]:
        python = [sys.executable, "-c", prelude] if prelude else [sys.executable, "-m", "validator"]
        return [
            *python, "run", "--cases", str(self.root / "cases"),
            "--fixtures", str(self.root / "fixtures"), "--out", str(out), "--jobs", "2", "-q",
            *extra,
        ]  # fmt: skip


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    root = tmp_path_factory.mktemp("chaos")
    (root / "cases").mkdir()
    for c in range(CASES):
        case_id = f"case-{c}"
        (root / "cases" / f"{case_id}.yaml").write_text(json.dumps(dict(GOOD_CASE, id=case_id)))
    slow = _slow_answer(root / "cases")
    for c in range(CASES):
        case_id = f"case-{c}"
        folder = root / "fixtures" / case_id
        folder.mkdir(parents=True)
        long = slow if case_id == SLOW_CASE else None
        for r in range(RUNS):
            trace = good_trace(case_id)
            if long:  # each run's its own: a text other traces repeat is normalized once
                trace["finalAnswer"] = trace["executorAnswer"] = f"Run {r}. {long}"
            (folder / f"run-{r:02d}.json").write_text(json.dumps(trace))
    out = root / "reference"
    done = subprocess.run(
        Corpus(root, {}, {}).command(out), env=ENV, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    files = {p.name: p.read_bytes() for p in out.iterdir()}
    return Corpus(root, json.loads(files["report.json"]), files)


# --------------------------------------------------------------------------------------------
# Processes, through /proc


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    listed = list(Path(f"/proc/{pid}/task").glob("*/children"))
    for path in listed:
        with suppress(OSError):
            found.update(int(n) for n in path.read_text().split())
    if listed:
        return found
    for stat in Path("/proc").glob("[0-9]*/stat"):  # kernels without CONFIG_PROC_CHILDREN
        with suppress(OSError, ValueError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(stat.parent.name))
    return found


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")  # a zombie has ended


def _cpu_seconds(pid: int) -> float:
    fields = _stat(pid)
    if fields is None:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


class EndedFirst(AssertionError):
    """The run ended before a worker was found evaluating: the parent, which evaluates a
    batch a worker holds but has not begun when it would otherwise wait, took the slow case
    itself (a worker slow to start on a loaded machine)."""


@dataclass
class Run:
    process: subprocess.Popen[bytes]
    out: Path
    logs: Path
    seen: set[int]

    def busy_worker(self, exclude: frozenset[int] = frozenset()) -> int:
        """A worker (not in `exclude`) that is evaluating; every child seen is recorded."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise EndedFirst(self.stderr())
            for pid in _children(self.process.pid) - exclude:
                self.seen.add(pid)
                if _alive(pid) and _cpu_seconds(pid) >= BUSY_CPU_SECONDS:
                    return pid
            time.sleep(0.005)
        pytest.fail("no worker became busy")

    def wait(self) -> float:
        started = time.monotonic()
        self.process.wait(timeout=WAIT)
        return time.monotonic() - started

    def stderr(self) -> str:
        return (self.logs / "stderr").read_text("utf-8", errors="replace")


@pytest.fixture
def start(corpus: Corpus, tmp_path: Path) -> Iterator[Any]:
    runs: list[Run] = []

    def start(out: Path, *extra: str, prelude: str | None = None) -> Run:
        logs = tmp_path / f"logs-{len(runs)}"
        logs.mkdir()
        # Files, not pipes: a worker left alive would hold a pipe open and hang the test.
        with open(logs / "stdout", "wb") as stdout, open(logs / "stderr", "wb") as stderr:
            process = subprocess.Popen(
                corpus.command(out, *extra, prelude=prelude), env=ENV, stdout=stdout, stderr=stderr
            )
        runs.append(Run(process, out, logs, set()))
        return runs[-1]

    def start_busy(out: Path, *extra: str, prelude: str | None = None) -> tuple[Run, int]:
        """A run with a worker found evaluating; tried again (with `out` as it was) when the
        run ends first, ATTEMPTS times at most."""
        before = _files(out) if out.is_dir() else None
        for attempt in range(ATTEMPTS):
            run = start(out, *extra, prelude=prelude)
            try:
                return run, run.busy_worker()
            except EndedFirst:
                if attempt == ATTEMPTS - 1:
                    raise
            shutil.rmtree(out, ignore_errors=True)
            if before is not None:
                out.mkdir()
                for name, data in before.items():
                    (out / name).write_bytes(data)
        raise AssertionError("unreachable")

    start.busy = start_busy  # type: ignore[attr-defined]
    yield start
    for run in runs:  # whatever the test found, leave no process behind
        for pid in [run.process.pid, *run.seen]:
            if _alive(pid):
                with suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        with suppress(subprocess.TimeoutExpired):
            run.process.wait(timeout=WAIT)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


# --------------------------------------------------------------------------------------------
# The tests


@two_cores
def test_a_chunk_whose_worker_is_killed_twice_becomes_errors_and_the_run_completes(
    corpus: Corpus, start: Any, tmp_path: Path
) -> None:
    run, first = start.busy(tmp_path / "out")
    os.kill(first, signal.SIGKILL)
    second = run.busy_worker(
        exclude=frozenset({first})
    )  # the new worker, evaluating the chunk again
    os.kill(second, signal.SIGKILL)
    run.wait()
    assert run.process.returncode == 1, run.stderr()
    report = json.loads((run.out / "report.json").read_text("utf-8"))
    assert (run.out / "report.md").exists()
    rows = {c["case_id"]: c for c in report["cases"]}
    expected = {c["case_id"]: c for c in corpus.reference["cases"]}
    assert sorted(rows) == sorted(expected) and len(rows) == CASES
    killed = rows.pop(SLOW_CASE)
    del expected[SLOW_CASE]
    assert rows == expected, "every other case is exactly as in the undisturbed run"
    assert killed["status"] == "error"
    items = killed["runs"]["items"]
    assert len(items) == RUNS and {i["status"] for i in items} == {"error"}
    assert items[0]["reason"].startswith(
        "the worker evaluating this trace died (killed by signal 9, SIGKILL: out of memory?);"
        " retried once, its worker died again"
    ), items[0]["reason"]
    assert report["summary"]["errored"] == 1 and report["summary"]["passed"] == CASES - 1
    notes = [line for line in run.stderr().splitlines() if line.startswith("note:")]
    assert len(notes) == 2 and "reported as errors" in notes[1], notes
    assert not [n for n in os.listdir(run.out) if n.startswith(".")]
    assert not [pid for pid in run.seen if _alive(pid)]


@two_cores
@pytest.mark.parametrize(
    ("signum", "code", "message"),
    [
        (signal.SIGTERM, 143, "terminated: no report was written"),
        (signal.SIGINT, 130, "interrupted: no report was written"),
    ],
)
def test_a_signal_to_the_run_ends_every_process_and_keeps_the_old_reports(
    corpus: Corpus, start: Any, tmp_path: Path, signum: int, code: int, message: str
) -> None:
    skip_if_sigint_ignored(signum)
    out = tmp_path / "out"
    out.mkdir()
    for name, data in corpus.reference_files.items():
        (out / name).write_bytes(data)
    (out / "report.json").write_bytes(b'{"an": "older report"}\n')  # any change would show
    before = _files(out)
    run, _ = start.busy(out)
    run.process.send_signal(signum)
    took = run.wait()
    assert run.process.returncode == code, run.stderr()
    assert took < 10, f"the run took {took:.1f} s to end"
    last = run.stderr().strip().splitlines()[-1]
    assert last.startswith(f"{message}; {out} still holds the reports of an earlier run ("), last
    assert last.endswith("), not of this one") and "report.json, report.md" in last
    assert "last modified" in last, "this report.json has no generated_at: its file time is shown"
    deadline = time.monotonic() + 10 - took
    while [pid for pid in run.seen if _alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not [pid for pid in run.seen if _alive(pid)], "a worker outlived the run"
    assert _files(out) == before, "the previous reports are untouched, no temporary file"


WITHOUT_PDEATHSIG = """
import sys
import validator.signals as signals

signals._PR_SET_PDEATHSIG = 0  # not an option prctl knows: as on a system without it
from validator.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


@two_cores
@pytest.mark.parametrize("prelude", [None, WITHOUT_PDEATHSIG], ids=["pdeathsig", "polling"])
def test_workers_die_with_a_main_process_that_is_killed(
    start: Any, tmp_path: Path, prelude: str | None
) -> None:
    """SIGKILL allows no cleanup: the workers must notice on their own (PR_SET_PDEATHSIG on
    Linux; elsewhere their parent's pid changes, which they check four times a second)."""
    run, _ = start.busy(tmp_path / "out", prelude=prelude)
    run.process.kill()
    run.wait()
    deadline = time.monotonic() + 10
    while [pid for pid in run.seen if _alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not [pid for pid in run.seen if _alive(pid)], "a worker outlived the run"


PATCHED_MAIN = """
import os, signal, sys
import validator.report as report

report.CONCURRENT_MIN_ROWS = 1  # with --jobs 2, report.md is written in a child
real = report.Reporter.chunks

def chunks(self, document):
    for index, piece in enumerate(real(self, document)):
        if self.name == "md" and index == 3:  # report.json is complete, report.md is not
            os.kill(os.getpid(), signal.SIGTERM)  # a child writing it dies: written here again
        yield piece

report.Reporter.chunks = chunks
from validator.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sigterm_while_the_reports_are_written_leaves_no_temporary_file(
    ws: Workspace, jobs: str
) -> None:
    for case_id in ("alpha", "beta"):
        ws.case(dict(GOOD_CASE, id=case_id))
        ws.trace(case_id, good_trace(case_id))
    ws.out.mkdir()
    (ws.out / "report.json").write_text('{"an": "older report"}\n')
    (ws.out / "report.md").write_text("# an older report\n")
    before = _files(ws.out)
    command = [sys.executable, "-c", PATCHED_MAIN, "run", "--jobs", jobs]
    done = subprocess.run(
        command, cwd=ws.root, env=ENV, capture_output=True, text=True, timeout=WAIT
    )
    assert done.returncode == 143, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("terminated: no report was written; "), last
    assert "(report.json, report.md, last modified 20" in last
    assert _files(ws.out) == before
    shutil.rmtree(ws.out)
