"""What `run` and `merge` print when their report set is written: the cases that did not
pass, the traces and files not used, the summary line, the comparison with the baseline; and
the report appended to GitHub Actions' step summary; and, when a run could not be done,
that no report was written and what the output folder still holds."""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from dataclasses import field
from pathlib import Path
from typing import Any

from ..dataclass import dataclass
from ..display import one_line
from ..inputs import IGNORED, display_path
from ..problems import counted
from ..report import REPORTERS, append_step_summary
from ..report.document import Report
from ..report.markdown import shown_change
from .options import Paint, use_color


def step_summary(report: Report, written: list[Path]) -> None:
    target = os.environ.get("GITHUB_STEP_SUMMARY", "").strip()
    if target and not append_step_summary(report, Path(target), written):
        print(
            f"warning: cannot append the report to GITHUB_STEP_SUMMARY ({target})",
            file=sys.stderr,
        )


def print_comparison(report: Report) -> None:
    comp = report.head.get("comparison")
    if not comp:
        return
    # the change of the pass rates as the report shows them (rounded), so they add up
    before = (comp.get("baseline_summary") or {}).get("pass_rate")
    change = shown_change(
        before, report.summary.get("pass_rate"), comp["delta"]["pass_rate"], "pass_rate"
    )
    print(
        f"compared with {one_line(comp['baseline'])}:"
        f" {counted(len(comp['regressions']), 'regression')},"
        f" {counted(len(comp['fixes']), 'fix')}, {len(comp['new_cases'])} new,"
        f" {len(comp['removed_cases'])} removed; pass rate"
        f" {'unchanged' if change == 'no change' else change}"
    )
    for item in comp["regressions"]:
        print(f"{'REGRESSED':9} {one_line(item['case_id'])}: {item['before']} -> {item['after']}")


def print_history(report: Report) -> None:
    """--history: one line (the section is in report.json and report.md)."""
    history = report.history
    if not history:
        return
    earlier = len(history["reports"]) - 1
    changed, flaky = history["changed"], history["flaky"]
    shown = ", ".join(one_line(i) for i in changed[:5]) + (" ..." if len(changed) > 5 else "")
    print(
        f"history ({counted(earlier, 'earlier report')} and this run): {len(changed)} changed"
        f" since the last{' (' + shown + ')' if changed else ''}, {len(flaky)} flaky"
    )


@dataclass(frozen=True)
class Terminal:
    """What a command prints as it finishes: -q only the summary line; -v every case with
    a line per check; --color the status words."""

    quiet: bool = False
    verbose: bool = False
    paint: Paint = field(default_factory=Paint)


def terminal_of(args: argparse.Namespace) -> Terminal:
    """-q, -v and --color of a parsed command line (stdout is what they print on)."""
    return Terminal(args.quiet, args.verbose, Paint(use_color(args.color, sys.stdout)))


def print_case(case: dict[str, Any], terminal: Terminal) -> None:
    """A case's line when it did not pass (every case's with -v), and with -v a line per
    check of it (of its representative run)."""
    paint = terminal.paint
    if case["status"] != "pass" or terminal.verbose:
        held = f" [quarantined: {case['quarantined']}]" if "quarantined" in case else ""
        line = f"{case['case_id']}: {case['reason'] or 'passed'}{held}"
        print(f"{paint.status(case['status'], 8)} {one_line(line)}")
    if terminal.verbose:
        for check in case.get("checks") or []:
            word = paint.status(check["status"], 7)
            print(f"    {word} {one_line(check['check'] + ': ' + check['message'])}")


LISTED = 5  # unmatched traces and unused files listed by name; past it they are counted


def _listed(word: str, items: list[dict[str, Any]], name: str, field: str) -> None:
    """The first LISTED items by name and reason, then how many more."""
    for item in items[:LISTED]:
        print(f"{word:8} {one_line(item[name])}: {one_line(item['reason'])}")
    if len(items) > LISTED:
        print(f"{word:8} and {len(items) - LISTED} more (see {field} in report.json)")


def print_summary(
    report: Report,
    written: list[Path],
    terminal: Terminal,
    allowed: str | None = None,
    printed: int = 0,
) -> None:
    """The case lines (less the first `printed` cases', printed as they were decided), the
    unmatched traces and unused files, the summary line, the comparison. `allowed`: what
    lets traces match no case without failing, as the user set it (`--allow-unmatched`, or
    `traces.allow_unmatched: true in validator.yaml`); None: they fail the run."""
    s = report.summary
    listed = report.head.get("unused_files") or []
    # Files traces.ignore names: counted, not listed (the report lists them all).
    unused = [u for u in listed if u["reason"] != IGNORED]
    ignored = len(listed) - len(unused)
    quiet = terminal.quiet
    if not quiet:
        for case in report.rows[printed:]:
            print_case(case, terminal)
        _listed("UNMATCHED", report.unmatched, "fixture", "unmatched_traces")
        _listed("UNUSED", unused, "file", "unused_files")
    line = (
        f"{counted(s['total'], 'case')}: {s['passed']} passed, {s['failed']} failed,"
        f" {s['not_run']} not run, {counted(s['errored'], 'error')}"
        f" (pass rate {s['pass_rate'] * 100:.1f}%)"
    )
    if report.unmatched:
        said = f" (allowed: {allowed})" if allowed else ""
        line += f"; {_no_case(len(report.unmatched))}{said}"
    if unused and quiet:  # -q: the one summary line, counted, never a list of paths
        line += f"; {counted(len(unused), 'file')} not used (see unused_files in report.json)"
    elif unused:
        line += f"; {unused_line(unused)}"
    if ignored:
        line += f"; {counted(ignored, 'file')} ignored (traces.ignore)"
    if s.get("checks_unexamined"):  # never a silent pass: see report.md
        line += (
            f"; {counted(s['checks_unexamined'], 'check')} passed with nothing to examine (a query"
            " matched no node; --fail-on vacuous fails them)"
        )
    print(line)
    if not quiet:
        print_comparison(report)
        print_history(report)
        print("reports: " + ", ".join(one_line(display_path(p)) for p in written))


def _no_case(unmatched: int) -> str:
    """`1 trace matches no case`, `2 traces match no case`."""
    return f"{counted(unmatched, 'trace')} {'matches' if unmatched == 1 else 'match'} no case"


def unused_line(unused: list[dict[str, str]], limit: int = 5) -> str:
    """`2 files not used: a (why), b (why)`, the first few; the report lists them all."""
    shown = ", ".join(one_line(f"{u['file']} ({u['reason']})") for u in unused[:limit])
    more = (
        f" and {len(unused) - limit} more (see unused_files in report.json)"
        if len(unused) > limit
        else ""
    )
    return f"{counted(len(unused), 'file')} not used: {shown}{more}"


_GENERATED = re.compile(rb'"generated_at"\s*:\s*"([^"\\]{1,40})"')


def no_report_line(out: Path) -> str:
    """The last line of a run that could not be done: no report was written, and the
    reports already in `out` (if any) are an earlier run's, with when they were made (the
    `generated_at` of its report.json, else the files' modification time), so nobody reads
    them as this run's."""
    shown = one_line(display_path(out))
    try:
        found = [out / r.filename for r in REPORTERS.values() if (out / r.filename).is_file()]
    except OSError:
        found = []
    if not found:
        return f"no report was written (and the folder {shown} holds none from an earlier run)"
    names = ", ".join(p.name for p in found)
    return (
        f"no report was written; {shown} still holds the reports of an earlier run"
        f" ({names}, {_made(found)}), not of this one"
    )


def _made(files: list[Path]) -> str:
    """When the reports were made: report.json's generated_at, read from its first bytes
    (the head comes first), else the newest modification time."""
    for path in files:
        if path.name == REPORTERS["json"].filename:
            try:
                with path.open("rb") as handle:
                    match = _GENERATED.search(handle.read(65536))
            except OSError:
                match = None
            if match is not None:
                return f"generated {one_line(match.group(1).decode('utf-8', 'replace'))}"
    try:
        newest = max(p.stat().st_mtime for p in files)
    except (OSError, ValueError):
        return "of unknown time"
    return f"last modified {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(newest))}"
