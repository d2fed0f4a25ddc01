"""`run --jobs N` in one parallel phase: the workers read the case files and evaluate their
traces in one pass (commands/fused.py). The reports are those of one process, byte for
byte, whatever the fixtures hold: files no case claims, a `fixture:` key picking another
case's file, a case both as a file and a folder, broken traces, cases without a trace."""

from __future__ import annotations

import importlib
import os
import signal
from typing import Any

import pytest
from conftest import GOOD_CASE, Workspace, good_trace, run_cli, set_verdict

from validator.commands import fused
from validator.evaluation.compaction import Compactor
from validator.evaluation.worker import Worker
from validator.inputs import Job, Plan
from validator.results import RunResult

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the phase forks its workers")

EPOCH = "1767225600"


def _four_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)


def _small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reports pinned in time, four cores, and case files sent three at a time (many
    batches, so the phase's order and balance are exercised)."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    _four_cores(monkeypatch)
    monkeypatch.setattr(fused, "FUSED_UNIT", 3)


def _suite(ws: Workspace, cases: int = 40) -> None:
    """Cases of every kind the plan knows, spread over many batches of case files."""
    for c in range(cases):
        case_id = f"case-{c:02d}"
        extra = {"fixture": "case-08.json"} if c == 7 else {}  # picks another case's file
        ws.case(GOOD_CASE, name=case_id, id=case_id, **extra)
        trace = good_trace(case_id)
        if c % 5 == 1:
            set_verdict(trace, "REJECT")
        if c % 6 == 5:
            continue  # no trace: not run
        if c % 4 == 2:
            for r in range(3):
                ws.trace(case_id, trace if r != 1 else "{broken", name=f"{case_id}/run-{r}.json")
        else:
            ws.trace(case_id, trace)
    ws.trace("case-12", good_trace("case-12"), name="case-12/run-0.json")  # also case-12.json
    ws.trace("nobody", good_trace("nobody"))  # names no case


def _run(ws: Workspace, jobs: str, out: str) -> tuple[int, str, bytes]:
    result = run_cli(
        "run", "--cases", "cases", "--fixtures", "fixtures", "--out", out, "--jobs", jobs,
        "--format", "json,md,junit,sarif,html", "--allow-unmatched", cwd=ws.root,
    )  # fmt: skip
    files = sorted((ws.root / out).iterdir())
    return result.code, result.err, b"".join(f.name.encode() + f.read_bytes() for f in files)


def _phases(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records how each run's fused phase went: "fused", "usual" (not for this run), or
    "stopped" (problems found in the case files)."""
    seen: list[str] = []
    real = fused.fused_phase

    def spy(*args: Any, **kwargs: Any) -> Any:
        try:
            out = real(*args, **kwargs)
        except Exception:
            seen.append("stopped")
            raise
        seen.append("usual" if out is None else "fused")
        return out

    monkeypatch.setattr("validator.commands.run.fused_phase", spy)
    return seen


@pytest.mark.parametrize("max_runs", [fused.MAX_FUSED_RUNS, 2])
def test_the_fused_phase_writes_the_reports_of_one_process(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, max_runs: int
) -> None:
    _small_batches(monkeypatch)
    # 2: the cases with 3 trace files are evaluated after the join, a chunk at a time.
    monkeypatch.setattr(fused, "MAX_FUSED_RUNS", max_runs)
    seen = _phases(monkeypatch)
    _suite(ws)
    one = _run(ws, "1", "out-1")
    assert one[0] == 1
    for jobs in ("2", "4"):
        assert _run(ws, jobs, f"out-{jobs}") == one
    assert seen == ["fused", "fused"], "--jobs 2 and 4 had the one phase (--jobs 1: not asked)"


def test_a_ci_log_shows_the_progress_while_the_workers_evaluate_then_the_same_case_lines(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Off a terminal, the progress lines come as the workers send their runs back: before
    what is printed at the join (a case file's warning, from the rules across files), not
    in a burst after it. The case lines are then printed once, as with one process."""
    _small_batches(monkeypatch)
    seen = _phases(monkeypatch)
    for c in range(240):
        case_id = f"case-{c:03d}"
        ws.case(GOOD_CASE, name=case_id, id=case_id)
        trace = good_trace(case_id)
        if c % 40 == 3:
            set_verdict(trace, "REVISE")
        ws.trace(case_id, trace)
    ws.case(GOOD_CASE, name="case-239", id="case-239", min_keyword_coverage=1)  # a warning
    two = run_cli("run", "--jobs", "2", "--out", "out-2", cwd=ws.root)
    one = run_cli("run", "--jobs", "1", "--out", "out-1", cwd=ws.root)
    assert seen == ["fused"]
    assert two.code == one.code == 1
    err = two.err.splitlines()
    progress = [i for i, line in enumerate(err) if line.startswith("progress: ")]
    warning = next(i for i, line in enumerate(err) if "[count-or-share]" in line)
    assert len(progress) >= 10 and progress[-1] < warning, two.err
    assert err[progress[0]].startswith("progress: 24/240 traces checked (10%), ")
    assert err[progress[-1]] == "progress: 240/240 traces checked (100%), 6 did not pass so far"
    fails = [line for line in two.out.splitlines() if line.startswith("FAIL")]
    assert len(fails) == 6 and fails == [
        line for line in one.out.splitlines() if line.startswith("FAIL")
    ]


def _split_suite(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """400 cases: 300 with one trace, evaluated in the phase, and 100 with three trace
    files, more than a batch takes (MAX_FUSED_RUNS 2 here): after the join."""
    _small_batches(monkeypatch)
    monkeypatch.setattr(fused, "MAX_FUSED_RUNS", 2)
    seen = _phases(monkeypatch)
    for c in range(400):
        case_id = f"case-{c:03d}"
        ws.case(GOOD_CASE, name=case_id, id=case_id)
        if c % 4:
            ws.trace(case_id, good_trace(case_id))
            continue
        for r in range(3):
            ws.trace(case_id, good_trace(case_id), name=f"{case_id}/run-{r}.json")
    return seen


def test_the_progress_lines_go_on_for_the_traces_evaluated_after_the_join(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A case with more trace files than a batch takes is evaluated after the join: the
    lines count its traces from the start (the phase's lines stop at half way here), and go
    on for them after the join, a tenth at a time."""
    seen = _split_suite(ws, monkeypatch)
    result = run_cli("run", "--jobs", "2", cwd=ws.root)
    assert seen == ["fused"] and result.code == 0
    lines = [line for line in result.err.splitlines() if line.startswith("progress: ")]
    counts = [line.split()[1] for line in lines]
    assert counts == [f"{n}/600" for n in range(60, 601, 60)], lines
    # The phase evaluates 300 of them: its last line is before what the join prints.
    assert "progress: 300/600 traces checked (50%)" in lines[4]
    assert lines[-1] == "progress: 600/600 traces checked (100%), 0 did not pass so far"


def test_a_terminal_s_bar_goes_on_for_the_traces_evaluated_after_the_join(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _split_suite(ws, monkeypatch)
    monkeypatch.setattr("validator.commands.progress.interactive", lambda stream: True)
    result = run_cli("run", "--jobs", "2", cwd=ws.root)
    assert seen == ["fused"] and result.code == 0
    drawn = [part.strip() for part in result.err.split("\r") if part.startswith("evaluating [")]
    # Against every trace from the start; the phase draws up to 300 of them, the traces
    # after the join the rest (how often in between depends on the machine's speed).
    assert all("/600 traces" in bar for bar in drawn), drawn
    counts = [int(bar.split("] ")[1].split("/")[0]) for bar in drawn]
    assert counts == sorted(counts) and counts[0] <= 300, drawn
    assert drawn[-1].endswith("600/600 traces 100%"), drawn
    assert "progress: " not in result.err


def test_an_error_across_case_files_stops_the_run_as_with_one_process(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    _four_cores(monkeypatch)
    monkeypatch.setattr(fused, "FUSED_UNIT", 3)
    seen = _phases(monkeypatch)
    _suite(ws)
    ws.case(GOOD_CASE, name="zz-again", id="case-03")  # case-03's id again
    one = run_cli("run", "--jobs", "1", cwd=ws.root)
    two = run_cli("run", "--jobs", "2", cwd=ws.root)
    assert one.code == two.code == 2
    assert "case id 'case-03' is used by both" in two.err and two.err == one.err
    assert not (ws.root / "reports").exists(), "nothing is written"
    assert seen == ["stopped"], "the phase ran, then stopped on the problems (no runs kept)"


def test_a_worker_that_dies_reading_case_files_costs_time_only(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    _small_batches(monkeypatch)
    _suite(ws)
    one = _run(ws, "1", "out-1")
    parent, real = os.getpid(), fused.Unit.__call__

    def deadly(self: fused.Unit, batch: list[int]) -> Any:
        if os.getpid() != parent and any(self.paths[i].name == "case-01.yaml" for i in batch):
            os.kill(os.getpid(), signal.SIGKILL)  # every time: the batch is given up
        return real(self, batch)

    # Before any fork the first case file only warms this process (`Unit.warm`, not
    # `__call__`); the first batch (case-00 .. case-02) is the first the worker is sent,
    # which is never taken back (see processes.Pool).
    monkeypatch.setattr(fused.Unit, "__call__", deadly)
    code, err, reports = _run(ws, "2", "out-2")
    assert (code, reports) == (one[0], one[2])
    assert "died again (killed by signal 9" in err
    assert "evaluating cases/case-00.yaml .. cases/case-02.yaml: those 3 case files" in err
    assert "3 case files are read here, and their traces evaluated again a chunk at a time" in err


def test_before_its_first_fork_this_process_evaluates_one_trace_not_a_whole_case(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What this process does alone before it forks, the workers wait for: it warms up on
    # one trace of the first case file (what that imports is inherited), however many
    # traces the case has; the case's traces are all evaluated with its batch.
    _small_batches(monkeypatch)
    for c in range(8):
        case_id = f"case-{c:02d}"
        ws.case(GOOD_CASE, name=case_id, id=case_id)
        for r in range(5):
            ws.trace(case_id, good_trace(case_id), name=f"{case_id}/run-{r}.json")
    one = _run(ws, "1", "out-1")
    parent, real_fork, real_runs = os.getpid(), os.fork, Worker.runs
    forked: list[int] = []
    alone: list[str] = []

    def fork() -> int:
        forked.append(1)
        return real_fork()

    def runs(self: Worker, job: Job, compact: Compactor | None = None) -> list[RunResult]:
        if os.getpid() == parent and not forked:
            alone.append(job.fixture)
        return real_runs(self, job, compact)

    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setattr(Worker, "runs", runs)
    seen = _phases(monkeypatch)
    assert _run(ws, "2", "out-2") == one
    assert seen == ["fused"]
    assert len(alone) == 1, alone


def test_a_run_of_many_traces_keeps_the_usual_phases(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    _small_batches(monkeypatch)
    monkeypatch.setattr(fused, "MAX_FUSED_TRACES", 10)  # the runs would be held till the join
    seen = _phases(monkeypatch)
    _suite(ws)
    assert _run(ws, "2", "out-2") == _run(ws, "1", "out-1")
    assert seen == ["usual"]


def test_what_comes_back_is_frozen_only_when_the_process_ends_after_the_command(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `python -m validator` ends with os._exit: the case files and runs the workers send
    # back live until then, so they are frozen as they come (no collection walks them); a
    # process that goes on (the library, these tests) keeps collecting them as usual, and
    # the reports are the same either way.
    from validator import commands

    _small_batches(monkeypatch)
    seen = _phases(monkeypatch)
    _suite(ws)
    freezes: list[int] = []
    monkeypatch.setattr(fused.gc, "freeze", lambda: freezes.append(1))
    usual = _run(ws, "2", "out-a")
    assert freezes == []
    monkeypatch.setattr(commands, "KEPT_TO_EXIT", [])
    assert _run(ws, "2", "out-b") == usual
    assert seen == ["fused", "fused"]
    assert len(freezes) >= 40  # once per case file read (and once more after writing)


def _plans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records each plan of the fixtures folder made: by the phase, or by the run."""
    made: list[str] = []
    for where in ("validator.commands.fused", "validator.commands.run"):
        real = importlib.import_module(where).plan_fixtures

        def spy(*args: Any, _real: Any = real, _where: str = where, **kwargs: Any) -> Any:
            made.append(_where.rsplit(".", 1)[1])
            return _real(*args, **kwargs)

        monkeypatch.setattr(f"{where}.plan_fixtures", spy)
    return made


def test_the_folder_listed_for_the_phase_is_the_run_s_plan_when_it_names_the_cases(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the fixtures folder's names are the suite's case ids (and no case picks files),
    the listing the phase made is the run's plan: the folder is walked once, and the
    reports are still those of one process, files the plan leaves unused included."""
    _small_batches(monkeypatch)
    for c in range(12):
        case_id = f"case-{c:02d}"
        ws.case(GOOD_CASE, name=case_id, id=case_id)
        if c == 3:
            (ws.root / "fixtures" / case_id).mkdir(parents=True)  # a folder without traces
        elif c == 4:
            ws.trace(case_id, good_trace(case_id), name=f"{case_id}.txt")  # not a trace file
        elif c == 5:
            ws.trace(case_id, "{broken")
        else:
            ws.trace(case_id, good_trace(case_id))
            ws.trace(case_id, good_trace(case_id), name=f"{case_id}/run-1.json")
    one = _run(ws, "1", "out-1")
    made = _plans(monkeypatch)
    seen = _phases(monkeypatch)
    jobs_made: list[int] = []
    real_jobs = Plan.jobs

    def jobs(self: Plan, *args: Any, **kwargs: Any) -> Any:
        jobs_made.append(1)
        return real_jobs(self, *args, **kwargs)

    monkeypatch.setattr(Plan, "jobs", jobs)
    assert _run(ws, "2", "out-2") == one
    assert seen == ["fused"]
    assert made == ["fused"], "listed once, for the phase, and kept"
    # Its jobs made once for the phase, the run's being those, and once more for the
    # traces report.html reads again (the answers it shows).
    assert len(jobs_made) == 2, jobs_made
    report = (ws.root / "out-2" / "report.json").read_text()
    assert "case-04.txt" in report and "case-03/" in report


def test_a_folder_with_other_names_is_planned_again_for_the_run(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    _small_batches(monkeypatch)
    _suite(ws)  # a file that names no case, a case picking another's file
    made = _plans(monkeypatch)
    _run(ws, "2", "out-2")
    assert made == ["fused", "run"]
