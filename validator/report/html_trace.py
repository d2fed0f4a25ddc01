"""What a run's trace adds to its panel (from `Report.extras`): the answer, with keywords
highlighted, and the timeline of its tool and model calls.

How much is shown (the page must stay small: 2,000 cases under 10 MB, see bench/report_html.py):

- Runs that did not pass: always everything: the answer up to ANSWER_LIMIT characters and
  every tool call's arguments and result (ARGUMENTS_LIMIT / RESULT_LIMIT characters), on
  expand, under its bar.
- Passing runs: the richest of three forms whose total for the page's passing runs fits in
  PASSING_BUDGET characters: FULL (the same as above), BARS (the timeline without arguments
  and results, the answer up to 1,500 characters) or SUMMARY (a one-line list of the calls,
  the answer up to 400 characters). One form for every passing run of the page, so they read
  alike; a suite of a few hundred cases gets FULL.

Clipped text always says how long the whole was.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from .answer_html import render
from .extras import ANSWER_LIMIT
from .html_text import block, marked, num, opt, text

FULL, BARS, SUMMARY = "full", "bars", "summary"
PASSING_BUDGET = 2_500_000  # characters of passing runs' answers, calls and tool output
ANSWER_CLIP = {FULL: ANSWER_LIMIT, BARS: 1500, SUMMARY: 400}
ROW_COST = 130  # about what the markup of one call's bar costs, in characters

SEQUENTIAL = (
    '<p class="note">The trace view has no start times: calls are drawn end to end in trace'
    " order, on one scale (the run's duration, or the calls' total when longer).</p>"
)
# Said once, above the panels, when passing runs are shown shorter than in FULL.
SHORTER = {
    BARS: "This page has many passing runs: theirs show the timeline without tool arguments"
    " and results (the trace files have them). Runs that did not pass are shown in full.",
    SUMMARY: "This page has many passing runs: theirs list the checks by name, the calls in"
    " one line and the first 400 characters of the answer (report.json has every check's"
    " message, the trace files the calls). Runs that did not pass are shown in full.",
}


def _length(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0


def cost(extra: dict[str, Any], level: str) -> int:
    """About how many characters a run's trace part costs the page at `level`."""
    answer = min(_length(extra.get("answer")), ANSWER_CLIP[level])
    if level == SUMMARY:
        return answer + 200
    calls = [c for c in [*(extra.get("tool_calls") or []), *(extra.get("llm_calls") or [])]]
    total = answer + sum(ROW_COST + _length(c.get("name") or c.get("model")) for c in calls)
    if level == FULL:
        total += sum(_length(c.get("arguments")) + _length(c.get("result")) for c in calls)
    return total


def passing_level(passing: Iterable[dict[str, Any]]) -> str:
    """The one form for the page's passing runs: the richest that fits PASSING_BUDGET."""
    runs = list(passing)
    for level in (FULL, BARS):
        if sum(cost(e, level) for e in runs) <= PASSING_BUDGET:
            return level
    return SUMMARY


# --------------------------------------------------------------------------------------------
# Answer


_HEADING = re.compile(r"<(/?)h[1-6](?=[\s>])")


def _demoted(html: str) -> str:
    """The rendered answer's headings as paragraphs (class `h`): the page's outline is its
    own (a panel's sections are h3), and an answer's `#` must not break it."""
    return _HEADING.sub(lambda m: "</p" if m.group(1) else '<p class="h"', html)


def answer(extra: dict[str, Any], limit: int = ANSWER_LIMIT) -> str:
    full = extra.get("answer")
    if not isinstance(full, str):
        return '<h3>Answer</h3><p class="none">The trace has no final answer.</p>'
    shown = full[:limit]
    length = extra.get("answer_length")
    length = length if isinstance(length, int) and length > len(shown) else len(shown)
    note = (
        f'<p class="clip">The first {num(len(shown))} of {num(length)} characters are shown.</p>'
        if length > len(shown)
        else ""
    )
    return (
        f'<h3>Answer</h3><div class="md" tabindex="0">{_demoted(render(shown))}</div>'
        '<details class="src"><summary>Markdown source, keywords marked</summary>'
        f'<div class="answer" tabindex="0">{marked(shown, extra.get("marks"))}</div></details>'
        f"{note}"
    )


# --------------------------------------------------------------------------------------------
# Timeline


def _duration(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        return None
    return float(value)


def _span(extra: dict[str, Any], tools: list[Any], llms: list[Any]) -> float:
    """The timeline's scale: the run's duration, or the calls' total when longer."""
    totals = [sum(_duration(c.get("duration_ms")) or 0.0 for c in calls) for calls in (tools, llms)]
    return max([_duration(extra.get("duration_ms")) or 0.0, *totals])


def _pct(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _tracks(calls: list[dict[str, Any]], span: float) -> list[str]:
    """Each call's bar, placed after the previous call's."""
    out, offset = [], 0.0
    for call in calls:
        duration = _duration(call.get("duration_ms"))
        if duration is None or not span:
            out.append('<span class="tk"><span class="unknown"></span></span>')
            continue
        left, width = offset / span * 100, duration / span * 100
        offset += duration
        out.append(
            f'<span class="tk"><span style="left:{_pct(left)}%;width:{_pct(width)}%"></span></span>'
        )
    return out


def _io(title: str, value: Any, length: Any) -> str:
    if not isinstance(value, str):
        return ""
    full = length if isinstance(length, int) and length > len(value) else len(value)
    shown = f", the first {num(len(value))} shown" if full > len(value) else ""
    return f'<p>{title} ({num(full)} characters{shown})</p><pre tabindex="0">{block(value)}</pre>'


def _tool_row(call: dict[str, Any], track: str, level: str) -> str:
    error = call.get("status") == "error"
    head = (
        f'<span class="nm">{opt(call.get("name"), "(no name)")}</span>{track}'
        f'<span class="ms">{num(call.get("duration_ms"), " ms")}</span>'
    )
    io = ""
    if level == FULL:
        io = _io("Arguments", call.get("arguments"), call.get("arguments_length"))
        io += _io("Result", call.get("result"), call.get("result_length"))
    if not io:
        return f'<li class="err">{head}</li>' if error else f"<li>{head}</li>"
    cls = "x err" if error else "x"
    return f'<li class="{cls}"><details><summary>{head}</summary><div class="io">{io}</div></details></li>'


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


ROLES = ("system", "user", "assistant", "tool")


def _message(message: dict[str, Any]) -> str:
    role = message.get("role")
    cls = role if role in ROLES else "other"
    value = message.get("text")
    shown = value if isinstance(value, str) else ""
    length = message.get("length")
    full = length if isinstance(length, int) and length > len(shown) else len(shown)
    clip = f", the first {num(len(shown))} shown" if full > len(shown) else ""
    return (
        f'<li class="msg {cls}"><b>{opt(role, "(no role)")}</b>'
        f" <small>{num(full)} characters{clip}</small>"
        f'<pre tabindex="0">{marked(shown, message.get("marks"))}</pre></li>'
    )


def messages(call: dict[str, Any]) -> str:
    """The messages of one model call (prompt and completion), collapsed."""
    listed = [m for m in call.get("messages") or [] if isinstance(m, dict)]
    if not listed:
        return ""
    roles = ", ".join(dict.fromkeys(opt(m.get("role"), "(no role)") for m in listed))
    return (
        f'<details class="msgs"><summary>{num(len(listed))} messages ({roles})</summary>'
        f'<ol class="msgs">{"".join(_message(m) for m in listed)}</ol></details>'
    )


def _llm_row(call: dict[str, Any], track: str, level: str) -> str:
    return (
        f'<li class="llm"><span class="nm">{opt(call.get("model"), "(model not recorded)")}'
        f'</span>{track}<span class="ms">{num(call.get("duration_ms"), " ms")}</span>'
        f"{_tokens(call)}{messages(call) if level == FULL else ''}</li>"
    )


def _lane(
    title: str, calls: list[dict[str, Any]], total: Any, span: float, llm: bool, level: str
) -> str:
    rows = [
        (_llm_row if llm else _tool_row)(call, track, level)
        for call, track in zip(calls, _tracks(calls, span), strict=True)
    ]
    total = total if isinstance(total, int) and total > len(calls) else len(calls)
    if total > len(calls):
        rows.append(f'<li class="more">and {num(total - len(calls))} more, not drawn</li>')
    return f'<h4>{title} ({num(total)})</h4><ol class="lane">{"".join(rows)}</ol>'


def _calls(extra: dict[str, Any], key: str) -> list[dict[str, Any]]:
    return [c for c in extra.get(key) or [] if isinstance(c, dict)]


def _summary_line(extra: dict[str, Any]) -> str:
    """The SUMMARY form: the calls by name, the total duration and the tokens, in one line."""
    tools, llms = _calls(extra, "tool_calls"), _calls(extra, "llm_calls")
    names = Counter(str(c.get("name")) for c in tools)
    listed = ", ".join(f"{text(n)} ×{k}" if k > 1 else text(n) for n, k in names.most_common(8))
    more = ", …" if len(names) > 8 else ""
    parts = [f"{num(len(tools))} tool calls" + (f": {listed}{more}" if listed else "")]
    if llms:
        tokens = sum(c.get("total_tokens") or 0 for c in llms)
        parts.append(f"{num(len(llms))} model calls, {num(tokens)} tokens")
    parts.append(f"{num(_span(extra, tools, llms), ' ms')} in all")
    return f'<h3>Calls</h3><p class="calls">{"; ".join(parts)}.</p>'


def timeline(extra: dict[str, Any], level: str = FULL) -> str:
    """Tool and model calls as bars on one time axis (arguments and results under each bar
    at level FULL), or, at level SUMMARY, one line."""
    tools, llms = _calls(extra, "tool_calls"), _calls(extra, "llm_calls")
    if not tools and not llms:
        return '<h3>Timeline</h3><p class="none">The trace records no tool or model calls.</p>'
    if level == SUMMARY:
        return _summary_line(extra)
    span = _span(extra, tools, llms)
    axis = (
        f'<div class="axis"><span></span><span class="scale"><span>0</span>'
        f"<span>{num(span / 2, ' ms')}</span><span>{num(span, ' ms')}</span></span></div>"
        if span
        else '<p class="none">No call records its duration.</p>'
    )
    lanes = ""
    if tools:
        lanes += _lane("Tool calls", tools, extra.get("tool_call_total"), span, False, level)
    if llms:
        lanes += _lane("Model calls", llms, extra.get("llm_call_total"), span, True, level)
    return f'<h3>Timeline</h3>{SEQUENTIAL}<div class="tl">{axis}{lanes}</div>'


def trace_parts(extra: dict[str, Any] | None, status: Any, collected: bool, level: str) -> str:
    """The answer and timeline of one run, or why they are not shown. `level`: the form of
    the page's passing runs (runs that did not pass are always shown in full)."""
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
        return f'<p class="none">{text(extra["unreadable"])}</p>'
    level = level if status == "pass" else FULL
    errors = "".join(f"<li>{text(e)}</li>" for e in extra.get("errors") or [] if isinstance(e, str))
    errors = f'<h3>Errors the trace records</h3><ul class="errs">{errors}</ul>' if errors else ""
    return answer(extra, ANSWER_CLIP[level]) + timeline(extra, level) + errors
