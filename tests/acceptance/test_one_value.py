"""One value where one value is wanted, and `compare` on durations and timestamps, through the
command line on the real files in TRACE_DATA: a `{trace: PATH}` binding to a parameter that
takes one value is the path's single match (several fail naming the count, none is missing);
`equals` with `normalize: number` on smolagents answers; `compare` with `aggregate: span` of
ISO-8601 timestamps on OpenHands and Claude Code sessions ("the session lasted at most 5
minutes"), its messages in the unit the spec names."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from validator.evaluation.interpreter import run_predicate
from validator.evaluation.predicates import TraceContext

DATA = os.environ.get("TRACE_DATA", "")
needs_data = pytest.mark.skipif(not DATA, reason="TRACE_DATA is not set (the real trace files)")
MATH = "gpt-4o__tool-calling__math__2025-07-24.jsonl"


def _suite(
    root: Path, fixtures: Path, traces: str, specs: dict[str, str], cases: list[str]
) -> None:
    for folder in ("cases", "specs"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "validator.yaml").write_text(
        f"cases: cases\nspecs: [specs]\nfixtures: {fixtures}\npacks: []\n"
        f"checks: [{', '.join(specs)}]\n" + (f"traces:\n{traces}" if traces else ""),
        "utf-8",
    )
    for name, text in specs.items():
        (root / "specs" / f"{name}.yaml").write_text(text, "utf-8")
    for case_id in cases:
        (root / "cases" / f"{case_id}.yaml").write_text(
            f"id: {json.dumps(case_id)}\ndescription: a real trace\nquestion: q\n", "utf-8"
        )


def _run(root: Path) -> dict[str, dict[str, Any]]:
    result = run_cli("run", "--out", "out", "--jobs", "1", cwd=root)
    assert "Traceback" not in result.out + result.err, result.err
    assert result.code in (0, 1), result.out + result.err
    report = json.loads((root / "out" / "report.json").read_text("utf-8"))
    return {c["case_id"]: c for c in report["cases"]}


def _message(case: dict[str, Any], check: str) -> str:
    found = [f["message"] for f in case["failed_checks"] if f["check"] == check]
    return found[0] if found else ""


def _spec(check: str, query: str, predicate: str, params: str) -> str:
    return (
        f"id: {check}\ndescription: d\nquery: {json.dumps(query)}\n"
        f"predicate: {predicate}\nparams: {params}\n"
    )


# --------------------------------------------------------------------------------------------
# Rows: what the predicates do with one value, normalized values, aggregates, units


def _check(name: str, values: list[Any], **args: Any) -> tuple[bool, str]:
    outcome = run_predicate(name, values, args, TraceContext({}))
    return outcome.passed, outcome.message


ROWS: list[tuple[str, list[Any], dict[str, Any], bool, str]] = [
    ("equals", ["1541"], {"value": 1541, "normalize": "number"}, True, "compared as numbers"),
    ("equals", [1541.0], {"value": "1541", "normalize": "number"}, True, "equals"),
    ("equals", ["6.72e-05"], {"value": ".0000672", "normalize": "number"}, True, "equals"),
    ("equals", ["1,541"], {"value": 1541, "normalize": "number"}, False, "not a number"),
    ("equals", [True], {"value": 1, "normalize": "number"}, False, "not a number"),
    ("equals", ["1542"], {"value": 1541, "normalize": "number"}, False, "compared as numbers"),
    ("equals", ["1"], {"value": "x", "normalize": "number"}, False, "'value' is \"x\""),
    ("equals", ["  ＭｙＳＱＬ\n db "], {"value": "mysql db", "normalize": "text"}, True, "text"),
    ("equals", ["mysql"], {"value": "postgres", "normalize": "text"}, False, "normalized text"),
    ("equals", [1], {"value": "1", "normalize": "text"}, False, "the value is 1"),
    ("equals", [1], {"value": 1, "normalize": "txt"}, False, "must be one of text, number"),
    ("equals", ["1541"], {"value": 1541}, False, "the value is"),  # typed without normalize
    ("compare", [1, 4, 9], {"op": "le", "value": 8, "aggregate": "span"}, True, "span 8"),
    ("compare", [1, 10], {"op": "le", "value": 8, "aggregate": "span"}, False, "span is 9"),
    ("compare", [0.115], {"op": "le", "value": 1, "unit": "s"}, True, "the value 0.115 s is"),
    (
        "compare",
        [0.115],
        {"op": "le", "value": "100ms", "unit": "s"},
        False,
        "0.115 s; expected <= 0.1 s",
    ),
    ("compare", [1200], {"op": "le", "value": "1s"}, False, "the value is 1.2 s; expected <= 1 s"),
    (
        "compare",
        [3],
        {"op": "le", "value": "2min", "unit": "min"},
        False,
        "3 min; expected <= 2 min",
    ),
    ("compare", [90], {"op": "le", "value": "2min", "unit": "s"}, True, "90 s is within"),
    (
        "compare",
        ["2025-04-30T16:32:54.707474", "2025-04-30T16:40:54.707474"],
        {"op": "le", "value": "5min", "aggregate": "span"},
        False,
        "the span is 8 min; expected <= 5 min (note: timestamps without a zone are read as UTC)",
    ),
    (
        "compare",
        ["2026-02-10T21:11:52.438Z", "2026-02-10T21:11:53.000+00:00"],
        {"op": "le", "value": 600, "aggregate": "span"},
        True,
        "the span 562 ms is within bounds",
    ),
    (
        "compare",
        ["2026-02-10T21:11:52Z", "2026-02-10T23:00:00Z"],
        {"op": "le", "value": "2026-02-10T22:00:00Z", "aggregate": "max"},
        False,
        "the max is 2026-02-10T23:00:00Z; expected <= 2026-02-10T22:00:00Z",
    ),
    (
        "compare",
        ["2026-02-10T21:11:52Z"],
        {"op": "ge", "value": "2026-02-10T21:00:00", "aggregate": "min"},
        True,
        "read as UTC",
    ),
    (
        "compare",
        ["2026-02-10T21:11:52Z"],
        {"op": "le", "value": 5, "aggregate": "max"},
        False,
        "not a timestamp",
    ),
    ("compare", [5], {"op": "le", "value": "2026-02-10T21:11:52Z"}, False, "is a timestamp, but"),
    (
        "compare",
        ["2026-02-10T21:11:52Z"],
        {"op": "le", "value": 5, "aggregate": "sum"},
        False,
        "use span",
    ),
    (
        "compare",
        [1, "2026-02-10T21:11:52Z"],
        {"op": "le", "value": 5},
        False,
        "numbers and timestamps",
    ),
    (
        "compare",
        ["2026-02-10"],
        {"op": "le", "value": 5},
        False,
        "expected a number or a timestamp",
    ),
    ("compare", [1, 2, 3], {"op": "eq", "value": 3, "aggregate": "count"}, True, "count 3"),
    ("compare", [1], {"op": "le", "value": 3, "unit": "days"}, False, "must be one of ms, s, min"),
]


@pytest.mark.parametrize(("name", "values", "args", "passed", "fragment"), ROWS)
def test_rows(
    name: str, values: list[Any], args: dict[str, Any], passed: bool, fragment: str
) -> None:
    ok, message = _check(name, values, **args)
    assert ok is passed, message
    assert fragment in message, message


def test_a_trace_binding_to_a_one_value_parameter_is_its_single_match(tmp_path: Path) -> None:
    fixtures = tmp_path / "fixtures"
    fixtures.mkdir()
    ok = {"a": 1541, "b": ["1541"], "took": 3, "budget": [5]}
    traces = {
        "one": ok,
        "several": {**ok, "b": ["1541", "1541"]},
        "none": {**ok, "b": []},
        "budgets": {**ok, "budget": [5, 6]},
    }
    for name, trace in traces.items():
        (fixtures / f"{name}.json").write_text(json.dumps(trace), "utf-8")
    specs = {
        "same": _spec("same", "$.a", "equals", "{value: {trace: '$.b[*]'}, normalize: number}"),
        "within": _spec("within", "$.took", "compare", "{op: le, value: {trace: '$.budget[*]'}}"),
    }
    _suite(tmp_path, fixtures, "", specs, list(traces))
    cases = _run(tmp_path)
    assert cases["one"]["status"] == "pass"
    several = _message(cases["several"], "same")
    assert "parameter 'value' takes one value, but $.b[*] found 2" in several
    assert "(read from $.a; value from $.b[*])" in several
    assert "parameter 'value' is missing: $.b[*] found nothing" in _message(cases["none"], "same")
    assert "takes one value, but $.budget[*] found 2" in _message(cases["budgets"], "within")


@needs_data
def test_smolagents_answers_equal_the_true_answer_as_numbers(tmp_path: Path) -> None:
    fixtures = Path(DATA) / "smolagents"
    traces = f"  pattern: {MATH}\n  case_id: 'math-{{index}}'\n"
    specs = {
        "right": _spec(
            "right", "$.answer", "equals", "{value: {trace: $.true_answer}, normalize: number}"
        )
    }
    _suite(tmp_path, fixtures, traces, specs, [f"math-{n}" for n in range(1, 51)])
    cases = _run(tmp_path)
    statuses = {k: c["status"] for k, c in cases.items()}
    assert statuses["math-2"] == "pass"  # "2" and "2"
    assert statuses["math-29"] == "pass", _message(cases["math-29"], "right")  # 6.72e-05 = .0000672
    assert statuses["math-26"] == "fail"  # "64", but 32 is the answer
    assert 'the value is "64", but "32" is required (compared as numbers)' in _message(
        cases["math-26"], "right"
    )
    # A sentence is not a number: the check fails, it does not pass unread.
    assert "which is not a number" in _message(cases["math-1"], "right")
    assert sum(s == "pass" for s in statuses.values()) == 13


@needs_data
def test_openhands_and_claude_code_sessions_last_at_most_5_minutes(tmp_path: Path) -> None:
    lasted = _spec(
        "lasted", "$.history[*].timestamp", "compare", "{op: le, value: 5min, aggregate: span}"
    )
    openhands = tmp_path / "openhands"
    _suite(
        openhands,
        Path(DATA) / "openhands",
        "  pattern: multi_swe_bench_output.jsonl\n  case_id: $.instance_id\n",
        {"lasted": lasted},
        ["ponylang__ponyc-4595", "ponylang__ponyc-4593", "ponylang__ponyc-4588"],
    )
    cases = _run(openhands)
    assert cases["ponylang__ponyc-4595"]["status"] == "pass"
    assert cases["ponylang__ponyc-4593"]["status"] == "pass"
    message = _message(cases["ponylang__ponyc-4588"], "lasted")
    assert message.startswith("the span is 7.49812 min; expected <= 5 min"), message
    assert "(note: timestamps without a zone are read as UTC)" in message

    claude = tmp_path / "claude"
    session = _spec(
        "lasted", "$[*].timestamp", "compare", "{op: le, value: 300, unit: s, aggregate: span}"
    )
    _suite(
        claude,
        Path(DATA) / "claude-code",
        "  pattern: '*.jsonl'\n  group: file\n  allow_unmatched: true\n",
        {"lasted": session},
        ["short", "tool_heavy", "subagent"],
    )
    cases = _run(claude)
    assert cases["short"]["status"] == "pass"
    assert cases["tool_heavy"]["status"] == "pass"
    message = _message(cases["subagent"], "lasted")
    assert message.startswith("the span is 575.91 s; expected <= 300 s"), message
    assert "read as UTC" not in message, "Claude Code timestamps name their zone (Z)"
