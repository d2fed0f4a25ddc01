"""Outcomes shared by value: a check or a guard made of pure predicates (they never read the
trace's context: `exists`, `absent`, `in`, `not-in`) decides as a function of the texts its
queries find, so it is decided once per such value and the decision reused.

- `by_value`: a check's result, shared by the runs of a case whose queries find the same
  texts or nulls (its arguments may come from the case): a check of the verdict gives a
  case's 40 runs two or three results, not 40. Results of runs evaluated briefly (to be
  compacted: `TraceContext.brief`) are shared apart, never given to a run kept whole.
- `remembered`: a guard (`when`, `unless`) whose arguments are all literal, decided once per
  short text it reads, for every case a process evaluates: `when: the verdict is in
  [REJECT]` is judged once per verdict a run meets, not once per trace (judging makes a
  message, which a guard drops).

Only texts and nulls make a key, so values equal across types (`1`, `1.0`, `true`) are never
taken for one another; any other value, or a query that cannot be evaluated, goes the
program's own way, which says what is wrong. The interpreter decides what may be shared
(`interpreter.compile_check`, `_compile_guard`); this module only wraps its programs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from ..model import Finder
from ..results import CheckResult
from .context import TraceContext
from .query import QueryEvaluationError

# A case's results shared by value, at most this many per case (its runs' distinct values).
_SHARED_MAX = 64
# A guard's decisions, at most this many per guard and process, and only for texts this
# short: a verdict or a status, which traces repeat (an answer never does).
_GUARD_VALUES_MAX = 256
_GUARD_TEXT_LONGEST = 200


class CaseState(Protocol):
    """What sharing reads of a case's arguments (`interpreter.CaseArguments`): whether a run
    of the case was evaluated before, and the results its runs share."""

    again: bool
    shared: dict[tuple[Any, ...], CheckResult]
    shared_briefly: dict[tuple[Any, ...], CheckResult]


Case = TypeVar("Case", bound=CaseState)
Anyone = TypeVar("Anyone")
Kept = TypeVar("Kept")


def by_value(
    run: Callable[[Case, TraceContext], CheckResult], queries: tuple[Finder, ...]
) -> Callable[[Case, TraceContext], CheckResult]:
    """`run`, its result shared by the runs of a case whose `queries` find the same texts (or
    nulls). A shared result is read-only like every other (the compactor makes new ones). A
    case's first trace is evaluated as it is, so a suite of one trace per case pays nothing
    for this."""

    def shared(case: Case, ctx: TraceContext) -> CheckResult:
        if not case.again:
            return run(case, ctx)
        memo = case.shared_briefly if ctx.brief else case.shared
        return _kept(run, queries, None, _SHARED_MAX, memo, case, ctx)

    return shared


def remembered(
    holds: Callable[[Anyone, TraceContext], bool], queries: tuple[Finder, ...]
) -> Callable[[Anyone, TraceContext], bool]:
    """`holds`, for a guard whose predicate is pure and whose arguments are all literal:
    whether it holds is then a function of the texts its `queries` find alone, the same for
    every case. A value that is not a short text or null is judged as usual, each time."""
    memo: dict[Any, bool] = {}

    def decided(case: Anyone, ctx: TraceContext) -> bool:
        return _kept(holds, queries, _GUARD_TEXT_LONGEST, _GUARD_VALUES_MAX, memo, case, ctx)

    return decided


def _kept(
    judge: Callable[[Anyone, TraceContext], Kept],
    queries: tuple[Finder, ...],
    longest: int | None,
    most: int,
    memo: dict[Any, Kept],
    case: Anyone,
    ctx: TraceContext,
) -> Kept:
    """`judge(case, ctx)`, kept in `memo` by the texts `queries` find (at most `most` of
    them, none longer than `longest`) and taken from there when they are found again."""
    try:
        values = _texts_found(queries, ctx, longest)
    except QueryEvaluationError:  # the judge says so, in its own words
        return judge(case, ctx)
    if values is None:
        return judge(case, ctx)
    key = (judge, values)
    outcome = memo.get(key)
    if outcome is None:
        outcome = judge(case, ctx)
        if len(memo) < most:
            memo[key] = outcome
    return outcome


def _texts_found(
    queries: tuple[Finder, ...], ctx: TraceContext, longest: int | None
) -> tuple[tuple[Any, ...], ...] | None:
    """What `queries` find, as the key of an outcome shared by value; None when a value is
    neither a text nor null or is a text longer than `longest`. Raises
    QueryEvaluationError."""
    values = tuple(tuple(ctx.find(query)) for query in queries)
    for found in values:
        for value in found:
            if value is None:
                continue
            if type(value) is not str or (longest is not None and len(value) > longest):
                return None
    return values
