"""Benchmark: the size of report.html and how fast headless Chromium shows it.

    python bench/html.py                 # 2,000 cases, one trace each (bench/corpus.py), 5 loads
    python bench/html.py --n 5000 --repeat 3
    python bench/html.py --keep DIR      # also leave the corpus and the reports in DIR

It writes a deterministic corpus (the `cases` shape of bench/corpus.py: ~20 KB traces, about
one in six failing), runs `python -m validator run --format json,html` on it (and, for the
cost of the page, `--format json` alone), then loads report.html from disk in headless
Chromium (Debian's chromium and chromium-driver, through Selenium) and prints, as medians:

  first paint     the browser's first-contentful-paint entry (ms after navigation start)
  DOM ready       domContentLoadedEventEnd: the whole file parsed
  script ready    when the page's script has run (it marks <html data-ready>), load included
  filter          applying #status=fail&sort=-duration to the loaded page (ms, in the page)

The targets: under 10 MB and a first paint under 2 s for 2,000 cases with one run each.
This is a script, not a test: its figures depend on the machine.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"validator failed ({done.returncode}):\n{done.stderr}")
    return elapsed


def browser():  # type: ignore[no-untyped-def]
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


TIMINGS = """
const nav = performance.getEntriesByType('navigation')[0];
const paint = performance.getEntriesByName('first-contentful-paint')[0];
return [paint ? paint.startTime : null, nav.domContentLoadedEventEnd, nav.loadEventEnd];
"""

FILTER = """
const start = performance.now();
history.replaceState(null, '', '#status=fail&sort=-duration');
window.dispatchEvent(new HashChangeEvent('hashchange'));
const shown = Array.from(document.querySelectorAll('#case-table tbody tr')).filter(r => !r.hidden).length;
return [performance.now() - start, shown];
"""


def measure(page: Path, repeat: int) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {"paint": [], "dom": [], "ready": [], "filter": []}
    driver = browser()
    try:
        for _ in range(repeat):
            driver.get("about:blank")
            start = time.perf_counter()
            driver.get(page.as_uri())  # returns once the load event has fired
            while driver.execute_script("return document.documentElement.dataset.ready") != "yes":
                time.sleep(0.005)
            figures["ready"].append((time.perf_counter() - start) * 1000)
            paint, dom, _ = driver.execute_script(TIMINGS)
            figures["paint"].append(paint)
            figures["dom"].append(dom)
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
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    median = {k: statistics.median(v) for k, v in figures.items()}
    print(f"report.html for {args.n:,} cases ({traces:,} traces), medians of {args.repeat} loads")
    print(f"  size           {size / MB:8.2f} MB   (target: under 10 MB)")
    print(f"  first paint    {median['paint']:8.0f} ms   (target: under 2,000 ms)")
    print(f"  DOM ready      {median['dom']:8.0f} ms")
    print(f"  script ready   {median['ready']:8.0f} ms   (load and script, seen from the driver)")
    print(f"  filter + sort  {median['filter']:8.1f} ms")
    print(f"  validator run  {json_only:8.2f} s json, {with_html:.2f} s json+html")
    ok = size < 10 * MB and median["paint"] < 2000
    print("  within targets" if ok else "  OVER TARGET")


if __name__ == "__main__":
    main()
