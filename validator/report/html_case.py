"""report.html's case panels: one <details> per case, reachable at `#case=<id>`.

A panel shows what the case row holds (status, reason, checks with their messages and the
values they read, keyword and evidence coverage, notes, runs) and, when the command read the
traces again (`Report.extras`, see report/extras.py), the question, the final answer with the
keywords highlighted, and a timeline of the tool and model calls (html_trace.py). Panels of
cases that did not pass are open, so that without JavaScript every failure is on the page,
as in report.md.

No <table> with header cells and no <svg> is used inside a panel: the summary table is the
page's one first-of-its-parent table with headers, and the status chart its one drawing,
which tests/acceptance/test_outputs.py relies on.
"""

from __future__ import annotations

from typing import Any

from ..dataclass import dataclass
from .extras import RESULT_LIMIT, as_text, clip
from .html_text import attr, block, fragment, num, opt, text
from .html_trace import FULL, SUMMARY, trace_parts

STATUS_WORD = {"pass": "pass", "fail": "fail", "not_run": "not run", "error": "error"}
CHECK_STATUSES = ("pass", "fail", "skipped")
MAX_LISTED_RUNS = 200  # runs of a case listed in its grid (every run that did not pass is)
MAX_CHIPS = 50  # entries of one list a check read

NO_EXTRAS = (
    '<p class="none">The question, the answer and the tool calls are not in report.json, so a'
    " page made from it (or by the library) cannot show them; <code>validator run --format"
    " html</code> includes them.</p>"
)


def status_word(status: Any) -> str:
    """A status as people read it (`not run`), any other value escaped."""
    return STATUS_WORD[status] if isinstance(status, str) and status in STATUS_WORD else opt(status)


def status_class(status: Any) -> str:
    """The CSS class of a status: itself when it is one of ours, else `other`."""
    known = isinstance(status, str) and (status in STATUS_WORD or status == "skipped")
    return str(status) if known else "other"


def badge(status: Any) -> str:
    return f'<span class="st {status_class(status)}">{status_word(status)}</span>'


# --------------------------------------------------------------------------------------------
# Checks


def _chips(values: list[Any], kind: str | None) -> str:
    if not values:
        return '<span class="none">none</span>'
    tag, cls = ("mark", f' class="{kind}"') if kind else ("code", "")
    shown = " ".join(f"<{tag}{cls}>{text(as_text(v))}</{tag}>" for v in values[:MAX_CHIPS])
    rest = len(values) - MAX_CHIPS
    return shown + (f" and {num(rest)} more" if rest > 0 else "")


def _chip_kind(key: str, has_missing: bool) -> str | None:
    """matched/found are hits, missing is a miss; `found` without `missing` is what a
    forbidden-keyword check found, so it is bad."""
    if key == "missing":
        return "miss"
    if key == "matched":
        return "hit"
    if key == "found":
        return "hit" if has_missing else "bad"
    return None


def _value(key: str, value: Any, has_missing: bool) -> str:
    if isinstance(value, list):
        return _chips(value, _chip_kind(key, has_missing))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return num(value)
    shown, length = clip(value, RESULT_LIMIT)
    return opt(shown, "null") + (f" … ({num(length)} characters)" if length > RESULT_LIMIT else "")


def values(details: Any) -> str:
    """The values a check read (its details), as a definition list; lists as chips (the
    keyword-coverage check's matched and missing keywords are its keyword list)."""
    if not isinstance(details, dict) or not details:
        return ""
    has_missing = "missing" in details
    rows = "".join(
        f"<dt>{text(k)}</dt><dd>{_value(str(k), v, has_missing)}</dd>" for k, v in details.items()
    )
    return f'<dl class="vals">{rows}</dl>'


def _check(check: dict[str, Any]) -> str:
    status = check.get("status")
    cls = status if status in CHECK_STATUSES else "other"
    sub = "".join(
        f"<li>{badge(c.get('status'))} {opt(c.get('name'), '')}: {opt(c.get('message'), '')}</li>"
        for c in check.get("clauses") or []
        if isinstance(c, dict)
    )
    # A check of several clauses has their messages joined as its own: a passing one shows
    # them once, per clause; a failing one also its message, as report.md and JUnit quote it.
    message = "" if sub and status != "fail" else f" {opt(check.get('message'), '')}"
    clauses = f'<ul class="clauses">{sub}</ul>' if sub else ""
    if check.get("examined") == 0 and not sub:  # passed with nothing to examine: never unseen
        message = f" passed: {opt(check.get('message'), '')}"
    # A warning or info check says so: failed, it did not fail the case.
    severity = check.get("severity")
    sev = f' <span class="sev">{opt(severity)}</span>' if severity in ("warning", "info") else ""
    return (
        f'<li class="{cls}">{badge(status)}{sev} <b>{opt(check.get("check"))}</b>{message}{clauses}'
        f"{values(check.get('details'))}</li>"
    )


def _compact_checks(rows: list[dict[str, Any]]) -> str:
    names = " ".join(
        f'<span class="ck {status_class(c.get("status"))}">{opt(c.get("check"))}</span>'
        for c in rows
    )
    details = next(
        (
            c["details"]
            for c in rows
            if isinstance(c.get("details"), dict) and "matched" in c["details"]
        ),
        None,
    )
    listed = ""
    if details is not None:
        missing = details.get("missing") or []
        listed = f'<p class="kw">keywords {_chips(details.get("matched") or [], "hit")}'
        listed += (f" missing {_chips(missing, 'miss')}" if missing else "") + "</p>"
    return f'<h3>Checks</h3><p class="cks">{names or "none applied"}</p>{listed}'


def checks(rows: list[Any], compact: bool = False) -> str:
    """Every check of a run: status, message, clauses and the values it read. `compact`
    (a passing run on a page with many, see html_trace.SUMMARY): names and statuses, and
    the keywords matched and missing, only."""
    rows = [c for c in rows if isinstance(c, dict)]
    if compact:
        return _compact_checks(rows)
    items = "".join(_check(c) for c in rows)
    return f'<h3>Checks</h3><ul class="checks">{items or "<li>none applied</li>"}</ul>'


def failed_checks(rows: list[Any]) -> str:
    """A run's failed checks (all the report keeps of a run that is not its case's
    representative)."""
    items = "".join(
        f'<li class="fail">{badge("fail")} <b>{opt(f.get("check"))}</b>'
        f" {opt(f.get('message'), '')}</li>"
        for f in rows
        if isinstance(f, dict)
    )
    return f'<h3>Failed checks</h3><ul class="checks">{items}</ul>' if items else ""


# --------------------------------------------------------------------------------------------
# The panel


def _fact(name: str, value: str) -> str:
    return f"<dt>{name}</dt><dd>{value}</dd>"


def _facts(row: dict[str, Any], extra: dict[str, Any] | None, change: str | None) -> str:
    facts = []
    if extra is not None:
        for key, name in (("question", "Question"), ("description", "Description")):
            if isinstance(extra.get(key), str):
                facts.append(_fact(name, block(extra[key].strip())))
    if row.get("fixture"):
        facts.append(_fact("Trace", text(row["fixture"])))
    if row.get("tags"):
        facts.append(_fact("Tags", _chips(row["tags"], None)))
    runs = row.get("runs") or {}
    if runs.get("total", 0) > 1:
        flaky = " (flaky)" if row.get("flaky") else ""
        facts.append(
            _fact("Runs", f"{num(runs.get('passed'))} of {num(runs.get('total'))} passed{flaky}")
        )
    if change:
        facts.append(_fact("Baseline", text(change)))
    notes = "".join(f"<li>{text(n)}</li>" for n in row.get("notes") or [])
    if notes:
        facts.append(_fact("Notes", f"<ul>{notes}</ul>"))
    return f'<dl class="facts">{"".join(facts)}</dl>' if facts else ""


def _representative(row: dict[str, Any], items: list[dict[str, Any]]) -> int:
    """The 1-based run the case row describes: the one with the row's trace, else the first
    that did not pass, else the first."""
    for n, item in enumerate(items, start=1):
        if row.get("fixture") is not None and item.get("fixture") == row.get("fixture"):
            return n
    return next((n for n, i in enumerate(items, start=1) if i.get("status") != "pass"), 1)


def _listed(items: list[dict[str, Any]], rep: int) -> list[int]:
    """The runs a grid lists: every one that did not pass, the representative, and passing
    runs while fewer than MAX_LISTED_RUNS are listed."""
    listed, room = [], MAX_LISTED_RUNS - sum(i.get("status") != "pass" for i in items)
    for n, item in enumerate(items, start=1):
        if item.get("status") != "pass" or n == rep:
            listed.append(n)
        elif room > 0:
            listed.append(n)
            room -= 1
    return listed


def _base_name(fixture: Any) -> str:
    name = str(fixture) if fixture is not None else "—"
    return name.rsplit("/", 1)[-1] or name


def _run_cell(cid: str, n: int, item: dict[str, Any]) -> str:
    status = item.get("status")
    failed = ", ".join(opt(f.get("check")) for f in item.get("failed_checks") or [])
    why = failed or (opt(item.get("reason"), "") if status != "pass" else "")
    return (
        f'<li><a class="cell {status_class(status)}" href="#case={cid}&amp;run={n}"'
        f' data-run="{n}" title="{attr(item.get("fixture"))}"><b>{n}.'
        f" {text(_base_name(item.get('fixture')))}</b>"
        f"<small>{status_word(status)}{': ' + why if why else ''}</small></a></li>"
    )


def _run_meta(item: dict[str, Any]) -> str:
    """Verdict, tool calls and duration in one line; what a run does not record is left out."""
    parts = []
    if item.get("verdict") is not None:
        parts.append(f"verdict {text(item['verdict'])}")
    if item.get("tool_call_count") is not None:
        parts.append(f"{num(item['tool_call_count'])} tool calls")
    if item.get("duration_ms") is not None:
        parts.append(num(item["duration_ms"], " ms"))
    return " · ".join(parts)


def _run_section(
    row: dict[str, Any],
    n: int,
    item: dict[str, Any],
    extra: dict[str, Any] | None,
    ctx: Context,
    rep: int,
) -> str:
    reason = f"<p>{text(item['reason'])}</p>" if item.get("reason") else ""
    found = ((extra or {}).get("runs") or {}).get(item.get("fixture"))
    if n == rep:
        body = checks(row.get("checks") or [], ctx.compact(item.get("status")))
    else:
        body = failed_checks(item.get("failed_checks") or [])
    return (
        f'<section class="run" id="case={attr(row["case_id"])}&amp;run={n}" data-run="{n}">'
        f"<h3>Run {n}: {opt(item.get('fixture'))} {badge(item.get('status'))}</h3>"
        f'<p class="meta">{_run_meta(item)}</p>{reason}{body}'
        f"{trace_parts(found, item.get('status'), ctx.collected, ctx.level)}</section>"
    )


@dataclass(frozen=True)
class Context:
    """What every panel of a page shares: whether the report has extras at all, and the
    form of its passing runs' trace parts (html_trace.passing_level)."""

    collected: bool
    level: str = FULL

    def compact(self, status: Any) -> bool:
        """Whether a run's checks are listed by name only (passing runs at SUMMARY)."""
        return status == "pass" and self.level == SUMMARY


def _runs(
    row: dict[str, Any],
    items: list[dict[str, Any]],
    extra: dict[str, Any] | None,
    ctx: Context,
    rep: int,
) -> str:
    cid = fragment(row["case_id"])
    listed = _listed(items, rep)
    cells = "".join(_run_cell(cid, n, items[n - 1]) for n in listed)
    more = len(items) - len(listed)
    note = (
        f'<p class="note">{num(more)} more passing runs are not listed; report.json has them.</p>'
        if more
        else ""
    )
    sections = "".join(_run_section(row, n, items[n - 1], extra, ctx, rep) for n in listed)
    return f'<h3>Runs</h3><ol class="grid">{cells}</ol>{note}{sections}'


def _summary(row: dict[str, Any]) -> str:
    why = " · ".join(p for p in (opt(row.get("reason"), ""), _run_meta(row)) if p)
    return (
        f"<summary>{badge(row.get('status'))} <b>{text(row['case_id'])}</b>"
        f' <span class="why">{why}</span></summary>'
    )


def panel(
    row: dict[str, Any], extra: dict[str, Any] | None, ctx: Context, change: str | None
) -> str:
    """One case's <details>: `extra` is its Report.extras entry, `change` what the baseline
    comparison says of it."""
    items = [i for i in (row.get("runs") or {}).get("items") or [] if isinstance(i, dict)]
    status = row.get("status")
    attrs = f'class="case" id="case={attr(row["case_id"])}"'
    parts = [_facts(row, extra, change), "" if ctx.collected else NO_EXTRAS]
    if items:
        rep = _representative(row, items)
        attrs += f' data-rep="{rep}"'
        parts.append(_runs(row, items, extra, ctx, rep))
    else:
        found = ((extra or {}).get("runs") or {}).get(row.get("fixture"))
        if row.get("checks") or status in ("pass", "fail"):
            parts.append(checks(row.get("checks") or [], ctx.compact(status)))
        else:
            parts.append('<p class="none">No check ran: the case has no evaluated trace.</p>')
        parts.append(trace_parts(found, status, ctx.collected, ctx.level))
    if status != "pass":
        attrs += " open"
    return f'<details {attrs}>{_summary(row)}<div class="body">{"".join(parts)}</div></details>\n'
