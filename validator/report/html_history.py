"""report.html's history across reports (`Report.history`, from `run --history DIR`).

    history = {
        "reports": [{"name": str, "pass_rate": float | None}, ...],  # oldest first, this run last
        "cases": {case_id: ["pass" | "fail" | "error" | "not_run" | None, ...]},  # same order
        "changed": [case_id, ...],   # cases whose status changed
        "flaky": [case_id, ...],     # cases that both passed and failed in these reports
    }

The page shows the pass-rate trend (a table with a bar per report: text, so the page keeps
its one drawing), the changed and flaky cases (linked), and per case a row of marks, one per
report (None: the case was absent from that report).
"""

from __future__ import annotations

from typing import Any

from .html_text import attr, fragment, num, opt, pct, text

MARK = {"pass": "✓", "fail": "✗", "error": "!", "not_run": "–", None: "·"}
WORD = {"pass": "pass", "fail": "fail", "error": "error", "not_run": "not run", None: "absent"}
BAR = 20  # characters of the longest trend bar


def _reports(history: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in history.get("reports") or [] if isinstance(r, dict)]


def marks(history: dict[str, Any] | None, case_id: Any) -> str:
    """A case's statuses across the reports, oldest first, as marks (each titled)."""
    if not history:
        return ""
    names = [r.get("name") for r in _reports(history)]
    statuses = (history.get("cases") or {}).get(str(case_id)) or []
    out = []
    for n, status in enumerate(statuses):
        key = status if status in MARK else None
        name = names[n] if n < len(names) else None
        out.append(
            f'<span class="hm {key or "absent"}" title="{attr(name)}: {WORD[key]}">{MARK[key]}</span>'
        )
    return f'<span class="hist" aria-label="history, oldest first">{"".join(out)}</span>'


def _case_list(ids: Any) -> str:
    listed = [i for i in ids or [] if i is not None]
    if not listed:
        return "none"
    return ", ".join(f'<a href="#case={fragment(i)}">{text(i)}</a>' for i in listed)


def section(history: dict[str, Any] | None) -> str:
    """The history section of the page's summary (empty without history)."""
    if not history:
        return ""
    rows = []
    for report in _reports(history):
        rate = report.get("pass_rate")
        width = round(rate * BAR) if isinstance(rate, int | float) and 0 <= rate <= 1 else 0
        rows.append(
            f"<tr><td>{opt(report.get('name'))}</td><td>{pct(rate)}</td>"
            f'<td class="trend" aria-hidden="true">{"█" * width}</td></tr>'
        )
    changed, flaky = history.get("changed") or [], history.get("flaky") or []
    return (
        '<h2 id="history">History</h2>\n'
        f"<p>Pass rate over the last {num(len(rows))} reports (oldest first, this run last):</p>\n"
        '<div class="scroll"><table id="trend"><thead><tr><th>Report</th><th>Pass rate</th>'
        f"<th>Trend</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>\n"
        f"<p><strong>Changed status ({num(len(changed))})</strong>: {_case_list(changed)}</p>\n"
        f"<p><strong>Flaky across reports ({num(len(flaky))})</strong>: {_case_list(flaky)}</p>\n"
    )
