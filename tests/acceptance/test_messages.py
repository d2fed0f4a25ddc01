"""Failures in plain words, `message:` templates, and no stale report read as current."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from conftest import GOOD_CASE, Workspace, good_trace, set_verdict

from validator.commands.run import command_line

EPOCH = "1700000000"  # 2023-11-14T22:13:20Z

TEMPLATED = """\
id: templated
description: The verdict and the answer, in the words of the person who wrote the case.
clauses:
  - name: allowed verdict
    query: $.selfEvaluation.verifier_evaluation.verdict
    predicate: in
    params:
      values: {case: allowed_verdicts}
    message: "for {case.question} the verifier said {found}, not {expected} ({{sic}})"
  - name: no draft copied
    query: $.finalAnswer
    predicate: no-shared-run
    params:
      other: {trace: $.executorAnswer}
      min_length: 20
  - name: says unverified
    query: $.finalAnswer
    predicate: contains-min
    params:
      keywords: [unverified]
    message: "the answer ({path}, check {check}, clause {clause}) lacks: {missing}"
"""


def _templated(ws: Workspace) -> None:
    specs = ws.root / "specs"
    specs.mkdir()
    (specs / "templated.yaml").write_text(TEMPLATED, "utf-8")
    ws.case(dict(GOOD_CASE, checks=["templated"]))


def _message(ws: Workspace, check: str) -> str:
    failed = {f["check"]: f["message"] for f in ws.case_result()["failed_checks"]}
    return failed[check]


def test_a_template_is_the_sentence_and_the_jsonpath_follows_it(ws: Workspace) -> None:
    _templated(ws)
    draft = "A slow query on orders lacks an index on customer_ref."
    ws.trace("db-slow", set_verdict(good_trace(finalAnswer=draft), "REVISE"))
    assert ws.run("--specs", str(ws.root / "specs")).code == 1
    assert _message(ws, "templated") == (
        "for Why is the order API slow? the verifier said REVISE, not PASS ({sic})"
        " (read from $.selfEvaluation.verifier_evaluation.verdict);"
        " [no draft copied] the text repeats 54 characters of the other text:"
        ' "a slow query on orders lacks an index on customer_ref."'
        " (read from $.finalAnswer; other from $.executorAnswer);"
        " the answer ($.finalAnswer, check templated, clause says unverified) lacks: unverified"
        " (read from $.finalAnswer)"
    )
    check = next(c for c in ws.case_result()["checks"] if c["check"] == "templated")
    assert [c["status"] for c in check["clauses"]] == ["fail", "fail", "fail"]


def test_a_failure_the_template_cannot_say_keeps_the_predicates_message(ws: Workspace) -> None:
    _templated(ws)
    trace = good_trace(finalAnswer=["not", "text"])  # a type error: not a judged failure
    del trace["selfEvaluation"]["verifier_evaluation"]["verdict"]  # {found} has no value
    ws.trace("db-slow", trace)
    assert ws.run("--specs", str(ws.root / "specs")).code == 1
    message = _message(ws, "templated")
    assert message.startswith(
        '[allowed verdict] nothing found, but one of ["PASS"] is required'
        " (read from $.selfEvaluation.verifier_evaluation.verdict); "
    )
    assert '[says unverified] expected text, found a list ["not", "text"]' in message
    assert "lacks" not in message and "verifier said" not in message


def test_no_failed_check_starts_with_a_jsonpath(ws: Workspace) -> None:
    ws.case(forbidden_verdicts=["REVISE"], required_tools=["mysql_slow_log", "redis_info"])
    trace = set_verdict(good_trace(finalAnswer="Just DROP TABLE orders."), "REVISE")
    ws.trace("db-slow", trace)
    assert ws.run().code == 1
    failed = ws.case_result()["failed_checks"]
    assert {f["check"] for f in failed} == {
        "verdict-allowed",
        "evidence-coverage",
        "keyword-coverage",
        "forbidden-keywords",
    }
    for item in failed:
        assert re.match(r"the [a-z]", item["message"]), item
        assert re.search(r"\(read from \$\.[^)]+\)$", item["message"]), item
    assert _message(ws, "verdict-allowed") == (
        "the verifier's verdict is REVISE, but this case allows only PASS"
        " (read from $.selfEvaluation.verifier_evaluation.verdict); the verifier's verdict is"
        " REVISE, which this case forbids (forbidden_verdicts: REVISE)"
        " (read from $.selfEvaluation.verifier_evaluation.verdict)"
    )


def test_details_keep_their_keys(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace(finalAnswer="nothing useful"))
    assert ws.run().code == 1
    checks = {c["check"]: c for c in ws.case_result()["checks"]}
    assert checks["keyword-coverage"]["details"] == {
        "matched": [],
        "missing": ["slow query / 慢查询", "missing index"],
        "required": 2,
        "total": 2,
    }
    assert set(checks["evidence-coverage"]["details"]) == {"required", "found", "missing", "ratio"}


def test_the_leak_message_names_the_field_it_compared(ws: Workspace) -> None:
    ws.case(allowed_verdicts=["REJECT"])
    draft = "The outage was caused by the nightly vacuum job locking the orders table."
    trace = good_trace(executorAnswer=draft, finalAnswer="Unverified. " + draft)
    ws.trace("db-slow", set_verdict(trace, "REJECT"))
    assert ws.run().code == 1
    message = _message(ws, "degraded-output")
    assert message.startswith(
        "the answer repeats 73 characters of the executor's unverified draft (executorAnswer):"
    )
    check = next(c for c in ws.case_result()["checks"] if c["check"] == "degraded-output")
    leak = check["clauses"][1]
    assert leak["name"] == "does not leak the executor draft" and leak["status"] == "fail"


# --------------------------------------------------------------------------------------------
# No stale report read as current


def test_a_run_that_cannot_be_done_says_the_reports_there_are_older(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    assert ws.run().code == 0
    before = {p.name: p.read_bytes() for p in ws.out.iterdir()}
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1800000000")
    result = ws.run("--case", "no-such-case")
    assert result.code == 2
    assert result.err.splitlines()[-1] == (
        "no report was written; reports still holds the reports of an earlier run"
        " (report.json, report.md, generated 2023-11-14T22:13:20Z), not of this one"
    )
    assert {p.name: p.read_bytes() for p in ws.out.iterdir()} == before
    (ws.out / "report.json").unlink()
    last = ws.run("--case", "no-such-case").err.splitlines()[-1]
    assert re.fullmatch(
        r"no report was written; reports still holds the reports of an"
        r" earlier run \(report\.md, last modified \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\), not of"
        r" this one",
        last,
    ), last
    shutil.rmtree(ws.out)
    last = ws.run("--case", "no-such-case").err.splitlines()[-1]
    assert last == "no report was written (and the folder reports holds none from an earlier run)"


def test_a_broken_case_file_ends_with_the_same_line(ws: Workspace) -> None:
    ws.case(required_tool=["x"])
    result = ws.run()
    assert result.code == 2
    assert "[unknown-key]" in result.err
    assert result.err.splitlines()[-1].startswith("no report was written (")


def test_a_flag_argparse_refuses_ends_with_the_same_line(ws: Workspace) -> None:
    ws.out.mkdir()
    (ws.out / "report.md").write_text("# an older report\n", "utf-8")
    result = ws.run("--jobs", "0")  # ws.run passes --out reports
    assert result.code == 2 and "--jobs: must be at least 1" in result.err
    assert result.err.splitlines()[-1].startswith(
        "no report was written; reports still holds the reports of an earlier run (report.md,"
    )


def test_the_reports_state_when_and_by_which_command_they_were_made(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    assert ws.run("--format", "json,md,html").code == 0
    # less --out, --format and --jobs, which never change a report
    command = f"python -m validator run --cases {ws.cases} --fixtures {ws.fixtures}"
    md = (ws.out / "report.md").read_text("utf-8").splitlines()
    assert md[2].startswith("Generated 2023-11-14T22:13:20Z by trace-validator")
    assert md[4] == f"Command: `{command}`"
    html = (ws.out / "report.html").read_text("utf-8")
    assert "Generated 2023-11-14T22:13:20Z by" in html
    assert f'<p class="meta">Command: <code>{command}</code></p>' in html
    assert ws.report()["inputs"]["command"] == command


def test_the_command_line_is_as_given_but_for_the_output_options() -> None:
    options = ["--out", "--format", "--jobs", "--quiet", "--fixtures", "--fail-on", "--follow"]
    argv = ["run", "--jo", "3", "--out=x", "--form", "md", "-q", "--cases", "a b", "--fail-on=any"]
    assert command_line(argv, "python -m validator", options) == (
        "python -m validator run --cases 'a b' --fail-on=any"
    )
    # an abbreviation that could be either of two options is not guessed at
    assert command_line(["run", "--f", "x"], "trace-validator", options) == (
        "trace-validator run --f x"
    )
    assert command_line(["run", "--token=s3cr\x1bt"], "p") == "p run '--token=s3cr\\x1bt'"


def test_the_standard_report_bytes_do_not_depend_on_the_output_options(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws.case()
    ws.trace("db-slow", set_verdict(good_trace(), "REVISE"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    ws.run("--jobs", "2", "-q")
    first = {p.name: p.read_bytes() for p in ws.out.iterdir()}
    shutil.rmtree(ws.out)
    ws.run("--format", "json,md")
    assert {p.name: p.read_bytes() for p in ws.out.iterdir()} == first
    assert json.loads(first["report.json"])["inputs"]["command"].startswith(
        "python -m validator run --cases"
    )
