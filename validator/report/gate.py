"""The CI gate: whether a finished run exits 0 or 1, and why.

Every gate judges the cases that are not quarantined (`--quarantine`): a quarantined case is
evaluated and reported, and never fails the run, whatever its status, flakiness or figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from fractions import Fraction
from typing import Any

from ..dataclass import dataclass
from ..problems import counted, did_you_mean
from ..results import SEVERITIES
from .document import Report
from .regression import MetricLimit, parse_limit
from .unread import UNREAD
from .unread import gate_reasons as unread_reasons

FAIL_ON = ("any", "regression", "flaky", "never")
# Added to any of FAIL_ON (`--fail-on flaky,vacuous`); alone it means `any,vacuous`.
VACUOUS = "vacuous"


@dataclass(frozen=True)
class Gate:
    """Every option that decides whether a run (or a merge of shards) exits 0 or 1, in one
    place. Each field is set by the run flag of the same name (`--fail-on` sets `fail_on`,
    `fail_vacuous` and `fail_unread`), recorded in the shard file and in report.json's
    `inputs.gate` (the fields that differ from the defaults), and read back by `merge`. Adding a gate flag:
    a field here (and its reader in `_READERS`), its flag in
    `commands/gating.add_gate_arguments`, its rule in `exit_decision`."""

    fail_on: str = "any"  # one of FAIL_ON
    fail_vacuous: bool = False  # --fail-on ...,vacuous
    fail_unread: bool = False  # --fail-on ...,unread
    fail_severity: str = "error"  # the least severity whose failed checks fail a run
    min_pass_rate: Fraction | None = None
    min_run_pass_rate: Fraction | None = None  # the share of a case's runs that must pass
    max_regression: tuple[MetricLimit, ...] = ()
    quarantine: str | None = None  # the --quarantine file, as given
    allow_unmatched: bool = False  # traces that match no case do not fail the run

    def to_json(self, changed_only: bool = False) -> dict[str, Any]:
        """Plain JSON data (fractions as exact text, limits as METRIC:LIMIT); with
        `changed_only`, only the fields that differ from the defaults."""
        default = Gate()
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if changed_only and value == getattr(default, f.name):
                continue
            if isinstance(value, Fraction):
                value = str(value)
            elif f.name == "max_regression":
                value = [f"{m.metric}:{m.text}" for m in value]
            out[f.name] = value
        return out

    @classmethod
    def from_json(cls, data: Any) -> Gate:
        """The gate `to_json` wrote. Raises ValueError saying what is wrong."""
        if not isinstance(data, dict):
            raise ValueError("the gate options are not a mapping")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown gate options: {', '.join(unknown)}")
        return cls(**{name: _READERS[name](name, value) for name, value in data.items()})


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"gate option {name} is not true or false")
    return value


def _rate(name: str, value: Any) -> Fraction | None:
    if value is None:
        return None
    try:
        rate = Fraction(str(value))
    except (TypeError, ValueError, ZeroDivisionError):
        raise ValueError(f"gate option {name} is not a fraction") from None
    if not 0 <= rate <= 1:
        raise ValueError(f"gate option {name} is outside 0..1")
    return rate


def _limits(name: str, value: Any) -> tuple[MetricLimit, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"gate option {name} is not a list of METRIC:LIMIT")
    return tuple(parse_limit(text) for text in value)


def _file(name: str, value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ValueError(f"gate option {name} is not a file name")
    return value


def _choice(choices: tuple[str, ...]) -> Callable[[str, Any], str]:
    def read(name: str, value: Any) -> str:
        if value not in choices:
            raise ValueError(f"gate option {name} is not one of {', '.join(choices)}")
        return str(value)

    return read


# How `Gate.from_json` reads each field back (and checks it): one entry per field.
_READERS: dict[str, Callable[[str, Any], Any]] = {
    "fail_on": _choice(FAIL_ON),
    "fail_vacuous": _flag,
    "fail_unread": _flag,
    "fail_severity": _choice(SEVERITIES[:2]),
    "min_pass_rate": _rate,
    "min_run_pass_rate": _rate,
    "max_regression": _limits,
    "quarantine": _file,
    "allow_unmatched": _flag,
}


def parse_fail_on(text: str) -> tuple[str, bool, bool]:
    """`--fail-on`: one of FAIL_ON, optionally with `vacuous` and `unread` (a comma list) ->
    the mode, whether a vacuous run fails the run, and whether a trace holding content the
    view could not read does. Raises ValueError with a message for the user."""
    names = [n.strip().lower() for n in text.split(",")]
    extra = (VACUOUS, UNREAD)
    known = (*FAIL_ON, *extra)
    for name in names:
        if name not in known:
            hint = did_you_mean(name, known) if name else ""
            raise ValueError(
                f"unknown --fail-on '{name}'{hint}; choose one of {', '.join(FAIL_ON)},"
                f" optionally with {' and '.join(extra)} (e.g. flaky,{VACUOUS},{UNREAD})"
            )
    modes = list(dict.fromkeys(n for n in names if n not in extra))
    if len(modes) > 1:
        raise ValueError(
            f"--fail-on takes one of {', '.join(FAIL_ON)} (not {' and '.join(modes)}),"
            f" optionally with {' and '.join(extra)}"
        )
    return (modes[0] if modes else "any"), VACUOUS in names, UNREAD in names


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
    return True, [
        f"{counted(len(regressions), 'regression')} since the baseline: {_names(regressions)}"
    ]


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
    return True, [
        f"{counted(len(flaky), 'flaky case')} (some runs pass, some fail): {_names(flaky)}"
    ]


def _vacuous(judged: list[dict[str, Any]]) -> list[str]:
    """--fail-on vacuous: cases with a run that passed with every check skipped, and cases
    with a run that passed with a check that examined nothing (its query matched no node)."""
    reasons = []
    rows = [row for row in judged if row.get("vacuous_runs")]
    if rows:
        reasons.append(
            f"{counted(len(rows), 'case')} with a run whose every check was skipped"
            f" (--fail-on vacuous): {_names(rows)}"
        )
    rows = [row for row in judged if row.get("unexamined_runs")]
    if rows:
        reasons.append(
            f"{counted(len(rows), 'case')} with a run that passed a check with nothing to examine"
            f" (a query matched no node; --fail-on vacuous): {_names(rows)}"
        )
    return reasons


def _added(gate: Gate, judged: list[dict[str, Any]]) -> list[str]:
    """What the gates added to any mode (`--fail-on MODE,vacuous,unread`) fail on."""
    reasons = _vacuous(judged) if gate.fail_vacuous else []
    return reasons + (unread_reasons(judged, _names) if gate.fail_unread else [])


def exit_decision(report: Report, gate: Gate | None = None) -> tuple[int, list[str]]:
    """The exit status (0 or 1) under `gate` (the defaults when None) and, when 1 comes
    from a gate other than `any`, why.

    `any`: 1 unless every case passed and every trace matched a case (with
    `allow_unmatched`, traces that match no case do not count). `flaky`: as `any`, and
    1 also when a case is flaky (some runs pass, some fail), even one that passed on its
    min_passes / min_pass_rate. `regression`: 1 only when a case that passed in the baseline
    does not pass now. `never`: 0. `vacuous` (with any mode): 1 also when a case has a run
    that passed with every check skipped, or with a check that examined nothing. `unread`
    (with any mode): 1 also when a case has a run whose trace held content of a kind checks
    read that the view could not read. Whatever the mode, a pass rate below `min_pass_rate`
    (compared exactly, as a fraction) makes it 1, and so does any --max-regression gate that
    did not hold (`comparison.gates`).
    """
    gate = gate or Gate()
    fail_on, min_pass_rate = gate.fail_on, gate.min_pass_rate
    judged = _judged(report)
    failed, reasons = _mode(report, fail_on, judged, gate.allow_unmatched)
    if why := _added(gate, judged):
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
                + (f" ({counted(left_out, 'quarantined case')} left out)" if left_out else "")
            )
    for held in (report.head.get("comparison") or {}).get("gates") or []:
        if not held["passed"]:
            failed = True
            reasons.append(f"--max-regression {held['metric']}:{held['limit']}: {held['message']}")
    return (1 if failed else 0), reasons
