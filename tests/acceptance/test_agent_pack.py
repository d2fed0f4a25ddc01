"""The `agent` pack (`packs: [agent]`): standard checks that read only `$.view`, so one case
file works on every trace shape the view supports, with no spec written.

Everything runs through the command line on the real traces in TRACE_DATA (read in place;
two derived traces, a failed tool call and a repeated call, are written to a temporary
folder), and skips with a reason when TRACE_DATA is unset.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import GOOD_CASE, Workspace, good_trace, run_cli

DATA = Path(os.environ["TRACE_DATA"]) if os.environ.get("TRACE_DATA") else None
LANGFUSE = "langfuse-traces"
OTEL = "otel-agent-traces"
# The OpenAI Agents SDK asked for the weather in Tokyo: 1 tool call (get_weather), 2 model
# calls of 70 + 114 tokens costing 0.000632 in all, 2190 ms, an answer naming Tokyo.
OPENAI = "openai-agents-2025-09-30.trace.json"


def _need(data_set: str) -> Path:
    if DATA is None:
        pytest.skip("set TRACE_DATA to the shared trace data folder to run the agent pack tests")
    folder = DATA / data_set
    if not folder.is_dir():
        pytest.skip(f"{data_set} is not in TRACE_DATA ({DATA})")
    return folder


def _suite(root: Path, fixtures: Path, pattern: str, cases: dict[str, dict[str, Any]]) -> None:
    (root / "cases").mkdir(parents=True)
    config = {
        "cases": "cases",
        "fixtures": str(fixtures),
        "packs": ["agent"],
        "traces": {"pattern": pattern, "allow_unmatched": True},
    }
    (root / "validator.yaml").write_text(yaml.safe_dump(config), "utf-8")
    for case_id, fields in cases.items():
        text = json.dumps({"id": case_id, **fields}, ensure_ascii=False)
        (root / "cases" / f"{case_id}.yaml").write_text(text, "utf-8")


def _run(root: Path, *extra: str) -> tuple[int, dict[str, Any], str]:
    result = run_cli("run", "--out", str(root / "out"), "--jobs", "1", *extra, cwd=root)
    assert "Traceback" not in result.err, result.err
    report = json.loads((root / "out" / "report.json").read_text("utf-8"))
    return result.code, report, result.out + result.err


def _check(row: dict[str, Any], check: str) -> dict[str, Any]:
    return next(c for c in row["checks"] if c["check"] == check)


# input -> (its spec, a value the OpenAI trace passes, a value it fails)
INPUTS: dict[str, tuple[str, Any, Any]] = {
    "required_tools": ("agent-required-tools", ["get_weather"], ["get_weather", "search"]),
    "forbidden_tools": ("agent-forbidden-tools", ["shell"], ["get_weather"]),
    "allowed_tools": ("agent-allowed-tools", ["get_*"], ["search"]),
    "tool_order": ("agent-tool-order", ["get_weather"], ["search", "get_weather"]),
    "forbidden_tool_order": (
        "agent-forbidden-tool-order",
        ["search", "get_weather"],
        [{"name": "get_weather", "args": {"city": "Tokyo"}, "mode": "subset"}],
    ),
    "max_tool_calls": ("agent-max-tool-calls", 1, 0),  # inclusive; 0 is a bound, not "unset"
    "max_llm_calls": ("agent-max-llm-calls", 2, 1),
    "max_total_tokens": ("agent-max-total-tokens", 184, 183),
    "max_cost": ("agent-max-cost", 0.001, 0.0005),
    "max_duration_ms": ("agent-max-duration-ms", 2190, 2189),
    "answer_keywords": ("agent-answer-keywords", ["tokyo"], ["Tokyo", "Osaka"]),
    "forbidden_keywords": ("agent-forbidden-keywords", ["Osaka"], ["ＴＯＫＹＯ"]),  # full-width
    "max_repeats": ("agent-max-repeats", 1, None),  # failing: the repeated-call trace below
    "no_tool_errors": ("agent-no-tool-errors", True, None),  # failing: the failed-call trace
    "tool_calls_match": (
        "agent-tool-calls-match",
        [
            {"name": "get_weather", "args": {"city": {"regex": "Tok.*"}}},
            {"name": "shell", "quantifier": "none"},
        ],
        [{"name": "get_weather", "args": {"city": "Osaka"}}, {"name": "get_*", "mode": "exact"}],
    ),
}


def _derived(folder: Path, tmp: Path) -> Path:
    """The OpenAI trace, and two traces derived from it: its tool call failed, and its tool
    call made twice with the same arguments."""
    out = tmp / "traces"
    out.mkdir()
    original = json.loads((folder / OPENAI).read_text("utf-8"))
    (out / OPENAI).write_text(json.dumps(original), "utf-8")
    failed = json.loads(json.dumps(original))
    for obs in failed["observations"]:
        if obs.get("type") == "TOOL":
            obs["level"] = "ERROR"
    (out / "tool-failed.trace.json").write_text(json.dumps(failed), "utf-8")
    repeated = json.loads(json.dumps(original))
    tool = next(o for o in repeated["observations"] if o.get("type") == "TOOL")
    repeated["observations"].append({**tool, "id": f"{tool['id']}-again"})
    (out / "repeated.trace.json").write_text(json.dumps(repeated), "utf-8")
    return out


def test_each_agent_input_passes_fails_and_is_skipped_when_absent(tmp_path: Path) -> None:
    traces = _derived(_need(LANGFUSE), tmp_path)
    cases: dict[str, dict[str, Any]] = {"nothing-set": {"fixture": OPENAI}}
    for name, (_, good, bad) in INPUTS.items():
        slug = name.replace("_", "-")
        cases[f"{slug}-pass"] = {"fixture": OPENAI, name: good}
        if bad is not None:
            cases[f"{slug}-fail"] = {"fixture": OPENAI, name: bad}
    cases["max-repeats-fail"] = {"fixture": "repeated.trace.json", "max_repeats": 1}
    cases["no-tool-errors-fail"] = {"fixture": "tool-failed.trace.json", "no_tool_errors": True}
    cases["no-tool-errors-off"] = {"fixture": "tool-failed.trace.json", "no_tool_errors": False}
    cases["min-answer-keywords"] = {
        "fixture": OPENAI,
        "answer_keywords": ["Tokyo", "Osaka"],
        "min_answer_keywords": 1,
    }
    root = tmp_path / "suite"
    _suite(root, traces, "*.json", cases)
    lint = run_cli("lint", cwd=root)
    assert lint.code == 0, lint.out + lint.err
    # the case that sets no input: lint warns, its one run is vacuous
    assert "nothing-set.yaml:1:8: warning: every check of case 'nothing-set'" in lint.out
    assert "agent-allowed-tools needs allowed_tools" in lint.out
    code, report, _ = _run(root)
    rows = {row["case_id"]: row for row in report["cases"]}
    for name, (spec, _, _) in INPUTS.items():
        slug = name.replace("_", "-")
        assert _check(rows[f"{slug}-pass"], spec)["status"] == "pass", rows[f"{slug}-pass"]
        assert rows[f"{slug}-pass"]["status"] == "pass"
        failed = rows[f"{slug}-fail"]
        assert failed["status"] == "fail" and _check(failed, spec)["status"] == "fail", failed
        assert [f["check"] for f in failed["failed_checks"]] == [spec]
        # absent: skipped, saying which input is missing
        skipped = _check(rows["nothing-set"], spec)
        assert skipped == {
            "check": spec,
            "status": "skipped",
            "message": f"skipped: the case does not set {name}",
            "severity": "error",
        }
        # every other agent check of a one-input case is skipped
        row = rows[f"{slug}-pass"]
        assert row["checks_applied"] == 1 and row["checks_skipped"] == len(INPUTS) - 1
    off = _check(rows["no-tool-errors-off"], "agent-no-tool-errors")
    assert off["message"] == "skipped: the case sets no_tool_errors to false"
    assert rows["min-answer-keywords"]["status"] == "pass"
    assert "Osaka" in _check(rows["answer-keywords-fail"], "agent-answer-keywords")["message"]
    nothing = rows["nothing-set"]
    assert nothing["status"] == "pass" and nothing["vacuous_runs"] == 1 and nothing["vacuous"]
    assert report["summary"]["vacuous_runs"] == 2  # nothing-set and no-tool-errors-off
    assert report["summary"]["vacuous_cases"] == 2
    assert code == 1


# One case file for both shapes: a model-call budget llama_index exceeds (5 calls), and a
# tool-call budget the runs with a third tool call exceed.
SHARED_CASE = {"fixture": "*.json", "max_llm_calls": 4, "max_tool_calls": 2}
EXPECTED = {
    OTEL: {
        "agno.json": [],
        "google.json": ["agent-max-tool-calls"],
        "langchain.json": [],
        "llama_index.json": ["agent-max-llm-calls", "agent-max-tool-calls"],
        "openai.json": [],
        "smolagents.json": ["agent-max-tool-calls"],
        "tinyagent.json": ["agent-max-tool-calls"],
    },
    LANGFUSE: {
        "claude-agent-2025-12-22.trace.json": [],
        "google-adk-2025-08-28.trace.json": [],
        "microsoft-agent-2025-12-17.trace.json": [],
        "openai-agents-2025-09-30.trace.json": [],
        "pydantic-ai-tools-2025-12-04.trace.json": ["agent-max-tool-calls"],
        "vercel-aisdk-2025-11-17.trace.json": [],
    },
}


@pytest.mark.parametrize("data_set", [OTEL, LANGFUSE])
def test_one_case_file_judges_every_trace_shape(data_set: str, tmp_path: Path) -> None:
    folder = _need(data_set)
    _suite(tmp_path, folder, "*.json", {"budget": SHARED_CASE})  # the view is detected
    assert run_cli("lint", cwd=tmp_path).code == 0
    code, report, _ = _run(tmp_path)
    (row,) = report["cases"]
    got = {
        Path(i["fixture"]).name: [f["check"] for f in i["failed_checks"]]
        for i in row["runs"]["items"]
    }
    assert got == EXPECTED[data_set]
    statuses = {Path(i["fixture"]).name: i["status"] for i in row["runs"]["items"]}
    assert statuses == {k: "fail" if v else "pass" for k, v in EXPECTED[data_set].items()}
    assert row["status"] == "fail" and code == 1
    assert report["summary"]["vacuous_runs"] == 0


def test_naming_an_agent_check_without_its_input_is_a_located_error(tmp_path: Path) -> None:
    folder = _need(LANGFUSE)
    _suite(
        tmp_path,
        folder,
        "*.trace.json",
        {"named": {"fixture": OPENAI, "checks": ["agent-required-tools", "agent-max-cost"]}},
    )
    (tmp_path / "cases" / "named.yaml").write_text(
        "id: named\nfixture: openai-agents-2025-09-30.trace.json\nmax_cost: 0.01\n"
        "checks: [agent-max-cost, agent-required-tools]\n",
        "utf-8",
    )
    lint = run_cli("lint", cwd=tmp_path)
    assert lint.code == 1
    assert (
        "cases/named.yaml:4:26: error: checks names 'agent-required-tools', which applies only"
        " when the case sets required_tools" in lint.out
    ), lint.out
    assert "[missing-input]" in lint.out
    run = run_cli("run", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert run.code == 2 and not (tmp_path / "out" / "report.json").exists()


def test_the_llm_budget_warning_reports_without_failing(tmp_path: Path) -> None:
    """A budget as a warning: llama_index is reported over it and the case still passes."""
    folder = _need(OTEL)
    case = {"fixture": "*.json", "max_llm_calls": 4}
    case["severity_overrides"] = {"agent-max-llm-calls": "warning"}
    _suite(tmp_path, folder, "*.json", {"budget": case})
    code, report, _ = _run(tmp_path, "--format", "json,md,junit,sarif")
    (row,) = report["cases"]
    assert row["status"] == "pass" and code == 0
    llama = next(i for i in row["runs"]["items"] if i["fixture"].endswith("llama_index.json"))
    assert llama["status"] == "pass" and llama["failed_checks"] == []
    assert [w["check"] for w in llama["failed_warnings"]] == ["agent-max-llm-calls"]
    assert report["summary"]["failed_warnings"] == 1
    md = (tmp_path / "out" / "report.md").read_text("utf-8")
    assert "## Warnings" in md and "llama_index.json: **agent-max-llm-calls** (warning)" in md
    code, report, _ = _run(tmp_path, "--fail-severity", "warning")
    assert code == 1 and report["cases"][0]["status"] == "fail"


# --------------------------------------------------------------------------------------------
# The diagnosis pack's optional tool and time keys (the reference trace fields)


@pytest.mark.parametrize(
    ("key", "good", "bad", "check"),
    [
        ("forbidden_tools", ["shell"], ["mysql_explain"], "forbidden-tools"),
        (
            "tool_order",
            ["mysql_slow_log", "mysql_explain"],
            ["mysql_explain", "mysql_slow_log"],
            "tool-order",
        ),
        ("max_tool_calls", 2, 1, "max-tool-calls"),
        ("max_duration_ms", 1200, 1199.5, "max-duration-ms"),
    ],
)
def test_the_diagnosis_pack_checks_the_optional_tool_keys(
    ws: Workspace, key: str, good: Any, bad: Any, check: str
) -> None:
    ws.case(dict(GOOD_CASE, **{key: good}))
    ws.case(dict(GOOD_CASE, id="bad", **{key: bad}))
    ws.trace("db-slow", good_trace())  # two calls, slow log then explain, 1200 ms
    ws.trace("bad", good_trace("bad"))
    assert ws.run().code == 1
    assert ws.case_result()["status"] == "pass"
    assert _check(ws.case_result(), check)["status"] == "pass"
    bad_row = ws.case_result("bad")
    assert [f["check"] for f in bad_row["failed_checks"]] == [check]


def test_min_answer_keywords_above_the_entries_is_a_located_error(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "validator.yaml").write_text("packs: [agent]\ncases: cases\n", "utf-8")
    (tmp_path / "cases" / "c.yaml").write_text(
        "id: c\nanswer_keywords: [Tokyo, [sunny, 晴]]\nmin_answer_keywords: 3\n", "utf-8"
    )
    lint = run_cli("lint", cwd=tmp_path)
    assert lint.code == 1
    assert (
        "cases/c.yaml:3:22: error: min_answer_keywords 3 is more than the 2 answer_keywords"
        " entries: write at most 2, or add keywords [coverage-too-high]" in lint.out
    ), lint.out


def test_agent_tool_keys_are_checked_against_the_suite_tools(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "validator.yaml").write_text(
        'packs: [agent]\ncases: cases\ntools: [get_weather, search, "fs_*"]\n', "utf-8"
    )
    (tmp_path / "cases" / "c.yaml").write_text(
        "id: c\nrequired_tools: [get_weather]\ntool_order: [serch]\n"
        'allowed_tools: ["fs_*", search]\nforbidden_tools: [Search]\n',
        "utf-8",
    )
    lint = run_cli("lint", cwd=tmp_path)
    assert lint.code == 1
    problems = [line for line in lint.out.splitlines() if "[undeclared-tool]" in line]
    assert len(problems) == 2, lint.out
    assert problems[0].startswith("cases/c.yaml:3:14: error: tool_order: 'serch'")
    assert "did you mean 'search'?" in problems[0]
    assert problems[1].startswith("cases/c.yaml:5:19: error: forbidden_tools: 'Search'")


def test_tool_calls_match_names_each_entry_that_does_not_hold(tmp_path: Path) -> None:
    folder = _need(OTEL)
    cases = {
        "agno": {
            "tool_calls_match": [
                {
                    "name": "write_file",
                    "args": {"text": {"contains": "2024"}},
                    "quantifier": "none",
                },
                {"name": "get_current_time", "quantifier": {"min": 1, "max": 1}},
                {"name": "write_fil*"},
            ]
        }
    }
    root = tmp_path / "suite"
    _suite(root, folder, "agno.json", cases)
    config = yaml.safe_load((root / "validator.yaml").read_text("utf-8"))
    config["traces"]["case_id"] = "{file_stem}"
    (root / "validator.yaml").write_text(yaml.safe_dump(config), "utf-8")
    code, report, _ = _run(root)
    check = _check(report["cases"][0], "agent-tool-calls-match")
    assert check["status"] == "pass", check  # the year the agents wrote is not 2024
    cases["agno"]["tool_calls_match"][0]["args"]["text"] = {"regex": "(?s).*20[0-9][0-9].*"}
    cases["agno"]["tool_calls_match"][1]["quantifier"] = {"min": 2}
    _suite(tmp_path / "again", folder, "agno.json", cases)
    (tmp_path / "again" / "validator.yaml").write_text(yaml.safe_dump(config), "utf-8")
    code, report, _ = _run(tmp_path / "again")
    check = _check(report["cases"][0], "agent-tool-calls-match")
    assert code == 1 and check["status"] == "fail", check
    assert check["message"].startswith("2 of 3 expected calls do not hold: entry 1 (write_file):")
    assert "entry 2 (get_current_time):" in check["message"]
    assert "entry 3" not in check["message"]


def test_a_bad_regex_or_key_in_tool_calls_match_is_a_lint_error_at_its_place(
    tmp_path: Path,
) -> None:
    root = tmp_path / "suite"
    (root / "cases").mkdir(parents=True)
    (root / "traces").mkdir()
    (root / "validator.yaml").write_text("packs: [agent]\nfixtures: traces\n", "utf-8")
    (root / "cases" / "c.yaml").write_text(
        "id: c\n"
        "tool_calls_match:\n"
        "  - name: shell\n"
        "    args: {command: {regex: 'rm (-rf'}}\n"
        "    quantifer: none\n",
        "utf-8",
    )
    lint = run_cli("lint", cwd=root)
    assert lint.code == 1, lint.out + lint.err
    assert "cases/c.yaml:4:29: error: tool_calls_match: entry 1: at 'command'" in lint.out, lint.out
    assert "[bad-regex]" in lint.out and "^" in lint.out
    assert (
        "cases/c.yaml:5:5: error: tool_calls_match[0]: unknown key 'quantifer' (did you mean"
        in lint.out
    )
    assert lint.out.count("cases/c.yaml:5:5:") == 1  # said once
    run = run_cli("run", cwd=root)
    assert run.code == 2 and "Traceback" not in run.err
