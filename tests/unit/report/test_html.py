"""report.html as a file: complete without JavaScript, safe with any text, small.

The browser half (filters, sorting, panels, runs, the URL fragment) is
tests/acceptance/test_html_browser.py; these read the HTML with lxml.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, REPO, Workspace, good_trace
from html_pages import (
    HOSTILE,
    SHOWN,
    data_case,
    data_panel,
    hostile_report,
    mixed_suite,
    page_data,
    tree_html,
    with_baseline,
    write_hostile_page,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import html as lxml_html

from validator.commands import extras as extras_module
from validator.commands.extras import collect_extras, marks
from validator.evaluation.text import normalize_plain
from validator.inputs import Job
from validator.report.document import Report
from validator.report.extras import ANSWER_LIMIT, RESULT_LIMIT
from validator.report.html import chunks
from validator.report.html_assets import CSP, SCRIPT
from validator.report.html_case import MAX_LISTED_RUNS
from validator.report.html_data import cell_value, tree
from validator.report.html_trace import BARS, FULL, PASSING_BUDGET, SUMMARY, passing_level

Page = lxml_html.HtmlElement
SKIPS = ("#cases", "#details")  # the skip links


def _page(ws: Workspace) -> Page:
    return lxml_html.fromstring((ws.out / "report.html").read_bytes())


def _panel(page: Page, case_id: str) -> Page:
    """A case's panel as the page's script builds it from the page's data."""
    return data_panel(page, case_id)


def _static(page: Page, case_id: str) -> Page:
    """A case's part of the page without JavaScript (<noscript>)."""
    found = page.xpath("//noscript//details[@id=$id]", id=f"case={case_id}")
    assert len(found) == 1, case_id
    return found[0]


def _texts(nodes: list[Any]) -> list[str]:
    return [n.text_content() for n in nodes]


@pytest.fixture
def mixed(ws: Workspace) -> Workspace:
    mixed_suite(ws)
    assert ws.run("--format", "json,html").code == 1
    return ws


# --------------------------------------------------------------------------------------------
# Without JavaScript


def test_without_javascript_every_case_and_every_failure_is_on_the_page(mixed: Workspace) -> None:
    page = _page(mixed)
    rank = {"error": 0, "fail": 1, "not_run": 2, "pass": 3}
    statuses = {c["case_id"]: c["status"] for c in mixed.report()["cases"]}
    ids = sorted(sorted(statuses), key=lambda i: rank[statuses[i]])  # failures first
    # Without JavaScript (<noscript>): every case that did not pass, with its failed checks.
    rows = page.xpath("//noscript//table[@id='case-table']/tbody/tr")
    shown = [r.xpath("./td[1]")[0].text_content() for r in rows]
    assert shown == ids[:-1] and "passes" not in shown
    report = mixed.report()
    for case in report["cases"]:
        if case["status"] == "pass":
            continue
        text = _static(page, case["case_id"]).text_content()
        for failed in case["failed_checks"]:
            assert failed["message"] in text
        if case["reason"]:
            assert case["reason"] in text
    assert "verdict-allowed" in _static(page, "repeated").text_content(), "failed in run 2"
    # With it, the data has every case, failures first; panels of cases that did not pass
    # open.
    data = page_data(page)
    assert [c[0] for c in data["cases"]] == ids and ids[-1] == "passes"
    opened = [i for i in ids if _panel(page, i).get("open") is not None]
    assert opened == ids[:-1], "all but passes"
    for case in report["cases"]:
        text = _panel(page, case["case_id"]).text_content()
        for failed in case["failed_checks"]:
            assert failed["message"] in text
        if case["reason"]:
            assert case["reason"] in text
    # The run that failed among three is listed with its failed check.
    cells = _panel(page, "repeated").xpath(".//ol[@class='grid']//a")
    assert [c.get("href") for c in cells] == [f"#case=repeated&run={n}" for n in (1, 2, 3)]
    assert "verdict-allowed" in cells[1].text_content()
    assert page.xpath("//form[@id='filters']")[0].get("hidden") is not None, "shown by the script"


def test_the_failures_come_first_and_the_summary_after_the_cases(ws: Workspace) -> None:
    mixed_suite(ws)
    with_baseline(ws)
    assert ws.run("--format", "json,html", "--baseline", str(ws.root / "base")).code == 1
    page = _page(ws)
    headings = _texts(page.xpath("//h2"))
    # The first screen: the counts once (tiles), the failures by check, then the cases.
    assert headings[:6] == [
        "Failures by check",
        "Cases",
        "Case details",
        "Summary",
        "Compared with the baseline",
        "Verdicts",
    ]
    assert (
        "1 regression"
        in page.xpath("//h2[@id='baseline']/following-sibling::p[2]")[0].text_content()
    )
    header = _texts(page.xpath("//table[@id='case-table']//th"))
    assert header[0] == "Case" and header[-1] == "Baseline"
    row = page.xpath("//table[@id='case-table']/tbody/tr[td[1]='fails']")[0]
    assert row.get("data-change") == "regressed"
    assert row.xpath("./td[last()]")[0].text_content() == "regressed (pass → fail)"
    assert "regressed (pass → fail)" in _panel(page, "fails").text_content()


# --------------------------------------------------------------------------------------------
# What the traces add (Report.extras)


def test_a_panel_shows_the_question_the_marked_answer_and_the_timeline(mixed: Workspace) -> None:
    panel = _panel(_page(mixed), "fails")
    facts = dict(
        zip(
            _texts(panel.xpath(".//dl[@class='facts']/dt")),
            _texts(panel.xpath(".//dl[@class='facts']/dd")),
            strict=True,
        )
    )
    assert facts["Question"] == "Why is fails slow?"
    assert facts["Trace"] == "fixtures/fails.json"
    answer = panel.xpath(".//div[@class='answer']")[0]
    assert _texts(answer.xpath("./mark[@class='hit']")) == ["SLOW query", "missing index"]
    assert _texts(answer.xpath("./mark[@class='bad']")) == ["drop table"]
    assert (
        answer.text_content()
        == "The **SLOW query** is caused by a missing index; drop table orders."
    )
    # The keyword list: the check's matched (and missing) keywords as marks.
    check = panel.xpath(".//ul[@class='checks']/li[b='keyword-coverage']")[0]
    assert _texts(check.xpath(".//mark[@class='hit']")) == ["slow query", "missing index"]
    bars = panel.xpath(".//ol[@class='lane']/li")
    assert _texts(b.xpath(".//span[@class='nm']")[0] for b in bars) == [
        "mysql_slow_log",
        "mysql_explain",
    ]
    styles = [b.xpath(".//span[@class='tk']/span")[0].get("style") for b in bars]
    assert styles == ["left:0%;width:10%", "left:10%;width:30%"], "100 and 300 ms of a 1 s run"
    assert bars[1].get("class") == "x err", "the failed call is marked"
    # A run that did not pass shows each call's arguments and result (clipped).
    result = bars[0].xpath(".//div[@class='io']")[0].text_content()
    assert f"Result (909 characters, the first {RESULT_LIMIT} shown)" in result


def test_long_answers_are_clipped_and_say_how_long_they_were(ws: Workspace) -> None:
    ws.case(dict(GOOD_CASE, id="long"))
    answer = "slow query, missing index. " + "y" * 10_000
    ws.trace("long", good_trace("long", finalAnswer=answer, executorAnswer="x"))
    assert ws.run("--format", "html").code == 0
    panel = _panel(_page(ws), "long")
    shown = panel.xpath(".//div[@class='answer']")[0].text_content()
    assert shown == answer[:ANSWER_LIMIT]
    assert (
        f"The first {ANSWER_LIMIT:,} of {len(answer):,} characters are shown."
        in panel.text_content()
    )


def test_a_page_made_from_report_json_says_what_it_cannot_show(mixed: Workspace) -> None:
    report = Report.from_dict(mixed.report())
    page = lxml_html.fromstring("".join(chunks(report)))
    panel = _panel(page, "fails")
    assert "are not in report.json" in panel.text_content()
    assert panel.xpath(".//ul[@class='checks']/li[b='forbidden-keywords']")
    assert not panel.xpath(".//div[@class='answer']") and not panel.xpath(".//ol[@class='lane']")


def test_report_json_is_the_same_with_or_without_the_page(
    mixed: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert mixed.run("--format", "json").code == 1
    alone = (mixed.out / "report.json").read_bytes()
    assert mixed.run("--format", "json,html").code == 1
    assert (mixed.out / "report.json").read_bytes() == alone
    assert "extras" not in json.loads(alone)


def test_json_lines_input_gets_the_same_extras(ws: Workspace) -> None:
    ws.case(dict(GOOD_CASE, id="db-slow"))
    export = ws.root / "export.jsonl"
    export.write_text(
        json.dumps(good_trace(finalAnswer="a slow query, a missing index")) + "\n", "utf-8"
    )
    assert ws.run("--fixtures", str(export), "--format", "html").code == 0
    answer = _panel(_page(ws), "db-slow").xpath(".//div[@class='answer']")[0]
    assert _texts(answer.xpath("./mark")) == ["slow query", "missing index"]


def test_a_trace_that_cannot_be_read_again_says_why(ws: Workspace) -> None:
    from validator.commands.run import load_checked
    from validator.evaluation.grouping import group_results
    from validator.evaluation.runner import evaluate_all
    from validator.inputs import find_case_files, plan_fixtures, spec_folders

    ws.case()
    path = ws.trace("db-slow", good_trace())
    suite = load_checked(find_case_files(ws.cases), spec_folders(None))
    plan = plan_fixtures(list(suite.cases), ws.fixtures, "fixtures")
    cases, _ = group_results(suite, evaluate_all(suite, plan.jobs(), 1), plan)
    cases[0].runs[0].fixture = "fixtures/db-slow.json"
    path.unlink()
    jobs = [Job("db-slow", "fixtures/db-slow.json", str(path))]
    extras = collect_extras(suite, cases, jobs, None, 1 << 20)
    run = extras["db-slow"]["runs"]["fixtures/db-slow.json"]
    assert run["unreadable"].startswith("the trace could not be read again: cannot read the file")
    assert extras["db-slow"]["question"] == GOOD_CASE["question"]


# --------------------------------------------------------------------------------------------
# Highlighting


@pytest.mark.parametrize(
    ("text", "keyword", "marked"),
    [
        ("The **SLOW query** here", "slow query", "SLOW query"),
        ("on ＭｙＳＱＬ 8", "mysql", "ＭｙＳＱＬ"),
        ("my\u200bsql", "MySQL", "my\u200bsql"),
        ("column customer\\_ref is", "customer_ref", "customer\\_ref"),
        ("连接池\n耗尽了", "连接池耗尽", "连接池\n耗尽"),
        ("a slow\n  query", "slow query", "slow\n  query"),
    ],
)
def test_highlights_use_the_checks_normalization(text: str, keyword: str, marked: str) -> None:
    [(start, end, kind)] = marks(text, [(keyword, "hit")])
    assert (text[start:end], kind) == (marked, "hit")


def test_overlapping_highlights_keep_the_longest_and_every_occurrence() -> None:
    text = "slow query, then a slow query again; drop table"
    found = marks(text, [("slow", "hit"), ("slow query", "hit"), ("drop table", "bad")])
    assert [(text[s:e], k) for s, e, k in found] == [
        ("slow query", "hit"),
        ("slow query", "hit"),
        ("drop table", "bad"),
    ]
    assert marks("nothing here", [("", "hit"), ("\u200b", "hit")]) == []


def _folded_one_by_one(text: str) -> tuple[str, list[int]]:
    """The highlights' folding as its rule says: each character through the checks'
    normalization, whitespace and the skipped markup left out, with where it came from."""
    out: list[str] = []
    where: list[int] = []
    for index, char in enumerate(text):
        for folded in normalize_plain(char):
            if not folded.isspace() and folded not in "*_`~\\":
                out.append(folded)
                where.append(index)
    return "".join(out), where


# ASCII runs are folded by tables, other characters one by one: every mix of the two.
_FOLD_PIECES = st.sampled_from(
    [
        "Slow Query",
        " ",
        "\n\t",
        "**",
        "`x`",
        "a\\_b",
        "~~",
        "\x00\x7f",
        "连接池",
        "ＭｙＳＱＬ",
        "\ufb01x",
        "\u00bd",
        "\u200b",
        "e\u0301",
        "\u0130",
        "Straße",
        "\U0001f600",
        "—",
    ]
)


@settings(deadline=None, max_examples=300)
@given(st.lists(_FOLD_PIECES | st.text(max_size=6), max_size=12).map("".join))
def test_highlight_folding_is_each_characters_own(text: str) -> None:
    assert extras_module._folded(text) == _folded_one_by_one(text)


def test_highlight_folding_of_real_answers_is_each_characters_own() -> None:
    data = os.environ.get("TRACE_DATA")
    if not data:
        pytest.skip("TRACE_DATA is not set: the real traces' texts are not available")
    texts = [
        path.read_text("utf-8", errors="replace")[:20_000]
        for path in sorted(Path(data).glob("*/*.json"))[:60]
    ]
    assert texts
    for text in texts:
        assert extras_module._folded(text) == _folded_one_by_one(text)


def test_the_data_trees_read_the_renderers_markup_back() -> None:
    # Elements, classes as the selector, other attributes, character references, void
    # elements, and an end tag that also closes the elements still open inside it.
    html = (
        '<div class="panel wide"><p id="a&amp;b">x &lt; y<br>z</p>'
        "<ul><li><b>one</li><li>two</li></ul>after</div>"
    )
    assert tree(html) == [
        "div.panel.wide",
        ["p", {"id": "a&b"}, "x < y", ["br"], "z"],
        ["ul", ["li", ["b", "one"]], ["li", "two"]],
        "after",
    ]


def test_two_cells_alike_are_two_elements() -> None:
    # Elements made from one tag text are separate: taking one's sort value out leaves the
    # other's.
    first, second = tree('<tr><td data-v="3">3</td><td data-v="3">3</td></tr>')[1:]
    assert cell_value(first) == 3.0
    assert first == ["td", "3"]
    assert second == ["td", {"data-v": "3"}, "3"]


# --------------------------------------------------------------------------------------------
# Size


def _run(answer: int, calls: int, output: int) -> dict[str, Any]:
    call = {"name": "t", "arguments": "a" * output, "result": "r" * output}
    return {"status": "pass", "answer": "x" * answer, "tool_calls": [call] * calls}


def test_passing_runs_get_the_richest_form_that_fits_the_budget() -> None:
    assert passing_level([_run(1000, 10, 500)] * 10) == FULL
    many = PASSING_BUDGET // 10_000
    assert passing_level([_run(1000, 10, 900)] * many) == BARS
    assert passing_level([_run(1000, 12, 900)] * (PASSING_BUDGET // 1000)) == SUMMARY


def test_many_passing_runs_are_shown_shorter_and_failures_in_full(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    import validator.report.html_trace as trace

    monkeypatch.setattr(trace, "PASSING_BUDGET", 10)
    mixed_suite(ws)
    assert ws.run("--format", "html").code == 1
    page = _page(ws)
    assert (
        "This page has many passing runs"
        in page.xpath("//h2[@id='details']/following-sibling::p[1]")[0].text_content()
    )
    passes = _panel(page, "passes")
    assert _texts(passes.xpath(".//p[@class='cks']/span")) == [
        "degraded-output",
        "evidence-coverage",
        "forbidden-keywords",
        "forbidden-tools",
        "keyword-coverage",
        "max-duration-ms",
        "max-tool-calls",
        "tool-order",
        "verdict-allowed",
        "verdict-present",
    ]
    assert (
        "2 tool calls: mysql_slow_log, mysql_explain"
        in passes.xpath(".//p[@class='calls']")[0].text_content()
    )
    fails = _panel(page, "fails")
    assert fails.xpath(".//ol[@class='lane']//div[@class='io']"), "a failure keeps everything"


def test_a_grid_lists_every_failure_and_some_passing_runs() -> None:
    items = [
        {
            "fixture": f"f/{n}.json",
            "status": "fail" if n % 7 == 0 else "pass",
            "failed_checks": [],
            "verdict": None,
        }
        for n in range(1, 1001)
    ]
    row = {
        "case_id": "many",
        "status": "fail",
        "reason": None,
        "checks": [],
        "failed_checks": [],
        "fixture": "f/7.json",
        "tags": [],
        "runs": {"total": 1000, "passed": 858, "items": items},
    }
    summary = {
        "total": 1,
        "passed": 0,
        "failed": 1,
        "not_run": 0,
        "errored": 0,
        "pass_rate": 0.0,
        "verdict_distribution": {},
        "avg_tool_calls": None,
        "avg_duration_ms": None,
        "runs": {"evaluated": 1000},
        "pass_hat_k": 0.0,
        "pass_at_k": 1.0,
        "flaky_cases": 1,
    }
    report = Report.from_dict({"summary": summary, "cases": [row]})
    panel = _panel(lxml_html.fromstring("".join(chunks(report))), "many")
    assert panel.get("data-rep") == "7"
    listed = [int(a.get("data-run")) for a in panel.xpath(".//ol[@class='grid']//a")]
    failing = [n for n in range(1, 1001) if n % 7 == 0]
    assert len(listed) == MAX_LISTED_RUNS and set(failing) <= set(listed)
    assert "858 more passing runs" not in panel.text_content()
    assert f"{1000 - MAX_LISTED_RUNS} more passing runs are not listed" in panel.text_content()


# --------------------------------------------------------------------------------------------
# Safety


def test_the_policy_runs_exactly_the_page_script() -> None:
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode()
    directives = dict(d.strip().split(" ", 1) for d in CSP.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == f"'unsafe-hashes' 'sha256-{digest}'"
    assert "unsafe-eval" not in CSP and "'unsafe-inline'" not in directives["script-src"]
    assert '"' not in SCRIPT and "url(" not in SCRIPT
    for banned in (
        "eval(",
        "Function(",
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
    ):
        assert banned not in SCRIPT


def test_the_page_script_is_the_body_load_handler_and_the_only_code(mixed: Workspace) -> None:
    page = _page(mixed)
    assert page.xpath("//body")[0].get("onload") == SCRIPT, "the hash covers what the page runs"
    handlers = [(e.tag, a) for e in page.iter() for a in e.attrib if a.lower().startswith("on")]
    assert handlers == [("body", "onload")]


def test_hostile_text_stays_text_in_every_field(tmp_path: Path) -> None:
    raw = write_hostile_page(tmp_path).read_text("utf-8")  # written at all: no lone surrogate
    page = lxml_html.fromstring(raw)
    # The one <script> element is the data, never run, and no text can end it early.
    [data] = page.xpath("//script")
    assert data.get("type") == "application/json" and "<" not in data.text
    assert data_case(page, SHOWN)[0] == SHOWN
    for tag in (
        "img",
        "iframe",
        "object",
        "embed",
        "link",
        "base",
        "textarea",
        "a[@onmouseover]",
    ):
        assert page.xpath(f"//{tag}") == [], tag
    handlers = [(e.tag, a) for e in page.iter() for a in e.attrib if a.lower().startswith("on")]
    assert handlers == [("body", "onload")]
    built = [data_panel(page, SHOWN), data_panel(page, SHOWN + "single")]
    for element in [e for root in [page, *built] for e in root.iter()]:
        for name in ("href", "src", "action", "formaction", "style"):
            value = element.get(name)
            if value is not None and name == "href":
                assert value.startswith(("#case=", "#check=")) or value in SKIPS, value
            elif value is not None and name == "style":
                assert re.fullmatch(r"left:[\d.]+%;width:[\d.]+%", value), value
            else:
                assert value is None, (name, value)
    assert page.xpath("//table[@id='case-table']/tbody/tr[1]/td[1]")[0].text_content() == SHOWN
    text = page.text_content()
    for chunk in (
        "<script>window.__pwned = 1</script>",
        "javascript:alert(1)",
        "\\u2028",
        "\\ud800",
        "\\x1b[31m",
    ):
        assert chunk in text
    assert HOSTILE not in raw and "\u2028" not in raw and "\x1b" not in raw
    panel = _panel(page, SHOWN)
    assert panel.xpath(".//mark[@class='hit']") and not panel.xpath(
        ".//mark[@class!='hit' and @class!='bad' and @class!='miss']"
    )
    hostile_report()  # the builder itself stays usable for the browser test


@pytest.mark.skipif(not os.environ.get("TRACE_DATA"), reason="TRACE_DATA is not set")
def test_traces_split_from_one_file_get_their_panels(tmp_path: Path) -> None:
    """tau2-bench: one file, `traces.split` into simulations, each run named `file#N`; the
    page reads the file again and shows each run's answer and tool calls."""
    data = Path(os.environ["TRACE_DATA"]) / "tau2-bench"
    example = REPO / "examples" / "tau2-bench"
    command = ["run", "--fixtures", str(data), "--format", "html", "--out", str(tmp_path), "-q"]
    done = subprocess.run(
        [sys.executable, "-m", "validator", *command],
        cwd=example,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    page = lxml_html.fromstring((tmp_path / "report.html").read_bytes())
    assert "not read again" not in page.text_content()
    failing = _panel(page, "36")
    assert "fail" in failing.text_content()
    shown = failing.text_content()
    assert "Answer" in shown and "have a great day" in shown.lower()
    assert "find_user_id_by_name_zip" in shown and '"zip": "46236"' in shown
    # Failures first, a failures-by-check table, no verdict widget (tau2 records none).
    rows = page.xpath("//table[@id='case-table']/tbody/tr")
    assert [r.get("data-status") for r in rows][:3] == ["fail"] * 3
    by_check = page.xpath("//table[@id='by-check']/tbody/tr")
    assert [[td.text_content() for td in r.xpath("./td")][:2] for r in by_check] == [
        ["reward", "3"]
    ]
    assert by_check[0].xpath(".//a")[0].get("href") == "#check=reward"
    assert "MISSING" not in page.text_content()
    assert (
        page.xpath("//select[@name='verdict']") == [] and page.xpath("//h2[@id='verdicts']") == []
    )
    assert page.text_content().count("62.5%") == 1, "the pass rate is shown once"


# --------------------------------------------------------------------------------------------
# The conversation and the rendered answer


def _one_case_page(run: dict[str, Any], status: str = "fail") -> Page:
    row = {
        "case_id": "talk",
        "status": status,
        "reason": None,
        "checks": [],
        "failed_checks": [],
        "fixture": "t.json",
        "tags": [],
        "runs": {"total": 1, "passed": 0},
    }
    summary = {
        "total": 1,
        "passed": 0,
        "failed": 1,
        "not_run": 0,
        "errored": 0,
        "pass_rate": 0.0,
        "verdict_distribution": {},
        "avg_tool_calls": None,
        "avg_duration_ms": None,
        "runs": {"evaluated": 1},
    }
    report = Report.from_dict({"summary": summary, "cases": [row]})
    report.extras = {"talk": {"question": "q?", "runs": {"t.json": {"status": status, **run}}}}
    return lxml_html.fromstring("".join(chunks(report)))


def test_model_calls_show_their_messages_collapsed_with_roles_and_marks() -> None:
    message = "the slow query <b>again</b>"
    run = {
        "answer": "# Cause\n\nA **slow query**.",
        "marks": [[13, 23, "hit"]],
        "llm_calls": [
            {
                "model": "gpt-x",
                "duration_ms": 5,
                "messages": [
                    {"role": "system", "text": "be brief", "length": 8},
                    {"role": "user", "text": message, "length": 5000, "marks": [[4, 14, "hit"]]},
                    {"role": "assistant", "text": "done", "length": 4},
                    {"role": "<i>odd</i>", "text": "x", "length": 1},
                ],
            },
            {"model": "gpt-y", "duration_ms": 5},
        ],
    }
    panel = _panel(_one_case_page(run), "talk")
    calls = panel.xpath(".//li[contains(@class, 'llm')]")
    [shown] = calls[0].xpath(".//details[@class='msgs']")
    assert shown.get("open") is None, "collapsed"
    assert shown.xpath("./summary")[0].text_content() == (
        "4 messages (system, user, assistant, <i>odd</i>)"
    )
    items = shown.xpath(".//li")
    assert [i.get("class") for i in items] == [
        "msg system",
        "msg user",
        "msg assistant",
        "msg other",
    ]
    assert [i.xpath("./b")[0].text_content() for i in items][:3] == ["system", "user", "assistant"]
    user = items[1]
    assert user.xpath(".//pre")[0].text_content() == message, "text, never markup"
    assert user.xpath(".//mark[@class='hit']")[0].text_content() == "slow query"
    assert "5,000 characters, the first 27 shown" in user.text_content()
    assert not calls[1].xpath(".//details"), "a call without messages has no toggle"
    # The answer: rendered (answer_html.render), with its marked source a toggle away.
    rendered = panel.xpath(".//div[@class='md']")[0]
    assert "A **slow query**." in rendered.text_content() or "slow query" in rendered.text_content()
    assert not rendered.xpath(".//h1 | .//h2"), "an answer's headings do not enter the outline"
    source = panel.xpath(".//details[@class='src']")[0]
    assert source.get("open") is None
    assert source.xpath(".//div[@class='answer']/mark")[0].text_content() == "slow query"


def test_messages_of_passing_runs_are_left_out_when_they_are_shown_shorter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import validator.report.html_trace as trace

    monkeypatch.setattr(trace, "PASSING_BUDGET", 10)
    run = {
        "answer": "ok",
        "llm_calls": [{"model": "m", "messages": [{"role": "user", "text": "hi"}]}],
    }
    page = _one_case_page(run, status="pass")
    assert not _panel(page, "talk").xpath(".//details[@class='msgs']")


# --------------------------------------------------------------------------------------------
# History across reports (Report.history, from `run --history`)


def test_history_shows_the_trend_the_changed_and_flaky_cases_and_marks_per_case(
    mixed: Workspace,
) -> None:
    report = Report.from_dict(mixed.report())
    report.history = {  # type: ignore[attr-defined]
        "reports": [
            {"name": "r1/report.json", "pass_rate": 0.5},
            {"name": "<b>r2</b>", "pass_rate": None},
            {"name": "this run", "pass_rate": 0.25},
        ],
        "cases": {"fails": ["pass", None, "fail"], "passes": ["fail", "pass", "pass"]},
        "changed": ["fails"],
        "flaky": ["fails", "passes"],
    }
    page = lxml_html.fromstring("".join(chunks(report)))
    trend = page.xpath("//table[@id='trend']/tbody/tr")
    assert [[td.text_content() for td in tr.xpath("./td")] for tr in trend] == [
        ["r1/report.json", "50.0%", "█" * 10],
        ["<b>r2</b>", "—", ""],
        ["this run", "25.0%", "█" * 5],
    ]
    section = page.xpath("//h2[@id='history']/following-sibling::p")
    assert section[1].text_content() == "Changed status (1): fails"
    assert section[2].text_content() == "Flaky across reports (2): fails, passes"
    assert section[2].xpath(".//a/@href") == ["#case=fails", "#case=passes"]
    assert page_data(page)["cols"][-1] == ["history", "History"]
    row = lxml_html.fragment_fromstring(tree_html(data_case(page, "fails")[8]))
    marks = row.xpath(".//span[contains(@class, 'hm')]")
    assert [m.text_content() for m in marks] == ["✓", "·", "✗"]
    assert [m.get("title") for m in marks] == [
        "r1/report.json: pass",
        "<b>r2</b>: absent",
        "this run: fail",
    ]
    # Without history: no section, no column.
    plain = lxml_html.fromstring("".join(chunks(Report.from_dict(mixed.report()))))
    assert not plain.xpath("//h2[@id='history']")
    assert ["history", "History"] not in page_data(plain)["cols"]


def test_failures_by_check_count_messages_of_one_kind_together() -> None:
    from validator.report.html import failures_by_check, message_kind

    def row(check: str, message: str) -> dict[str, Any]:
        return {"failed_checks": [{"check": check, "message": message}], "runs": {}}

    rows = [
        row("max-duration-ms", "the value 25,000 ms is over 20,000 ms"),
        row("max-duration-ms", "the value 31,500 ms is over 20,000 ms"),
        row("max-duration-ms", "the value 25,000 ms is over 20,000 ms"),
        row("max-duration-ms", "no duration recorded"),
        row("verdict-allowed", 'found "REVISE", allowed: PASS'),
    ]
    assert message_kind('found "REVISE", allowed: PASS') == "found …, allowed: PASS"
    first, second = failures_by_check(rows)
    # Three of the four failures are one kind (other numbers); its most common text is shown.
    assert (first.check, first.cases, first.alike, first.texts, first.kinds) == (
        "max-duration-ms",
        4,
        3,
        2,
        2,
    )
    assert first.message == "the value 25,000 ms is over 20,000 ms"
    assert (second.check, second.cases, second.kinds) == ("verdict-allowed", 1, 1)
