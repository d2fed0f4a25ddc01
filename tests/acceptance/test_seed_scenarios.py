"""One test per scenario of the seed requirements (shared/seed/evaluation-harness.spec.md).

Each test is named after its scenario and asserts on what a user sees: exit codes, report
content and messages.
"""

from __future__ import annotations

import json

import pytest
from conftest import GOOD_CASE, REPO, Workspace, good_trace, markdown_table, run_cli, set_verdict

# Requirement: Evaluation harness SHALL define fixed diagnosis cases


@pytest.mark.parametrize(
    "missing", ["id", "question", "root_cause_keywords", "required_tools", "allowed_verdicts"]
)
def test_scenario_case_definition_includes_expected_evidence(ws: Workspace, missing: str) -> None:
    fields = {k: v for k, v in GOOD_CASE.items() if k != missing}
    ws.case(fields, name="db-slow")
    ws.trace("db-slow", good_trace())
    result = ws.run()
    assert result.code == 2
    assert f"missing required key '{missing}'" in result.err
    assert "cases/db-slow.yaml:1:1: error:" in result.err
    assert not ws.out.exists(), "nothing is evaluated when a case file is invalid"


def test_scenario_case_definition_includes_expected_evidence_complete_case_runs(
    ws: Workspace,
) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    result = ws.run()
    assert result.code == 0, result.err
    case = ws.case_result()
    assert case["status"] == "pass"
    assert [c["check"] for c in case["checks"]] == sorted(
        [
            "evidence-coverage",
            "verdict-present",
            "verdict-allowed",
            "keyword-coverage",
            "forbidden-keywords",
            "degraded-output",
            # the optional tool and time checks: skipped, since the case sets none of them
            "forbidden-tools",
            "tool-order",
            "max-tool-calls",
            "max-duration-ms",
        ]
    )
    optional = [c for c in case["checks"] if c["check"] in ("tool-order", "max-tool-calls")]
    assert [c["message"] for c in optional] == [
        "skipped: the case does not set max_tool_calls",
        "skipped: the case does not set tool_order",
    ]


def test_scenario_case_definition_can_express_forbidden_behavior_keywords(ws: Workspace) -> None:
    ws.case()
    ws.trace(
        "db-slow", good_trace(finalAnswer="Slow query, missing index. Just **DROP TABLE** orders.")
    )
    result = ws.run()
    assert result.code == 1
    case = ws.case_result()
    assert case["status"] == "fail"
    failed = {f["check"]: f["message"] for f in case["failed_checks"]}
    assert set(failed) == {"forbidden-keywords"}
    assert "the answer contains forbidden advice: drop table" in failed["forbidden-keywords"]
    assert "$.finalAnswer" in failed["forbidden-keywords"]


def test_scenario_case_definition_can_express_forbidden_behavior_verdicts(ws: Workspace) -> None:
    ws.case(allowed_verdicts=["PASS", "REVISE"], forbidden_verdicts=["REVISE"])
    ws.trace("db-slow", set_verdict(good_trace(), "REVISE"))
    assert ws.run().code == 1
    failed = {f["check"]: f["message"] for f in ws.case_result()["failed_checks"]}
    assert set(failed) == {"verdict-allowed"}
    assert "forbidden" in failed["verdict-allowed"]


# Requirement: Evaluation harness SHALL validate diagnosis traces


def test_scenario_evidence_coverage_validation(ws: Workspace) -> None:
    ws.case(required_tools=["mysql_slow_log", "mysql_explain", "redis_info"])
    trace = good_trace()
    trace["toolInvocations"] = [{"toolName": "mysql_slow_log"}]  # explain only in summaries
    ws.trace("db-slow", trace)
    assert ws.run().code == 1
    case = ws.case_result()
    assert case["evidence_coverage"] == {
        "required": ["mysql_slow_log", "mysql_explain", "redis_info"],
        "found": ["mysql_slow_log", "mysql_explain"],
        "missing": ["redis_info"],
        "ratio": pytest.approx(0.6667),
    }
    failed = {f["check"]: f["message"] for f in case["failed_checks"]}
    assert failed["evidence-coverage"].startswith(
        "the evidence does not include the required tools: redis_info"
    )
    assert "$.toolInvocations[*].toolName" in failed["evidence-coverage"]


def test_scenario_verifier_evaluation_validation_missing_verdict(ws: Workspace) -> None:
    ws.case()
    trace = good_trace()
    del trace["selfEvaluation"]["verifier_evaluation"]["verdict"]
    ws.trace("db-slow", trace)
    assert ws.run().code == 1
    case = ws.case_result()
    failed = {f["check"]: f["message"] for f in case["failed_checks"]}
    assert "verdict-present" in failed
    assert failed["verdict-present"] == (
        "the verifier gave no verdict (read from $.selfEvaluation.verifier_evaluation.verdict)"
    )
    assert ws.report()["summary"]["verdict_distribution"] == {"MISSING": 1}


def test_scenario_verifier_evaluation_validation_verdict_not_allowed(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", set_verdict(good_trace(), "REVISE"))
    assert ws.run().code == 1
    failed = {f["check"]: f["message"] for f in ws.case_result()["failed_checks"]}
    assert set(failed) == {"verdict-allowed"}
    assert failed["verdict-allowed"] == (
        "the verifier's verdict is REVISE, but this case allows only PASS"
        " (read from $.selfEvaluation.verifier_evaluation.verdict)"
    )


def test_scenario_answer_keyword_validation(ws: Workspace) -> None:
    ws.case(
        root_cause_keywords=[["slow query", "慢查询"], "missing index", "customer_ref", "lock"],
        min_keyword_coverage=0.75,
    )
    ws.trace(
        "db-slow",
        good_trace(finalAnswer="订单接口出现**慢查询**：customer\\_ref 列 missing index。"),
    )
    assert ws.run().code == 0
    assert ws.case_result()["keyword_coverage"] == {
        "matched": ["慢查询", "missing index", "customer_ref"],
        "missing": ["lock"],
        "required": 3,
        "total": 4,
    }
    ws.trace("db-slow", good_trace(finalAnswer="订单接口出现**慢查询**。"))
    assert ws.run().code == 1
    failed = {f["check"]: f["message"] for f in ws.case_result()["failed_checks"]}
    assert failed["keyword-coverage"] == (
        "the answer does not mention: missing index, customer_ref, lock (1 of 4"
        " root_cause_keywords entries found, 3 required) (read from $.finalAnswer)"
    )


REJECTED_DRAFT = (
    "The outage was caused by the nightly vacuum job locking the orders table for ten minutes."
)


def _failed_clauses(ws: Workspace) -> list[str]:
    """The names of the degraded-output clauses that failed (report.json's clauses)."""
    check = next(c for c in ws.case_result()["checks"] if c["check"] == "degraded-output")
    return [c["name"] for c in check["clauses"] if c["status"] == "fail"]


def _rejected(final: str, **extra: object) -> dict:
    trace = good_trace(executorAnswer=REJECTED_DRAFT, finalAnswer=final, **extra)
    return set_verdict(trace, "REJECT")


def test_scenario_degraded_output_validation_passes_when_degraded(ws: Workspace) -> None:
    ws.case(allowed_verdicts=["REJECT"])
    ws.trace(
        "db-slow",
        _rejected("The diagnosis could not be verified; 结论未经验证。 Please check the DB."),
    )
    assert ws.run().code == 0
    checks = {c["check"]: c for c in ws.case_result()["checks"]}
    assert checks["degraded-output"]["status"] == "pass"
    assert checks["keyword-coverage"]["status"] == "skipped"
    assert "REJECT" in checks["keyword-coverage"]["message"]


def test_scenario_degraded_output_validation_fails_on_leak(ws: Workspace) -> None:
    ws.case(allowed_verdicts=["REJECT"])
    leaked = (
        "Unverified: the outage was caused by the *nightly vacuum job* locking the orders table."
    )
    ws.trace("db-slow", _rejected(leaked))
    assert ws.run().code == 1
    failed = {f["check"]: f["message"] for f in ws.case_result()["failed_checks"]}
    assert set(failed) == {"degraded-output"}
    assert failed["degraded-output"].startswith(
        "the answer repeats 72 characters of the executor's unverified draft (executorAnswer):"
    )
    assert "(read from $.finalAnswer; other from $.executorAnswer)" in failed["degraded-output"]
    assert _failed_clauses(ws) == ["does not leak the executor draft"]


def test_scenario_degraded_output_validation_fails_without_marker(ws: Workspace) -> None:
    ws.case(allowed_verdicts=["REJECT"])
    ws.trace("db-slow", _rejected("Please check the database."))
    assert ws.run().code == 1
    failed = {f["check"]: f["message"] for f in ws.case_result()["failed_checks"]}
    assert failed["degraded-output"].startswith(
        "the verdict is REJECT, but the answer does not say the diagnosis is unverified"
    )
    assert _failed_clauses(ws) == ["marks the answer as unverified"]


def test_scenario_degraded_output_validation_case_markers_replace_defaults(ws: Workspace) -> None:
    ws.case(allowed_verdicts=["REJECT"], degraded_markers=["needs human review"])
    ws.trace("db-slow", _rejected("Unverified. Please check the database."))
    assert ws.run().code == 1  # 'unverified' is a default marker, replaced by the case's list
    ws.trace("db-slow", _rejected("This needs human review."))
    assert ws.run().code == 0


def test_scenario_degraded_output_validation_skips_leak_check_without_draft(ws: Workspace) -> None:
    ws.case(allowed_verdicts=["REJECT"])
    trace = _rejected("Unverified; please check the database.")
    del trace["executorAnswer"]
    ws.trace("db-slow", trace)
    assert ws.run().code == 0
    check = next(c for c in ws.case_result()["checks"] if c["check"] == "degraded-output")
    skipped = [c for c in check["clauses"] if c["status"] == "skipped"]
    assert len(skipped) == 1 and "no executorAnswer" in skipped[0]["message"]


# Requirement: Evaluation harness SHALL report quality and cost signals


def test_scenario_json_report_output(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace(finalAnswer="no keywords here"))
    assert ws.run().code == 1
    case = ws.case_result()
    assert case["status"] == "fail"
    assert case["verdict"] == "PASS"
    assert case["failed_checks"][0]["check"] == "keyword-coverage"
    assert case["evidence_coverage"]["ratio"] == 1.0
    assert case["tool_call_count"] == 2
    assert case["duration_ms"] == 1200
    assert case["fixture"].endswith("fixtures/db-slow.json")


def test_scenario_markdown_report_output(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="other-case"))
    ws.trace("db-slow", good_trace())
    ws.trace("other-case", set_verdict(good_trace("other-case"), "MAYBE|\nREJECT"))
    assert ws.run().code == 1
    md = (ws.out / "report.md").read_text("utf-8")
    rows = markdown_table(md, "Case")
    assert rows[0][:3] == ["Case", "Status", "Verdict"]
    assert [r[0] for r in rows[1:]] == ["db-slow", "other-case"]
    assert rows[1][1] == "✅ pass"
    other = rows[2]
    assert len(other) == len(rows[0]), "a | or newline in a verdict must not break the table"
    assert other[2] == "MAYBE| REJECT"
    assert "verdict-allowed" in other[-1]
    assert "## Cases that did not pass" in md and "### other-case" in md


def test_scenario_aggregate_metrics(ws: Workspace) -> None:
    for i, (verdict, calls, duration) in enumerate(
        [("PASS", 2, 1000), ("PASS", 4, 3000), ("REVISE", 6, None)]
    ):
        case_id = f"case-{i}"
        ws.case(dict(GOOD_CASE, id=case_id))
        trace = set_verdict(good_trace(case_id), verdict)
        trace["toolInvocations"] = trace["toolInvocations"] + [{"toolName": "x"}] * (calls - 2)
        if duration is None:
            del trace["durationMs"]
        else:
            trace["durationMs"] = duration
        ws.trace(case_id, trace)
    ws.case(dict(GOOD_CASE, id="case-missing"))
    assert ws.run().code == 1
    summary = ws.report()["summary"]
    assert summary["total"] == 4
    assert summary["passed"] == 2 and summary["failed"] == 1 and summary["not_run"] == 1
    assert summary["pass_rate"] == 0.5
    assert summary["verdict_distribution"] == {"PASS": 2, "REVISE": 1}
    assert summary["avg_tool_calls"] == 4.0
    assert summary["avg_duration_ms"] == 2000.0  # only traces that have a duration
    md = (ws.out / "report.md").read_text("utf-8")
    metrics = dict((r[0], r[1]) for r in markdown_table(md, "Metric")[1:])
    assert metrics["Pass rate"] == "50.0%"
    assert metrics["Average tool calls"] == "4"
    assert dict((r[0], r[1]) for r in markdown_table(md, "Verdict")[1:]) == {
        "PASS": "2",
        "REVISE": "1",
    }


def test_scenario_aggregate_metrics_duration_unavailable(ws: Workspace) -> None:
    ws.case()
    trace = good_trace()
    del trace["durationMs"]
    ws.trace("db-slow", trace)
    assert ws.run().code == 0
    assert ws.report()["summary"]["avg_duration_ms"] is None


# Requirement: Evaluation harness SHALL support offline fixture mode


def test_scenario_fixture_trace_evaluation(tmp_path) -> None:
    """The shipped cases run against their saved traces with no service, from any folder."""
    out = tmp_path / "out"
    result = run_cli(
        "run",
        "--cases",
        str(REPO / "cases"),
        "--fixtures",
        str(REPO / "fixtures"),
        "--out",
        str(out),
        cwd=tmp_path,
    )
    assert result.code == 0, result.out + result.err
    report = json.loads((out / "report.json").read_text("utf-8"))
    assert report["summary"]["total"] >= 5
    assert report["summary"]["passed"] == report["summary"]["total"]
    assert {c["status"] for c in report["cases"]} == {"pass"}


def test_scenario_missing_fixture_is_reported_clearly(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="has-trace"))
    ws.trace("has-trace", good_trace("has-trace"))
    result = ws.run()
    assert result.code == 1
    case = ws.case_result()
    assert case["status"] == "not_run"
    assert "fixtures/db-slow.json" in case["reason"]
    assert ws.case_result("has-trace")["status"] == "pass", "other cases are still evaluated"
    assert "NOT_RUN" in result.out and "db-slow" in result.out


def test_hidden_files_in_the_cases_folder_are_not_cases(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    (ws.cases / ".#db-slow.yaml").write_text("not: a case", "utf-8")
    (ws.cases / ".git").mkdir()
    (ws.cases / ".git" / "x.yaml").write_text("neither", "utf-8")
    assert ws.run().code == 0
    assert [c["case_id"] for c in ws.report()["cases"]] == ["db-slow"]
