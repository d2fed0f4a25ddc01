"""Runs evaluated briefly (`Compactor.brevity`): a run the compaction will reduce to its failed
checks and counts is evaluated for those alone, and is then exactly what the compaction makes
of the run evaluated in full."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, good_trace, set_verdict

from validator import evaluate_trace, load_suite
from validator.evaluation.compaction import BRIEF, BRIEF_IF_PASSES, Brevity, Compactor
from validator.evaluation.context import TraceContext
from validator.evaluation.evaluator import Evaluator
from validator.evaluation.interpreter import run_predicate
from validator.evaluation.predicates.declare import BRIEF_PASS
from validator.model import Suite
from validator.results import FAIL, PASS, RunResult

CASE = {
    **GOOD_CASE,
    "allowed_verdicts": ["PASS", "REVISE"],
    "forbidden_verdicts": ["REJECT"],
    "max_tool_calls": 5,
}


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "db-slow.yaml").write_text(json.dumps(CASE), "utf-8")
    return load_suite(folder)


def _failing() -> dict[str, Any]:
    """A trace that fails three checks (keywords, tools, verdict) and passes the others."""
    trace = set_verdict(good_trace(), "REJECT")
    trace["finalAnswer"] = "The database is fine; nothing to change."
    trace["toolInvocations"] = trace["toolInvocations"][:1]
    return trace


def _briefly(suite: Suite, trace: dict[str, Any], brevity: Brevity) -> RunResult:
    evaluator = Evaluator(suite)
    evaluator.evaluate(good_trace(), "db-slow")  # the case's first run, as a run has it
    return evaluator.evaluate(copy.deepcopy(trace), "db-slow", brevity=lambda _: brevity)


def _counts(run: RunResult) -> tuple[Any, ...]:
    return (run.status, run.checks_applied, run.checks_skipped, run.checks_unexamined)


def _failed(run: RunResult) -> list[tuple[Any, ...]]:
    return [
        (c.check, c.message, c.severity, c.blocking, c.report_as)
        for c in run.checks
        if c.status == FAIL
    ]


@pytest.mark.parametrize("trace", [good_trace(), _failing()], ids=["passing", "failing"])
def test_a_brief_run_is_the_full_runs_failures_and_counts(
    suite: Suite, trace: dict[str, Any]
) -> None:
    full = evaluate_trace(suite, copy.deepcopy(trace), "db-slow")
    brief = _briefly(suite, trace, BRIEF)
    assert _counts(brief) == _counts(full)
    assert _failed(brief) == _failed(full)
    # Only what the compaction keeps was made: no passing or skipped check.
    assert all(c.status == FAIL for c in brief.checks)
    assert len(brief.checks) == len(_failed(full)) < len(full.checks)


def test_a_run_that_is_kept_whole_after_all_is_evaluated_again_in_full(suite: Suite) -> None:
    full = evaluate_trace(suite, _failing(), "db-slow")
    again = _briefly(suite, _failing(), BRIEF_IF_PASSES)
    assert full.status == FAIL
    assert again == full
    assert [(c.check, c.status, c.message, c.clauses) for c in again.checks] == [
        (c.check, c.status, c.message, c.clauses) for c in full.checks
    ]


def test_a_passing_run_that_will_be_compacted_stays_brief(suite: Suite) -> None:
    run = _briefly(suite, good_trace(), BRIEF_IF_PASSES)
    assert run.status == PASS and run.checks == []
    assert _counts(run) == _counts(evaluate_trace(suite, good_trace(), "db-slow"))


def test_results_shared_by_value_never_reach_a_run_kept_whole(suite: Suite) -> None:
    """The verdict checks share results between runs with the same verdict
    (`sharing.by_value`): a brief run's must never be given to a run kept whole."""
    evaluator = Evaluator(suite)
    modes: list[Brevity] = [None, BRIEF_IF_PASSES, BRIEF_IF_PASSES]
    # Three runs with the verdict PASS: the first in full, the second brief (it passes), the
    # third brief at first, then in full because it fails (a missing tool).
    traces = [good_trace(), good_trace(durationMs=7), good_trace(toolInvocations=[])]
    runs = [
        evaluator.evaluate(copy.deepcopy(t), "db-slow", brevity=lambda _, m=mode: m)
        for t, mode in zip(traces, modes, strict=True)
    ]
    assert runs[1].checks == []
    alone = evaluate_trace(suite, traces[2], "db-slow")
    assert runs[2].status == FAIL
    assert [(c.check, c.message) for c in runs[2].checks] == [
        (c.check, c.message) for c in alone.checks
    ]
    assert all(c.message for c in runs[2].checks)


def test_the_compaction_says_how_briefly_a_case_s_next_run_may_be_evaluated() -> None:
    compact = Compactor()
    assert compact.brevity("a") is None  # its first run is kept whole
    compact(RunResult("a", PASS))
    assert compact.brevity("a") == BRIEF_IF_PASSES  # kept whole only if it does not pass
    compact(RunResult("a", FAIL))
    assert compact.brevity("a") == BRIEF  # compacted whatever it gives
    assert compact.brevity("b") is None
    assert compact.brevity(None) is None  # a trace that names its case: not known before


KEYWORD_CALLS = [
    ("contains-all", ["a", "b", "c"], {"items": ["a", "b"]}),
    ("contains-all", ["a"], {"items": ["a", "b"]}),
    ("contains-all", ["a", "b", 3], {"items": ["a", "b"]}),  # a value that is not text: noted
    ("contains-all", [], {"items": []}),
    ("contains-min", ["The **MySQL** pool is full"], {"keywords": [["mysql"], "pool"]}),
    ("contains-min", ["The pool is full"], {"keywords": ["mysql", "pool"], "min": 2}),
    ("contains-min", ["The pool is full"], {"keywords": ["mysql", "pool"], "min": 1}),
    ("contains-min", ["IVF_FLAT"], {"keywords": ["FLAT"], "whole_words": True}),
    ("contains-none", ["We should DROP the table"], {"keywords": ["drop"]}),
    ("contains-none", ["Nothing to remove"], {"keywords": ["drop", ["truncate", "purge"]]}),
    ("contains-none", [], {"keywords": ["drop"]}),
]


@pytest.mark.parametrize(("name", "values", "args"), KEYWORD_CALLS)
def test_a_keyword_predicate_judges_a_brief_run_as_a_full_one(
    name: str, values: list[Any], args: dict[str, Any]
) -> None:
    # In a run the compaction will reduce, a pass says nothing (BRIEF_PASS: nobody reads it);
    # whether it passes, and everything a failure says, are the full run's.
    full = run_predicate(name, values, args, TraceContext({}))
    brief_context = TraceContext({})
    brief_context.brief = True
    brief = run_predicate(name, values, args, brief_context)
    assert brief.passed == full.passed
    if not full.passed:
        assert brief == full
    elif brief is BRIEF_PASS:
        assert (brief.message, brief.details, brief.facts) == ("", None, None)
    else:  # said in full, as when the pass carries a note
        assert brief == full and "ignored" in full.message
