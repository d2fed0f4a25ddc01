"""The report's case rows: a check that many cases set off is one result, and its entry in
the rows is made once; every row still reads as its own."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import Workspace, good_trace

from validator import load_suite
from validator.evaluation.compaction import Compactor
from validator.evaluation.evaluator import Evaluator
from validator.evaluation.grouping import group_results
from validator.report import document, shard
from validator.report.document import RowFields, build_report

CASES = ("alpha", "beta", "gamma")


def _report(ws: Workspace) -> document.Report:
    for case_id in CASES:
        ws.case(id=case_id)
    suite = load_suite(ws.cases)
    evaluator = Evaluator(suite)
    runs = [evaluator.evaluate(good_trace(c), c, f"{c}.json") for c in CASES]
    cases, _ = group_results(suite, runs)
    return build_report(cases)


def test_a_check_every_case_sets_off_is_one_entry_made_once(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[tuple[str, str]] = []
    real = document._check_row

    def counted(check: Any, details: Any) -> dict[str, Any]:
        made.append((check.check, check.status))
        return real(check, details)

    monkeypatch.setattr(document, "_check_row", counted)
    report = _report(ws)
    rows = list(report.cases())
    entries = rows[0]["checks"]
    set_off = [c for c in entries if c["message"].startswith("skipped: the case does not set")]
    assert set_off, "the case sets no check off: the test reads nothing"
    for entry in set_off:  # the same entry in every row, made once
        assert all(entry in row["checks"] for row in rows)
        assert made.count((entry["check"], "skipped")) == 1
    # A check skipped by its guard, or applied, is each run's own result: made for each row.
    for entry in entries:
        if entry not in set_off:
            assert made.count((entry["check"], entry["status"])) == len(CASES), entry


def test_rows_are_the_same_made_once_or_each_time(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    once = list(_report(ws).cases())
    monkeypatch.setattr(document, "SkippedRows", lambda: None)
    assert list(_report(ws).cases()) == once


def _runs(ws: Workspace, kept: Any) -> list[Any]:
    """Three runs of one case (pass, fail, pass) and one of another, compacted as a run
    compacts them, `kept` given each run kept whole."""
    ws.case(id="alpha")
    ws.case(id="beta")
    suite = load_suite(ws.cases)
    evaluator, compact = Evaluator(suite), Compactor(kept)
    failing = good_trace("alpha")
    failing["selfEvaluation"]["verifier_evaluation"]["verdict"] = "REJECT"
    traces = [("alpha", good_trace("alpha")), ("alpha", failing), ("alpha", good_trace("alpha"))]
    traces.append(("beta", good_trace("beta")))
    runs = [
        compact(evaluator.evaluate(trace, case_id, f"{case_id}-{i}.json"))
        for i, (case_id, trace) in enumerate(traces)
    ]
    return [suite, runs]


def test_row_fields_made_as_runs_are_kept_are_those_the_report_makes(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite, plain = _runs(ws, None)
    expected = list(build_report(group_results(suite, plain)[0]).cases())
    suite, runs = _runs(ws, RowFields())
    made = [run.fixture for run in runs if run.row_fields is not None]
    assert made == ["alpha-0.json", "alpha-1.json", "beta-3.json"]  # the runs kept whole
    cases, _ = group_results(suite, runs)
    made_in_report: list[Any] = []
    real = document._made_fields

    def counted(run: Any, skipped: Any) -> dict[str, Any]:
        made_in_report.append(run.fixture)
        return real(run, skipped)

    monkeypatch.setattr(document, "_made_fields", counted)
    assert list(build_report(cases).cases()) == expected
    assert made_in_report == []  # alpha's representative is its failed run, made already
    alpha = next(c for c in cases if c.case_id == "alpha")
    assert alpha.runs[0].row_fields is None  # no longer the representative: compacted


def test_a_shard_file_holds_no_row_fields_and_reads_back_equal(ws: Workspace) -> None:
    _, runs = _runs(ws, RowFields())
    kept = [run for run in runs if run.row_fields is not None]
    assert kept
    for run in kept:
        data = shard.run_data(run)
        assert "row_fields" not in data
        again = shard.run_from(json.loads(json.dumps(data)))
        assert again == run and again.row_fields is None
