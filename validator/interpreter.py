"""The interpreter: evaluates compiled check specs against one trace document.

It is the only place that knows about queries, bindings and guards; predicates only see values.
Every message it returns names the JSONPath it read, so a reader of the report knows where to
look in the trace.

A spec is prepared once (`_prepared`) into a form that is quick to evaluate thousands of
times: each condition knows its predicate function, the JSONPath text its messages start
with, and which parameters are fixed (literals and defaults, type-checked once) and which
must be resolved for every trace (bound to a case field or read from the trace).
"""

from __future__ import annotations

from typing import Any

from .loading.specs import Binding, Clause, Condition, Spec
from .outcomes import FAIL, PASS, SKIPPED, CheckResult, ClauseResult
from .predicates import (
    PARAM_TYPES,
    PREDICATES,
    Outcome,
    Predicate,
    TraceContext,
    param_type_error,
)
from .query import QueryEvaluationError

_ABSENT = object()


def evaluate_spec(spec: Spec, case_fields: dict[str, Any], ctx: TraceContext) -> CheckResult:
    """Evaluate one check spec: guards first, then every clause (all must hold)."""
    prepared = _prepared(spec)
    guarded = _spec_guard(prepared, case_fields, ctx)
    if guarded is not None:
        return guarded
    clauses = prepared.clauses
    if len(clauses) == 1:  # the common shape: the clause's result is the check's
        result = _clause(clauses[0], case_fields, ctx)
        return CheckResult(spec.id, result.status, result.message, [result], spec.report_as)
    results = [_clause(clause, case_fields, ctx) for clause in clauses]
    failed = [r for r in results if r.status == FAIL]
    if failed:
        message = "; ".join(_prefixed(r) for r in failed)
        return CheckResult(spec.id, FAIL, message, results, spec.report_as)
    if all(r.status == SKIPPED for r in results):
        message = "; ".join(_prefixed(r) for r in results)
        return CheckResult(spec.id, SKIPPED, message, results, spec.report_as)
    notes = [_prefixed(r) for r in results if r.status == SKIPPED]
    message = "; ".join([*(r.message for r in results if r.status == PASS), *notes])
    return CheckResult(spec.id, PASS, message, results, spec.report_as)


def _spec_guard(
    prepared: _Spec, case_fields: dict[str, Any], ctx: TraceContext
) -> CheckResult | None:
    """The result when the spec's guards decide it (skipped, or failed because a guard
    cannot be evaluated), else None."""
    spec = prepared.spec
    try:
        skip = _guard_skip(prepared.when, prepared.unless, spec.skip_reason, case_fields, ctx)
    except _Unevaluated as exc:
        return CheckResult(spec.id, FAIL, exc.message, report_as=spec.report_as)
    if skip is not None:
        return CheckResult(spec.id, SKIPPED, skip, report_as=spec.report_as)
    return None


def _prefixed(result: ClauseResult) -> str:
    return f"[{result.name}] {result.message}"


def _clause(clause: _Clause, case_fields: dict[str, Any], ctx: TraceContext) -> ClauseResult:
    condition = clause.condition
    try:
        skip = _guard_skip(clause.when, clause.unless, clause.skip_reason, case_fields, ctx)
        if skip is not None:
            return ClauseResult(clause.name, SKIPPED, skip)
        outcome = _run(condition, case_fields, ctx)
    except _Unevaluated as exc:
        return ClauseResult(clause.name, FAIL, exc.message)
    except QueryEvaluationError as exc:
        # Never "nothing matched": a check that cannot look at the trace does not pass.
        message = f"{condition.where}: cannot be evaluated, so this fails: {_why(condition, exc)}"
        return ClauseResult(clause.name, FAIL, message)
    status = PASS if outcome.passed else FAIL
    return ClauseResult(
        clause.name, status, f"{condition.where}: {outcome.message}", outcome.details
    )


def _guard_skip(
    when: _Condition | None,
    unless: _Condition | None,
    reason: str | None,
    case_fields: dict[str, Any],
    ctx: TraceContext,
) -> str | None:
    """The recorded reason for skipping, or None when the check applies.

    Raises _Unevaluated when a guard's query cannot be evaluated: skipping would let a
    check pass unexamined, so the check (or clause) fails instead."""
    if when is not None and not _guard_holds(when, "when", case_fields, ctx):
        return "skipped: " + (reason or f"condition on {when.where} does not hold")
    if unless is not None and _guard_holds(unless, "unless", case_fields, ctx):
        return "skipped: " + (reason or f"exception on {unless.where} holds")
    return None


class _Unevaluated(Exception):
    """A guard whose query could not be evaluated; `message` is the failure to report."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _guard_holds(
    condition: _Condition, role: str, case_fields: dict[str, Any], ctx: TraceContext
) -> bool:
    try:
        return _run(condition, case_fields, ctx).passed
    except QueryEvaluationError as exc:
        raise _Unevaluated(
            f"the `{role}` condition on {condition.where} cannot be evaluated, so this fails"
            f" instead of being skipped: {_why(condition, exc)}"
        ) from None


def _why(condition: _Condition, exc: QueryEvaluationError) -> str:
    """The reason, naming the expression when it is not the one the message starts with
    (one of several queries, or a parameter read from the trace)."""
    if exc.expression == condition.where:
        return exc.reason
    return f"{exc.expression}: {exc.reason}"


def run_predicate(name: str, values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Call a registered predicate on `values` with literal `args`, as a spec would.

    Defaults are filled in and types checked: a parameter of the wrong type fails with a
    message rather than raising."""
    condition = _Condition(Condition((), name, args))
    return _apply(condition, values, {}, ctx)


def _run(condition: _Condition, case_fields: dict[str, Any], ctx: TraceContext) -> Outcome:
    trace = ctx.trace
    if condition.query is not None:
        values = condition.query.find(trace)
    else:
        values = []
        for query in condition.queries:
            values.extend(query.find(trace))
    return _apply(condition, values, case_fields, ctx)


def _apply(
    condition: _Condition, values: list[Any], case_fields: dict[str, Any], ctx: TraceContext
) -> Outcome:
    args: dict[str, Any] | Outcome = condition.fixed
    if condition.resolved:
        if condition.per_case:  # bound to case fields only: the same for every run of a case
            last = condition.last
            if last[0] is case_fields:
                args = last[1]
            else:
                args = _arguments(condition, case_fields, ctx)
                condition.last = (case_fields, args)
        else:
            args = _arguments(condition, case_fields, ctx)
        if isinstance(args, Outcome):
            return args
    try:
        return condition.fn(values, args, ctx)
    except RecursionError:
        return Outcome(False, "the value is nested too deeply to examine")


def _arguments(
    condition: _Condition, case_fields: dict[str, Any], ctx: TraceContext
) -> dict[str, Any] | Outcome:
    """The predicate's arguments, or a failed Outcome naming the first parameter that has
    no value or a value of the wrong type."""
    args = dict(condition.fixed)
    for name, param, raw, ok, null_ok in condition.resolved:
        value = _resolve(raw, case_fields, ctx.trace)
        if value is None and param.default is not None:
            value = _ABSENT  # null (e.g. an empty case field) means "not set"
        if value is _ABSENT:
            if param.required:
                return Outcome(False, f"parameter '{name}' has no value")
            value = param.default
        if not ok(value) and not (value is None and null_ok):
            return Outcome(False, f"parameter '{name}' {param_type_error(param, value)}")
        args[name] = value
    return args


def _resolve(raw: Any, case_fields: dict[str, Any], trace: Any) -> Any:
    if not isinstance(raw, Binding):
        return raw
    if raw.trace is not None:
        return raw.trace.find(trace)
    resolved = case_fields.get(raw.case) if raw.case else None
    return raw.default if resolved is None else resolved


# --------------------------------------------------------------------------------------------
# Specs prepared for evaluation


class _Condition:
    __slots__ = ("fixed", "fn", "last", "per_case", "queries", "query", "resolved", "where")

    def __init__(self, condition: Condition) -> None:
        pred: Predicate = PREDICATES[condition.predicate]
        self.fn = pred.fn
        self.queries = condition.queries
        self.query = condition.queries[0] if len(condition.queries) == 1 else None
        self.where = ", ".join(q.expression for q in condition.queries)
        # Parameters whose value is known now (a literal or the default, of the right type)
        # are filled in once; the others are resolved and checked per trace, in declared
        # order, so the first parameter that is wrong is the one a message names.
        self.fixed: dict[str, Any] = {}
        resolved = []
        for name, param in pred.params.items():
            raw = condition.params.get(name, _ABSENT)
            if raw is not _ABSENT and isinstance(raw, Binding):
                fixed = _ABSENT
            elif raw is _ABSENT or (raw is None and param.default is not None):
                fixed = _ABSENT if param.required else param.default
            else:
                fixed = raw
            if fixed is not _ABSENT and param_type_error(param, fixed) is None:
                self.fixed[name] = fixed
                continue
            ok = PARAM_TYPES[param.type][1]
            null_ok = param.type in ("count-or-share", "optional-count")
            resolved.append((name, param, raw, ok, null_ok))
        self.resolved = tuple(resolved)
        # Arguments that depend on the case only are kept for the last case seen: a case's
        # runs are evaluated one after another, so its 2nd..nth runs reuse them.
        self.per_case = not any(
            isinstance(raw, Binding) and raw.trace is not None for _, _, raw, _, _ in resolved
        )
        self.last: tuple[Any, dict[str, Any] | Outcome] = (None, {})


class _Clause:
    __slots__ = ("condition", "name", "skip_reason", "unless", "when")

    def __init__(self, clause: Clause) -> None:
        self.name = clause.name
        self.condition = _Condition(clause.condition)
        self.when = _optional(clause.when)
        self.unless = _optional(clause.unless)
        self.skip_reason = clause.skip_reason


class _Spec:
    __slots__ = ("clauses", "spec", "unless", "when")

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.clauses = tuple(_Clause(c) for c in spec.clauses)
        self.when = _optional(spec.when)
        self.unless = _optional(spec.unless)


def _optional(condition: Condition | None) -> _Condition | None:
    return None if condition is None else _Condition(condition)


# Prepared specs by id(spec); each entry keeps its spec alive, so an id is never reused
# while its entry exists. Bounded: a long-lived process loading suite after suite (the
# library API) starts over rather than grow.
_PREPARED: dict[int, _Spec] = {}
_PREPARED_MAX = 4096


def _prepared(spec: Spec) -> _Spec:
    prepared = _PREPARED.get(id(spec))
    if prepared is None or prepared.spec is not spec:
        if len(_PREPARED) >= _PREPARED_MAX:
            _PREPARED.clear()
        prepared = _PREPARED[id(spec)] = _Spec(spec)
    return prepared
