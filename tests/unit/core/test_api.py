"""The library API: load a suite once, evaluate traces anywhere, merge the runs into a report.

What distributed engines (Dask, Ray, multiprocessing) need: a suite and its results are
plain picklable data, partitions can be evaluated separately, and the report built from all
their runs equals the command line's.
"""

from __future__ import annotations

import json
import multiprocessing
import pickle
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, REPO, Workspace, good_trace, run_cli, set_verdict

import validator
from validator import evaluate_partition, load_suite, report_from_runs
from validator.model import Suite
from validator.results import RunResult

SHIPPED = sorted((REPO / "fixtures").glob("*.json"))


def shipped_suite() -> Suite:
    return load_suite(REPO / "cases", specs=REPO / "specs")


def read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text("utf-8"))


def test_api_is_exported() -> None:
    for name in ("load_suite", "evaluate_partition", "report_from_runs", "evaluate_trace"):
        assert name in validator.__all__
        assert callable(getattr(validator, name))


def test_shipped_suite_evaluates_its_traces() -> None:
    suite = shipped_suite()
    assert len(suite.cases) == len(SHIPPED)
    for path in SHIPPED:
        run = validator.evaluate_trace(suite, read(path))
        assert isinstance(run, RunResult)
        assert (run.case_id, run.status) == (path.stem, "pass"), run.reason
        assert run.checks and all(c.status in ("pass", "skipped") for c in run.checks)
        assert validator.evaluate_trace(suite, read(path)) == run


def test_suite_and_results_survive_pickling() -> None:
    suite = shipped_suite()
    copy = pickle.loads(pickle.dumps(suite))
    assert set(copy.cases) == set(suite.cases) and set(copy.specs) == set(suite.specs)
    for path in SHIPPED:
        run = validator.evaluate_trace(suite, read(path), fixture=path.name)
        again = validator.evaluate_trace(copy, read(path), fixture=path.name)
        assert again == run
        assert pickle.loads(pickle.dumps(run)) == run
    failing = validator.evaluate_trace(suite, set_verdict(read(SHIPPED[0]), "NOPE"))
    assert failing.status == "fail"
    assert pickle.loads(pickle.dumps(failing)) == failing


# --------------------------------------------------------------------------------------------
# Partitions, merged


def _workspace(ws: Workspace) -> list[tuple[str, dict[str, Any]]]:
    """Cases with several runs each, some failing; returns (fixture name, trace) in CLI order."""
    items = []
    for c in range(5):
        case_id = f"case-{c}"
        ws.case(GOOD_CASE, id=case_id, name=case_id)
        for r in range(6):
            trace = good_trace(case_id)
            if (c + r) % 4 == 1:
                trace["finalAnswer"] = "Only a guess."
            if (c + r) % 5 == 2:
                set_verdict(trace, "REJECT")
            name = f"fixtures/{case_id}/run-{r}.json"
            ws.trace(case_id, trace, name=f"{case_id}/run-{r}.json")
            items.append((name, trace))
    ws.case(GOOD_CASE, id="case-without-traces", name="case-without-traces")
    return items


def _cli_report(ws: Workspace) -> dict[str, Any]:
    result = run_cli(
        "run", "--cases", "cases", "--fixtures", "fixtures", "--out", "out", "--jobs", "1",
        cwd=ws.root,
    )  # fmt: skip
    assert result.code == 1, result.err
    return json.loads((ws.root / "out" / "report.json").read_text("utf-8"))


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(
        json.dumps({k: v for k, v in report.items() if k not in ("generated_at", "inputs")})
    )
    for case in out["cases"]:
        if case["case_id"] == "case-without-traces":  # the CLI names the folder it looked in
            case["reason"] = None
    return out


def _split(items: list[Any], parts: int) -> list[list[Any]]:
    size = -(-len(items) // parts)
    return [items[i : i + size] for i in range(0, len(items), size)]


@pytest.mark.parametrize("parts", [1, 3, 7])
def test_merged_partitions_give_the_command_line_report(ws: Workspace, parts: int) -> None:
    items = _workspace(ws)
    suite = load_suite(ws.cases, specs=[])
    runs = [run for part in _split(items, parts) for run in evaluate_partition(suite, part)]
    merged = report_from_runs(suite, runs)
    assert _comparable(merged) == _comparable(_cli_report(ws))
    missing = next(c for c in merged["cases"] if c["case_id"] == "case-without-traces")
    assert missing["status"] == "not_run"
    assert missing["reason"] == "no trace was evaluated for this case"


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_partitions_evaluated_in_a_process_pool(ws: Workspace, method: str) -> None:
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    items = _workspace(ws)
    suite = load_suite(ws.cases, specs=[])
    context = multiprocessing.get_context(method)  # spawn pickles the suite for each task
    with context.Pool(2) as pool:
        parts = pool.map(partial(evaluate_partition, suite), _split(items, 4))
    merged = report_from_runs(suite, [run for part in parts for run in part])
    assert _comparable(merged) == _comparable(_cli_report(ws))


def test_partitions_evaluated_with_a_dask_bag(ws: Workspace) -> None:
    db = pytest.importorskip("dask.bag")
    items = _workspace(ws)
    suite = load_suite(ws.cases, specs=[])
    bag = db.from_sequence(items, npartitions=4)
    runs = bag.map_partitions(partial(evaluate_partition, suite)).compute(scheduler="processes")
    merged = report_from_runs(suite, runs)
    assert _comparable(merged) == _comparable(_cli_report(ws))


def test_partition_results_are_compact_but_complete(ws: Workspace) -> None:
    items = _workspace(ws)
    suite = load_suite(ws.cases, specs=[])
    runs = evaluate_partition(suite, items)
    full = [validator.evaluate_trace(suite, trace, fixture=name) for name, trace in items]
    assert [(r.fixture, r.status, r.reason, _failed(r)) for r in runs] == [
        (r.fixture, r.status, r.reason, _failed(r)) for r in full
    ]
    assert len(pickle.dumps(runs)) < len(pickle.dumps(full))


def test_runs_naming_no_case_are_unmatched_and_plain_dicts_work(ws: Workspace) -> None:
    ws.case()
    suite = load_suite(ws.cases, specs=[])
    runs = evaluate_partition(suite, [good_trace(), good_trace("someone-else"), [1, 2]])
    report = report_from_runs(suite, runs, inputs={"source": "test"})
    assert report["inputs"] == {"source": "test"}
    assert [c["status"] for c in report["cases"]] == ["pass"]
    assert {t["case_id"] for t in report["unmatched_traces"]} == {"someone-else", "?"}
    json.dumps(report, allow_nan=False)  # the document is plain JSON data


def test_streamed_report_renders_exactly_as_its_plain_document(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The command line makes a multi-run case's runs.items when a reporter reads the row
    # (memory flat in the number of runs); every reporter must write the same bytes as from
    # the plain document (report.json read back).
    from validator.evaluation.grouping import group_results
    from validator.report import REPORTERS
    from validator.report.document import Report, build_report

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    items = _workspace(ws)
    suite = load_suite(ws.cases, specs=[])
    runs = evaluate_partition(suite, items)
    cases, _ = group_results(suite, runs)
    streamed = build_report(cases)
    assert "items" not in streamed.rows[0]["runs"], "run rows are not held by the report"
    plain = Report.from_dict(json.loads(json.dumps(streamed.as_dict(), allow_nan=False)))
    rows = next(plain.cases())["runs"]["items"]
    assert len(rows) == 6 and rows == next(streamed.cases())["runs"]["items"]
    for name, reporter in REPORTERS.items():
        assert reporter.text(streamed) == reporter.text(plain), name


def _failed(run: RunResult) -> list[tuple[str, str]]:
    return [(c.check, c.message) for c in run.checks if c.status == "fail"]


def test_a_command_run_in_process_leaves_the_gc_settings_as_they_were(ws: Workspace) -> None:
    # A command collects cyclic garbage less often while it runs (see validator.cli); code
    # that calls validator.cli.main in its own process must get its settings back.
    import gc

    ws.case()
    ws.trace("db-slow", good_trace())
    before = gc.get_threshold()
    gc.set_threshold(1234, 5, 6)
    try:
        assert ws.run().code == 0
        assert run_cli("lint", "cases", cwd=ws.root).code == 0
        assert gc.get_threshold() == (1234, 5, 6)
    finally:
        gc.set_threshold(*before)
