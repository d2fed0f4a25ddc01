"""run's reliability gates, around the pipeline of `commands/run.py`: the flags' parsers,
the quarantine file, warnings about cases that cannot meet their threshold, and GitHub
Actions annotations for failed checks.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from dataclasses import fields
from pathlib import Path
from typing import Any

from .. import codes
from ..display import github_command
from ..inputs import display_path
from ..loading.quarantine import Quarantine, load_quarantine
from ..loading.yamlfile import load_yaml
from ..problems import WARNING, Problem, ProblemsFound, counted
from ..report.document import Report
from ..report.gate import FAIL_ON, UNREAD, VACUOUS, Gate, parse_fail_on
from ..report.regression import MetricLimit, parse_limit
from ..results import SEVERITIES, CaseResult
from .options import parse_rate

# GitHub shows at most 10 error annotations of a step and 50 of a job; more is noise.
MAX_ANNOTATIONS = 50


def parse_ks(text: str) -> tuple[int, ...]:
    """`--k 1,3,5` -> (1, 3, 5): whole numbers >= 1, without repeats, in order."""
    ks: set[int] = set()
    for raw in text.split(","):
        entry = raw.strip()
        if not entry.isdigit() or int(entry) < 1:
            raise argparse.ArgumentTypeError(
                f"'{text}': each k is a whole number of runs, at least 1 (e.g. --k 1,3,5)"
            )
        ks.add(int(entry))
    return tuple(sorted(ks))


def parse_limit_arg(text: str) -> MetricLimit:
    try:
        return parse_limit(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


class _FailOn(argparse.Action):
    """--fail-on MODE[,vacuous][,unread]: sets the gate's fail_on, fail_vacuous and
    fail_unread."""

    def __call__(
        self, parser: Any, namespace: argparse.Namespace, values: Any, option: Any = None
    ) -> None:
        try:
            mode, vacuous, unread = parse_fail_on(str(values))
        except ValueError as exc:
            parser.error(f"argument --fail-on: {exc}")
        namespace.fail_on, namespace.fail_vacuous, namespace.fail_unread = mode, vacuous, unread


def add_gate_arguments(run: argparse.ArgumentParser) -> None:
    """The flags of `Gate`, each with the dest of its field (`gate_of` reads them by name)."""
    run.add_argument(
        "--fail-on",
        action=_FailOn,
        default="any",
        metavar="MODE",
        help=f"when to exit 1: {', '.join(FAIL_ON)} (default: any);"
        f" add ,{VACUOUS} to fail on runs with every check skipped,"
        f" ,{UNREAD} on traces holding content the view could not read",
    )
    run.set_defaults(fail_vacuous=False, fail_unread=False)
    run.add_argument(
        "--fail-severity",
        choices=SEVERITIES[:2],
        default="error",
        help="least severity of a failed check that fails a case",
    )
    run.add_argument(
        "--min-pass-rate",
        type=parse_rate,
        default=None,
        metavar="F",
        help="exit 1 when the pass rate is below F (0.9 or 90%%)",
    )
    run.add_argument(
        "--min-run-pass-rate",
        type=parse_rate,
        default=None,
        metavar="F",
        help="share of a case's runs that must pass (default: all)",
    )
    run.add_argument(
        "--quarantine",
        metavar="FILE",
        help="YAML list of {id, reason}: cases that never fail",
    )
    run.add_argument(
        "--max-regression",
        action="append",
        type=parse_limit_arg,
        default=[],
        metavar="METRIC:LIMIT",
        help="exit 1 when a figure worsened past LIMIT since --baseline"
        " (pass_rate:-0.02); repeatable",
    )


def gate_of(args: argparse.Namespace, **settled: Any) -> Gate:
    """The gate the flags ask for; `settled`: fields decided elsewhere (allow_unmatched
    from the flag and the config together)."""
    values: dict[str, Any] = {}
    for f in fields(Gate):
        if f.name in settled:
            values[f.name] = settled[f.name]
        elif hasattr(args, f.name):
            value = getattr(args, f.name)
            values[f.name] = tuple(value) if isinstance(value, list) else value
    return Gate(**values)


def print_problems(problems: Iterable[Problem]) -> None:
    for problem in sorted(problems):
        print(problem.format(), file=sys.stderr)


def read_quarantine(path: Path) -> Quarantine:
    """--quarantine FILE, read before anything is evaluated (a mistake in it exits 2)."""
    quarantine = load_quarantine(path, display_path(path))
    print_problems(quarantine.warnings)
    return quarantine


def warn_unknown(quarantine: Quarantine | None, case_ids: Iterable[str]) -> None:
    if quarantine is not None:
        print_problems(quarantine.unknown(case_ids))


def warn_thresholds(cases: list[CaseResult]) -> None:
    """A line on stderr for each case whose min_passes exceeds its runs (the case row has
    the same note), placed at `min_passes:` in its case file."""
    problems = []
    for case in cases:
        if case.required_passes is None or case.required_passes <= len(case.runs):
            continue
        message = next((n for n in case.notes if n.startswith("min_passes")), None)
        if message is None:
            continue
        line, column = 1, 1
        if case.file:
            try:
                at = load_yaml(Path(case.file), case.file).key_at(("min_passes",))
                line, column = at.line, at.column
            except (ProblemsFound, OSError):
                pass
        problems.append(
            Problem(case.file or case.case_id, line, column, WARNING, codes.TOO_FEW_RUNS, message)
        )
    print_problems(problems)


# --------------------------------------------------------------------------------------------
# GitHub Actions annotations


def annotations_wanted(flag: bool | None) -> bool:
    """--annotations / --no-annotations; by default, when running in GitHub Actions."""
    if flag is not None:
        return flag
    return os.environ.get("GITHUB_ACTIONS", "").strip().lower() == "true"


def annotation_lines(report: Report) -> list[str]:
    """`::error` (or `::warning`) lines: one per case and failed check (the runs where it
    failed counted in the message), placed at the case key the check used; one per case in
    error or not run. Quarantined cases and cases that passed on a threshold are warnings."""
    lines: list[str] = []
    for row in report.cases():
        lines += _case_annotations(report, row)
    return lines


def _case_annotations(report: Report, row: dict[str, Any]) -> list[str]:
    level = "warning" if row["status"] == "pass" or "quarantined" in row else "error"
    runs = row["runs"].get("items") or [row]
    failed: dict[str, tuple[str, int]] = {}  # check -> (first message, runs it failed in)
    for run in runs:
        for check in run.get("failed_checks") or []:
            first, count = failed.get(check["check"], (check["message"], 0))
            failed[check["check"]] = (first, count + 1)
    suffix = f" (quarantined: {row['quarantined']})" if "quarantined" in row else ""
    out = []
    for check, (message, count) in failed.items():
        share = f" in {count} of {len(runs)} runs" if len(runs) > 1 else ""
        text = f"{row['case_id']}: {check} failed{share}: {message}{suffix}"
        out.append(_annotation(report, row, level, check, message, text))
    if row["status"] in ("error", "not_run") and not failed:
        title = "run-error" if row["status"] == "error" else "not-run"
        out.append(
            _annotation(report, row, level, title, "", f"{row['case_id']}: {row['reason']}{suffix}")
        )
    return out


def _annotation(
    report: Report, row: dict[str, Any], level: str, check: str, message: str, text: str
) -> str:
    file = report.sources.case_file(row["case_id"]) if report.sources else None
    where = report.sources.case_location(file, check, message) if report.sources and file else None
    region = where.region if where else None
    return github_command(
        level,
        text,
        file=file,
        line=region.line if region else None,
        col=region.column if region else None,
        title=check,
    )


def print_annotations(report: Report, flag: bool | None) -> None:
    if not annotations_wanted(flag):
        return
    lines = annotation_lines(report)
    for line in lines[:MAX_ANNOTATIONS]:
        print(line)
    if len(lines) > MAX_ANNOTATIONS:
        print(
            github_command(
                "notice",
                f"{counted(len(lines) - MAX_ANNOTATIONS, 'more failed check')} not annotated:"
                " see report.md or report.sarif",
            )
        )
