"""`explain CASE_ID`: how each check of one case was decided on its trace(s), step by step.

The case's traces are found, read and evaluated exactly as `run` does (the same plan, the
same `Worker` and `Evaluator`); the verdict and message of every check and clause shown are
the ones `run` reports. What `explain` adds is looked at on the same trace context
afterwards, with the same compiled conditions and the case's resolved arguments
(`evaluation.look.look`): the values each query found, each guard's outcome, and each
parameter's value with where it came from (a literal in the spec file, a case key at its
line and column, a declared input's default, a binding's default, the predicate's default,
or the trace).

Exit codes: 0 the case passed (as `run` would say); 1 it did not, or it has no trace; 2 an
unknown case id, a usage error, or an invalid case, spec or config file.
It is over 600 lines as one concept: one command, the walk through a case's checks and the
words it prints for each, which change together.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import textwrap
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any

from ..dataclass import dataclass
from ..display import one_line
from ..evaluation.compaction import Brevity
from ..evaluation.evaluator import Evaluator
from ..evaluation.grouping import group_results
from ..evaluation.interpreter import CaseArguments
from ..evaluation.look import Found, Look, look
from ..evaluation.predicates import PREDICATES, TraceContext
from ..evaluation.worker import Worker
from ..inputs import find_case_files, spec_folders
from ..loading.yamlfile import PathKey, YamlDocument, load_yaml
from ..model import Binding, Case, Clause, Condition, Spec, Suite
from ..problems import ProblemsFound, UsageError, did_you_mean, show
from ..results import FAIL, PASS, SKIPPED, CheckResult, ClauseResult, RunResult
from . import EXIT_FAILED, EXIT_OK, options
from .layout import SuiteFlags, config_errors, read_config, resolve
from .run import RunOptions, find_traces, load_checked, no_run_reason
from .summary import Terminal

VALUE_WIDTH = 160  # characters of one value shown (--json has it whole)
VALUES_SHOWN = 10  # values listed per query; the rest are counted
WRAP = 92  # a check's description is wrapped to this width

_ABSENT = object()


# --------------------------------------------------------------------------------------------
# Records (plain data: --json is their dataclasses.asdict)


@dataclass
class Origin:
    """Where a parameter's value came from."""

    kind: str  # spec | case | input-default | binding-default | predicate-default | trace
    file: str | None = None
    line: int | None = None
    column: int | None = None
    key: str | None = None  # the case key (or input) a bound parameter reads
    query: str | None = None  # the JSONPath a parameter bound to the trace reads

    def text(self) -> str:
        """Where the value is from, as said after "from"."""
        # a standard spec as pack:file, never the folder the package is installed in
        at = (
            f" ({spec_label(self.file)}:{self.line}:{self.column})"
            if self.file and self.line
            else ""
        )
        if self.kind == "spec":
            return f"the spec{at}"
        if self.kind == "case":
            return f"case key {self.key}{at}"
        if self.kind == "input-default":
            return f"the default of input {self.key}, which the case does not set{at}"
        if self.kind == "binding-default":
            return f"the spec's default for case key {self.key}, which the case does not set{at}"
        if self.kind == "trace":
            return f"the trace: {self.query}"
        unset = f" (case key {self.key} is not set)" if self.key else ""
        return f"the predicate's default{unset}"


@dataclass
class Parameter:
    """One parameter of a condition as `explain` shows it: its value and where it came from."""

    name: str
    value: Any  # what the predicate was given (None with `set` False: not given)
    set: bool
    origin: Origin
    about: str = ""  # the predicate's documentation of the parameter


@dataclass
class ConditionReport:
    """One condition on one trace: what its queries found, its arguments, its outcome."""

    predicate: str
    found: list[dict[str, Any]]  # {expression, values} or {expression, error}
    parameters: list[Parameter]
    problem: str | None  # a parameter without a usable value
    passed: bool | None  # None: a query could not be evaluated
    message: str | None


@dataclass
class Guard:
    """A `when`/`unless` guard of a check or clause, what it saw and what it did."""

    role: str  # when | unless
    condition: ConditionReport
    effect: str  # applies | skipped | fails


@dataclass
class ClauseReport:
    """One clause of a check on one trace: its result, guards and condition."""

    name: str
    status: str
    message: str
    guards: list[Guard] = field(default_factory=list)
    condition: ConditionReport | None = None  # None: not evaluated (skipped by its guard)


@dataclass
class CheckReport:
    """One check on one trace as `explain` shows it: its spec, result, guards and clauses."""

    check: str
    description: str
    spec: str
    status: str
    message: str
    guards: list[Guard] = field(default_factory=list)
    clauses: list[ClauseReport] = field(default_factory=list)
    severity: str = "error"
    blocking: bool = True  # a failure of it fails the run (--fail-severity)


@dataclass
class RunReport:
    """One trace of a case as `explain` shows it: its run's figures and every check."""

    trace: str | None
    status: str
    reason: str | None
    verdict: str | None
    tool_calls: int | None
    duration_ms: float | None
    notes: list[str]
    checks: list[CheckReport] = field(default_factory=list)


@dataclass
class CaseReport:
    """One case as `explain` shows it: its file, status and runs."""

    case: str
    file: str
    status: str
    reason: str | None
    runs: list[RunReport]


# --------------------------------------------------------------------------------------------
# The command


def main(args: argparse.Namespace) -> int:
    flags = SuiteFlags.of(args)
    config = read_config(flags)
    errors = config_errors(flags, config)
    if errors:
        raise ProblemsFound(errors)
    layout = resolve(flags, config)
    run = RunOptions(
        cases=layout.cases,
        specs=layout.specs,
        fixtures=layout.fixtures,
        out=Path("reports"),
        max_trace_bytes=args.max_trace_bytes,
        terminal=Terminal(quiet=True),
        follow_symlinks=args.follow_symlinks,
        config=config,
        packs=layout.packs,
        traces=layout.traces,
    )
    report = explain_case(run, args.case_id)
    if args.json:
        print(json.dumps(dataclasses.asdict(report), ensure_ascii=False, indent=2, default=str))
    else:
        paint = options.Paint(options.use_color(args.color, sys.stdout))
        for line in render(report, paint):
            print(line)
    return EXIT_OK if report.status == PASS else EXIT_FAILED


def explain_case(options: RunOptions, case_id: str) -> CaseReport:
    """Evaluate the case's traces as `run` does and explain each run. Raises UsageError for
    an unknown case id, ProblemsFound for an invalid suite."""
    folders = spec_folders(options.specs, options.packs)
    full = load_checked(find_case_files(options.cases), folders, options.config)
    case = full.cases.get(case_id)
    if case is None:
        ids = sorted(full.cases)
        hint = did_you_mean(case_id, ids) or f"; case ids: {', '.join(ids[:8])}" + (
            f" and {len(ids) - 8} more" if len(ids) > 8 else ""
        )
        raise UsageError(f"no case has the id '{case_id}'{hint}")
    suite = full.restricted({case_id})
    traces = find_traces(options, suite, full)
    worker = Worker(suite, options.max_trace_bytes, traces.root, options.traces)
    recorder = Recorder(suite, options.traces, case_id)
    worker.evaluator = recorder
    runs = [run for job in traces.jobs for run in worker.runs(job)]
    cases, _ = group_results(
        suite, runs, traces.plan, set(full.cases) - {case_id}, no_run_reason(options, traces)
    )
    result = cases[0]
    origins = Origins(suite, case)
    # The runs as evaluated, not `result.runs`: a case's runs are held compactly, and read
    # back as new records (`results.Runs`), while the recorder knows each by its identity.
    mine = [run for run in runs if run.case_id == case_id]
    reports = [_run_report(run, suite, case, recorder.seen.get(id(run)), origins) for run in mine]
    return CaseReport(case.id, case.file, result.status, result.reason, reports)


class Recorder(Evaluator):
    """The run's Evaluator, keeping each evaluated trace's context (and the case's
    arguments) of one case for `look`."""

    def __init__(self, suite: Suite, settings: Any, case_id: str) -> None:
        super().__init__(suite, settings)
        self.keep_context = True
        self.case_id = case_id
        self.seen: dict[int, tuple[RunResult, TraceContext, CaseArguments]] = {}

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
        run = super().evaluate(trace, case_id, fixture, parent, own_id=own_id, brevity=brevity)
        if run.case_id == self.case_id and self.context is not None:
            self.seen[id(run)] = (run, self.context, self.arguments)
        return run


# --------------------------------------------------------------------------------------------
# Building the records


def _run_report(
    run: RunResult,
    suite: Suite,
    case: Case,
    seen: tuple[RunResult, TraceContext, CaseArguments] | None,
    origins: Origins,
) -> RunReport:
    report = RunReport(
        run.fixture,
        run.status,
        run.reason,
        run.verdict,
        run.tool_call_count,
        run.duration_ms,
        list(run.notes),
    )
    if seen is None:
        return report
    _, ctx, arguments = seen
    specs = {spec.id: spec for spec in suite.checks_for(case)}
    for check in run.checks:
        spec = specs.get(check.check)
        if spec is not None:
            report.checks.append(_check_report(spec, check, Looker(arguments, ctx, origins, spec)))
    return report


@dataclass
class Looker:
    """Looks at the conditions of one spec on one trace, and says where parameters are from."""

    arguments: CaseArguments
    ctx: TraceContext
    origins: Origins
    spec: Spec

    def condition(self, condition: Condition, prefix: PathKey) -> ConditionReport:
        seen = look(condition, self.arguments, self.ctx)
        return ConditionReport(
            condition.predicate,
            [_found(f) for f in seen.found],
            self._parameters(condition, seen, prefix),
            seen.problem,
            seen.passed,
            seen.message,
        )

    def _parameters(self, condition: Condition, seen: Look, prefix: PathKey) -> list[Parameter]:
        out = []
        given = seen.arguments or {}
        for name, param in PREDICATES[condition.predicate].params.items():
            raw = condition.params.get(name, _ABSENT)
            origin = self.origins.of(self.spec, (*prefix, "params", name), raw)
            value = given.get(name)
            is_set = name in given and not (value is None and origin.kind == "predicate-default")
            out.append(Parameter(name, value, is_set, origin, " ".join(param.doc.split())))
        return out

    def guards(
        self, when: Condition | None, unless: Condition | None, prefix: PathKey
    ) -> list[Guard]:
        """The guards in the order the interpreter tries them: `when` first; `unless` only
        when `when` let the check apply."""
        out = []
        for role, condition in (("when", when), ("unless", unless)):
            if condition is None:
                continue
            report = self.condition(condition, (*prefix, role))
            out.append(Guard(role, report, _effect(role, report.passed)))
            if out[-1].effect != "applies":
                break
        return out


def _effect(role: str, passed: bool | None) -> str:
    if passed is None:
        return "fails"
    return "applies" if passed == (role == "when") else "skipped"


def _found(found: Found) -> dict[str, Any]:
    if found.error is not None:
        return {"expression": found.expression, "error": found.error}
    return {"expression": found.expression, "values": found.values}


def _check_report(spec: Spec, check: CheckResult, looker: Looker) -> CheckReport:
    report = CheckReport(
        spec.id, " ".join(spec.description.split()), spec.file, check.status, check.message
    )
    report.severity, report.blocking = check.severity, check.blocking
    report.guards = looker.guards(spec.when, spec.unless, ())
    if not check.clauses:  # decided by its guards: skipped, or failed unevaluated
        return report
    in_clauses = looker.origins.has_clauses(spec)
    for index, (clause, result) in enumerate(zip(spec.clauses, check.clauses, strict=False)):
        prefix: PathKey = ("clauses", index) if in_clauses else ()
        report.clauses.append(_clause_report(clause, result, looker, prefix))
    return report


def _clause_report(
    clause: Clause, result: ClauseResult, looker: Looker, prefix: PathKey
) -> ClauseReport:
    report = ClauseReport(clause.name, result.status, result.message)
    report.guards = looker.guards(clause.when, clause.unless, prefix)
    if all(g.effect == "applies" for g in report.guards):
        report.condition = looker.condition(clause.condition, prefix)
    return report


class Origins:
    """Where parameters' values were written: spec and case files read again, with positions."""

    def __init__(self, suite: Suite, case: Case) -> None:
        self.suite = suite
        self.case = case
        self._docs: dict[str, YamlDocument | None] = {}

    def doc(self, file: str) -> YamlDocument | None:
        if file not in self._docs:
            try:
                self._docs[file] = load_yaml(Path(file), file)
            except (ProblemsFound, OSError):
                self._docs[file] = None
        return self._docs[file]

    def has_clauses(self, spec: Spec) -> bool:
        doc = self.doc(spec.file)
        return doc is not None and isinstance(doc.data, dict) and "clauses" in doc.data

    def at(self, kind: str, file: str, path: PathKey, key: str | None = None) -> Origin:
        doc = self.doc(file)
        where = (doc.keys.get(path) or doc.values.get(path)) if doc is not None else None
        if where is None:
            return Origin(kind, file, key=key)
        return Origin(kind, file, where.line, where.column, key)

    def of(self, spec: Spec, path: PathKey, raw: Any) -> Origin:
        if raw is _ABSENT:
            return Origin("predicate-default")
        if not isinstance(raw, Binding):
            return self.at("spec", spec.file, path)
        if raw.trace is not None:
            return Origin("trace", query=raw.trace.expression)
        return self._case_key(spec, path, raw)

    def _case_key(self, spec: Spec, path: PathKey, raw: Binding) -> Origin:
        key = raw.case or ""
        doc = self.doc(self.case.file)
        if doc is not None and isinstance(doc.data, dict) and doc.data.get(key) is not None:
            return self.at("case", self.case.file, (key,), key)
        if self.case.fields.get(key) is not None:  # a declared input's default
            for declarer in self.suite.specs.values():
                if key in declarer.inputs:
                    return self.at("input-default", declarer.file, ("inputs", key, "default"), key)
        if raw.default is not None:
            return self.at("binding-default", spec.file, (*path, "default"), key)
        return Origin("predicate-default", key=key)


# --------------------------------------------------------------------------------------------
# Text


def render(report: CaseReport, paint: options.Paint) -> list[str]:
    """The explanation as lines for a QA engineer: headings, indentation, plain values."""
    lines = [
        f"case {one_line(report.case)} ({one_line(report.file)}): {paint.status(report.status)}"
    ]
    if not report.runs:
        lines.append(f"  no trace: {one_line(report.reason or '')}")
        return lines
    if report.reason and report.status != PASS:
        lines.append(f"  {one_line(report.reason)}")
    for number, run in enumerate(report.runs, start=1):
        lines.append("")
        lines.extend(_render_run(run, number, len(report.runs), paint))
    return lines


def _render_run(run: RunReport, number: int, total: int, paint: options.Paint) -> list[str]:
    lines = [
        f"run {number} of {total}: {one_line(run.trace or '(no file)')}: {paint.status(run.status)}"
    ]
    if run.status not in (PASS, FAIL):
        lines.append(f"  {one_line(run.reason or '')}")
        return lines
    facts = [
        f"verdict {run.verdict if run.verdict is not None else '(none)'}",
        f"tool calls {run.tool_calls if run.tool_calls is not None else '(not counted)'}",
        f"duration {f'{run.duration_ms:g} ms' if run.duration_ms is not None else '(unknown)'}",
    ]
    lines.append(paint.dim("  " + one_line(", ".join(facts))))
    lines.extend(paint.dim(f"  note: {one_line(note)}") for note in run.notes)
    folded = False  # skipped checks are one line each, the lines of a row kept together
    for check in run.checks:
        if not (folded and check.status == SKIPPED):
            lines.append("")
        folded = check.status == SKIPPED
        lines.extend(_render_check(check, paint))
    return lines


def spec_label(file: str) -> str:
    """A standard spec as `pack:file` (`agent:required-tools.yaml`), wherever the package is
    installed; a suite's own spec as its path."""
    from ..inputs import standard_specs_dir

    try:
        relative = Path(file).resolve().relative_to(standard_specs_dir().resolve())
    except (ValueError, OSError):
        return file
    parts = relative.parts
    return f"{parts[0]}:{'/'.join(parts[1:])}" if len(parts) > 1 else f"standard:{parts[0]}"


def _render_skipped(check: CheckReport, paint: options.Paint) -> list[str]:
    """A skipped check on one line: why (its guard's outcome, or the input the case does not
    set); --json has its guards in full."""
    reason = check.message.removeprefix("skipped: ")
    guard = next((g for g in check.guards if g.effect == "skipped"), None)
    if guard is not None and guard.condition.message:
        held = "held" if guard.role == "unless" else "did not hold"
        reason += f" (guard {guard.role} {held}: {guard.condition.message})"
    return [f"  check {one_line(check.check)}: {paint.status(check.status)}: {one_line(reason)}"]


def _render_check(check: CheckReport, paint: options.Paint) -> list[str]:
    if check.status == SKIPPED:
        return _render_skipped(check, paint)
    severity = "" if check.severity == "error" else f" ({check.severity})"
    if check.status == FAIL and not check.blocking:
        severity = f" ({check.severity}: does not fail the case)"
    lines = [f"  check {one_line(check.check)}: {paint.status(check.status)}{severity}"]
    for part in textwrap.wrap(one_line(check.description), WRAP):
        lines.append(paint.dim(f"    {part}"))
    lines.append(paint.dim(f"    spec {one_line(spec_label(check.spec))}"))
    for guard in check.guards:
        lines.extend(_render_guard(guard, "the check", "    "))
    if not check.clauses:
        lines.append(f"    result: {one_line(check.message)}")
        return lines
    single = len(check.clauses) == 1 and not check.clauses[0].guards
    for clause in check.clauses:
        if single:
            lines.extend(_render_condition_body(clause.condition, "    "))
            lines.append(f"    result: {paint.status(clause.status)}: {one_line(clause.message)}")
        else:
            lines.extend(_render_clause(clause, paint))
    return lines


def _render_clause(clause: ClauseReport, paint: options.Paint) -> list[str]:
    lines = [f"    clause {one_line(clause.name)}: {paint.status(clause.status)}"]
    for guard in clause.guards:
        lines.extend(_render_guard(guard, "the clause", "      "))
    if clause.condition is not None:
        lines.extend(_render_condition_body(clause.condition, "      "))
    lines.append(f"      result: {one_line(clause.message)}")
    return lines


_EFFECTS: dict[str, Callable[[str, str], str]] = {
    "applies": lambda role, what: (
        f"{'holds' if role == 'when' else 'does not hold'}, so {what} applies"
    ),
    "skipped": lambda role, what: (
        f"{'does not hold' if role == 'when' else 'holds'}, so {what} is skipped"
    ),
    "fails": lambda role, what: f"cannot be evaluated, so {what} fails (never skipped unexamined)",
}


def _render_guard(guard: Guard, what: str, indent: str) -> list[str]:
    meaning = (
        "applies only when this holds" if guard.role == "when" else "is skipped when this holds"
    )
    lines = [f"{indent}guard {guard.role} ({what} {meaning}):"]
    lines.extend(_render_condition_body(guard.condition, indent + "  "))
    if guard.condition.message and guard.effect != "fails":
        lines.append(f"{indent}  outcome: {one_line(guard.condition.message)}")
    lines.append(f"{indent}  {_EFFECTS[guard.effect](guard.role, what)}")
    return lines


def _render_condition_body(cond: ConditionReport | None, indent: str) -> list[str]:
    if cond is None:
        return []
    lines = []
    for found in cond.found:
        lines.extend(_render_found(found, indent))
    lines.append(f"{indent}predicate {cond.predicate}")
    for param in cond.parameters:
        unset = "(no value)" if cond.problem else "(not set)"
        value = one_line(show(param.value, VALUE_WIDTH)) if param.set else unset
        lines.append(f"{indent}  {param.name} = {value}")
        about = (
            f": {_about(param)}" if param.origin.kind == "predicate-default" and param.about else ""
        )
        lines.append(f"{indent}      from {one_line(param.origin.text() + about)}")
    if cond.problem:
        lines.append(f"{indent}  parameter problem: {one_line(cond.problem)}")
    return lines


def _about(param: Parameter) -> str:
    """The parameter's documentation, said so that it cannot be read as its opposite: a
    true/false parameter's help says what `true` does, so `false` is said as off."""
    if param.set and param.value is False:
        return f"off (when true: {param.about})"
    return param.about


def _render_found(found: dict[str, Any], indent: str) -> list[str]:
    head = f"{indent}query {one_line(found['expression'])}"
    if "error" in found:
        return [f"{head}: cannot be evaluated: {one_line(found['error'])}"]
    values = found["values"]
    if not values:
        return [f"{head}: found nothing"]
    lines = [f"{head}: found {len(values)} value{'s' if len(values) != 1 else ''}"]
    for index, value in enumerate(values[:VALUES_SHOWN]):
        lines.append(f"{indent}  [{index}] {one_line(show(value, VALUE_WIDTH))}")
    if len(values) > VALUES_SHOWN:
        lines.append(f"{indent}  ... and {len(values) - VALUES_SHOWN} more")
    return lines


# --------------------------------------------------------------------------------------------
# The command line

EXPLAIN_EPILOG = """\
examples:
  %(prog)s mysql-slow-query
  %(prog)s agno --config examples/otel-genai
  %(prog)s redis-memory-eviction --fixtures runs/ --json

for each run of the case: every applied check, its guards (and why they held or not),
each parameter's resolved value and where it came from (the spec file, the case file's
line and column, a default), the values each query found, and the predicate's verdict and
message; the same evaluation as run, which it does not change.

exit codes: 0 the case passed, as run would say (every run, or its min_passes); 1 it did
            not (a run failed or errored), or it has no trace; 2 unknown case id, usage
            error, or an invalid case, spec or config file
"""


def build_parser(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Evaluate one case as run does and show, for each of its runs, each applied check:"
        " its guards, its resolved parameters with their origin, the values its queries"
        " found, and the predicate's verdict and message."
    )
    parser.epilog = EXPLAIN_EPILOG
    options.config_option(parser)
    parser.add_argument("case_id", metavar="CASE_ID", help="the id of the case to explain")
    options.path_option(
        parser, "--cases", "case folder or file (default: the config's cases, else cases/)"
    )
    options.path_option(
        parser,
        "--specs",
        "spec folder, as given to run; repeatable (default: specs/ when it exists)",
    )
    options.path_option(
        parser,
        "--fixtures",
        "folder of traces, or one file (default: the config's fixtures, else fixtures/)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    options.color_option(parser, "the verdicts")
    parser.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="read traces through links leading outside the fixtures folder, as run does",
    )
    options.max_trace_bytes(parser)
