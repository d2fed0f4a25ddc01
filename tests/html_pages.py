"""Pages for the report.html tests (tests/unit/report/test_html.py, tests/acceptance/test_html_browser.py):
a mixed suite run through the command line, and a report whose every text is hostile."""

from __future__ import annotations

import copy
import shutil
from html import escape
from pathlib import Path
from typing import Any

from conftest import GOOD_CASE, Workspace, good_trace, set_verdict

from validator.display import one_line
from validator.report.document import Report
from validator.report.html import chunks
from validator.report.html_data import unpacked

# Every way a text could try to become markup, a link, a script, a line break or an encoding
# error: tags, an attribute break-out, a javascript: URL, controls, U+2028/9, a bidi
# override and a lone surrogate.
HOSTILE = (
    "<script>window.__pwned = 1</script></textarea></pre></summary></details>"
    '<img src=x onerror="window.__pwned = 2"><a href="javascript:window.__pwned=3">x</a>'
    "\"' onmouseover='window.__pwned=4' javascript:alert(1) &amp; \x00\x01\x1b[31m"
    "\u2028\u2029\u202e\ud800 <!-- ]]> {{7*7}}"
)
SHOWN = one_line(HOSTILE)  # how the page must show it, as text


def tool(name: str, ms: int, status: str = "success", **more: Any) -> dict[str, Any]:
    return {"toolName": name, "arguments": {"q": name}, "status": status, "durationMs": ms, **more}


def mixed_suite(ws: Workspace) -> None:
    """pass, fail (two), not_run, error, and three runs of one case (the second failing);
    tags, tool-call durations and answers the browser test reads."""
    cases = {
        "passes": ["redis"],
        "fails": ["mysql", "latency"],
        "mysql-slow": ["mysql"],
        "missing": ["mysql"],
        "broken": ["zh"],
        "repeated": ["redis"],
    }
    for case_id, tags in cases.items():
        ws.case(dict(GOOD_CASE, id=case_id, tags=tags, question=f"Why is {case_id} slow?"))
    ws.trace("passes", good_trace("passes", durationMs=800))
    ws.trace(
        "fails",
        good_trace(
            "fails",
            finalAnswer="The **SLOW query** is caused by a missing index; drop table orders.",
            toolInvocations=[
                tool("mysql_slow_log", 100, result="slow log\n" + "x" * 900),
                tool("mysql_explain", 300, status="error"),
            ],
            durationMs=1000,
        ),
    )
    ws.trace(
        "mysql-slow",
        set_verdict(good_trace("mysql-slow", durationMs=9000), "REVISE"),
    )
    ws.trace("broken", "{oops")
    runs = [
        good_trace("repeated"),
        set_verdict(good_trace("repeated"), "REVISE"),
        good_trace("repeated"),
    ]
    for n, trace in enumerate(runs, start=1):
        ws.trace("repeated", trace, name=f"repeated/run-{n}.json")


def with_baseline(ws: Workspace) -> None:
    """Runs the suite once with `fails` passing, keeps that report as the baseline, and
    leaves the suite as mixed_suite made it."""
    saved = ws.fixtures / "fails.json"
    original = saved.read_bytes()
    ws.trace("fails", good_trace("fails"))
    assert ws.run("--format", "json").code == 1
    base = ws.root / "base"
    base.mkdir()
    shutil.copy(ws.out / "report.json", base / "report.json")
    saved.write_bytes(original)


def hostile_report() -> Report:
    """A report (as Report.from_dict reads one) and extras with HOSTILE in every text."""
    h = HOSTILE
    details = {"matched": [h], "missing": [h], "required": 1, "total": 2, h: h}
    check = {"check": h, "status": "fail", "message": h, "details": details}
    clauses = [{"name": h, "status": "fail", "message": h}, {"name": h, "status": h, "message": h}]
    item = {
        "fixture": h,
        "status": "fail",
        "reason": h,
        "verdict": h,
        "failed_checks": [{"check": h, "message": h}],
        "tool_call_count": 1,
        "duration_ms": 5,
    }
    row = {
        "case_id": h,
        "status": "fail",
        "reason": h,
        "verdict": h,
        "failed_checks": [{"check": h, "message": h}],
        "checks": [check, {"check": h, "status": h, "message": h, "clauses": clauses}],
        "evidence_coverage": {"required": [h], "found": [h], "missing": [h], "ratio": 0.5},
        "keyword_coverage": {"matched": [h], "missing": [h], "required": 1, "total": 2},
        "tool_call_count": 1,
        "duration_ms": 5,
        "fixture": h,
        "notes": [h],
        "tags": [h, "plain"],
        "run_pass_rate": 0.5,
        "flaky": True,
        "runs": {
            "total": 2,
            "passed": 1,
            "items": [item, {**item, "fixture": h + "2", "status": "pass"}],
        },
    }
    single = {**copy.deepcopy(row), "case_id": h + "single", "runs": {"total": 1, "passed": 0}}
    summary = {
        "total": 2,
        "passed": 0,
        "failed": 2,
        "not_run": 0,
        "errored": 0,
        "pass_rate": 0.0,
        "verdict_distribution": {h: 3},
        "avg_tool_calls": 1.0,
        "avg_duration_ms": 5.0,
        "runs": {"total": 3, "evaluated": 3, "passed": 1},
        "pass_hat_k": 0.0,
        "pass_at_k": 0.5,
        "flaky_cases": 1,
    }
    comparison = {
        "baseline": h,
        "baseline_generated_at": h,
        "baseline_summary": {"pass_rate": 1.0, "avg_tool_calls": 1.0, "avg_duration_ms": 1.0},
        "delta": {"pass_rate": -1.0, "avg_tool_calls": 0.0, "avg_duration_ms": 4.0},
        "regressions": [{"case_id": h, "before": "pass", "after": h, "reason": h}],
        "fixes": [],
        "new_cases": [{"case_id": h + "single", "status": h}],
        "removed_cases": [{"case_id": h, "status": h}],
    }
    document = {
        "schema_version": 1,
        "tool": {"name": h, "version": h},
        "generated_at": h,
        "inputs": {"cases": h, "fixtures": h},
        "summary": summary,
        "comparison": comparison,
        "cases": [row, single],
        "unmatched_traces": [{"fixture": h, "case_id": h, "status": "error", "reason": h}],
    }
    report = Report.from_dict(document)
    run = {
        "status": "fail",
        "adapter": h,
        "answer": h * 3,
        "answer_length": 99999,
        "marks": [
            [0, 9, "hit"],
            [5, 20, "bad"],
            [30, 10, "hit"],
            [40, 10**9, "hit"],
            ["x"],
            [50, 60, h],
        ],
        "tool_calls": [
            {
                "name": h,
                "status": "error",
                "duration_ms": 5,
                "arguments": h,
                "arguments_length": 5000,
                "result": h,
                "result_length": 5000,
            }
        ],
        "tool_call_total": 7,
        "llm_calls": [
            {
                "model": h,
                "input_tokens": 1,
                "output_tokens": 2,
                "total_tokens": 3,
                "cost": 0.5,
                "duration_ms": 2,
            }
        ],
        "llm_call_total": 1,
        "duration_ms": 10,
        "errors": [h],
        "unreadable": None,
    }
    extra = {"question": h, "description": h, "runs": {h: run, h + "2": {"unreadable": h}}}
    report.extras = {h: extra, h + "single": {**extra, "runs": {h: run}}}
    return report


def write_hostile_page(folder: Path) -> Path:
    page = folder / "hostile.html"
    with open(page, "w", encoding="utf-8", newline="\n") as handle:
        handle.writelines(chunks(hostile_report()))
    return page


# --------------------------------------------------------------------------------------------
# The page's data (validator/report/html_data.py), read as the page's script reads it


def page_data(page: Any) -> dict[str, Any]:
    """The JSON block of a page (lxml) as the script parses it."""
    [block] = page.xpath("//script[@id='data']")
    assert block.get("type") == "application/json"
    data: dict[str, Any] = unpacked(block.text)
    strings = data["strings"]

    def resolve(node: Any) -> Any:
        if isinstance(node, int):
            return strings[node]
        if isinstance(node, str):
            return node
        return [resolve(node[0]), *(c if isinstance(c, dict) else resolve(c) for c in node[1:])]

    for case in data["cases"]:
        case[8], case[9] = resolve(case[8]), resolve(case[9])
    return data


def tree_html(node: Any) -> str:
    """A tree of the data as HTML (what the script builds with createElement)."""
    if isinstance(node, str):
        return escape(node, quote=False)
    tag, *classes = node[0].split(".")
    attrs = node[1] if len(node) > 1 and isinstance(node[1], dict) else {}
    children = node[2:] if attrs else node[1:]
    shown = (f' class="{" ".join(classes)}"' if classes else "") + "".join(
        f' {k}="{escape(str(v))}"' for k, v in attrs.items()
    )
    return f"<{tag}{shown}>{''.join(tree_html(c) for c in children)}</{tag}>"


def data_case(page: Any, case_id: str) -> list[Any]:
    found = [c for c in page_data(page)["cases"] if c[0] == case_id]
    assert len(found) == 1, case_id
    return found[0]


def data_panel(page: Any, case_id: str) -> Any:
    """A case's panel as the page builds it, as lxml reads it."""
    from lxml import html as lxml_html

    return lxml_html.fragment_fromstring(tree_html(data_case(page, case_id)[9]))


def built_html(path: Path) -> str:
    """A page file's HTML followed by every row and panel as its script builds them."""
    from lxml import html as lxml_html

    raw = path.read_text("utf-8")
    cases = page_data(lxml_html.fromstring(raw))["cases"]
    return raw + "".join(tree_html(c[8]) + tree_html(c[9]) for c in cases)
