"""The model: what a suite is made of, independent of files and of how traces are evaluated.

Loading (`validator.loading`) turns files into these objects; evaluation
(`validator.evaluation`) reads them. This module imports neither: it is the bottom of the
import graph, so every other part can depend on it.

A `Spec` here is the compiled, evaluable form of a check spec file: every JSONPath is already
compiled, and each `Condition` knows its predicate function and which of its parameters are
fixed (checked once, when the spec was compiled) and which are resolved per case or per
trace. There is no second "prepared" form anywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import Any, Protocol

from .dataclass import dataclass


class Finder(Protocol):
    """A compiled query (see `evaluation.query.Query`): what the model needs of one."""

    @property
    def expression(self) -> str: ...

    def find(self, document: Any) -> list[Any]: ...


# --------------------------------------------------------------------------------------------
# Cases


@dataclass(frozen=True, fast_init=True)
class Case:
    """One case as written by its author, validated."""

    id: str
    file: str
    fields: dict[str, Any] = field(hash=False, compare=False)  # every key the author wrote
    # The keys of `fields` filled in from an input's declared default, not written.
    defaulted: frozenset[str] = field(default=frozenset(), hash=False, compare=False)

    @property
    def checks(self) -> list[str] | None:
        return self.fields.get("checks")

    @property
    def severity_overrides(self) -> dict[str, str]:
        return dict(self.fields.get("severity_overrides") or {})

    def sets(self, name: str) -> bool:
        """Whether the author wrote `name` with a value that turns a check on: not null,
        not `false`, and not a default filled in (the meaning of a spec's `when_input`)."""
        value = self.fields.get(name)
        # `is`, not `in (None, False)`: max_tool_calls: 0 is a bound, and 0 == False.
        return name not in self.defaulted and value is not None and value is not False

    @property
    def tags(self) -> list[str]:
        return list(self.fields.get("tags") or [])


# --------------------------------------------------------------------------------------------
# Specs, compiled


@dataclass(frozen=True)
class Binding:
    """A parameter whose value comes from the case (`case`) or from the trace (`trace`)."""

    case: str | None = None
    trace: Finder | None = None
    default: Any = None


@dataclass(frozen=True)
class Unbound:
    """A parameter whose value is known only per case or per trace: resolved, then checked."""

    name: str
    raw: Any  # a Binding, or a literal that failed its type check (reported per trace)
    required: bool
    default: Any
    type: str  # a parameter type's name (evaluation.params)
    choices: tuple[str, ...] = ()  # the only values allowed, when any


# `pick:` on a spec or clause: which of the query's matches (in document order) the predicate
# sees; the spec schema's enum is this list.
PICKS = ("first", "last")


@dataclass(frozen=True, eq=False)
class Condition:
    """`query` + `predicate` + `params`, compiled: evaluable thousands of times.

    `fixed` holds the parameters whose values are known at compile time (literals and
    defaults, already type-checked); `unbound` the others, in declared order, so the first
    parameter that is wrong for a trace is the one a message names. `per_case` is true when
    no parameter reads the trace: its arguments are the same for every run of a case.
    """

    queries: tuple[Finder, ...]
    predicate: str
    params: dict[str, Any]  # as written: literal values or Binding
    fn: Callable[..., Any]
    fixed: dict[str, Any]
    unbound: tuple[Unbound, ...]
    per_case: bool
    where: str  # the JSONPath text (or texts) of the queries, as written
    # Where the values were read, as it follows every message: "(read from $.finalAnswer;
    # other from $.executorAnswer)" (parameters read from the trace are named too).
    read: str = ""
    pick: str | None = None  # one of PICKS: only that match is given to the predicate


@dataclass(frozen=True)
class Template:
    """A spec author's sentence for a failed check, `message:` in the spec file.

    `parts` alternate literal text and placeholder names: ("text", "the answer lacks "),
    ("field", "missing"); `{{` and `}}` are already literal braces."""

    text: str  # as written
    parts: tuple[tuple[str, str], ...]

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(value for kind, value in self.parts if kind == "field")


@dataclass(frozen=True, eq=False)
class Clause:
    """One clause of a check: its condition, its guards and its message template."""

    name: str
    condition: Condition
    when: Condition | None = None
    unless: Condition | None = None
    skip_reason: str | None = None
    message: Template | None = None  # the clause's own, else the spec's
    allow_empty: bool = False  # its own `allow_empty: true` (the spec's applies as well)


@dataclass(frozen=True, eq=False)
class Spec:
    """A check spec compiled: its clauses, guards, inputs and how its results are reported."""

    id: str
    description: str
    file: str
    default: bool = False
    report_as: str | None = None
    clauses: tuple[Clause, ...] = ()
    when: Condition | None = None
    unless: Condition | None = None
    skip_reason: str | None = None
    # error | warning | info: how much a failure of this check counts (results.SEVERITIES).
    severity: str = "error"
    # The input this check needs: without it (see `Case.sets`) the check is skipped.
    when_input: str | None = None
    # `allow_empty: true`: a query matching no node is expected (e.g. "no tool call at all"),
    # so a pass on zero matches is not marked as having examined nothing.
    allow_empty: bool = False
    # The case keys this check declares (name -> its JSON Schema, with an optional default)
    # and every case key its parameters read ({case: NAME}), declared here or elsewhere.
    inputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    reads: tuple[str, ...] = ()
    fields: dict[str, Finder] | None = None  # only for the trace-fields spec
    # The trace-fields spec may list the verdicts the verifier gives (for lint's spelling
    # check of case verdicts); None: not listed, so no spelling check.
    verdicts: tuple[str, ...] | None = None
    # The trace-fields spec may list the tools the agent has (names or globs), for lint's
    # check of the tool names cases write; None: not listed.
    tools: tuple[str, ...] | None = None

    @property
    def is_check(self) -> bool:
        return self.fields is None


# --------------------------------------------------------------------------------------------
# Trace fields: where the report reads a trace's case id, verdict, tool calls and duration


FIELDS_SPEC_ID = "trace-fields"


@dataclass(frozen=True)
class TraceField:
    """A trace field the report reads (case id, verdict, tool calls, duration)."""

    name: str
    doc: str
    required: bool = True
    alternative: str | None = None  # another field that may stand in for this one


# The one list of trace fields: the spec loader, lint, the schema test and the evaluator
# all read it.
TRACE_FIELDS: dict[str, TraceField] = {
    f.name: f
    for f in (
        TraceField("case_id", "the id of the case a trace belongs to"),
        TraceField("verdict", "the verifier's verdict"),
        TraceField(
            "tool_calls",
            "the list of tool calls (its items are counted)",
            True,
            "tool_call_matches",
        ),
        TraceField(
            "tool_call_matches",
            "a query matching each tool call (the matches are counted), for traces whose"
            " calls are not one list, such as OpenTelemetry spans",
            False,
            "tool_calls",
        ),
        TraceField("duration_ms", "the run's duration in milliseconds"),
    )
}


@dataclass(frozen=True)
class TraceFields:
    """The compiled queries of the trace-fields spec, by field name."""

    queries: dict[str, Finder]

    def query(self, name: str) -> Finder | None:
        return self.queries.get(name)

    def expression(self, name: str) -> str:
        query = self.queries.get(name)
        return query.expression if query is not None else name


# --------------------------------------------------------------------------------------------
# How traces are found and matched to cases (the suite config's `traces:` section)


@dataclass(frozen=True)
class TraceSettings:
    """Which files under the fixtures folder are traces, how they are read, and which case
    each belongs to. The defaults are the reference layout: `<case-id>.json` or
    `<case-id>/*.json`, and JSON Lines files whose entries name their case in `caseId`."""

    pattern: tuple[str, ...] = ("*.json", "*.jsonl")  # globs, relative to the fixtures folder
    format: str | None = None  # json | jsonl | otlp-json; None: by file suffix
    split: str | None = None  # a JSONPath: each match is one trace ($[*], $.samples[*])
    # Records made one trace: `file` (all of a file's), `folder` (all of a folder's files),
    # or a JSONPath (records with equal values); None: each record is a trace.
    group: str | None = None
    # A JSONPath read from each trace, or a template joining {file_stem}, {file_name},
    # {group}, {index} and {$.json.path} values; None: the trace-fields spec's case_id, then the file name.
    case_id: str | None = None
    view: str | None = None  # the adapter that makes $.view; None: detected per trace
    messages: str | None = None  # openai-messages: where the message list is (a JSONPath)
    allow_unmatched: bool = False  # a trace that matches no case does not fail the run
    # Globs of files and folders under the fixtures folder that are no traces (README.md,
    # docs/): listed as ignored, never read.
    ignore: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------
# The suite


def default_plan(
    specs: dict[str, Spec], default_checks: tuple[str, ...] | None = None
) -> tuple[Spec, ...]:
    """The checks of a case that names none: the suite config's `checks` in their order,
    or else every default check spec, by id."""
    if default_checks is not None:
        return tuple(specs[name] for name in dict.fromkeys(default_checks) if name in specs)
    return tuple(s for s in sorted(specs.values(), key=lambda s: s.id) if s.default and s.is_check)


def plan_of(
    checks: list[str] | None, specs: dict[str, Spec], default: tuple[Spec, ...]
) -> tuple[Spec, ...]:
    """A case's checks: the specs its `checks` names (unknown names left out), or `default`."""
    if not checks:
        return default
    return tuple(specs[n] for n in checks if n in specs and specs[n].is_check)


@dataclass
class Suite:
    """Validated cases plus compiled specs: everything evaluation needs, picklable."""

    cases: dict[str, Case]
    specs: dict[str, Spec]
    fields: TraceFields
    # The checks of a case without `checks`, in this order (the suite config's `checks`);
    # None: every `default: true` check spec, by id. Names are known specs (checked when
    # the config was loaded).
    default_checks: tuple[str, ...] | None = None
    traces: TraceSettings = field(default_factory=TraceSettings)
    # The least severity whose failed checks fail a run (run --fail-severity): error or warning.
    fail_severity: str = "error"
    # Each case's checks, in the order they run: its `checks`, else the default plan (one
    # tuple shared by every case that names no checks). Derived, so never out of step.
    plans: dict[str, tuple[Spec, ...]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        default = default_plan(self.specs, self.default_checks)
        self.plans = {
            case.id: plan_of(case.checks, self.specs, default) for case in self.cases.values()
        }

    def checks_for(self, case: Case) -> tuple[Spec, ...]:
        """The specs a case applies: its `checks`, or the default checks."""
        return self.plans[case.id]

    def restricted(self, case_ids: set[str]) -> Suite:
        """The same suite with only the given cases (a --case/--tag selection)."""
        chosen = {k: v for k, v in self.cases.items() if k in case_ids}
        return Suite(
            chosen, self.specs, self.fields, self.default_checks, self.traces, self.fail_severity
        )
