"""report.md: the report for review in a repository or a pull request.

Everything that comes from a trace or a case is escaped, so a `|`, a newline or Markdown
syntax in an answer can never break the table or inject markup.

Just over 600 lines, one concept: each function is one section of the one report.md (the
comparison, the summary, the history, the case table, the cases that did not pass, ...),
read from the same document with the same escaping.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

from ..display import inert, one_line
from ..problems import counted
from .document import Report
from .regression import shown_figures
from .unread import headline as unread_headline
from .unread import markdown_lines as unread_lines

_ICON = {"pass": "✅ pass", "fail": "❌ fail", "not_run": "⚪ not run", "error": "⚠️ error"}
_STATUS_WORD = {"pass": "pass", "fail": "fail", "not_run": "not run", "error": "error"}

# Escaping, decided from CommonMark (and GitHub's tables and strikethrough): a character is
# escaped only where it could start Markdown syntax, so `create_index`, `check(s)` and
# `a * b` read as written. The text is one line and may sit anywhere in a line (a table cell,
# after "Reason: ", in a heading), so its two ends are treated as touching anything; what
# opens a block (`#`, `>`, `-`, `1.`) is escaped only in a text that starts a line.
_CANDIDATE = re.compile(r"[\\`*_~\[<&|]")
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});")
# What opens a block at the start of a line: a heading, a quote, a list item or thematic
# break, a setext underline; an ordered-list number is escaped at its `.` or `)`.
_BLOCK_START = re.compile(r"#|>|[-+=]|\d{1,9}(?=[.)])")
_CLOSING_HASHES = re.compile(r"(?<= )#+$")  # an ATX heading's closing sequence


def _spaced(text: str, at: int) -> bool:
    """Whether the character at `at` has whitespace inside the text on both sides: then
    `*`, `_` and `~` can neither open nor close emphasis or strikethrough."""
    return 0 < at < len(text) - 1 and text[at - 1].isspace() and text[at + 1].isspace()


def _inword(text: str, at: int) -> bool:
    """An `_` between two letters or digits (`create_index`): intraword, never emphasis."""
    return 0 < at < len(text) - 1 and text[at - 1].isalnum() and text[at + 1].isalnum()


def _needs_escape(text: str, at: int) -> bool:
    char = text[at]
    if char in "`[|":  # code spans, links and images, table cells
        return True
    if char == "\\":  # a backslash escapes the punctuation after it (or what follows the text)
        return at == len(text) - 1 or text[at + 1] in _PUNCTUATION
    if char == "_":
        return not (_inword(text, at) or _spaced(text, at))
    if char in "*~":
        return not _spaced(text, at)
    if char == "<":  # a tag or an autolink needs a character right after it
        return at == len(text) - 1 or not text[at + 1].isspace()
    return _ENTITY.match(text, at) is not None  # "&": only an entity reference


def _escape_inline(text: str) -> str:
    if _CANDIDATE.search(text) is None:
        return text
    return _CANDIDATE.sub(
        lambda m: "\\" + m.group() if _needs_escape(text, m.start()) else m.group(), text
    )


def escape(value: Any, line_start: bool = False) -> str:
    """Text safe inside a Markdown table cell, paragraph or heading: one line, with the
    characters that would start Markdown syntax escaped (only those), and URLs and
    @mentions made inert. `line_start`: the text begins a line (then a leading `#`, `>`,
    `-`, `+`, `=` or `1.` would open a block, and is escaped)."""
    if type(value) is str and len(value) <= _REMEMBERED_CHARS:
        return _escaped_short(value, line_start)
    return _escaped(value, line_start)


def _escaped(value: Any, line_start: bool) -> str:
    if value is None:
        return "—"
    text = str(value).replace("\r\n", "\n").replace("\r", "\n")
    text = one_line(" ".join(text.split("\n"))).strip()
    if not text:
        return "—"
    text = _escape_inline(text)
    start = _BLOCK_START.match(text) if line_start else None
    if start is not None:
        end = start.end()
        text = text[:end] + "\\" + text[end:] if start.group()[0].isdigit() else "\\" + text
    if "#" in text:
        text = _CLOSING_HASHES.sub(lambda m: "\\" + m.group(), text)
    # Every link or mention `inert` disarms has a ':', a '.' or an '@': most texts have none.
    if ":" in text or "." in text or "@" in text:
        return inert(text)
    return text


# Short texts are escaped once per process: a report repeats its verdicts, check names and
# messages on every row (2,000 cases: ~8,500 cells, most of them a few dozen texts).
_REMEMBERED_CHARS = 200
_escaped_short = lru_cache(maxsize=4096)(_escaped)


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def _num(value: float | None, unit: str = "") -> str:
    if value is None:
        return "—"
    text = f"{value:,.1f}".rstrip("0").rstrip(".") if isinstance(value, float) else f"{value:,}"
    return text + unit


def _evidence(case: dict[str, Any]) -> str:
    cov = case.get("evidence_coverage")
    if not cov:
        return "—"
    found, required = len(cov["found"]), len(cov["required"])
    return f"{found}/{required}" if required else "none required"


def signed(value: Any, key: str) -> str:
    """A change as people read it: `+1.5`, `-2.0 points` for the pass rate, `no change`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "—"
    if value == 0:
        return "no change"
    if key == "pass_rate":
        return f"{value * 100:+.1f} points"
    text = f"{value:+,.1f}"
    return text[:-2] if text.endswith(".0") else text


def shown_change(before: Any, now: Any, delta: Any, key: str) -> str:
    """The change between two figures as shown (rounded to one decimal, a pass rate in
    percent), so that the three figures add up: 2.7 -> 2.6 is a change of -0.1, whatever
    the unrounded figures' change rounds to."""
    numbers = [v for v in (before, now) if isinstance(v, int | float) and not isinstance(v, bool)]
    if len(numbers) < 2 or not all(math.isfinite(v) for v in numbers):
        return signed(delta, key)
    scale = 100 if key == "pass_rate" else 1
    change = round(now * scale, 1) - round(before * scale, 1)
    return signed(round(change, 1) / scale, key)


def _status_change(item: dict[str, Any]) -> str:
    if "before" in item:
        return f"{escape(item['case_id'])} ({_STATUS_WORD.get(item['before'], escape(item['before']))} → {_STATUS_WORD.get(item['after'], escape(item['after']))})"
    return f"{escape(item['case_id'])} ({_STATUS_WORD.get(item['status'], escape(item['status']))})"


def _comparison(report: Report) -> list[str]:
    """The comparison with the baseline, when there is one: the first section of the report."""
    comp = report.head.get("comparison")
    if not comp:
        return []
    lines = ["## Compared with the baseline", ""]
    lines.append(
        f"Baseline: {escape(comp.get('baseline'))} (generated {escape(comp.get('baseline_generated_at'))})."
    )
    lines.append("")
    regressions = comp.get("regressions", [])
    if regressions:
        lines.append(
            f"**{counted(len(regressions), 'regression')}** (passed in the baseline, not now): "
            + ", ".join(escape(r["case_id"]) for r in regressions)
        )
    else:
        lines.append("**No regressions** (every case that passed in the baseline still passes).")
    lines.append("")
    before = comp.get("baseline_summary", {})
    now = report.summary
    delta = comp.get("delta", {})
    lines += ["| Measure | Baseline | Now | Change |", "|---|---|---|---|"]
    for key, label in (
        ("pass_rate", "Pass rate"),
        ("avg_tool_calls", "Average tool calls"),
        ("avg_duration_ms", "Average duration (ms)"),
    ):
        fmt = _pct if key == "pass_rate" else _num
        lines.append(
            f"| {label} | {fmt(before.get(key))} | {fmt(now.get(key))} | {shown_change(before.get(key), now.get(key), delta.get(key), key)} |"
        )
    lines.append("")
    lines += ["| Cases | Count | Which |", "|---|---|---|"]
    for key, label in (
        ("regressions", "Regressions"),
        ("fixes", "Fixes"),
        ("new_cases", "New cases"),
        ("removed_cases", "Removed cases"),
    ):
        items = comp.get(key, [])
        names = ", ".join(_status_change(i) for i in items) or "none"
        lines.append(f"| {label} | {len(items)} | {names} |")
    return [*lines, "", *_gates(comp.get("gates") or [])]


def _gates(gates: list[dict[str, Any]]) -> list[str]:
    """--max-regression: each limit with both figures."""
    if not gates:
        return []
    lines = ["| Gate | Baseline | Now | Change | Result |", "|---|---|---|---|---|"]
    for gate in gates:
        result = "✅ held" if gate["passed"] else "❌ " + escape(gate["message"])
        before, now, change = shown_figures(gate)
        lines.append(
            f"| {escape(gate['metric'])} {escape(gate['limit'])} | {before} | {now}"
            f" | {change} | {result} |"
        )
    return [*lines, ""]


def render(report: Report) -> str:
    """report.md as one text (the HTML reporter and the job summary use it)."""
    return "".join(chunks(report))


def chunks(report: Report) -> Iterator[str]:
    """report.md line by line, so a report of many runs is never one string in memory."""
    multi = any(c["runs"]["total"] > 1 for c in report.rows)
    lines = [
        *_heading(report),
        *_comparison(report),
        *_summary(report.summary, multi),
        *_unread(report.summary),
        *_reliability(report.summary, multi),
        *_quarantined(report.summary),
        *_verdicts(report.summary),
        *_history(report.history),
        *_case_table(report.rows, multi),
        *_flaky(report.rows, report.summary, multi),
    ]
    blanks = 0  # blank lines held back, so the file never ends with one
    sections = (
        lines,
        _troubled(report.cases(only=_not_passed)),
        _warnings(report.cases(), report.summary),
        _vacuous(report.cases(), report.summary),
        _unexamined(report.cases(), report.summary),
        unread_lines(report.cases(), report.summary, escape),
        _unmatched(report.unmatched),
        _unused(report),
    )
    for section in sections:
        for line in section:
            if not line:
                blanks += 1
                continue
            yield "\n" * blanks + line + "\n"
            blanks = 0


def _heading(report: Report) -> list[str]:
    inputs = report.head.get("inputs", {})
    tool = report.head.get("tool", {})
    return [
        "# Trace validation report",
        "",
        f"Generated {escape(report.head.get('generated_at'))} by {escape(tool.get('name'))}"
        f" {escape(tool.get('version'))} · cases: {escape(inputs.get('cases'))}"
        f" · fixtures: {escape(inputs.get('fixtures'))}",
        "",
        *([f"Command: {code_span(inputs['command'])}", ""] if inputs.get("command") else []),
    ]


def code_span(value: Any) -> str:
    """`value` as a Markdown code span: literal, whatever it holds (a fence longer than any
    run of backticks in it), one line."""
    text = one_line(str(value))
    runs = [len(r) for r in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or runs else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _summary(summary: dict[str, Any], multi: bool) -> list[str]:
    lines = [
        f"**{summary['passed']} of {summary['total']} cases passed ({_pct(summary['pass_rate'])}).**",
        "",
        "## Summary",
        "",
        "| Metric | Value |",
        "|---|---|",
    ]
    rows = [
        ("Cases", summary["total"]),
        ("Passed", summary["passed"]),
        ("Failed", summary["failed"]),
        ("Not run", summary["not_run"]),
        ("Errors", summary["errored"]),
        ("Pass rate", _pct(summary["pass_rate"])),
        ("Traces evaluated", summary["runs"]["evaluated"]),
        ("Average tool calls", _num(summary["avg_tool_calls"])),
        ("Average duration (ms)", _num(summary["avg_duration_ms"])),
        ("Median duration (ms)", _num(summary.get("p50_duration_ms"))),
        ("95th percentile duration (ms)", _num(summary.get("p95_duration_ms"))),
        ("95th percentile tool calls", _num(summary.get("p95_tool_calls"))),
    ]
    if "checks_applied" in summary:  # a report of an earlier version has no counts
        rows += [
            ("Checks applied", summary["checks_applied"]),
            ("Checks skipped", summary["checks_skipped"]),
            ("Vacuous runs (every check skipped)", summary["vacuous_runs"]),
            ("Failed warnings (not failing)", summary["failed_warnings"]),
        ]
    if summary.get("checks_unexamined"):  # only then: a report that examined all keeps its bytes
        rows.append(("Checks passed with nothing to examine", summary["checks_unexamined"]))
    if multi:
        rows += [
            ("pass^k (every run passed)", _pct(summary["pass_hat_k"])),
            ("pass@k (some run passed)", _pct(summary["pass_at_k"])),
            ("Flaky cases", summary["flaky_cases"]),
        ]
    return [*lines, *(f"| {label} | {value} |" for label, value in rows), ""]


# With many runs there are many ks: the table shows these (and the largest k) when there
# are more than MAX_K_ROWS; report.json has every k.
MAX_K_ROWS = 8
_SHOWN_KS = (1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000)


def _shown_ks(ks: list[str]) -> list[str]:
    if len(ks) <= MAX_K_ROWS:
        return ks
    numbers = [int(k) for k in ks]
    chosen = [k for k in numbers if k in _SHOWN_KS] + [numbers[-1]]
    return [str(k) for k in sorted(set(chosen))]


def _reliability(summary: dict[str, Any], multi: bool) -> list[str]:
    """pass^k and pass@k per k (runs drawn from each case's runs without replacement)."""
    hat, at = summary.get("pass_hat") or {}, summary.get("pass_at") or {}
    fewer = summary.get("cases_with_fewer_runs") or {}
    if not multi or not hat:
        return []
    lines = [
        "## Reliability over repeated runs",
        "",
        "pass^k: chance that k runs of a case all pass; pass@k: that at least one does"
        " (unbiased estimates from each case's runs, averaged over the cases with k runs or more).",
        "",
        "| k | pass^k | pass@k | Cases with fewer runs |",
        "|---|---|---|---|",
    ]
    for k in _shown_ks(list(hat)):
        lines.append(f"| {k} | {_pct(hat[k])} | {_pct(at.get(k))} | {fewer.get(k, 0)} |")
    return [*lines, ""]


def _quarantined(summary: dict[str, Any]) -> list[str]:
    held = summary.get("quarantined") or []
    if not held:
        return []
    lines = [
        "## Quarantined cases",
        "",
        "Evaluated and reported, never failing the run.",
        "",
        "| Case | Status | Reason |",
        "|---|---|---|",
    ]
    for item in held:
        status = _ICON.get(item["status"], escape(item["status"]))
        lines.append(f"| {escape(item['case_id'])} | {status} | {escape(item['reason'])} |")
    return [*lines, ""]


def _verdicts(summary: dict[str, Any]) -> list[str]:
    dist = summary["verdict_distribution"]
    rows = [f"| {escape(k)} | {v} |" for k, v in dist.items()] or ["| — | 0 |"]
    return ["## Verdicts", "", "| Verdict | Traces |", "|---|---|", *rows, ""]


# The History section lists at most this many cases (and reports), and counts the rest.
MAX_HISTORY_ROWS = 20
_MARK: dict[str | None, str] = {
    "pass": "✅",
    "fail": "❌",
    "error": "⚠️",
    "not_run": "⚪",
    None: "·",
}
_LEGEND = "✅ pass, ❌ fail, ⚠️ error, ⚪ not run, · not in that report"


def _history(history: dict[str, Any] | None) -> list[str]:
    """--history: the pass-rate trend, the changed and flaky cases, the marks of the cases
    whose status varied (changed and flaky first), each list bounded."""
    if history is None:
        return []
    reports, cases = history["reports"], history["cases"]
    if len(reports) < 2:
        lines = ["## History", "", "No earlier report was read: the history has this run only.", ""]
        return [*lines, *_skipped(history.get("skipped") or [])]
    since = f"Changed since {escape(reports[-2]['name'])}"
    flaky = "Flaky (passed in one report, failed or errored in another)"
    lines = ["## History", "", *_trend(reports)]
    for key, label in (("changed", since), ("flaky", flaky)):
        ids = history[key]
        items = [_moved(i, cases[i]) if key == "changed" else escape(i) for i in ids]
        lines += [f"**{label}: {len(ids)}** — {_bounded(items, ', ') or 'none'}", ""]
    return [*lines, *_marks(history), *_skipped(history.get("skipped") or [])]


def _bounded(items: list[str], separator: str) -> str:
    more = len(items) - MAX_HISTORY_ROWS
    return separator.join(items[:MAX_HISTORY_ROWS]) + (f" and {more} more" if more > 0 else "")


def _trend(reports: list[dict[str, Any]]) -> list[str]:
    shown = reports[-MAX_HISTORY_ROWS:]
    lines = ["| Report | Pass rate | Change |", "|---|---|---|"]
    before = reports[-len(shown) - 1]["pass_rate"] if len(shown) < len(reports) else None
    for item in shown:
        rate = item["pass_rate"]
        change = shown_change(before, rate, None, "pass_rate") if before is not None else "—"
        lines.append(f"| {escape(item['name'])} | {_pct(rate)} | {change} |")
        before = rate
    hidden = len(reports) - len(shown)
    note = [f"{counted(hidden, 'earlier report')} not shown (report.json has them).", ""]
    note = note if hidden else []
    return [*lines, "", *note]


def _moved(case_id: str, marks: list[str | None]) -> str:
    before, now = [m for m in marks[:-1] if m is not None][-1:] or ["new"], str(marks[-1])
    word = _STATUS_WORD.get(before[0], before[0])
    return f"{escape(case_id)} ({escape(word)} → {_STATUS_WORD.get(now, escape(now))})"


def _marks(history: dict[str, Any]) -> list[str]:
    cases: dict[str, list[str | None]] = history["cases"]
    first = dict.fromkeys([*history["changed"], *history["flaky"]])
    varied = [i for i, m in cases.items() if len({s for s in m if s is not None}) > 1]
    listed = [*first, *(i for i in varied if i not in first)]
    width = min(len(history["reports"]), MAX_HISTORY_ROWS)
    lines = [f"Marks, oldest first: {_LEGEND}.", "", "| Case | Marks | Now |", "|---|---|---|"]
    for case_id in listed[:MAX_HISTORY_ROWS]:
        marks = " ".join(_MARK.get(m, "?") for m in cases[case_id][-width:])
        now = str(cases[case_id][-1])
        lines.append(f"| {escape(case_id)} | {marks} | {_ICON.get(now, escape(now))} |")
    rest = len(listed) - MAX_HISTORY_ROWS
    more = f"{counted(rest, 'more case')} whose status varied (report.json has them)."
    tail = [more] if rest > 0 else []
    tail += [f"{counted(len(cases) - len(listed), 'case')} kept one status in every report."]
    return [*(lines if listed else []), "", " ".join(tail), ""]


def _skipped(skipped: list[dict[str, Any]]) -> list[str]:
    items = [f"{escape(s['file'])}: {escape(s['reason'])}" for s in skipped]
    return [f"Not used from the history folder: {_bounded(items, '; ')}.", ""] if items else []


def _case_table(cases: list[dict[str, Any]], multi: bool) -> list[str]:
    header = [
        "Case",
        "Status",
        *(["Runs"] if multi else []),
        "Verdict",
        "Evidence",
        "Tool calls",
        "Duration (ms)",
        "Failed checks",
    ]
    lines = ["## Cases", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for case in cases:
        runs = case["runs"]
        required = f", {runs['required']} required" if "required" in runs else ""
        runs_cell = (
            [f"{runs['passed']}/{runs['total']}{required}" + (" (flaky)" if case["flaky"] else "")]
            if multi
            else []
        )
        failed = ", ".join(escape(f["check"]) for f in case["failed_checks"]) or "—"
        cells = [
            escape(case["case_id"]),
            _ICON.get(case["status"], escape(case["status"])),
            *runs_cell,
            escape(case["verdict"]),
            _evidence(case),
            _num(case["tool_call_count"]),
            _num(case["duration_ms"]),
            failed,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, ""]


def _flaky(cases: list[dict[str, Any]], summary: dict[str, Any], multi: bool) -> list[str]:
    if not (multi and summary["flaky_cases"]):
        return []
    flaky = [escape(c["case_id"]) for c in cases if c["flaky"]]
    return ["Flaky cases (some runs pass, some fail): " + ", ".join(flaky), ""]


def _not_passed(case: dict[str, Any]) -> bool:
    return bool(case["status"] != "pass")


def _troubled(cases: Iterable[dict[str, Any]]) -> Iterator[str]:
    """The section of the cases that did not pass (`cases`: those, `_not_passed`)."""
    first = True
    for case in cases:
        if first:
            yield from ("## Cases that did not pass", "")
            first = False
        yield from _case_section(case)


def _case_section(case: dict[str, Any]) -> list[str]:
    lines = [f"### {escape(case['case_id'])} — {_ICON.get(case['status'], case['status'])}", ""]
    if case.get("fixture"):
        lines += [f"Trace: {escape(case['fixture'])}", ""]
    if case.get("reason"):
        lines += [f"Reason: {escape(case['reason'])}", ""]
    for failed in case["failed_checks"]:
        lines.append(f"- **{escape(failed['check'])}**: {escape(failed['message'])}")
    items = case["runs"].get("items", [])
    for item in items:
        if item["status"] != "pass":
            checks = ", ".join(escape(f["check"]) for f in item["failed_checks"]) or escape(
                item["reason"]
            )
            lines.append(
                f"- run {escape(item['fixture'])}: {_ICON.get(item['status'], item['status'])} — {checks}"
            )
    if case["failed_checks"] or items:
        lines.append("")
    return lines


def _warnings(cases: Iterable[dict[str, Any]], summary: dict[str, Any]) -> Iterator[str]:
    """Failed checks of severity warning or info: reported, not failing their case."""
    if summary.get("failed_warnings") == 0:  # counted over every run: no run's rows to read
        return
    first = True
    for case in cases:
        items = case["runs"].get("items")
        entries = [(f" run {escape(i['fixture'])}", i) for i in items] if items else [("", case)]
        for where, entry in entries:
            for warned in entry.get("failed_warnings") or ():
                if first:
                    yield from ("## Warnings", "", "Failed checks that do not fail their case.", "")
                    first = False
                yield (
                    f"- {escape(case['case_id'])}{where}: **{escape(warned['check'])}**"
                    f" ({escape(warned['severity'])}): {escape(warned['message'])}"
                )
    if not first:
        yield ""


def _unread(summary: dict[str, Any]) -> list[str]:
    """The line under the summary saying how many traces held content the view could not read
    (none when it read everything)."""
    unread = summary.get("unread")
    return [f"**{escape(unread_headline(unread))}.**", ""] if unread else []


def _vacuous(cases: Iterable[dict[str, Any]], summary: dict[str, Any]) -> Iterator[str]:
    """Runs that passed with every check skipped: never silent."""
    if not summary.get("vacuous_runs"):
        return
    yield from (
        "## Vacuous runs",
        "",
        "Every check of these runs was skipped (a guard, or an input the case does not set):"
        " they passed with nothing examined. `run --fail-on vacuous` fails them.",
        "",
    )
    for case in cases:
        count = case.get("vacuous_runs") or 0
        if not count:
            continue
        items = case["runs"].get("items")
        if items:
            runs = ", ".join(escape(i["fixture"]) for i in items if i.get("vacuous"))
            yield f"- {escape(case['case_id'])}: {count} of {len(items)} runs ({runs})"
        else:
            skipped = counted(case["checks_skipped"], "check")
            yield f"- {escape(case['case_id'])} ({skipped} skipped)"
    yield ""


def _unexamined(cases: Iterable[dict[str, Any]], summary: dict[str, Any]) -> Iterator[str]:
    """Checks that passed because their query matched no node: never silent."""
    if not summary.get("checks_unexamined"):
        return
    yield from (
        "## Checks with nothing to examine",
        "",
        "These checks passed because their query matched no node of the trace: they read"
        " nothing. Fix the path, or write `allow_empty: true` in the spec when no match is"
        " expected. `run --fail-on vacuous` fails them.",
        "",
    )
    for case in cases:
        if not case.get("unexamined_runs"):
            continue
        runs = case["runs"]
        many = f" ({case['unexamined_runs']} of {runs['total']} runs)" if runs["total"] > 1 else ""
        for check in case.get("checks") or ():
            if check.get("examined") == 0:
                yield (
                    f"- {escape(case['case_id'])}{many}: **{escape(check['check'])}** passed:"
                    f" {escape(check['message'])}"
                )
    yield ""


def _unused(report: Report) -> list[str]:
    """One line naming every file under the fixtures folder that the run did not use."""
    unused = report.head.get("unused_files") or []
    if not unused:
        return []
    files = "; ".join(f"{escape(u['file'])} ({escape(u['reason'])})" for u in unused)
    return [f"**Files not used** ({len(unused)}): {files}", ""]


def _unmatched(unmatched: list[dict[str, Any]]) -> list[str]:
    if not unmatched:
        return []
    lines = ["## Traces that match no case", "", "| Trace | Reason |", "|---|---|"]
    lines += [f"| {escape(u['fixture'])} | {escape(u['reason'])} |" for u in unmatched]
    return [*lines, ""]
