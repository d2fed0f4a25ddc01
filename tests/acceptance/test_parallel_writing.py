"""Report formats written at once (`run --jobs N`): each but the first in a forked child, the
bytes those of one process, a child that fails costing time only, the set still all or nothing."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from conftest import GOOD_CASE, Workspace, good_trace, run_cli, set_verdict

import validator.report as report_module
from validator.api import load_suite
from validator.evaluation.grouping import group_results
from validator.evaluation.runner import evaluate_all
from validator.inputs import plan_fixtures
from validator.problems import UsageError
from validator.report import REPORTERS, write_reports
from validator.report.document import Report, build_report

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="formats are written in forks")

ALL = list(REPORTERS)


@pytest.fixture
def report(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> Report:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    monkeypatch.setattr(report_module, "CONCURRENT_MIN_ROWS", 1)
    for i, case_id in enumerate(("alpha", "beta", "gamma", "delta")):
        ws.case(dict(GOOD_CASE, id=case_id))
        trace = good_trace(case_id)
        ws.trace(case_id, set_verdict(trace, "REVISE") if i % 2 else trace)
    suite = load_suite(ws.cases, specs=[])
    plan = plan_fixtures(list(suite.cases), ws.fixtures, "fixtures")
    runs = list(evaluate_all(suite, plan.jobs(), 1, root=ws.fixtures))
    return build_report(*group_results(suite, runs, plan))


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _count_forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    forks: list[int] = []
    real = os.fork

    def fork() -> int:
        pid = real()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    return forks


def _in_child_on(monkeypatch: pytest.MonkeyPatch, name: str, act: str) -> None:
    """The reporter `name`, in a forked child only, dies halfway (`kill`) or fails (`raise`);
    in any process, `raise-anywhere` fails it as a full disk would."""
    parent = os.getpid()
    real = report_module.Reporter.chunks

    def chunks(self: report_module.Reporter, document: Report) -> Iterable[str | bytes]:
        def pieces() -> Iterator[str | bytes]:
            for index, piece in enumerate(real(self, document)):
                if self.name == name and index == 2:
                    if act == "raise-anywhere":
                        raise OSError(errno.ENOSPC, "No space left on device")
                    if os.getpid() != parent and act == "kill":
                        os.kill(os.getpid(), signal.SIGKILL)
                    if os.getpid() != parent and act == "raise":
                        raise RuntimeError("only in the child")
                yield piece

        return pieces()

    monkeypatch.setattr(report_module.Reporter, "chunks", chunks)


def test_formats_written_at_once_have_the_bytes_of_one_process(
    report: Report, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_reports(report, tmp_path / "one", ALL, processes=1)
    forks = _count_forks(monkeypatch)
    written = write_reports(report, tmp_path / "many", ALL, processes=3)
    assert len(forks) == 2, "the second and third formats are written by children"
    assert [p.name for p in written] == [REPORTERS[name].filename for name in ALL]
    assert _files(tmp_path / "many") == _files(tmp_path / "one")
    for pid in forks:  # each child ended and was reaped
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_a_small_report_is_written_in_one_process(
    report: Report, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(report_module, "CONCURRENT_MIN_ROWS", 9)  # 4 cases and 4 runs
    forks = _count_forks(monkeypatch)
    write_reports(report, tmp_path / "out", ["json", "md"], processes=2)
    assert forks == []


@pytest.mark.parametrize("act", ["kill", "raise"])
def test_a_writer_child_that_fails_costs_time_only(
    report: Report, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, act: str
) -> None:
    write_reports(report, tmp_path / "one", ALL, processes=1)
    _in_child_on(monkeypatch, "md", act)
    forks = _count_forks(monkeypatch)
    write_reports(report, tmp_path / "many", ALL, processes=2)
    assert len(forks) == 1, "report.md was given to a child, which failed"
    assert _files(tmp_path / "many") == _files(tmp_path / "one"), "and was written here again"


def test_an_error_writing_a_childs_format_is_raised_here_and_keeps_the_old_reports(
    report: Report, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    write_reports(report, out, ["json", "md"], processes=1)
    (out / "report.json").write_text('{"an": "older report"}\n')
    before = _files(out)
    _in_child_on(monkeypatch, "md", "raise-anywhere")
    forks = _count_forks(monkeypatch)
    with pytest.raises(UsageError, match=r"cannot write reports to .*: No space left on device"):
        write_reports(report, out, ["json", "md"], processes=2)
    assert len(forks) == 1
    assert _files(out) == before, "the old set, and no temporary file"


def test_run_with_jobs_writes_every_format_as_one_process_does(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    monkeypatch.setattr(report_module, "CONCURRENT_MIN_ROWS", 1)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    for case_id in ("alpha", "beta"):
        ws.case(dict(GOOD_CASE, id=case_id))
        ws.trace(case_id, good_trace(case_id))
    outs = {}
    for jobs in ("1", "3"):
        outs[jobs] = ws.root / f"out-{jobs}"
        args = ("--out", str(outs[jobs]), "--format", ",".join(ALL), "--jobs", jobs)
        result = run_cli("run", "--fixtures", "fixtures", *args, cwd=ws.root)
        assert result.code == 0, result.err
    assert _files(outs["3"]) == _files(outs["1"])
    assert len(_files(outs["1"])) == len(ALL)


def test_formats_are_dealt_round_the_processes(
    report: Report, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "who.log"
    real = report_module.Reporter.chunks

    def chunks(self: report_module.Reporter, document: Report) -> Iterable[str | bytes]:
        with log.open("a") as out:
            out.write(f"{self.name} {os.getpid()}\n")
        return real(self, document)

    monkeypatch.setattr(report_module.Reporter, "chunks", chunks)
    write_reports(report, tmp_path / "out", ALL, processes=2)
    who = dict(line.split() for line in log.read_text().splitlines())
    here = str(os.getpid())
    # report.json (orjson: a child copies few pages) to the child; the formats written in
    # Python dealt round from this process: md here, junit there, html here, sarif there.
    assert ALL == ["json", "md", "junit", "html", "sarif"]
    assert [who[name] == here for name in ALL] == [False, True, False, True, False]
    assert who["json"] == who["junit"] == who["sarif"], "one child"
    log.write_text("")
    write_reports(report, tmp_path / "out", ["json", "md"], processes=2)
    who = dict(line.split() for line in log.read_text().splitlines())
    assert who["md"] == here and who["json"] != here


def test_a_profiled_command_still_writes_its_profile(tmp_path: Path) -> None:
    # `python -m validator` ends with os._exit (no teardown), except under a profiler or a
    # tracer, which write their data at exit: `python -m cProfile -m validator` must work.
    out = tmp_path / "profile.out"
    done = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "validator", "schema", "case"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["title"]
    assert out.stat().st_size > 0


def test_the_objects_of_a_run_are_left_to_the_end_of_the_process(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `python -m validator` ends with os._exit: the run's objects are left to it rather than
    # freed one by one as the command returns; anywhere else (the library, these tests)
    # nothing is held once the command is done.
    import gc

    from validator import commands

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    ws.case(dict(GOOD_CASE, id="alpha"))
    ws.trace("alpha", good_trace("alpha"))
    assert commands.KEPT_TO_EXIT is None
    assert run_cli("run", "--out", "out-a", cwd=ws.root).code == 0
    assert commands.KEPT_TO_EXIT is None
    monkeypatch.setattr(commands, "KEPT_TO_EXIT", [])
    assert run_cli("run", "--out", "out-b", cwd=ws.root).code == 0
    gc.unfreeze()  # what the run left frozen for the end of the process (see below)
    kept = commands.KEPT_TO_EXIT
    assert any(isinstance(o, Report) for o in kept), kept
    assert (ws.root / "out-a" / "report.json").read_bytes() == (
        ws.root / "out-b" / "report.json"
    ).read_bytes()


def test_no_collection_walks_the_report_while_it_is_made_and_written(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The report's rows hold no cycles: the cyclic collector waits while they are made and
    # written (it would walk every row), and when the process ends right after the command
    # (`python -m validator`) they are left to it, frozen, so no later collection walks them.
    import gc

    from validator import cli, commands
    from validator.commands import run as run_module

    for i in range(3):
        ws.case(dict(GOOD_CASE, id=f"case-{i}"))
        ws.trace(f"case-{i}", good_trace(f"case-{i}"))
    monkeypatch.setattr(cli, "_BATCH_GC_THRESHOLD", (1, 1, 1))  # a collection per object
    where: list[str] = []
    collected: list[str] = []
    for name in ("build_report", "_write_and_judge", "group_results"):
        real = getattr(run_module, name)

        def spy(*args: object, _real: object = real, _name: str = name, **kw: object) -> object:
            where.append(_name)
            try:
                return _real(*args, **kw)  # type: ignore[operator]
            finally:
                where.pop()

        monkeypatch.setattr(run_module, name, spy)

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collected.append(where[-1] if where else "")

    gc.callbacks.append(seen)
    gc.unfreeze()
    frozen = gc.get_freeze_count()  # 0, or what Python itself keeps frozen (375 in 3.12.1)
    try:
        assert run_cli("run", "--out", "out-a", cwd=ws.root).code == 0
        assert "group_results" in collected  # the collector does run around the report
        assert "build_report" not in collected and "_write_and_judge" not in collected
        assert gc.get_freeze_count() == frozen  # the process goes on: nothing left frozen
        monkeypatch.setattr(commands, "KEPT_TO_EXIT", [])
        assert run_cli("run", "--out", "out-b", cwd=ws.root).code == 0
        assert gc.get_freeze_count() > frozen
    finally:
        gc.callbacks.remove(seen)
        gc.unfreeze()
