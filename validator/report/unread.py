"""What the view could not read, in the reports and the gate: the summary's `unread` count,
its line in report.md and the HTML page, and `--fail-on unread`.

A run records what the view (`$.view`) left unread in its trace when a check or a figure of
the report read the view (`RunResult.unread`, each entry marked `gated` when it is content
of a kind checks read: see `view.read_by_checks`). A report of a suite where nothing was
left unread has none of the keys made here, so it is the same as before they existed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ..problems import counted, plural
from ..results import CaseResult

# Added to any --fail-on mode (`--fail-on any,unread`): a case with a run whose trace held
# content of a kind checks read that the view could not read fails the run.
UNREAD = "unread"


def summary_unread(cases: Sequence[CaseResult]) -> dict[str, Any] | None:
    """report.json's `summary.unread`: traces whose view left something unread, those of
    them with content of a kind checks read (`gated_traces`), and per kind how many traces
    held it. None when every view read everything (the key is then left out)."""
    traces = gated = 0
    kinds: dict[str, int] = {}
    for case in cases:
        tally = case.unread
        if tally is None:
            continue
        traces += tally.runs
        gated += tally.gated_runs
        for what, count in tally.kinds.items():
            kinds[what] = kinds.get(what, 0) + count
    if not traces:
        return None
    return {"traces": traces, "gated_traces": gated, "kinds": kinds}


def headline(unread: dict[str, Any]) -> str:
    """`3 traces held content the view could not read (tool-calls in 2 traces, spans in 1
    trace); 2 of them of a kind checks read`: the summary line, plain text."""
    kinds = ", ".join(
        f"{plural(what)} in {counted(n, 'trace')}" for what, n in unread["kinds"].items()
    )
    line = f"{counted(unread['traces'], 'trace')} held content the view could not read ({kinds})"
    gated = unread["gated_traces"]
    if gated:
        return f"{line}; {gated} of them of a kind checks read: run --fail-on unread fails them"
    return f"{line}; none of a kind checks read (spans, observations or runs that are no call)"


def markdown_lines(
    cases: Iterable[dict[str, Any]], summary: dict[str, Any], escape: Any
) -> Iterator[str]:
    """report.md's section naming, per case, what the view left unread."""
    unread = summary.get("unread")
    if not unread:
        return
    yield from (
        "## Unread content",
        "",
        "What the view ($.view) met in these traces and could not read (`gated`: content of a"
        " kind checks read, which `run --fail-on unread` fails).",
        "",
    )
    for case in cases:
        tally = case.get("unread")
        if not tally:
            continue
        entries = "; ".join(
            f"{counted(e['count'], e['what'])} ({e['reason']}){', gated' if e['gated'] else ''}"
            for e in tally["entries"]
        )
        runs = (
            f" ({tally['runs']} of {case['runs']['total']} runs)"
            if case["runs"]["total"] > 1
            else ""
        )
        yield f"- {escape(case['case_id'])}{runs}: {escape(entries)}"
    yield ""


def gate_reasons(judged: list[dict[str, Any]], names: Any) -> list[str]:
    """--fail-on unread: the cases with a run whose trace held content of a kind checks read
    that the view could not read."""
    rows = [row for row in judged if (row.get("unread") or {}).get("gated_runs")]
    if not rows:
        return []
    return [
        f"{counted(len(rows), 'case')} with a trace holding content the view could not read"
        f" (--fail-on unread): {names(rows)}"
    ]
