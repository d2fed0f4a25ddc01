"""A case's runs held compactly (`results.Runs`): read back, they are the runs appended.

Unit tests of the sequence (order, indexing, slicing, the representative, every field after
the round trip, the counts), then the command line: a many-run JSON Lines suite whose every
run row is known in advance, and the same suite's reports byte for byte across --jobs 1,
--jobs 2 and a sharded run merged.
"""

from __future__ import annotations

import json
import pickle
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, Workspace, good_trace, run_cli, set_verdict
from hypothesis import given, settings
from hypothesis import strategies as st

from validator.report import REPORTERS
from validator.results import (
    ERROR,
    FAIL,
    NOT_RUN,
    PASS,
    CaseResult,
    CheckResult,
    ClauseResult,
    RunKinds,
    RunResult,
    Runs,
)

EPOCH = "1767225600"
ALL = ",".join(REPORTERS)


def _fields(run: RunResult) -> dict[str, Any]:
    """Every field with its type: 1200 and 1200.0, or 1 and True, are not the same field."""
    return {f.name: (type(v := getattr(run, f.name)), v) for f in fields(run)}


def _failed(check: str = "verdict-allowed", severity: str = "error") -> CheckResult:
    return CheckResult(
        check, FAIL, f"{check} failed", severity=severity, blocking=severity == "error"
    )


def _run(n: int, status: str = PASS, **changes: Any) -> RunResult:
    run = RunResult("c", status, fixture=f"t.jsonl:{n}", source="t.jsonl", verdict="PASS")
    run.verdict_key, run.tool_call_count, run.duration_ms = "PASS", 2, 1200
    run.checks_applied, run.checks_skipped = 5, 1
    for name, value in changes.items():
        setattr(run, name, value)
    return run


# --------------------------------------------------------------------------------------------
# The sequence


def test_runs_read_back_in_order_with_every_field_and_type() -> None:
    runs = [
        _run(1),
        _run(2, FAIL, checks=[_failed()], verdict="REVISE", verdict_key="REVISE"),
        _run(3, duration_ms=12.5, tool_call_count=None),
        _run(4, duration_ms=None, notes=["durationMs is a string, not a number"]),
        _run(5, ERROR, error_reason="not JSON", verdict=None, verdict_key=None),
        _run(6, duration_ms=-0.0, tool_call_count=0),
        _run(7, fixture="t.jsonl:007"),  # not the number's own text: kept as written
        _run(8, fixture="t.json#2", source="t.json"),
        _run(9, fixture="other.json", source="other.json"),
        _run(10, fixture=None, source=None),
        _run(11, fixture="x", source=None),
        _run(12, duration_ms=2**60, tool_call_count=True),  # no column holds these: whole
        _run(
            13,
            checks=[_failed("keyword-coverage", "warning")],
            unread=[{"what": "span", "count": 3, "reason": "no call", "gated": False}],
        ),
    ]
    store = Runs(runs)
    assert len(store) == len(runs)
    assert [_fields(r) for r in store] == [_fields(r) for r in runs]
    assert [_fields(store[i]) for i in range(len(runs))] == [_fields(r) for r in runs]
    assert _fields(store[-1]) == _fields(runs[-1]) and _fields(store[-13]) == _fields(runs[0])
    assert [_fields(r) for r in store[3:9:2]] == [_fields(r) for r in runs[3:9:2]]
    assert store == runs and runs == store
    for bad in (13, -14):
        with pytest.raises(IndexError):
            store[bad]


def test_the_representative_and_the_first_run_are_the_objects_appended() -> None:
    first, failing = _run(1), _run(3, FAIL, checks=[_failed()])
    store = Runs([first, _run(2), failing, _run(4, FAIL, checks=[_failed()])])
    assert store.representative is failing and store[2] is failing
    assert store[0] is first and store[:1][0] is first
    passing = Runs([first, _run(2)])
    assert passing.representative is first
    assert Runs().representative is None


def test_a_run_with_check_clauses_is_kept_whole_and_equal() -> None:
    clause = ClauseResult("found", FAIL, "not found", {"found": 1, "required": 2})
    detailed = CheckResult("keyword-coverage", FAIL, "missing", [clause, clause])
    runs = [_run(1), _run(2, FAIL, checks=[_failed()]), _run(3, FAIL, checks=[detailed])]
    store = Runs(runs)
    assert store[2] is runs[2] and store[2].checks[0].clauses[0].details == clause.details


def test_counts_follow_the_runs() -> None:
    runs = [_run(1), _run(2, FAIL), _run(3, ERROR), _run(4, checks_applied=0), _run(5)]
    store = Runs(runs)
    assert store.statuses == {PASS: 3, FAIL: 1, ERROR: 1}
    assert store.passed == 3 and store.vacuous == 1
    case = CaseResult("c", runs)
    assert isinstance(case.runs, Runs) and case.status == ERROR and case.flaky
    assert case.passed_runs == 3 and case.vacuous_runs == 1
    assert CaseResult("c", []).status == NOT_RUN


def test_stores_sharing_kinds_keep_their_own_runs() -> None:
    kinds = RunKinds()
    a = Runs([_run(n) for n in range(1, 6)], kinds)
    b = Runs(
        [_run(n, case_id="d", fixture=f"u.jsonl:{n}", source="u.jsonl") for n in range(9)], kinds
    )
    assert [r.fixture for r in a] == [f"t.jsonl:{n}" for n in range(1, 6)]
    assert {r.case_id for r in b} == {"d"} and b[8].fixture == "u.jsonl:8"
    assert len(kinds.table) == 2, "one kind per case: the runs differ only in their numbers"


def test_a_store_pickles_to_equal_runs() -> None:
    store = Runs([_run(1), _run(2, FAIL, checks=[_failed()]), _run(3)])
    again = pickle.loads(pickle.dumps(store))
    assert isinstance(again, Runs) and [_fields(r) for r in again] == [_fields(r) for r in store]


def test_records_pickle_field_for_field() -> None:
    # A worker's runs come back pickled (as their class called with every field in order).
    clause = ClauseResult("allowed", PASS, "found", {"ratio": 1.0}, worded=True, examined=0)
    check = CheckResult("c1", PASS, "ok", [clause], "shown", "warning", False, 0)
    run = _run(1, checks=[check, _failed()], notes=["n"], unread=[{"kind": "x", "gated": True}])
    run.checks_unexamined, run.error_reason, run.check_seconds = 1, "why", 0.25
    again = pickle.loads(pickle.dumps(run))
    assert _fields(again) == _fields(run)
    assert [_fields(c) for c in again.checks] == [_fields(c) for c in run.checks]
    assert _fields(again.checks[0].clauses[0]) == _fields(clause)
    assert again.check_seconds == 0.25  # not compared by ==, still carried


_TEXT = st.text(st.characters(codec="utf-8"), max_size=6)
_RUN = st.builds(
    RunResult,
    case_id=st.sampled_from(["a", "b"]),
    status=st.sampled_from([PASS, PASS, FAIL, ERROR, NOT_RUN]),
    error_reason=st.none() | _TEXT,
    fixture=st.none() | _TEXT | st.integers(0, 10**20).map(lambda n: f"f.jsonl:{n}"),
    verdict=st.none() | st.sampled_from(["PASS", "REVISE"]),
    verdict_key=st.none() | st.sampled_from(["PASS", "MISSING"]),
    checks=st.lists(
        st.builds(
            CheckResult,
            check=st.sampled_from(["x", "y"]),
            status=st.sampled_from([FAIL, PASS]),
            message=_TEXT,
            severity=st.sampled_from(["error", "warning"]),
            blocking=st.booleans(),
        ),
        max_size=2,
    ),
    tool_call_count=st.none() | st.integers(-(2**64), 2**64) | st.booleans(),
    duration_ms=st.none() | st.floats(allow_nan=False) | st.integers(-(2**60), 2**60),
    notes=st.lists(_TEXT, max_size=2),
    source=st.none() | st.sampled_from(["f.jsonl", "f.json"]),
    checks_applied=st.integers(0, 9),
    checks_skipped=st.integers(0, 9),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_RUN, max_size=12))
def test_any_runs_read_back_equal_field_for_field(runs: list[RunResult]) -> None:
    store = Runs(runs)
    assert [_fields(r) for r in store] == [_fields(r) for r in runs]
    expected = next((r for r in runs if r.status != PASS), runs[0] if runs else None)
    assert store.representative is expected
    assert store.passed == sum(r.status == PASS for r in runs)
    figures = [(r.status, r.verdict_key, r.tool_call_count, r.duration_ms) for r in runs]
    assert [(type(d), f) for f in store.figures() for d in f] == [
        (type(d), f) for f in figures for d in f
    ]
    assert store.totals == [
        sum(r.checks_applied for r in runs),
        sum(r.checks_skipped for r in runs),
        sum(c.failed_nonblocking for r in runs for c in r.checks),
    ]


# --------------------------------------------------------------------------------------------
# Through the command line


CASES = ("alpha", "beta", "gamma")
RUNS = 30


def _line(case_id: str, r: int) -> tuple[str, dict[str, Any]]:
    """Line r of case_id, and the run row report.json must give it (fixture added later)."""
    trace = good_trace(case_id, durationMs=1000 + r if r % 2 else 1000.5 + r)
    row: dict[str, Any] = {
        "status": "pass",
        "reason": None,
        "verdict": "PASS",
        "failed_checks": [],
        "failed_warnings": [],
        "tool_call_count": 2,
        "duration_ms": trace["durationMs"],
        "checks_applied": 5,
        "checks_skipped": 5,
        "vacuous": False,
    }
    if r % 7 == 3:
        set_verdict(trace, "REVISE")
        message = (
            "the verifier's verdict is REVISE, but this case allows only PASS"
            " (read from $.selfEvaluation.verifier_evaluation.verdict)"
        )
        failed = [{"check": "verdict-allowed", "message": message}]
        row.update(status="fail", verdict="REVISE", failed_checks=failed)
        row["reason"] = "1 check failed: verdict-allowed"
    if r % 5 == 4:
        del trace["durationMs"]
        row["duration_ms"] = None
    if r % 6 == 5:
        trace["toolInvocations"] = [*trace["toolInvocations"], {"toolName": "mysql_explain"}]
        row["tool_call_count"] = 3
    if r == 11:
        text = f'{{"caseId": "{case_id}", broken'
        reason = None  # whatever the reader says; checked to be an error below
        return text, {"status": "error", "reason": reason}
    return json.dumps(trace), row


def _export(ws: Workspace) -> dict[str, list[dict[str, Any]]]:
    """traces.jsonl: RUNS runs of each case, interleaved; the run rows expected per case."""
    for case_id in CASES:
        ws.case(GOOD_CASE, id=case_id, name=case_id)
    lines, expected = [], {c: [] for c in CASES}
    for r in range(RUNS):
        for case_id in CASES:
            text, row = _line(case_id, r)
            lines.append(text)
            row["fixture"] = f"traces.jsonl:{len(lines)}"
            expected[case_id].append(row)
    (ws.root / "traces.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    return expected


def _reports(ws: Workspace, out: str, *more: str) -> dict[str, bytes]:
    args = ["run", "--cases", "cases", "--fixtures", "traces.jsonl", "--out", out, *more]
    result = run_cli(*args, "--format", ALL, cwd=ws.root)
    assert result.code == 1, result.err
    return {r.filename: (ws.root / out / r.filename).read_bytes() for r in REPORTERS.values()}


@pytest.fixture(autouse=True)
def _pinned_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def test_every_run_row_of_a_many_run_export_is_the_run_it_names(ws: Workspace) -> None:
    expected = _export(ws)
    _reports(ws, "out", "--jobs", "1")
    report = json.loads((ws.root / "out" / "report.json").read_text("utf-8"))
    for case in report["cases"]:
        items = case["runs"]["items"]
        assert len(items) == RUNS
        for got, want in zip(items, expected[case["case_id"]], strict=True):
            if want["status"] == "error":
                assert got["status"] == "error" and got["fixture"] == want["fixture"]
                assert "JSON" in got["reason"] or "json" in got["reason"], got["reason"]
                continue
            assert got == want
            # 1001 stays a whole number and 1000.5 a decimal, as the trace wrote them.
            assert type(got["duration_ms"]) is type(want["duration_ms"])
        # The case row describes its first run that did not pass, in full.
        assert case["fixture"] == expected[case["case_id"]][3]["fixture"]
        assert [c["check"] for c in case["checks"] if c["status"] == "fail"] == ["verdict-allowed"]
    durations = [r["duration_ms"] for rows in expected.values() for r in rows if "duration_ms" in r]
    counted = [d for d in durations if d is not None]
    summary = report["summary"]
    assert summary["runs"]["total"] == RUNS * len(CASES)
    assert summary["avg_duration_ms"] == round(sum(counted) / len(counted), 3)


def test_a_many_run_export_reports_the_same_bytes_for_any_jobs_and_shards(ws: Workspace) -> None:
    _export(ws)
    one = _reports(ws, "one", "--jobs", "1")
    two = _reports(ws, "two", "--jobs", "2")
    for i in (1, 2, 3):
        run_cli(
            "run", "--cases", "cases", "--fixtures", "traces.jsonl", "--out", f"shard-{i}",
            "--format", ALL, "--jobs", "1", "--shard", f"{i}/3", cwd=ws.root,
        )  # fmt: skip
    merged = run_cli("merge", "shard-1", "shard-2", "shard-3", "--out", "merged", cwd=ws.root)
    assert merged.code == 1, merged.err
    files = {r.filename: (ws.root / "merged" / r.filename).read_bytes() for r in REPORTERS.values()}
    for name, data in one.items():
        assert two[name] == data, f"{name}: --jobs 2 differs from --jobs 1"
        assert files[name] == data, f"{name}: the merge differs from the unsharded run"


def test_a_case_with_thousands_of_runs_keeps_each_fixture(tmp_path: Path) -> None:
    runs = [_run(n) for n in range(1, 5001)]
    runs[2500] = _run(2501, FAIL, checks=[_failed()])
    store = Runs(runs)
    assert [r.fixture for r in store] == [f"t.jsonl:{n}" for n in range(1, 5001)]
    assert store.representative is runs[2500]


def test_the_first_run_is_held_compactly_once_a_later_run_represents_the_case() -> None:
    first = _run(
        1, checks=[CheckResult("x", PASS, "ok", [ClauseResult("c", PASS, "ok", {"n": 1})])]
    )
    store = Runs([first, _run(2)])
    shrunk = _run(1)  # the first run as the Compactor keeps one of the many: no passing check
    store.compact_first(shrunk)
    assert store[0] is first, "while every run passed, the first run represents the case"
    failing = _run(3, FAIL, checks=[_failed()])
    store.append(failing)
    store.compact_first(_run(1, status=FAIL))
    assert store[0] is first, "a run with another status is not the first run shrunk"
    store.compact_first(shrunk)
    assert store[0] is not first and _fields(store[0]) == _fields(shrunk)
    assert store.representative is failing and store.passed == 2 and len(store) == 3
    assert [r.fixture for r in store] == ["t.jsonl:1", "t.jsonl:2", "t.jsonl:3"]


def test_runs_tally_what_the_view_left_unread() -> None:
    span = {"what": "span", "count": 3, "reason": "no call", "gated": False}
    call = {"what": "tool-call", "count": 1, "reason": "content parts", "gated": True}
    store = Runs([_run(1), _run(2, unread=[span]), _run(3, unread=[span, call])])
    assert Runs([_run(1)]).unread is None
    assert store.unread is not None
    assert store.unread.as_dict() == {
        "runs": 2,
        "gated_runs": 1,
        "kinds": {"span": 2, "tool-call": 1},
        "entries": [
            {"what": "span", "count": 6, "reason": "no call", "gated": False},
            {"what": "tool-call", "count": 1, "reason": "content parts", "gated": True},
        ],
    }
    assert [r.unread for r in store] == [[], [span], [span, call]]
