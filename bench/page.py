"""Benchmark: report.html at 3,000 and 10,000 cases in headless Chromium.

    python bench/page.py                      # 3,000 and 10,000 cases, 3 loads each
    python bench/page.py --n 3000 --repeat 5
    python bench/page.py --keep DIR           # also leave the pages in DIR

It builds synthetic reports (`synthetic_report`: about one case in ten failing, every case
with the ten standard checks, their messages, clauses and details as a real run writes them,
and the extras the page shows: a Markdown answer of about 1,000 characters with keyword
marks, 6 to 14 tool calls with arguments and clipped results, 2 or 3 model calls with their
messages), writes each page with the library (`validator.report.html.chunks`), opens it from
disk in headless Chromium (Debian's chromium and chromium-driver, through Selenium) and prints:

  size            the file, in MB                                (target: 3,000 cases <= 3 MB)
  load            until the page's script has rendered the table (its `report-ready` mark)
  first paint     the first-contentful-paint entry
  DOM nodes       elements in the document after load             (target: < 5,000)
  search          the page's own time per keystroke (filtering, drawing and layout), the
                  median over the keys of three words typed one key at a time (target: < 50 ms)
  axe-core        violations found by axe-core (WCAG 2 A/AA and best practices) on the loaded
                  page, when axe.min.js is found: $AXE_CORE, or .ci/node/node_modules/axe-core
                  (.ci/run installs it); else it says it is skipped  (target: none)

This is a script, not a test: its figures depend on the machine (bench/RESULTS.md has them).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from validator.report.document import Report  # noqa: E402
from validator.report.html import chunks  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
MB = 1_000_000
AXE_PLACES = (REPO / ".ci" / "node" / "node_modules" / "axe-core" / "axe.min.js",)

CHECKS = (
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
)
TOOLS = ("mysql_slow_log", "mysql_explain", "metrics_query", "log_search", "k8s_events")
SCENARIOS = ("mysql-slow-query", "redis-eviction", "k8s-oomkilled", "tls-expired", "dns-failure")
KEYWORDS = ("slow query", "full table scan", "missing index", "customer_ref")
WORDS = ("latency", "index", "query", "orders", "deploy", "p99", "table", "scan", "cache")
FAILURES = {
    "keyword-coverage": "keyword coverage 1/4 = 25.0% < 50.0% (missing: full table scan,"
    " missing index, customer_ref) (read from $.finalAnswer)",
    "evidence-coverage": "missing required tools: mysql_explain (read from"
    " $.toolInvocations[*].toolName)",
    "forbidden-keywords": 'found forbidden keyword "restart mysql" (read from $.finalAnswer)',
    "verdict-allowed": 'found "REVISE", allowed: PASS (read from'
    " $.selfEvaluation.verifier_evaluation.verdict)",
}


def _answer(rng: random.Random) -> tuple[str, list[list[Any]]]:
    lines = ["## Root cause", ""]
    marks: list[list[Any]] = []
    text = "The order API slowed down because "
    for keyword in KEYWORDS[: rng.randint(1, 4)]:
        start = len("\n".join(lines)) + 1 + len(text)
        text += f"**{keyword}**"
        marks.append([start + 2, start + 2 + len(keyword), "hit"])
        text += " " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20))) + ", "
    lines += [text.rstrip(", ") + ".", "", "## Evidence", ""]
    for tool in rng.sample(TOOLS, 3):
        lines.append(f"- `{tool}`: " + " ".join(rng.choice(WORDS) for _ in range(14)))
    lines += ["", "## Fix", "", "1. Add an index on `orders(customer_ref, created_at)`"]
    lines += ["2. Watch p99 of `/api/orders`", "", "```sql", "EXPLAIN SELECT * FROM orders;"]
    lines += ["```", ""]
    return "\n".join(lines), marks


def _calls(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    tools = []
    for _ in range(rng.randint(6, 14)):
        name = rng.choice(TOOLS)
        result = "\n".join(
            f"2026-05-0{rng.randint(1, 9)}T14:0{rng.randint(0, 9)} "
            + " ".join(rng.sample(WORDS, 5))
            for _ in range(12)
        )
        tools.append(
            {
                "name": name,
                "status": "ok" if rng.random() < 0.95 else "error",
                "duration_ms": rng.randint(50, 4000),
                "arguments": f'{{"query": "{rng.choice(WORDS)}", "window": "1h"}}',
                "arguments_length": 40,
                "result": result[:400],
                "result_length": len(result) * 4,
            }
        )
    llms = []
    for n in range(rng.randint(2, 3)):
        messages = [
            {"role": "system", "text": "You diagnose production incidents.", "length": 35},
            {"role": "user", "text": "Why did the order API slow down at 14:00?", "length": 41},
            {
                "role": "assistant",
                "text": " ".join(rng.choice(WORDS) for _ in range(40)),
                "length": 300,
            },
        ]
        llms.append(
            {
                "model": "gpt-4o",
                "input_tokens": rng.randint(1000, 9000),
                "output_tokens": rng.randint(100, 900),
                "total_tokens": None,
                "cost": None,
                "duration_ms": rng.randint(500, 9000),
                **({"messages": messages} if n == 0 else {}),
            }
        )
    return tools, llms


def _check(name: str, failed: bool) -> dict[str, Any]:
    if failed:
        return {"check": name, "status": "fail", "message": FAILURES[name], "severity": "error"}
    if name in ("forbidden-tools", "max-duration-ms", "max-tool-calls", "tool-order"):
        message = f"skipped: the case does not set {name.replace('-', '_')}"
        return {"check": name, "status": "skipped", "message": message, "severity": "error"}
    check = {"check": name, "status": "pass", "message": "all found (read from $.finalAnswer)"}
    if name == "keyword-coverage":
        check["details"] = {"matched": list(KEYWORDS), "missing": [], "required": 2, "total": 4}
    return {**check, "severity": "error"}


def _case(n: int, rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    scenario = SCENARIOS[n % len(SCENARIOS)]
    case_id = f"{scenario}-{n:05d}"
    failing = rng.random() < 0.1
    failed = rng.sample(sorted(FAILURES), rng.randint(1, 2)) if failing else []
    checks = [_check(name, name in failed) for name in CHECKS]
    fixture = f"traces/{case_id}.json"
    tools, llms = _calls(rng)
    answer, marks = _answer(rng)
    row = {
        "case_id": case_id,
        "status": "fail" if failing else "pass",
        "reason": f"{len(failed)} check(s) failed: {', '.join(failed)}" if failing else None,
        "verdict": "REVISE" if "verdict-allowed" in failed else "PASS",
        "failed_checks": [
            {"check": c["check"], "message": c["message"]} for c in checks if c["status"] == "fail"
        ],
        "checks": checks,
        "evidence_coverage": {
            "required": ["mysql_slow_log"],
            "found": ["mysql_slow_log"],
            "missing": [],
            "ratio": 1.0,
        },
        "keyword_coverage": {
            "matched": list(KEYWORDS[:2]),
            "missing": [],
            "required": 2,
            "total": 4,
        },
        "tool_call_count": len(tools),
        "duration_ms": sum(t["duration_ms"] for t in tools),
        "fixture": fixture,
        "notes": [],
        "tags": [scenario.split("-")[0], "bench"],
        "run_pass_rate": 0.0 if failing else 1.0,
        "flaky": False,
        "runs": {"total": 1, "passed": 0 if failing else 1},
    }
    run = {
        "status": row["status"],
        "adapter": "diagnosis",
        "answer": answer,
        "answer_length": len(answer),
        "marks": marks,
        "tool_calls": tools,
        "tool_call_total": len(tools),
        "llm_calls": llms,
        "llm_call_total": len(llms),
        "duration_ms": row["duration_ms"],
        "errors": [],
        "unreadable": None,
    }
    extra = {
        "question": "Why did the order API slow down at 14:00 today?",
        "description": f"Generated benchmark case for the {scenario} scenario.",
        "runs": {fixture: run},
    }
    return row, extra


def synthetic_report(n: int, seed: int = 7) -> Report:
    """A report of `n` cases (about one in ten failing) with the extras the page shows."""
    rng = random.Random(seed)
    rows, extras = [], {}
    for i in range(n):
        row, extra = _case(i, rng)
        rows.append(row)
        extras[row["case_id"]] = extra
    failed = sum(r["status"] == "fail" for r in rows)
    summary = {
        "total": n,
        "passed": n - failed,
        "failed": failed,
        "not_run": 0,
        "errored": 0,
        "pass_rate": (n - failed) / n,
        "verdict_distribution": dict(Counter(str(r["verdict"]) for r in rows)),
        "avg_tool_calls": statistics.mean(r["tool_call_count"] for r in rows),
        "avg_duration_ms": statistics.mean(r["duration_ms"] for r in rows),
        "runs": {"total": n, "evaluated": n, "passed": n - failed},
        "pass_hat_k": None,
        "pass_at_k": None,
        "flaky_cases": 0,
    }
    document = {
        "schema_version": 1,
        "tool": {"name": "trace-validator", "version": "bench"},
        "generated_at": "2026-01-01T00:00:00Z",
        "inputs": {"cases": "cases", "fixtures": "traces"},
        "summary": summary,
        "cases": rows,
        "unmatched_traces": [],
    }
    report = Report.from_dict(document)
    report.extras = extras
    return report


def write_page(report: Report, path: Path) -> Path:
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.writelines(chunks(report))
    return path


def browser(width: int = 1400, height: int = 1000) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        f"--window-size={width},{height}",
        "--host-resolver-rules=MAP * ~NOTFOUND",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


def open_page(driver: Any, page: Path, fragment: str = "") -> None:
    driver.get("about:blank")
    driver.get(page.as_uri() + fragment)
    deadline = time.monotonic() + 120
    while driver.execute_script("return document.documentElement.dataset.ready") != "yes":
        if time.monotonic() > deadline:
            raise SystemExit("the page's script did not finish in 120 s")
        time.sleep(0.01)


TIMINGS = """
const nav = performance.getEntriesByType('navigation')[0];
const paint = performance.getEntriesByName('first-contentful-paint')[0];
const ready = performance.getEntriesByName('report-ready')[0];
return [ready.startTime, paint ? paint.startTime : null,
        document.getElementsByTagName('*').length];
"""

# Types `arguments[0]` into the search box one key at a time; each key's time is the input
# handler's (filter, draw) plus the style and layout it causes (read back at once).
SEARCH = """
const input = document.querySelector('#filters input[name=q]');
const took = [];
for (const word of arguments[0]) {
  input.value = '';
  input.dispatchEvent(new Event('input', {bubbles: true}));
  for (let i = 1; i <= word.length; i += 1) {
    const start = performance.now();
    input.value = word.slice(0, i);
    input.dispatchEvent(new Event('input', {bubbles: true}));
    document.body.getBoundingClientRect();
    void document.getElementById('case-box').scrollHeight;
    took.push(performance.now() - start);
  }
}
input.value = '';
input.dispatchEvent(new Event('input', {bubbles: true}));
return took;
"""
TYPED = ["index", "restart mysql", "k8s-oomkilled-0"]


def axe_source() -> str | None:
    """axe-core's script, if it is installed (never part of the repository)."""
    places = [Path(os.environ["AXE_CORE"])] if os.environ.get("AXE_CORE") else []
    for place in [*places, *AXE_PLACES]:
        if place.is_file():
            return place.read_text("utf-8")
    return None


def axe_violations(driver: Any, source: str) -> list[dict[str, Any]]:
    """axe-core's violations on the page loaded in `driver` (injected through the DevTools
    protocol, which the page's Content Security Policy does not govern)."""
    driver.execute_script(source)
    driver.set_script_timeout(600)
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']})"
        ".then((r) => done(r.violations.map((v) => ({id: v.id, impact: v.impact,"
        " nodes: v.nodes.length, help: v.help}))))"
        ".catch((e) => done([{id: 'axe-error', impact: 'error', nodes: 0, help: String(e)}]));"
    )
    return list(result)


def measure(page: Path, repeat: int, axe: str | None) -> dict[str, Any]:
    figures: dict[str, list[float]] = {"load": [], "paint": [], "nodes": [], "search": []}
    found: list[dict[str, Any]] | None = None
    driver = browser()
    try:
        for _ in range(repeat):
            open_page(driver, page)
            load, paint, nodes = driver.execute_script(TIMINGS)
            figures["load"].append(load)
            figures["paint"].append(paint if paint is not None else float("nan"))
            figures["nodes"].append(nodes)
            figures["search"] += driver.execute_script(SEARCH, TYPED)
        if axe is not None:
            open_page(driver, page)
            found = axe_violations(driver, axe)
    finally:
        driver.quit()
    out: dict[str, Any] = {k: statistics.median(v) for k, v in figures.items()}
    out["search_max"] = max(figures["search"])
    out["keys"] = len(figures["search"])
    out["axe"] = found
    return out


def report_line(n: int, size: int, made: float, m: dict[str, Any]) -> list[str]:
    lines = [
        f"report.html for {n:,} cases: medians of the loads",
        f"  size          {size / MB:8.2f} MB" + ("   (target: <= 3 MB)" if n <= 3000 else ""),
        f"  written in    {made:8.2f} s of CPU (the library's chunks())",
        f"  load          {m['load']:8.0f} ms (until the table is rendered)",
        f"  first paint   {m['paint']:8.0f} ms",
        f"  DOM nodes     {m['nodes']:8.0f}      (target: < 5,000)",
        f"  search        {m['search']:8.1f} ms per keystroke, median of {m['keys']} keys"
        f" (slowest {m['search_max']:.1f} ms; target: < 50 ms)",
    ]
    if m["axe"] is None:
        lines.append("  axe-core      skipped: axe.min.js not found ($AXE_CORE, or .ci/run)")
    else:
        listed = ", ".join(f"{v['id']} ({v['impact']}, {v['nodes']} nodes)" for v in m["axe"])
        lines.append(
            f"  axe-core      {len(m['axe'])} violations" + (f": {listed}" if listed else "")
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, action="append", help="cases (default 3000 and 10000)")
    parser.add_argument("--repeat", type=int, default=3, help="page loads to take the median of")
    parser.add_argument("--keep", type=Path, help="write the pages here")
    args = parser.parse_args()
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        raise SystemExit("needs /usr/bin/chromium and /usr/bin/chromedriver (Debian packages)")
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-page-"))
    work.mkdir(parents=True, exist_ok=True)
    axe = axe_source()
    try:
        for n in args.n or [3000, 10000]:
            report = synthetic_report(n)
            start = time.process_time()
            page = write_page(report, work / f"report-{n}.html")
            made = time.process_time() - start
            figures = measure(page, args.repeat, axe)
            print("\n".join(report_line(n, page.stat().st_size, made, figures)), flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
