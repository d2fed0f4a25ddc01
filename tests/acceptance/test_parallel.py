"""`run --jobs N`: the same report, byte for byte, whatever N; traces read one at a time."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, Workspace, good_trace, run_cli, set_verdict

import validator.report as report_module
from validator.api import load_suite
from validator.evaluation import runner
from validator.evaluation.compaction import Compactor
from validator.evaluation.context import TraceContext
from validator.evaluation.evaluator import Evaluator
from validator.evaluation.grouping import group_results
from validator.evaluation.runner import evaluate_all
from validator.evaluation.worker import Worker
from validator.inputs import Job, plan_fixtures
from validator.report.document import build_report
from validator.results import RunResult
from validator.traces import DEFAULT_MAX_TRACE_BYTES

EPOCH = "1767225600"


def _trace(case_id: str, i: int) -> dict[str, Any]:
    """Traces that pass, fail in several ways, or have no verdict, depending on i."""
    trace = good_trace(case_id)
    kind = i % 7
    if kind == 1:
        trace["finalAnswer"] = "Nothing useful."
    elif kind == 2:
        set_verdict(trace, "REJECT")
    elif kind == 3:
        trace["toolInvocations"] = []
    elif kind == 4:
        del trace["selfEvaluation"]
    elif kind == 5:
        trace["durationMs"] = "slow"
    return trace


def _suite_folder(ws: Workspace, cases: int = 12, runs: int = 9) -> None:
    """Cases with one trace, with several runs (some broken), and with none."""
    for c in range(cases):
        case_id = f"case-{c:02d}"
        ws.case(GOOD_CASE, id=case_id, name=case_id)
        if c % 4 == 0:
            ws.trace(case_id, _trace(case_id, c))
        elif c % 4 == 3:
            continue  # not_run
        else:
            for r in range(runs):
                content: Any = _trace(case_id, r + c)
                if (r + c) % 11 == 6:
                    content = "{not json"
                elif (r + c) % 13 == 7:
                    content = "[1, 2]"
                ws.trace(case_id, content, name=f"{case_id}/run-{r:02d}.json")


def _reports(ws: Workspace, fixtures: str, jobs: tuple[str, ...]) -> dict[str, bytes]:
    out = {}
    for n in jobs:
        target = ws.root / f"out-{n}"
        result = run_cli(
            "run",
            "--cases",
            "cases",
            "--fixtures",
            fixtures,
            "--out",
            str(target),
            "--jobs",
            n,
            cwd=ws.root,
        )
        assert result.code == 1, result.err
        out[n] = (target / "report.json").read_bytes() + (target / "report.md").read_bytes()
    return out


def test_jobs_give_byte_identical_reports_for_a_fixtures_folder(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.setattr(runner, "DEFAULT_CHUNK", 4)  # many chunks, so every path is taken
    monkeypatch.setattr(report_module, "CONCURRENT_MIN_ROWS", 1)  # formats written at once
    _suite_folder(ws)
    reports = _reports(ws, "fixtures", ("1", "2", "3"))
    assert reports["1"] == reports["2"] == reports["3"]
    report = json.loads((ws.root / "out-1" / "report.json").read_text("utf-8"))
    statuses = {c["status"] for c in report["cases"]}
    assert statuses == {"pass", "fail", "error", "not_run"}, "the suite exercises every status"
    assert report["summary"]["runs"]["total"] > 50


def test_jobs_give_byte_identical_reports_for_json_lines(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.setattr(runner, "DEFAULT_CHUNK", 4)
    monkeypatch.setattr(report_module, "CONCURRENT_MIN_ROWS", 1)
    for c in range(6):
        ws.case(GOOD_CASE, id=f"case-{c}", name=f"case-{c}")
    lines = []
    for i in range(120):
        if i % 17 == 5:
            lines.append('{"caseId": "case-1", broken')
        elif i % 19 == 3:
            lines.append(json.dumps(_trace("no-such-case", i)))
        else:
            lines.append(json.dumps(_trace(f"case-{i % 5}", i)))  # case-5 gets no line
    (ws.root / "traces.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    reports = _reports(ws, "traces.jsonl", ("1", "2", "3"))
    assert reports["1"] == reports["2"] == reports["3"]
    report = json.loads((ws.root / "out-1" / "report.json").read_text("utf-8"))
    assert report["unmatched_traces"], "lines naming no case are reported in every mode"
    assert any(c["status"] == "not_run" for c in report["cases"])


def test_compacted_runs_give_the_report_of_full_runs(ws: Workspace) -> None:
    """Runs that cannot represent their case lose their details; the report must not change."""
    _suite_folder(ws, cases=8, runs=12)
    suite = load_suite(ws.cases, specs=[])
    plan = plan_fixtures(list(suite.cases), ws.fixtures, "fixtures")
    worker = Worker(suite, DEFAULT_MAX_TRACE_BYTES, ws.fixtures)
    full = [worker(job) for job in plan.jobs()]
    compact = list(evaluate_all(suite, plan.jobs(), 1, root=ws.fixtures))
    assert sum(len(r.checks) for r in compact) < sum(len(r.checks) for r in full)
    reports = [
        build_report(*group_results(suite, runs, plan)).as_dict() for runs in (full, compact)
    ]
    for report in reports:
        report["generated_at"] = ""
    assert reports[0] == reports[1]


@pytest.mark.parametrize("shape", ["fixtures folder", "json lines"])
def test_brief_runs_give_the_report_of_runs_evaluated_in_full(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    """Runs the compaction will reduce are evaluated briefly (`Compactor.brevity`): every
    report, byte for byte, is the one the same runs give evaluated in full, on the
    benchmark's corpora of repeated runs (every way the standard checks fail): a folder
    per case, and one JSON Lines file whose lines name their case."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.setattr(runner, "DEFAULT_CHUNK", 64)  # a case's runs over several chunks
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "bench"))
    from corpus import write_corpus, write_jsonl

    root = ws.root / "bench"
    if shape == "fixtures folder":
        write_corpus(root, "runs", 400, 7)  # 50 cases of 8 runs
        inputs: tuple[str, ...] = ()
    else:
        write_jsonl(root, 40, 8, 7)  # 40 cases of 8 runs, every case's first run first
        inputs = ("--cases", "cases", "--fixtures", "traces.jsonl")
    briefly: list[bool] = []
    check = Evaluator._check

    def counted(self: Evaluator, run: RunResult, ctx: TraceContext, brief: bool) -> None:
        briefly.append(brief)
        check(self, run, ctx, brief)

    monkeypatch.setattr(Evaluator, "_check", counted)
    files = ("report.json", "report.md", "report.html", "report.junit.xml", "report.sarif")
    reports: dict[tuple[str, str], list[bytes]] = {}
    for mode in ("brief", "full"):
        if mode == "full":
            monkeypatch.setattr(Compactor, "brevity", lambda self, case_id: None)
        for jobs in ("1", "2"):
            out = root / f"out-{mode}-{jobs}"
            formats = "json,md,html,junit,sarif"
            result = run_cli(
                "run", *inputs, "--out", str(out), "--jobs", jobs, "--format", formats, cwd=root
            )
            assert result.code == 1, result.err
            reports[mode, jobs] = [(out / name).read_bytes() for name in files]
        if mode == "brief":  # counted in this process: --jobs 1, and a share of --jobs 2
            assert briefly.count(True) > 200, briefly.count(True)
    assert reports["brief", "1"] == reports["full", "1"] == reports["brief", "2"]
    assert reports["full", "1"] == reports["full", "2"]


class CountingJobs:
    """A job source that records how far evaluation has read ahead of its results."""

    def __init__(self, jobs: list[Job]) -> None:
        self.jobs = jobs
        self.pulled = 0

    def __iter__(self) -> Iterator[Job]:
        for job in self.jobs:
            self.pulled += 1
            yield job


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_traces_are_read_as_they_are_evaluated_not_all_at_once(ws: Workspace, workers: int) -> None:
    ws.case()
    suite = load_suite(ws.cases, specs=[])
    text = json.dumps(good_trace())
    jobs = [Job(None, f"traces.jsonl:{i}", text=text) for i in range(400)]
    source = CountingJobs(jobs)
    chunk = 8
    ahead = 0
    done = 0
    for run in evaluate_all(suite, source, workers, chunk=chunk):
        assert run.status == "pass"
        done += 1
        ahead = max(ahead, source.pulled - done)
    assert done == 400
    # one chunk being evaluated here plus a bounded window of chunks in flight
    assert ahead <= chunk * (4 * workers + 2), ahead


def test_a_handful_of_traces_starts_no_process(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    import concurrent.futures

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a process pool was started for a handful of traces")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", refuse)
    ws.case()
    suite = load_suite(ws.cases, specs=[])
    jobs = [Job(None, f"t:{i}", text=json.dumps(good_trace())) for i in range(5)]
    assert [r.status for r in evaluate_all(suite, jobs, 4)] == ["pass"] * 5


def test_results_keep_the_order_of_the_jobs(ws: Workspace) -> None:
    for c in range(3):
        ws.case(GOOD_CASE, id=f"case-{c}", name=f"case-{c}")
    suite = load_suite(ws.cases, specs=[])
    jobs = [
        Job(None, f"t:{i}", text=json.dumps(_trace(f"case-{i % 3}", i)) if i % 9 else "oops")
        for i in range(90)
    ]
    serial = [(r.fixture, r.status, r.reason) for r in evaluate_all(suite, jobs, 1, chunk=4)]
    parallel = [(r.fixture, r.status, r.reason) for r in evaluate_all(suite, jobs, 3, chunk=4)]
    assert serial == parallel
    assert [f for f, _, _ in serial] == [f"t:{i}" for i in range(90)]
