"""report.html: one self-contained page for people reviewing a run.

The first screen holds the pass rate and counts once (tiles), the failures by check and the
case table (failures first); then the case panel opened from it, then the summary table,
the baseline comparison when there is one, the verdict chart and table only when traces
record verdicts, the history across reports when there is one, and the traces that match no
case.

The case table and the panels are data: one row and one panel per case, as trees, in the
page's one JSON block (html_data.py), which the page's script (html_script.py) renders when
shown: a virtualized table, a panel when opened or matched by a search. Without JavaScript,
a <noscript> part lists every case that did not pass with its failed checks. The filters (by
status, tag, verdict, failed check and baseline change), the search, sorting, the run switch
and the URL fragment state (`#status=fail&tag=mysql&q=slow&sort=-duration&case=<id>`) are
the script's.

Nothing is fetched: no external stylesheet, script, font or image, and a Content Security
Policy that forbids any fetch and runs only the page's own script (by its hash), so the page
opens the same offline, from a CI artifact or a mail attachment. Every text from a case,
spec or trace is escaped (html_text.py). The question, the answer and the tool calls come
from `Report.extras` when the command collected them (report/extras.py); report.json's
schema is unchanged.

Over 600 lines because it is one concept, the page's layout from top to bottom: each section's
markup (summary, comparison, filters, the table's columns and rows, the static part) is a
function here, and the panels' content is html_case.py's and html_trace.py's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import escape
from typing import Any, NamedTuple

from ..dataclass import dataclass
from ..display import one_line
from ..problems import counted
from .document import Report
from .html_assets import CSP, SCRIPT, STYLE
from .html_case import (
    STATUS_WORD,
    Context,
    badge,
    failed_checks,
    panel,
    status_class,
    status_word,
)
from .html_data import Strings, cell_value, dumps, packed, tree
from .html_history import marks as history_marks
from .html_history import section as history_section
from .html_text import attr, fragment, num, opt, pct, sort_value, text
from .html_trace import FULL, SHORTER, passing_level
from .markdown import shown_change
from .unread import headline as unread_headline

MAX_VERDICT_BARS = 20
TITLE = "Trace validation report"

_VERDICT_COLOUR = "#0969da"
# The case table sorts statuses worst first.
_STATUS_RANK = {"error": 0, "fail": 1, "not_run": 2, "pass": 3}


def _short(text: str, limit: int = 28) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _bars(summary: dict[str, Any]) -> list[tuple[str, list[tuple[str, int, str]]]]:
    # The cases by status are the tiles' (the first screen shows each count once).
    sections: list[tuple[str, list[tuple[str, int, str]]]] = []
    verdicts = sorted(summary["verdict_distribution"].items(), key=lambda kv: (-kv[1], kv[0]))
    bars = [(str(name), int(count), _VERDICT_COLOUR) for name, count in verdicts]
    if len(bars) > MAX_VERDICT_BARS:
        rest = bars[MAX_VERDICT_BARS - 1 :]
        bars = [
            *bars[: MAX_VERDICT_BARS - 1],
            (f"{len(rest)} others", sum(b[1] for b in rest), "#8c959f"),
        ]
    sections.append(("Evaluated traces by verdict", bars or [("none", 0, _VERDICT_COLOUR)]))
    return sections


def chart(report: Report) -> str:
    """An SVG bar chart: evaluated traces by verdict."""
    summary = report.summary
    label_w, bar_w, row_h, width = 200, 300, 24, 580
    parts: list[str] = []
    y = 0
    for title, rows in _bars(summary):
        y += 22
        parts.append(f'<text class="heading" x="0" y="{y}">{text(title)}</text>')
        y += 8
        top = max((count for _, count, _ in rows), default=0) or 1
        for label, count, colour in rows:
            length = round(bar_w * count / top, 1)
            mid = y + row_h / 2 + 4
            parts.append(
                f"<g><title>{text(label)}: {count}</title>"
                f'<text x="0" y="{mid}">{text(_short(label))}</text>'
                f'<rect x="{label_w}" y="{y + 3}" width="{length}" height="{row_h - 6}"'
                f' fill="{colour}" rx="2"/>'
                f'<text x="{label_w + length + 6}" y="{mid}">{count}</text></g>'
            )
            y += row_h
        y += 8
    height = y + 4
    verdicts = sorted(summary["verdict_distribution"].items(), key=lambda kv: (-kv[1], kv[0]))
    description = attr(
        f"{summary['passed']} passed, {summary['failed']} failed, {summary['not_run']} not run,"
        f" {counted(summary['errored'], 'error')}; verdicts: "
        + (", ".join(f"{k} {v}" for k, v in verdicts) or "none")
    )
    return (
        f'<figure class="chart"><svg xmlns="http://www.w3.org/2000/svg" role="img"'
        f' width="{width}" height="{height}" viewBox="0 0 {width} {height}"'
        f' aria-label="{description}">'
        f"<title>{description}</title>{''.join(parts)}</svg></figure>"
    )


# --------------------------------------------------------------------------------------------
# Summary, comparison, verdicts


def _head() -> str:
    # The script is the body's load handler (see html_assets.py for why not a <script>).
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{TITLE}</title>\n<style>{STYLE}</style>\n</head>\n"
        f'<body onload="{escape(SCRIPT, quote=True)}">\n<main>\n'
    )


def _tiles(summary: dict[str, Any], comparison: dict[str, Any] | None) -> str:
    tiles = [
        ("rate", pct(summary["pass_rate"]), "pass rate"),
        ("pass", num(summary["passed"]), "passed"),
        ("fail", num(summary["failed"]), "failed"),
        ("", num(summary["not_run"]), "not run"),
        ("error", num(summary["errored"]), "errors"),
        ("", num(summary["avg_duration_ms"], " ms"), "average duration"),
    ]
    if comparison is not None:
        tiles.append(("fail", num(len(comparison.get("regressions", []))), "regressions"))
    items = "".join(
        f"<li{f' class={cls}' if cls else ''}><b>{value}</b>{label}</li>"
        for cls, value, label in tiles
    )
    return f'<ul class="tiles">{items}</ul>\n'


def _summary_rows(summary: dict[str, Any], multi: bool) -> list[tuple[str, str]]:
    # The counts by status and the pass rate are the tiles' (shown once).
    rows = [
        ("Cases", num(summary["total"])),
        ("Traces evaluated", num(summary["runs"]["evaluated"])),
        ("Average tool calls", num(summary["avg_tool_calls"])),
        ("Average duration (ms)", num(summary["avg_duration_ms"])),
    ]
    if multi:
        rows += [
            ("pass^k (every run passed)", pct(summary["pass_hat_k"])),
            ("pass@k (some run passed)", pct(summary["pass_at_k"])),
            ("Flaky cases", num(summary["flaky_cases"])),
        ]
    return rows


def _table(headers: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{h}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>\n"


def _case_link(case_id: Any) -> str:
    return f'<a href="#case={fragment(case_id)}">{text(case_id)}</a>'


def _change_word(item: dict[str, Any]) -> str:
    if "before" in item:
        before, after = item.get("before"), item.get("after")
        return f"{status_word(before)} → {status_word(after)}"
    return status_word(item.get("status"))


def _comparison(report: Report, comp: dict[str, Any]) -> str:
    regressions = comp.get("regressions", [])
    if regressions:
        named = ", ".join(_case_link(r["case_id"]) for r in regressions)
        count = counted(len(regressions), "regression")
        lead = f"<strong>{count}</strong> (passed in the baseline, not now): {named}"
    else:
        lead = (
            "<strong>No regressions</strong> (every case that passed in the baseline still passes)."
        )
    before, now, delta = comp.get("baseline_summary", {}), report.summary, comp.get("delta", {})
    measures = []
    for key, label in (
        ("pass_rate", "Pass rate"),
        ("avg_tool_calls", "Average tool calls"),
        ("avg_duration_ms", "Average duration (ms)"),
    ):
        fmt = pct if key == "pass_rate" else num
        measures.append(
            [
                label,
                fmt(before.get(key)),
                fmt(now.get(key)),
                shown_change(before.get(key), now.get(key), delta.get(key), key),
            ]
        )
    groups = []
    for key, label in (
        ("regressions", "Regressions"),
        ("fixes", "Fixes"),
        ("new_cases", "New cases"),
        ("removed_cases", "Removed cases"),
    ):
        items = comp.get(key, [])
        which = ", ".join(
            f"{_case_link(i['case_id']) if key != 'removed_cases' else text(i['case_id'])}"
            f" ({_change_word(i)})"
            for i in items
        )
        groups.append([label, num(len(items)), which or "none"])
    return (
        '<h2 id="baseline">Compared with the baseline</h2>\n'
        f"<p>Baseline: {opt(comp.get('baseline'))} (generated"
        f" {opt(comp.get('baseline_generated_at'))}).</p>\n<p>{lead}</p>\n"
        + _table(["Measure", "Baseline", "Now", "Change"], measures)
        + _table(["Cases", "Count", "Which"], groups)
    )


def has_verdicts(rows: list[dict[str, Any]]) -> bool:
    """Whether the suite's traces record verdicts (else no verdict widget is shown)."""
    return any(row.get("verdict") is not None for row in rows)


# What varies between two failures of one kind: quoted values and numbers ("found "REVISE"",
# "25,000 ms"). Messages equal once these are blanked are one category.
_VARYING = re.compile(r'"[^"]*"|\d+(?:[.,]\d+)*')


def message_kind(message: str) -> str:
    """A failure message with its quoted values and numbers blanked: its category."""
    return _VARYING.sub("…", message)


def _most(counted: dict[str, int]) -> tuple[str, int]:
    return min(counted.items(), key=lambda kv: (-kv[1], kv[0]))


class CheckFailures(NamedTuple):
    """One row of the failures by check."""

    check: str
    cases: int  # failing cases
    message: str  # the most common text of the most common kind (ties: by text)
    alike: int  # cases whose message is of that kind
    texts: int  # distinct texts of that kind
    kinds: int  # kinds of message the check gave


def failures_by_check(rows: list[dict[str, Any]]) -> list[CheckFailures]:
    """Each failing check's row, most failing cases first (ties: by check name). A kind is
    a message with its quoted values and numbers blanked (`message_kind`)."""
    cases: dict[str, int] = {}
    kinds: dict[str, dict[str, int]] = {}
    texts: dict[tuple[str, str], dict[str, int]] = {}
    for row in rows:
        seen: dict[str, str] = {}
        for item in [row, *row["runs"].get("items", [])]:
            for failed in item.get("failed_checks") or []:
                seen.setdefault(str(failed.get("check")), str(failed.get("message") or ""))
        for check, message in seen.items():
            cases[check] = cases.get(check, 0) + 1
            kind = message_kind(message)
            counted = kinds.setdefault(check, {})
            counted[kind] = counted.get(kind, 0) + 1
            alike = texts.setdefault((check, kind), {})
            alike[message] = alike.get(message, 0) + 1
    out = []
    for check, count in cases.items():
        kind, times = _most(kinds[check])
        message, _ = _most(texts[(check, kind)])
        distinct = len(texts[(check, kind)])
        out.append(CheckFailures(check, count, message, times, distinct, len(kinds[check])))
    return sorted(out, key=lambda t: (-t.cases, t.check))


def _count_words(row: CheckFailures) -> str:
    """How many failing cases have the shown message (or one like it, other values in its
    quotes and numbers), and how many kinds of message the check gave."""
    out = f" ({num(row.alike)} of {num(row.cases)}"
    out += " alike" if row.texts > 1 else ""
    return out + (f"; {num(row.kinds)} kinds of message)" if row.kinds > 1 else ")")


def _failures(rows: list[dict[str, Any]]) -> str:
    found = failures_by_check(rows)
    if not found:
        return ""
    body = "".join(
        f'<tr><td><a href="#check={fragment(row.check)}">{text(row.check)}</a></td>'
        f"<td>{num(row.cases)}</td><td>{text(row.message) or '—'}"
        + (_count_words(row) if row.cases > 1 else "")
        + "</td></tr>"
        for row in found
    )
    return (
        '<h2 id="failures">Failures by check</h2>\n<div class="scroll"><table id="by-check">'
        "<thead><tr><th>Check</th><th>Failing cases</th><th>Most common message</th></tr>"
        f"</thead><tbody>{body}</tbody></table></div>\n"
    )


def _overview(report: Report, comp: dict[str, Any] | None, rows: list[dict[str, Any]]) -> str:
    """The first screen: the title, the pass rate and counts once (tiles), and the failures by
    check; the case table follows at once, failures first."""
    inputs = report.head.get("inputs", {})
    tool = report.head.get("tool", {})
    return (
        f"<h1>{TITLE}</h1>\n"
        f'<p class="meta">Generated {opt(report.head.get("generated_at"))} by'
        f" {opt(tool.get('name'))} {opt(tool.get('version'))} · cases:"
        f" {opt(inputs.get('cases'))} · fixtures: {opt(inputs.get('fixtures'))}</p>\n"
        + (
            f'<p class="meta">Command: <code>{text(inputs["command"])}</code></p>\n'
            if inputs.get("command")
            else ""
        )
        + _tiles(report.summary, comp)
        + '<p class="skip"><a href="#cases">Skip to the cases</a></p>\n'
        + _failures(rows)
    )


def _run_summary(
    report: Report, comp: dict[str, Any] | None, multi: bool, rows: list[dict[str, Any]]
) -> str:
    """Below the cases: the summary figures, the baseline comparison, and the verdicts (only
    when the suite's traces record verdicts)."""
    summary = report.summary
    metrics = [[label, value] for label, value in _summary_rows(summary, multi)]
    verdicts = [[text(k), num(v)] for k, v in summary["verdict_distribution"].items()]
    shown = has_verdicts(rows)
    return (
        '<h2 id="summary">Summary</h2>\n'
        + (chart(report) if shown else "")
        + _table(["Metric", "Value"], metrics)
        + (
            f'<p class="note">{text(unread_headline(summary["unread"]))}.</p>\n'
            if summary.get("unread")
            else ""
        )
        + (_comparison(report, comp) if comp else "")
        + (
            '<h2 id="verdicts">Verdicts</h2>\n' + _table(["Verdict", "Traces"], verdicts)
            if shown
            else ""
        )
    )


# --------------------------------------------------------------------------------------------
# The case table


def case_changes(comp: dict[str, Any] | None) -> dict[str, tuple[str, str]]:
    """case id -> (kind, what the baseline comparison says of it)."""
    out: dict[str, tuple[str, str]] = {}
    for key, kind in (("regressions", "regressed"), ("fixes", "fixed"), ("new_cases", "new")):
        for item in (comp or {}).get(key, []):
            out[str(item.get("case_id"))] = (kind, f"{kind} ({_change_word(item)})")
    return out


def _filters(multi_change: bool, total: int, verdicts: bool) -> str:
    statuses = "".join(f'<option value="{s}">{w}</option>' for s, w in STATUS_WORD.items())
    change = (
        '<label>Baseline<select name="change"><option value="">all</option>'
        '<option value="regressed">regressed</option><option value="fixed">fixed</option>'
        '<option value="new">new</option><option value="same">no regression or fix</option>'
        "</select></label>"
        if multi_change
        else ""
    )
    return (
        '<h2 id="cases">Cases</h2>\n'
        '<form id="filters" hidden role="search" aria-label="Filter the cases">'
        '<label>Search<input type="search" name="q" placeholder="id, tag, check, message, answer"'
        ' autocomplete="off" spellcheck="false"></label>'
        f'<label>Status<select name="status"><option value="">all</option>{statuses}'
        "</select></label>"
        '<label>Tag<select name="tag"><option value="">all</option></select></label>'
        + (
            '<label>Verdict<select name="verdict"><option value="">all</option></select></label>'
            if verdicts
            else ""
        )
        + '<label>Failed check<select name="check"><option value="">any</option></select></label>'
        f'{change}<button type="button" class="clear">Clear filters</button></form>\n'
        f'<p id="shown">{num(total)} {"case" if total == 1 else "cases"}.</p>\n'
    )


def columns(
    multi: bool, compared: bool, verdicts: bool, history: bool = False
) -> list[tuple[str, str]]:
    """The case table's columns: (sort key, heading)."""
    return [
        ("case", "Case"),
        ("status", "Status"),
        *([("runs", "Runs")] if multi else []),
        *([("verdict", "Verdict")] if verdicts else []),
        ("evidence", "Evidence"),
        ("keywords", "Keywords"),
        ("tools", "Tool calls"),
        ("duration", "Duration (ms)"),
        ("failed", "Failed checks"),
        *([("change", "Baseline")] if compared else []),
        *([("history", "History")] if history else []),
    ]


def _table_head(cols: list[tuple[str, str]]) -> str:
    cells = "".join(
        f'<th scope="col" data-key="{key}" aria-sort="none">{label}</th>' for key, label in cols
    )
    return f'<div class="scroll"><table id="case-table"><thead><tr>{cells}</tr></thead><tbody>\n'


def _failed_names(row: dict[str, Any]) -> list[str]:
    """The checks that failed in the case's runs, in order of first failure."""
    names: dict[str, None] = {}
    for item in [row, *row["runs"].get("items", [])]:
        for failed in item.get("failed_checks") or []:
            names.setdefault(str(failed.get("check")), None)
    return list(names)


def _ratio_cell(cov: Any, hit: str, of: str) -> str:
    if not isinstance(cov, dict):
        return "<td>—</td>"
    got = len(cov.get(hit) or [])
    total = cov.get(of)
    total = len(total) if isinstance(total, list) else total
    if not total:
        return '<td data-v="">none required</td>'
    return f'<td data-v="{sort_value(got / total)}">{got}/{total}</td>'


def _row(
    row: dict[str, Any],
    multi: bool,
    compared: bool,
    changes: dict[str, tuple[str, str]],
    verdicts: bool,
    history: dict[str, Any] | None = None,
) -> str:
    case_id = row["case_id"]
    status = row["status"]
    failed = _failed_names(row)
    kind, label = changes.get(str(case_id), ("same", "—"))
    runs = row["runs"]
    cells = [
        f"<td>{_case_link(case_id)}</td>",
        f'<td class="t" data-v="{_STATUS_RANK.get(status_class(status), 4)}">{badge(status)}</td>',
    ]
    if multi:
        flaky = " flaky" if row.get("flaky") else ""
        cells.append(
            f'<td data-v="{sort_value(row.get("run_pass_rate"))}">'
            f"{num(runs.get('passed'))}/{num(runs.get('total'))}{flaky}</td>"
        )
    if verdicts:
        cells.append(f"<td>{opt(row.get('verdict'))}</td>")
    cells += [
        _ratio_cell(row.get("evidence_coverage"), "found", "required"),
        _ratio_cell(row.get("keyword_coverage"), "matched", "total"),
        f'<td data-v="{sort_value(row.get("tool_call_count"))}">{num(row.get("tool_call_count"))}</td>',
        f'<td data-v="{sort_value(row.get("duration_ms"))}">{num(row.get("duration_ms"))}</td>',
        f'<td class="t" data-v="{len(failed)}">{", ".join(text(n) for n in failed) or "—"}</td>',
    ]
    if compared:
        cells.append(f"<td>{text(label)}</td>")
    if history:
        cells.append(f'<td class="t">{history_marks(history, case_id)}</td>')
    return (
        f'<tr data-status="{attr(status)}"'
        f' data-verdict="{"—" if row.get("verdict") is None else attr(row["verdict"])}"'
        + (f' data-change="{kind}"' if compared else "")
        + f">{''.join(cells)}</tr>\n"
    )


def _unmatched(unmatched: list[dict[str, Any]]) -> str:
    if not unmatched:
        return ""
    rows = [[opt(u.get("fixture")), opt(u.get("reason"))] for u in unmatched]
    return '<h2 id="unmatched">Traces that match no case</h2>\n' + _table(["Trace", "Reason"], rows)


def _passing_level(extras: dict[str, dict[str, Any]] | None) -> str:
    """The form of the page's passing runs' answers and timelines (see html_trace.py)."""
    if not extras:
        return FULL
    runs = (
        run
        for case in extras.values()
        for run in (case.get("runs") or {}).values()
        if isinstance(run, dict) and run.get("status") == "pass"
    )
    return passing_level(runs)


def failures_first(rows: Iterator[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cases, worst status first (error, fail, not run, pass), report order within."""
    return sorted(rows, key=lambda row: _STATUS_RANK.get(status_class(row["status"]), 4))


def _search_text(row: dict[str, Any]) -> str:
    """What the search box looks in besides the answer: the id, tags, the failed checks'
    names and messages, and the reason."""
    parts = [row["case_id"], *(row.get("tags") or [])]
    for item in [row, *row["runs"].get("items", [])]:
        for check in item.get("failed_checks") or []:
            if isinstance(check, dict):
                parts += [check.get("check"), check.get("message")]
    if row.get("reason"):
        parts.append(row["reason"])
    return "\n".join(dict.fromkeys(one_line(p) for p in parts if p is not None))


def _record(
    row: dict[str, Any], shape: Shape, extra: dict[str, Any] | None, strings: Strings
) -> list[Any]:
    """One case as the page's data (see html_data.py)."""
    change = shape.changes.get(str(row["case_id"]))
    line = tree(
        _row(row, shape.multi, shape.compared, shape.changes, shape.verdicts, shape.history)
    )
    cells = [c for c in line[1:] if isinstance(c, list)]
    return [
        one_line(row["case_id"]),
        row["status"],
        None if row.get("verdict") is None else one_line(row["verdict"]),
        [one_line(t) for t in row.get("tags") or []],
        [one_line(n) for n in _failed_names(row)],
        (change[0] if change else "same") if shape.compared else "",
        _search_text(row),
        [cell_value(c) for c in cells],
        strings.intern(line),
        strings.intern(tree(panel(row, extra, shape.ctx, change[1] if change else None))),
    ]


def _static_failure(row: dict[str, Any]) -> str:
    """A case that did not pass, for a reader without JavaScript: its reason and every
    failed check of its runs, with the message."""
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for item in [row, *row["runs"].get("items", [])]:
        for f in item.get("failed_checks") or []:
            if isinstance(f, dict):
                seen.setdefault((str(f.get("check")), str(f.get("message"))), f)
    reason = f"<p>{text(row['reason'])}</p>" if row.get("reason") else ""
    return (
        f'<details class="case" open id="case={attr(row["case_id"])}">'
        f"<summary>{badge(row['status'])} <b>{text(row['case_id'])}</b></summary>"
        f'<div class="body">{reason}{failed_checks(list(seen.values()))}</div></details>\n'
    )


def _without_script(rows: list[dict[str, Any]], shape: Shape, cols: list[tuple[str, str]]) -> str:
    """The cases that did not pass as plain HTML, inside <noscript>: a browser that runs the
    script never parses it (the page's size in nodes stays that of the shown rows)."""
    failing = [r for r in rows if r["status"] != "pass"]
    return (
        "<noscript>\n"
        '<p class="note">Without JavaScript the page lists the cases that did not pass, with'
        " their failed checks; report.json has every case.</p>\n"
        + _table_head(cols)
        + "".join(
            _row(r, shape.multi, shape.compared, shape.changes, shape.verdicts, shape.history)
            for r in failing
        )
        + "</tbody></table></div>\n"
        + "".join(_static_failure(r) for r in failing)
        + "</noscript>\n"
    )


@dataclass(frozen=True)
class Shape:
    """What every row and panel of one page shares."""

    multi: bool
    compared: bool
    verdicts: bool
    changes: dict[str, tuple[str, str]]
    ctx: Context
    history: dict[str, Any] | None = None


def _data(
    rows: list[dict[str, Any]],
    shape: Shape,
    extras: dict[str, dict[str, Any]] | None,
    cols: list[tuple[str, str]],
) -> Iterator[str]:
    """The page's data as JSON text, in pieces (see html_data.py)."""
    yield '{"cols":' + dumps([list(c) for c in cols]) + ',"cases":['
    strings = Strings()
    for n, row in enumerate(rows):
        extra = extras.get(row["case_id"]) if extras is not None else None
        yield ("," if n else "") + dumps(_record(row, shape, extra, strings))
    yield '],"strings":' + dumps(strings.table()) + "}"


def chunks(report: Report) -> Iterator[str]:
    comp = report.head.get("comparison") or None
    rows = failures_first(report.cases())
    extras = report.extras
    shape = Shape(
        multi=any(c["runs"]["total"] > 1 for c in report.rows),
        compared=comp is not None,
        verdicts=has_verdicts(rows),
        changes=case_changes(comp),
        ctx=Context(extras is not None, _passing_level(extras)),
        history=report.history or None,
    )
    cols = columns(shape.multi, shape.compared, shape.verdicts, shape.history is not None)
    yield _head()
    yield _overview(report, comp, rows)
    yield _filters(shape.compared, len(rows), shape.verdicts)
    yield '<p class="skip"><a href="#details">Skip past the case table</a></p>\n'
    yield '<div class="scroll" id="case-box" hidden></div>\n'
    yield _without_script(rows, shape, cols)
    yield '<h2 id="details">Case details</h2>\n'
    if shape.ctx.level in SHORTER:
        yield f'<p class="note">{SHORTER[shape.ctx.level]}</p>\n'
    yield (
        '<p id="hint" class="note" hidden>Open a case from the table (or press j and k for the'
        " next and previous failing case) to see its checks, answer and calls here.</p>\n"
        '<div id="panels"></div>\n'
    )
    yield _run_summary(report, comp, shape.multi, rows)
    yield history_section(shape.history)
    yield _unmatched(report.unmatched)
    yield '<script type="application/json" id="data">{"deflate":"'
    yield from packed(_data(rows, shape, extras, cols))
    yield '"}</script>\n'
    yield (
        '<p class="meta">One self-contained file: it fetches nothing and works offline.'
        " report.json has the same results for machines.</p>\n</main>\n</body>\n</html>\n"
    )
