"""Benchmark: the size of report.html and how fast headless Chromium shows it.

    python bench/report_html.py                 # 2,000 cases, one trace each (bench/corpus.py), 5 loads
    python bench/report_html.py --n 5000 --repeat 3
    python bench/report_html.py --keep DIR      # also leave the corpus and the reports in DIR
    python bench/report_html.py --n 60 --screenshot docs/report-html.png   # the picture in docs/REPORT-HTML.md

It writes a deterministic corpus (the `cases` shape of bench/corpus.py: ~20 KB traces, about
one in six failing), runs `python -m validator run --format json,html` on it (and, for the
cost of the page, `--format json` alone), then loads report.html from disk in headless
Chromium (Debian's chromium and chromium-driver, through Selenium) and prints, as medians:

  first paint     the browser's first-contentful-paint entry (ms after navigation start)
  DOM ready       domContentLoadedEventEnd: the whole file parsed
  script done     loadEventEnd: the page's script is its load handler, so it has run
  script          loadEventEnd - loadEventStart: the script's own time
  filter          applying #status=fail&sort=-duration to the loaded page (ms, in the page)

The targets: under 10 MB and a first paint under 2 s for 2,000 cases with one run each.
This is a script, not a test: its figures depend on the machine.

`--screenshot PATH` also saves the page opened at its first case that failed a keyword
check (`#case=<id>`, its last tool call expanded): docs/report-html.png is made this way.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from corpus import write_corpus  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
MB = 1_000_000


def run_validator(cases: Path, fixtures: Path, out: Path, formats: str) -> float:
    command = [sys.executable, "-m", "validator", "run", "--cases", str(cases)]
    command += ["--fixtures", str(fixtures), "--out", str(out), "--format", formats, "--quiet"]
    # From the corpus' folder, so the page names traces as a CI run would (corpus/...).
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    start = time.perf_counter()
    done = subprocess.run(
        command, cwd=out.parent, env=env, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"validator failed ({done.returncode}):\n{done.stderr}")
    return elapsed


def browser(height: int = 900):  # type: ignore[no-untyped-def]
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size=1280,{height}"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


TIMINGS = """
const nav = performance.getEntriesByType('navigation')[0];
const paint = performance.getEntriesByName('first-contentful-paint')[0];
return [paint ? paint.startTime : null, nav.domContentLoadedEventEnd, nav.loadEventEnd,
        nav.loadEventEnd - nav.loadEventStart];
"""

FILTER = """
const start = performance.now();
history.replaceState(null, '', '#status=fail&sort=-duration');
window.dispatchEvent(new HashChangeEvent('hashchange'));
const shown = Array.from(document.querySelectorAll('#case-table tbody tr')).filter(r => !r.hidden).length;
return [performance.now() - start, shown];
"""


def _first_failure(report: Path) -> str:
    """A case that failed a keyword check, with an English answer (answers in Chinese need a
    CJK font, e.g. Debian's fonts-wqy-zenhei): a forbidden keyword shows both kinds of mark."""
    cases = [c for c in json.loads(report.read_text("utf-8"))["cases"] if "zh" not in c["tags"]]
    for wanted in ("forbidden-keywords", "keyword-coverage"):
        for case in cases:
            if any(f["check"] == wanted for f in case["failed_checks"]):
                return str(case["case_id"])
    return str(next(c["case_id"] for c in cases if c["status"] != "pass"))


def screenshot(page: Path, case_id: str, target: Path) -> None:
    driver = browser(1900)
    try:
        driver.get(page.as_uri() + "#case=" + quote(case_id, safe=""))
        while driver.execute_script("return document.documentElement.dataset.ready") != "yes":
            time.sleep(0.01)
        driver.execute_script(
            "const d = document.getElementById(arguments[0]);"
            "const calls = d.querySelectorAll('ol.lane li.x details');"
            "if (calls.length) calls[calls.length - 1].open = true;"
            "d.scrollIntoView({block: 'start'}); window.scrollBy(0, -8);",
            f"case={case_id}",
        )
        time.sleep(0.2)
        target.parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(target))
    finally:
        driver.quit()


def measure(page: Path, repeat: int) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {k: [] for k in ("paint", "dom", "done", "script", "filter")}
    driver = browser()
    try:
        for _ in range(repeat):
            driver.get("about:blank")
            driver.get(page.as_uri())  # returns once the load event has fired
            while driver.execute_script("return document.documentElement.dataset.ready") != "yes":
                time.sleep(0.005)
            for key, value in zip(
                ("paint", "dom", "done", "script"), driver.execute_script(TIMINGS), strict=True
            ):
                figures[key].append(value)
            took, _ = driver.execute_script(FILTER)
            figures["filter"].append(took)
    finally:
        driver.quit()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="cases (one trace each)")
    parser.add_argument("--repeat", type=int, default=5, help="page loads to take the median of")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="write the corpus and reports here")
    parser.add_argument("--screenshot", type=Path, help="save a failing case's panel as PNG")
    args = parser.parse_args()
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        raise SystemExit("needs /usr/bin/chromium and /usr/bin/chromedriver (Debian packages)")
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-html-"))
    try:
        cases, fixtures, traces = write_corpus(work / "corpus", "cases", args.n, args.seed)
        json_only = run_validator(cases, fixtures, work / "json", "json")
        with_html = run_validator(cases, fixtures, work / "html", "json,html")
        page = work / "html" / "report.html"
        size = page.stat().st_size
        figures = measure(page, args.repeat)
        if args.screenshot:
            screenshot(page, _first_failure(work / "html" / "report.json"), args.screenshot)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    median = {k: statistics.median(v) for k, v in figures.items()}
    print(f"report.html for {args.n:,} cases ({traces:,} traces), medians of {args.repeat} loads")
    print(f"  size           {size / MB:8.2f} MB   (target: under 10 MB)")
    print(f"  first paint    {median['paint']:8.0f} ms   (target: under 2,000 ms)")
    print(f"  DOM ready      {median['dom']:8.0f} ms")
    print(
        f"  script done    {median['done']:8.0f} ms   (the script took {median['script']:.0f} ms of it)"
    )
    print(f"  filter + sort  {median['filter']:8.1f} ms")
    print(f"  validator run  {json_only:8.2f} s json, {with_html:.2f} s json+html")
    ok = size < 10 * MB and median["paint"] < 2000
    print("  within targets" if ok else "  OVER TARGET")


if __name__ == "__main__":
    main()
