"""Baselines: an earlier report.json, read and checked, and what changed since it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..dataclass import dataclass
from ..files import FileRefused, read_file
from ..problems import UsageError
from ..results import PASS, STATUSES
from .document import SCHEMA_VERSION
from .metrics import baseline_cases, summarize
from .regression import MetricLimit, check_limits

# A report.json of 100,000 cases is ~100 MB; anything far larger is not a report.
MAX_BASELINE_BYTES = 1024 * 1024 * 1024


@dataclass(frozen=True)
class Baseline:
    """An earlier report to compare with (already checked by `baseline_problem`)."""

    document: dict[str, Any]
    source: str  # how the report names it
    keep: Callable[[dict[str, Any]], bool] | None = None  # the current case selection
    limits: tuple[MetricLimit, ...] = ()  # --max-regression
    quarantined: frozenset[str] = frozenset()  # left out of the gates, on both sides

    def comparison(
        self,
        summary: dict[str, Any],
        rows: list[dict[str, Any]],
        gated: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        out = compare(summary, rows, self.document, self.source, self.keep)
        out["gates"] = self.gates(gated or summary)
        return out

    def gates(self, now: dict[str, Any]) -> list[dict[str, Any]]:
        """`comparison.gates`: each --max-regression limit, judged on the cases that are not
        quarantined (`now` is this run's summary of them; the baseline's is made alike)."""
        if not self.limits:
            return []
        before = [
            c
            for c in self.document["cases"]
            if (self.keep is None or self.keep(c)) and c["case_id"] not in self.quarantined
        ]
        return check_limits(self.limits, summarize(baseline_cases(before)), now)


def load_baseline(path: Path, shown: str) -> dict[str, Any]:
    """An earlier report.json (or a folder holding one), checked. Raises UsageError."""
    data = _read(path, shown)
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise UsageError(f"the baseline {shown} is not UTF-8 text, so not a report.json") from None
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"the baseline {shown} is not valid JSON (line {exc.lineno} column {exc.colno}:"
            f" {exc.msg}), so not a report.json"
        ) from None
    except (RecursionError, ValueError):
        raise UsageError(f"the baseline {shown} nests too deeply to be a report.json") from None
    problem = baseline_problem(document)
    if problem:
        raise UsageError(f"the baseline {shown} cannot be compared with this run: {problem}")
    return document


def _read(path: Path, shown: str) -> bytes:
    def refuse(why: str) -> UsageError:
        return UsageError(
            f"cannot read the baseline {shown}: {why}; pass --baseline with the report.json"
            " of an earlier run"
        )

    try:
        return read_file(path, MAX_BASELINE_BYTES, "the baseline", shown)
    except FileRefused as exc:
        raise refuse(exc.why) from None


def baseline_problem(
    document: Any, again: str = "produce the baseline again with this version"
) -> str | None:
    """Why an earlier report cannot serve as a baseline, or None when it can. `again`: what
    to do about a report of another schema version."""
    if not isinstance(document, dict):
        return "it is not a report.json object"
    tool = document.get("tool")
    if "schema_version" not in document or not isinstance(tool, dict):
        return "it is not a trace-validator report.json (no schema_version or tool)"
    version = document["schema_version"]
    if type(version) is not int or version != SCHEMA_VERSION:
        return (
            f"it uses report schema version {version!r}, this version reads {SCHEMA_VERSION}:"
            f" {again}"
        )
    cases = document.get("cases")
    if not isinstance(cases, list):
        return "its 'cases' is not a list"
    return _cases_problem(cases)


def _cases_problem(cases: list[Any]) -> str | None:
    seen: set[str] = set()
    for index, case in enumerate(cases):
        where = f"cases[{index}]"
        if not isinstance(case, dict) or not isinstance(case.get("case_id"), str):
            return f"{where} has no text 'case_id'"
        if case.get("status") not in STATUSES:
            return f"{where} ({case['case_id']}) has an unknown status {case.get('status')!r}"
        if case["case_id"] in seen:
            return f"case '{case['case_id']}' appears twice"
        seen.add(case["case_id"])
    return None


_COMPARED = ("pass_rate", "avg_tool_calls", "avg_duration_ms")


def _change(after: float | None, before: float | None, digits: int) -> float | None:
    if after is None or before is None:
        return None
    return round(after - before, digits)


def _changes(
    before: dict[str, dict[str, Any]], now: dict[str, dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Regressions (passed before, not now) and fixes (did not pass before, pass now)."""
    regressions, fixes = [], []
    for case_id in sorted(set(before) & set(now)):
        old, new = before[case_id]["status"], now[case_id]["status"]
        item = {"case_id": case_id, "before": old, "after": new}
        if old == PASS and new != PASS:
            regressions.append({**item, "reason": now[case_id].get("reason")})
        elif old != PASS and new == PASS:
            fixes.append(item)
    return regressions, fixes


def compare(
    summary: dict[str, Any],
    rows: list[dict[str, Any]],
    baseline: dict[str, Any],
    source: str,
    keep: Callable[[dict[str, Any]], bool] | None = None,
) -> dict[str, Any]:
    """What changed since `baseline` (a valid earlier report): the `comparison` section.

    `keep` restricts the baseline to the cases the current run selected (--case/--tag), so
    cases left out on purpose are not reported as removed. Regressions: passed before, not
    now. Fixes: did not pass before, pass now. Averages are over evaluated runs, as in the
    summary; a change is null when either side has no value.
    """
    before_cases = [c for c in baseline["cases"] if keep is None or keep(c)]
    before = {c["case_id"]: c for c in before_cases}
    now = {c["case_id"]: c for c in rows}
    regressions, fixes = _changes(before, now)
    full = summarize(baseline_cases(before_cases))
    base = {k: full[k] for k in ("total", "passed", *_COMPARED)}
    return {
        "baseline": source,
        "baseline_generated_at": baseline.get("generated_at"),
        "baseline_summary": base,
        "regressions": regressions,
        "fixes": fixes,
        "new_cases": [
            {"case_id": i, "status": now[i]["status"]} for i in sorted(set(now) - set(before))
        ],
        "removed_cases": [
            {"case_id": i, "status": before[i]["status"]} for i in sorted(set(before) - set(now))
        ],
        "delta": {
            key: _change(summary[key], base[key], 4 if key == "pass_rate" else 3)
            for key in _COMPARED
        },
    }
