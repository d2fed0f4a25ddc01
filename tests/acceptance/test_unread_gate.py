"""No pass on unread content: what the view could not read reaches the run, the reports, lint
and the gate.

- A run notes, per trace whose view was made, what the view left unread; report.json,
  report.md and the HTML page count it; nothing changes in a suite where everything was read.
- `--fail-on unread` fails a run whose trace held content of a kind checks read that the view
  could not read (a tool span whose attributes are in an unread form), and not one whose
  unread content is spans that are no call (the real Tempo export's HTTP spans).
- `lint --fixtures` names, per adapter, what it left unread (`view-unread`).
- `query` (and `query --view ADAPTER`) says which adapter made `$.view` and what it left
  unread; `traces.view: auto` is the default, spelled out.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from conftest import REPO, run_cli

from validator.loading.schema import load_schema
from validator.report.gate import Gate, parse_fail_on

DATA = os.environ.get("TRACE_DATA")
TEMPO = "tempo-otlp-genai"


def _kv(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def _span(span_id: str, name: str, attributes: Any, parent: str | None = "a") -> dict[str, Any]:
    number = ord(span_id)
    span: dict[str, Any] = {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": span_id,
        "name": name,
        "startTimeUnixNano": str(1_700_000_000_000_000_000 + number * 1_000_000),
        "endTimeUnixNano": str(1_700_000_000_000_000_000 + number * 1_000_000 + 500_000),
        "attributes": attributes,
    }
    if parent is not None:
        span["parentSpanId"] = parent
    return span


def _otel_trace(tool_attributes: Any) -> dict[str, Any]:
    """An agent span, a tool span with `tool_attributes`, and an HTTP span."""
    spans = [
        _span("a", "agent", [_kv("gen_ai.operation.name", "invoke_agent")], parent=None),
        _span("b", "execute_tool delete_cluster", tool_attributes),
        _span("c", "GET /health", [_kv("http.method", "GET")]),
    ]
    scope = {"scope": {"name": "genai"}, "spans": spans}
    return {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [scope]}]}


# The tool call as the OTel GenAI conventions write it, and in a form the view does not read
# (the attributes as a JSON text instead of a key/value list or a mapping).
READABLE = [_kv("gen_ai.operation.name", "execute_tool"), _kv("gen_ai.tool.name", "delete_cluster")]
UNREADABLE = json.dumps(
    {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "delete_cluster"}
)


def _suite(root: Path, trace: dict[str, Any], view: str | None = None) -> Path:
    (root / "cases").mkdir(parents=True)
    (root / "fixtures").mkdir()
    traces: dict[str, Any] = {"pattern": "*.json", "case_id": "{file_stem}"}
    if view is not None:
        traces["view"] = view
    config = {"cases": "cases", "fixtures": "fixtures", "packs": ["agent"], "traces": traces}
    (root / "validator.yaml").write_text(yaml.safe_dump(config), "utf-8")
    case = {"id": "ops", "forbidden_tools": ["delete_cluster"]}
    (root / "cases" / "ops.yaml").write_text(yaml.safe_dump(case), "utf-8")
    (root / "fixtures" / "ops.json").write_text(json.dumps(trace), "utf-8")
    return root


def _run(root: Path, *flags: str) -> tuple[int, str, dict[str, Any], str]:
    out = root / "out"
    if out.exists():
        shutil.rmtree(out)
    result = run_cli(
        "run", "--out", str(out), "--jobs", "1", "--format", "json,md,html", *flags, cwd=root
    )
    assert "Traceback" not in result.err, result.err
    report = json.loads((out / "report.json").read_text("utf-8"))
    markdown = (out / "report.md").read_text("utf-8")
    html = (out / "report.html").read_text("utf-8")
    return result.code, result.out + result.err, report, markdown + html


def test_a_tool_call_the_view_cannot_read_fails_the_unread_gate(tmp_path: Path) -> None:
    root = _suite(tmp_path / "s", _otel_trace(UNREADABLE))
    code, _, report, pages = _run(root)
    assert code == 0  # the forbidden call is not in $.view.tool_calls: it passes ...
    code, printed, report, pages = _run(root, "--fail-on", "unread")
    assert code == 1  # ... unless the gate fails on what the view could not read
    assert "--fail-on unread" in printed and "ops" in printed
    assert report["summary"]["unread"] == {
        "traces": 1,
        "gated_traces": 1,
        "kinds": {"attributes": 1, "span": 1},
    }
    (case,) = report["cases"]
    assert case["status"] == "pass"
    assert case["unread"]["gated_runs"] == 1
    assert {(e["what"], e["gated"]) for e in case["unread"]["entries"]} == {
        ("attributes", True),
        ("span", False),
    }
    assert any("could not read content of a kind checks read" in n for n in case["notes"])
    jsonschema.Draft202012Validator(load_schema("report")).validate(report)
    assert any("otel-genai adapter (detected)" in n for n in case["notes"])
    assert "1 trace held content the view could not read (attributes in 1 trace" in pages
    assert pages.count("1 trace held content the view could not read") == 2  # md and HTML
    assert "## Unread content" in pages
    assert "attributes that are neither a key/value list nor a mapping" in pages


def test_the_same_call_in_the_readable_form_fails_its_check_and_reports_nothing_unread(
    tmp_path: Path,
) -> None:
    root = _suite(tmp_path / "s", _otel_trace(READABLE))
    code, printed, report, pages = _run(root, "--fail-on", "flaky,unread")
    assert code == 1
    (case,) = report["cases"]
    assert case["status"] == "fail"
    # the HTTP span is no call: counted, never gated
    assert report["summary"]["unread"]["gated_traces"] == 0
    assert "--fail-on unread" not in printed.split("exit 1", 1)[-1]
    assert "none of a kind checks read" in pages


def test_a_suite_that_reads_everything_reports_nothing_about_unread_content(
    tmp_path: Path,
) -> None:
    trace = json.loads((REPO / "fixtures" / "mysql-slow-query.json").read_text("utf-8"))
    root = tmp_path / "s"
    (root / "cases").mkdir(parents=True)
    (root / "fixtures").mkdir()
    shutil.copy(REPO / "cases" / "mysql-slow-query.yaml", root / "cases")
    (root / "fixtures" / "mysql-slow-query.json").write_text(json.dumps(trace), "utf-8")
    result = run_cli(
        "run",
        "--cases",
        "cases",
        "--fixtures",
        "fixtures",
        "--out",
        "out",
        "--fail-on",
        "unread",
        cwd=root,
    )
    report = json.loads((root / "out" / "report.json").read_text("utf-8"))
    assert "unread" not in report["summary"]
    assert all("unread" not in case for case in report["cases"])
    assert "Unread" not in (root / "out" / "report.md").read_text("utf-8")
    assert "--fail-on unread" not in result.out + result.err


def test_fail_on_takes_unread_with_any_mode_and_vacuous() -> None:
    assert parse_fail_on("unread") == ("any", False, True)
    assert parse_fail_on("flaky,vacuous,unread") == ("flaky", True, True)
    with pytest.raises(ValueError, match="did you mean 'unread'"):
        parse_fail_on("any,unred")
    gate = Gate(fail_unread=True)
    assert Gate.from_json(gate.to_json(changed_only=True)) == gate


def test_a_typo_in_fail_on_is_a_usage_error(tmp_path: Path) -> None:
    root = _suite(tmp_path / "s", _otel_trace(READABLE))
    result = run_cli("run", "--out", "out", "--fail-on", "unraed", cwd=root)
    assert result.code == 2
    assert "unread" in result.err and "Traceback" not in result.err


def test_query_names_the_adapter_and_what_it_left_unread(tmp_path: Path) -> None:
    root = _suite(tmp_path / "s", _otel_trace(UNREADABLE), view="auto")
    result = run_cli("query", "$.view.tool_calls[*].name", "fixtures/ops.json", cwd=root)
    assert "otel-genai adapter, detected" in result.out
    assert "$.view left unread: 1 attributes" in result.out
    forced = run_cli(
        "query", "--view", "openai-messages", "$.view.adapter", "fixtures/ops.json", cwd=root
    )
    assert "openai-messages adapter, configured" in forced.out
    assert "$.view left unread: 1 trace" in forced.out
    as_json = run_cli("query", "--json", "$.view.adapter", "fixtures/ops.json", cwd=root)
    (trace,) = json.loads(as_json.out)["traces"]
    assert trace["adapter"] == "otel-genai"
    assert [e["what"] for e in trace["unread"]] == ["attributes", "span"]
    bad = run_cli("query", "--view", "otel", "$.view", "fixtures/ops.json", cwd=root)
    assert bad.code == 2 and "otel-genai" in bad.err


def test_explain_shows_the_adapter_and_what_it_left_unread(tmp_path: Path) -> None:
    root = _suite(tmp_path / "s", _otel_trace(UNREADABLE))
    result = run_cli("explain", "ops", cwd=root)
    assert "made by the otel-genai adapter (detected)" in result.out
    assert "could not read content of a kind checks read: 1 attributes" in result.out


def test_lint_fixtures_names_what_each_adapter_left_unread(tmp_path: Path) -> None:
    root = _suite(tmp_path / "s", _otel_trace(UNREADABLE))
    result = run_cli("lint", "--fixtures", "fixtures", cwd=root)
    (line,) = [x for x in result.out.splitlines() if "[view-unread]" in x]
    assert line.startswith("fixtures/ops.json:1:1: warning: the otel-genai adapter")
    assert "1 attributes" in line and "read for errors and times only: 2 span" in line
    clean = _suite(tmp_path / "t", _otel_trace(READABLE))
    assert "view-unread" not in run_cli("lint", "--fixtures", "fixtures", cwd=clean).out


# --------------------------------------------------------------------------- real data


def _tempo(tmp_path: Path, view: str | None = None) -> Path:
    if not DATA or not (Path(DATA) / TEMPO).is_dir():
        pytest.skip(f"set TRACE_DATA to the shared trace data folder (with {TEMPO})")
    root = tmp_path / "t"
    (root / "shared").mkdir(parents=True)
    (root / "shared" / "data").symlink_to(Path(DATA).resolve(), target_is_directory=True)
    folder = root / "repo" / "examples" / TEMPO
    shutil.copytree(REPO / "examples" / TEMPO, folder)
    if view is not None:
        config = folder / "validator.yaml"
        config.write_text(config.read_text("utf-8").replace("view: otel-genai", f"view: {view}"))
    return folder


def test_the_real_tempo_export_with_its_http_spans_passes_the_unread_gate(tmp_path: Path) -> None:
    folder = _tempo(tmp_path)
    result = run_cli(
        "run", "--out", str(tmp_path / "out"), "--jobs", "1", "--fail-on", "unread", cwd=folder
    )
    assert result.code == 0, result.out + result.err
    report = json.loads((tmp_path / "out" / "report.json").read_text("utf-8"))
    assert report["summary"]["unread"] == {"traces": 1, "gated_traces": 0, "kinds": {"span": 1}}
    markdown = (tmp_path / "out" / "report.md").read_text("utf-8")
    assert "1 trace held content the view could not read (spans in 1 trace)" in markdown
    lint = run_cli("lint", cwd=folder)
    assert "view-unread" not in lint.out


def test_lint_fixtures_on_real_data_names_the_adapter_that_could_not_read_it(
    tmp_path: Path,
) -> None:
    folder = _tempo(tmp_path, view="openai-messages")  # the wrong adapter for this shape
    lint = run_cli("lint", cwd=folder)
    (line,) = [x for x in lint.out.splitlines() if "[view-unread]" in x]
    assert "tempo_export_with_batches.json" in line
    assert "the openai-messages adapter made the view ($.view) of 1 trace" in line
    assert "1 trace (no message list found" in line
    result = run_cli(
        "run", "--out", str(tmp_path / "out"), "--jobs", "1", "--fail-on", "unread", cwd=folder
    )
    assert result.code == 1
    assert "--fail-on unread" in result.out + result.err


def test_a_case_of_several_runs_names_the_runs_that_held_unread_content(tmp_path: Path) -> None:
    root = _suite(tmp_path / "s", _otel_trace(READABLE))
    (root / "fixtures" / "ops.json").unlink()
    lines = [_otel_trace([_kv("http.method", "GET")]), _otel_trace(UNREADABLE)]
    (root / "fixtures" / "ops.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), "utf-8"
    )
    config = yaml.safe_load((root / "validator.yaml").read_text("utf-8"))
    config["traces"]["pattern"] = "*.jsonl"
    (root / "validator.yaml").write_text(yaml.safe_dump(config), "utf-8")
    code, _, report, pages = _run(root, "--fail-on", "unread")
    assert code == 1
    (case,) = report["cases"]
    assert case["runs"]["total"] == 2
    assert case["unread"]["runs"] == 2 and case["unread"]["gated_runs"] == 1
    items = case["runs"]["items"]
    assert [bool(i.get("unread")) for i in items] == [True, True]
    assert [any(e["gated"] for e in i["unread"]) for i in items] == [False, True]
    assert "- ops (2 of 2 runs):" in pages
    assert report["summary"]["unread"]["traces"] == 2


def test_times_on_two_clocks_leave_the_duration_null_and_do_not_gate(tmp_path: Path) -> None:
    """smolagents writes start_time as epoch seconds and end_time as a local date-time: the
    view notes `time` unread and leaves duration_ms null. A duration check fails on the null,
    so nothing passes unseen: `--fail-on unread` does not count it and lint does not warn."""
    if not DATA or not (Path(DATA) / "smolagents").is_dir():
        pytest.skip("set TRACE_DATA to the shared trace data folder (with smolagents)")
    suite = tmp_path / "suite"
    made = run_cli("init", "--from", str(Path(DATA) / "smolagents"), str(suite))
    assert made.code == 0, made.err
    out = tmp_path / "out"
    ran = run_cli("run", "--out", str(out), "--jobs", "1", "--fail-on", "unread", cwd=suite)
    assert ran.code == 0, ran.out + ran.err
    unread = json.loads((out / "report.json").read_text("utf-8"))["summary"]["unread"]
    assert unread["gated_traces"] == 0 and unread["kinds"]["time"] >= 1, unread
    assert "view-unread" not in run_cli("lint", cwd=suite).out
    # a case that bounds the duration of such a trace fails on the null: no silent pass
    case = suite / "cases" / "gpt-4o__code__gaia__2025-09-08-1.yaml"
    case.write_text(case.read_text("utf-8") + "max_duration_ms: 60000\n", "utf-8")
    ran = run_cli("run", "--out", str(out), "--jobs", "1", "--case", case.stem, cwd=suite)
    assert ran.code == 1, ran.out + ran.err
    (row,) = json.loads((out / "report.json").read_text("utf-8"))["cases"]
    assert [f["check"] for f in row["failed_checks"]] == ["agent-max-duration-ms"], row
