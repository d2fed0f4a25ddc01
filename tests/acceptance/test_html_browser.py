"""report.html in a real browser: Debian's chromium and chromium-driver, driven by Selenium.

The page is loaded from disk, with no network (every host name resolves to nothing), in one
browser session for the whole module. Each test checks what a reviewer does: filter, sort,
search, open a case, switch runs, follow a shared link (the URL fragment), and that hostile
text in every field runs nothing and shows as written.
"""

from __future__ import annotations

import base64
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from conftest import GOOD_CASE, Workspace, good_trace
from html_pages import SHOWN, mixed_suite, with_baseline, write_hostile_page

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

pytestmark = [
    pytest.mark.slow,  # a real browser
    pytest.mark.skipif(
        not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
        reason="needs /usr/bin/chromium and /usr/bin/chromedriver (Debian packages 'chromium' and"
        " 'chromium-driver'); .ci/run installs them",
    ),
]
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is in the test extra")


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("html-browser")
    ws = Workspace(root)
    mixed_suite(ws)
    with_baseline(ws)
    assert ws.run("--format", "json,html", "--baseline", str(root / "base")).code == 1
    (root / "single").mkdir()
    single = Workspace(root / "single")
    single.case(dict(GOOD_CASE, id="only"))
    single.trace("only", good_trace("only"))
    assert single.run("--format", "html").code == 0
    return {
        "mixed": ws.out / "report.html",
        "hostile": write_hostile_page(root),
        "single": single.out / "report.html",
    }


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--window-size=1280,1000",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--host-resolver-rules=MAP * ~NOTFOUND",  # any fetch would fail: the page needs none
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def _open(browser: Any, page: Path, fragment: str = "") -> None:
    browser.get("about:blank")  # a new document even when only the fragment differs
    browser.get(page.as_uri() + fragment)
    deadline = time.monotonic() + 10
    while browser.execute_script("return document.documentElement.dataset.ready") != "yes":
        assert time.monotonic() < deadline, "the page's script did not finish"
        time.sleep(0.02)


def _wait_for(condition: Any, what: str, seconds: float = 5) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def _severe(browser: Any) -> list[str]:
    return [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def _visible(browser: Any) -> list[str]:
    return browser.execute_script(
        "return Array.from(document.querySelectorAll('#case-table tbody tr:not(.pad)'))"
        ".filter((tr) => !tr.hidden).map((tr) => tr.cells[0].textContent);"
    )


def _fragment(browser: Any) -> dict[str, str]:
    raw = browser.execute_script("return location.hash.slice(1)")
    pairs = browser.execute_script(
        "return Array.from(new URLSearchParams(arguments[0]).entries());", raw
    )
    return dict(pairs)


def _select(browser: Any, name: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("css selector", f"#filters [name={name}]")).select_by_value(value)


def _header(browser: Any, key: str) -> Any:
    return browser.find_element("css selector", f"#case-table th[data-key={key}]")


def _panel(browser: Any, case_id: str) -> Any:
    return browser.execute_script(
        "return document.getElementById(arguments[0]);", f"case={case_id}"
    )


def test_the_page_runs_its_script_without_console_errors(
    browser: Any, pages: dict[str, Path]
) -> None:
    _open(browser, pages["mixed"])
    assert _severe(browser) == []
    scripts = browser.execute_script("return Array.from(document.scripts, (s) => s.type)")
    assert scripts == ["application/json"], "the one <script> element is the data"
    assert browser.find_element("id", "filters").is_displayed()
    assert browser.find_element("id", "shown").text == "All 6 cases are shown."
    tags = browser.execute_script(
        "return Array.from(document.querySelector('[name=tag]').options, (o) => o.text);"
    )
    assert tags == ["all", "latency (1)", "mysql (3)", "redis (2)", "zh (1)"]


def test_a_page_of_one_case_says_so_in_the_singular(browser: Any, pages: dict[str, Path]) -> None:
    _open(browser, pages["single"])
    assert browser.find_element("id", "shown").text == "The one case is shown."
    assert _severe(browser) == []


def test_a_filter_and_a_sort_change_the_rows_and_the_link(
    browser: Any, pages: dict[str, Path]
) -> None:
    _open(browser, pages["mixed"])
    _select(browser, "status", "fail")
    assert _visible(browser) == ["fails", "mysql-slow", "repeated"]
    assert _fragment(browser) == {"status": "fail"}
    _header(browser, "duration").click()
    assert _visible(browser) == ["fails", "repeated", "mysql-slow"], "1,000, 1,200, 9,000 ms"
    assert _header(browser, "duration").get_attribute("aria-sort") == "ascending"
    _header(browser, "duration").click()
    assert _visible(browser) == ["mysql-slow", "repeated", "fails"]
    assert _fragment(browser) == {"status": "fail", "sort": "-duration"}
    _select(browser, "check", "verdict-allowed")
    assert _visible(browser) == ["mysql-slow", "repeated"], "failed in one run of repeated"
    browser.find_element("css selector", "#filters button.clear").click()
    assert len(_visible(browser)) == 6 and _fragment(browser) == {"sort": "-duration"}
    assert _severe(browser) == []


def test_searching_by_case_id(browser: Any, pages: dict[str, Path]) -> None:
    _open(browser, pages["mixed"])
    search = browser.find_element("css selector", "#filters input[type=search]")
    search.send_keys("MYSQL-S")
    assert _visible(browser) == ["mysql-slow"], "case-insensitive part of an id"
    _wait_for(lambda: _fragment(browser) == {"q": "MYSQL-S"}, "the URL follows once typing pauses")
    assert browser.find_element("id", "shown").text == "1 of 6 cases match the filters."
    assert _panel(browser, "fails") is None, "panels follow the filters"
    assert _panel(browser, "mysql-slow").is_displayed(), "a few matches: their panels are built"


def test_a_shared_link_applies_its_filters_and_sort(browser: Any, pages: dict[str, Path]) -> None:
    _open(browser, pages["mixed"], "#status=fail&tag=mysql&q=sql-sl&sort=-duration")
    assert _visible(browser) == ["mysql-slow"]
    values = browser.execute_script(
        "return ['status', 'tag', 'q'].map((n) => document.querySelector('#filters [name=' + n + ']').value);"
    )
    assert values == ["fail", "mysql", "sql-sl"]
    assert _header(browser, "duration").get_attribute("aria-sort") == "descending"
    _open(browser, pages["mixed"], "#tag=mysql&sort=-duration")
    assert _visible(browser) == ["mysql-slow", "fails", "missing"], "unknown durations last"
    _open(browser, pages["mixed"], "#change=regressed")
    assert _visible(browser) == ["fails"]
    # Editing the fragment in place (a pasted link) applies it too.
    browser.execute_script("location.hash = 'tag=redis&sort=case'")
    time.sleep(0.1)
    assert _visible(browser) == ["passes", "repeated"]
    assert _severe(browser) == []


def test_opening_a_case_shows_its_highlights_and_its_timeline(
    browser: Any, pages: dict[str, Path]
) -> None:
    _open(browser, pages["mixed"], "#status=pass")
    assert _panel(browser, "passes") is None, "a panel is built when it is opened"
    browser.find_element("link text", "passes").click()
    panel = _panel(browser, "passes")
    assert panel.get_attribute("open") is not None
    assert _fragment(browser) == {"status": "pass", "case": "passes"}, "the filters stay"
    assert browser.execute_script("return arguments[0].getBoundingClientRect().top", panel) < 50
    # The answer is shown rendered; its source, with the keywords marked, is a toggle away.
    source = panel.find_element("css selector", "details.src")
    assert panel.find_element("css selector", "div.md").is_displayed()
    assert source.get_attribute("open") is None
    source.find_element("tag name", "summary").click()
    answer = panel.find_element("css selector", "div.answer")
    assert [m.text for m in answer.find_elements("css selector", "mark.hit")] == [
        "slow query",
        "missing index",
    ]
    # A failing case's timeline: 100 ms and 300 ms of a 1 s run, end to end on one axis.
    _open(browser, pages["mixed"], "#case=fails")
    fails = _panel(browser, "fails")
    bars = browser.execute_script(
        "return Array.from(arguments[0].querySelectorAll('ol.lane .tk > span'), (b) => {"
        " const r = b.getBoundingClientRect(), t = b.parentElement.getBoundingClientRect();"
        " return [r.left - t.left, r.width, t.width]; });",
        fails,
    )
    (left1, width1, track), (left2, width2, _) = bars
    assert left1 == pytest.approx(0, abs=1) and width1 == pytest.approx(track * 0.1, abs=1)
    assert left2 == pytest.approx(width1, abs=1) and width2 == pytest.approx(track * 0.3, abs=1)
    call = fails.find_element("css selector", "ol.lane li.x summary")
    result = fails.find_element("css selector", "ol.lane li.x .io pre:last-of-type")
    assert not result.is_displayed()
    call.click()
    assert result.is_displayed() and result.text.startswith("slow log")
    fails.find_element("css selector", "details.src > summary").click()
    assert [m.text for m in fails.find_elements("css selector", "div.answer mark")] == [
        "SLOW query",
        "missing index",
        "drop table",
    ]
    assert _severe(browser) == []


def test_switching_between_the_runs_of_a_case(browser: Any, pages: dict[str, Path]) -> None:
    _open(browser, pages["mixed"], "#case=repeated")
    panel = _panel(browser, "repeated")

    def shown() -> list[str]:
        sections = _panel(browser, "repeated").find_elements("css selector", "section.run")
        return [s.get_attribute("data-run") for s in sections if s.is_displayed()]

    assert shown() == ["2"], "it opens on the run the row describes: the failing one"
    cells = panel.find_elements("css selector", "ol.grid a.cell")
    assert [c.get_attribute("class") for c in cells] == ["cell pass", "cell fail on", "cell pass"]
    cells[2].click()
    assert shown() == ["3"]
    assert _fragment(browser) == {"case": "repeated", "run": "3"}
    assert "cell pass on" in cells[2].get_attribute("class")
    _open(browser, pages["mixed"], "#case=repeated&run=1")
    assert shown() == ["1"], "a shared link opens its run"
    assert browser.execute_script("return history.length") >= 1
    assert _severe(browser) == []


def test_hostile_text_runs_nothing_and_shows_as_written(
    browser: Any, pages: dict[str, Path]
) -> None:
    from selenium.common.exceptions import NoAlertPresentException

    _open(browser, pages["hostile"])
    assert _severe(browser) == [], "a refused inline script or handler would be logged"
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018 - reading it is the check
    assert browser.execute_script("return window.__pwned") is None
    counts = browser.execute_script(
        "return [document.querySelectorAll('script:not([type=\\u0027application/json\\u0027])').length, document.images.length,"
        " document.querySelectorAll('iframe, object, embed, [onerror], [onmouseover]').length,"
        " Array.from(document.links).map((a) => a.getAttribute('href')).filter((h) =>"
        " !h.startsWith('#case=') && !h.startsWith('#check=') && h !== '#cases' && h !== '#details').length];"
    )
    assert counts == [0, 0, 0, 0]
    first = browser.find_element("css selector", "#case-table tbody tr td a")
    assert first.get_attribute("textContent") == SHOWN
    tags = browser.execute_script(
        "return Array.from(document.querySelector('[name=tag]').options, (o) => o.text);"
    )
    assert SHOWN + " (2)" in tags
    first.click()  # the case link, with every hostile character in its id
    panel = _panel(browser, SHOWN)
    assert panel.get_attribute("open") is not None and _fragment(browser) == {"case": SHOWN}
    _open(browser, pages["hostile"], "#case=" + quote(SHOWN, safe="") + "&run=2")
    sections = _panel(browser, SHOWN).find_elements("css selector", "section.run")
    assert [s.is_displayed() for s in sections] == [False, True]
    assert browser.execute_script("return window.__pwned") is None
    assert _severe(browser) == []


def test_a_phone_scrolls_no_page_sideways_and_print_expands_every_failure(
    browser: Any, pages: dict[str, Path]
) -> None:
    size = browser.get_window_size()
    try:
        browser.set_window_size(390, 844)
        _open(browser, pages["mixed"], "#case=fails")
        inner = browser.execute_script("return window.innerWidth")
        assert inner <= 390
        width = browser.execute_script("return document.scrollingElement.scrollWidth")
        assert width <= 390, "tables scroll in their own box, not the page"
    finally:
        browser.set_window_size(size["width"], size["height"])
    # Print: the controls hidden, every case that did not pass open with its calls expanded.
    _open(browser, pages["mixed"], "#status=pass")
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        browser.execute_script("window.dispatchEvent(new Event('beforeprint'))")
        assert not browser.find_element("css selector", "#filters").is_displayed()
        fails = _panel(browser, "fails")
        assert fails.get_attribute("open") is not None and fails.is_displayed()
        result = fails.find_element("css selector", "ol.lane li.x .io pre:last-of-type")
        assert result.is_displayed() and result.text.startswith("slow log")
        assert _panel(browser, "passes") is None, "passing cases are not printed"
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    assert _severe(browser) == []


def test_a_failures_by_check_row_filters_the_cases(browser: Any, pages: dict[str, Path]) -> None:
    _open(browser, pages["mixed"])
    link = browser.find_element("css selector", "#by-check tbody tr td a")
    check = link.text
    link.click()
    deadline = time.monotonic() + 5
    while _fragment(browser).get("check") != check:
        assert time.monotonic() < deadline, "the row did not filter"
        time.sleep(0.02)
    shown = _visible(browser)
    assert shown and browser.find_element("id", "shown").text.endswith(
        "of 6 cases match the filters."
    )
    browser.execute_script("location.hash = '#cases'")  # the skip link keeps the filters
    time.sleep(0.1)
    assert _visible(browser) == shown
    assert _severe(browser) == []


def test_j_and_k_walk_the_failing_cases_and_a_skip_link_passes_the_table(
    browser: Any, pages: dict[str, Path]
) -> None:
    from selenium.webdriver.common.keys import Keys

    _open(browser, pages["mixed"])
    body = browser.find_element("tag name", "body")
    opened = []
    for key in "jjjjjkk":
        body.send_keys(key)
        case = _fragment(browser).get("case", "")
        opened.append(case)
        assert _panel(browser, case).get_attribute("open") is not None
    # Errors and failures in the table's order (failures first); `missing` was not run.
    assert opened == [
        "broken",
        "fails",
        "mysql-slow",
        "repeated",
        "repeated",
        "mysql-slow",
        "fails",
    ]
    assert _panel(browser, "fails").is_displayed()
    row = browser.execute_script(
        "return document.querySelector('#case-table tr.on td').textContent"
    )
    assert row == "fails", "the opened case's row is marked"
    # Typing j in the search box searches; it does not move.
    search = browser.find_element("css selector", "#filters input[type=search]")
    search.send_keys("j", Keys.BACK_SPACE)
    assert _fragment(browser).get("case") == "fails"
    skips = browser.execute_script(
        "return Array.from(document.querySelectorAll('p.skip a'), (a) => a.getAttribute('href'));"
    )
    assert skips == ["#cases", "#details"]
    position = browser.execute_script(
        "const a = document.querySelector('a[href=\\u0027#details\\u0027]');"
        "return a.compareDocumentPosition(document.getElementById('case-table'));"
    )
    assert position & 4, "the skip link comes before the table (DOCUMENT_POSITION_FOLLOWING)"
    assert _severe(browser) == []


@pytest.mark.skipif(
    shutil.which("pdftotext") is None,
    reason="needs pdftotext (Debian package 'poppler-utils'); .ci/run installs it",
)
def test_the_printed_page_holds_every_failing_case_expanded(
    browser: Any, pages: dict[str, Path], tmp_path: Path
) -> None:
    _open(browser, pages["mixed"], "#status=pass")  # what is filtered out is printed too
    pdf = browser.execute_cdp_cmd("Page.printToPDF", {"printBackground": False})
    target = tmp_path / "report.pdf"
    target.write_bytes(base64.b64decode(pdf["data"]))
    done = subprocess.run(
        ["pdftotext", "-layout", str(target), "-"], capture_output=True, text=True, check=True
    )
    text = " ".join(done.stdout.split())
    packed = "".join(text.split())  # the PDF's text breaks lines and spaces marks its own way
    answer = "The **SLOW query** is caused by a missing index; drop table orders."
    assert "".join(answer.split()) in packed, "a failing case's answer"
    assert '{"q":"mysql_slow_log"}' in packed, "a failing run's tool arguments"
    assert "Failures by check" in text and "Clear filters" not in text, "no controls"
    assert "Why is passes slow?" not in text, "passing cases are not printed"
    # Printing is over: the page is back to what it showed.
    assert _panel(browser, "fails") is None or not _panel(browser, "fails").is_displayed()
