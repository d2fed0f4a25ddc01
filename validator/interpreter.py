"""The interpreter: evaluates compiled check specs against one trace document.

It is the only place that knows about queries, bindings and guards; predicates only see values.
Every message it returns names the JSONPath it read, so a reader of the report knows where to
look in the trace.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .loading.specs import Binding, Clause, Condition, Spec
from .outcomes import FAIL, PASS, SKIPPED, CheckResult, ClauseResult
from .predicates import Outcome, TraceContext, run_predicate
from .query import Query


def evaluate_spec(spec: Spec, case_fields: dict[str, Any], ctx: TraceContext) -> CheckResult:
    """Evaluate one check spec: guards first, then every clause (all must hold)."""
    skip = _guard_skip(spec.when, spec.unless, spec.skip_reason, case_fields, ctx)
    if skip is not None:
        return CheckResult(spec.id, SKIPPED, skip, report_as=spec.report_as)
    results = [_clause(clause, case_fields, ctx) for clause in spec.clauses]
    failed = [r for r in results if r.status == FAIL]
    if failed:
        message = "; ".join(_prefixed(spec, r) for r in failed)
        return CheckResult(spec.id, FAIL, message, results, spec.report_as)
    if all(r.status == SKIPPED for r in results):
        message = "; ".join(_prefixed(spec, r) for r in results)
        return CheckResult(spec.id, SKIPPED, message, results, spec.report_as)
    notes = [_prefixed(spec, r) for r in results if r.status == SKIPPED]
    message = "; ".join([*(r.message for r in results if r.status == PASS), *notes])
    return CheckResult(spec.id, PASS, message, results, spec.report_as)


def _prefixed(spec: Spec, result: ClauseResult) -> str:
    if len(spec.clauses) == 1:
        return result.message
    return f"[{result.name}] {result.message}"


def _clause(clause: Clause, case_fields: dict[str, Any], ctx: TraceContext) -> ClauseResult:
    skip = _guard_skip(clause.when, clause.unless, clause.skip_reason, case_fields, ctx)
    if skip is not None:
        return ClauseResult(clause.name, SKIPPED, skip)
    outcome = _run(clause.condition, case_fields, ctx)
    status = PASS if outcome.passed else FAIL
    where = _expressions(clause.condition.queries)
    return ClauseResult(clause.name, status, f"{where}: {outcome.message}", outcome.details)


@lru_cache(maxsize=4096)
def _expressions(queries: tuple[Query, ...]) -> str:
    return ", ".join(q.expression for q in queries)


def _guard_skip(
    when: Condition | None,
    unless: Condition | None,
    reason: str | None,
    case_fields: dict[str, Any],
    ctx: TraceContext,
) -> str | None:
    """The recorded reason for skipping, or None when the check applies."""
    if when is not None and not _run(when, case_fields, ctx).passed:
        return "skipped: " + (reason or f"condition on {_where(when)} does not hold")
    if unless is not None and _run(unless, case_fields, ctx).passed:
        return "skipped: " + (reason or f"exception on {_where(unless)} holds")
    return None


def _where(condition: Condition) -> str:
    return _expressions(condition.queries)


def _run(condition: Condition, case_fields: dict[str, Any], ctx: TraceContext) -> Outcome:
    queries = condition.queries
    if len(queries) == 1:
        values = queries[0].find(ctx.trace)
    else:
        values = []
        for query in queries:
            values.extend(query.find(ctx.trace))
    args = {
        name: _resolve(value, case_fields, ctx) if isinstance(value, Binding) else value
        for name, value in condition.params.items()
    }
    try:
        return run_predicate(condition.predicate, values, args, ctx)
    except RecursionError:
        return Outcome(False, "the value is nested too deeply to examine")


def _resolve(value: Any, case_fields: dict[str, Any], ctx: TraceContext) -> Any:
    if not isinstance(value, Binding):
        return value
    if value.trace is not None:
        return value.trace.find(ctx.trace)
    resolved = case_fields.get(value.case) if value.case else None
    return value.default if resolved is None else resolved
