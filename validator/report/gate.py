"""The CI gate: whether a finished run exits 0 or 1, and why.

Every gate judges the cases that are not quarantined (`--quarantine`): a quarantined case is
evaluated and reported, and never fails the run, whatever its status, flakiness or figures.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..problems import did_you_mean
from .document import Report

FAIL_ON = ("any", "regression", "flaky", "never")
# Added to any of FAIL_ON (`--fail-on flaky,vacuous`); alone it means `any,vacuous`.
VACUOUS = "vacuous"


def parse_fail_on(text: str) -> tuple[str, bool]:
    """`--fail-on`: one of FAIL_ON, optionally with `vacuous` (a comma list) -> the mode and
    whether a vacuous run fails the run. Raises ValueError with a message for the user."""
    names = [n.strip().lower() for n in text.split(",")]
    known = (*FAIL_ON, VACUOUS)
    for name in names:
        if name not in known:
            hint = did_you_mean(name, known) if name else ""
            raise ValueError(
                f"unknown --fail-on '{name}'{hint}; choose one of {', '.join(FAIL_ON)},"
                f" optionally with {VACUOUS} (e.g. flaky,{VACUOUS})"
            )
    modes = list(dict.fromkeys(n for n in names if n != VACUOUS))
    if len(modes) > 1:
        raise ValueError(
            f"--fail-on takes one of {', '.join(FAIL_ON)} (not {' and '.join(modes)}),"
            f" optionally with {VACUOUS}"
        )
    return (modes[0] if modes else "any"), VACUOUS in names


def _judged(report: Report) -> list[dict[str, Any]]:
    return [row for row in report.rows if "quarantined" not in row]


def _names(rows: list[dict[str, Any]], limit: int = 10) -> str:
    ids = [str(r["case_id"]) for r in rows]
    return ", ".join(ids[:limit]) + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def _regressed(report: Report) -> tuple[bool, list[str]]:
    """--fail-on regression: cases that passed in the baseline and do not now."""
    regressions = (report.head.get("comparison") or {}).get("regressions") or []
    quarantined = {r["case_id"] for r in report.rows if "quarantined" in r}
    regressions = [r for r in regressions if r["case_id"] not in quarantined]
    if not regressions:
        return False, []
    return True, [f"{len(regressions)} regression(s) since the baseline: {_names(regressions)}"]


def _mode(
    report: Report, fail_on: str, judged: list[dict[str, Any]], allow_unmatched: bool = False
) -> tuple[bool, list[str]]:
    """Whether `fail_on` fails the run, and the reasons worth printing."""
    if fail_on == "never":
        return False, []
    if fail_on == "regression":
        return _regressed(report)
    if fail_on not in ("any", "flaky"):
        raise ValueError(f"unknown fail_on {fail_on!r}")
    stray = bool(report.unmatched) and not allow_unmatched
    failed = any(row["status"] != "pass" for row in judged) or stray
    flaky = [row for row in judged if row.get("flaky")] if fail_on == "flaky" else []
    if not flaky:
        return failed, []
    return True, [f"{len(flaky)} flaky case(s) (some runs pass, some fail): {_names(flaky)}"]


def _vacuous(judged: list[dict[str, Any]]) -> list[str]:
    """--fail-on vacuous: cases with a run that passed with every check skipped, and cases
    with a run that passed with a check that examined nothing (its query matched no node)."""
    reasons = []
    rows = [row for row in judged if row.get("vacuous_runs")]
    if rows:
        reasons.append(
            f"{len(rows)} case(s) with a run whose every check was skipped (--fail-on vacuous):"
            f" {_names(rows)}"
        )
    rows = [row for row in judged if row.get("unexamined_runs")]
    if rows:
        reasons.append(
            f"{len(rows)} case(s) with a run that passed a check with nothing to examine"
            f" (a query matched no node; --fail-on vacuous): {_names(rows)}"
        )
    return reasons


def exit_decision(
    report: Report,
    fail_on: str = "any",
    min_pass_rate: Fraction | None = None,
    allow_unmatched: bool = False,
    vacuous: bool = False,
) -> tuple[int, list[str]]:
    """The exit status (0 or 1) and, when 1 comes from a gate other than `any`, why.

    `any`: 1 unless every case passed and every trace matched a case (with
    `allow_unmatched`, traces that match no case do not count). `flaky`: as `any`, and
    1 also when a case is flaky (some runs pass, some fail), even one that passed on its
    min_passes / min_pass_rate. `regression`: 1 only when a case that passed in the baseline
    does not pass now. `never`: 0. `vacuous` (with any mode): 1 also when a case has a run
    that passed with every check skipped, or with a check that examined nothing. Whatever the mode, a pass rate below `min_pass_rate`
    (compared exactly, as a fraction) makes it 1, and so does any --max-regression gate that
    did not hold (`comparison.gates`).
    """
    judged = _judged(report)
    failed, reasons = _mode(report, fail_on, judged, allow_unmatched)
    if vacuous and (why := _vacuous(judged)):
        failed = True
        reasons += why
    passed = sum(row["status"] == "pass" for row in judged)
    if min_pass_rate is not None and judged:
        rate = Fraction(passed, len(judged))
        if rate < min_pass_rate:
            failed = True
            left_out = len(report.rows) - len(judged)
            reasons.append(
                f"pass rate {float(rate) * 100:.1f}% is below --min-pass-rate"
                f" {float(min_pass_rate) * 100:.1f}%"
                + (f" ({left_out} quarantined case(s) left out)" if left_out else "")
            )
    for gate in (report.head.get("comparison") or {}).get("gates") or []:
        if not gate["passed"]:
            failed = True
            reasons.append(f"--max-regression {gate['metric']}:{gate['limit']}: {gate['message']}")
    return (1 if failed else 0), reasons
