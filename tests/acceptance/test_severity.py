"""Severities (a spec's `severity`, a case's `severity_overrides`, run --fail-severity) and the
vacuity guard (checks applied/skipped counts, vacuous runs, --fail-on vacuous), through the
command line: exit codes and what every report format says."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from conftest import GOOD_CASE, Workspace, good_trace, run_cli, set_verdict
from html_pages import built_html

from validator.loading.schema import build_validator, load_schema

# The answer names no root-cause keyword: keyword-coverage fails, every other check passes.
VAGUE = "Something is slow somewhere."


def _warned_suite(ws: Workspace, severity: str = "warning") -> None:
    ws.case(dict(GOOD_CASE, severity_overrides={"keyword-coverage": severity}))
    ws.trace("db-slow", good_trace(finalAnswer=VAGUE))


def _check(row: dict[str, Any], check: str) -> dict[str, Any]:
    return next(c for c in row["checks"] if c["check"] == check)


def _junit_case(ws: Workspace) -> ET.Element:
    tree = ET.parse(ws.out / "report.junit.xml")
    return next(tree.iter("testcase"))


def _sarif_levels(ws: Workspace) -> list[tuple[str, str]]:
    sarif = json.loads((ws.out / "report.sarif").read_text("utf-8"))
    return [(r["ruleId"], r["level"]) for r in sarif["runs"][0]["results"]]


def test_a_failed_warning_is_reported_and_does_not_fail_the_case(ws: Workspace) -> None:
    _warned_suite(ws)
    result = ws.run("--format", "json,md,junit,sarif,html")
    assert result.code == 0, result.out + result.err
    row = ws.case_result()
    assert row["status"] == "pass" and row["reason"] is None
    check = _check(row, "keyword-coverage")
    assert check["status"] == "fail" and check["severity"] == "warning"
    assert _check(row, "verdict-allowed")["severity"] == "error"
    assert row["failed_checks"] == []
    assert [(w["check"], w["severity"]) for w in row["failed_warnings"]] == [
        ("keyword-coverage", "warning")
    ]
    assert ws.report()["summary"]["failed_warnings"] == 1
    assert ws.report()["summary"]["pass_rate"] == 1.0
    # JUnit: a line of the case's output (Jenkins' schema has no properties in a testcase),
    # never a <failure>
    case = _junit_case(ws)
    assert case.find("failure") is None
    output = case.find("system-out").text
    assert "\nwarning: keyword-coverage: the answer does not mention: slow query" in output
    # SARIF: level warning; Markdown: a Warnings section; HTML: the severity shown
    assert _sarif_levels(ws) == [("keyword-coverage", "warning")]
    md = (ws.out / "report.md").read_text("utf-8")
    assert "## Warnings" in md and "db-slow: **keyword-coverage** (warning)" in md
    assert "| Failed warnings (not failing) | 1 |" in md
    assert '<span class="sev">warning</span>' in built_html(ws.out / "report.html")
    report = ws.report()
    assert not list(build_validator(load_schema("report")).iter_errors(report))
    explain = run_cli(
        "explain", "db-slow", "--cases", str(ws.cases), "--fixtures", str(ws.fixtures), cwd=ws.root
    )
    assert explain.code == 0
    assert "check keyword-coverage: FAIL (warning: does not fail the case)" in explain.out


def test_fail_severity_warning_makes_a_failed_warning_fail_the_case(ws: Workspace) -> None:
    _warned_suite(ws)
    result = ws.run("--fail-severity", "warning", "--format", "json,junit")
    assert result.code == 1
    row = ws.case_result()
    assert row["status"] == "fail"
    assert row["reason"] == "1 check failed: keyword-coverage"
    assert [f["check"] for f in row["failed_checks"]] == ["keyword-coverage"]
    assert row["failed_warnings"] == []
    assert _junit_case(ws).find("failure") is not None


def test_a_failed_info_check_never_fails_even_with_fail_severity_warning(ws: Workspace) -> None:
    _warned_suite(ws, "info")
    result = ws.run("--fail-severity", "warning", "--format", "json,junit,sarif")
    assert result.code == 0
    row = ws.case_result()
    assert row["status"] == "pass"
    assert row["failed_warnings"][0]["severity"] == "info"
    assert "\ninfo: keyword-coverage: " in _junit_case(ws).find("system-out").text
    assert _sarif_levels(ws) == [("keyword-coverage", "note")]


def test_fail_severity_refuses_other_values(ws: Workspace) -> None:
    _warned_suite(ws)
    result = ws.run("--fail-severity", "info")
    assert result.code == 2 and "invalid choice: 'info'" in result.err


def test_a_spec_severity_applies_and_a_case_override_wins(ws: Workspace) -> None:
    specs = ws.root / "myspecs"
    specs.mkdir()
    (specs / "short-answer.yaml").write_text(
        "id: short-answer\ndescription: the answer has at most 3 words of 'slow'\n"
        "severity: warning\nquery: $.finalAnswer\npredicate: contains-none\n"
        "params: {keywords: [somewhere]}\n",
        "utf-8",
    )
    checks = ["verdict-allowed", "short-answer"]
    ws.case(dict(GOOD_CASE, checks=checks))
    ws.case(
        dict(GOOD_CASE, id="strict", checks=checks, severity_overrides={"short-answer": "error"})
    )
    ws.trace("db-slow", good_trace(finalAnswer=VAGUE))
    ws.trace("strict", good_trace("strict", finalAnswer=VAGUE))
    result = ws.run("--specs", str(specs))
    assert result.code == 1
    assert ws.case_result()["status"] == "pass"
    assert _check(ws.case_result(), "short-answer")["severity"] == "warning"
    strict = ws.case_result("strict")
    assert strict["status"] == "fail" and _check(strict, "short-answer")["severity"] == "error"


def test_a_failed_warning_is_no_regression_and_counts_as_passing(ws: Workspace) -> None:
    ws.case(dict(GOOD_CASE, severity_overrides={"keyword-coverage": "warning"}))
    ws.trace("db-slow", good_trace())
    assert ws.run().code == 0
    base = ws.root / "base.json"
    shutil.copy(ws.out / "report.json", base)
    ws.trace("db-slow", good_trace(finalAnswer=VAGUE))
    result = ws.run("--baseline", str(base), "--fail-on", "regression", "--min-pass-rate", "1")
    assert result.code == 0, result.out + result.err
    assert ws.report()["comparison"]["regressions"] == []
    # the same failure as an error is a regression
    ws.case(dict(GOOD_CASE))
    assert ws.run("--baseline", str(base), "--fail-on", "regression").code == 1


def test_pass_hat_k_counts_a_run_with_a_failed_warning_as_passed(ws: Workspace) -> None:
    ws.case(dict(GOOD_CASE, severity_overrides={"keyword-coverage": "warning"}))
    ws.trace("db-slow", good_trace(), "db-slow/1.json")
    ws.trace("db-slow", good_trace(finalAnswer=VAGUE), "db-slow/2.json")
    assert ws.run().code == 0
    report = ws.report()
    assert report["summary"]["pass_hat_k"] == 1.0 and not report["cases"][0]["flaky"]
    items = report["cases"][0]["runs"]["items"]
    assert [len(i["failed_warnings"]) for i in items] == [0, 1]


def test_report_md_lists_each_repeated_run_s_warnings_and_failures(ws: Workspace) -> None:
    """report.md's Warnings section names the run of a case with several runs that failed a
    warning; its failures section names the runs of the cases that did not pass, and no
    case that passed."""
    ws.case(dict(GOOD_CASE, severity_overrides={"keyword-coverage": "warning"}))
    ws.trace("db-slow", good_trace(), "db-slow/1.json")
    ws.trace("db-slow", good_trace(finalAnswer=VAGUE), "db-slow/2.json")
    ws.case(dict(GOOD_CASE, id="db-down"), name="db-down")
    ws.trace("db-down", good_trace("db-down"), "db-down/1.json")
    ws.trace("db-down", set_verdict(good_trace("db-down"), "REJECT"), "db-down/2.json")
    ws.case(dict(GOOD_CASE, id="db-fine"), name="db-fine")
    for n in (1, 2):
        ws.trace("db-fine", good_trace("db-fine"), f"db-fine/{n}.json")
    assert ws.run().code == 1
    md = (ws.out / "report.md").read_text("utf-8")
    warnings = md.split("## Warnings", 1)[1]
    assert "- db-slow run " in warnings and "2.json: **keyword-coverage** (warning)" in warnings
    assert "1.json" not in warnings.split("##", 1)[0]
    troubled = md.split("## Cases that did not pass", 1)[1].split("## Warnings", 1)[0]
    assert "### db-down" in troubled and "2.json: ❌" in troubled
    assert "db-fine" not in troubled and "db-slow" not in troubled


def test_report_md_has_no_warnings_section_without_a_failed_warning(ws: Workspace) -> None:
    ws.case(dict(GOOD_CASE))
    for n in (1, 2):
        ws.trace("db-slow", good_trace(), f"db-slow/{n}.json")
    assert ws.run().code == 0
    assert "## Warnings" not in (ws.out / "report.md").read_text("utf-8")


# --------------------------------------------------------------------------------------------
# The vacuity guard


def _vacuous_suite(ws: Workspace) -> None:
    """A case whose one check (degraded-output) applies only to REJECT verdicts, and a PASS
    trace: the run passes with every check skipped. A second case is examined as usual."""
    ws.case({"id": "only-degraded", "question": "q?", "checks": ["degraded-output"]})
    ws.trace("only-degraded", good_trace("only-degraded"))
    ws.case(dict(GOOD_CASE))
    ws.trace("db-slow", good_trace())


def test_a_fully_skipped_run_passes_but_is_counted_and_shown(ws: Workspace) -> None:
    _vacuous_suite(ws)
    lint = run_cli("lint", str(ws.cases), cwd=ws.root)
    assert lint.code == 0 and "[no-effective-checks]" in lint.out
    assert "degraded-output has a when/unless guard" in lint.out
    assert ws.run("--format", "json,md,junit").code == 0
    report = ws.report()
    row = ws.case_result("only-degraded")
    assert row["status"] == "pass" and row["vacuous"] and row["vacuous_runs"] == 1
    assert (row["checks_applied"], row["checks_skipped"]) == (0, 1)
    examined = ws.case_result("db-slow")
    assert examined["vacuous_runs"] == 0 and examined["checks_skipped"] >= 1
    summary = report["summary"]
    assert summary["vacuous_runs"] == 1 and summary["vacuous_cases"] == 1
    assert summary["checks_applied"] == examined["checks_applied"]
    assert summary["checks_skipped"] == 1 + examined["checks_skipped"]
    md = (ws.out / "report.md").read_text("utf-8")
    assert "## Vacuous runs" in md and "- only-degraded (1 check skipped)" in md
    assert "| Vacuous runs (every check skipped) | 1 |" in md
    tree = ET.parse(ws.out / "report.junit.xml")
    # Each line of a test case's output is `name: value` (Jenkins' schema has no properties
    # in a testcase).
    names = {
        c.get("name"): {line.split(":")[0] for line in c.findtext("system-out", "").splitlines()}
        for c in tree.iter("testcase")
    }
    assert names["only-degraded"] == {"agent duration", "vacuous"}
    assert names["db-slow"] == {"agent duration"}


@pytest.mark.parametrize(
    ("fail_on", "code"),
    [
        ("any", 0),
        ("vacuous", 1),
        ("any,vacuous", 1),
        ("never,vacuous", 1),
        ("never", 0),
        ("flaky,vacuous", 1),
    ],
)
def test_fail_on_vacuous_fails_a_fully_skipped_run(ws: Workspace, fail_on: str, code: int) -> None:
    _vacuous_suite(ws)
    result = ws.run("--fail-on", fail_on)
    assert result.code == code, result.out + result.err
    if code:
        assert "1 case with a run whose every check was skipped (--fail-on vacuous):" in (
            result.out + result.err
        )
        assert "only-degraded" in result.out + result.err


def test_fail_on_vacuous_ignores_a_quarantined_case(ws: Workspace) -> None:
    _vacuous_suite(ws)
    held = ws.root / "quarantine.yaml"
    held.write_text("- id: only-degraded\n  reason: known\n", "utf-8")
    assert ws.run("--fail-on", "vacuous", "--quarantine", str(held)).code == 0


def test_a_failing_case_is_not_hidden_by_fail_on_never_vacuous(ws: Workspace) -> None:
    ws.case(dict(GOOD_CASE))
    ws.trace("db-slow", set_verdict(good_trace(), "REVISE"))
    assert ws.run("--fail-on", "never,vacuous").code == 0  # never: failures do not count
    assert ws.run("--fail-on", "vacuous").code == 1  # vacuous alone is any,vacuous
