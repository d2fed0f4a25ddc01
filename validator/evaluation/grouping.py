"""Grouping: the runs of a run, in order, into one result per case (sorted by id), with how
many of each case's runs must pass."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ..inputs import HARD_KINDS, Plan
from ..model import Suite
from ..problems import counted
from ..results import ERROR, NOT_RUN, PASS, CaseResult, RunKinds, RunResult, Runs
from ..shares import share_of
from .compaction import Compactor


def group_results(
    suite: Suite,
    runs: Iterable[RunResult],
    plan: Plan | None = None,
    ignore: Collection[str] = (),
    no_run: str = "no trace was evaluated for this case",
    min_run_pass_rate: Fraction | None = None,
) -> tuple[list[CaseResult], list[RunResult]]:
    """Case results sorted by id, plus runs that match no case (JSON Lines).

    `plan`: the fixtures folder's plan, for the cases it found no trace for (None: the
    traces came from JSON Lines or the library); `no_run`: the reason given to any other
    case that got no run. Runs of the case ids in `ignore` (cases a
    --case/--tag selection left out) are dropped: they match a case, just not one that was
    asked for. `min_run_pass_rate` (run --min-run-pass-rate): the share of runs that must
    pass in every case that sets neither min_passes nor min_pass_rate."""
    by_case, unmatched = _by_case(suite, runs, ignore)
    results = []
    for case_id, case in suite.cases.items():
        result = CaseResult(case_id, by_case[case_id], case.file, case.tags)
        kind = plan.missing.get(case_id) if plan is not None else None
        if plan is not None and kind is not None and (kind in HARD_KINDS or not result.runs):
            result.status_override = ERROR if kind in HARD_KINDS else NOT_RUN
            result.reason_override = plan.missing_reason(case_id)
        elif not result.runs:
            result.status_override = NOT_RUN
            result.reason_override = no_run
        else:
            result.required_passes, note = required_passes(
                case.fields, len(result.runs), min_run_pass_rate
            )
            if note:
                result.notes.append(note)
        results.append(result)
    return results, unmatched


def _by_case(
    suite: Suite, runs: Iterable[RunResult], ignore: Collection[str]
) -> tuple[dict[str, Runs], list[RunResult]]:
    """Each case's runs, in order, and the runs that match no case (less those in `ignore`)."""
    kinds = RunKinds()  # what runs have in common, held once for every case (see `Runs`)
    by_case = {case_id: Runs(kinds=kinds) for case_id in suite.cases}
    unmatched: list[RunResult] = []
    compact = Compactor()
    for run in runs:
        held = by_case.get(run.case_id)
        if held is None:
            if run.case_id not in ignore:
                unmatched.append(run)
            continue
        superseded = run.status != PASS and held.passed == len(held) > 0
        held.append(run)
        if superseded:
            # The case's first run that did not pass represents it from now on: its first
            # run becomes one of the many, and keeps what they keep (see Compactor).
            held.compact_first(compact.shrink(replace(held[0])))
    return by_case, unmatched


def required_passes(
    fields: Mapping[str, Any], runs: int, default_rate: Fraction | None = None
) -> tuple[int | None, str | None]:
    """How many of a case's `runs` must pass, and a note when that is more than it has.

    From the case's `min_passes` (a count) and `min_pass_rate` (a share, rounded up to whole
    runs, computed exactly: 0.7 of 10 runs is 7, never 8); both written: both must hold.
    Neither: `default_rate` when given, else None (every run must pass)."""
    count, rate = fields.get("min_passes"), fields.get("min_pass_rate")
    if isinstance(count, float) and count.is_integer():  # `8.0`: the schema's integer too
        count = int(count)
    if count is None and rate is None:
        rate = default_rate
    needed: list[int] = []
    if isinstance(rate, (int, float, Fraction)) and not isinstance(rate, bool):
        needed.append(share_of(rate, runs))
    if isinstance(count, int) and not isinstance(count, bool):
        needed.append(count)
    if not needed:
        return None, None
    required = max(needed)
    if isinstance(count, int) and count > runs:
        return required, (
            f"min_passes is {count} but the case has {counted(runs, 'run')}: it cannot pass"
            f" until it has at least {count} runs"
        )
    return required, None
