"""Through the command line: a query that cannot be evaluated never reads as "no match".

A release gate must not pass a check because it could not look: an `absent` check whose
filter fails on a trace fails, a guard that cannot be evaluated fails its check instead of
skipping it, and an unreadable trace field is a run error or a note, never a crash.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Workspace, good_trace, run_cli

NO_DROP = (
    "id: no-drop\ndescription: The agent never dropped a database.\n"
    "query: \"$.toolInvocations[?(@.toolName.`sub(/_/, -)` == 'drop-database')]\"\n"
    "predicate: absent\n"
)


def _specs(ws: Workspace, **files: str) -> Path:
    folder = ws.root / "my-specs"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / f"{name}.yaml").write_text(text, "utf-8")
    return folder


def _tools(*names: object) -> dict:
    trace = good_trace()
    trace["toolInvocations"] += [{"toolName": name} for name in names]
    return trace


def test_absent_fails_when_its_filter_cannot_be_evaluated(ws: Workspace) -> None:
    ws.case(checks=["no-drop"])
    folder = _specs(ws, **{"no-drop": NO_DROP})
    ws.trace("db-slow", _tools(42, "drop_database"))  # a number where a name should be
    result = ws.run("--specs", str(folder))
    case = ws.case_result()
    assert result.code == 1
    assert case["status"] == "fail"
    (failed,) = case["failed_checks"]
    assert failed["check"] == "no-drop"
    assert "cannot be evaluated, so this fails" in failed["message"]
    assert "`sub()` applies to text, found a whole number 42" in failed["message"]


@pytest.mark.parametrize(("names", "status"), [(("drop_database",), "fail"), ((), "pass")])
def test_absent_still_decides_on_traces_it_can_read(
    ws: Workspace, names: tuple[str, ...], status: str
) -> None:
    ws.case(checks=["no-drop"])
    folder = _specs(ws, **{"no-drop": NO_DROP})
    ws.trace("db-slow", _tools(*names))
    ws.run("--specs", str(folder))
    assert ws.case_result()["status"] == status


def test_a_guard_that_cannot_be_evaluated_fails_the_check_instead_of_skipping(
    ws: Workspace,
) -> None:
    spec = (
        "id: guarded\ndescription: d\nquery: $.finalAnswer\npredicate: exists\n"
        "when:\n  query: \"$.toolInvocations[?(@.toolName.`sub(/_/, -)` == 'mysql-explain')]\"\n"
        "  predicate: exists\n"
    )
    ws.case(checks=["guarded"])
    folder = _specs(ws, guarded=spec)
    ws.trace("db-slow", _tools(7))
    assert ws.run("--specs", str(folder)).code == 1
    (failed,) = ws.case_result()["failed_checks"]
    assert "the `when` condition on $.toolInvocations" in failed["message"]
    assert "cannot be evaluated, so this fails instead of being skipped" in failed["message"]


def test_a_clause_guard_that_cannot_be_evaluated_fails_the_clause(ws: Workspace) -> None:
    spec = (
        "id: two-parts\ndescription: d\nclauses:\n"
        "  - name: answer\n    query: $.finalAnswer\n    predicate: exists\n"
        "  - name: tools\n    query: $.toolInvocations\n    predicate: exists\n"
        '    unless:\n      query: "$.toolInvocations[*].toolName.`sub(/_/, -)`"\n'
        "      predicate: exists\n"
    )
    ws.case(checks=["two-parts"])
    folder = _specs(ws, **{"two-parts": spec})
    ws.trace("db-slow", _tools(None))
    assert ws.run("--specs", str(folder)).code == 1
    (failed,) = ws.case_result()["failed_checks"]
    assert "[tools] the `unless` condition" in failed["message"]
    assert failed["message"].endswith("`sub()` applies to text, found null")


TRACE_FIELDS = (
    "id: trace-fields\ndescription: d\nfields:\n"
    "  case_id: {case_id}\n"
    '  verdict: "$.selfEvaluation.verifier_evaluation.verdict.`sub(/S/, s)`"\n'
    "  tool_calls: $.toolInvocations\n"
    '  duration_ms: "$.durationMs.`sub(/0/, 1)`"\n'
)


def test_unreadable_verdict_and_duration_are_notes(ws: Workspace) -> None:
    ws.case()
    folder = _specs(ws, **{"trace-fields": TRACE_FIELDS.format(case_id="$.caseId")})
    ws.trace("db-slow", good_trace())
    result = ws.run("--specs", str(folder))
    assert "Traceback" not in result.err
    case = ws.case_result()
    assert case["status"] == "pass", case  # the checks read the trace themselves
    assert case["duration_ms"] is None
    assert any(
        "$.durationMs.`sub(/0/, 1)` cannot be read (`sub()` applies to text, found a whole"
        " number 1200): duration not counted" in note
        for note in case["notes"]
    ), case["notes"]


def test_unreadable_case_id_is_a_run_error(ws: Workspace) -> None:
    ws.case()
    case_id = '"$.caseId.`sub(/x/, y)`"'
    folder = _specs(ws, **{"trace-fields": TRACE_FIELDS.format(case_id=case_id)})
    ws.trace("db-slow", good_trace(caseId=12))
    result = ws.run("--specs", str(folder))
    assert "Traceback" not in result.err
    case = ws.case_result()
    assert case["status"] == "error"
    assert "cannot be read, so no case can be matched" in case["reason"]
    assert "internal error" not in case["reason"]


def test_a_bad_regex_in_a_spec_is_a_located_lint_error(ws: Workspace) -> None:
    spec = (
        "id: no-drop\ndescription: d\n"
        "query: \"$.toolInvocations[?(@.toolName =~ '(drop')]\"\npredicate: absent\n"
    )
    ws.case(checks=["no-drop"])
    folder = _specs(ws, **{"no-drop": spec})
    ws.trace("db-slow", _tools("drop_database"))
    result = ws.run("--specs", str(folder))
    assert result.code == 2, "the suite does not load: nothing can pass"
    assert "no-drop.yaml:3:8: error:" in result.err
    assert "invalid regular expression '(drop': missing ), unterminated subpattern" in result.err
    lint = run_cli("lint", "--specs", str(folder), "cases", cwd=ws.root)
    assert "JSONPath does not compile at character 36" in lint.out
    assert "                                       ^" in lint.out
