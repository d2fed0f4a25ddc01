"""`lint` over whole suites: a config, cases, specs and saved traces, each mistake at its file,
line and column (`tests/lint/suites/NAME/` with `NAME.expected`; see tests/lint/README.md).

What one case or spec file cannot show lives here: declared and learned tool names, trace
files that are not JSON or not UTF-8, and trace files that match no case or are misnamed;
and that `run` says the same about them.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import REPO, TESTS, run_cli

SUITES_DIR = TESTS / "lint" / "suites"
SUITES = sorted(p for p in SUITES_DIR.iterdir() if p.is_dir())

Expected = tuple[str, int, int, str, str, str]


def expected_problems(suite: Path) -> list[Expected]:
    """`FILE:LINE:COLUMN SEVERITY CODE [message fragment]` lines of NAME.expected."""
    out = []
    for raw in suite.with_suffix(".expected").read_text("utf-8").splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        where, severity, code, *rest = raw.split(maxsplit=3)
        file, line, col = where.rsplit(":", 2)
        out.append((file, int(line), int(col), severity, code, rest[0] if rest else ""))
    return out


def lint_suite(suite: Path, *more: str) -> tuple[int, dict]:
    args = ["--fixtures", "fixtures"] if (suite / "fixtures").is_dir() else []
    result = run_cli("lint", "--format", "json", *args, *more, cwd=suite)
    assert "Traceback" not in result.err and "internal error" not in result.err, result.err
    return result.code, json.loads(result.out)


def test_every_suite_has_its_expectations() -> None:
    assert SUITES, "tests/lint/suites/ holds the bad suites"
    missing = [p.name for p in SUITES if not p.with_suffix(".expected").is_file()]
    assert not missing, f"write a NAME.expected next to each suite folder: {missing}"


@pytest.mark.parametrize("suite", SUITES, ids=lambda p: p.name)
def test_bad_suite(suite: Path) -> None:
    expected = expected_problems(suite)
    code, doc = lint_suite(suite)
    problems = doc["problems"]
    found = sorted((p["file"], p["line"], p["column"], p["severity"], p["code"]) for p in problems)
    assert found == sorted(e[:5] for e in expected), "\n".join(
        f"{p['file']}:{p['line']}:{p['column']} {p['severity']} {p['code']}  ({p['message']})"
        for p in problems
    )
    for file, line, col, severity, code_, fragment in expected:
        messages = [
            p["message"]
            for p in problems
            if (p["file"], p["line"], p["column"], p["severity"], p["code"])
            == (file, line, col, severity, code_)
        ]
        assert any(fragment in m for m in messages), f"{file}:{line}:{col} {code_}: {messages}"
    has_error = any(e[3] == "error" for e in expected)
    assert code == (1 if has_error else 0)
    assert doc["counts"]["errors"] == sum(e[3] == "error" for e in expected)
    assert doc["counts"]["warnings"] == sum(e[3] == "warning" for e in expected)


def test_a_warning_only_suite_fails_with_strict() -> None:
    suite = SUITES_DIR / "traces-strays"
    assert lint_suite(suite)[0] == 0
    assert lint_suite(suite, "--strict")[0] == 1


def test_run_refuses_undeclared_tools_with_lints_messages(tmp_path: Path) -> None:
    suite = SUITES_DIR / "tools-declared"
    result = run_cli("run", "--out", str(tmp_path / "out"), cwd=suite)
    assert result.code == 2
    assert not (tmp_path / "out").exists()
    _, doc = lint_suite(suite)
    for problem in doc["problems"]:
        assert problem["message"] in result.err


def test_run_names_stray_and_misnamed_traces(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(SUITES_DIR / "traces-strays", suite)
    result = run_cli("run", "--out", "out", cwd=suite)
    assert result.code == 1  # traces that match no case fail the run
    err = result.err.splitlines()
    assert (
        "warning: fixtures/run1.json: its file name names no case, but its case id field names"
        " case 'checkout'"
    ) in "\n".join(err)
    assert any(
        line.startswith("warning: fixtures/paymnet.json: no case has the id 'paymnet'")
        and "did you mean 'payment'?" in line
        for line in err
    ), err
    report = json.loads((suite / "out" / "report.json").read_text("utf-8"))
    unmatched = {u["fixture"]: u["reason"] for u in report["unmatched_traces"]}
    assert "or add `fixture: run1.json` to the case 'checkout'" in unmatched["fixtures/run1.json"]
    assert "names case 'search'" in unmatched["fixtures/batch/run-2.json"]
    assert "no case has the id 'paymnet'" in unmatched["fixtures/paymnet.json"]
    cases = {c["case_id"]: c for c in report["cases"]}
    assert cases["checkout"]["status"] == "not_run"
    assert (
        "fixtures/run1.json names this case in its case id field but not in its file name"
        in cases["checkout"]["reason"]
    )
    assert cases["payment"]["status"] != "not_run"


def test_run_reports_a_trailing_comma_at_the_comma(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(SUITES_DIR / "traces-json", suite)
    result = run_cli("run", "--out", "out", cwd=suite)
    assert result.code == 1
    report = json.loads((suite / "out" / "report.json").read_text("utf-8"))
    cases = {c["case_id"]: c for c in report["cases"]}
    assert cases["checkout"]["status"] == "error"
    assert "invalid JSON at line 24 column 20: a trailing comma" in cases["checkout"]["reason"]


# --------------------------------------------------------------------------------------------
# Real data: a suite over a real trace set learns its tool names


DATA = os.environ.get("TRACE_DATA")


def _real_suite(tmp_path: Path, tools: str) -> Path:
    """examples/otel-genai over the real any-agent traces, with a check that reads the tool
    names a case requires (an input marked x-tool-names) and one case that writes them."""
    assert DATA is not None
    data = Path(DATA) / "otel-agent-traces"
    if not data.is_dir():
        pytest.skip(f"{data} is not there")
    suite = tmp_path / "suite"
    shutil.copytree(REPO / "examples" / "otel-genai", suite)
    config = suite / "validator.yaml"
    text = config.read_text("utf-8").replace("../../../shared/data/otel-agent-traces", str(data))
    config.write_text(text.replace("checks: [", "checks: [tools-ran, "), "utf-8")
    (suite / "specs" / "tools-ran.yaml").write_text(
        "id: tools-ran\n"
        "description: every tool the case names ran\n"
        "inputs:\n"
        "  required_tools:\n"
        "    type: array\n"
        "    items: {type: string, minLength: 1}\n"
        "    x-tool-names: true\n"
        "    default: []\n"
        "query: $.view.tool_calls[*].name\n"
        "predicate: contains-all\n"
        "params:\n"
        "  items: {case: required_tools, default: []}\n",
        "utf-8",
    )
    case = suite / "cases" / "smolagents.yaml"
    case.write_text(case.read_text("utf-8") + f"required_tools: {tools}\n", "utf-8")
    return suite


@pytest.mark.skipif(not DATA, reason="set TRACE_DATA to the folder of the real trace sets")
def test_lint_fixtures_learns_the_tool_names_of_a_real_trace_set(tmp_path: Path) -> None:
    suite = _real_suite(tmp_path, "[get_current_time, write_fle]")
    result = run_cli("lint", "--format", "json", cwd=suite)  # the config names the fixtures
    doc = json.loads(result.out)
    assert result.code == 0, doc  # warnings only
    [problem] = doc["problems"]
    assert (problem["file"], problem["line"], problem["code"]) == (
        "cases/smolagents.yaml",
        4,
        "tool-never-called",
    )
    assert problem["column"] == len("required_tools: [get_current_time, ") + 1
    message = problem["message"]
    assert "no trace calls a tool 'write_fle' (did you mean 'write_file'?)" in message
    assert "lint read 7 traces" in message
    assert "get_current_time" in message and "write_file" in message  # what it learned
    assert run_cli("lint", "--strict", cwd=suite).code == 1


@pytest.mark.skipif(not DATA, reason="set TRACE_DATA to the folder of the real trace sets")
def test_tool_names_the_real_traces_call_are_clean(tmp_path: Path) -> None:
    suite = _real_suite(tmp_path, "[get_current_time, write_file]")
    result = run_cli("lint", "--strict", cwd=suite)
    assert result.code == 0, result.out
    assert result.out.startswith("0 errors, 0 warnings"), result.out


TOOLS_RAN_CLAUDE = """id: tools-ran
description: every tool the case names ran (Claude Code tool_use blocks)
inputs:
  required_tools:
    type: array
    items: {type: string, minLength: 1}
    x-tool-names: true
    default: []
query: "$[*].message.content[?(@.type == 'tool_use')].name"
predicate: contains-all
params:
  items: {case: required_tools, default: []}
"""


@pytest.mark.skipif(not DATA, reason="set TRACE_DATA to the folder of the real trace sets")
def test_tool_names_a_shape_without_adapter_calls_are_learned_from_the_checks_queries(
    tmp_path: Path,
) -> None:
    """No view adapter reads a Claude Code session: the tool names are those the check that
    reads required_tools finds, so a tool every session calls is not said to be never called."""
    assert DATA is not None
    for folder in ("cases", "specs"):
        (tmp_path / folder).mkdir()
    (tmp_path / "validator.yaml").write_text(
        f"cases: cases\nspecs: [specs]\nfixtures: {Path(DATA) / 'claude-code'}\npacks: []\n"
        "checks: [tools-ran]\ntraces:\n  pattern: '*.jsonl'\n  group: file\n"
        "  allow_unmatched: true\n",
        "utf-8",
    )
    (tmp_path / "specs" / "tools-ran.yaml").write_text(TOOLS_RAN_CLAUDE, "utf-8")
    for name, tools in (("short", "[Bash]"), ("tool_heavy", "[Bash, Read]")):
        (tmp_path / "cases" / f"{name}.yaml").write_text(
            f"id: {name}\ndescription: a session\nquestion: q\nrequired_tools: {tools}\n", "utf-8"
        )
    result = run_cli("lint", "--strict", "--format", "json", cwd=tmp_path)
    problems = json.loads(result.out)["problems"]
    assert [p for p in problems if p["code"] == "tool-never-called"] == [], problems
    assert run_cli("run", "--out", "out", cwd=tmp_path).code == 0, "and run agrees"
    # A misspelt tool is still found, with what the sessions call.
    case = tmp_path / "cases" / "short.yaml"
    case.write_text(case.read_text("utf-8").replace("[Bash]", "[bash]"), "utf-8")
    result = run_cli("lint", "--format", "json", cwd=tmp_path)
    [problem] = [p for p in json.loads(result.out)["problems"] if p["code"] == "tool-never-called"]
    assert problem["file"] == "cases/short.yaml" and problem["line"] == 4
    assert (
        "no trace calls a tool 'bash' (did you mean 'Bash'? tool names are case-sensitive)"
        in (problem["message"])
    )


ASKED = """id: asked
description: the clock is read for a zone, whatever else the call says
query: $.view.tool_calls[*]
predicate: call-matches
params:
  name: get_current_time
  args: {timezone: {regex: '.+'}}
  mode: exact
  ignore: [time_zone, "*zone"]
"""

WROTE = """id: wrote
description: the calls each case lists hold
inputs:
  calls:
    type: array
    items: {type: object}
    default: []
query: $.view.tool_calls[*]
predicate: call-matches-each
params:
  expect: {case: calls}
"""


@pytest.mark.skipif(not DATA, reason="set TRACE_DATA to the folder of the real trace sets")
def test_an_ignore_entry_that_matches_no_argument_the_traces_hold_is_located(
    tmp_path: Path,
) -> None:
    suite = _real_suite(tmp_path, "[get_current_time, write_file]")
    config = suite / "validator.yaml"
    config.write_text(
        config.read_text("utf-8").replace("checks: [", "checks: [asked, wrote, "), "utf-8"
    )
    (suite / "specs" / "asked.yaml").write_text(ASKED, "utf-8")
    (suite / "specs" / "wrote.yaml").write_text(WROTE, "utf-8")
    case = suite / "cases" / "agno.yaml"
    case.write_text(
        case.read_text("utf-8")
        + "calls:\n  - {name: write_file, args: {text: '2025'}, mode: exact, ignore: [txt, text]}\n",
        "utf-8",
    )
    lines = case.read_text("utf-8").splitlines()
    result = run_cli("lint", "--format", "json", cwd=suite)
    problems = [
        p for p in json.loads(result.out)["problems"] if p["code"] == "ignore-matches-nothing"
    ]
    where = {(p["file"], p["line"], p["column"]): p["message"] for p in problems}
    assert len(where) == 2, problems
    spec_message = where[("specs/asked.yaml", 9, len("  ignore: [") + 1)]
    assert spec_message.startswith(
        "ignore entry 'time_zone' matches no argument of the 7 calls to get_current_time the"
        " traces hold (did you mean 'timezone'?) (their arguments: timezone): fix it to an"
        " argument they have, or remove it"
    ), spec_message
    column = lines[-1].index("txt") + 1
    case_message = where[("cases/agno.yaml", len(lines), column)]
    assert "ignore entry 'txt' matches no argument of the 7 calls to write_file" in case_message
    assert "(did you mean 'text'?)" in case_message
    assert run_cli("run", "--out", "out", cwd=suite).code in (0, 1), "run reads the same suite"
