"""Checks that judge values alone (the verdict checks) share one result between the runs of a
case whose queries find the same values: each run's results are still exactly what that
trace alone gives."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from conftest import GOOD_CASE, good_trace, set_verdict
from hypothesis import given, settings
from hypothesis import strategies as st

from validator import evaluate_trace, load_suite
from validator.evaluation.evaluator import Evaluator
from validator.model import Suite
from validator.results import RunResult

CASE = {**GOOD_CASE, "allowed_verdicts": ["PASS", "REVISE"], "forbidden_verdicts": ["REJECT"]}
_SUITES: dict[str, Suite] = {}


def _suite(tmp: Path) -> Suite:
    """The suite of CASE (JSON is YAML), loaded once for all examples."""
    if "suite" not in _SUITES:
        folder = tmp / "cases"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "db-slow.yaml").write_text(json.dumps(CASE), "utf-8")
        _SUITES["suite"] = load_suite(folder)
    return _SUITES["suite"]


# Verdicts equal across types (1, 1.0, true) and texts that differ only by case, besides the
# allowed, forbidden and missing ones: what a shared result must never be taken for.
VERDICTS = st.sampled_from(
    ["PASS", "REVISE", "REJECT", "FAIL", "pass", "", None, 1, 1.0, True, ["PASS"]]
)


def _trace(verdict: Any, index: int) -> dict[str, Any]:
    trace = set_verdict(good_trace(), verdict)
    trace["durationMs"] = index  # runs that differ elsewhere too
    return trace


def _view(run: RunResult) -> list[tuple[Any, ...]]:
    return [(c.check, c.status, c.message, c.examined, c.clauses) for c in run.checks]


@settings(max_examples=60, deadline=None)
@given(verdicts=st.lists(VERDICTS, min_size=2, max_size=8))
def test_each_run_of_a_case_gets_what_its_trace_alone_gives(
    tmp_path_factory: Any, verdicts: list[Any]
) -> None:
    suite = _suite(tmp_path_factory.getbasetemp())
    evaluator = Evaluator(suite)  # one case's runs, one after another, as run evaluates them
    for index, verdict in enumerate(verdicts):
        trace = _trace(verdict, index)
        together = evaluator.evaluate(copy.deepcopy(trace), "db-slow", f"run-{index}.json")
        alone = evaluate_trace(suite, trace, "db-slow", f"run-{index}.json")
        assert together == alone
        assert _view(together) == _view(alone)


def test_runs_with_the_same_verdict_share_the_verdict_checks_results(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    evaluator = Evaluator(suite)
    runs = [
        evaluator.evaluate(_trace(verdict, i), "db-slow")
        for i, verdict in enumerate(["PASS", "PASS", "REJECT", "PASS", "REJECT"])
    ]

    def check(run: RunResult, name: str) -> Any:
        return next(c for c in run.checks if c.check == name)

    for name in ("verdict-allowed", "verdict-present"):
        # From the case's second run on, equal verdicts give one result object.
        assert check(runs[1], name) is check(runs[3], name)
        assert check(runs[2], name) is check(runs[4], name)
        assert check(runs[1], name) is not check(runs[2], name)
    assert check(runs[2], "verdict-allowed").status == "fail"
    assert check(runs[1], "verdict-allowed").status == "pass"
    # A check that reads the answer's text is evaluated for each run.
    assert check(runs[1], "keyword-coverage") is not check(runs[3], "keyword-coverage")


# Cases that apply the same specs but set different `when_input` inputs, or override a
# severity: each gets its own plan of checks, however they follow one another.
VARIANTS: dict[str, dict[str, Any]] = {
    "plain": {},
    "tool-budget": {"max_tool_calls": 1},
    "loose-budget": {"max_tool_calls": 50},
    "banned-tool": {"forbidden_tools": ["mysql_explain"]},
    "both": {"max_tool_calls": 1, "forbidden_tools": ["redis_info"]},
    "warning-only": {"severity_overrides": {"evidence-coverage": "warning"}},
}
_VARIANT_SUITES: dict[str, Suite] = {}


def _variant_suite(tmp: Path) -> Suite:
    if "suite" not in _VARIANT_SUITES:
        folder = tmp / "variants"
        folder.mkdir(parents=True, exist_ok=True)
        for name, changes in VARIANTS.items():
            fields = {**GOOD_CASE, "id": name, **changes}
            (folder / f"{name}.yaml").write_text(json.dumps(fields), "utf-8")
        _VARIANT_SUITES["suite"] = load_suite(folder)
    return _VARIANT_SUITES["suite"]


def _full_view(run: RunResult) -> list[tuple[Any, ...]]:
    return [(*row, c.severity, c.blocking) for row, c in zip(_view(run), run.checks, strict=True)]


@settings(max_examples=40, deadline=None)
@given(order=st.lists(st.sampled_from(sorted(VARIANTS)), min_size=2, max_size=10))
def test_cases_that_set_other_inputs_never_share_a_plan(
    tmp_path_factory: Any, order: list[str]
) -> None:
    suite = _variant_suite(tmp_path_factory.getbasetemp())
    evaluator = Evaluator(suite)  # cases one after another, as a run evaluates them
    for index, case_id in enumerate(order):
        trace = _trace("PASS", index)
        trace["caseId"] = case_id
        trace["toolInvocations"][0]["arguments"] = {"query": "select 1"}
        together = evaluator.evaluate(copy.deepcopy(trace), case_id)
        alone = evaluate_trace(suite, trace, case_id)
        assert together == alone
        assert _full_view(together) == _full_view(alone)


def test_the_variants_get_different_checks(tmp_path: Path) -> None:
    # What makes the test above able to fail: the inputs each case sets decide its checks.
    suite = _variant_suite(tmp_path)

    def statuses(case_id: str) -> dict[str, str]:
        trace = {**_trace("PASS", 0), "caseId": case_id}
        return {c.check: c.status for c in evaluate_trace(suite, trace, case_id).checks}

    assert statuses("plain")["max-tool-calls"] == "skipped"
    assert statuses("tool-budget")["max-tool-calls"] == "fail"  # two calls, a budget of one
    assert statuses("loose-budget")["max-tool-calls"] == "pass"
    assert statuses("banned-tool")["forbidden-tools"] == "fail"
    assert statuses("plain")["forbidden-tools"] == "skipped"
    trace = {**_trace("PASS", 0), "caseId": "warning-only"}
    run = evaluate_trace(suite, trace, "warning-only")
    assert {c.check: c.severity for c in run.checks}["evidence-coverage"] == "warning"


# A guard whose arguments are all literal (degraded-output's `when`: the verdict is in
# [REJECT]; keyword-coverage's `unless`: the same) is remembered by the texts it reads, for
# every case the process evaluates: each trace must still get what its own verdict decides.
# Texts that differ by case or a space, a long text, values of other types: never mistaken.
GUARD_VERDICTS = st.sampled_from(
    ["REJECT", "reject", "REJECT ", "PASS", "", None, 1, True, ["REJECT"], "REJECT" + "!" * 300]
)


@settings(max_examples=60, deadline=None)
@given(runs=st.lists(st.tuples(st.sampled_from(sorted(VARIANTS)), GUARD_VERDICTS), max_size=10))
def test_a_guard_remembered_by_value_decides_as_each_trace_alone(
    tmp_path_factory: Any, runs: list[tuple[str, Any]]
) -> None:
    suite = _variant_suite(tmp_path_factory.getbasetemp())
    evaluator = Evaluator(suite)
    for index, (case_id, verdict) in enumerate(runs):
        trace = {**_trace(verdict, index), "caseId": case_id}
        statuses = {c.check: c.status for c in evaluator.evaluate(trace, case_id).checks}
        rejected = isinstance(verdict, str) and verdict == "REJECT"
        assert (statuses["degraded-output"] == "skipped") is not rejected, (verdict, statuses)
        assert (statuses["keyword-coverage"] == "skipped") is rejected, (verdict, statuses)
