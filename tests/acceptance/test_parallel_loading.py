"""Case files read in several processes (`run --jobs N`): the same suite and the same problems,
in the same order, as one process reading them all; a loading process that fails costs time only."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import GOOD_CASE, REPO, Workspace, run_cli

from validator.inputs import find_case_files, spec_folders
from validator.loading import suite as suite_module
from validator.loading.suite import load_suite_and_problems
from validator.processes import map_in_processes


def _many_cases(ws: Workspace, count: int = 330) -> None:
    """Valid cases, plus mistakes spread over every slice: a syntax error, a wrong type, an
    unknown check, a fixture pick, and an id used by a file early and one late in the order."""
    for i in range(count):
        ws.case(GOOD_CASE, id=f"case-{i:03d}", name=f"case-{i:03d}")
    ws.case("id: broken\nquestion: [unclosed\n", name="case-010")
    ws.case(GOOD_CASE, id="case-120", required_tools="mysql_explain", name="case-120")
    ws.case(GOOD_CASE, id="case-200", checks=["verdict-alowed"], name="case-200")
    ws.case(GOOD_CASE, id="case-250", fixture="elsewhere.json", name="case-250")
    ws.case(GOOD_CASE, id="case-005", name="case-321")  # the id of case-005.yaml, again


def _load(ws: Workspace, processes: int) -> suite_module.LoadResult:
    return load_suite_and_problems(find_case_files(ws.cases), spec_folders(None), None, processes)


def test_problems_and_ids_are_the_same_for_any_count_of_processes(ws: Workspace) -> None:
    _many_cases(ws)
    one = _load(ws, 1)
    codes = {p.code for p in one.problems}
    assert {"yaml-syntax", "wrong-type", "unknown-check", "duplicate-case-id"} <= codes
    duplicate = next(p for p in one.problems if p.code == "duplicate-case-id")
    assert (
        duplicate.file.endswith("case-321.yaml") and "case-005.yaml (line 2)" in duplicate.message
    )
    for processes in (2, 3):
        many = _load(ws, processes)
        assert many.problems == one.problems
        assert many.case_ids == one.case_ids
        assert many.picks == one.picks
        assert many.suite is None and one.suite is None


def test_a_valid_suite_is_the_same_for_any_count_of_processes(ws: Workspace) -> None:
    for i in range(250):
        ws.case(GOOD_CASE, id=f"case-{i:03d}", name=f"case-{i:03d}", tags=[f"t{i % 3}"])
    one, many = _load(ws, 1), _load(ws, 3)
    assert one.suite is not None and many.suite is not None
    assert list(many.suite.cases) == list(one.suite.cases)
    assert [c.fields for c in many.suite.cases.values()] == [
        c.fields for c in one.suite.cases.values()
    ]


def test_run_prints_the_same_problems_with_any_jobs(ws: Workspace) -> None:
    _many_cases(ws)
    results = [
        run_cli("run", "--cases", "cases", "--fixtures", "fixtures", "--jobs", n, cwd=ws.root)
        for n in ("1", "2")
    ]
    assert [r.code for r in results] == [2, 2]
    assert results[0].err == results[1].err
    assert "duplicate-case-id" in results[0].err and "Traceback" not in results[0].err


def test_a_loading_process_that_fails_costs_time_only() -> None:
    parent = os.getpid()

    def work(part: list[int]) -> list[int]:
        if os.getpid() != parent and part[0] == 10:
            raise ValueError("only in the child")
        if os.getpid() != parent and part[0] == 20:
            os._exit(9)  # killed, as by the out-of-memory killer
        return [x * 2 for x in part]

    parts = [[0, 1], [10, 11], [20, 21], [30]]
    assert map_in_processes(work, parts) == [[0, 2], [20, 22], [40, 42], [60]]


def test_an_error_in_loading_is_raised_as_without_processes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    forked: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)

    def work(part: list[int]) -> list[int]:
        if part[0] == 10:
            raise ValueError(f"bad part {part}")
        return part

    with pytest.raises(ValueError, match=r"bad part \[10\]"):
        map_in_processes(work, [[0], [10], [20]])
    assert len(forked) == 2
    for pid in forked:  # each child ended and reaped: none is left running or a zombie
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_few_case_files_are_read_in_this_process(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(5):
        ws.case(GOOD_CASE, id=f"case-{i}", name=f"case-{i}")

    def refuse() -> int:
        raise AssertionError("forked for 5 case files")

    monkeypatch.setattr(os, "fork", refuse)
    assert _load(ws, 4).suite is not None


def test_tool_names_are_checked_the_same_with_any_jobs(tmp_path: Path) -> None:
    # Tool names are read from each case file in the process that loads it.
    suite = tmp_path / "suite"
    shutil.copytree(REPO / "tests" / "lint" / "suites" / "tools-declared", suite)
    text = (suite / "cases" / "checkout.yaml").read_text("utf-8")
    for i in range(240):
        (suite / "cases" / f"checkout-{i:03d}.yaml").write_text(
            text.replace("id: checkout", f"id: checkout-{i:03d}", 1), "utf-8"
        )
    (suite / "fixtures").mkdir()
    results = [run_cli("run", "--jobs", n, cwd=suite) for n in ("1", "2")]
    assert [r.code for r in results] == [2, 2]
    assert results[0].err == results[1].err
    assert results[0].err.count("[undeclared-tool]") >= 241 * 2
