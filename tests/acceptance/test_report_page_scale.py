"""report.html at scale and for assistive technology, in headless Chromium.

- A 3,000-case report (bench/page.py's synthetic one: about one case in ten failing, with
  answers, tool calls and model calls) is at most 3 MB and has fewer than 5,000 elements
  once its script has run (the table is virtualized, panels are built when opened).
- axe-core finds no violation on that page, on the shipped example's page and on every
  examples/ suite's page, each opened on a failing case (so a built panel is examined too).

No figure here is a time: bench/page.py measures load and search (bench/RESULTS.md).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote

import pytest
import yaml
from conftest import REPO
from html_pages import page_data
from lxml import html as lxml_html

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

pytestmark = [
    pytest.mark.slow,  # a real browser, and 3,000 cases
    pytest.mark.skipif(
        not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
        reason="needs /usr/bin/chromium and /usr/bin/chromedriver (Debian packages 'chromium' and"
        " 'chromium-driver'); .ci/run installs them",
    ),
]
pytest.importorskip("selenium.webdriver", reason="selenium is in the test extra")


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_page", REPO / "bench" / "page.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = _bench()
AXE = BENCH.axe_source()
NO_AXE = "axe-core is not installed: set AXE_CORE to axe.min.js (.ci/run installs it)"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = BENCH.browser(1400, 1000)
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def big_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("page-scale")
    page: Path = BENCH.write_page(BENCH.synthetic_report(3000), folder / "report.html")
    return page


def _first_failing(page: Path) -> str:
    """The fragment that opens the page's first failing case (the report's JSON next to it,
    or the page's own data)."""
    report = page.with_name("report.json")
    if report.is_file():
        cases = json.loads(report.read_text("utf-8"))["cases"]
        failing = [c["case_id"] for c in cases if c["status"] == "fail"]
        return "#case=" + quote(failing[0], safe="") if failing else ""
    return ""


def _violations(browser: Any, page: Path, fragment: str) -> list[dict[str, Any]]:
    BENCH.open_page(browser, page, fragment)
    found: list[dict[str, Any]] = BENCH.axe_violations(browser, AXE)
    return found


def test_a_3000_case_page_is_small_and_light(browser: Any, big_page: Path) -> None:
    assert big_page.stat().st_size <= 3_000_000
    BENCH.open_page(browser, big_page)
    counts = browser.execute_script(
        "return [document.getElementsByTagName('*').length,"
        " document.querySelectorAll('#case-table tbody tr:not(.pad)').length,"
        " document.getElementById('shown').textContent];"
    )
    elements, rows, shown = counts
    assert elements < 5000 and 0 < rows < 100
    assert shown == "All 3000 cases are shown."
    # Scrolling the table draws the rows that come into view, and only those.
    first, last, drawn = browser.execute_script(
        "const ids = () => Array.from(document.querySelectorAll("
        "'#case-table tbody tr:not(.pad)'), (tr) => tr.cells[0].textContent);"
        "const before = ids(); const box = document.getElementById('case-box');"
        "box.scrollTop = box.scrollHeight; box.dispatchEvent(new Event('scroll'));"
        "const after = ids(); return [before[0], after[after.length - 1], after.length];"
    )
    data = page_data(lxml_html.fromstring(big_page.read_bytes()))
    assert (first, last) == (data["cases"][0][0], data["cases"][-1][0]) and drawn < 100
    # A search over the answers narrows the table, and few matches get their panels.
    search = browser.find_element("css selector", "#filters input[type=search]")
    search.send_keys("restart mysql")
    matched = browser.execute_script("return document.getElementById('shown').textContent")
    assert matched.endswith("of 3000 cases match the filters."), matched
    search.send_keys("", "\b" * 13, "mysql-slow-query-0000")
    deadline = time.monotonic() + 10
    while (
        browser.execute_script("return document.querySelectorAll('#panels details.case').length")
        == 0
    ):
        assert time.monotonic() < deadline, "the few matches' panels were not built"
        time.sleep(0.05)


@pytest.mark.skipif(AXE is None, reason=NO_AXE)
def test_axe_finds_no_violation_on_a_3000_case_page(browser: Any, big_page: Path) -> None:
    assert _violations(browser, big_page, "") == []
    assert _violations(browser, big_page, "#status=fail&case=redis-eviction-00001") == []


def _example_pages(tmp: Path) -> Iterator[tuple[str, Path]]:
    """(name, report.html) for the shipped example and every examples/ suite whose data set
    is in TRACE_DATA (read in place, as tests/acceptance/test_examples.py does)."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    folders: list[tuple[str, Path, list[str]]] = [("shipped", REPO, [])]
    data = os.environ.get("TRACE_DATA")
    for example in sorted((REPO / "examples").iterdir()) if data else []:
        config = example / "validator.yaml"
        if not config.is_file():
            continue
        fixtures = yaml.safe_load(config.read_text("utf-8"))["fixtures"]
        data_set = Path(str(data)) / Path(fixtures).name
        if data_set.is_dir():
            folders.append((example.name, example, ["--fixtures", str(data_set)]))
    for name, folder, more in folders:
        out = tmp / name
        command = [sys.executable, "-m", "validator", "run", "--format", "json,html", *more]
        done = subprocess.run(
            [*command, "--out", str(out), "-q"], cwd=folder, env=env, capture_output=True, text=True
        )
        assert done.returncode in (0, 1), (name, done.stderr)
        yield name, out / "report.html"


@pytest.mark.skipif(AXE is None, reason=NO_AXE)
def test_axe_finds_no_violation_on_the_example_pages(browser: Any, tmp_path: Path) -> None:
    found = {}
    names = []
    for name, page in _example_pages(tmp_path):
        names.append(name)
        violations = _violations(browser, page, _first_failing(page))
        if violations:
            found[name] = violations
    assert "shipped" in names
    if os.environ.get("TRACE_DATA"):
        assert "tau2-bench" in names
    assert found == {}
