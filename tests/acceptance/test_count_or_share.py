"""Through the command line: a count or a share, said plainly.

`min_keyword_coverage: 1  # 100%` with three keywords is a count (one of them): lint warns
with both readings. A share may be written as a percentage (`"80%"`), as the command line
takes one (`--min-pass-rate 80%`): for min_keyword_coverage and a case's min_pass_rate.
"""

from __future__ import annotations

from conftest import GOOD_CASE, Workspace, good_trace, run_cli

KEYWORDS = ["slow query", "missing index", "customer_ref"]


def _case(ws: Workspace, coverage: str) -> None:
    text = (
        "id: db-slow\nquestion: Why is the order API slow?\n"
        f"root_cause_keywords: [{', '.join(KEYWORDS)}]\n"
        f"min_keyword_coverage: {coverage}\n"
        "required_tools: [mysql_slow_log]\nallowed_verdicts: [PASS]\n"
    )
    ws.case(text, name="db-slow")


def test_a_count_of_one_with_a_percent_comment_warns_with_both_readings(ws: Workspace) -> None:
    _case(ws, "1  # 100%")
    lint = run_cli("lint", "cases", cwd=ws.root)
    assert (
        "cases/db-slow.yaml:4:23: warning: min_keyword_coverage: 1 means one of 3"
        " root_cause_keywords entries; for all of them write 3 or 1.0 [count-or-share]"
    ) in lint.out, lint.out


def test_a_count_with_a_percent_comment_warns(ws: Workspace) -> None:
    _case(ws, "2  # 66%")
    lint = run_cli("lint", "cases", cwd=ws.root)
    assert "min_keyword_coverage: 2 is a count (2 of 3 root_cause_keywords entries)" in lint.out
    assert "[count-or-share]" in lint.out


def test_a_plain_count_or_share_is_quiet(ws: Workspace) -> None:
    _case(ws, "2")
    assert "count-or-share" not in run_cli("lint", "cases", cwd=ws.root).out


def test_a_percentage_is_a_share_of_the_keywords(ws: Workspace) -> None:
    _case(ws, '"60%"')  # 60% of 3 entries is 1.8: 2 required
    assert run_cli("lint", "cases", cwd=ws.root).code == 0
    ws.trace("db-slow", good_trace(finalAnswer="A slow query, nothing else."))
    assert ws.run().code == 1
    coverage = ws.case_result()["keyword_coverage"]
    assert coverage["required"] == 2
    ws.trace("db-slow", good_trace(finalAnswer="A slow query: a missing index."))
    assert ws.run().code == 0


def test_a_percentage_outside_0_to_100_is_refused(ws: Workspace) -> None:
    _case(ws, '"150%"')
    lint = run_cli("lint", "cases", cwd=ws.root)
    assert lint.code == 1
    assert (
        "cases/db-slow.yaml:4:23: error: min_keyword_coverage: '150%' is no share: write a"
        ' percentage above 0% and at most 100% (e.g. "80%"), or a decimal such as 0.8'
    ) in lint.out


def test_a_case_min_pass_rate_may_be_a_percentage(ws: Workspace) -> None:
    ws.case(dict(GOOD_CASE, min_pass_rate="80%"))
    for n in range(5):
        trace = good_trace()
        if n == 0:
            trace["selfEvaluation"]["verifier_evaluation"]["verdict"] = "REVISE"
        ws.trace("db-slow", trace, name=f"db-slow/run{n}.json")
    assert run_cli("lint", "cases", cwd=ws.root).code == 0
    assert ws.run().code == 0  # 4 of 5 runs passed: 80%
    assert ws.case_result()["runs"]["required"] == 4
