"""The interpreter: evaluates compiled check specs against one trace document.

It is the only place that knows about queries, bindings and guards; predicates only see values.
Every message it returns says first what is wrong, in the spec author's words when the spec
has a `message:` template (`evaluation.messages`), else in the predicate's, and then where it
was read: `... (read from $.finalAnswer)`, so a reader of the report knows where to look in
the trace. A template never replaces that JSONPath.

`compile_condition` is where a condition becomes evaluable (the loader calls it once per
condition of a spec file): it looks up the predicate, fills in and type-checks the parameters
whose values are already known, and leaves the rest to be resolved per case or per trace.
`compiled_check` is where a spec becomes one callable (once per process, since closures do
not cross into worker processes): its guards, queries, predicates, argument resolvers and
message suffixes bound once, so that per trace only the queries, the predicates and the
messages run. What may be decided once per value is shared by `evaluation.sharing`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

from ..model import Binding, Clause, Condition, Finder, Spec, Unbound
from ..results import FAIL, PASS, SKIPPED, CheckResult, ClauseResult
from .messages import render
from .params import LIST_TYPES, PARAM_TYPES, type_error
from .predicates import PREDICATES, Outcome, TraceContext, param_type_error
from .query import QueryEvaluationError
from .sharing import by_value, remembered

_ABSENT = object()
Arguments = dict[str, Any]
# A condition's arguments from a case's fields and a trace, or the Outcome saying which
# parameter has no value or a wrong one (see `_compile_arguments`).
Resolver = Callable[[dict[str, Any], TraceContext], Arguments | Outcome]


class CaseArguments:
    """The arguments of a case's per-case conditions, resolved once for all of its runs.

    A condition whose parameters read only the case (or nothing but literals) has the same
    arguments for every trace of that case; the runner evaluates a case's runs one after
    another, so it keeps one of these for the case at hand (`Evaluator`)."""

    __slots__ = ("_args", "again", "fields", "shared", "shared_briefly")

    def __init__(self, fields: dict[str, Any]) -> None:
        self.fields = fields
        self._args: dict[Condition, Arguments | Outcome] = {}
        # Whether a trace of this case was evaluated before (its runs come one after
        # another): from the second on, checks that judge values alone share their results
        # (`sharing.by_value`), kept here by (check, values).
        self.again = False
        self.shared: dict[tuple[Any, ...], CheckResult] = {}
        # Those of runs evaluated briefly (`TraceContext.brief`), which a run kept whole
        # must never be given.
        self.shared_briefly: dict[tuple[Any, ...], CheckResult] = {}

    def of(self, condition: Condition, ctx: TraceContext) -> Arguments | Outcome:
        """The condition's arguments for this case and trace (`explain` and the library)."""
        if not condition.unbound:
            return condition.fixed
        return self.resolved(condition, _compile_arguments(condition), ctx)

    def resolved(
        self, condition: Condition, resolve: Resolver, ctx: TraceContext
    ) -> Arguments | Outcome:
        """What `resolve` (the condition's, see `_compile_arguments`) gives: once per case
        when no parameter reads the trace, else for this trace."""
        if not condition.per_case:
            return resolve(self.fields, ctx)
        args = self._args.get(condition)
        if args is None:
            args = self._args[condition] = resolve(self.fields, ctx)
        return args


# --------------------------------------------------------------------------------------------
# Checks, compiled: one callable per spec, made once per process
#
# What does not depend on the trace is decided when a spec is compiled: which guards there
# are, how each query is run, the predicate function, the `(read from ...)` suffix, whether
# zero matches count as examined. What depends on the case (its resolved arguments) is
# looked up in its `CaseArguments`; only the queries, the predicate and the messages run
# per trace. Closures are not picklable, so programs are made in the process that runs them
# (`compiled_check`, memoized per spec) and a suite crosses into worker processes as data.

CheckProgram = Callable[[CaseArguments, TraceContext], CheckResult]
_Program = Callable[[CaseArguments, TraceContext], Any]

# Each spec's program, made when a process first evaluates it; a spec dropped with its suite
# drops its program too.
_PROGRAMS: WeakKeyDictionary[Spec, CheckProgram] = WeakKeyDictionary()


def compiled_check(spec: Spec) -> CheckProgram:
    """The program evaluating `spec` (guards first, then every clause; all must hold),
    compiled on first use in this process and kept."""
    program = _PROGRAMS.get(spec)
    if program is None:
        program = _PROGRAMS[spec] = compile_check(spec)
    return program


def evaluate_spec(spec: Spec, case: CaseArguments, ctx: TraceContext) -> CheckResult:
    """Evaluate one check spec: guards first, then every clause (all must hold)."""
    return compiled_check(spec)(case, ctx)


def compile_check(spec: Spec) -> CheckProgram:
    """`spec` as one callable from a case's arguments and a trace to the check's result."""
    check, report_as = spec.id, spec.report_as
    guard = _compile_guards(spec.when, spec.unless, spec.skip_reason)
    clauses = tuple(_compile_clause(c, check, spec.allow_empty) for c in spec.clauses)
    only = clauses[0] if len(clauses) == 1 else None
    # The check's result when it passes in a run that will be compacted (`TraceContext.brief`).
    passed_briefly = CheckResult(check, PASS, "", report_as=report_as)

    def run(case: CaseArguments, ctx: TraceContext) -> CheckResult:
        if guard is not None:
            try:
                skip = guard(case, ctx)
            except _Unevaluated as exc:
                return CheckResult(check, FAIL, exc.message, report_as=report_as)
            if skip is not None:
                return CheckResult(check, SKIPPED, skip, report_as=report_as)
        if only is not None:  # the common shape: the clause's result is the check's
            result = only(case, ctx)
            if result is _PASSED_BRIEFLY:
                return passed_briefly
            outcome = CheckResult(check, result.status, result.message, [result], report_as)
            outcome.examined = result.examined
            return outcome
        results = [clause(case, ctx) for clause in clauses]
        if ctx.brief and all(r is _PASSED_BRIEFLY for r in results):
            return passed_briefly
        outcome = CheckResult(check, *_combined(results), results, report_as)
        if outcome.status == PASS and any(r.examined == 0 for r in results):
            outcome.examined = 0
        return outcome

    return run if not _judges_values_alone(spec) else by_value(run, _queries_of(spec))


def _judges_values_alone(spec: Spec) -> bool:
    """Whether the check's result is a function of its queries' values and the case alone:
    every condition (guards included) has a pure predicate and no parameter read from the
    trace, so two traces whose queries find the same values get the same result."""
    conditions = _conditions(spec)
    return bool(conditions) and all(PREDICATES[c.predicate].pure and c.per_case for c in conditions)


def _queries_of(spec: Spec) -> tuple[Finder, ...]:
    """Every query the check's conditions read, each once, in order."""
    found: dict[str, Finder] = {}
    for condition in _conditions(spec):
        for query in condition.queries:
            found.setdefault(query.expression, query)
    return tuple(found.values())


def _conditions(spec: Spec) -> list[Condition]:
    """The check's conditions: its guards, then each clause's condition and guards."""
    every = [spec.when, spec.unless]
    for clause in spec.clauses:
        every += [clause.condition, clause.when, clause.unless]
    return [c for c in every if c is not None]


def _combined(results: list[ClauseResult]) -> tuple[str, str]:
    """A multi-clause check's status and message: any failure fails it; all skipped skips it."""
    if all(r.status == PASS for r in results):  # the common case, kept cheap
        return PASS, "; ".join([r.message for r in results])
    failed = [r for r in results if r.status == FAIL]
    if failed:
        return FAIL, "; ".join(_prefixed(r) for r in failed)
    if all(r.status == SKIPPED for r in results):
        return SKIPPED, "; ".join(_prefixed(r) for r in results)
    notes = [_prefixed(r) for r in results if r.status == SKIPPED]
    return PASS, "; ".join([*(r.message for r in results if r.status == PASS), *notes])


def _prefixed(result: ClauseResult) -> str:
    """A clause's message in its check's: the author's sentence as it is, else with the
    clause's name, which says which part of the check it is about."""
    return result.message if result.worded else f"[{result.name}] {result.message}"


# A clause's result when it passes, having examined something, in a run that will be
# compacted (`TraceContext.brief`): the compaction keeps no message of a check that passes.
_PASSED_BRIEFLY = ClauseResult("", PASS, "")

# Predicates whose verdict is about whether the query matches at all: a pass on zero
# matches is what they judge, not a check that had nothing to examine.
PRESENCE_PREDICATES = frozenset({"absent"})


def _compile_clause(
    clause: Clause, check: str, spec_allows_empty: bool
) -> Callable[[CaseArguments, TraceContext], ClauseResult]:
    condition = clause.condition
    name, read = clause.name, condition.read
    guard = _compile_guards(clause.when, clause.unless, clause.skip_reason)
    judge = _compile_judge(condition)
    empty = spec_allows_empty or clause.allow_empty or condition.predicate in PRESENCE_PREDICATES

    def run(case: CaseArguments, ctx: TraceContext) -> ClauseResult:
        try:
            if guard is not None:
                skip = guard(case, ctx)
                if skip is not None:
                    return ClauseResult(name, SKIPPED, skip)
            values, outcome = judge(case, ctx)
        except _Unevaluated as exc:
            return ClauseResult(name, FAIL, exc.message)
        except QueryEvaluationError as exc:
            # Never "nothing matched": a check that cannot look at the trace does not pass.
            message = _at(f"cannot be evaluated, so this fails: {_why(condition, exc)}", condition)
            return ClauseResult(name, FAIL, message)
        if outcome.passed:
            if not values and not empty:
                return _unexamined(clause, condition)
            if ctx.brief:
                return _PASSED_BRIEFLY
            message = f"{outcome.message} {read}" if read else outcome.message
            return ClauseResult(name, PASS, message, outcome.details)
        sentence = _worded(clause, outcome, case, check)
        message = _at(sentence or outcome.message, condition)
        return ClauseResult(name, FAIL, message, outcome.details, sentence is not None)

    return run


def _compile_judge(
    condition: Condition,
) -> Callable[[CaseArguments, TraceContext], tuple[list[Any], Outcome]]:
    """The condition run on a trace: what its queries matched, in order, and its predicate's
    outcome on them with the case's arguments (`apply_condition`), as one function of the
    case and the trace. What does not depend on them is looked up once: the one query (most
    conditions have one), the predicate, its arguments when no parameter waits for a case or
    a trace, its `pick`. Raises QueryEvaluationError when a query cannot be evaluated."""
    fn, pick, fixed = condition.fn, condition.pick, condition.fixed
    resolve = _compile_arguments(condition) if condition.unbound else None
    query = condition.queries[0] if len(condition.queries) == 1 else None

    def judge(case: CaseArguments, ctx: TraceContext) -> tuple[list[Any], Outcome]:
        values = ctx.find(query) if query is not None else _values(condition, ctx)
        args = fixed if resolve is None else case.resolved(condition, resolve, ctx)
        if isinstance(args, Outcome):
            return values, args
        picked = values
        if pick is not None and values:
            picked = [values[0] if pick == "first" else values[-1]]
        try:
            return values, fn(picked, args, ctx)
        except RecursionError:
            return values, Outcome(False, "the value is nested too deeply to examine")

    return judge


def _compile_guards(
    when: Condition | None, unless: Condition | None, reason: str | None
) -> _Program | None:
    """A function of the case and the trace giving the recorded reason for skipping, or None
    when the check (or clause) applies; None when there is no guard.

    It raises _Unevaluated when a guard's query cannot be evaluated: skipping would let a
    check pass unexamined, so the check (or clause) fails instead."""
    if when is None and unless is None:
        return None
    holds_when = _compile_guard(when, "when") if when is not None else None
    holds_unless = _compile_guard(unless, "unless") if unless is not None else None
    when_skip = unless_skip = "skipped: "
    if when is not None:
        when_skip += reason or f"condition on {when.where} does not hold"
    if unless is not None:
        unless_skip += reason or f"exception on {unless.where} holds"

    def skip(case: CaseArguments, ctx: TraceContext) -> str | None:
        if holds_when is not None and not holds_when(case, ctx):
            return when_skip
        if holds_unless is not None and holds_unless(case, ctx):
            return unless_skip
        return None

    return skip


def _compile_guard(
    condition: Condition, role: str
) -> Callable[[CaseArguments, TraceContext], bool]:
    judge = _compile_judge(condition)

    def holds(case: CaseArguments, ctx: TraceContext) -> bool:
        try:
            return judge(case, ctx)[1].passed
        except QueryEvaluationError as exc:
            raise _Unevaluated(
                f"the `{role}` condition on {condition.where} cannot be evaluated, so this"
                f" fails instead of being skipped: {_why(condition, exc)}"
            ) from None

    if condition.unbound or not PREDICATES[condition.predicate].pure:
        return holds
    return remembered(holds, condition.queries)


def _unexamined(clause: Clause, condition: Condition) -> ClauseResult:
    """A clause that passed because its queries matched no node: it read nothing, and
    says so (`examined: 0`), so that a misspelt path never passes unseen."""
    message = (
        f"nothing to examine at {condition.where}: no node of this trace matched, so nothing"
        " was read (write allow_empty: true in the spec when that is expected)"
    )
    result = ClauseResult(clause.name, PASS, message)
    result.examined = 0
    return result


def _at(message: str, condition: Condition) -> str:
    return f"{message} {condition.read}" if condition.read else message


def _worded(clause: Clause, outcome: Outcome, case: CaseArguments, check: str) -> str | None:
    """The clause's `message:` template filled in for this failure, with the predicate's
    notes; None when there is no template, the failure is not one the predicate judged
    (a value of the wrong type, a parameter with no value), or a placeholder has no value."""
    if clause.message is None or outcome.facts is None:
        return None
    facts = {"path": clause.condition.where, "check": check, "clause": clause.name}
    facts.update(outcome.facts)
    sentence = render(clause.message, facts, case.fields)
    if sentence is None:
        return None
    notes = [
        *(f"note: {n}" for n in (outcome.details or {}).get("notes") or []),
        *outcome.facts.get("notes", []),
    ]
    return sentence + "".join(f" ({n})" for n in notes)


class _Unevaluated(Exception):
    """A guard whose query could not be evaluated; `message` is the failure to report."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _why(condition: Condition, exc: QueryEvaluationError) -> str:
    """The reason, naming the expression when it is not the one the message starts with
    (one of several queries, or a parameter read from the trace)."""
    if exc.expression == condition.where:
        return exc.reason
    return f"{exc.expression}: {exc.reason}"


def run_predicate(name: str, values: list[Any], args: Arguments, ctx: TraceContext) -> Outcome:
    """Call a registered predicate on `values` with literal `args`, as a spec would.

    For predicate authors and their tests: defaults are filled in and types checked exactly
    as for a spec, so a parameter of the wrong type fails with a message rather than raising."""
    condition = compile_condition((), name, args)
    return apply_condition(condition, values, CaseArguments({}), ctx)


def _values(condition: Condition, ctx: TraceContext) -> list[Any]:
    """What the condition's queries matched, in order."""
    queries = condition.queries
    if len(queries) == 1:
        return ctx.find(queries[0])
    values: list[Any] = []
    for query in queries:
        values.extend(ctx.find(query))
    return values


def apply_condition(
    condition: Condition, values: list[Any], case: CaseArguments, ctx: TraceContext
) -> Outcome:
    """The predicate of `condition` on `values` (what its queries found), with the case's
    resolved arguments: what every check and guard does, and what `explain` shows."""
    args = case.of(condition, ctx)
    if isinstance(args, Outcome):
        return args
    if condition.pick is not None and values:
        values = [values[0] if condition.pick == "first" else values[-1]]
    try:
        result: Outcome = condition.fn(values, args, ctx)
    except RecursionError:
        return Outcome(False, "the value is nested too deeply to examine")
    return result


def _compile_arguments(condition: Condition) -> Resolver:
    """The condition's arguments as a function of a case's fields and a trace, giving a
    failed Outcome naming the first parameter that has no value or a value of the wrong
    type. What a parameter's declaration says (its case field, defaults, type check,
    choices, conversion) is looked up once here, not for each case."""
    fixed = condition.fixed
    plan = []
    for param in condition.unbound:
        raw = param.raw
        by_case = isinstance(raw, Binding) and raw.trace is None
        # {case: field}: the field read (None: no field, so the binding's default) and that
        # default; any other parameter is read per trace (`_literal_or_traced`).
        field, given = (raw.case or None, raw.default) if by_case else (None, None)
        kind = PARAM_TYPES[param.type]
        plan.append(
            (param, by_case, field, given, kind.check, kind.convert, param.default, param.choices)
        )

    def resolve(case_fields: dict[str, Any], ctx: TraceContext) -> Arguments | Outcome:
        args = dict(fixed)
        for param, by_case, field, given, check, convert, default, choices in plan:
            if by_case:  # the common binding
                value = case_fields.get(field) if field is not None else None
                if value is None:
                    value = given
            else:
                value = _literal_or_traced(param, ctx)
                if isinstance(value, Outcome):
                    return value
            if value is None and default is not None:
                value = _ABSENT  # null (e.g. an empty case field) means "not set"
            if value is _ABSENT:
                if param.required:
                    return Outcome(False, f"parameter '{param.name}' has no value")
                value = default
            # A choice left unset (null, its default) is not off the choices.
            if not check(value) or (
                choices and value not in choices and not (value is None and default is None)
            ):
                problem = type_error(param.type, value) or f"must be one of {', '.join(choices)}"
                return Outcome(False, f"parameter '{param.name}' {problem}")
            args[param.name] = value if convert is None else convert(value)
        return args

    return resolve


def _one_match(name: str, raw: Binding, ctx: TraceContext) -> Any:
    """The one value a `{trace: PATH}` binding gives a parameter that takes one value: its
    single match; the binding's `default` when it matches nothing (else the check fails:
    the value is missing); several matches fail the check, naming how many."""
    assert raw.trace is not None
    found = ctx.find(raw.trace)
    expression = raw.trace.expression
    if len(found) == 1:
        return found[0]
    if found:
        return Outcome(
            False,
            f"parameter '{name}' takes one value, but {expression} found {len(found)}:"
            " write a path that selects one (an index such as [0], or a filter)",
        )
    if raw.default is not None:
        return raw.default
    return Outcome(False, f"parameter '{name}' is missing: {expression} found nothing")


def _literal_or_traced(param: Unbound, ctx: TraceContext) -> Any:
    """The value of a parameter not bound to the case: a literal as written, or read from
    the trace (every match for a type that takes a list, else the one match, or an Outcome
    saying why there is none)."""
    raw = param.raw
    if not isinstance(raw, Binding):
        return raw
    assert raw.trace is not None, "a {case: field} binding is resolved by its resolver"
    if param.type not in LIST_TYPES:
        return _one_match(param.name, raw, ctx)
    return ctx.find(raw.trace)


# --------------------------------------------------------------------------------------------
# Compiling


def compile_condition(
    queries: tuple[Finder, ...], predicate: str, params: dict[str, Any], pick: str | None = None
) -> Condition:
    """A condition ready to evaluate. `predicate` must be registered (the loader checks);
    `pick` (first, last): the predicate sees only that one of the queries' matches."""
    pred = PREDICATES[predicate]
    # Parameters whose value is known now (a literal or the default, of the right type) are
    # filled in once; the others are resolved and checked per case or per trace, in declared
    # order, so the first parameter that is wrong is the one a message names.
    fixed: dict[str, Any] = {}
    unbound = []
    for name, param in pred.params.items():
        raw = params.get(name, _ABSENT)
        if raw is not _ABSENT and isinstance(raw, Binding):
            known = _ABSENT
        elif raw is _ABSENT or (raw is None and param.default is not None):
            known = _ABSENT if param.required else param.default
        else:
            known = raw
        if known is not _ABSENT and param_type_error(param, known) is None:
            convert = PARAM_TYPES[param.type].convert
            fixed[name] = known if convert is None else convert(known)
            continue
        unbound.append(Unbound(name, raw, param.required, param.default, param.type, param.choices))
    per_case = not any(isinstance(p.raw, Binding) and p.raw.trace is not None for p in unbound)
    where = ", ".join(q.expression for q in queries)
    return Condition(
        queries,
        predicate,
        params,
        pred.fn,
        fixed,
        tuple(unbound),
        per_case,
        where,
        _read(where, params, pick),
        pick,
    )


def _read(where: str, params: dict[str, Any], pick: str | None = None) -> str:
    """`(read from $.finalAnswer; other from $.executorAnswer)`: the queries (and which match
    `pick` took), and every parameter read from the trace, so a message names each field it
    compared."""
    bound = [
        f"; {name} from {raw.trace.expression}"
        for name, raw in params.items()
        if isinstance(raw, Binding) and raw.trace is not None
    ]
    picked = f", its {pick} match" if pick else ""
    return f"(read from {where}{picked}{''.join(bound)})" if where else ""
