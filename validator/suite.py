"""A suite: validated cases plus compiled specs, ready to evaluate traces.

This is the library API's centre. Load a suite once (`validator.load_suite`), then call
`suite.evaluate(trace_dict)` for each trace, in this process or in many: a Suite and every
result are plain picklable data.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any

from .loading.cases import Case
from .loading.specs import Spec
from .outcomes import ERROR, FAIL, PASS, CheckResult, RunResult
from .predicates import TraceContext
from .problems import kind_of, show
from .query import Query, QueryEvaluationError

MISSING = "MISSING"
INVALID = "INVALID"


@dataclass(frozen=True)
class TraceFields:
    """Where the report reads a trace's case id, verdict, tool calls and duration."""

    case_id: Query
    verdict: Query
    duration_ms: Query
    tool_calls: Query | None = None  # the list of calls: count its items
    tool_call_matches: Query | None = None  # each call is a match: count the matches


@dataclass
class Suite:
    cases: dict[str, Case]
    specs: dict[str, Spec]
    fields: TraceFields
    _plans: dict[str, list[Spec]] = field(default_factory=dict, repr=False)
    _default_plan: list[Spec] | None = field(default=None, repr=False)

    def checks_for(self, case: Case) -> list[Spec]:
        """The specs a case applies: its `checks`, or every default check spec."""
        plan = self._plans.get(case.id)
        if plan is None:
            if case.checks:
                plan = [self.specs[name] for name in case.checks]
            else:  # the default plan, one list shared by every case that names no checks
                plan = self._default_plan
                if plan is None:
                    plan = self._default_plan = [
                        s
                        for s in sorted(self.specs.values(), key=lambda s: s.id)
                        if s.default and s.is_check
                    ]
            self._plans[case.id] = plan
        return plan

    def case_id_of(self, trace: Any) -> tuple[str | None, str | None]:
        """The case id a trace names, and an error reason when it names one badly."""
        if not isinstance(trace, dict):
            return None, None
        try:
            found = [v for v in self.fields.case_id.find(trace) if v is not None]
        except QueryEvaluationError as exc:  # no case can be matched: the run is an error
            return None, f"{exc.expression} cannot be read, so no case can be matched: {exc.reason}"
        if not found:
            return None, None
        if not isinstance(found[0], str):
            where = self.fields.case_id.expression
            return None, f"{where} must be text, found {kind_of(found[0])} {show(found[0])}"
        return found[0], None

    def evaluate(
        self, trace: Any, case_id: str | None = None, fixture: str | None = None
    ) -> RunResult:
        """Evaluate one parsed trace. Never raises: an internal error marks this run `error`."""
        try:
            return self._evaluate(trace, case_id, fixture)
        except Exception as exc:  # one broken trace must not stop the others
            reason = (
                f"internal error while evaluating this trace (please report it as a bug): {exc!r}"
            )
            return RunResult(case_id or "?", ERROR, reason, fixture)

    def _evaluate(self, trace: Any, case_id: str | None, fixture: str | None) -> RunResult:
        if not isinstance(trace, dict):
            return RunResult(
                case_id or "?",
                ERROR,
                f"the trace must be a JSON object, found {kind_of(trace)}",
                fixture,
            )
        named, problem = self.case_id_of(trace)
        if problem:
            return RunResult(case_id or "?", ERROR, problem, fixture)
        if case_id is None:
            if named is None:
                return RunResult(
                    "?",
                    ERROR,
                    f"the trace has no {self.fields.case_id.expression}, so no case can be matched",
                    fixture,
                )
            case_id = named
        elif named is not None and named != case_id:
            return RunResult(
                case_id,
                ERROR,
                f"{self.fields.case_id.expression} is '{named}', but this fixture belongs to case"
                f" '{case_id}': fix the trace or move it",
                fixture,
            )
        case = self.cases.get(case_id)
        if case is None:
            return RunResult(case_id, ERROR, f"no case has the id '{case_id}'", fixture)
        ctx = TraceContext(trace)
        run = RunResult(case_id, PASS, None, fixture)
        self._metrics(trace, run)
        from .interpreter import evaluate_spec

        run.checks = [self._check(spec, case, ctx, evaluate_spec) for spec in self.checks_for(case)]
        if any(c.status == FAIL for c in run.checks):
            run.status = FAIL
        return run

    @staticmethod
    def _check(spec: Spec, case: Case, ctx: TraceContext, evaluate_spec: Any) -> CheckResult:
        try:
            return evaluate_spec(spec, case.fields, ctx)
        except RecursionError:
            return CheckResult(spec.id, FAIL, "the trace is nested too deeply to examine")

    def _metrics(self, trace: dict[str, Any], run: RunResult) -> None:
        # A field that cannot be read is a note on the run, never a crash: the checks read
        # the trace themselves, and fail on their own if they cannot.
        found = _read(self.fields.verdict, trace, run, "verdict not recorded")
        verdicts = [v for v in found or () if v is not None]
        if found is None:
            run.verdict_key = INVALID
        elif not verdicts:
            run.verdict_key = MISSING
        elif isinstance(verdicts[0], str):
            # Interned: a few distinct verdicts shared by every run, not one copy per trace.
            run.verdict = run.verdict_key = sys.intern(verdicts[0])
        else:
            run.verdict_key = INVALID
        self._tool_calls(trace, run)
        durations = _read(self.fields.duration_ms, trace, run, "duration not counted")
        if durations and durations[0] is not None:
            value = durations[0]
            if (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and math.isfinite(value)
            ):
                run.duration_ms = value
            else:
                run.notes.append(
                    f"{self.fields.duration_ms.expression} is {kind_of(value)}, not a number: duration not counted"
                )

    def _tool_calls(self, trace: dict[str, Any], run: RunResult) -> None:
        if self.fields.tool_call_matches is not None:
            matches = _read(self.fields.tool_call_matches, trace, run, "tool calls not counted")
            if matches is not None:
                run.tool_call_count = len(matches)
        elif self.fields.tool_calls is not None:
            calls = _read(self.fields.tool_calls, trace, run, "tool calls not counted")
            if calls is None:
                return
            if not calls or calls[0] is None:
                run.tool_call_count = 0
            elif isinstance(calls[0], list):
                run.tool_call_count = len(calls[0])
            else:
                run.notes.append(
                    f"{self.fields.tool_calls.expression} is {kind_of(calls[0])}, not a list: tool calls not counted"
                )


def _read(
    query: Query, trace: dict[str, Any], run: RunResult, consequence: str
) -> list[Any] | None:
    """The values of a trace field, or None (with a note on the run) when it cannot be read."""
    try:
        return query.find(trace)
    except QueryEvaluationError as exc:
        run.notes.append(f"{exc.expression} cannot be read ({exc.reason}): {consequence}")
        return None
