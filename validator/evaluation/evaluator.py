"""One trace against its case: find the case, apply its checks, read the report's metrics.

`evaluate_trace(suite, trace)` is the library's entry point; the runner keeps one
`Evaluator` per process so that a case's consecutive runs share its resolved arguments.
Never raises for any trace: what cannot be evaluated becomes a run with status `error`.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from typing import Any

from ..dependencies import missing_dependency
from ..display import shorten
from ..model import Case, Finder, Spec, Suite, TraceSettings
from ..problems import Names, did_you_mean, kind_of, show
from ..results import ERROR, FAIL, PASS, SKIPPED, CheckResult, RunResult, is_blocking
from .compaction import BRIEF_IF_PASSES, Brevity
from .interpreter import CaseArguments, compiled_check
from .predicates import TraceContext
from .query import QueryEvaluationError
from .tracefile import fields_case_id

MISSING = "MISSING"
INVALID = "INVALID"


SET_ASIDE = "set aside: its case is evaluated by another shard, or was not selected"


def set_aside(case_id: str, fixture: str | None) -> RunResult:
    """The run of a trace of a case this run does not evaluate: dropped when grouped (see
    `grouping.group_results`'s `ignore`), so nothing about it is computed."""
    return RunResult(case_id, ERROR, SET_ASIDE, fixture)


class Evaluator:
    """Evaluates traces against one suite, keeping the resolved arguments of the case seen
    last (a case's runs come one after another, so its 2nd..nth runs reuse them)."""

    def __init__(
        self,
        suite: Suite,
        settings: TraceSettings | None = None,
        aside: frozenset[str] = frozenset(),
    ) -> None:
        self.suite = suite
        # Case ids of the whole suite that this run does not evaluate (another shard's, or
        # left out by --case/--tag): their traces are set aside (`set_aside`), no suggestion
        # made, since their runs are dropped when grouped.
        self.aside = aside
        self._case_ids: Names | None = None  # made when a trace first names no case
        self.settings = settings or suite.traces  # the view's adapter and message list
        self._case: Case | None = None
        self._args = CaseArguments({})
        # The case's checks, each as its compiled program (`compiled_check`) with its id,
        # severity and blocking, or as its result when the case alone decides it (a
        # `when_input` the case does not set): such a result is made once and shared by
        # every run with the same one, read-only like the values compacted runs share.
        self._plan: list[Planned] = []
        self._set_off: dict[tuple[Spec, bool, str, bool], CheckResult] = {}
        self._blocking: dict[str, bool] = {}  # severity -> whether a failure fails the run
        self._plans: dict[tuple[Spec, ...], list[tuple[Spec, Planned]]] = {}
        # The `when_input` names of a plan's specs, and the plans made from them: a plan is
        # read-only, shared by the cases whose key (specs; for each name, whether the case
        # sets it and whether it sets it to false) is the same.
        self._switches: dict[tuple[Spec, ...], tuple[str, ...]] = {}
        self._shared_plans: dict[tuple[Any, ...], list[Planned]] = {}
        # With `keep_context`, the context of the last trace evaluated against a case (None
        # when the last one could not be), for `explain` to look at again (`look`). Off for
        # `run`, so that no trace outlives its evaluation.
        self.keep_context = False
        self.context: TraceContext | None = None

    @property
    def arguments(self) -> CaseArguments:
        """The resolved arguments of the case evaluated last."""
        return self._args

    def evaluate(
        self,
        trace: Any,
        case_id: str | None = None,
        fixture: str | None = None,
        parent: Any = None,
        *,
        own_id: bool = True,
        brevity: Callable[[str], Brevity] | None = None,
    ) -> RunResult:
        """Evaluate one parsed trace. Never raises: an internal error marks this run `error`.

        `case_id`: the case the trace belongs to (None: the id the trace names in its
        trace-fields `case_id` decides). `parent`: the document the trace was split out of,
        kept for checks that read it. `own_id` False: the trace's own case id is not
        compared with `case_id` (the case was chosen by `traces.case_id` or a case's
        `fixture:` key, which replace it). `brevity`: what the compaction the run goes to
        will keep of a run of a given case (`Compactor.brevity`; see `_check`)."""
        self.context = None
        started = time.perf_counter()
        try:
            run = self._evaluate(trace, case_id, fixture, parent, own_id, brevity)
        except Exception as exc:  # one broken trace must not stop the others
            run = RunResult(case_id or "?", ERROR, _error_reason(exc), fixture)
        run.check_seconds = time.perf_counter() - started
        return run

    def case_id_of(self, trace: Any) -> tuple[str | None, str | None]:
        """The case id a trace names, and an error reason when it names one badly."""
        return fields_case_id(self.suite.fields, trace)

    def _evaluate(
        self,
        trace: Any,
        case_id: str | None,
        fixture: str | None,
        parent: Any,
        own_id: bool,
        brevity: Callable[[str], Brevity] | None,
    ) -> RunResult:
        if not isinstance(trace, (dict, list)):
            reason = f"the trace must be a JSON object or list, found {kind_of(trace)}"
            return RunResult(case_id or "?", ERROR, reason, fixture)
        if case_id is None or own_id:
            named, problem = self.case_id_of(trace)
            if problem:
                return RunResult(case_id or "?", ERROR, problem, fixture)
            mismatch = self._mismatch(named, case_id)
            if mismatch:
                return RunResult(case_id or "?", ERROR, mismatch, fixture)
            case_id = case_id or named
        case = self.suite.cases.get(case_id or "")
        if case is None:
            if case_id in self.aside:
                return set_aside(case_id or "?", fixture)
            return self._no_case(case_id or "?", fixture)
        return self._run(case, trace, fixture, parent, brevity)

    def _no_case(self, case_id: str, fixture: str | None) -> RunResult:
        # an id from a trace is any text: it is echoed cut to a bounded length
        shown = shorten(case_id)
        if self._case_ids is None:  # the suite's ids, for every trace that names none of them
            self._case_ids = Names(self.suite.cases)
        hint = did_you_mean(case_id, self._case_ids) if shown == case_id else ""
        return RunResult(shown, ERROR, f"no case has the id '{shown}'{hint}", fixture)

    def _mismatch(self, named: str | None, case_id: str | None) -> str | None:
        """Why the trace's own case id does not fit the case it was filed under, if it does not."""
        where = self.suite.fields.expression("case_id")
        if case_id is None and named is None:
            return f"the trace has no {where}, so no case can be matched"
        if case_id is not None and named is not None and named != case_id:
            return (
                f"{where} is '{shorten(named)}', but this fixture belongs to case '{case_id}':"
                " fix the trace or move it"
            )
        return None

    def _run(
        self,
        case: Case,
        trace: Any,
        fixture: str | None,
        parent: Any,
        brevity: Callable[[str], Brevity] | None,
    ) -> RunResult:
        if case is not self._case:
            self._case, self._args = case, CaseArguments(case.fields)
            self._plan = self._planned(case)
        else:  # the case's next run: see CaseArguments.again
            self._args.again = True
        settings = self.settings
        ctx = TraceContext(trace, settings.view, settings.messages, parent)
        if self.keep_context:
            self.context = ctx
        run = RunResult(case.id, PASS, None, fixture)
        read_metrics(self.suite, ctx, run)
        brief = brevity(case.id) if brevity is not None else None
        self._check(run, ctx, brief is not None)
        if brief == BRIEF_IF_PASSES and run.status != PASS:  # kept whole after all
            run.status = PASS
            self._check(run, ctx, False)
        if ctx.view_adapter is not None:
            how = "configured" if settings.view else "detected"
            run.notes.append(
                f"the trace view ($.view) was made by the {ctx.view_adapter} adapter ({how})"
            )
            note_unread(run, ctx.view_document()["view"].get("unread") or [])
        return run

    def _check(self, run: RunResult, ctx: TraceContext, brief: bool) -> None:
        """Apply the case's checks to the trace: the run's checks, its counts, and its status
        (failed by a failed blocking check). `brief`: the run will be compacted, which keeps
        only its failed checks and its counts, so those are all that is made (`ctx.brief`
        tells the check programs: a check that passes makes no message)."""
        ctx.brief = brief
        run.checks = checks = []
        args, skipped, unexamined = self._args, 0, 0
        for program, check, severity, blocking in self._plan:
            if program is None:  # set off by the case: `check` is its shared result
                if not brief:
                    checks.append(check)
                skipped += 1
                continue
            try:
                result = program(args, ctx)
            except RecursionError:
                result = CheckResult(check, FAIL, "the trace is nested too deeply to examine")
            status = result.status
            if status == SKIPPED:
                skipped += 1
            elif status == FAIL:
                if blocking:  # `failed_blocking`
                    run.status = FAIL
            elif result.examined == 0:
                unexamined += 1
            if brief and status != FAIL:
                continue
            result.severity, result.blocking = severity, blocking
            checks.append(result)
        run.checks_skipped, run.checks_applied = skipped, len(self._plan) - skipped
        run.checks_unexamined = unexamined

    def _planned(self, case: Case) -> list[Planned]:
        """The case's checks as its runs apply them (see `_plan`): the same list for every
        case with the same specs, no severity override, and the same `when_input` inputs
        set (and set to false), so a suite of a thousand such cases makes a few."""
        specs = self.suite.checks_for(case)
        overrides = case.fields.get("severity_overrides")
        if overrides:
            return self._plan_of(case, specs, overrides)
        switches = self._switches.get(specs)
        if switches is None:
            names = [s.when_input for s in specs if s.when_input is not None]
            switches = self._switches[specs] = tuple(dict.fromkeys(names))
        key = (specs, tuple([(case.sets(n), _set_false(case, n)) for n in switches]))
        plan = self._shared_plans.get(key)
        if plan is None:
            plan = self._shared_plans[key] = self._plan_of(case, specs, None)
        return plan

    def _plan_of(
        self, case: Case, specs: tuple[Spec, ...], overrides: dict[str, str] | None
    ) -> list[Planned]:
        plan: list[Planned] = []
        for spec, entry in self._compiled(specs):
            if overrides and spec.id in overrides:
                severity = overrides[spec.id]
                entry = (entry[0], entry[1], severity, self._is_blocking(severity))
            if spec.when_input is not None and not case.sets(spec.when_input):
                off = self._set_off_result(spec, case, spec.when_input, entry[2])
                entry = (None, off, entry[2], entry[3])
            plan.append(entry)
        return plan

    def _compiled(self, specs: tuple[Spec, ...]) -> list[tuple[Spec, Planned]]:
        """Each spec of a plan with its entry at the spec's own severity (cases that name
        no `checks` share one plan, so this is made once for all of them)."""
        compiled = self._plans.get(specs)
        if compiled is None:
            compiled = self._plans[specs] = [
                (s, (compiled_check(s), s.id, s.severity, self._is_blocking(s.severity)))
                for s in specs
            ]
        return compiled

    def _is_blocking(self, severity: str) -> bool:
        blocking = self._blocking.get(severity)
        if blocking is None:
            blocking = self._blocking[severity] = is_blocking(severity, self.suite.fail_severity)
        return blocking

    def _set_off_result(self, spec: Spec, case: Case, name: str, severity: str) -> CheckResult:
        """The result of a check the case turns off (`when_input: name` not set). Its reason
        (`unset_reason`) depends only on whether the case sets `name` to false: that is the
        key, so the reason is written once, not once per case."""
        blocking = self._is_blocking(severity)
        key = (spec, _set_false(case, name), severity, blocking)
        result = self._set_off.get(key)
        if result is None:
            reason = unset_reason(case, name)
            result = CheckResult(spec.id, SKIPPED, reason, report_as=spec.report_as)
            result.severity, result.blocking = severity, blocking
            self._set_off[key] = result
        return result


# One check of a case's plan: (its program, its id, severity, blocking), or (None, its
# result, severity, blocking) when the case sets it off.
Planned = tuple[Any, Any, str, bool]


def _error_reason(exc: Exception) -> str:
    """Why a trace could not be evaluated, when evaluating it raised `exc`."""
    if isinstance(exc, MemoryError):
        return "not enough memory to evaluate this trace: raise the memory limit"
    missing = missing_dependency(exc)
    if missing is not None:
        return f"cannot evaluate this trace: {missing}"
    return f"internal error while evaluating this trace (please report it as a bug): {exc!r}"


def note_unread(run: RunResult, unread: list[dict[str, Any]]) -> None:
    """Record what the view left unread in the run (its `unread`, each entry marked `gated`
    when it is of a kind checks read) and say it in a note. Only for a trace whose view was
    made: a check (or a figure of the report) read `$.view`."""
    if not unread:
        return
    from .view import read_by_checks, unread_text  # here: the view is imported once one is made

    run.unread = [{**entry, "gated": read_by_checks(entry)} for entry in unread]
    gated = [e for e in run.unread if e["gated"]]
    other = [e for e in run.unread if not e["gated"]]
    if gated:
        run.notes.append(
            f"the view could not read content of a kind checks read: {unread_text(gated)}"
            " (run --fail-on unread fails such a trace)"
        )
    if other:
        run.notes.append(f"the view read these for errors and times only: {unread_text(other)}")


def unset_reason(case: Case, name: str) -> str:
    """Why a check with `when_input: name` was skipped."""
    if _set_false(case, name):
        return f"skipped: the case sets {name} to false"
    return f"skipped: the case does not set {name}"


def _set_false(case: Case, name: str) -> bool:
    """Whether the case itself writes `name: false` (not a spec's default)."""
    return case.fields.get(name) is False and name not in case.defaulted


def evaluate_trace(
    suite: Suite,
    trace: Any,
    case_id: str | None = None,
    fixture: str | None = None,
    parent: Any = None,
) -> RunResult:
    """Evaluate one parsed trace (a dict) against its case; never raises."""
    return Evaluator(suite).evaluate(trace, case_id, fixture, parent)


# --------------------------------------------------------------------------------------------
# The report's metrics of a run: verdict, tool calls, duration


def read_metrics(suite: Suite, ctx: TraceContext, run: RunResult) -> None:
    _verdict(suite, ctx, run)
    _tool_calls(suite, ctx, run)
    _duration(suite, ctx, run)


def _read(query: Finder, ctx: TraceContext, run: RunResult, consequence: str) -> list[Any] | None:
    """The values of a trace field, or None (with a note on the run) when it cannot be read:
    the checks read the trace themselves, and fail on their own if they cannot."""
    try:
        return ctx.find(query)
    except QueryEvaluationError as exc:
        run.notes.append(f"{exc.expression} cannot be read ({exc.reason}): {consequence}")
        return None


def _verdict(suite: Suite, ctx: TraceContext, run: RunResult) -> None:
    query = suite.fields.query("verdict")
    found = _read(query, ctx, run, "verdict not recorded") if query else []
    verdicts = [v for v in found or () if v is not None]
    if found is None:
        run.verdict_key = INVALID
    elif not verdicts:
        run.verdict_key = MISSING
    elif isinstance(verdicts[0], str):
        # Interned: a few distinct verdicts shared by every run, not one copy per trace. Cut
        # short as any text from a trace the report echoes (checks read the trace itself).
        run.verdict = run.verdict_key = sys.intern(shorten(verdicts[0]))
    else:
        run.verdict_key = INVALID


def _tool_calls(suite: Suite, ctx: TraceContext, run: RunResult) -> None:
    matches = suite.fields.query("tool_call_matches")
    if matches is not None:
        found = _read(matches, ctx, run, "tool calls not counted")
        if found is not None:
            run.tool_call_count = len(found)
        return
    listed = suite.fields.query("tool_calls")
    if listed is None:
        return
    calls = _read(listed, ctx, run, "tool calls not counted")
    if calls is None:
        return
    if not calls or calls[0] is None:
        run.tool_call_count = 0
    elif isinstance(calls[0], list):
        run.tool_call_count = len(calls[0])
    else:
        run.notes.append(
            f"{listed.expression} is {kind_of(calls[0])}, not a list: tool calls not counted"
        )


def _duration(suite: Suite, ctx: TraceContext, run: RunResult) -> None:
    query = suite.fields.query("duration_ms")
    durations = (_read(query, ctx, run, "duration not counted") if query else []) or []
    if not durations or durations[0] is None:
        return
    value = durations[0]
    where = query.expression if query else "duration_ms"
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        run.notes.append(f"{where} is {kind_of(value)}, not a number: duration not counted")
    elif not _finite(value) or value > MAX_DURATION_MS:
        run.notes.append(f"{where} is {show(value)}, too large to be a duration: not counted")
    elif value < 0:
        run.notes.append(f"{where} is {show(value)}, a negative duration: not counted")
    else:
        run.duration_ms = value


# A century in milliseconds: any larger "duration" is a broken clock or a hostile trace,
# and averaging it would overflow or drown every real figure.
MAX_DURATION_MS = 100 * 365.25 * 24 * 3600 * 1000


def _finite(value: int | float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer too large for a float
        return False
