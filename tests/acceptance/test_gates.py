"""--max-regression metric gates against a baseline, the SARIF report and GitHub annotations,
through the command line; and the pre-commit hook."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, REPO, Workspace, good_trace, set_verdict

from validator.loading.schema import load_schema


def _failing(case_id: str = "db-slow") -> dict:
    return set_verdict(good_trace(case_id), "REVISE")


def _suite(ws: Workspace, traces: dict[str, dict]) -> None:
    for path in ws.cases.glob("*.yaml"):
        path.unlink()
    for path in ws.fixtures.glob("*.json"):
        path.unlink()
    for case_id, trace in traces.items():
        ws.case(dict(GOOD_CASE, id=case_id))
        ws.trace(case_id, trace)


def _baseline(ws: Workspace, traces: dict[str, dict]) -> Path:
    _suite(ws, traces)
    ws.run("--fail-on", "never")
    base = ws.root / "base.json"
    shutil.copy(ws.out / "report.json", base)
    return base


def _gates(ws: Workspace) -> dict[str, dict[str, Any]]:
    return {g["metric"]: g for g in ws.report()["comparison"]["gates"]}


# --------------------------------------------------------------------------------------------
# --max-regression


def test_absolute_and_relative_limits_hold_or_fail_with_both_values(ws: Workspace) -> None:
    names = [f"c{i}" for i in range(10)]
    base = _baseline(ws, {n: good_trace(n, durationMs=1000) for n in names})
    now = {n: good_trace(n, durationMs=1200) for n in names}
    now["c0"] = _failing("c0")  # pass rate 1.0 -> 0.9; c0 keeps good_trace's 1200 ms
    _suite(ws, now)
    held = ("--max-regression", "pass_rate:-0.1", "--max-regression", "avg_duration_ms:+20%")
    result = ws.run("--baseline", str(base), "--fail-on", "never", *held)
    assert result.code == 0, result.out
    gates = _gates(ws)
    assert gates["pass_rate"] == {
        "metric": "pass_rate",
        "limit": "-0.1",
        "baseline": 1.0,
        "now": 0.9,
        "change": -0.1,
        "passed": True,
        # the change in the limit's unit (absolute here), never a percent beside it
        "message": "pass_rate fell from 1 to 0.9 (-0.1): within the -0.1 allowed",
    }
    assert gates["avg_duration_ms"]["passed"] and gates["avg_duration_ms"]["limit"] == "+20%"
    tight = ("--max-regression", "pass_rate:-0.02", "--max-regression", "avg_duration_ms:+19.9%")
    result = ws.run("--baseline", str(base), "--fail-on", "never", *tight)
    assert result.code == 1
    assert "exit 1: --max-regression pass_rate:-0.02: pass_rate fell from 1 to 0.9" in result.out
    assert "pass_rate fell from 1 to 0.9 (-0.1): more than the -0.02 allowed" in result.out
    assert "removed; pass rate -10.0 points" in result.out  # as the report rounds it
    assert "| pass_rate -0.02 | 1 | 0.9 | -0.1 | ❌ " in (ws.out / "report.md").read_text("utf-8")
    assert "rose from 1000 to 1200 (+20.0%): more than the +19.9% allowed" in result.out
    gates = _gates(ws)
    assert not gates["pass_rate"]["passed"] and not gates["avg_duration_ms"]["passed"]
    assert gates["avg_duration_ms"]["change"] == 200
    md = (ws.out / "report.md").read_text("utf-8")
    assert "| avg_duration_ms +19.9% | 1,000 | 1,200 | 200 | ❌ " in md
    errors = [e.message for e in _validator().iter_errors(ws.report())]
    assert not errors, errors


def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(load_schema("report"))


def test_limits_are_compared_exactly_and_sign_may_be_left_out(ws: Workspace) -> None:
    base = _baseline(ws, {"a": good_trace("a"), "b": good_trace("b"), "c": good_trace("c")})
    extra = good_trace("a")
    extra["toolInvocations"] = [*extra["toolInvocations"], {"toolName": "x"}, {"toolName": "y"}]
    _suite(ws, {"a": extra, "b": good_trace("b"), "c": good_trace("c")})  # 2 -> 2.667 calls
    assert ws.run("--baseline", str(base), "--max-regression", "avg_tool_calls:0.667").code == 0
    assert _gates(ws)["avg_tool_calls"]["limit"] == "+0.667"
    assert ws.run("--baseline", str(base), "--max-regression", "avg_tool_calls:+0.666").code == 1
    assert ws.run("--baseline", str(base), "--max-regression", "p95_tool_calls:+1").code == 1
    gate = _gates(ws)["p95_tool_calls"]
    assert (gate["baseline"], gate["now"], gate["change"]) == (2, 4, 2)


def test_a_metric_missing_on_a_side_fails_with_a_clear_message(ws: Workspace) -> None:
    base = _baseline(ws, {"a": good_trace("a")})
    result = ws.run("--baseline", str(base), "--max-regression", "avg_cost:+10%")
    assert result.code == 1
    gate = _gates(ws)["avg_cost"]
    assert gate["passed"] is False and gate["change"] is None
    assert "avg_cost is neither in the baseline nor in this run" in gate["message"]
    assert "the gate cannot be checked, so it fails" in result.out
    no_duration = good_trace("a")
    del no_duration["durationMs"]
    _suite(ws, {"a": no_duration})
    assert ws.run("--baseline", str(base), "--max-regression", "p95_duration_ms:+1%").code == 1
    assert "p95_duration_ms is not in this run" in _gates(ws)["p95_duration_ms"]["message"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("p95_duration:+10%", "unknown metric 'p95_duration' (did you mean 'p95_duration_ms'?)"),
        ("pass_rate", "'pass_rate' is not METRIC:LIMIT"),
        ("pass_rate:+0.02", "pass_rate is better higher, so its limit is how far it may fall"),
        ("avg_duration_ms:-5%", "write avg_duration_ms:+5%"),
        ("avg_tool_calls:lots", "the limit 'lots' is not a number"),
        ("avg_tool_calls:+-1", "give the limit once, with one sign"),
    ],
)
def test_a_bad_max_regression_is_a_usage_error_naming_the_metrics(
    ws: Workspace, value: str, expected: str
) -> None:
    base = _baseline(ws, {"a": good_trace("a")})
    shutil.rmtree(ws.out)
    result = ws.run("--baseline", str(base), "--max-regression", value)
    assert result.code == 2
    assert expected in result.err
    if "unknown metric" in expected or "METRIC:LIMIT" in expected:
        assert "metrics: pass_rate, pass_hat_k, pass_at_k, avg_tool_calls" in result.err
    assert not ws.out.exists()


def test_max_regression_needs_a_baseline(ws: Workspace) -> None:
    _suite(ws, {"a": good_trace("a")})
    result = ws.run("--max-regression", "pass_rate:-0.01")
    assert result.code == 2 and "--max-regression needs --baseline" in result.err


def test_gates_leave_quarantined_cases_out_on_both_sides(ws: Workspace) -> None:
    base = _baseline(ws, {"a": good_trace("a"), "b": good_trace("b")})
    _suite(ws, {"a": good_trace("a"), "b": _failing("b")})
    q = ws.root / "q.yaml"
    q.write_text("- id: b\n  reason: known\n", "utf-8")
    args = ("--baseline", str(base), "--fail-on", "never", "--max-regression", "pass_rate:-0.1")
    assert ws.run(*args).code == 1
    assert ws.run(*args, "--quarantine", str(q)).code == 0
    gate = _gates(ws)["pass_rate"]
    assert (gate["baseline"], gate["now"]) == (1.0, 1.0), "b is left out on both sides"
    assert ws.report()["summary"]["pass_rate"] == 0.5, "the summary still counts b"


# --------------------------------------------------------------------------------------------
# SARIF

SARIF_SCHEMA = os.environ.get("SARIF_SCHEMA")


def _sarif(ws: Workspace) -> dict[str, Any]:
    return json.loads((ws.out / "report.sarif").read_text("utf-8"))


def _line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text("utf-8").splitlines(), 1) if text in line)


def _mixed(ws: Workspace) -> Path:
    """A failing single-run case, a threshold case with one failing run, an error, a not-run."""
    case = ws.case()
    ws.trace("db-slow", json.dumps(_failing(), indent=2))
    ws.case(dict(GOOD_CASE, id="tolerant", min_passes=1))
    ws.trace("tolerant", good_trace("tolerant"), name="tolerant/run-1.json")
    ws.trace("tolerant", _failing("tolerant"), name="tolerant/run-2.json")
    ws.case(dict(GOOD_CASE, id="broken"))
    ws.trace("broken", "{oops")
    ws.case(dict(GOOD_CASE, id="missing"))
    return case


def test_sarif_has_one_result_per_failed_check_located_in_case_and_trace(ws: Workspace) -> None:
    case_file = _mixed(ws)
    assert ws.run("--format", "sarif,json").code == 1
    sarif = _sarif(ws)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    results = run["results"]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert rules == sorted(rules) and "verdict-allowed" in rules
    for result in results:
        assert rules[result["ruleIndex"]] == result["ruleId"]
    failed = [r for r in results if r["properties"]["caseId"] == "db-slow"]
    assert [r["ruleId"] for r in failed] == ["verdict-allowed"]
    first = failed[0]
    assert first["level"] == "error"
    case_loc, trace_loc = (loc["physicalLocation"] for loc in first["locations"])
    assert case_loc["artifactLocation"] == {"uri": "cases/db-slow.yaml", "uriBaseId": "%SRCROOT%"}
    assert case_loc["region"] == {
        "startLine": _line_of(case_file, '"allowed_verdicts"'),
        "startColumn": 3,
    }
    assert first["locations"][0]["message"]["text"] == "allowed_verdicts in the case"
    trace_file = ws.fixtures / "db-slow.json"
    line = _line_of(trace_file, '"verdict": "REVISE"')
    column = trace_file.read_text().splitlines()[line - 1].index('"REVISE"') + 1
    assert trace_loc["artifactLocation"]["uri"] == "fixtures/db-slow.json"
    assert trace_loc["region"] == {
        "startLine": line,
        "startColumn": column,
        "endLine": line,
        "endColumn": column + len('"REVISE"'),
    }
    tolerated = [r for r in results if r["properties"]["caseId"] == "tolerant"]
    assert [(r["ruleId"], r["level"]) for r in tolerated] == [("verdict-allowed", "warning")]
    assert tolerated[0]["properties"]["fixture"] == "fixtures/tolerant/run-2.json"
    others = {r["properties"]["caseId"]: r["ruleId"] for r in results}
    assert others["broken"] == "run-error" and others["missing"] == "not-run"


@pytest.mark.skipif(
    not SARIF_SCHEMA,
    reason="set SARIF_SCHEMA to the official SARIF 2.1.0 JSON Schema (.ci/run installs it from"
    " npm: @microsoft/jest-sarif ships lib/schemas/sarif-2.1.0-rtm.5.json)",
)
def test_sarif_validates_against_the_official_schema(ws: Workspace) -> None:
    import jsonschema

    schema = json.loads(Path(str(SARIF_SCHEMA)).read_text("utf-8"))
    assert "2.1.0" in schema["title"]
    validator_class = jsonschema.validators.validator_for(schema)
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    _mixed(ws)
    export = ws.root / "export.jsonl"
    export.write_text(json.dumps(_failing()) + "\n" + json.dumps(good_trace("nobody")) + "\n")
    q = ws.root / "q.yaml"
    q.write_text("- id: broken\n  reason: known\n", "utf-8")
    for extra in ((), ("--fixtures", str(export)), ("--quarantine", str(q))):
        assert ws.run("--format", "sarif", *extra).code == 1
        errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(_sarif(ws))]
        assert not errors, errors
        rules = {r["ruleId"] for r in _sarif(ws)["runs"][0]["results"]}
        assert "verdict-allowed" in rules
        assert ("unmatched-trace" in rules) == ("--fixtures" in extra)


def test_sarif_locates_a_json_lines_trace_at_its_line(ws: Workspace) -> None:
    ws.case()
    export = ws.root / "export.jsonl"
    lines = [good_trace(), _failing(), good_trace("nobody")]
    export.write_text("".join(json.dumps(t) + "\n" for t in lines), "utf-8")
    assert ws.run("--fixtures", str(export), "--format", "sarif").code == 1
    results = _sarif(ws)["runs"][0]["results"]
    failed = next(r for r in results if r["ruleId"] == "verdict-allowed")
    trace = failed["locations"][1]["physicalLocation"]
    assert trace["artifactLocation"]["uri"] == "export.jsonl"
    start = json.dumps(_failing()).index('"REVISE"') + 1
    assert trace["region"] == {
        "startLine": 2,
        "startColumn": start,
        "endLine": 2,
        "endColumn": start + 8,
    }
    unmatched = next(r for r in results if r["ruleId"] == "unmatched-trace")
    where = unmatched["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "export.jsonl"
    assert where["region"] == {"startLine": 3}


def test_sarif_from_a_report_read_back_places_findings_at_the_trace_file(ws: Workspace) -> None:
    from validator.report import write_reports
    from validator.report.document import Report

    _mixed(ws)
    assert ws.run().code == 1
    report = Report.from_dict(ws.report())
    out = ws.root / "again"
    write_reports(report, out, ["sarif"])
    results = json.loads((out / "report.sarif").read_text())["runs"][0]["results"]
    failed = next(r for r in results if r["ruleId"] == "verdict-allowed")
    (only,) = failed["locations"]
    assert only["physicalLocation"] == {
        "artifactLocation": {"uri": "fixtures/db-slow.json", "uriBaseId": "%SRCROOT%"}
    }


def test_trace_regions_walk_plain_steps_and_stop_at_the_deepest_value() -> None:
    from validator.commands.locate import json_span, static_steps

    text = '{"a": {"b": [10, {"c": "x"}]}, "d": 1}'
    assert static_steps("$.a.b[1].c") == ["a", "b", 1, "c"]
    assert static_steps("$['a'][\"b\"][*].c") == ["a", "b"]
    assert static_steps("$..c") == []
    start, end = json_span(text, ["a", "b", 1, "c"])
    assert text[start:end] == '"x"'
    start, end = json_span(text, ["a", "b", 5])  # missing index: the list
    assert text[start:end] == '[10, {"c": "x"}]'
    assert json_span(text, ["zzz"]) is None
    assert json_span("not json", ["a"]) is None


# --------------------------------------------------------------------------------------------
# GitHub annotations


def test_annotations_are_printed_in_github_actions_or_on_request(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    case_file = _mixed(ws)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    assert "::error" not in ws.run().out
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    out = ws.run().out
    line = _line_of(case_file, '"allowed_verdicts"')
    assert (
        f"::error file=cases/db-slow.yaml,line={line},col=3,title=verdict-allowed::db-slow: verdict-allowed failed: the verifier's verdict is REVISE, but this case allows only PASS (read from $.selfEvaluation"
        in out
    )
    assert "::warning file=cases/tolerant.yaml" in out and "failed in 1 of 2 runs" in out
    assert "title=run-error::broken:" in out and "title=not-run::missing:" in out
    assert "::error" not in ws.run("--no-annotations").out
    monkeypatch.delenv("GITHUB_ACTIONS")
    assert "::error file=cases/db-slow.yaml" in ws.run("--annotations").out


def test_annotations_escape_trace_text(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", set_verdict(good_trace(), "X\n::error::forged,100%"))
    out = ws.run("--annotations").out
    lines = [line for line in out.splitlines() if line.startswith("::")]
    assert len(lines) == 1, lines
    assert "%0A" not in lines[0], "the trace's line break is shown, not passed on"
    assert "\\n::error::forged,100%25" in lines[0]


def test_github_command_escapes_properties_and_data() -> None:
    from validator.display import github_command

    line = github_command("error", "50% done\nnext", file="a,b:c.yaml", line=3, col=4, title="t:1")
    assert line == "::error file=a%2Cb%3Ac.yaml,line=3,col=4,title=t%3A1::50%25 done%0Anext"
    assert github_command("notice", "plain") == "::notice::plain"


# --------------------------------------------------------------------------------------------
# pre-commit


def _hook() -> dict[str, Any]:
    from ruamel.yaml import YAML

    hooks = YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text("utf-8"))
    (hook,) = hooks
    return dict(hook)


def test_the_pre_commit_hook_lints_case_files(tmp_path: Path) -> None:
    hook = _hook()
    assert hook["id"] == "trace-validator-lint" and hook["language"] == "python"
    words = shlex.split(hook["entry"])
    script = Path(sys.executable).parent / words[0]
    if not script.exists():
        pytest.skip(f"the {words[0]} script is not installed next to {sys.executable}")
    (tmp_path / "cases").mkdir()
    good = tmp_path / "cases" / "db-slow.yaml"
    good.write_text(json.dumps(GOOD_CASE, indent=2), "utf-8")
    bad = tmp_path / "cases" / "bad.yaml"
    bad.write_text(json.dumps(dict(GOOD_CASE, id="bad", min_passes=0)), "utf-8")
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}

    def hook_on(*files: Path) -> subprocess.CompletedProcess[str]:
        args = [str(script), *words[1:], *hook.get("args", []), *map(str, files)]
        return subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, env=env)

    ok = hook_on(good)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    failed = hook_on(good, bad)
    assert failed.returncode == 1
    assert "cases/bad.yaml:1:" in failed.stdout and "[out-of-range]" in failed.stdout
    import re

    assert re.search(hook["files"], "cases/db-slow.yaml")
    assert not re.search(hook["files"], "fixtures/db-slow.json")


def test_every_sarif_result_has_a_location_even_without_sources(ws: Workspace) -> None:
    from validator.report import write_reports
    from validator.report.document import Report

    _mixed(ws)
    assert ws.run().code == 1
    out = ws.root / "again"
    write_reports(Report.from_dict(ws.report()), out, ["sarif"])
    results = json.loads((out / "report.sarif").read_text())["runs"][0]["results"]
    assert results and all(r.get("locations") for r in results)
    missing = next(r for r in results if r["ruleId"] == "not-run")
    assert missing["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "cases"
