"""The CI gate: whether a finished run exits 0 or 1, and why.

Every gate judges the cases that are not quarantined (`--quarantine`): a quarantined case is
evaluated and reported, and never fails the run, whatever its status, flakiness or figures.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .document import Report

FAIL_ON = ("any", "regression", "flaky", "never")


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


def exit_decision(
    report: Report,
    fail_on: str = "any",
    min_pass_rate: Fraction | None = None,
    allow_unmatched: bool = False,
) -> tuple[int, list[str]]:
    """The exit status (0 or 1) and, when 1 comes from a gate other than `any`, why.

    `any`: 1 unless every case passed and every trace matched a case (with
    `allow_unmatched`, traces that match no case do not count). `flaky`: as `any`, and
    1 also when a case is flaky (some runs pass, some fail), even one that passed on its
    min_passes / min_pass_rate. `regression`: 1 only when a case that passed in the baseline
    does not pass now. `never`: 0. Whatever the mode, a pass rate below `min_pass_rate`
    (compared exactly, as a fraction) makes it 1, and so does any --max-regression gate that
    did not hold (`comparison.gates`).
    """
    judged = _judged(report)
    failed, reasons = _mode(report, fail_on, judged, allow_unmatched)
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
