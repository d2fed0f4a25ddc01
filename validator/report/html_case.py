"""report.html's case panels: one <details> per case, reachable at `#case=<id>`.

A panel shows what the case row holds (status, reason, checks with their messages and the
values they read, keyword and evidence coverage, notes, runs) and, when the command read the
traces again (`Report.extras`, see report/extras.py), the question, the final answer with the
keywords highlighted, and a timeline of the tool and model calls. Panels of cases that did
not pass are open, so that without JavaScript every failure is on the page, as in report.md.

No <table> with header cells and no <svg> is used inside a panel: the summary table is the
page's one first-of-its-parent table with headers, and the status chart its one drawing,
which tests/test_outputs.py relies on.
"""

from __future__ import annotations

from typing import Any

from .extras import RESULT_LIMIT, as_text, clip
from .html_text import block, fragment, line, marked, num, opt

STATUS_WORD = {"pass": "pass", "fail": "fail", "not_run": "not run", "error": "error"}
CHECK_STATUSES = ("pass", "fail", "skipped")
MAX_LISTED_RUNS = 200  # runs of a case listed in its grid (every run that did not pass is)
MAX_CHIPS = 50  # entries of one list a check read

NO_EXTRAS = (
    '<p class="none">The question, the answer and the tool calls are not in report.json, so a'
    " page made from it (or by the library) cannot show them; <code>validator run --format"
    " html</code> includes them.</p>"
)
SEQUENTIAL = (
    '<p class="note">The trace view has no start times: calls are drawn end to end in trace'
    " order, on one scale (the run's duration, or the calls' total when longer).</p>"
)


def status_word(status: Any) -> str:
    """A status as people read it (`not run`), any other value escaped."""
    return STATUS_WORD[status] if isinstance(status, str) and status in STATUS_WORD else opt(status)


def status_class(status: Any) -> str:
    """The CSS class of a status: itself when it is one of ours, else `other`."""
    known = isinstance(status, str) and (status in STATUS_WORD or status == "skipped")
    return str(status) if known else "other"


def badge(status: Any) -> str:
    cls = status_class(status)
    return f'<span class="st {cls}">{status_word(status)}</span>'


def _chips(values: list[Any], kind: str | None) -> str:
    if not values:
        return '<span class="none">none</span>'
    tag, cls = ("mark", f' class="{kind}"') if kind else ("code", "")
    shown = " ".join(f"<{tag}{cls}>{line(as_text(v))}</{tag}>" for v in values[:MAX_CHIPS])
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
    text, length = clip(value, RESULT_LIMIT)
    return opt(text, "null") + (f" … ({num(length)} characters)" if length > RESULT_LIMIT else "")


def values(details: Any) -> str:
    """The values a check read (its details), as a definition list; lists as chips."""
    if not isinstance(details, dict) or not details:
        return ""
    has_missing = "missing" in details
    rows = "".join(
        f"<dt>{line(k)}</dt><dd>{_value(str(k), v, has_missing)}</dd>" for k, v in details.items()
    )
    return f'<dl class="vals">{rows}</dl>'


def _check(check: dict[str, Any]) -> str:
    status = check.get("status")
    cls = status if status in CHECK_STATUSES else "other"
    clauses = check.get("clauses") or []
    sub = "".join(
        f"<li>{badge(c.get('status'))} {opt(c.get('name'), '')}: {opt(c.get('message'), '')}</li>"
        for c in clauses
        if isinstance(c, dict)
    )
    return (
        f'<li class="{cls}">{badge(status)} <b>{opt(check.get("check"))}</b>'
        f' <span class="msg">{opt(check.get("message"), "")}</span>'
        + (f'<ul class="clauses">{sub}</ul>' if sub else "")
        + values(check.get("details"))
        + "</li>"
    )


def checks(rows: list[Any]) -> str:
    """Every check of a run: status, message, clauses and the values it read."""
    items = "".join(_check(c) for c in rows if isinstance(c, dict))
    return f'<h4>Checks</h4><ul class="checks">{items or "<li>none applied</li>"}</ul>'


def failed_checks(rows: list[Any]) -> str:
    """A run's failed checks (all the report keeps of a run that is not its case's
    representative)."""
    items = "".join(
        f'<li class="fail">{badge("fail")} <b>{opt(f.get("check"))}</b>'
        f' <span class="msg">{opt(f.get("message"), "")}</span></li>'
        for f in rows
        if isinstance(f, dict)
    )
    return f'<h4>Failed checks</h4><ul class="checks">{items}</ul>' if items else ""


# --------------------------------------------------------------------------------------------
# Answer and timeline (from the extras)


def answer(extra: dict[str, Any]) -> str:
    text = extra.get("answer")
    if not isinstance(text, str):
        return '<h4>Answer</h4><p class="none">The trace has no final answer.</p>'
    length = extra.get("answer_length")
    length = length if isinstance(length, int) and length > len(text) else len(text)
    note = (
        f'<p class="clip">The first {num(len(text))} of {num(length)} characters are shown.</p>'
        if length > len(text)
        else ""
    )
    return f'<h4>Answer</h4><div class="answer">{marked(text, extra.get("marks"))}</div>{note}'


def _duration(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        return None
    return float(value)


def _span(extra: dict[str, Any], tools: list[Any], llms: list[Any]) -> float:
    """The timeline's scale: the run's duration, or the calls' total when longer."""
    totals = [sum(_duration(c.get("duration_ms")) or 0.0 for c in calls) for calls in (tools, llms)]
    return max([_duration(extra.get("duration_ms")) or 0.0, *totals])


def _tracks(calls: list[dict[str, Any]], span: float) -> list[str]:
    """Each call's bar, placed after the previous call's."""
    out, offset = [], 0.0
    for call in calls:
        duration = _duration(call.get("duration_ms"))
        if duration is None or not span:
            out.append('<span class="track"><span class="bar unknown"></span></span>')
            continue
        left, width = offset / span * 100, duration / span * 100
        offset += duration
        out.append(
            f'<span class="track"><span class="bar" style="left:{left:.2f}%;width:{width:.2f}%">'
            "</span></span>"
        )
    return out


def _io(title: str, text: Any, length: Any) -> str:
    if not isinstance(text, str):
        return ""
    full = length if isinstance(length, int) and length > len(text) else len(text)
    shown = f", the first {num(len(text))} shown" if full > len(text) else ""
    return f"<p>{title} ({num(full)} characters{shown})</p><pre>{block(text)}</pre>"


def _tool_row(call: dict[str, Any], track: str) -> str:
    status = "error" if call.get("status") == "error" else "ok"
    head = (
        f'<span class="nm">{opt(call.get("name"), "(no name)")}</span>{track}'
        f'<span class="ms">{num(call.get("duration_ms"), " ms")}</span>'
    )
    io = _io("Arguments", call.get("arguments"), call.get("arguments_length")) + _io(
        "Result", call.get("result"), call.get("result_length")
    )
    if not io:
        return f'<li class="call {status}"><div class="row">{head}</div></li>'
    return (
        f'<li class="call {status}"><details><summary class="row">{head}</summary>'
        f'<div class="io">{io}</div></details></li>'
    )


def _tokens(call: dict[str, Any]) -> str:
    parts = [
        f"{label} {num(call.get(key))}"
        for key, label in (
            ("input_tokens", "in"),
            ("output_tokens", "out"),
            ("total_tokens", "total"),
        )
        if call.get(key) is not None
    ]
    if call.get("cost") is not None:
        parts.append(f"cost {num(call.get('cost'))}")
    return f'<span class="tok">{" · ".join(parts) or "tokens not recorded"}</span>'


def _llm_row(call: dict[str, Any], track: str) -> str:
    return (
        f'<li class="call llm"><div class="row"><span class="nm">'
        f"{opt(call.get('model'), '(model not recorded)')}</span>{track}"
        f'<span class="ms">{num(call.get("duration_ms"), " ms")}</span></div>{_tokens(call)}</li>'
    )


def _lane(title: str, calls: list[dict[str, Any]], total: Any, span: float, llm: bool) -> str:
    rows = [
        (_llm_row if llm else _tool_row)(call, track)
        for call, track in zip(calls, _tracks(calls, span), strict=True)
    ]
    total = total if isinstance(total, int) and total > len(calls) else len(calls)
    if total > len(calls):
        rows.append(f'<li class="more">and {num(total - len(calls))} more, not drawn</li>')
    return f'<h5>{title} ({num(total)})</h5><ol class="lane">{"".join(rows)}</ol>'


def timeline(extra: dict[str, Any]) -> str:
    tools = [c for c in extra.get("tool_calls") or [] if isinstance(c, dict)]
    llms = [c for c in extra.get("llm_calls") or [] if isinstance(c, dict)]
    if not tools and not llms:
        return '<h4>Timeline</h4><p class="none">The trace records no tool or model calls.</p>'
    span = _span(extra, tools, llms)
    axis = (
        f'<div class="axis"><span></span><span class="scale"><span>0</span>'
        f"<span>{num(span / 2, ' ms')}</span><span>{num(span, ' ms')}</span></span></div>"
        if span
        else '<p class="none">No call records its duration.</p>'
    )
    lanes = ""
    if tools:
        lanes += _lane("Tool calls", tools, extra.get("tool_call_total"), span, False)
    if llms:
        lanes += _lane("Model calls", llms, extra.get("llm_call_total"), span, True)
    return f'<h4>Timeline</h4>{SEQUENTIAL}<div class="tl">{axis}{lanes}</div>'


def trace_parts(extra: dict[str, Any] | None, status: Any, collected: bool) -> str:
    """The answer and timeline of one run, or why they are not shown."""
    if not collected:
        return ""  # the panel says once that report.json has none of it
    if extra is None:
        if status in ("pass", "fail"):
            return (
                '<p class="none">This run\'s trace was not read again for the page (it reads'
                " a case's first runs and its representative run).</p>"
            )
        return ""  # not evaluated: the reason says why
    if extra.get("unreadable"):
        return f'<p class="none">{line(extra["unreadable"])}</p>'
    errors = extra.get("errors") or []
    listed = "".join(f"<li>{line(e)}</li>" for e in errors if isinstance(e, str))
    notes = f'<h4>Errors the trace records</h4><ul class="errs">{listed}</ul>' if listed else ""
    return answer(extra) + timeline(extra) + notes


# --------------------------------------------------------------------------------------------
# The panel


def _fact(name: str, value: str) -> str:
    return f"<dt>{name}</dt><dd>{value}</dd>"


def _facts(row: dict[str, Any], extra: dict[str, Any] | None, change: str | None) -> str:
    facts = []
    if extra is not None:
        for key, name in (("question", "Question"), ("description", "Description")):
            if isinstance(extra.get(key), str):
                facts.append(_fact(name, block(extra[key])))
    if row.get("fixture"):
        facts.append(_fact("Trace", line(row["fixture"])))
    facts.append(_fact("Verdict", opt(row.get("verdict"))))
    facts.append(_fact("Tool calls", num(row.get("tool_call_count"))))
    facts.append(_fact("Duration", num(row.get("duration_ms"), " ms")))
    if row.get("tags"):
        facts.append(_fact("Tags", _chips(row["tags"], None)))
    runs = row.get("runs") or {}
    if runs.get("total", 0) > 1:
        flaky = " (flaky)" if row.get("flaky") else ""
        facts.append(
            _fact("Runs", f"{num(runs.get('passed'))} of {num(runs.get('total'))} passed{flaky}")
        )
    if change:
        facts.append(_fact("Baseline", line(change)))
    notes = "".join(f"<li>{line(n)}</li>" for n in row.get("notes") or [])
    if notes:
        facts.append(_fact("Notes", f"<ul>{notes}</ul>"))
    return f'<dl class="facts">{"".join(facts)}</dl>'


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


def _run_cell(cid: str, n: int, item: dict[str, Any]) -> str:
    status = item.get("status")
    cls = status_class(status)
    failed = ", ".join(opt(f.get("check")) for f in item.get("failed_checks") or [])
    why = failed or (opt(item.get("reason"), "") if status != "pass" else "")
    return (
        f'<li><a class="cell {cls}" href="#case={cid}&amp;run={n}" data-run="{n}">'
        f"<b>{n}. {opt(item.get('fixture'))}</b>"
        f"<small>{status_word(status)}{': ' + why if why else ''}</small>"
        "</a></li>"
    )


def _run_section(
    row: dict[str, Any],
    n: int,
    item: dict[str, Any],
    extra: dict[str, Any] | None,
    rep: int,
    collected: bool,
) -> str:
    cid = line(row["case_id"])
    facts = [_fact("Verdict", opt(item.get("verdict")))]
    if item.get("reason"):
        facts.append(_fact("Reason", line(item["reason"])))
    facts.append(_fact("Tool calls", num(item.get("tool_call_count"))))
    facts.append(_fact("Duration", num(item.get("duration_ms"), " ms")))
    found = ((extra or {}).get("runs") or {}).get(item.get("fixture"))
    body = checks(row.get("checks") or []) if n == rep else failed_checks(item["failed_checks"])
    return (
        f'<section class="run" id="case={cid}&amp;run={n}" data-run="{n}">'
        f"<h4>Run {n}: {opt(item.get('fixture'))} {badge(item.get('status'))}</h4>"
        f'<dl class="facts">{"".join(facts)}</dl>{body}'
        f"{trace_parts(found, item.get('status'), collected)}</section>"
    )


def _runs(
    row: dict[str, Any],
    items: list[dict[str, Any]],
    extra: dict[str, Any] | None,
    rep: int,
    collected: bool,
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
    sections = "".join(_run_section(row, n, items[n - 1], extra, rep, collected) for n in listed)
    return f'<h4>Runs</h4><ol class="grid">{cells}</ol>{note}{sections}'


def panel(
    row: dict[str, Any], extra: dict[str, Any] | None, collected: bool, change: str | None
) -> str:
    """One case's <details>: `extra` is its Report.extras entry, `collected` whether the
    report has extras at all, `change` what the baseline comparison says of it."""
    cid = line(row["case_id"])
    items = [i for i in (row.get("runs") or {}).get("items") or [] if isinstance(i, dict)]
    status = row.get("status")
    attrs = f'class="case" id="case={cid}" data-case="{cid}"'
    parts = [_facts(row, extra, change), "" if collected else NO_EXTRAS]
    if items:
        rep = _representative(row, items)
        attrs += f' data-rep="{rep}"'
        parts.append(_runs(row, items, extra, rep, collected))
    else:
        found = ((extra or {}).get("runs") or {}).get(row.get("fixture"))
        parts.append(checks(row.get("checks") or []))
        parts.append(trace_parts(found, status, collected))
    if status != "pass":
        attrs += " open"
    reason = f' <span class="why">{line(row["reason"])}</span>' if row.get("reason") else ""
    return (
        f"<details {attrs}><summary>{badge(status)} <b>{cid}</b>{reason}</summary>"
        f'<div class="body">{"".join(parts)}</div></details>\n'
    )
