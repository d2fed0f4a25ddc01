"""--baseline comparison and the exit gates (--fail-on, --min-pass-rate), through the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import GOOD_CASE, Workspace, good_trace, set_verdict
from markdown_it import MarkdownIt

from validator.loading.schema import load_schema


def _failing(case_id: str) -> dict:
    return set_verdict(good_trace(case_id), "REVISE")


def _suite(ws: Workspace, statuses: dict[str, str], **trace_changes: object) -> None:
    """One case per id, its trace passing or failing as asked; other case files removed."""
    for path in ws.cases.glob("*.yaml"):
        path.unlink()
    for path in ws.fixtures.glob("*.json"):
        path.unlink()
    for case_id, status in statuses.items():
        ws.case(dict(GOOD_CASE, id=case_id, tags=["smoke"] if case_id < "c" else []))
        trace = good_trace(case_id, **trace_changes) if status == "pass" else _failing(case_id)
        ws.trace(case_id, trace)


def _baseline(ws: Workspace, statuses: dict[str, str], **trace_changes: object) -> Path:
    _suite(ws, statuses, **trace_changes)
    ws.run()
    base = ws.root / "base"
    base.mkdir(exist_ok=True)
    shutil.copy(ws.out / "report.json", base / "report.json")
    return base / "report.json"


def test_comparison_lists_regressions_fixes_new_and_removed_cases(ws: Workspace) -> None:
    base = _baseline(ws, {"a": "pass", "b": "fail", "c": "pass", "d": "pass"}, durationMs=1000)
    _suite(ws, {"a": "fail", "b": "pass", "d": "pass", "e": "fail"}, durationMs=2000)
    result = ws.run("--baseline", str(base))
    assert result.code == 1
    comp = ws.report()["comparison"]
    assert comp["baseline"].endswith("base/report.json")
    assert comp["baseline_generated_at"] == json.loads(base.read_text())["generated_at"]
    assert comp["regressions"] == [
        {
            "case_id": "a",
            "before": "pass",
            "after": "fail",
            "reason": "1 check failed: verdict-allowed",
        }
    ]
    assert comp["fixes"] == [{"case_id": "b", "before": "fail", "after": "pass"}]
    # The terminal counts them in words that agree: one of each here.
    assert "1 regression, 1 fix, 1 new, 1 removed" in result.out
    assert comp["new_cases"] == [{"case_id": "e", "status": "fail"}]
    assert comp["removed_cases"] == [{"case_id": "c", "status": "pass"}]
    assert comp["baseline_summary"]["pass_rate"] == 0.75
    assert comp["delta"]["pass_rate"] == pytest.approx(0.5 - 0.75)
    # Averages over evaluated traces: failing traces keep good_trace's 1200 ms.
    assert comp["baseline_summary"]["avg_duration_ms"] == pytest.approx((1000 * 3 + 1200) / 4)
    assert comp["delta"]["avg_duration_ms"] == pytest.approx(
        (2000 * 2 + 1200 * 2) / 4 - (1000 * 3 + 1200) / 4
    )
    assert comp["delta"]["avg_tool_calls"] == 0
    assert "REGRESSED a: pass -> fail" in " ".join(result.out.split())
    errors = _schema_errors(ws.report())
    assert not errors, errors


def _schema_errors(report: dict) -> list[str]:
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema("report"))
    return [e.message for e in validator.iter_errors(report)]


def _first_section(markdown: str) -> str:
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    headings = [
        tokens[i + 1].content for i, t in enumerate(tokens) if t.tag == "h2" and t.nesting == 1
    ]
    return headings[0]


def test_markdown_opens_with_the_comparison(ws: Workspace) -> None:
    base = _baseline(ws, {"a": "pass", "b": "fail"})
    _suite(ws, {"a": "fail", "b": "pass"})
    ws.run("--baseline", str(base))
    md = (ws.out / "report.md").read_text("utf-8")
    assert _first_section(md) == "Compared with the baseline"
    assert "**1 regression** (passed in the baseline, not now): a" in md
    assert "| Regressions | 1 | a (pass → fail) |" in md
    assert "| Fixes | 1 | b (fail → pass) |" in md
    assert "| Pass rate | 50.0% | 50.0% | no change |" in md
    _suite(ws, {"a": "pass", "b": "pass"})
    ws.run("--baseline", str(base))
    md = (ws.out / "report.md").read_text("utf-8")
    assert "**No regressions**" in md and "| Pass rate | 50.0% | 100.0% | +50.0 points |" in md


def test_without_baseline_there_is_no_comparison(ws: Workspace) -> None:
    _suite(ws, {"a": "pass"})
    assert ws.run().code == 0
    assert "comparison" not in ws.report()
    assert "Compared with the baseline" not in (ws.out / "report.md").read_text("utf-8")


def test_baseline_may_be_the_folder_and_the_report_being_replaced(ws: Workspace) -> None:
    _suite(ws, {"a": "pass", "b": "pass"})
    assert ws.run().code == 0
    _suite(ws, {"a": "fail", "b": "pass"})
    result = ws.run("--baseline", str(ws.out))  # reports/ itself: read before it is replaced
    assert result.code == 1
    assert [r["case_id"] for r in ws.report()["comparison"]["regressions"]] == ["a"]


def test_comparison_is_restricted_to_the_selected_cases(ws: Workspace) -> None:
    base = _baseline(ws, {"a": "pass", "b": "pass", "c": "pass", "d": "pass"})
    _suite(ws, {"a": "pass", "b": "fail", "c": "pass"})
    assert ws.run("--baseline", str(base), "--tag", "smoke").code == 1
    comp = ws.report()["comparison"]
    assert comp["removed_cases"] == [], "c and d were not selected, so they are not 'removed'"
    assert [r["case_id"] for r in comp["regressions"]] == ["b"]
    assert comp["baseline_summary"]["total"] == 2
    assert comp["delta"]["pass_rate"] == -0.5


# --------------------------------------------------------------------------------------------
# Exit gates


def test_fail_on_regression_lets_a_red_suite_pass_until_something_regresses(
    ws: Workspace,
) -> None:
    base = _baseline(ws, {"a": "pass", "b": "fail"})
    _suite(ws, {"a": "pass", "b": "fail", "n": "fail"})
    result = ws.run("--baseline", str(base), "--fail-on", "regression")
    assert result.code == 0, "b failed before too and n is new: nothing regressed"
    assert ws.run("--baseline", str(base)).code == 1, "default --fail-on any"
    _suite(ws, {"a": "fail", "b": "fail"})
    result = ws.run("--baseline", str(base), "--fail-on", "regression")
    assert result.code == 1
    assert "1 regression since the baseline: a" in result.out


def test_fail_on_never_exits_zero_on_failures(ws: Workspace) -> None:
    _suite(ws, {"a": "fail"})
    assert ws.run("--fail-on", "never").code == 0
    assert ws.report()["summary"]["failed"] == 1


def test_fail_on_regression_needs_a_baseline(ws: Workspace) -> None:
    _suite(ws, {"a": "pass"})
    result = ws.run("--fail-on", "regression")
    assert result.code == 2
    assert "--fail-on regression needs --baseline" in result.err
    assert not ws.out.exists()


def test_fail_on_rejects_unknown_modes(ws: Workspace) -> None:
    _suite(ws, {"a": "pass"})
    result = ws.run("--fail-on", "sometimes")
    assert result.code == 2 and "unknown --fail-on 'sometimes'" in result.err
    assert "choose one of any, regression, flaky, never" in result.err
    result = ws.run("--fail-on", "flaky,never")
    assert result.code == 2 and "not flaky and never" in result.err


@pytest.mark.parametrize(
    ("threshold", "code"),
    [("0.5", 0), ("50%", 0), ("0.51", 1), ("0.9", 1), ("0", 0)],
)
def test_min_pass_rate_gates_whatever_fail_on_says(
    ws: Workspace, threshold: str, code: int
) -> None:
    _suite(ws, {"a": "pass", "b": "fail"})
    result = ws.run("--fail-on", "never", "--min-pass-rate", threshold)
    assert result.code == code
    if code:
        assert "pass rate 50.0% is below --min-pass-rate" in result.out


def test_min_pass_rate_is_exact_not_rounded(ws: Workspace) -> None:
    _suite(ws, {"a": "pass", "b": "pass", "c": "fail"})  # 2/3 = 0.6666...
    assert ws.run("--fail-on", "never", "--min-pass-rate", "0.6667").code == 1
    assert ws.run("--fail-on", "never", "--min-pass-rate", "0.6666").code == 0


def test_min_pass_rate_also_fails_a_passing_regression_gate(ws: Workspace) -> None:
    base = _baseline(ws, {"a": "fail", "b": "fail"})
    result = ws.run("--baseline", str(base), "--fail-on", "regression", "--min-pass-rate", "0.5")
    assert result.code == 1


@pytest.mark.parametrize("bad", ["1.5", "-0.1", "abc", "150%"])
def test_min_pass_rate_must_be_a_fraction(ws: Workspace, bad: str) -> None:
    _suite(ws, {"a": "pass"})
    result = ws.run(f"--min-pass-rate={bad}")
    assert result.code == 2
    assert "--min-pass-rate" in result.err and "0.9, or 90%" in result.err


# --------------------------------------------------------------------------------------------
# Unusable baselines


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "cannot read the baseline"),
        ("{not json", "is not valid JSON (line 1 column 2"),
        (b"\xff\xfe\x00", "is not UTF-8 text"),
        ("[1, 2]", "it is not a report.json object"),
        (json.dumps(good_trace()), "not a trace-validator report.json"),
        ("__v99__", "report schema version 99, this version reads 1"),
        ("__bad_status__", "unknown status 'passed'"),
        ("__dup__", "case 'a' appears twice"),
    ],
)
def test_an_unusable_baseline_is_a_usage_error(
    ws: Workspace, content: str | bytes | None, expected: str
) -> None:
    base = _baseline(ws, {"a": "pass"})
    good = json.loads(base.read_text("utf-8"))
    if content is None:
        base.unlink()
    elif content == "__v99__":
        base.write_text(json.dumps(dict(good, schema_version=99)), "utf-8")
    elif content == "__bad_status__":
        good["cases"][0]["status"] = "passed"
        base.write_text(json.dumps(good), "utf-8")
    elif content == "__dup__":
        good["cases"] = good["cases"] * 2
        base.write_text(json.dumps(good), "utf-8")
    elif isinstance(content, bytes):
        base.write_bytes(content)
    else:
        base.write_text(content, "utf-8")
    shutil.rmtree(ws.out)
    result = ws.run("--baseline", str(base))
    assert result.code == 2, result.out
    assert expected in result.err
    assert "base/report.json" in result.err
    assert not ws.out.exists(), "nothing is evaluated or written"
