"""What one condition saw on one trace, for `explain`: the same queries, arguments and
predicate the check was given (`look`), each step's result kept.

Its own module: only `explain` asks, so `run` never imports it.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from ..dataclass import dataclass
from ..model import Condition
from .interpreter import CaseArguments, apply_condition
from .predicates import Outcome, TraceContext
from .query import QueryEvaluationError


@dataclass(slots=True)
class Found:
    """One query of a condition on one trace: its values, or why it cannot be evaluated."""

    expression: str
    values: list[Any] = field(default_factory=list)
    error: str | None = None


@dataclass(slots=True)
class Look:
    """What one condition (a check's, or a guard's) saw on one trace.

    `arguments`: what the predicate was given (literals, defaults and bound values,
    resolved); None when a parameter has no usable value, `problem` saying which. `passed`
    and `message`: the predicate's outcome; None when a query could not be evaluated."""

    found: list[Found]
    arguments: dict[str, Any] | None
    problem: str | None = None
    passed: bool | None = None
    message: str | None = None


def look(condition: Condition, case: CaseArguments, ctx: TraceContext) -> Look:
    """Evaluate `condition` on the trace of `ctx` as the interpreter does (its queries, the
    case's resolved arguments, the predicate), keeping what each step gave. Never raises."""
    found = []
    for query in condition.queries:
        try:
            found.append(Found(query.expression, ctx.find(query)))
        except QueryEvaluationError as exc:
            found.append(Found(query.expression, error=exc.reason))
        except RecursionError:
            found.append(Found(query.expression, error="the trace is nested too deeply"))
    try:
        args = case.of(condition, ctx)
    except QueryEvaluationError as exc:  # a parameter bound to the trace
        return Look(found, None, f"{exc.expression}: {exc.reason}")
    if isinstance(args, Outcome):
        return Look(found, None, args.message, False, args.message)
    result = Look(found, dict(args))
    if any(f.error is not None for f in found):
        return result
    outcome = apply_condition(condition, [v for f in found for v in f.values], case, ctx)
    result.passed, result.message = outcome.passed, outcome.message
    return result
