"""The CI gate: whether a finished run exits 0 or 1, and why."""

from __future__ import annotations

from fractions import Fraction

from .document import Report

FAIL_ON = ("any", "regression", "never")


def exit_decision(
    report: Report,
    fail_on: str = "any",
    min_pass_rate: Fraction | None = None,
    allow_unmatched: bool = False,
) -> tuple[int, list[str]]:
    """The exit status (0 or 1) and, when 1 comes from a gate other than `any`, why.

    `any`: 1 unless every case
    passed and every trace matched a case (with `allow_unmatched`, traces that match no
    case do not count). `regression`: 1 only when a case that passed in
    the baseline does not pass now. `never`: 0. Whatever the mode, a pass rate below
    `min_pass_rate` (compared exactly, as a fraction) makes it 1.
    """
    summary = report.summary
    reasons: list[str] = []
    if fail_on == "any":
        stray = bool(report.unmatched) and not allow_unmatched
        failed = summary["total"] != summary["passed"] or stray
    elif fail_on == "regression":
        regressions = (report.head.get("comparison") or {}).get("regressions") or []
        failed = bool(regressions)
        if failed:
            names = ", ".join(r["case_id"] for r in regressions)
            reasons.append(f"{len(regressions)} regression(s) since the baseline: {names}")
    elif fail_on == "never":
        failed = False
    else:
        raise ValueError(f"unknown fail_on {fail_on!r}")
    if min_pass_rate is not None and summary["total"]:
        rate = Fraction(summary["passed"], summary["total"])
        if rate < min_pass_rate:
            failed = True
            reasons.append(
                f"pass rate {float(rate) * 100:.1f}% is below --min-pass-rate"
                f" {float(min_pass_rate) * 100:.1f}%"
            )
    return (1 if failed else 0), reasons
