"""Report formats for CI (--format json,md,junit,html), GITHUB_STEP_SUMMARY and determinism."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import GOOD_CASE, TESTS, Workspace, good_trace, set_verdict
from html_pages import data_case, page_data, tree_html
from lxml import etree
from lxml import html as lxml_html

XSD = TESTS / "data" / "junit-jenkins.xsd"
CHROMIUM = Path("/usr/bin/chromium")


def _failing(case_id: str = "db-slow") -> dict:
    return set_verdict(good_trace(case_id), "REVISE")


def _mixed_suite(ws: Workspace) -> None:
    """pass, fail, not_run, error, and a case with three runs (one failing)."""
    for case_id in ("passes", "fails", "missing", "broken", "repeated"):
        ws.case(dict(GOOD_CASE, id=case_id))
    ws.trace("passes", good_trace("passes"))
    ws.trace("fails", good_trace("fails", finalAnswer="no idea"))
    ws.trace("broken", "{oops")
    for n, trace in enumerate(
        [good_trace("repeated"), _failing("repeated"), good_trace("repeated")], start=1
    ):
        ws.trace("repeated", trace, name=f"repeated/run-{n}.json")


def _written(ws: Workspace) -> set[str]:
    return {p.name for p in ws.out.iterdir()}


# --------------------------------------------------------------------------------------------
# --format


def test_default_formats_are_json_and_markdown(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    result = ws.run()
    assert result.code == 0
    assert _written(ws) == {"report.json", "report.md"}


def test_report_json_has_an_indented_head_and_each_case_on_one_compact_line(
    ws: Workspace,
) -> None:
    for case_id in ("a-case", "b-case"):
        ws.case(dict(GOOD_CASE, id=case_id))
        ws.trace(case_id, good_trace(case_id))
    assert ws.run().code == 0
    text = (ws.out / "report.json").read_text("utf-8")
    document = json.loads(text)
    lines = text.splitlines()
    assert lines[1].startswith('  "schema_version": ')  # the head: indented, `key: value`
    rows = [line for line in lines if line.startswith('    {"case_id":')]
    assert [json.loads(row.rstrip(",")) for row in rows] == document["cases"]
    for row in rows:  # compact: no space after `,` and `:` outside strings
        assert row.rstrip(",") == "    " + json.dumps(
            json.loads(row.rstrip(",")), ensure_ascii=False, separators=(",", ":")
        )


def test_format_writes_exactly_the_listed_reports(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    result = ws.run("--format", "junit, html")
    assert result.code == 0, result.err
    assert _written(ws) == {"report.junit.xml", "report.html"}
    assert "report.junit.xml" in result.out and "report.html" in result.out
    shutil.rmtree(ws.out)
    assert ws.run("--format", "json,md,junit,html,json").code == 0
    assert _written(ws) == {"report.json", "report.md", "report.junit.xml", "report.html"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("json,junt", "unknown format 'junt' (did you mean 'junit'?)"),
        ("markdown", "unknown format 'markdown'"),
        ("json,,md", "has an empty entry"),
    ],
)
def test_an_unknown_format_is_a_usage_error(ws: Workspace, value: str, expected: str) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    result = ws.run("--format", value)
    assert result.code == 2
    assert expected in result.err
    assert "json, md, junit, html" in result.err or "empty entry" in expected
    assert not ws.out.exists()


# --------------------------------------------------------------------------------------------
# JUnit XML


def _junit(ws: Workspace) -> etree._ElementTree:
    return etree.parse(str(ws.out / "report.junit.xml"))


def _assert_valid(tree: etree._ElementTree) -> None:
    schema = etree.XMLSchema(etree.parse(str(XSD)))
    assert schema.validate(tree), schema.error_log


def test_junit_validates_against_the_jenkins_schema_with_one_testcase_per_run(
    ws: Workspace,
) -> None:
    _mixed_suite(ws)
    assert ws.run("--format", "junit").code == 1
    tree = _junit(ws)
    _assert_valid(tree)
    suites = tree.getroot().findall("testsuite")
    assert len(suites) == 1, "one testsuite"
    suite = suites[0]
    cases = {tc.get("name"): tc for tc in suite.findall("testcase")}
    assert sorted(cases) == [
        "broken",
        "fails",
        "missing",
        "passes",
        "repeated [run-1.json]",
        "repeated [run-2.json]",
        "repeated [run-3.json]",
    ]
    assert cases["repeated [run-2.json]"].get("classname") == "repeated"
    # A passing case holds only its output: the agent's duration, which is no test time.
    assert [e.tag for e in cases["passes"]] == ["system-out"]
    assert "agent duration: 1.200 s" in cases["passes"].find("system-out").text
    assert cases["passes"].get("time") != "1.200"
    failure = cases["fails"].find("failure")
    assert failure is not None and failure.get("message") == "1 check failed: keyword-coverage"
    assert (
        "keyword-coverage: the answer does not mention: slow query / 慢查询, missing index"
        " (0 of 2 root_cause_keywords entries found, 2 required) (read from $.finalAnswer)"
    ) in failure.text
    assert "fixtures/fails.json" in failure.text
    assert cases["repeated [run-2.json]"].find("failure") is not None
    assert cases["repeated [run-1.json]"].find("failure") is None
    assert "verdict-allowed" in cases["repeated [run-2.json]"].find("failure").text
    assert cases["missing"].find("error").get("type") == "not_run"
    assert "no trace fixture" in cases["missing"].find("error").get("message")
    assert "invalid JSON" in cases["broken"].find("error").get("message")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("7", "2", "2")


def test_junit_carries_unmatched_traces_and_survives_control_characters(ws: Workspace) -> None:
    ws.case()
    export = ws.root / "export.jsonl"
    bad_id = "weird\u0001\u001b[31mid"
    lines = [good_trace(), good_trace(bad_id)]
    export.write_text("\n".join(json.dumps(t) for t in lines), "utf-8")
    assert ws.run("--fixtures", str(export), "--format", "junit,json").code == 1
    assert ws.report()["unmatched_traces"], "the second line matches no case"
    raw = (ws.out / "report.junit.xml").read_bytes()
    assert b"\x01" not in raw and b"\x1b" not in raw
    tree = _junit(ws)  # well-formed despite the control characters in the trace
    _assert_valid(tree)
    unmatched = [tc for tc in tree.iter("testcase") if tc.get("classname") == "unmatched-traces"]
    assert len(unmatched) == 1
    error = unmatched[0].find("error")
    assert "weird\\x01\\x1b[31mid" in error.get("message")
    assert tree.getroot().find("testsuite").get("errors") == "1"


# --------------------------------------------------------------------------------------------
# HTML


def _page(ws: Workspace) -> lxml_html.HtmlElement:
    return lxml_html.fromstring((ws.out / "report.html").read_bytes())


def test_html_is_one_self_contained_page_with_tables_and_a_chart(ws: Workspace) -> None:
    _mixed_suite(ws)
    ws.case(dict(GOOD_CASE, id="hostile"))
    ws.trace(
        "hostile",
        set_verdict(good_trace("hostile"), '<script>alert(1)</script><img src="http://x/y.png">'),
    )
    assert ws.run("--format", "json,html").code == 1
    page = _page(ws)
    # The one <script> element is the page's data (application/json: never run).
    assert page.xpath("//script[not(@type='application/json')]") == []
    assert page.xpath("//img") == []
    assert page.xpath("//link") == [] and page.xpath("//iframe") == []
    for element in page.iter():
        for name, value in element.attrib.items():
            if name in ("src", "href", "srcset", "action", "data"):
                assert not re.match(r"\s*(https?:|//|file:)", value), (name, value)
    text = (ws.out / "report.html").read_text("utf-8")
    assert "@import" not in text and "url(" not in text
    csp = page.xpath("//meta[@http-equiv='Content-Security-Policy']/@content")
    assert csp and "default-src 'none'" in csp[0]
    row = lxml_html.fragment_fromstring(tree_html(data_case(page, "hostile")[8]))
    assert "<script>alert(1)</script>" in row.text_content(), "trace text shown as text"
    headers = [th.text_content() for th in page.xpath("//table//th")]
    # The failures by check open the page; the summary table follows the cases.
    assert headers[:3] == ["Check", "Failing cases", "Most common message"]
    metric = headers.index("Metric")
    assert metric > headers.index("Case") and headers[metric + 1] == "Value"
    rank = {"error": 0, "fail": 1, "not_run": 2, "pass": 3}
    statuses = {c["case_id"]: c["status"] for c in ws.report()["cases"]}
    assert [c[0] for c in page_data(page)["cases"]] == sorted(
        sorted(statuses), key=lambda i: rank[statuses[i]]
    ), "failures first"
    svg = page.xpath("//*[local-name()='svg']")
    assert len(svg) == 1
    labels = [
        t.text_content() for t in svg[0].xpath(".//*[local-name()='g']/*[local-name()='title']")
    ]
    summary = ws.report()["summary"]
    tiles = [li.text_content() for li in page.xpath("//ul[@class='tiles']/li")]
    assert f"{summary['passed']}passed" in tiles and f"{summary['failed']}failed" in tiles
    assert f"{summary['not_run']}not run" in tiles and f"{summary['errored']}errors" in tiles
    for verdict, count in summary["verdict_distribution"].items():
        assert f"{verdict}: {count}" in labels
    widths = {
        g.xpath("./*[local-name()='title']")[0].text_content(): float(
            g.xpath("./*[local-name()='rect']")[0].get("width")
        )
        for g in svg[0].xpath(".//*[local-name()='g']")
    }
    # Bar length is proportional to the count (the counts by status are the tiles').
    assert summary["verdict_distribution"]["PASS"] == 4
    assert widths["PASS: 4"] == 300 and widths["REVISE: 1"] == pytest.approx(75)


@pytest.mark.slow  # a browser
@pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is not installed (Debian package 'chromium'); .ci/run installs it",
)
def test_html_loads_in_headless_chromium(ws: Workspace, tmp_path: Path) -> None:
    _mixed_suite(ws)
    assert ws.run("--format", "html").code == 1
    page = ws.out / "report.html"
    profile = tmp_path / "chromium-profile"
    command = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        # Any network request would fail: the page must render without one.
        "--host-resolver-rules=MAP * ~NOTFOUND",
        f"--user-data-dir={profile}",
        "--dump-dom",
        page.resolve().as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-2000:]
    dom = lxml_html.fromstring(done.stdout)
    assert dom.xpath("//title")[0].text_content() == "Trace validation report"
    assert len(dom.xpath("//table")) >= 3
    assert dom.xpath("//*[local-name()='svg']//*[local-name()='rect']")
    assert "repeated" in dom.text_content()


# --------------------------------------------------------------------------------------------
# GITHUB_STEP_SUMMARY


def test_github_step_summary_gets_the_markdown_report_appended(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws.case()
    ws.trace("db-slow", _failing())
    summary = ws.root / "step-summary.md"
    summary.write_text("## Earlier step\n", "utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert ws.run("--format", "json").code == 1, "appended even when md is not a --format"
    text = summary.read_text("utf-8")
    assert text.startswith("## Earlier step\n\n# Trace validation report")
    assert "| db-slow | ❌ fail |" in text
    shutil.rmtree(ws.out)
    assert ws.run("--format", "md").code == 1
    assert summary.read_text("utf-8").endswith((ws.out / "report.md").read_text("utf-8"))


def test_no_step_summary_without_the_variable(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    assert ws.run().code == 0
    assert not list(ws.root.glob("*summary*"))


def test_an_unwritable_step_summary_warns_without_changing_the_exit_code(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(ws.root / "no-such-dir" / "summary.md"))
    result = ws.run()
    assert result.code == 0
    assert "warning: cannot append the report to GITHUB_STEP_SUMMARY" in result.err
    assert (ws.out / "report.json").exists()


# --------------------------------------------------------------------------------------------
# Determinism and atomic writing


def test_same_inputs_give_the_same_bytes_in_every_format(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    _mixed_suite(ws)
    base = ws.root / "base"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    ws.run()
    base.mkdir()
    shutil.copy(ws.out / "report.json", base / "report.json")
    formats = ("--format", "json,md,junit,html", "--baseline", str(base))
    ws.run(*formats)
    first = {p.name: p.read_bytes() for p in ws.out.iterdir()}
    shutil.rmtree(ws.out)
    ws.run(*formats, "--jobs", "3")
    second = {p.name: p.read_bytes() for p in ws.out.iterdir()}
    assert set(first) == {"report.json", "report.md", "report.junit.xml", "report.html"}
    assert first == second
    assert json.loads(first["report.json"])["generated_at"] == "2023-11-14T22:13:20Z"
    assert b'timestamp="2023-11-14T22:13:20"' in first["report.junit.xml"]


def test_no_temporary_files_are_left_behind(ws: Workspace) -> None:
    _mixed_suite(ws)
    ws.run("--format", "json,md,junit,html")
    assert not [p for p in ws.out.iterdir() if p.name.startswith(".")]
