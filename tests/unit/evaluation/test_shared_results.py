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
