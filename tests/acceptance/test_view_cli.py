"""The normalized view through the command line: specs that read `$.view` work on any
supported trace shape, and lint knows the view's fields."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import GOOD_CASE, REPO, Workspace, good_trace, run_cli

DATA = os.environ.get("TRACE_DATA")
needs_data = pytest.mark.skipif(not DATA, reason="set TRACE_DATA to the shared trace data folder")

TOOLS_SPEC = """\
id: view-tools
description: Every required tool ran, read from the normalized view.
query: $.view.tool_calls[*].name
predicate: contains-all
params:
  items: {case: required_tools, default: []}
"""

FIELDS_SPEC = """\
id: trace-fields
description: Trace fields read from the view, for traces of any shape.
fields:
  case_id: $.caseId
  verdict: $.view.verdict
  tool_call_matches: $.view.tool_calls[*]
  duration_ms: $.view.duration_ms
"""


def _specs(ws: Workspace, *texts: str) -> Path:
    folder = ws.root / "specs"
    folder.mkdir(exist_ok=True)
    for text in texts:
        spec_id = text.split("\n", 1)[0].removeprefix("id: ")
        (folder / f"{spec_id}.yaml").write_text(text, "utf-8")
    return folder


def test_a_view_query_reads_the_reference_trace(ws: Workspace) -> None:
    _specs(ws, TOOLS_SPEC)
    ws.case(dict(GOOD_CASE, checks=["view-tools"]))
    ws.trace("db-slow", good_trace())
    result = ws.run()
    assert result.code == 0, result.out + result.err
    case = ws.case_result()
    assert any("made by the reference adapter (detected)" in n for n in case["notes"]), case
    ws.case(dict(GOOD_CASE, checks=["view-tools"], required_tools=["mysql_explain", "redis_info"]))
    result = ws.run()
    assert result.code == 1
    assert "not found: redis_info" in ws.case_result()["failed_checks"][0]["message"]


def test_trace_fields_may_read_the_view(ws: Workspace) -> None:
    _specs(ws, TOOLS_SPEC, FIELDS_SPEC)
    ws.case(dict(GOOD_CASE, checks=["view-tools"]))
    ws.trace("db-slow", good_trace())
    ws.run()
    case = ws.case_result()
    assert (case["verdict"], case["tool_call_count"]) == ("PASS", 2), case


def test_lint_names_the_closest_view_field(ws: Workspace) -> None:
    _specs(ws, TOOLS_SPEC.replace("$.view.tool_calls[*]", "$.view.tool_call[*]"))
    result = run_cli("lint", "specs", cwd=ws.root)
    assert "[unknown-view-field]" in result.out and "did you mean 'tool_calls'?" in result.out, (
        result.out
    )


@needs_data
def test_a_view_query_reads_opentelemetry_spans_from_seven_frameworks(ws: Workspace) -> None:
    source = Path(str(DATA)) / "otel-agent-traces"
    _specs(ws, TOOLS_SPEC)
    names = sorted(p.stem for p in source.glob("*.json"))
    for name in names:
        case_id = name.replace("_", "-")
        ws.case(
            {
                "id": case_id,
                "required_tools": ["get_current_time", "write_file"],
                "checks": ["view-tools"],
            }
        )
        shutil.copy(source / f"{name}.json", ws.fixtures / f"{case_id}.json")
    result = ws.run()
    report = ws.report()
    statuses = {c["case_id"]: c["status"] for c in report["cases"]}
    assert statuses and set(statuses.values()) == {"pass"}, (statuses, result.out)
    notes = {n for c in report["cases"] for n in c["notes"]}
    assert any("otel-genai adapter" in n for n in notes), notes


@needs_data
def test_an_llm_call_budget_from_the_view_fails_a_framework_that_exceeds_it(ws: Workspace) -> None:
    budget = """\
id: llm-budget
description: At most max_llm_calls model calls.
inputs:
  max_llm_calls: {type: integer, minimum: 0, default: 3}
query: $.view.llm_calls[*]
predicate: count
params:
  max: {case: max_llm_calls}
"""
    _specs(ws, budget)
    source = Path(str(DATA)) / "otel-agent-traces"
    counts = {}
    for path in sorted(source.glob("*.json")):
        from validator.evaluation.view import make_view

        view, _ = make_view(json.loads(path.read_text("utf-8")))
        counts[path.stem.replace("_", "-")] = len(view["llm_calls"])
    most = max(counts.values())
    for case_id in counts:
        ws.case({"id": case_id, "checks": ["llm-budget"], "max_llm_calls": most - 1})
        shutil.copy(source / f"{case_id.replace('-', '_')}.json", ws.fixtures / f"{case_id}.json")
    result = ws.run()
    assert result.code == 1
    failed = {c["case_id"] for c in ws.report()["cases"] if c["status"] == "fail"}
    assert failed == {c for c, n in counts.items() if n == most}, (failed, counts)


def test_the_view_adapter_can_be_named_in_the_suite_config(ws: Workspace) -> None:
    _specs(ws, TOOLS_SPEC)
    ws.case(dict(GOOD_CASE, checks=["view-tools"]))
    ws.trace("db-slow", good_trace())
    (ws.root / "validator.yaml").write_text("specs: [specs]\ntraces:\n  view: reference\n", "utf-8")
    result = run_cli("run", "--out", "reports", "--jobs", "1", cwd=ws.root)
    assert result.code == 0, result.out + result.err
    notes = ws.case_result()["notes"]
    assert any("made by the reference adapter (configured)" in n for n in notes), notes
    (ws.root / "validator.yaml").write_text("traces:\n  view: refrence\n", "utf-8")
    result = run_cli("lint", cwd=ws.root)
    assert "did you mean 'reference'?" in result.out, result.out


@needs_data
def test_the_standard_report_columns_count_tool_calls_of_any_trace_shape(ws: Workspace) -> None:
    """The standard trace-fields spec reads the reference trace's own fields, else the view's:
    the report's tool calls and durations of OpenTelemetry traces are those of their view."""
    assert DATA is not None
    example = REPO / "examples" / "otel-genai"
    fixtures = str(Path(DATA) / "otel-agent-traces")  # wherever TRACE_DATA is
    result = run_cli(
        "run", "--fixtures", fixtures, "--out", str(ws.root / "out"), "-q", cwd=example
    )
    assert result.code == 0, result.out + result.err
    report = json.loads((ws.root / "out" / "report.json").read_text("utf-8"))
    for case in report["cases"]:
        trace = Path(DATA) / "otel-agent-traces" / f"{case['case_id']}.json"
        found = run_cli(
            "query", "--config", str(example), "--json", "$.view.tool_calls[*]", str(trace)
        )
        calls = json.loads(found.out)["matches"]
        assert case["tool_call_count"] == len(calls) > 0, case["case_id"]
        assert case["duration_ms"] and case["duration_ms"] > 0
    assert report["summary"]["avg_tool_calls"] > 0
