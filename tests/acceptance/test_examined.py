"""Through the command line: a check that passed because its query matched no node says so.

A negative check (contains-none, not-in, count max, quantifier none) on a misspelt path
matches nothing and would always pass: the report marks it (`examined: 0`), the Markdown and
HTML pages show "passed: nothing to examine at PATH", the summary counts it, and
`--fail-on vacuous` fails the run. `allow_empty: true` in the spec says zero matches are
expected, and keeps it quiet.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Workspace, good_trace, run_cli
from html_pages import built_html

from validator.loading.schema import load_schema

TYPO = (
    "id: no-secret\ndescription: The answer leaks no secret.\n"
    "query: $.finalAnswr\npredicate: contains-none\nparams: {keywords: [password]}\n"
)
RIGHT = TYPO.replace("finalAnswr", "finalAnswer")


def _suite(ws: Workspace, spec: str) -> Path:
    folder = ws.root / "my-specs"
    folder.mkdir(exist_ok=True)
    (folder / "no-secret.yaml").write_text(spec, "utf-8")
    ws.case(checks=["no-secret"])
    ws.trace("db-slow", good_trace(finalAnswer="the password is hunter2"))
    return folder


def test_a_negative_check_on_a_misspelt_path_is_marked_as_having_examined_nothing(
    ws: Workspace,
) -> None:
    folder = _suite(ws, TYPO)
    result = ws.run("--specs", str(folder), "--format", "json,md,html")
    assert result.code == 0, result.out + result.err  # it passes: nothing fails it by default
    report = ws.report()
    (check,) = ws.case_result()["checks"]
    assert check["status"] == "pass"
    assert check["examined"] == 0
    assert check["message"].startswith("nothing to examine at $.finalAnswr")
    assert "1 check passed with nothing to examine" in result.out
    assert report["summary"]["checks_unexamined"] == 1
    assert report["summary"]["unexamined_runs"] == 1
    assert ws.case_result()["unexamined_runs"] == 1
    markdown = (ws.out / "report.md").read_text("utf-8")
    assert "| Checks passed with nothing to examine | 1 |" in markdown
    assert "**no-secret** passed: nothing to examine at $.finalAnswr" in markdown
    assert "passed: nothing to examine at $.finalAnswr" in built_html(ws.out / "report.html")
    # The report stays valid against its shipped schema.
    import jsonschema

    jsonschema.validate(report, load_schema("report"))


def test_fail_on_vacuous_fails_a_run_with_a_check_that_examined_nothing(ws: Workspace) -> None:
    folder = _suite(ws, TYPO)
    result = ws.run("--specs", str(folder), "--fail-on", "vacuous")
    assert result.code == 1
    assert "nothing to examine" in result.out + result.err
    assert "db-slow" in result.out + result.err


def test_allow_empty_keeps_an_expected_empty_match_quiet(ws: Workspace) -> None:
    folder = _suite(ws, TYPO + "allow_empty: true\n")
    assert ws.run("--specs", str(folder), "--fail-on", "vacuous").code == 0
    (check,) = ws.case_result()["checks"]
    assert "examined" not in check
    assert ws.report()["summary"]["checks_unexamined"] == 0


def test_a_check_that_examined_something_keeps_its_report_bytes(ws: Workspace) -> None:
    folder = _suite(ws, RIGHT)
    assert ws.run("--specs", str(folder)).code == 1  # it found the password
    case = ws.case_result()
    assert "examined" not in case["checks"][0]
    assert "unexamined_runs" not in case
    assert "nothing to examine" not in (ws.out / "report.md").read_text("utf-8")


@pytest.mark.parametrize(
    ("query", "predicate", "params"),
    [
        ("$.toolInvocatons[*].toolName", "not-in", {"values": ["drop_table"]}),
        ("$.toolInvocatons[*]", "count", {"max": 0}),
    ],
)
def test_every_negative_predicate_on_zero_matches_is_marked(
    ws: Workspace, query: str, predicate: str, params: dict
) -> None:
    spec = (
        f"id: no-secret\ndescription: d\nquery: {query}\npredicate: {predicate}\n"
        f"params: {json.dumps(params)}\n"
    )
    folder = _suite(ws, spec)
    assert ws.run("--specs", str(folder), "--fail-on", "vacuous").code == 1
    assert ws.case_result()["checks"][0]["examined"] == 0


def test_absent_on_zero_matches_is_its_verdict_not_an_unexamined_check(ws: Workspace) -> None:
    spec = "id: no-secret\ndescription: d\nquery: $.error\npredicate: absent\n"
    folder = _suite(ws, spec)
    assert ws.run("--specs", str(folder), "--fail-on", "vacuous").code == 0


def test_a_merged_sharded_run_keeps_the_mark_and_the_gate(ws: Workspace) -> None:
    folder = _suite(ws, TYPO)
    shard = ws.root / "shard"
    args = ("--cases", "cases", "--fixtures", "fixtures", "--specs", str(folder), "--jobs", "1")
    ran = run_cli(
        "run", *args, "--out", str(shard), "--shard", "1/1", "--fail-on", "vacuous", cwd=ws.root
    )
    assert ran.code == 1
    merged = run_cli("merge", str(shard), "--out", str(ws.root / "merged"), cwd=ws.root)
    assert merged.code == 1, merged.out + merged.err
    report = json.loads((ws.root / "merged" / "report.json").read_text("utf-8"))
    assert report["cases"][0]["checks"][0]["examined"] == 0
    assert report["summary"]["checks_unexamined"] == 1
