"""`python -m validator explain CASE_ID`, through the command line: each applied check with
its guards, resolved parameters and their origin, the values found, the verdict; repeated
runs; unknown ids; cases without a trace; --json; colour only when asked or on a terminal;
and the same verdicts as `run` on the shipped suite and a real trace set."""

from __future__ import annotations

import itertools
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, REPO, Workspace, good_trace, run_cli, set_verdict

DATA = os.environ.get("TRACE_DATA", "")


def _line_of(path: Path, key: str) -> int:
    """The 1-based line where `key:` is written in a YAML file."""
    for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        if line.startswith(f"{key}:"):
            return number
    raise AssertionError(f"{key} not in {path}")


def _explain(ws: Workspace, *extra: str) -> Any:
    return run_cli(
        "explain", *extra, "--cases", str(ws.cases), "--fixtures", str(ws.fixtures), cwd=ws.root
    )


def test_a_shipped_case_shows_each_check_its_values_and_where_parameters_come_from() -> None:
    result = run_cli("explain", "mysql-slow-query", cwd=REPO)
    assert result.code == 0, result.err
    out = result.out
    assert out.startswith("case mysql-slow-query (cases/mysql-slow-query.yaml): PASS\n")
    assert "run 1 of 1: fixtures/mysql-slow-query.json: PASS" in out
    for check in ("evidence-coverage", "verdict-allowed", "keyword-coverage", "verdict-present"):
        assert f"  check {check}: PASS" in out
    assert '      [1] "mysql_slow_log"' in out  # a value the query found
    line = _line_of(REPO / "cases" / "mysql-slow-query.yaml", "required_tools")
    assert f"from case key required_tools (cases/mysql-slow-query.yaml:{line}:1)" in out
    assert "from the predicate's default: render Markdown to plain text" in out
    assert "from the spec (diagnosis:keyword-coverage.yaml:" in out  # pack:file, no folder
    # A declared input the case does not set: its default, at the spec that declares it.
    assert "from the default of input forbidden_verdicts, which the case does not set" in out
    assert "Traceback" not in out + result.err and "{'" not in out  # no Python reprs


def test_guards_say_why_a_check_applied_or_was_skipped() -> None:
    result = run_cli("explain", "rejected-diagnosis-degraded", cwd=REPO)
    assert result.code == 0, result.err
    checks = result.out.split("\n  check ")
    keyword = next(c for c in checks if c.startswith("keyword-coverage"))
    # A skipped check is one line: why, with its guard's outcome (--json has the guard whole).
    assert keyword.startswith("keyword-coverage: SKIPPED: ")
    assert '(guard unless held: found "REJECT")' in keyword.splitlines()[0]
    assert len(keyword.strip().splitlines()) == 1, keyword
    degraded = next(c for c in checks if c.startswith("degraded-output"))
    assert "holds, so the check applies" in degraded
    # Clause by clause, each with its own guard.
    assert "clause marks the answer as unverified: PASS" in degraded
    assert "clause does not leak the executor draft: PASS" in degraded
    assert "holds, so the clause applies" in degraded
    assert "from the trace: $.executorAnswer" in degraded
    assert "from the spec's default for case key degraded_markers" in degraded


def test_a_failing_check_shows_what_was_found_and_exits_1(ws: Workspace) -> None:
    ws.case()
    trace = good_trace()
    trace["toolInvocations"] = [{"toolName": "log_search"}]
    trace["selfEvaluation"]["verifier_evaluation"]["trace_summaries"] = []
    ws.trace("db-slow", trace)
    result = _explain(ws, "db-slow")
    assert result.code == 1, result.err
    evidence = result.out.split("  check evidence-coverage: ")[1].split("\n  check ")[0]
    assert evidence.startswith("FAIL")
    assert '$.toolInvocations[*].toolName: found 1 value\n      [0] "log_search"' in evidence
    assert "trace_summaries[*].tool: found nothing" in evidence
    assert "result: FAIL:" in evidence and "mysql_slow_log" in evidence


def test_every_run_of_a_repeated_case_gets_its_own_block(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace(), "db-slow/run1.json")
    ws.trace("db-slow", set_verdict(good_trace(), "REJECT"), "db-slow/run2.json")
    ws.trace("db-slow", "{not json", "db-slow/run10.json")
    result = _explain(ws, "db-slow")
    assert result.code == 1
    out = result.out
    first = out.index("run 1 of 3: ")
    second = out.index("run 2 of 3: ")
    third = out.index("run 3 of 3: ")
    assert first < second < third
    assert out[first:second].split("\n")[0].endswith("run1.json: PASS")
    assert out[second:third].split("\n")[0].endswith("run2.json: FAIL")
    assert "check verdict-allowed: FAIL" in out[second:third]
    assert out[third:].split("\n")[0].endswith("run10.json: ERROR")
    assert "invalid JSON" in out[third:]


def test_an_unknown_case_id_gets_did_you_mean_and_exits_2() -> None:
    result = run_cli("explain", "mysql-slow-qery", cwd=REPO)
    assert result.code == 2
    assert result.out == ""
    assert "no case has the id 'mysql-slow-qery' (did you mean 'mysql-slow-query'?)" in result.err
    far = run_cli("explain", "zzz", cwd=REPO)
    assert far.code == 2 and "case ids: binlog-disk-full" in far.err


def test_a_case_without_a_trace_says_where_it_looked(ws: Workspace) -> None:
    ws.case()
    result = _explain(ws, "db-slow")
    assert result.code == 1
    assert "case db-slow" in result.out and "NOT RUN" in result.out
    assert "no trace: no trace fixture: looked for fixtures/db-slow.json and" in result.out
    assert "fixtures/db-slow/*.json" in result.out


def test_json_output_holds_the_same_facts_as_plain_data() -> None:
    result = run_cli("explain", "--json", "mysql-slow-query", cwd=REPO)
    assert result.code == 0, result.err
    document = json.loads(result.out)
    assert document["case"] == "mysql-slow-query" and document["status"] == "pass"
    (run,) = document["runs"]
    assert run["trace"] == "fixtures/mysql-slow-query.json"
    checks = {c["check"]: c for c in run["checks"]}
    (clause,) = checks["evidence-coverage"]["clauses"]
    condition = clause["condition"]
    assert condition["found"][0]["values"][1] == "mysql_slow_log"
    (items,) = condition["parameters"]
    line = _line_of(REPO / "cases" / "mysql-slow-query.yaml", "required_tools")
    assert items["value"] == ["mysql_slow_log", "mysql_explain"]
    assert items["origin"] == {
        "kind": "case",
        "file": "cases/mysql-slow-query.yaml",
        "line": line,
        "column": 1,
        "key": "required_tools",
        "query": None,
    }
    guard = checks["keyword-coverage"]["guards"][0]
    assert guard["role"] == "unless" and guard["effect"] == "applies"


def test_explain_gives_the_verdicts_run_gives_on_every_shipped_case(tmp_path: Path) -> None:
    ran = run_cli("run", "--out", str(tmp_path), "--jobs", "1", cwd=REPO)
    report = json.loads((tmp_path / "report.json").read_text("utf-8"))
    assert ran.code in (0, 1)
    for case in report["cases"]:
        result = run_cli("explain", "--json", case["case_id"], cwd=REPO)
        document = json.loads(result.out)
        assert document["status"] == case["status"], case["case_id"]
        assert result.code == (0 if case["status"] == "pass" else 1)
        failed = [c["check"] for c in document["runs"][0]["checks"] if c["status"] == "fail"]
        assert failed == [f["check"] for f in case.get("failed_checks", [])], case["case_id"]


def test_colour_only_when_asked_or_on_a_terminal_without_no_color(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = run_cli("explain", "mysql-slow-query", cwd=REPO)
    assert "\x1b" not in plain.out  # captured output is not a terminal
    coloured = run_cli("explain", "--color", "always", "mysql-slow-query", cwd=REPO)
    assert "\x1b[32;1mPASS\x1b[0m" in coloured.out
    monkeypatch.setenv("NO_COLOR", "1")
    from validator.commands.options import use_color as _colour_wanted

    class Terminal:
        def isatty(self) -> bool:
            return True

    assert _colour_wanted("auto", Terminal()) is False
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "xterm")
    assert _colour_wanted("auto", Terminal()) is True


def test_trace_text_is_shown_inert_and_bounded(ws: Workspace) -> None:
    ws.case(dict(GOOD_CASE))
    answer = "\x1b[2J\x1b]8;;http://x\x07missing index \u202e" + "slow query " * 500
    ws.trace("db-slow", good_trace(finalAnswer=answer))
    result = _explain(ws, "db-slow")
    assert "\x1b" not in result.out and "\u202e" not in result.out
    assert max(len(line) for line in result.out.splitlines()) < 400


def test_a_real_trace_set_is_explained_with_its_suite_config(tmp_path: Path) -> None:
    if not DATA:
        pytest.skip("set TRACE_DATA to the shared trace data folder to explain the real traces")
    if not (Path(DATA) / "otel-agent-traces").is_dir():
        pytest.skip(f"otel-agent-traces is not in TRACE_DATA ({DATA})")
    # The example reads ../../../shared/data/otel-agent-traces: a copy placed so that path
    # leads to TRACE_DATA (the traces are read in place).
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(Path(DATA).resolve(), target_is_directory=True)
    example = tmp_path / "repo" / "examples" / "otel-genai"
    shutil.copytree(REPO / "examples" / "otel-genai", example)
    result = run_cli("explain", "agno", cwd=example)
    assert result.code == 0, result.out + result.err
    out = result.out
    assert "run 1 of 1: ../../../shared/data/otel-agent-traces/agno.json: PASS" in out
    assert "note: the trace view ($.view) was made by the otel-genai adapter (configured)" in out
    order = out.split("  check clock-before-write: ")[1].split("\n  check ")[0]
    assert '[0] "get_current_time"' in order and '[1] "write_file"' in order
    budget = out.split("  check llm-budget: ")[1].split("\n  check ")[0]
    assert "max = 6" in budget
    assert "from the default of input max_llm_calls, which the case does not set" in budget
    assert "(specs/llm-budget.yaml:6:" in budget
    ran = run_cli("explain", "--json", "openai", cwd=example)
    assert json.loads(ran.out)["status"] in ("pass", "fail")


def test_a_guard_or_parameter_that_cannot_be_evaluated_fails_and_says_why(tmp_path: Path) -> None:
    for folder in ("cases", "specs", "fixtures"):
        (tmp_path / folder).mkdir()
    (tmp_path / "validator.yaml").write_text("packs: []\nchecks: [guarded, bound]\n", "utf-8")
    (tmp_path / "specs" / "guarded.yaml").write_text(
        "id: guarded\ndescription: d\nwhen:\n  query: $.n.`sub(/a/, b)`\n  predicate: exists\n"
        "query: $.s\npredicate: exists\n",
        "utf-8",
    )
    (tmp_path / "specs" / "bound.yaml").write_text(
        "id: bound\ndescription: d\nquery: $.s\npredicate: in\nparams:\n"
        '  values: {trace: "$.n.`sub(/a/, b)`"}\n',
        "utf-8",
    )
    (tmp_path / "cases" / "c1.yaml").write_text("id: c1\n", "utf-8")
    (tmp_path / "fixtures" / "c1.json").write_text('{"n": 5, "s": "abc"}', "utf-8")
    result = run_cli("explain", "c1", cwd=tmp_path)
    assert result.code == 1, result.err
    guarded = result.out.split("  check guarded: ")[1].split("\n  check ")[0]
    assert guarded.startswith("FAIL")
    assert "cannot be evaluated: `sub()` applies to text" in guarded
    assert "cannot be evaluated, so the check fails (never skipped unexamined)" in guarded
    bound = result.out.split("  check bound: ")[1]
    assert bound.startswith("FAIL")
    lines = [line.strip() for line in bound.splitlines()]
    at = lines.index("values = (no value)")
    assert lines[at + 1] == "from the trace: $.n.`sub(/a/, b)`"


def test_every_run_of_a_many_run_case_shows_its_checks(ws: Workspace) -> None:
    ws.case()
    for n in range(1, 6):
        trace = set_verdict(good_trace(), "REVISE") if n == 3 else good_trace(durationMs=n)
        ws.trace("db-slow", trace, name=f"db-slow/run-{n}.json")
    result = _explain(ws, "--json", "db-slow")
    assert result.code == 1, result.err
    runs = json.loads(result.out)["runs"]
    assert [Path(r["trace"]).name for r in runs] == [f"run-{n}.json" for n in range(1, 6)]
    for run in runs:  # not only the runs the report describes in full
        checks = {c["check"]: c for c in run["checks"]}
        assert checks["evidence-coverage"]["clauses"][0]["condition"]["found"], run["trace"]
    assert [c["status"] for c in runs[2]["checks"] if c["check"] == "verdict-allowed"] == ["fail"]


def test_standard_specs_are_named_pack_colon_file() -> None:
    result = run_cli("explain", "mysql-slow-query", cwd=REPO)
    assert result.code == 0, result.err
    assert "    spec diagnosis:keyword-coverage.yaml\n" in result.out
    assert "site-packages" not in result.out


def test_a_false_switch_is_never_shown_with_the_help_of_true() -> None:
    result = run_cli("explain", "mysql-slow-query", cwd=REPO)
    lines = result.out.splitlines()
    assert any(line.strip() == "whole_words = false" for line in lines), result.out
    for line, origin in itertools.pairwise(lines):
        if line.strip().endswith("= false") and "the predicate's default:" in origin:
            assert "off (when true: " in origin, origin


def test_a_suite_outside_the_package_sees_no_install_path_and_skipped_checks_fold(
    tmp_path: Path,
) -> None:
    # init's suite: the standard specs live outside it, where the package is installed.
    assert run_cli("init", "suite", cwd=tmp_path).code == 0
    result = run_cli("explain", "example", cwd=tmp_path / "suite")
    assert result.code == 0, result.err
    assert str(REPO) not in result.out and "site-packages" not in result.out
    assert "(diagnosis:forbidden-keywords.yaml:" in result.out  # an origin, as pack:file
    skipped = [line for line in result.out.splitlines() if ": SKIPPED" in line]
    assert "  check forbidden-tools: SKIPPED: the case does not set forbidden_tools" in skipped
    lines = result.out.splitlines()
    for i, line in enumerate(lines[:-1]):
        if ": SKIPPED" in line:  # one line each: the next is another check or a blank
            assert lines[i + 1] == "" or lines[i + 1].startswith("  check "), lines[i + 1]
